//! Byte slices read eight bytes at a time.
//!
//! `[u8; 8]::copy_from_slice(chunk)` stays a call at the wasm's opt-level z, and that call is a
//! `memory.copy`, which V8 runs out of line: for eight bytes it costs more than the test the word
//! is read for. Converting the slice to `&[u8; 8]` is one load.

/// The little-endian word in `chunk`, which must be exactly eight bytes long.
#[inline(always)]
pub(crate) fn le_word(chunk: &[u8]) -> Option<u64> {
    <&[u8; 8]>::try_from(chunk)
        .ok()
        .map(|w| u64::from_le_bytes(*w))
}

/// The little-endian word at byte `at` of `bytes`, if eight bytes are there.
#[inline(always)]
pub(crate) fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    le_word(bytes.get(at..at.checked_add(8)?)?)
}

#[cfg(test)]
mod tests {
    use super::{le_word, word_at};

    #[test]
    fn reads_exactly_eight_bytes_little_endian() {
        assert_eq!(
            le_word(b"\x01\0\0\0\0\0\0\x80"),
            Some(0x8000_0000_0000_0001)
        );
        assert_eq!(le_word(b"abcdefg"), None);
        assert_eq!(le_word(b"abcdefghi"), None);
        assert_eq!(word_at(b"x\x01\0\0\0\0\0\0\0", 1), Some(1));
        assert_eq!(word_at(b"x\x01\0\0\0\0\0\0", 1), None);
        assert_eq!(word_at(b"", usize::MAX), None);
    }
}
