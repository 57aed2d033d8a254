//! Unpadded URL-safe base64 (RFC 4648 §5) of fixed-length byte strings: receipt handles.
//!
//! Every received message gets a handle encoded and every delete or visibility change decodes
//! one. The `base64` crate's engine is built for inputs of any length: for a handle's 29 bytes
//! its chunk and tail bookkeeping cost ~270 instructions to encode and ~450 to decode, a tenth of
//! a native batched send → receive → delete cycle (BENCHMARKS.md, "Native engine → Eighth
//! session"). Here the lengths are constants, so the loops unroll to table lookups. The
//! `base64` crate stays the reference: the tests check these against it byte for byte, and
//! every other base64 in the engine (binary attribute values) goes through it.

#[cfg(all(target_arch = "x86_64", not(target_arch = "wasm32")))]
mod avx2;
#[cfg(all(target_arch = "x86_64", not(target_arch = "wasm32")))]
mod wide;

#[cfg(not(target_arch = "wasm32"))]
use arrayvec::ArrayString;

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

/// The base64 of the 32 bytes that are `words` written big-endian, as text: natively, a
/// receipt handle. In one register (`wide`) on a CPU with AVX-512 VBMI, in two (`avx2`) on one
/// with AVX2.
#[cfg(not(target_arch = "wasm32"))]
#[inline]
pub(crate) fn encode_words(words: [u64; 4]) -> ArrayString<{ encoded_len(32) }> {
    #[cfg(target_arch = "x86_64")]
    if crate::vbmi::available() {
        let [w0, w1, w2, w3] = words;
        // SAFETY: the CPU has what `wide` needs (checked just above).
        return unsafe { wide::encode_words(w0, w1, w2, w3) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        let [w0, w1, w2, w3] = words;
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { avx2::encode_words(w0, w1, w2, w3) };
    }
    encode_words_scalar(words)
}

#[cfg(not(target_arch = "wasm32"))]
fn encode_words_scalar(words: [u64; 4]) -> ArrayString<{ encoded_len(32) }> {
    let mut bytes = [0u8; 32];
    for (at, word) in (0..).step_by(8).zip(words) {
        if let Some(b) = bytes.get_mut(at..at + 8) {
            b.copy_from_slice(&word.to_be_bytes());
        }
    }
    let mut out = [0u8; encoded_len(32)];
    encode(&bytes, &mut out);
    crate::hex::ascii_text(&out)
}

/// The `N` bytes whose unpadded URL-safe base64 is `text`, or `None` when `text` is not exactly
/// that: another length, a symbol outside the alphabet (padding included), or a last symbol
/// with bits set beyond the data (what the `base64` crate's strict decoding also refuses, so a
/// byte string has exactly one text). The wasm reads handles this way; native builds read them
/// as words (`decode_words`).
#[cfg(any(test, target_arch = "wasm32"))]
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

/// What `decode` gives, as big-endian words (byte 0 is the top byte of word 0; the last word is
/// filled with zeros), for `N` up to 32.
///
/// The words are put together in registers: a handle's fields are words, and reading them from
/// bytes just stored one at a time stalled each load until the stores were done (store
/// forwarding fails on a wide load of narrow stores), a third of the time spent reading a handle
/// in the native cycle's profile. Native builds only: in the wasm this was +0.2 KB and no faster.
///
/// For 32 bytes (a receipt handle's whole text) on a CPU with AVX-512 VBMI, in one register
/// (`wide`); with AVX2, in two (`avx2`).
#[cfg(not(target_arch = "wasm32"))]
#[inline]
pub(crate) fn decode_words<const N: usize>(text: &[u8]) -> Option<[u64; 4]> {
    if N > 32 {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    if N == 32 && crate::vbmi::available() {
        // SAFETY: the CPU has what `wide` needs (checked just above).
        return unsafe { wide::decode_words(text) };
    }
    #[cfg(target_arch = "x86_64")]
    if N == 32 && std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { avx2::decode_words(text) };
    }
    decode_words_scalar::<N>(text)
}

#[cfg(not(target_arch = "wasm32"))]
#[inline]
fn decode_words_scalar<const N: usize>(text: &[u8]) -> Option<[u64; 4]> {
    if N > 32 {
        return None;
    }
    let mut words = [0u64; 4];
    let mut filled = 0;
    // Bits not yet in a word, right-aligned; never more than 63 + 24 of them. A u128, so that
    // every group is the same few instructions and the loop unrolls (with a u64 and a branch
    // for the group that completes a word it stayed a loop, and reading a handle took twice
    // as long).
    let mut pending = 0u128;
    let mut bits = 0u32;
    decode_groups::<N>(text, |value, width| {
        pending = pending << width | u128::from(value);
        bits += width;
        if bits >= 64 {
            bits -= 64;
            if let Some(w) = words.get_mut(filled) {
                *w = (pending >> bits) as u64;
            }
            filled += 1;
        }
    })?;
    if bits > 0 {
        if let Some(w) = words.get_mut(filled) {
            *w = (pending << (64 - bits)) as u64;
        }
    }
    Some(words)
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

        /// The words are the bytes, natively put together in registers.
        #[test]
        fn decode_words_are_the_decoded_bytes(text in texts(encoded_len(29))) {
            let words = decode_words::<29>(&text);
            let from_bytes = decode::<29>(&text).map(|bytes| {
                let mut padded = [0u8; 32];
                padded[..29].copy_from_slice(&bytes);
                [0, 1, 2, 3].map(|w| u64::from_be_bytes(padded[8 * w..8 * w + 8].try_into().unwrap()))
            });
            prop_assert_eq!(words, from_bytes);
        }

        /// Every way this machine decodes a handle's 43 symbols gives `decode`'s bytes as
        /// words, and refuses what it refuses.
        #[test]
        fn every_path_decodes_32_bytes_as_decode_does(
            text in texts(encoded_len(32)),
            bytes in any::<[u8; 32]>(),
            spare in 0u8..4,
        ) {
            let mut canonical = encoded(&bytes);
            let last = canonical.len() - 1;
            canonical[last] = ALPHABET[(VALUES[usize::from(canonical[last])] as u8 | spare) as usize];
            for text in [text, canonical] {
                let want = decode::<32>(&text).map(|bytes| {
                    [0, 1, 2, 3].map(|w| u64::from_be_bytes(bytes[8 * w..8 * w + 8].try_into().unwrap()))
                });
                for (path, decode_words) in word_decoders() {
                    prop_assert_eq!(decode_words(&text), want, "{}", path);
                }
            }
        }

        /// Every way this machine encodes 32 bytes gives `encode`'s text.
        #[test]
        fn every_path_encodes_32_bytes_as_encode_does(bytes in any::<[u8; 32]>()) {
            let words = [0, 1, 2, 3].map(|w| u64::from_be_bytes(bytes[8 * w..8 * w + 8].try_into().unwrap()));
            for (path, encode_words) in word_encoders() {
                let text = encode_words(words);
                prop_assert_eq!(text.as_bytes(), &encoded(&bytes)[..], "{}", path);
            }
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

    type WordDecoder = fn(&[u8]) -> Option<[u64; 4]>;
    type WordEncoder = fn([u64; 4]) -> ArrayString<{ encoded_len(32) }>;

    /// `decode_words::<32>` as it dispatches, and each path it can take on this machine.
    fn word_decoders() -> Vec<(&'static str, WordDecoder)> {
        let mut paths: Vec<(&str, WordDecoder)> = vec![
            ("dispatch", decode_words::<32>),
            ("scalar", decode_words_scalar::<32>),
        ];
        #[cfg(target_arch = "x86_64")]
        if crate::vbmi::available() {
            // SAFETY: the CPU has what `wide` needs (checked just above).
            paths.push(("avx512vbmi", |t| unsafe { wide::decode_words(t) }));
        }
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            paths.push(("avx2", |t| unsafe { avx2::decode_words(t) }));
        }
        paths
    }

    fn word_encoders() -> Vec<(&'static str, WordEncoder)> {
        let mut paths: Vec<(&str, WordEncoder)> =
            vec![("dispatch", encode_words), ("scalar", encode_words_scalar)];
        #[cfg(target_arch = "x86_64")]
        if crate::vbmi::available() {
            // SAFETY: as above.
            paths.push(("avx512vbmi", |[a, b, c, d]| unsafe {
                wide::encode_words(a, b, c, d)
            }));
        }
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: as above.
            paths.push(("avx2", |[a, b, c, d]| unsafe {
                avx2::encode_words(a, b, c, d)
            }));
        }
        paths
    }

    /// Where the machine has AVX-512 VBMI or AVX2 the tests above hold the vector code to the
    /// scalar; this says whether they did.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_vector_paths_are_tested_where_the_cpu_has_them() {
        let expected = 2
            + usize::from(crate::vbmi::available())
            + usize::from(std::is_x86_feature_detected!("avx2"));
        assert_eq!(word_decoders().len(), expected);
        assert_eq!(word_encoders().len(), expected);
    }

    #[test]
    fn other_lengths_are_refused_and_written_nowhere() {
        let bytes = [7u8; 29];
        let text = encoded(&bytes);
        assert_eq!(decode::<29>(&text[1..]), None);
        assert_eq!(decode::<29>(&[text.as_slice(), b"A"].concat()), None);
        let mut short = vec![b'!'; encoded_len(29) - 1];
        encode(&bytes, &mut short);
        assert!(short.iter().all(|&c| c == b'!'));
    }
}
