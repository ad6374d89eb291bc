//! The line kernel's softmax of a contiguous `f32` slice written with AVX2 and FMA
//! intrinsics: the same operations as [`line_stored`](super::line::line_stored)`::<f32, true>` in the same order (so
//! the same results), but certain to run eight lanes wide, which the compiler's
//! auto-vectorisation of the generic code does not always manage.

use std::arch::x86_64::*;
use std::mem::MaybeUninit;

use super::{BLOCK_STEPS, LANES, finish, lse_combine, output};

/// [`exp_nonpos_f32`](super::super::exp::exp_nonpos_f32)`::<true>` on eight lanes.
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

/// Softmax (or, with `log`, log-softmax) of `xs` into `ys` (same length); see
/// [`line_stored`](super::line_stored). Log-softmax does not store the exponentials: its
/// output loop is a subtraction.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn row_f32(xs: &[f32], ys: &mut [MaybeUninit<f32>], log: bool) {
    // SAFETY: the caller guarantees AVX2 and FMA (this function's contract), which the
    // intrinsics, `exp8` and `select` need; each load and store below says why its lanes are
    // inside `xs` / `ys`.
    unsafe {
        const BLOCK: usize = LANES * BLOCK_STEPS;
        debug_assert_eq!(xs.len(), ys.len());
        let full = xs.len() - xs.len() % BLOCK;
        let (ninf, zero, one) = (
            _mm256_set1_ps(f32::NEG_INFINITY),
            _mm256_setzero_ps(),
            _mm256_set1_ps(1.0),
        );
        let (mut m, mut s) = (ninf, zero);
        let mut bases: Vec<__m256> = Vec::with_capacity(full / BLOCK);
        let (x, y) = (xs.as_ptr(), ys.as_mut_ptr().cast::<f32>());
        for b in (0..full).step_by(BLOCK) {
            // SAFETY (loads and stores below): `b + i * LANES + LANES <= full <= len` for
            // `i < BLOCK_STEPS`: inside both slices.
            let mut bm = ninf;
            for i in 0..BLOCK_STEPS {
                let v = _mm256_loadu_ps(x.add(b + i * LANES));
                // `v > bm ? v : bm`, as the generic code writes it.
                bm = select(_mm256_cmp_ps::<_CMP_GT_OQ>(v, bm), v, bm);
            }
            let new = select(_mm256_cmp_ps::<_CMP_GT_OQ>(bm, m), bm, m);
            let rescale = exp8(_mm256_sub_ps(m, new));
            s = _mm256_mul_ps(s, select(_mm256_cmp_ps::<_CMP_EQ_OQ>(new, m), one, rescale));
            m = new;
            let base = select(_mm256_cmp_ps::<_CMP_EQ_OQ>(new, ninf), zero, new);
            for i in 0..BLOCK_STEPS {
                let at = b + i * LANES;
                // SAFETY: `i < BLOCK_STEPS`, so lanes `at .. at + LANES` are inside the block,
                // inside both slices (as for the max loop above).
                let e = exp8(_mm256_sub_ps(_mm256_loadu_ps(x.add(at)), base));
                s = _mm256_add_ps(s, e);
                if !log {
                    // SAFETY: the same lanes of the output slice, written by this line only.
                    _mm256_storeu_ps(y.add(at), e);
                }
            }
            bases.push(m);
        }
        let (mut ml, mut sl) = ([0.0f32; LANES], [0.0f32; LANES]);
        // SAFETY: eight floats each.
        {
            _mm256_storeu_ps(ml.as_mut_ptr(), m);
            _mm256_storeu_ps(sl.as_mut_ptr(), s);
        }
        let mut acc = (ml[0], sl[0]);
        for k in 1..LANES {
            acc = lse_combine::<f32, true>(acc, (ml[k], sl[k]));
        }
        for &v in &xs[full..] {
            acc = lse_combine::<f32, true>(acc, (v, 1.0));
        }
        let (max, f) = (acc.0, finish(acc.0, acc.1, log));
        let (vmax, vf) = (_mm256_set1_ps(max), _mm256_set1_ps(f));
        if log {
            for at in (0..full).step_by(LANES) {
                // SAFETY: `at + LANES <= full`: inside both slices.
                {
                    let d = _mm256_sub_ps(_mm256_loadu_ps(x.add(at)), vmax);
                    _mm256_storeu_ps(y.add(at), _mm256_sub_ps(d, vf));
                }
            }
            bases.clear();
        }
        for (bi, &base) in bases.iter().enumerate() {
            let e = exp8(_mm256_sub_ps(base, vmax));
            let factor =
                _mm256_mul_ps(select(_mm256_cmp_ps::<_CMP_EQ_OQ>(base, ninf), zero, e), vf);
            for i in 0..BLOCK_STEPS {
                let at = bi * BLOCK + i * LANES;
                // SAFETY: inside the first `full` outputs, all written above.
                _mm256_storeu_ps(y.add(at), _mm256_mul_ps(_mm256_loadu_ps(y.add(at)), factor));
            }
        }
        for (o, &v) in ys[full..].iter_mut().zip(&xs[full..]) {
            o.write(output::<f32, f32, true>(v, max, f, log));
        }
    }
}
