//! The direct path's full-width tiles for `f32` and `f64` in AVX2 + FMA intrinsics.
//!
//! [`super::small`]'s generic tiles leave the register allocation to LLVM, which splits some
//! rows of a 4 x 16 `f32` tile into 128-bit halves (ten multiply-adds a step of `p` where
//! eight would do) and spills the accumulators around the tile loops. These tiles are the
//! packed core's 6 x 16 (`f32`) and 6 x 8 (`f64`) register shape, reading A and B through
//! their strides instead of from packed panels: per step of `p`, two vector loads of B's row
//! (unit-stride, the one requirement), `R <= 6` broadcasts of A's column and `2 R`
//! multiply-adds into as many accumulators (12 of the 16 registers at `R = 6`).
//!
//! Each element of C is summed over `p` in order with one fused multiply-add a step, from
//! C's old value when accumulating and from zero otherwise: the generic tiles' operations in
//! the same order, so the results are bit-identical (tested in `small`).

use std::arch::x86_64::*;

use super::types::{MatMut, MatRef};

/// Rows of C a tile computes at most.
pub(super) const ROWS: usize = 6;

macro_rules! simd_tiles {
    ($tiles:ident, $tile:ident, $t:ty, $v:ty, $lanes:literal, $zero:ident, $load:ident,
     $splat:ident, $fma:ident, $store:ident) => {
        /// Every full-width tile of C: rows `0..m` and columns `0..n / (2 * lanes) * 2 *
        /// lanes`; returns how many columns it computed (the caller does the rest).
        ///
        /// # Safety
        /// As `small::gemm_small`, B's rows unit-stride (`b.cs == 1`), and the CPU has AVX2 and
        /// FMA (this function is compiled for them and must only be called from code that is).
        #[inline]
        #[target_feature(enable = "avx2,fma")]
        pub(super) unsafe fn $tiles(
            m: usize,
            n: usize,
            k: usize,
            a: MatRef<$t>,
            b: MatRef<$t>,
            c: MatMut<$t>,
            accumulate: bool,
        ) -> usize {
            const W: usize = 2 * $lanes;
            debug_assert_eq!(b.cs, 1);
            let full = n / W * W;
            for i0 in (0..m).step_by(ROWS) {
                for j0 in (0..full).step_by(W) {
                    // SAFETY: rows i0..i0 + R (R = min(m - i0, ROWS)) and columns j0..j0 + W
                    // are inside C (j0 + W <= full <= n), and the matching rows of A and
                    // columns of B inside them: the caller's contract for every index below
                    // m and n; B's rows are unit-stride (the caller's contract).
                    unsafe {
                        match m - i0 {
                            1 => $tile::<1>(k, a, b, c, accumulate, i0, j0),
                            2 => $tile::<2>(k, a, b, c, accumulate, i0, j0),
                            3 => $tile::<3>(k, a, b, c, accumulate, i0, j0),
                            4 => $tile::<4>(k, a, b, c, accumulate, i0, j0),
                            5 => $tile::<5>(k, a, b, c, accumulate, i0, j0),
                            _ => $tile::<ROWS>(k, a, b, c, accumulate, i0, j0),
                        }
                    }
                }
            }
            full
        }

        /// Rows `i0..i0 + R` and columns `j0..j0 + 2 * lanes` of C.
        ///
        /// Out of line: inlined into the tile loops, its address arithmetic (C's column
        /// offsets for a strided store, A's row offsets) would be hoisted above them, where
        /// every call pays it whether or not the tile needs it.
        ///
        /// # Safety
        /// Every `(i0 + r, p)` of A (`r < R`, `p < k`) and `(p, j0 + j)` of B (`j < 2 *
        /// lanes`, unit-stride in `j`) readable; those elements of C writable (initialized if
        /// `accumulate`) and not overlapping A or B; the CPU has AVX2 and FMA.
        #[inline(never)]
        #[target_feature(enable = "avx2,fma")]
        unsafe fn $tile<const R: usize>(
            k: usize,
            a: MatRef<$t>,
            b: MatRef<$t>,
            c: MatMut<$t>,
            accumulate: bool,
            i0: usize,
            j0: usize,
        ) {
            // Each element's chain starts at C's value when accumulating (Note [canonical
            // order] in `super`), at zero otherwise.
            let mut acc: [[$v; 2]; R] = [[$zero(); 2]; R];
            if accumulate {
                for (r, row) in acc.iter_mut().enumerate() {
                    let out = c.at(i0 + r, j0);
                    let mut old = [0.0 as $t; 2 * $lanes];
                    for (j, v) in old.iter_mut().enumerate() {
                        // SAFETY: (i0 + r, j0 + j) is an element of C, initialized when
                        // accumulating (the contract).
                        *v = unsafe { *out.wrapping_offset(j as isize * c.cs) };
                    }
                    // SAFETY: `old` holds two vectors of values.
                    *row = unsafe { [$load(old.as_ptr()), $load(old.as_ptr().add($lanes))] };
                }
            }
            let (mut ap, mut bp) = (a.at(i0, 0), b.at(0, j0));
            for _ in 0..k {
                // SAFETY: `bp` is (p, j0) of B and the 2 * lanes elements from it are
                // (p, j0 + j), unit-stride; `ap + r * a.rs` is (i0 + r, p) of A (the contract).
                unsafe {
                    let b0 = $load(bp);
                    let b1 = $load(bp.add($lanes));
                    for (r, row) in acc.iter_mut().enumerate() {
                        let x = $splat(*ap.wrapping_offset(r as isize * a.rs));
                        row[0] = $fma(x, b0, row[0]);
                        row[1] = $fma(x, b1, row[1]);
                    }
                }
                ap = ap.wrapping_offset(a.cs);
                bp = bp.wrapping_offset(b.rs);
            }
            for (r, row) in acc.iter().enumerate() {
                let out = c.at(i0 + r, j0);
                if c.cs == 1 {
                    // SAFETY: (i0 + r, j0 + j) for j < 2 * lanes, unit-stride, are elements
                    // of C (the contract).
                    unsafe {
                        $store(out, row[0]);
                        $store(out.add($lanes), row[1]);
                    }
                } else {
                    let mut sums = [0.0 as $t; 2 * $lanes];
                    // SAFETY: `sums` holds two vectors of values.
                    unsafe {
                        $store(sums.as_mut_ptr(), row[0]);
                        $store(sums.as_mut_ptr().add($lanes), row[1]);
                    }
                    for (j, &v) in sums.iter().enumerate() {
                        // SAFETY: (i0 + r, j0 + j) is an element of C (the contract).
                        unsafe { *out.wrapping_offset(j as isize * c.cs) = v };
                    }
                }
            }
        }
    };
}

simd_tiles!(
    tiles_f32,
    tile_f32,
    f32,
    __m256,
    8,
    _mm256_setzero_ps,
    _mm256_loadu_ps,
    _mm256_set1_ps,
    _mm256_fmadd_ps,
    _mm256_storeu_ps
);

simd_tiles!(
    tiles_f64,
    tile_f64,
    f64,
    __m256d,
    4,
    _mm256_setzero_pd,
    _mm256_loadu_pd,
    _mm256_set1_pd,
    _mm256_fmadd_pd,
    _mm256_storeu_pd
);
