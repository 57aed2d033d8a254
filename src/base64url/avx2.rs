//! Thirty-two bytes to their 43 base64 symbols and back in AVX2 registers, for CPUs without
//! AVX-512 VBMI (`wide`): a receipt handle is minted on every receive and read on every delete.
//!
//! AVX2 has no byte permute across its two 128-bit lanes, so the method is the SSE form of Muła
//! and Lemire's ("Base64 encoding and decoding at almost the speed of a memory copy"), twice:
//! a 256-bit register holds bytes 0–11 and 12–23 (32 symbols), a 128-bit one bytes 24–31
//! (11 symbols). Per lane, one byte shuffle gathers each group's three bytes into a 32-bit
//! lane, two masked multiplies cut them into 6-bit indices, and the alphabet is added as one of
//! six offsets chosen by the index's range. Decoding tests each symbol against the alphabet's
//! five ranges (the offsets back come from the same test), and two multiply-adds put a group's
//! bits back together.
//!
//! On the sixteenth session's AMD EPYC (Zen 1, no AVX-512), in a harness: minting 38–39 ns →
//! 11, reading 29–42 → 14–17; the batched cycle 4,238 → 3,887 instructions a message
//! (BENCHMARKS.md "Native engine → Sixteenth session").
//!
//! Each operation is a function that enables AVX2 itself, as in `md5_lanes::avx2`, so that the
//! intrinsics inline into it.
//!
//! Held to the scalar code (itself held to the `base64` crate) by proptests in `super::tests`.

use crate::text_image;
use arrayvec::ArrayString;
use std::arch::x86_64::*;

/// The symbols of 32 bytes: 10 whole groups and 2 bytes over.
const SYMBOLS: usize = 43;

/// Per 128-bit lane: group `g`'s bytes `3g+1, 3g, 3g+2, 3g+1` into its 32-bit lane, the order
/// the masked multiplies expect.
const GATHER: [i8; 16] = [1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10];

/// The 6-bit indices of the groups `GATHER` gathered, in symbol order in each 32-bit lane.
#[target_feature(enable = "avx2")]
#[inline]
fn indices128(grouped: __m128i) -> __m128i {
    let t0 = _mm_and_si128(grouped, _mm_set1_epi32(0x0fc0_fc00));
    let t1 = _mm_mulhi_epu16(t0, _mm_set1_epi32(0x0400_0040));
    let t2 = _mm_and_si128(grouped, _mm_set1_epi32(0x003f_03f0));
    let t3 = _mm_mullo_epi16(t2, _mm_set1_epi32(0x0100_0010));
    _mm_or_si128(t1, t3)
}

#[target_feature(enable = "avx2")]
#[inline]
fn indices256(grouped: __m256i) -> __m256i {
    let t0 = _mm256_and_si256(grouped, _mm256_set1_epi32(0x0fc0_fc00));
    let t1 = _mm256_mulhi_epu16(t0, _mm256_set1_epi32(0x0400_0040));
    let t2 = _mm256_and_si256(grouped, _mm256_set1_epi32(0x003f_03f0));
    let t3 = _mm256_mullo_epi16(t2, _mm256_set1_epi32(0x0100_0010));
    _mm256_or_si256(t1, t3)
}

/// Per 128-bit lane, what to add to an index of each class to make its symbol. The class is the
/// index less 51, saturated (0 for 0–51, 1–10 for the digits, 11 for `-`, 12 for `_`), and 13
/// for 0–25 (the capitals).
const OFFSETS: [i8; 16] = [
    b'a' as i8 - 26,
    b'0' as i8 - 52,
    b'0' as i8 - 52,
    b'0' as i8 - 52,
    b'0' as i8 - 52,
    b'0' as i8 - 52,
    b'0' as i8 - 52,
    b'0' as i8 - 52,
    b'0' as i8 - 52,
    b'0' as i8 - 52,
    b'0' as i8 - 52,
    b'-' as i8 - 62,
    b'_' as i8 - 63,
    b'A' as i8,
    0,
    0,
];

#[target_feature(enable = "avx2")]
#[inline]
fn symbols128(indices: __m128i) -> __m128i {
    let class = _mm_subs_epu8(indices, _mm_set1_epi8(51));
    let capital = _mm_cmpgt_epi8(_mm_set1_epi8(26), indices);
    let class = _mm_or_si128(class, _mm_and_si128(capital, _mm_set1_epi8(13)));
    _mm_add_epi8(indices, _mm_shuffle_epi8(table128(OFFSETS), class))
}

#[target_feature(enable = "avx2")]
#[inline]
fn symbols256(indices: __m256i) -> __m256i {
    let class = _mm256_subs_epu8(indices, _mm256_set1_epi8(51));
    let capital = _mm256_cmpgt_epi8(_mm256_set1_epi8(26), indices);
    let class = _mm256_or_si256(class, _mm256_and_si256(capital, _mm256_set1_epi8(13)));
    let table = _mm256_broadcastsi128_si256(table128(OFFSETS));
    _mm256_add_epi8(indices, _mm256_shuffle_epi8(table, class))
}

/// A 16-byte table as a register.
#[inline(always)]
fn table128(bytes: [i8; 16]) -> __m128i {
    // SAFETY: both are 16 bytes of plain data, any bit pattern valid.
    unsafe { std::mem::transmute(bytes) }
}

/// The base64 of the 32 bytes that are `w0`…`w3` written big-endian, as text.
///
/// # Safety
/// Only where the CPU has AVX2.
#[target_feature(enable = "avx2")]
pub(super) fn encode_words(w0: u64, w1: u64, w2: u64, w3: u64) -> ArrayString<SYMBOLS> {
    let [w0, w1, w2, w3] = [w0, w1, w2, w3].map(|w| w.swap_bytes() as i64);
    let gather = table128(GATHER);
    // Bytes 0–15 in the low lane, and 12–27 (32-bit lanes 3–6) in the high one.
    let bytes = _mm256_set_epi64x(w3, w2, w1, w0);
    let spread = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6));
    let grouped = _mm256_shuffle_epi8(spread, _mm256_broadcastsi128_si256(gather));
    let head = symbols256(indices256(grouped));
    // Bytes 24–31 and zeros: the last group (bytes 30, 31) is padded with a zero byte.
    let tail_bytes = _mm_set_epi64x(0, w3);
    let tail = symbols128(indices128(_mm_shuffle_epi8(tail_bytes, gather)));
    // The image's pieces (`crate::text_image`): the length and symbols 0–11, symbols 12–27,
    // symbols 28–42 (and one byte of the padding).
    let (low, high) = (
        _mm256_castsi256_si128(head),
        _mm256_extracti128_si256::<1>(head),
    );
    let pieces = [
        text_image::head(SYMBOLS as u8, low),
        _mm_alignr_epi8::<12>(high, low),
        _mm_alignr_epi8::<12>(tail, high),
    ];
    // SAFETY: `head` wrote the length 43, and the 43 bytes after it are alphabet symbols, so
    // ASCII.
    unsafe { text_image::text(pieces) }
}

/// Each symbol's 6-bit value, and a mask with a byte's high bit set where the symbol is not in
/// the alphabet. The five ranges are compared as signed bytes: a byte at or above 128 is
/// negative, below every range.
macro_rules! values {
    ($ty:ty, $set1:ident, $gt:ident, $and:ident, $or:ident, $add:ident, $symbols:expr) => {{
        let c: $ty = $symbols;
        // A macro, not a closure: a closure cannot enable AVX2, and its intrinsics stay calls.
        macro_rules! within {
            ($lo:expr, $hi:expr) => {
                $and($gt(c, $set1($lo as i8 - 1)), $gt($set1($hi as i8 + 1), c))
            };
        }
        let capital = within!(b'A', b'Z');
        let small = within!(b'a', b'z');
        let digit = within!(b'0', b'9');
        let dash = within!(b'-', b'-');
        let under = within!(b'_', b'_');
        let offset = $or(
            $or(
                $and(capital, $set1(-(b'A' as i8))),
                $and(small, $set1(26 - b'a' as i8)),
            ),
            $or(
                $and(digit, $set1(52 - b'0' as i8)),
                $or(
                    $and(dash, $set1(62 - b'-' as i8)),
                    $and(under, $set1(63 - b'_' as i8)),
                ),
            ),
        );
        let valid = $or($or(capital, small), $or(digit, $or(dash, under)));
        ($add(c, offset), valid)
    }};
}

/// Per 128-bit lane, group `g`'s three bytes in order from its 32-bit lane after the
/// multiply-adds (which leave them little-endian), packed into the lane's first 12 bytes.
const PACK: [i8; 16] = [2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1];

/// `super::decode_words::<32>(text)`.
///
/// # Safety
/// Only where the CPU has AVX2.
#[target_feature(enable = "avx2")]
pub(super) fn decode_words(text: &[u8]) -> Option<[u64; 4]> {
    if text.len() != SYMBOLS {
        return None;
    }
    // SAFETY: 32 bytes from 0 and 16 from 27, all within the 43.
    let (head, last16) = unsafe {
        (
            _mm256_loadu_si256(text.as_ptr().cast()),
            _mm_loadu_si128(text.as_ptr().add(SYMBOLS - 16).cast()),
        )
    };
    // Symbols 32–42 to the front, then five `A`s (value 0), so the last group is padded as
    // unpadded base64's last three symbols are.
    let tail = _mm_or_si128(
        _mm_srli_si128::<5>(last16),
        _mm_set_epi8(65, 65, 65, 65, 65, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    );
    let (head_values, head_valid) = values!(
        __m256i,
        _mm256_set1_epi8,
        _mm256_cmpgt_epi8,
        _mm256_and_si256,
        _mm256_or_si256,
        _mm256_add_epi8,
        head
    );
    let (tail_values, tail_valid) = values!(
        __m128i,
        _mm_set1_epi8,
        _mm_cmpgt_epi8,
        _mm_and_si128,
        _mm_or_si128,
        _mm_add_epi8,
        tail
    );
    let valid = _mm256_movemask_epi8(head_valid) == -1 && _mm_movemask_epi8(tail_valid) == 0xffff;
    let pack = table128(PACK);
    // Each 16-bit pair: first · 64 + second; each 32-bit lane: 24 bits, the group's bytes.
    let head_groups = _mm256_madd_epi16(
        _mm256_maddubs_epi16(head_values, _mm256_set1_epi32(0x0140_0140)),
        _mm256_set1_epi32(0x0001_1000),
    );
    let tail_groups = _mm_madd_epi16(
        _mm_maddubs_epi16(tail_values, _mm_set1_epi32(0x0140_0140)),
        _mm_set1_epi32(0x0001_1000),
    );
    let head_bytes = _mm256_shuffle_epi8(head_groups, _mm256_broadcastsi128_si256(pack));
    // Bytes 0–23 together: the low lane's 12, then the high lane's 12.
    let head_bytes =
        _mm256_permutevar8x32_epi32(head_bytes, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7));
    let tail_bytes = _mm_shuffle_epi8(tail_groups, pack);
    let low = _mm256_castsi256_si128(head_bytes);
    let w0 = _mm_cvtsi128_si64(low) as u64;
    let w1 = _mm_extract_epi64::<1>(low) as u64;
    let w2 = _mm_cvtsi128_si64(_mm256_extracti128_si256::<1>(head_bytes)) as u64;
    let w3 = _mm_cvtsi128_si64(tail_bytes) as u64;
    // Byte 8 of the tail is the last symbol's two spare bits, which must be zero.
    let spare = _mm_extract_epi8::<8>(tail_bytes);
    (valid && spare == 0).then(|| [w0, w1, w2, w3].map(u64::swap_bytes))
}
