//! Unpadded URL-safe base64 (RFC 4648 §5) of fixed-length byte strings: receipt handles.
//!
//! Every received message gets a handle encoded and every delete or visibility change decodes
//! one. The `base64` crate's engine is built for inputs of any length, and for a handle's 29
//! bytes its chunk and tail bookkeeping is most of the work. Here the lengths are constants, so
//! the loops unroll to table lookups. The `base64` crate stays the reference: the tests check
//! these against it byte for byte, and every other base64 in the engine (binary attribute
//! values, move-task handles) goes through it.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `VALUES[c]` is the 6-bit value of the symbol `c`, or `INVALID` (-1). Read sign-extended to
/// 32 bits, an invalid symbol is all ones, so shifted into place for any position of a group it
/// still sets bits above the group's 24, and one test of the OR of every group's spill tells
/// whether any symbol was invalid. (A test per group, or a flag bit tested at the end, let the
/// compiler keep all 39 values live across the tests and spill them: ~100 instructions more.)
const INVALID: i8 = -1;
const VALUES: [i8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < 64 {
        table[ALPHABET[i] as usize] = i as i8;
        i += 1;
    }
    table
};

/// The encoded length of `n` bytes, unpadded.
pub(crate) const fn encoded_len(n: usize) -> usize {
    (n * 4).div_ceil(3)
}

#[inline(always)]
fn symbol(v: u32) -> u8 {
    ALPHABET[(v & 63) as usize]
}

/// Writes the unpadded URL-safe base64 of `bytes` into `out`, which must be
/// `encoded_len(N)` long (anything else leaves `out` as it was).
#[inline]
pub(crate) fn encode<const N: usize>(bytes: &[u8; N], out: &mut [u8]) {
    if out.len() != encoded_len(N) {
        return;
    }
    let whole = N / 3;
    // Index loops, not `chunks_exact` zipped: the size-optimised wasm calls out for each step of
    // those iterators, where native code inlines them.
    for i in 0..whole {
        let (g, s) = (3 * i, 4 * i);
        let n = u32::from(bytes[g]) << 16 | u32::from(bytes[g + 1]) << 8 | u32::from(bytes[g + 2]);
        out[s] = symbol(n >> 18);
        out[s + 1] = symbol(n >> 12);
        out[s + 2] = symbol(n >> 6);
        out[s + 3] = symbol(n);
    }
    let rest = &mut out[whole * 4..];
    match bytes[whole * 3..] {
        [a] => {
            let n = u32::from(a) << 16;
            rest.copy_from_slice(&[symbol(n >> 18), symbol(n >> 12)]);
        }
        [a, b] => {
            let n = u32::from(a) << 16 | u32::from(b) << 8;
            rest.copy_from_slice(&[symbol(n >> 18), symbol(n >> 12), symbol(n >> 6)]);
        }
        _ => {}
    }
}

/// The `N` bytes whose unpadded URL-safe base64 is `text`; `None` for any other length, a
/// symbol outside the alphabet, or a last symbol with bits set beyond the data (what the
/// `base64` crate's strict decoding also refuses, so a byte string has exactly one text).
#[inline]
pub(crate) fn decode<const N: usize>(text: &[u8]) -> Option<[u8; N]> {
    let mut bytes = [0u8; N];
    let mut at = 0;
    decode_groups::<N>(text, |value, width| {
        let n = (width / 8) as usize;
        // An index loop: the size-optimised wasm keeps a stepped range's steps as calls.
        for k in 0..n {
            if let Some(b) = bytes.get_mut(at + k) {
                *b = (value >> (8 * (n - 1 - k))) as u8;
            }
        }
        at += n;
    })?;
    Some(bytes)
}

/// Checks `text` is the base64 of `N` bytes and hands `push` its bits in order, `width` (24, or
/// 8 or 16 for the tail) at a time, right-aligned in `value`. `None` as `decode` says; `push`
/// may have been called by then.
#[inline(always)]
fn decode_groups<const N: usize>(text: &[u8], mut push: impl FnMut(u32, u32)) -> Option<()> {
    if text.len() != encoded_len(N) {
        return None;
    }
    let value = |c: u8| VALUES[usize::from(c)] as u32;
    // Bits above 24 in any group: an invalid symbol.
    let mut spill = 0u32;
    let whole = N / 3;
    // Index loops, not `chunks_exact`: the size-optimised wasm calls out for each step of those
    // iterators, where native code inlines them.
    for i in 0..whole {
        let s = 4 * i;
        let n = value(text[s]) << 18
            | value(text[s + 1]) << 12
            | value(text[s + 2]) << 6
            | value(text[s + 3]);
        spill |= n >> 24;
        push(n & 0xff_ffff, 24);
    }
    match text[whole * 4..] {
        [] => {}
        [a, b] => {
            let n = value(a) << 6 | value(b);
            // Two symbols carry 12 bits for 8: the low 4 must be zero.
            spill |= n >> 12 | n & 0x0f;
            push(n >> 4 & 0xff, 8);
        }
        [a, b, c] => {
            let n = value(a) << 12 | value(b) << 6 | value(c);
            // Three symbols carry 18 bits for 16: the low 2 must be zero.
            spill |= n >> 18 | n & 0x03;
            push(n >> 2 & 0xffff, 16);
        }
        _ => return None,
    }
    (spill == 0).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use proptest::prelude::*;

    const CRATE: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

    fn reference_decode<const N: usize>(text: &[u8]) -> Option<[u8; N]> {
        let mut bytes = [0u8; N];
        match CRATE.decode_slice(text, &mut bytes) {
            Ok(n) if n == N => Some(bytes),
            _ => None,
        }
    }

    fn encoded<const N: usize>(bytes: &[u8; N]) -> Vec<u8> {
        let mut out = vec![0u8; encoded_len(N)];
        encode(bytes, &mut out);
        out
    }

    /// Texts of a handle's length made mostly of alphabet symbols, with the characters a
    /// forger or a corrupted copy would bring: padding, standard base64's `+` and `/`, others.
    fn texts(len: usize) -> impl Strategy<Value = Vec<u8>> {
        let symbol = prop_oneof![
            8 => proptest::sample::select(ALPHABET.to_vec()),
            1 => proptest::sample::select(b"=+/.~ \n\x00\xff\xc3".to_vec()),
        ];
        proptest::collection::vec(symbol, len)
    }

    proptest! {
        #[test]
        fn encodes_as_the_base64_crate_does(bytes in any::<[u8; 29]>()) {
            prop_assert_eq!(encoded(&bytes), CRATE.encode(bytes).into_bytes());
        }

        #[test]
        fn encodes_every_tail_length_as_the_base64_crate_does(
            a in any::<[u8; 30]>(), b in any::<[u8; 31]>(), c in any::<[u8; 1]>(),
        ) {
            prop_assert_eq!(encoded(&a), CRATE.encode(a).into_bytes());
            prop_assert_eq!(encoded(&b), CRATE.encode(b).into_bytes());
            prop_assert_eq!(encoded(&c), CRATE.encode(c).into_bytes());
        }

        #[test]
        fn decodes_and_refuses_as_the_base64_crate_does(text in texts(encoded_len(29))) {
            prop_assert_eq!(decode::<29>(&text), reference_decode::<29>(&text));
        }

        #[test]
        fn decodes_every_tail_length_as_the_base64_crate_does(
            a in texts(encoded_len(30)), b in texts(encoded_len(31)), c in texts(encoded_len(1)),
        ) {
            prop_assert_eq!(decode::<30>(&a), reference_decode::<30>(&a));
            prop_assert_eq!(decode::<31>(&b), reference_decode::<31>(&b));
            prop_assert_eq!(decode::<1>(&c), reference_decode::<1>(&c));
        }


        #[test]
        fn decode_inverts_encode(bytes in any::<[u8; 29]>()) {
            prop_assert_eq!(decode::<29>(&encoded(&bytes)), Some(bytes));
        }

        /// Only the data's own bits may be set in the last symbol: a handle has one text.
        #[test]
        fn a_last_symbol_with_spare_bits_set_is_refused(bytes in any::<[u8; 29]>(), spare in 1u8..4) {
            let mut text = encoded(&bytes);
            let last = text.len() - 1;
            text[last] = ALPHABET[(VALUES[usize::from(text[last])] as u8 | spare) as usize];
            prop_assert_eq!(decode::<29>(&text), None);
        }
    }
}
