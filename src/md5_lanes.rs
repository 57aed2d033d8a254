//! MD5s of a batch's bodies, side by side.
//!
//! MD5 is one chain of dependent additions and rotations: a core runs one message's 64 steps a
//! few instructions at a time and leaves most of its width idle. Sampled with `perf` in the
//! native batched cycle, the `md-5` crate's compression took 27 % of the time for 12 % of the
//! instructions. Several messages' steps side by side are independent chains the core runs at
//! once:
//! - on a CPU with AVX-512, sixteen lanes of one vector register (`wide`): MD5 fell from about
//!   20 % of the cycle to about 7 %;
//! - on a CPU with AVX2 only (the AMD EPYC machines of the fifteenth session), the same sixteen
//!   lanes in two 256-bit registers (`avx2`): 16.5 % → 7 % of the cycle, which went 1.60 s →
//!   1.38 s for 3,000,000 messages;
//! - elsewhere, two messages' steps interleaved in scalar code: 92 ns a message against 151
//!   through the crate in a harness, 1.14× the cycle. Four scalar lanes were faster in the
//!   harness but slower in the engine (their state and words likely spill from the registers).
//!
//! (BENCHMARKS.md "Native engine → Twelfth session" and "Thirteenth session".) Natively only: the
//! wasm package is held under a size ceiling and this is a second MD5. Held to the `md-5`
//! crate's digests by a proptest, every path on this machine.

/// Per-step shift amounts, by round.
const SHIFTS: [[u32; 4]; 4] = [
    [7, 12, 17, 22],
    [5, 9, 14, 20],
    [4, 11, 16, 23],
    [6, 10, 15, 21],
];

/// `floor(abs(sin(i + 1)) · 2^32)`, the MD5 constants (RFC 1321).
const K: [u32; 64] = [
    0xd76a_a478,
    0xe8c7_b756,
    0x2420_70db,
    0xc1bd_ceee,
    0xf57c_0faf,
    0x4787_c62a,
    0xa830_4613,
    0xfd46_9501,
    0x6980_98d8,
    0x8b44_f7af,
    0xffff_5bb1,
    0x895c_d7be,
    0x6b90_1122,
    0xfd98_7193,
    0xa679_438e,
    0x49b4_0821,
    0xf61e_2562,
    0xc040_b340,
    0x265e_5a51,
    0xe9b6_c7aa,
    0xd62f_105d,
    0x0244_1453,
    0xd8a1_e681,
    0xe7d3_fbc8,
    0x21e1_cde6,
    0xc337_07d6,
    0xf4d5_0d87,
    0x455a_14ed,
    0xa9e3_e905,
    0xfcef_a3f8,
    0x676f_02d9,
    0x8d2a_4c8a,
    0xfffa_3942,
    0x8771_f681,
    0x6d9d_6122,
    0xfde5_380c,
    0xa4be_ea44,
    0x4bde_cfa9,
    0xf6bb_4b60,
    0xbebf_bc70,
    0x289b_7ec6,
    0xeaa1_27fa,
    0xd4ef_3085,
    0x0488_1d05,
    0xd9d4_d039,
    0xe6db_99e5,
    0x1fa2_7cf8,
    0xc4ac_5665,
    0xf429_2244,
    0x432a_ff97,
    0xab94_23a7,
    0xfc93_a039,
    0x655b_59c3,
    0x8f0c_cc92,
    0xffef_f47d,
    0x8584_5dd1,
    0x6fa8_7e4f,
    0xfe2c_e6e0,
    0xa301_4314,
    0x4e08_11a1,
    0xf753_7e82,
    0xbd3a_f235,
    0x2ad7_d2bb,
    0xeb86_d391,
];

const INIT: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod wide;

/// The MD5 of each input, into `out` (as long as `inputs`): sixteen at a time in AVX-512 or
/// AVX2 registers where the CPU has them (`wide`, `avx2`), otherwise two at a time.
pub(crate) fn md5_each(inputs: &[&[u8]], out: &mut [[u8; 16]]) {
    #[cfg(target_arch = "x86_64")]
    if inputs.len() >= wide::MIN_LANES && std::is_x86_feature_detected!("avx512f") {
        // SAFETY: `wide::md5_each` needs AVX-512F, and the CPU has it (checked just above;
        // std caches the answer).
        unsafe { wide::md5_each(inputs, out) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if inputs.len() >= wide::MIN_LANES && std::is_x86_feature_detected!("avx2") {
        // SAFETY: `wide::md5_each_avx2` needs AVX2, and the CPU has it (checked just above).
        unsafe { wide::md5_each_avx2(inputs, out) };
        return;
    }
    md5_pairs(inputs, out);
}

/// Two at a time: each pair's steps interleaved, the odd one out alone.
fn md5_pairs(inputs: &[&[u8]], out: &mut [[u8; 16]]) {
    let mut pairs = inputs.chunks_exact(2);
    let mut outs = out.chunks_exact_mut(2);
    for (pair, o) in (&mut pairs).zip(&mut outs) {
        if let (&[a, b], [oa, ob]) = (pair, o) {
            let blocks = [Blocks::new(a), Blocks::new(b)];
            [*oa, *ob] = finish([INIT; 2], blocks.each_ref(), 0);
        }
    }
    if let (&[a], [oa]) = (pairs.remainder(), outs.into_remainder()) {
        [*oa] = finish([INIT], [&Blocks::new(a)], 0);
    }
}

/// The MD5s of `L` inputs whose first `from` blocks are in `states`: the blocks all of them
/// still have are compressed side by side, the rest of a longer input's blocks alone.
fn finish<const L: usize>(
    mut states: [[u32; 4]; L],
    blocks: [&Blocks<'_>; L],
    from: usize,
) -> [[u8; 16]; L] {
    let common = blocks.iter().map(|b| b.count).min().unwrap_or(0);
    for i in from..common {
        let these: [[u8; 64]; L] = std::array::from_fn(|l| blocks[l].block(i));
        compress(&mut states, std::array::from_fn(|l| &these[l]));
    }
    let mut out = [[0u8; 16]; L];
    for ((o, state), b) in out.iter_mut().zip(states).zip(blocks) {
        let mut alone = [state];
        for i in common.max(from)..b.count {
            compress(&mut alone, [&b.block(i)]);
        }
        *o = digest(alone[0]);
    }
    out
}

fn digest(state: [u32; 4]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (o, word) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// A message's 64-byte blocks: its whole blocks, then one or two of its tail and the padding.
struct Blocks<'a> {
    data: &'a [u8],
    whole: usize,
    tail: [u8; 128],
    count: usize,
}

impl<'a> Blocks<'a> {
    fn new(data: &'a [u8]) -> Self {
        let whole = data.len() / 64;
        let rest = data.get(whole * 64..).unwrap_or_default();
        let mut tail = [0u8; 128];
        let padded = if rest.len() < 56 { 64 } else { 128 };
        if let Some(t) = tail.get_mut(..rest.len()) {
            t.copy_from_slice(rest);
        }
        if let Some(t) = tail.get_mut(rest.len()) {
            *t = 0x80;
        }
        let bits = (data.len() as u64).wrapping_mul(8);
        if let Some(t) = tail.get_mut(padded - 8..padded) {
            t.copy_from_slice(&bits.to_le_bytes());
        }
        Blocks {
            data,
            whole,
            tail,
            count: whole + padded / 64,
        }
    }

    fn block(&self, i: usize) -> [u8; 64] {
        let from = if i < self.whole {
            self.data.get(i * 64..i * 64 + 64)
        } else {
            let at = (i - self.whole) * 64;
            self.tail.get(at..at + 64)
        };
        let mut block = [0u8; 64];
        if let Some(from) = from {
            block.copy_from_slice(from);
        }
        block
    }
}

/// MD5's four rounds as calls of `$steps!(round, function, word index, [step numbers])`, for
/// each compression (scalar lanes here, vector lanes in `wide` and `avx2`) to expand with its own
/// step. The functions are closures, as they were when each compression wrote them out: as `fn`
/// items the vector code lost half its `vpternlogd`s and the cycle took 1.28 s against 1.11.
/// `avx2` gives its own four functions (after a `;`), methods that enable AVX2: intrinsics
/// reached through operator traits were not inlined.
macro_rules! rounds {
    ($steps:ident) => {
        rounds!(
            $steps;
            |x: u32, y: u32, z: u32| (x & y) | (!x & z),
            |x: u32, y: u32, z: u32| (x & z) | (y & !z),
            |x: u32, y: u32, z: u32| x ^ y ^ z,
            |x: u32, y: u32, z: u32| y ^ (x | !z)
        )
    };
    ($steps:ident; $f:expr, $g:expr, $h:expr, $i:expr) => {
        let index_f = |i: usize| i;
        let index_g = |i: usize| 5 * i + 1;
        let index_h = |i: usize| 3 * i + 5;
        let index_i = |i: usize| 7 * i;
        let f = $f;
        let g = $g;
        let h = $h;
        let i = $i;
        $steps!(
            0,
            f,
            index_f,
            [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
        );
        $steps!(
            1,
            g,
            index_g,
            [16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]
        );
        $steps!(
            2,
            h,
            index_h,
            [32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47]
        );
        $steps!(
            3,
            i,
            index_i,
            [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]
        );
    };
}
use rounds;

/// One block into each of `L` states, the lanes' steps interleaved.
#[inline(always)]
fn compress<const L: usize>(states: &mut [[u32; 4]; L], blocks: [&[u8; 64]; L]) {
    let mut m = [[0u32; 16]; L];
    for (words, block) in m.iter_mut().zip(blocks) {
        for (w, bytes) in words.iter_mut().zip(block.chunks_exact(4)) {
            *w = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
    }
    let mut v = *states;
    // Written out for each of the 64 steps, so that every shift, constant and message index is
    // a constant.
    macro_rules! steps {
        ($round:expr, $f:expr, $index:expr, [$($i:expr),*]) => {$(
            for (lane, words) in v.iter_mut().zip(&m) {
                let [a, b, c, d] = *lane;
                let f: u32 = $f(b, c, d);
                let t = a
                    .wrapping_add(f)
                    .wrapping_add(K[$i])
                    .wrapping_add(words[$index($i) % 16]);
                *lane = [d, b.wrapping_add(t.rotate_left(SHIFTS[$round][$i % 4])), b, c];
            }
        )*};
    }
    rounds!(steps);
    for (state, lane) in states.iter_mut().zip(v) {
        for (s, x) in state.iter_mut().zip(lane) {
            *s = s.wrapping_add(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use md5::{Digest, Md5};
    use proptest::prelude::*;

    fn crate_md5(data: &[u8]) -> [u8; 16] {
        Md5::digest(data).into()
    }

    type Path = fn(&[&[u8]], &mut [[u8; 16]]);

    /// Every way this module computes digests on this machine: `md5_each` chooses one, so the
    /// others are called directly. The vector paths are only here on a CPU that has them.
    fn paths() -> Vec<(&'static str, Path)> {
        let mut paths: Vec<(&'static str, Path)> =
            vec![("md5_each", md5_each), ("pairs", md5_pairs)];
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            paths.push(("avx512", |i, o| unsafe { wide::md5_each(i, o) }));
        }
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            paths.push(("avx2", |i, o| unsafe { wide::md5_each_avx2(i, o) }));
        }
        paths
    }

    /// The vector paths are tested wherever the CPU has them: a path that is never chosen is
    /// never checked.
    #[test]
    fn every_vector_path_the_cpu_has_is_checked() {
        let mut expected = 2;
        #[cfg(target_arch = "x86_64")]
        {
            expected += usize::from(std::is_x86_feature_detected!("avx512f"));
            expected += usize::from(std::is_x86_feature_detected!("avx2"));
        }
        assert_eq!(paths().len(), expected);
    }

    fn check(inputs: &[&[u8]]) -> Result<(), String> {
        for (name, path) in paths() {
            let mut out = vec![[0u8; 16]; inputs.len()];
            path(inputs, &mut out);
            for (input, digest) in inputs.iter().zip(&out) {
                if *digest != crate_md5(input) {
                    return Err(format!(
                        "{name}: length {} of {:?}",
                        input.len(),
                        inputs.iter().map(|i| i.len()).collect::<Vec<_>>()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every length where the padding changes shape (55/56/63/64 bytes a block), in batches of
    /// every size a SendMessageBatch can have, so pairs of unequal block counts, the odd one
    /// out and vector lanes that finish in different passes are all covered.
    #[test]
    fn matches_the_crate_at_every_padding_boundary() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for n in 1..=10 {
            for base in [
                0usize, 1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 200,
            ] {
                let inputs: Vec<&[u8]> = (0..n).map(|k| &data[..(base + k * 9) % 300]).collect();
                check(&inputs).unwrap();
            }
        }
    }

    /// One long input among short ones: the vector passes stop when fewer than `MIN_LANES`
    /// inputs have blocks left, and the long one finishes alone from its lane's state. More
    /// than sixteen inputs take two vector groups.
    #[test]
    fn long_inputs_and_more_than_sixteen() {
        let long: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let mut inputs: Vec<&[u8]> = vec![&long[..4321], b"a", b"bc", &long[..130], &long[..700]];
        check(&inputs).unwrap();
        inputs.extend((0..17).map(|k| &long[..k * 61]));
        check(&inputs).unwrap();
    }

    #[test]
    fn known_vectors() {
        // RFC 1321's test suite, seven inputs: wide enough for the vector path.
        let inputs: [(&[u8], &str); 7] = [
            (b"", "d41d8cd98f00b204e9800998ecf8427e"),
            (b"a", "0cc175b9c0f1b6a831c399e269772661"),
            (b"abc", "900150983cd24fb0d6963f7d28e17f72"),
            (b"message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            (
                b"abcdefghijklmnopqrstuvwxyz",
                "c3fcd3d76192e4007dfb496cca67e13b",
            ),
            (
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "d174ab98d277d9f5a5611c2c9f419d9f",
            ),
            (
                b"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "57edf4a22be3c955ac49da2e2107b67a",
            ),
        ];
        let data: Vec<&[u8]> = inputs.iter().map(|(d, _)| *d).collect();
        for (name, path) in paths() {
            for n in [2, 7] {
                let mut out = vec![[0u8; 16]; n];
                path(&data[..n], &mut out);
                for ((_, want), got) in inputs.iter().zip(&out) {
                    assert_eq!(crate::digest::hex16(got).as_str(), *want, "{name}");
                }
            }
        }
    }

    proptest! {
        #[test]
        fn matches_the_crate(inputs in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..400), 1..21)) {
            let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
            prop_assert_eq!(check(&refs), Ok(()));
        }
    }
}
