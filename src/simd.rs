//! Which SIMD paths the kernels may take: detected once, lowered on request.
//!
//! Kernels pick their widest path at run time (`AVX2` + `FMA`, `AVX-512` on x86_64; portable
//! code elsewhere). Results never depend on the choice: every reduction and matrix product
//! makes the same IEEE operations in the same order on every path (Note [canonical order] in
//! the reduction kernels), so a portable build, an AVX2 machine and an AVX-512 machine give
//! the same bits. [`set_max_simd_level`] lowers the ceiling for the whole process, like
//! PyTorch's `ATEN_CPU_CAPABILITY`: to check that claim, to measure one path against another,
//! or to reproduce a result on a machine with fewer features. It can never raise the level
//! above what the CPU has.

use std::sync::atomic::{AtomicU8, Ordering};

/// A SIMD path, narrowest first.
///
/// ```
/// use stridex::simd::SimdLevel;
/// assert!(SimdLevel::Portable < SimdLevel::Avx2 && SimdLevel::Avx2 < SimdLevel::Avx512);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum SimdLevel {
    /// Portable Rust, compiled for the target's baseline (SSE2 on x86_64).
    Portable = 0,
    /// AVX2 with FMA.
    Avx2 = 1,
    /// AVX-512 (F, and BW / VL where a kernel needs them).
    Avx512 = 2,
}

/// The ceiling set by [`set_max_simd_level`] (`u8::MAX`: none).
static CEILING: AtomicU8 = AtomicU8::new(u8::MAX);

/// Lowers (or restores) the widest SIMD path the kernels may take, for the whole process, and
/// returns the previous ceiling. A level above what the CPU has is allowed and changes
/// nothing: a kernel still needs the CPU's support.
///
/// Calls already running keep the path they chose; the next calls see the new ceiling.
///
/// ```
/// use stridex::simd::{SimdLevel, set_max_simd_level};
/// use stridex::Tensor;
/// let x = Tensor::from_fn(&[64, 300], |i| ((i[0] * 300 + i[1]) as f32 * 0.37).sin())?;
/// let wide = x.sum_dim(1, false)?;
/// let before = set_max_simd_level(SimdLevel::Portable);
/// let plain = x.sum_dim(1, false)?;
/// set_max_simd_level(before);
/// assert_eq!(wide, plain); // the same bits on every path
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn set_max_simd_level(level: SimdLevel) -> SimdLevel {
    level_of(CEILING.swap(level as u8, Ordering::Relaxed))
}

/// The widest SIMD path the kernels may take now: the lower of what this CPU has and the
/// ceiling [`set_max_simd_level`] set.
///
/// ```
/// use stridex::simd::{SimdLevel, simd_level};
/// assert!(simd_level() >= SimdLevel::Portable);
/// ```
pub fn simd_level() -> SimdLevel {
    level_of(CEILING.load(Ordering::Relaxed)).min(detected())
}

/// Whether the ceiling allows `level` (the CPU's support is the caller's own test).
#[inline]
pub(crate) fn allows(level: SimdLevel) -> bool {
    CEILING.load(Ordering::Relaxed) >= level as u8
}

fn level_of(raw: u8) -> SimdLevel {
    match raw {
        0 => SimdLevel::Portable,
        1 => SimdLevel::Avx2,
        _ => SimdLevel::Avx512,
    }
}

/// The widest level this CPU runs.
fn detected() -> SimdLevel {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return SimdLevel::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return SimdLevel::Avx2;
        }
    }
    SimdLevel::Portable
}
