//! Sixteen MD5s at once, one per 32-bit lane of an AVX-512 register.
//!
//! Written as plain arrays of sixteen words, an element-wise step each: compiled with AVX-512F
//! enabled, LLVM makes each step a handful of `zmm` instructions, the rotation one `vprold`
//! and each round's boolean function one `vpternlogd`. A batch's ten bodies then cost one
//! chain of 64 steps, not five (pairs) or ten (the crate). In a harness, ten 14-byte bodies took
//! 25–31 ns a message this way against 102–105 in pairs, in the same runs (BENCHMARKS.md
//! "Native engine → Thirteenth session").
//!
//! A lane without a block in a pass is carried along and its result ignored, so a pass costs the
//! same however few lanes use it. Once fewer than `MIN_LANES` inputs have blocks left, they
//! finish in pairs (`super::finish`).

use super::{digest, finish, rounds, Blocks, INIT, K, SHIFTS};
use arrayvec::ArrayVec;

pub(super) const LANES: usize = 16;

/// Below this many inputs with blocks left, the rest finish in the scalar code. In a harness a
/// pass over sixteen lanes took about 160 ns, a pair's blocks side by side ~200 and one block
/// alone ~155: two inputs are worth a pass (82 ns a message against 101), one is not.
pub(super) const MIN_LANES: usize = 2;

/// One 32-bit word per lane.
pub(super) type Lanes = [u32; LANES];

/// The MD5 of each input, into `out` (as long as `inputs`), sixteen inputs at a time.
///
/// # Safety
/// Only on a CPU with AVX-512F (`is_x86_feature_detected!("avx512f")`).
#[target_feature(enable = "avx512f")]
pub(super) fn md5_each(inputs: &[&[u8]], out: &mut [[u8; 16]]) {
    for (inputs, out) in inputs.chunks(LANES).zip(out.chunks_mut(LANES)) {
        md5_sixteen(inputs, out, compress);
    }
}

/// `md5_each` where the CPU has AVX2 but not AVX-512 (AMD's Zen 2 and 3 among them): the same
/// sixteen lanes, each step two 256-bit registers' worth, so two independent chains.
///
/// # Safety
/// Only on a CPU with AVX2 (`is_x86_feature_detected!("avx2")`).
#[target_feature(enable = "avx2")]
pub(super) fn md5_each_avx2(inputs: &[&[u8]], out: &mut [[u8; 16]]) {
    for (inputs, out) in inputs.chunks(LANES).zip(out.chunks_mut(LANES)) {
        // The closure inherits this function's AVX2, which `avx2::compress` needs.
        md5_sixteen(inputs, out, |s, w| super::avx2::compress(s, w));
    }
}

/// At most sixteen inputs, each pass's block into `compress`. Inlined into each entry above so
/// that it is compiled with that entry's vector features.
#[inline(always)]
fn md5_sixteen(
    inputs: &[&[u8]],
    out: &mut [[u8; 16]],
    compress: impl Fn(&mut [Lanes; 4], &[Lanes; 16]),
) {
    let counts: ArrayVec<usize, LANES> = inputs.iter().map(|i| block_count(i.len())).collect();
    let mut state: [Lanes; 4] = INIT.map(|word| [word; LANES]);
    let mut pass = 0;
    while counts.iter().filter(|c| **c > pass).count() >= MIN_LANES {
        let mut words = [[0u32; LANES]; 16];
        for (lane, (input, count)) in inputs.iter().zip(&counts).enumerate() {
            if *count > pass {
                fill_lane(&mut words, lane, input, pass, *count);
            }
        }
        compress(&mut state, &words);
        pass += 1;
        // An input whose last block this was has its digest now, before later passes.
        for (lane, (count, o)) in counts.iter().zip(out.iter_mut()).enumerate() {
            if *count == pass {
                *o = digest(lane_state(&state, lane));
            }
        }
    }
    // An input with blocks left continues from its lane in scalar code (in pairs, were
    // `MIN_LANES` raised).
    let mut rest = inputs
        .iter()
        .zip(out.iter_mut())
        .enumerate()
        .filter(|(_, (input, _))| block_count(input.len()) > pass);
    while let Some((lane, (input, o))) = rest.next() {
        let b = Blocks::new(input);
        match rest.next() {
            Some((other, (other_input, oo))) => {
                let states = [lane_state(&state, lane), lane_state(&state, other)];
                [*o, *oo] = finish(states, [&b, &Blocks::new(other_input)], pass);
            }
            None => [*o] = finish([lane_state(&state, lane)], [&b], pass),
        }
    }
}

/// Blocks of a padded input of `len` bytes: the 0x80 byte and the 8-byte length follow it.
fn block_count(len: usize) -> usize {
    (len + 8) / 64 + 1
}

/// Block `pass` of `input`, padded, into `lane` of `words` (which holds zeros there).
///
/// Word by word straight from the input rather than through a padded copy of its tail: a
/// 64-byte load of a buffer just written a few bytes at a time waits for those stores (a
/// store-forwarding stall), and that load was a quarter of this function's samples.
fn fill_lane(words: &mut [Lanes; 16], lane: usize, input: &[u8], pass: usize, count: usize) {
    let mut put = |w: usize, word: u32| {
        if let Some(slot) = words.get_mut(w).and_then(|w| w.get_mut(lane)) {
            *slot = word;
        }
    };
    // `None` past the input's end: the second of two padding blocks holds only the length.
    let rest = input.get(pass * 64..);
    let data = rest.unwrap_or_default();
    let mut chunks = data.chunks_exact(4);
    for (w, bytes) in (&mut chunks).take(16).enumerate() {
        if let &[b0, b1, b2, b3] = bytes {
            put(w, u32::from_le_bytes([b0, b1, b2, b3]));
        }
    }
    if rest.is_some_and(|r| r.len() < 64) {
        // The block holding the input's last bytes (if any) and the 0x80 after them.
        // Shifted into place, not assembled in a byte array: that is one more store-forwarding
        // stall (byte stores, then a word load).
        let tail = chunks.remainder();
        let word = tail
            .iter()
            .rev()
            .fold(0x80, |word: u32, b| (word << 8) | u32::from(*b));
        put(data.len() / 4, word);
    }
    if pass + 1 == count {
        let bits = (input.len() as u64).wrapping_mul(8);
        put(14, bits as u32);
        put(15, (bits >> 32) as u32);
    }
}

fn lane_state(state: &[Lanes; 4], lane: usize) -> [u32; 4] {
    state.map(|words| words.get(lane).copied().unwrap_or_default())
}

/// `f` of each lane's words.
#[inline(always)]
fn each(x: &Lanes, y: &Lanes, z: &Lanes, f: impl Fn(u32, u32, u32) -> u32) -> Lanes {
    std::array::from_fn(|l| f(x[l], y[l], z[l]))
}

/// One block into each lane's state; `words[i][lane]` is word `i` of that lane's block.
/// LLVM makes these arrays `zmm` registers where AVX-512 is enabled; with only AVX2 it left
/// them scalar (no vector rotate there), hence `super::avx2`.
#[inline(always)]
fn compress(state: &mut [Lanes; 4], words: &[Lanes; 16]) {
    let [mut a, mut b, mut c, mut d] = *state;
    // Written out for each of the 64 steps, so that every shift, constant and word index is a
    // constant.
    macro_rules! steps {
        ($round:expr, $f:expr, $index:expr, [$($i:expr),*]) => {$(
            let f = each(&b, &c, &d, $f);
            let w = &words[$index($i) % 16];
            let next: Lanes = std::array::from_fn(|l| {
                let t = a[l].wrapping_add(f[l]).wrapping_add(K[$i]).wrapping_add(w[l]);
                b[l].wrapping_add(t.rotate_left(SHIFTS[$round][$i % 4]))
            });
            (a, b, c, d) = (d, next, b, c);
        )*};
    }
    rounds!(steps);
    for (s, x) in state.iter_mut().zip([a, b, c, d]) {
        for (s, x) in s.iter_mut().zip(x) {
            *s = s.wrapping_add(x);
        }
    }
}
