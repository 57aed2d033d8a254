//! Storage records and change batches cross the boundary as one byte buffer each (the batch
//! writer is `crate::changes::PackedBatch`, which the native benches use too).
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
//!
//! A restore's records are written by JS straight into wasm memory (a
//! [`super::records_buffer::RecordsBuffer`]) and read here.

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
