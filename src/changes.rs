//! The durable changes one operation made, handed to a storage adapter as one atomic batch.

/// Records to write and keys to remove. Applying every `Changes` in order to an empty key/value
/// store and handing the result to `Service::restore` rebuilds the same state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Keys to set, with their new values. A key appears at most once.
    pub put: Vec<(String, Vec<u8>)>,
    /// Keys to remove. Never also in `put`.
    pub del: Vec<String>,
}

impl Changes {
    /// Nothing to persist.
    pub fn is_empty(&self) -> bool {
        self.put.is_empty() && self.del.is_empty()
    }
}

/// Where `take_changes` hands each record as it is written: the records of one call go to one
/// sink, so a host that wants them in another shape (one packed buffer) need not build a
/// `Changes` first.
pub trait ChangeSink {
    /// A record to set (a key at most once per call).
    fn put(&mut self, key: &str, value: &[u8]);
    /// A key to remove.
    fn del(&mut self, key: &str);
}

impl ChangeSink for Changes {
    fn put(&mut self, key: &str, value: &[u8]) {
        self.put.push((key.to_string(), value.to_vec()));
    }

    fn del(&mut self, key: &str) {
        self.del.push(key.to_string());
    }
}

/// A batch in the packed layout the JS storage adapters read (`pkg-template/src/storage/batch.js`),
/// every length a little-endian u32: `put_count`, `del_count`, then `put_count` × (`key_len`,
/// key, `value_len`, value), then `del_count` × (`key_len`, key). Records are copied in as they
/// are written, with no allocation per record.
#[derive(Debug, Default)]
pub struct PackedBatch {
    puts: Vec<u8>,
    dels: Vec<u8>,
    put_count: usize,
    del_count: usize,
    too_long: bool,
}

/// A length does not fit the u32 the packed layout allows (a value of 4 GiB or more).
#[derive(Debug)]
pub struct TooLong;

fn push_part(out: &mut Vec<u8>, bytes: &[u8], too_long: &mut bool) {
    let len = u32::try_from(bytes.len()).unwrap_or_else(|_| {
        *too_long = true;
        0
    });
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(bytes);
}

impl PackedBatch {
    /// The batch, or `None` when there is nothing to persist.
    pub fn finish(mut self) -> Result<Option<Vec<u8>>, TooLong> {
        if self.put_count == 0 && self.del_count == 0 {
            return Ok(None);
        }
        let counts = (u32::try_from(self.put_count), u32::try_from(self.del_count));
        let (Ok(puts), Ok(dels), false) = (counts.0, counts.1, self.too_long) else {
            return Err(TooLong);
        };
        let mut out = Vec::with_capacity(8 + self.puts.len() + self.dels.len());
        out.extend_from_slice(&puts.to_le_bytes());
        out.extend_from_slice(&dels.to_le_bytes());
        out.append(&mut self.puts);
        out.append(&mut self.dels);
        Ok(Some(out))
    }
}

impl ChangeSink for PackedBatch {
    fn put(&mut self, key: &str, value: &[u8]) {
        self.put_count += 1;
        push_part(&mut self.puts, key.as_bytes(), &mut self.too_long);
        push_part(&mut self.puts, value, &mut self.too_long);
    }

    fn del(&mut self, key: &str) {
        self.del_count += 1;
        push_part(&mut self.dels, key.as_bytes(), &mut self.too_long);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le(n: u32) -> [u8; 4] {
        n.to_le_bytes()
    }

    #[test]
    fn packed_batch_has_the_adapters_layout() {
        let mut batch = PackedBatch::default();
        batch.put("us-east-1/m/1", b"{}");
        batch.del("us-east-1/s/2");
        batch.put("k", b"");
        let mut want = Vec::new();
        want.extend(le(2));
        want.extend(le(1));
        for (k, v) in [("us-east-1/m/1", &b"{}"[..]), ("k", b"")] {
            want.extend(le(k.len() as u32));
            want.extend(k.bytes());
            want.extend(le(v.len() as u32));
            want.extend(v);
        }
        want.extend(le(13));
        want.extend(b"us-east-1/s/2");
        assert_eq!(batch.finish().unwrap(), Some(want));
        assert_eq!(PackedBatch::default().finish().unwrap(), None);
    }

    #[test]
    fn changes_collect_what_the_sink_is_given() {
        let mut c = Changes::default();
        c.put("a", b"1");
        c.del("b");
        assert_eq!(c.put, vec![("a".to_string(), b"1".to_vec())]);
        assert_eq!(c.del, vec!["b".to_string()]);
        assert!(!c.is_empty());
    }
}
