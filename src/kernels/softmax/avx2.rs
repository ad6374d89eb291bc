//! The line kernel's softmax of a contiguous `f32` slice written with AVX2 and FMA
//! intrinsics: the same operations as the generic [`line`](super::line::line) in the same
//! order (so the same bits), but certain to run eight lanes wide, which the compiler's
//! auto-vectorisation of the generic code does not always manage.

use std::arch::x86_64::*;
use std::mem::MaybeUninit;

use super::super::exp::exp_nonpos_f32;
use super::{LANES, canonical, finish, output};

/// [`exp_nonpos_f32`]`::<true>` on eight lanes (the same operations, so the same bits).
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn exp8(x: __m256) -> __m256 {
    let c = |v: f32| _mm256_set1_ps(v);
    let xc = _mm256_blendv_ps(x, c(-104.0), _mm256_cmp_ps::<_CMP_LT_OQ>(x, c(-104.0)));
    let round = c(12_582_912.0);
    let t = _mm256_fmadd_ps(xc, c(std::f32::consts::LOG2_E), round);
    let n = _mm256_sub_ps(t, round);
    let r = _mm256_fnmadd_ps(n, c(0.693_359_4), xc);
    let r = _mm256_fnmadd_ps(n, c(-2.121_944_4e-4), r);
    let z = _mm256_mul_ps(r, r);
    let mut p = c(1.987_569_2e-4);
    for k in [
        1.398_2e-3,
        8.333_452e-3,
        4.166_579_6e-2,
        1.666_666_5e-1,
        0.5,
    ] {
        p = _mm256_fmadd_ps(p, r, c(k));
    }
    let p = _mm256_add_ps(_mm256_fmadd_ps(p, z, r), c(1.0));
    let ni = _mm256_sub_epi32(
        _mm256_castps_si256(t),
        _mm256_set1_epi32(12_582_912.0f32.to_bits() as i32),
    );
    let n1 = _mm256_srai_epi32::<1>(ni);
    let n2 = _mm256_sub_epi32(ni, n1);
    let bias = _mm256_set1_epi32(127);
    let s1 = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(n1, bias)));
    let s2 = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(n2, bias)));
    // NaN lanes stayed NaN through the clamp and every float step.
    _mm256_mul_ps(_mm256_mul_ps(p, s1), s2)
}

/// `if mask { a } else { b }` per lane.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn select(mask: __m256, a: __m256, b: __m256) -> __m256 {
    _mm256_blendv_ps(b, a, mask)
}

/// Softmax (or, with `log`, log-softmax) of `xs` into `ys` (same length), as the generic
/// [`line`](super::line::line): the max, the canonical sum of `e^(x - max)` (each exponential
/// stored in the output for softmax), then the output. Lane `k` of a vector register is lane
/// `k` of the canonical order, since leaves start at multiples of [`LANES`].
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn row_f32(xs: &[f32], ys: &mut [MaybeUninit<f32>], log: bool) {
    // SAFETY: the caller guarantees AVX2 and FMA (this function's contract), which the
    // intrinsics, `select` and `leaf_f32` need; every load and store below is at `at` with
    // `at + LANES <= full <= n`, inside both slices, or at `at < n`.
    unsafe {
        debug_assert_eq!(xs.len(), ys.len());
        let n = xs.len();
        let full = n - n % LANES;
        let (x, y) = (xs.as_ptr(), ys.as_mut_ptr().cast::<f32>());
        // The max, NaN skipped (`v > m ? v : m`, as the generic code writes it).
        let mut vm = _mm256_set1_ps(f32::NEG_INFINITY);
        for at in (0..full).step_by(LANES) {
            let v = _mm256_loadu_ps(x.add(at));
            vm = select(_mm256_cmp_ps::<_CMP_GT_OQ>(v, vm), v, vm);
        }
        let mut lanes = [0.0f32; LANES];
        _mm256_storeu_ps(lanes.as_mut_ptr(), vm);
        let mut m = f32::NEG_INFINITY;
        for &v in lanes.iter().chain(&xs[full..]) {
            m = if v > m { v } else { m };
        }
        // Leaves `lo..hi` are inside both slices; the outputs are this line's only.
        let leaf = |lo: usize, hi: usize| leaf_f32(x, y, lo, hi, m, !log);
        let s = canonical::tree(n, leaf, |a, b, _, _| a + b);
        let f = finish(m, s, log);
        let vf = _mm256_set1_ps(f);
        if log {
            let vmax = _mm256_set1_ps(m);
            for at in (0..full).step_by(LANES) {
                let d = _mm256_sub_ps(_mm256_loadu_ps(x.add(at)), vmax);
                _mm256_storeu_ps(y.add(at), _mm256_sub_ps(d, vf));
            }
            for (o, &v) in ys[full..].iter_mut().zip(&xs[full..]) {
                o.write(output::<f32, f32>(v, m, f, true));
            }
        } else {
            // Every output was written by the sum.
            for at in (0..full).step_by(LANES) {
                _mm256_storeu_ps(y.add(at), _mm256_mul_ps(_mm256_loadu_ps(y.add(at)), vf));
            }
            for at in full..n {
                *y.add(at) *= f;
            }
        }
    }
}

/// One leaf `lo..hi` (`lo` a multiple of [`LANES`]) of [`row_f32`]'s sum: `e^(x - m)` of each
/// position into lane `i % LANES`, the lanes combined; each exponential written to `y` if
/// `store`.
///
/// # Safety
/// The CPU must have AVX2 and FMA; positions `lo..hi` are readable at `x` and, if `store`,
/// writable at `y`.
#[target_feature(enable = "avx2,fma")]
unsafe fn leaf_f32(x: *const f32, y: *mut f32, lo: usize, hi: usize, m: f32, store: bool) -> f32 {
    // SAFETY: AVX2 and FMA (contract), for the intrinsics and `exp8`; every load and store is
    // at `at` with `at + LANES <= full <= hi`, or at `at < hi`: inside the leaf (contract).
    unsafe {
        let full = lo + (hi - lo) / LANES * LANES;
        let vm = _mm256_set1_ps(m);
        let mut acc = _mm256_setzero_ps();
        for at in (lo..full).step_by(LANES) {
            let e = exp8(_mm256_sub_ps(_mm256_loadu_ps(x.add(at)), vm));
            acc = _mm256_add_ps(acc, e);
            if store {
                _mm256_storeu_ps(y.add(at), e);
            }
        }
        let mut l = [0.0f32; LANES];
        _mm256_storeu_ps(l.as_mut_ptr(), acc);
        for (k, at) in (full..hi).enumerate() {
            let e = exp_nonpos_f32::<true>(*x.add(at) - m);
            l[k] += e;
            if store {
                *y.add(at) = e;
            }
        }
        canonical::combine_lanes(l, |a, b| a + b)
    }
}
