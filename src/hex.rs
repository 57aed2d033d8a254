//! Lower-case hex, two digits per table lookup, and the fixed-length ASCII texts built from it.
//!
//! Every message of a send → receive cycle has its id written twice and its MD5 twice, and every
//! record key carries hex words. A digit at a time was two shifts, two lookups and two stores per
//! byte; one 512-byte table of digit pairs makes it one load and one two-byte store.

use arrayvec::ArrayString;

/// The lower-case hex of `bytes`, as text: a stored MD5's.
pub(crate) fn hex16(bytes: &[u8; 16]) -> ArrayString<32> {
    let mut out = [0u8; 32];
    write(bytes, &mut out);
    ascii_text(&out)
}

/// `PAIRS[b]` is the two lower-case hex digits of `b`.
const PAIRS: [[u8; 2]; 256] = {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut table = [[0u8; 2]; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = [DIGITS[b >> 4], DIGITS[b & 0xf]];
        b += 1;
    }
    table
};

/// The two hex digits of one byte.
#[inline(always)]
pub(crate) fn pair(b: u8) -> [u8; 2] {
    PAIRS[usize::from(b)]
}

/// The 8-4-4-4-12 lower-case hex text of `v` (a MessageId), most significant byte first.
pub(crate) fn uuid_text(v: u128) -> ArrayString<36> {
    let b = v.to_be_bytes();
    let p = |i: usize| pair(b[i]);
    let ([a0, a1], [a2, a3], [a4, a5], [a6, a7]) = (p(0), p(1), p(2), p(3));
    let ([b0, b1], [b2, b3], [c0, c1], [c2, c3]) = (p(4), p(5), p(6), p(7));
    let ([d0, d1], [d2, d3]) = (p(8), p(9));
    let ([e0, e1], [e2, e3], [e4, e5]) = (p(10), p(11), p(12));
    let ([e6, e7], [e8, e9], [ea, eb]) = (p(13), p(14), p(15));
    // The 8-4-4-4-12 text as one array of its bytes: every byte is given, so nothing is filled
    // first. In the wasm (opt-level z, bulk memory) a fill and each copy of the text is a call
    // that V8 runs out of line.
    let text = [
        a0, a1, a2, a3, a4, a5, a6, a7, b'-', b0, b1, b2, b3, b'-', c0, c1, c2, c3, b'-', d0, d1,
        d2, d3, b'-', e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, ea, eb,
    ];
    ascii_text(&text)
}

/// Writes the hex of `bytes` into the start of `out` (which must hold twice as many bytes; any
/// digit that does not fit is left out).
#[inline(always)]
pub(crate) fn write(bytes: &[u8], out: &mut [u8]) {
    // Index loops here and below, not zipped or chunked iterators: the wasm is built at
    // opt-level z, where each step of those stayed a call (the MD5 texts of every message).
    let n = bytes.len().min(out.len() / 2);
    for i in 0..n {
        let [hi, lo] = pair(bytes[i]);
        out[2 * i] = hi;
        out[2 * i + 1] = lo;
    }
}

/// An inline string of `N` ASCII bytes, made ASCII rather than validated as UTF-8.
///
/// For texts written from ASCII tables (hex digits, dashes, the base64 alphabet), three a
/// message: `ArrayString::from_byte_string` would run the full UTF-8 validation on each, and
/// `is_ascii` is an early-exit loop run about a byte at a time; clearing every byte's high bit is
/// branch-free, and leaves the texts the tables wrote as they are. A byte that was not ASCII (no caller writes one; debug builds assert it) would come out
/// as another ASCII byte, never as invalid UTF-8.
pub(crate) fn ascii_text<const N: usize>(bytes: &[u8; N]) -> ArrayString<N> {
    debug_assert!(bytes.is_ascii(), "only ASCII tables write these texts");
    let mut ascii = *bytes;
    clear_high_bits(&mut ascii);
    // SAFETY: every byte is below 0x80, so ASCII, so valid UTF-8.
    let text = unsafe { std::str::from_utf8_unchecked(&ascii) };
    ArrayString::from(text).unwrap_or_default()
}

/// Clears every byte's high bit, eight bytes to a word: the wasm has no SIMD, and a byte loop
/// there ran a byte at a time, ~300 instructions for a MessageId's text.
#[inline(always)]
fn clear_high_bits(bytes: &mut [u8]) {
    let mut at = 0;
    while at + 8 <= bytes.len() {
        if let Some(w) = bytes
            .get_mut(at..at + 8)
            .and_then(|c| <&mut [u8; 8]>::try_from(c).ok())
        {
            *w = (u64::from_le_bytes(*w) & 0x7f7f_7f7f_7f7f_7f7f).to_le_bytes();
        }
        at += 8;
    }
    for b in bytes.iter_mut().skip(at) {
        *b &= 0x7f;
    }
}

#[cfg(test)]
mod tests {
    /// `clear_high_bits`, on every length a text has and around it.
    #[test]
    fn clearing_high_bits_clears_each_byte_and_nothing_else() {
        for len in 0..=45 {
            let bytes: Vec<u8> = (0..len)
                .map(|i| (i as u8).wrapping_mul(37) ^ 0xa5)
                .collect();
            let mut words = bytes.clone();
            super::clear_high_bits(&mut words);
            let each: Vec<u8> = bytes.iter().map(|b| b & 0x7f).collect();
            assert_eq!(words, each, "length {len}");
        }
    }

    use super::*;

    proptest::proptest! {
        /// `hex16` and `uuid_text` write what `format!` writes.
        #[test]
        fn writes_the_hex_format_writes(v in proptest::prelude::any::<u128>()) {
            let bytes = v.to_le_bytes();
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let b = format!("{v:032x}");
            let uuid = format!("{}-{}-{}-{}-{}", &b[..8], &b[8..12], &b[12..16], &b[16..20], &b[20..]);
            let (h, u) = (hex16(&bytes), uuid_text(v));
            proptest::prop_assert_eq!(h.as_str(), hex.as_str());
            proptest::prop_assert_eq!(u.as_str(), uuid.as_str());
        }
    }

    /// The digits' edges (0, 9, a, f in each nibble) and the dashes' neighbours.
    #[test]
    fn writes_nibble_edges_and_dash_neighbours() {
        for v in [
            0u128,
            u128::MAX,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
            0x9a9a_a9a9 << 64 | 0xf0f0_0f0f,
        ] {
            let b = format!("{v:032x}");
            let uuid = format!(
                "{}-{}-{}-{}-{}",
                &b[..8],
                &b[8..12],
                &b[12..16],
                &b[16..20],
                &b[20..]
            );
            let hex: String = v.to_le_bytes().iter().map(|x| format!("{x:02x}")).collect();
            assert_eq!(uuid_text(v).as_str(), uuid);
            assert_eq!(hex16(&v.to_le_bytes()).as_str(), hex);
        }
    }

    #[test]
    fn pairs_are_lower_case_hex_of_every_byte() {
        for b in 0..=255u8 {
            assert_eq!(pair(b), *format!("{b:02x}").as_bytes());
        }
    }

    #[test]
    fn write_fills_twice_the_bytes_and_stops_at_the_end_of_out() {
        let mut out = [b'.'; 9];
        write(&[0x01, 0xab, 0xff, 0x70], &mut out);
        assert_eq!(&out, b"01abff70.");
        let mut short = [b'.'; 3];
        write(&[0x01, 0xab], &mut short);
        assert_eq!(&short, b"01.");
    }

    #[test]
    fn ascii_text_keeps_ascii_as_it_is() {
        assert_eq!(ascii_text(b"0a-Z_").as_str(), "0a-Z_");
        let every: [u8; 128] = std::array::from_fn(|i| i as u8);
        assert_eq!(ascii_text(&every).as_bytes(), &every[..]);
    }

    #[test]
    #[cfg(not(debug_assertions))]
    fn ascii_text_never_makes_invalid_utf8_of_other_bytes() {
        // Release builds only: debug builds assert that no caller passes such bytes.
        let accented: &[u8; 3] = "aé".as_bytes().try_into().unwrap();
        let text = ascii_text(accented);
        assert_eq!(text.len(), 3);
        assert!(text.is_ascii());
        assert_eq!(ascii_text(&[b'a', 0x80]).as_str(), "a\0");
    }
}
