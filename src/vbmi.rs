//! What the AVX-512 VBMI byte-permute code of `base64url::wide` and `hex::wide` shares: whether
//! the CPU has it, and tables as registers.

use std::arch::x86_64::__m512i;

/// Whether this CPU has AVX-512F, BW and VBMI: the features those modules' functions enable.
pub(crate) fn available() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vbmi")
}

/// A 64-byte table as a register.
#[inline(always)]
pub(crate) fn vector(bytes: [u8; 64]) -> __m512i {
    // SAFETY: both are 64 bytes of plain data, any bit pattern valid.
    unsafe { std::mem::transmute(bytes) }
}

/// A register's 64 bytes.
#[inline(always)]
pub(crate) fn bytes_of(v: __m512i) -> [u8; 64] {
    // SAFETY: as in `vector`.
    unsafe { std::mem::transmute(v) }
}
