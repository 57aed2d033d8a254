//! `wide`'s sixteen lanes where the CPU has AVX2 and not AVX-512 (AMD's Zen 2 and 3, Intel's
//! client cores): each lane a 32-bit element of two 256-bit registers, written with intrinsics.
//!
//! The same arrays compiled with AVX2 enabled stayed scalar: without AVX-512's `vprold`,
//! LLVM costed the vector rotates (two shifts and an or) above the scalar `rol`, and the cycle
//! took 1.79 s for 3,000,000 messages against 1.59 s in pairs. Here the rotation is written
//! out, and every operation is a method that enables AVX2 itself: reached through operator
//! traits or closures (which cannot enable it), the intrinsics stayed calls (4.6 s).

use super::wide::{Lanes, LANES};
use super::{rounds, K, SHIFTS};
use std::arch::x86_64::*;

/// Sixteen 32-bit lanes, eight to a register; the two registers are independent chains that
/// the core overlaps.
#[derive(Clone, Copy)]
struct Words([__m256i; 2]);

impl Words {
    #[target_feature(enable = "avx2")]
    #[inline]
    fn load(lanes: &Lanes) -> Self {
        const { assert!(LANES == 16) };
        let p = lanes.as_ptr().cast::<__m256i>();
        // SAFETY: `lanes` is sixteen u32s, so two unaligned 32-byte loads stay inside it.
        unsafe { Words([_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))]) }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn store(self, lanes: &mut Lanes) {
        let p = lanes.as_mut_ptr().cast::<__m256i>();
        // SAFETY: as in `load`.
        unsafe {
            _mm256_storeu_si256(p, self.0[0]);
            _mm256_storeu_si256(p.add(1), self.0[1]);
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn splat(word: u32) -> Self {
        let v = _mm256_set1_epi32(word as i32);
        Words([v, v])
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn add(self, o: Self) -> Self {
        let [x0, x1] = self.0;
        let [y0, y1] = o.0;
        Words([_mm256_add_epi32(x0, y0), _mm256_add_epi32(x1, y1)])
    }

    /// Each lane rotated left by `L` bits; `R` is `32 - L` (stable Rust cannot compute it from
    /// a const parameter).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn rotate_left<const L: i32, const R: i32>(self) -> Self {
        let [x0, x1] = self.0;
        Words([
            _mm256_or_si256(_mm256_slli_epi32::<L>(x0), _mm256_srli_epi32::<R>(x0)),
            _mm256_or_si256(_mm256_slli_epi32::<L>(x1), _mm256_srli_epi32::<R>(x1)),
        ])
    }

    /// `(x & y) | (!x & z)`, as `z ^ (x & (y ^ z))`: three instructions a register.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn f(x: Self, y: Self, z: Self) -> Self {
        let each = |x, y, z| _mm256_xor_si256(z, _mm256_and_si256(x, _mm256_xor_si256(y, z)));
        Words([each(x.0[0], y.0[0], z.0[0]), each(x.0[1], y.0[1], z.0[1])])
    }

    /// `(x & z) | (y & !z)`, as `y ^ (z & (x ^ y))`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn g(x: Self, y: Self, z: Self) -> Self {
        Self::f(z, x, y)
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn h(x: Self, y: Self, z: Self) -> Self {
        let each = |x, y, z| _mm256_xor_si256(_mm256_xor_si256(x, y), z);
        Words([each(x.0[0], y.0[0], z.0[0]), each(x.0[1], y.0[1], z.0[1])])
    }

    /// `y ^ (x | !z)`, as `!(y ^ (z & !x))`: `vpandn`, and two xors.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn i(x: Self, y: Self, z: Self) -> Self {
        let ones = _mm256_set1_epi32(-1);
        let each = |x, y, z| _mm256_xor_si256(_mm256_xor_si256(y, _mm256_andnot_si256(x, z)), ones);
        Words([each(x.0[0], y.0[0], z.0[0]), each(x.0[1], y.0[1], z.0[1])])
    }
}

/// One block into each lane's state, as `wide::compress` does.
#[target_feature(enable = "avx2")]
pub(super) fn compress(state: &mut [Lanes; 4], words: &[Lanes; 16]) {
    let [mut a, mut b, mut c, mut d] = [0, 1, 2, 3].map(|k| Words::load(&state[k]));
    let w: [Words; 16] = std::array::from_fn(|i| Words::load(&words[i]));
    macro_rules! steps {
        ($round:expr, $f:expr, $index:expr, [$($i:expr),*]) => {$(
            let t = a.add($f(b, c, d)).add(Words::splat(K[$i])).add(w[$index($i) % 16]);
            let next = b.add(t.rotate_left::<
                { SHIFTS[$round][$i % 4] as i32 },
                { 32 - SHIFTS[$round][$i % 4] as i32 },
            >());
            (a, b, c, d) = (d, next, b, c);
        )*};
    }
    rounds!(steps; Words::f, Words::g, Words::h, Words::i);
    for (s, x) in state.iter_mut().zip([a, b, c, d]) {
        Words::load(s).add(x).store(s);
    }
}
