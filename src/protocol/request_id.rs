//! Deterministic request ids: the engine draws no randomness, so hosts number their requests and
//! turn (seed, counter) into a UUID-shaped id.

use siphasher::sip128::{Hasher128, SipHasher13};
use std::hash::Hasher;

/// A UUID-shaped (version 4 layout) id for request number `counter` of a host seeded with `seed`.
/// The same pair always gives the same id; different counters give unrelated-looking ids.
pub fn request_id(seed: u64, counter: u64) -> String {
    let mut h = SipHasher13::new_with_keys(seed, 0x7271_6964_7761_7371); // "sqwadiqr": fixed domain key
    h.write(&counter.to_le_bytes());
    let mut b = h.finish128().as_bytes();
    // Version and variant bits, so the id also parses as an RFC 4122 random UUID.
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    // The MessageId's writer: the same 8-4-4-4-12 text.
    crate::engine::ids::format_uuid(u128::from_be_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_uuid_shaped_deterministic_and_distinct() {
        let a = request_id(1, 0);
        assert_eq!(a, request_id(1, 0));
        assert_ne!(a, request_id(1, 1));
        assert_ne!(a, request_id(2, 0));
        assert_eq!(a.len(), 36);
        let groups: Vec<usize> = a.split('-').map(str::len).collect();
        assert_eq!(groups, [8, 4, 4, 4, 12]);
        assert!(a
            .chars()
            .all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_eq!(a.as_bytes()[14], b'4');
        assert!(matches!(a.as_bytes()[19], b'8' | b'9' | b'a' | b'b'));
    }

    #[test]
    fn ids_are_the_uuid_text_of_the_hash() {
        for (seed, counter) in [(0, 0), (1, 1), (u64::MAX, 7), (42, u64::MAX)] {
            let mut h = SipHasher13::new_with_keys(seed, 0x7271_6964_7761_7371);
            h.write(&counter.to_le_bytes());
            let mut b = h.finish128().as_bytes();
            b[6] = (b[6] & 0x0f) | 0x40;
            b[8] = (b[8] & 0x3f) | 0x80;
            let x: String = b.iter().map(|v| format!("{v:02x}")).collect();
            let expected = [&x[0..8], &x[8..12], &x[12..16], &x[16..20], &x[20..32]].join("-");
            assert_eq!(request_id(seed, counter), expected);
        }
    }
}
