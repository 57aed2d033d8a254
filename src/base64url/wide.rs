//! Thirty-two bytes to their 43 base64 symbols and back in one AVX-512 register, with the VBMI
//! byte permutes: a receipt handle is minted on every receive and read on every delete.
//!
//! Scalar, a handle's 43 symbols are 43 table lookups and stores, and reading one is 43 lookups
//! and the shifts that put their bits together: in a harness 21–26 ns to mint and 16–18 to read,
//! against 9–10 and 8 here (BENCHMARKS.md "Native engine → Fourteenth session"). The method is
//! Muła and Lemire's ("Base64 encoding and decoding at almost the speed of a memory copy"):
//! one permute gathers each group's three bytes into a 32-bit lane, `vpmultishiftqb` cuts them
//! into 6-bit indices, and a second permute is the alphabet lookup; decoding looks each symbol
//! up in a 128-entry table (an invalid one has its high bit set), and two multiply-adds put a
//! group's bits back together.
//!
//! Held to the scalar code (itself held to the `base64` crate) by proptests in `super::tests`.

use super::ALPHABET;
use crate::vbmi::{bytes_of, vector};
use arrayvec::ArrayString;
use std::arch::x86_64::*;

/// The symbols of 32 bytes: 10 whole groups and 2 bytes over.
const SYMBOLS: usize = 43;

/// For the 32-bit lane of output group `g`: the group's bytes `3g+1, 3g, 3g+2, 3g+1`, the
/// order `vpmultishiftqb`'s shifts below expect. Groups past the tenth read byte 32 and on,
/// which are zero (the input is zero-extended), so the last two bytes' group is padded with
/// zeros as unpadded base64 requires.
const GATHER_GROUPS: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut g = 0;
    while g < 16 {
        let b = 3 * g;
        let order = [b + 1, b, b + 2, b + 1];
        let mut k = 0;
        while k < 4 {
            idx[4 * g + k] = if order[k] < 64 { order[k] as u8 } else { 63 };
            k += 1;
        }
        g += 1;
    }
    idx
};

/// For each symbol of a group in its lane, where its 6 bits start (bits 10, 4, 22, 16 of the
/// first lane of a 64-bit pair, 32 more for the second).
const SYMBOL_SHIFTS: i64 = 0x3036_242a_1016_040a;

/// The base64 of the 32 bytes that are `w0`…`w3` written big-endian, as text.
///
/// The words come as four arguments, in registers: as one array they went through memory, and
/// the vector load waited on the four stores that had just written it (store forwarding fails
/// on a wide load of narrower stores; a third of this function's samples). The text is copied
/// out of one full-width store for the same reason (copied out of pieces, the copy waited).
///
/// # Safety
/// Only where `crate::vbmi::available()`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn encode_words(w0: u64, w1: u64, w2: u64, w3: u64) -> ArrayString<SYMBOLS> {
    let [w0, w1, w2, w3] = [w0, w1, w2, w3].map(|w| w.swap_bytes() as i64);
    let bytes = _mm512_zextsi256_si512(_mm256_set_epi64x(w3, w2, w1, w0));
    let grouped = _mm512_permutexvar_epi8(vector(GATHER_GROUPS), bytes);
    let indices = _mm512_multishift_epi64_epi8(_mm512_set1_epi64(SYMBOL_SHIFTS), grouped);
    // The permute reads the low 6 bits of each index: the alphabet is the whole table.
    let symbols = _mm512_permutexvar_epi8(indices, vector(*ALPHABET));
    let all = bytes_of(symbols);
    // SAFETY: every byte was looked up in `ALPHABET`, so is ASCII.
    let text = unsafe { std::str::from_utf8_unchecked(&all[..SYMBOLS]) };
    ArrayString::from(text).unwrap_or_default()
}

/// `VALUES` of the symbols below 128, in two halves: an invalid symbol's value has its high
/// bit set.
const VALUES_LOW: [u8; 64] = values_from(0);
const VALUES_HIGH: [u8; 64] = values_from(64);

const fn values_from(first: usize) -> [u8; 64] {
    let mut table = [0u8; 64];
    let mut c = 0;
    while c < 64 {
        table[c] = super::VALUES[first + c] as u8;
        c += 1;
    }
    table
}

/// Decoded byte `i` (of 33, the last being the spare bits) is byte `2 - i % 3` of group `i / 3`'s
/// 32-bit lane after the multiply-adds; word `k`'s little-endian byte `m` is decoded byte
/// `8k + 7 - m`, so that the words come out big-endian. Byte 32 is the spare bits of the last
/// symbol, which must be zero.
const GATHER_BYTES: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut k = 0;
    while k < 4 {
        let mut m = 0;
        while m < 8 {
            let i = 8 * k + 7 - m;
            idx[8 * k + m] = (4 * (i / 3) + (2 - i % 3)) as u8;
            m += 1;
        }
        k += 1;
    }
    idx[32] = 4 * 10;
    idx
};

/// `super::decode_words::<32>(text)`.
///
/// # Safety
/// Only where `crate::vbmi::available()`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn decode_words(text: &[u8]) -> Option<[u64; 4]> {
    if text.len() != SYMBOLS {
        return None;
    }
    let live: __mmask64 = (1 << SYMBOLS) - 1;
    // SAFETY: a masked load reads only the live bytes, all within `text`.
    let symbols = unsafe { _mm512_maskz_loadu_epi8(live, text.as_ptr().cast()) };
    let values =
        _mm512_maskz_permutex2var_epi8(live, vector(VALUES_LOW), symbols, vector(VALUES_HIGH));
    // A symbol at or above 128, or one the table marks, has its high bit set in one of the two.
    let invalid = _mm512_movepi8_mask(_mm512_or_si512(values, symbols)) & live;
    // Each 16-bit pair: first · 64 + second; each 32-bit lane: 24 bits, the group's bytes.
    let pairs = _mm512_maddubs_epi16(values, _mm512_set1_epi32(0x0140_0140));
    let groups = _mm512_madd_epi16(pairs, _mm512_set1_epi32(0x0001_1000));
    let bytes = _mm512_permutexvar_epi8(vector(GATHER_BYTES), groups);
    let [w0, w1, w2, w3, spare, ..] = words_of(bytes);
    (invalid == 0 && spare & 0xff == 0).then_some([w0, w1, w2, w3])
}

/// A register's eight 64-bit lanes.
#[inline(always)]
fn words_of(v: __m512i) -> [u64; 8] {
    // SAFETY: 64 bytes of plain data, any bit pattern valid.
    unsafe { std::mem::transmute(v) }
}
