//! The hex of 16 bytes in one AVX-512 VBMI register: a MessageId's text and an MD5's, each
//! written twice in every message's send → receive cycle.
//!
//! One permute puts each byte in the two places its digits go, `vpmultishiftqb` takes each
//! place's nibble, and a second permute looks the digits up; a third places a MessageId's
//! dashes. Held to the scalar code by tests in `super::tests`.

use crate::vbmi::{bytes_of, vector};
use arrayvec::ArrayString;
use std::arch::x86_64::*;

/// Place `p` holds byte `p / 2`, once for each of its digits; places past 32 read byte 63,
/// which is zero (the input is zero-extended).
const SPREAD: [u8; 64] = {
    let mut idx = [63u8; 64];
    let mut p = 0;
    while p < 32 {
        idx[p] = (p / 2) as u8;
        p += 1;
    }
    idx
};

/// For each place of a 64-bit lane, where its nibble starts: the high one (bit 4 of its byte)
/// at even places, the low one (bit 0) at odd places.
const NIBBLES: i64 = 0x3834_2824_1814_0804;

/// The digits, four times over: the lookup reads six bits of each place, of which only the low
/// four are its nibble.
const DIGITS: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        table[i] = b"0123456789abcdef"[i % 16];
        i += 1;
    }
    table
};

/// For each character of the 8-4-4-4-12 text, the digit it is (a dash's place takes digit 0 and
/// is overwritten).
const UUID_PLACES: [u8; 64] = {
    let mut idx = [0u8; 64];
    let (mut p, mut digit) = (0, 0);
    while p < 36 {
        if !(p == 8 || p == 13 || p == 18 || p == 23) {
            idx[p] = digit;
            digit += 1;
        }
        p += 1;
    }
    idx
};
const DASHES: __mmask64 = 1 << 8 | 1 << 13 | 1 << 18 | 1 << 23;

/// The 32 digits of the 16 bytes `bytes` holds little-endian (its low byte first).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn digits(bytes: u128) -> __m512i {
    let x = _mm512_zextsi128_si512(_mm_set_epi64x((bytes >> 64) as i64, bytes as i64));
    let spread = _mm512_permutexvar_epi8(vector(SPREAD), x);
    let nibbles = _mm512_multishift_epi64_epi8(_mm512_set1_epi64(NIBBLES), spread);
    _mm512_permutexvar_epi8(nibbles, vector(DIGITS))
}

/// `hex::write` of the 16 bytes `bytes` holds little-endian, as text.
///
/// # Safety
/// Only where `crate::vbmi::available()`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn hex16(bytes: u128) -> ArrayString<32> {
    text(digits(bytes))
}

/// The 8-4-4-4-12 text of `v` (its most significant byte first).
///
/// # Safety
/// Only where `crate::vbmi::available()`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn uuid_text(v: u128) -> ArrayString<36> {
    let placed = _mm512_permutexvar_epi8(vector(UUID_PLACES), digits(v.swap_bytes()));
    text(_mm512_mask_blend_epi8(
        DASHES,
        placed,
        _mm512_set1_epi8(b'-' as i8),
    ))
}

/// The first `N` characters of `v`: copied out of one full-width store, which a copy reads
/// without waiting (from several narrower stores it would wait for them to finish).
#[inline(always)]
fn text<const N: usize>(v: __m512i) -> ArrayString<N> {
    let all = bytes_of(v);
    let ascii = all.get(..N).unwrap_or_default();
    // SAFETY: every byte came from `DIGITS` or is a dash, so ASCII.
    let text = unsafe { std::str::from_utf8_unchecked(ascii) };
    ArrayString::from(text).unwrap_or_default()
}
