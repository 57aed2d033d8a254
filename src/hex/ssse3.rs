//! The hex of 16 bytes in two SSSE3 registers, for x86-64 CPUs without AVX-512 VBMI (`wide`).
//!
//! Every message's send → receive cycle writes its MessageId's text twice and its MD5's twice.
//! The scalar code does a table load and a two-byte store per byte and then clears every
//! byte's high bit (`super::ascii_text`): ~100 instructions for a MessageId, ~65 for an MD5,
//! 8 % of the native batched cycle (cachegrind, seventeenth session). Here two `pshufb`
//! lookups make the digits of all sixteen bytes at once; a MessageId's dashes are placed by two
//! more shuffles.
//!
//! The returned `ArrayString` is written whole, in the pieces a copy of it reads
//! (`crate::text_image`): written as a length, then 16 + 16 + 4 bytes of text, 16 % of
//! `enqueue`'s samples waited on the copy (perf, seventeenth session), as in the fifteenth
//! session's AVX2 version (7 % of the profile, not 2.5).
//!
//! Held to the scalar code by tests in `super::tests`.

use crate::text_image;
use arrayvec::ArrayString;
use std::arch::x86_64::*;

/// Whether this CPU has SSSE3 (every x86-64 CPU since 2006, but not the x86-64 baseline).
pub(crate) fn available() -> bool {
    std::is_x86_feature_detected!("ssse3")
}

/// The digits of the high and low nibbles of `x`'s bytes, interleaved: the text of bytes 0–7
/// and of bytes 8–15.
#[inline]
#[target_feature(enable = "ssse3")]
fn digits(x: __m128i) -> (__m128i, __m128i) {
    let table = _mm_setr_epi8(
        b'0' as i8, b'1' as i8, b'2' as i8, b'3' as i8, b'4' as i8, b'5' as i8, b'6' as i8,
        b'7' as i8, b'8' as i8, b'9' as i8, b'a' as i8, b'b' as i8, b'c' as i8, b'd' as i8,
        b'e' as i8, b'f' as i8,
    );
    let low_nibble = _mm_set1_epi8(0x0f);
    // A 16-bit shift carries the next byte's low bits in; the mask takes them out again.
    let hi = _mm_and_si128(_mm_srli_epi16::<4>(x), low_nibble);
    let lo = _mm_and_si128(x, low_nibble);
    let (hi, lo) = (_mm_shuffle_epi8(table, hi), _mm_shuffle_epi8(table, lo));
    (_mm_unpacklo_epi8(hi, lo), _mm_unpackhi_epi8(hi, lo))
}

/// `hex::write` of `bytes`, as text.
///
/// # Safety
/// Only where `available()`.
#[target_feature(enable = "ssse3")]
pub(super) fn hex16(bytes: &[u8; 16]) -> ArrayString<32> {
    // SAFETY: an unaligned load of exactly the 16 bytes of `bytes`.
    let x = unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) };
    let (first, second) = digits(x);
    // The image's pieces: the length and digits 0–11, digits 12–27, digits 28–31.
    let pieces = [
        text_image::head(32, first),
        _mm_alignr_epi8::<12>(second, first),
        _mm_srli_si128::<12>(second),
    ];
    // SAFETY: `head` wrote the length 32, and the 32 bytes after it are digits, so ASCII.
    unsafe { text_image::text(pieces) }
}

/// -1 (0xff) picks nothing in `pshufb` (its result byte is 0); a dash is OR'ed in there.
const NONE: i8 = -1;

/// The 8-4-4-4-12 text of `v` (its most significant byte first).
///
/// # Safety
/// Only where `available()`.
#[target_feature(enable = "ssse3")]
pub(super) fn uuid_text(v: u128) -> ArrayString<36> {
    let be = v.to_be_bytes();
    // SAFETY: an unaligned load of exactly the 16 bytes of `be`.
    let (a, b) = digits(unsafe { _mm_loadu_si128(be.as_ptr().cast()) });
    // `a` holds digits 0–15, `b` digits 16–31; the text is digits with dashes at 8, 13, 18, 23.
    let dash = b'-' as i8;
    let text0 = _mm_or_si128(
        _mm_shuffle_epi8(
            a,
            _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, NONE, 8, 9, 10, 11, NONE, 12, 13),
        ),
        _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, dash, 0, 0, 0, 0, dash, 0, 0),
    );
    let from_a = _mm_shuffle_epi8(
        a,
        _mm_setr_epi8(
            14, 15, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
            NONE,
        ),
    );
    let from_b = _mm_shuffle_epi8(
        b,
        _mm_setr_epi8(NONE, NONE, NONE, 0, 1, 2, 3, NONE, 4, 5, 6, 7, 8, 9, 10, 11),
    );
    let text1 = _mm_or_si128(
        _mm_or_si128(from_a, from_b),
        _mm_setr_epi8(0, 0, dash, 0, 0, 0, 0, dash, 0, 0, 0, 0, 0, 0, 0, 0),
    );
    // Characters 0–15 are `text0`, 16–31 `text1`, 32–35 digits 28–31 (`b`'s last four). The
    // image's pieces: the length and characters 0–11, characters 12–27, characters 28–35.
    let pieces = [
        text_image::head(36, text0),
        _mm_alignr_epi8::<12>(text1, text0),
        _mm_unpacklo_epi32(_mm_srli_si128::<12>(text1), _mm_srli_si128::<12>(b)),
    ];
    // SAFETY: `head` wrote the length 36, and the 36 bytes after it are digits and dashes, so
    // ASCII.
    unsafe { text_image::text(pieces) }
}
