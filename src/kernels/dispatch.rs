//! Run-time CPU dispatch: running a portable loop compiled for the wider vector unit the CPU
//! turns out to have.
//!
//! The crate is built for the baseline x86_64 target (SSE2), so a plain loop is vectorised 4
//! `f32` wide. [`with_avx2`] runs a closure inside a function compiled with AVX2 and FMA when
//! the CPU has them: the closure, inlined there, is vectorised 8 wide. The arithmetic is the
//! same IEEE operations either way (Rust never contracts `a * b + c` into an FMA by itself),
//! so results are bit-identical on every path; only explicit `mul_add` calls differ, and
//! their kernels pick their own variant.
//!
//! The wide path depends on LLVM inlining the closure into the AVX2 function, which it does
//! for a loop or two (the elementwise runs, the reduction leaves) but not for a large body: a
//! closure left out of line runs compiled for the baseline target, silently. A large kernel
//! takes a named `#[target_feature]` function of its own instead (`matmul/small.rs`), and
//! `perf annotate` on the hot symbol (`with_avx2::wide`, not `{{closure}}`) tells which
//! happened.

/// Whether this CPU has AVX2 and FMA (detected once by the standard library, then a load)
/// and [`crate::simd::set_max_simd_level`] allows them.
#[inline]
pub(crate) fn has_avx2_fma() -> bool {
    // Under Miri the portable paths run (the interpreter checks scalar code, not AVX2).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    return std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && crate::simd::allows(crate::simd::SimdLevel::Avx2);
    #[allow(unreachable_code)]
    false
}

/// Runs `body`, compiled with AVX2 and FMA if this CPU has them (see the [module
/// docs](self)); on other CPUs and targets, as it is.
#[inline(always)]
pub(crate) fn with_avx2<R>(body: impl FnOnce() -> R) -> R {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if has_avx2_fma() {
        /// `body()` in a function compiled with AVX2 and FMA.
        ///
        /// # Safety
        /// The CPU must have AVX2 and FMA.
        #[target_feature(enable = "avx2,fma")]
        unsafe fn wide<R>(body: impl FnOnce() -> R) -> R {
            body()
        }
        // SAFETY: the CPU has AVX2 and FMA (detected just above).
        return unsafe { wide(body) };
    }
    body()
}

/// Fewest elements a loop must have before [`with_avx2_for`] runs it in the AVX2 copy: below
/// this the wider vectors save a few instructions, less than the feature test and the call.
pub(crate) const WIDE_MIN: usize = 64;

/// [`with_avx2`] for a loop over `n` elements: shorter loops run `body` as it is.
#[inline(always)]
pub(crate) fn with_avx2_for<R>(n: usize, body: impl FnOnce() -> R) -> R {
    if n < WIDE_MIN {
        return body();
    }
    with_avx2(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wide_path_computes_what_the_plain_one_does() {
        let xs: Vec<f32> = (0..1000).map(|i| (i as f32 * 0.37).sin() * 1e3).collect();
        let plain: Vec<f32> = xs.iter().map(|&x| x * 1.0001 + 0.5 / (x + 3.0)).collect();
        let wide: Vec<f32> =
            with_avx2(|| xs.iter().map(|&x| x * 1.0001 + 0.5 / (x + 3.0)).collect());
        assert_eq!(
            plain.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            wide.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(with_avx2(|| 7), 7);
    }
}
