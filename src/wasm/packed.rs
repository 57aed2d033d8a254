//! Storage records and change batches cross the boundary as one byte buffer each.
//!
//! Building a JS array of `[key, Uint8Array]` pairs costs several boundary calls per record, and
//! reading one back costs as many again. One buffer costs a single copy each way. The JS side
//! (`pkg-template/src/storage/batch.js`) reads and writes the same layout. Every length is a
//! little-endian u32:
//!
//! - a batch: `put_count`, `del_count`, then `put_count` × (`key_len`, key, `value_len`, value),
//!   then `del_count` × (`key_len`, key) (FileStorage's batch payload after its kind byte).
//! - records: (`key_len`, key, `value_len`, value) repeated to the end of the buffer.
//!
//! Keys are UTF-8.

use crate::changes::Changes;

/// A length does not fit the u32 the layout allows (a value of 4 GiB or more).
#[derive(Debug)]
pub struct TooLong;

fn push_len(out: &mut Vec<u8>, len: usize) -> Result<(), TooLong> {
    let len = u32::try_from(len).map_err(|_| TooLong)?;
    out.extend_from_slice(&len.to_le_bytes());
    Ok(())
}

fn push_bytes(out: &mut Vec<u8>, bytes: &[u8]) -> Result<(), TooLong> {
    push_len(out, bytes.len())?;
    out.extend_from_slice(bytes);
    Ok(())
}

/// The batch layout of `changes`, or `None` when there is nothing to persist.
pub fn encode_changes(changes: &Changes) -> Result<Option<Vec<u8>>, TooLong> {
    if changes.is_empty() {
        return Ok(None);
    }
    let size = 8
        + changes
            .put
            .iter()
            .map(|(k, v)| 8 + k.len() + v.len())
            .sum::<usize>()
        + changes.del.iter().map(|k| 4 + k.len()).sum::<usize>();
    let mut out = Vec::with_capacity(size);
    push_len(&mut out, changes.put.len())?;
    push_len(&mut out, changes.del.len())?;
    for (key, value) in &changes.put {
        push_bytes(&mut out, key.as_bytes())?;
        push_bytes(&mut out, value)?;
    }
    for key in &changes.del {
        push_bytes(&mut out, key.as_bytes())?;
    }
    Ok(Some(out))
}

/// The records of a records buffer, in order. A malformed buffer ends the iteration early and
/// leaves the reason in [`Records::error`], which the caller must check once iteration is over.
pub struct Records<'a> {
    rest: &'a [u8],
    error: Option<&'static str>,
}

impl<'a> Records<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Records {
            rest: bytes,
            error: None,
        }
    }

    /// Why iteration stopped before the end of the buffer, if it did.
    pub fn error(&self) -> Option<&'static str> {
        self.error
    }

    fn take(&mut self) -> Option<&'a [u8]> {
        let Some((len, rest)) = self.rest.split_first_chunk::<4>() else {
            return self.fail("a record is cut short");
        };
        let len = u32::from_le_bytes(*len) as usize;
        if rest.len() < len {
            return self.fail("a record is cut short");
        }
        let (bytes, rest) = rest.split_at(len);
        self.rest = rest;
        Some(bytes)
    }

    fn fail<T>(&mut self, why: &'static str) -> Option<T> {
        self.error = Some(why);
        self.rest = &[];
        None
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = (&'a str, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let key = self.take()?;
        let value = self.take()?;
        let Ok(key) = std::str::from_utf8(key) else {
            return self.fail("a record key is not UTF-8");
        };
        Some((key, value))
    }
}
