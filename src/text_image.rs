//! Fixed-length texts made in SSE/AVX registers, returned as `ArrayString`s written whole.
//!
//! The vector codecs (`hex::ssse3`, `base64url::avx2`) make a MessageId's, an MD5's or a
//! receipt handle's text in registers, and their callers copy the returned `ArrayString` into a
//! response at once. A load that spans two stores cannot take its bytes from them (store
//! forwarding) and waits until both have reached the cache: a MessageId's text written behind a
//! separately stored length put 16 % of `enqueue`'s samples on the copy that followed (perf,
//! seventeenth session). So the `ArrayString` is
//! written as its whole image, its length with its bytes, in 16-byte pieces at 16-byte offsets:
//! the pieces a copy of it reads, or larger ones that contain them.

use arrayvec::ArrayString;
use std::arch::x86_64::{__m128i, _mm_cvtsi32_si128, _mm_or_si128, _mm_slli_si128};

/// An `ArrayString<N>` is its length as a `u32`, then its `N` bytes (`#[repr(C)]` in
/// arrayvec 0.7): held by the assertions in `text` and by the tests of every caller against
/// their scalar code.
#[repr(C)]
union Image<const N: usize, const K: usize> {
    pieces: [__m128i; K],
    text: ArrayString<N>,
}

/// The first piece of an image: the length `len`, then `chars`' first twelve bytes.
#[inline(always)]
pub(crate) fn head(len: u8, chars: __m128i) -> __m128i {
    // SAFETY: SSE2, which every x86-64 CPU has.
    unsafe {
        _mm_or_si128(
            _mm_slli_si128::<4>(chars),
            _mm_cvtsi32_si128(i32::from(len)),
        )
    }
}

/// The `ArrayString` whose image `pieces` hold.
///
/// # Safety
/// The first four bytes of `pieces` must be a length `n` ≤ `N` (`head` writes one) and the `n`
/// bytes after them ASCII.
#[inline(always)]
pub(crate) unsafe fn text<const N: usize, const K: usize>(pieces: [__m128i; K]) -> ArrayString<N> {
    const {
        assert!(
            std::mem::size_of::<ArrayString<N>>() <= K * 16,
            "the pieces cover the text"
        );
        assert!(std::mem::size_of::<ArrayString<N>>() == (4 + N).next_multiple_of(4));
        assert!(std::mem::align_of::<ArrayString<N>>() == 4);
    }
    // SAFETY: every byte of the text's image is initialised (the pieces cover it, asserted
    // above), its length is at most N and its bytes ASCII (the caller's promise), so valid.
    unsafe { Image { pieces }.text }
}
