//! Tiny products without packing.
//!
//! The packed core ([`super::core`]) pays a fixed cost per call (panel buffers, block loops,
//! the register kernel's edge handling) that dwarfs a 4 x 4 or 16 x 16 product. Below
//! [`SMALL_MACS`] multiply-adds, C is computed directly from the operands' strides, in tiles of
//! 4 x 8 elements held in registers (in the accumulator type: f16 and bf16 in f32): each
//! element is summed over `p` in order, eight columns per vector operation (compiled for AVX2
//! where the CPU has it), four rows as independent chains.

use super::gemm::{MatMut, MatRef, Scalar};
use crate::kernels::dispatch::with_avx2;

/// Products of at most this many multiply-adds (`m * n * k`) take the direct path.
pub(super) const SMALL_MACS: usize = 4096;

/// Widest C row the direct path takes (its accumulators live on the stack).
pub(super) const SMALL_N: usize = 64;

/// `C = A · B` (or `C += A · B` with `accumulate`) for an `m x k` A and `k x n` B, `n <=
/// SMALL_N`, computed directly.
///
/// # Safety
/// As the GEMM entry point (`gemm::gemm`): every `(i, p)` of A and `(p, j)` of B readable,
/// every `(i, j)` of C writable (and initialized if `accumulate`), C distinct elements for
/// distinct indices and overlapping neither operand.
pub(super) unsafe fn gemm_small<T: Scalar>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    accumulate: bool,
) {
    debug_assert!(n <= SMALL_N);
    with_avx2(|| {
        for i0 in (0..m).step_by(ROWS) {
            for j0 in (0..n).step_by(COLS) {
                // SAFETY: the tile's rows and columns are inside C (and its A rows and B
                // columns inside A and B), as the contract requires of every index below m, n.
                unsafe {
                    tile(
                        k,
                        a,
                        b,
                        c,
                        accumulate,
                        i0,
                        (m - i0).min(ROWS),
                        j0,
                        (n - j0).min(COLS),
                    )
                };
            }
        }
    })
}

/// Rows of C a tile of the direct path computes at once (independent accumulator chains).
const ROWS: usize = 4;
/// Columns of C a tile computes at once: eight, one AVX2 vector of `f32`.
const COLS: usize = 8;

/// Rows `i0..i0 + rows` and columns `j0..j0 + cols` of C (`rows <= ROWS`, `cols <= COLS`),
/// each element summed over `p` in order, in registers.
///
/// # Safety
/// As [`gemm_small`], for the tile's rows and columns.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn tile<T: Scalar>(
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    accumulate: bool,
    i0: usize,
    rows: usize,
    j0: usize,
    cols: usize,
) {
    let zero = <T::Acc as num_traits::Zero>::zero();
    let mut acc = [[zero; COLS]; ROWS];
    for p in 0..k {
        let mut bp = [zero; COLS];
        if cols == COLS && b.cs == 1 {
            // SAFETY: columns j0..j0 + COLS of row p of B, unit-stride (contract).
            let run = unsafe { std::slice::from_raw_parts(b.at(p, j0), COLS) };
            for (v, &x) in bp.iter_mut().zip(run) {
                *v = x.to_acc();
            }
        } else {
            for (jj, v) in bp.iter_mut().enumerate().take(cols) {
                // SAFETY: (p, j0 + jj) with jj < cols is an element of B (contract).
                *v = unsafe { *b.at(p, j0 + jj) }.to_acc();
            }
        }
        for (r, row) in acc.iter_mut().enumerate().take(rows) {
            // SAFETY: (i0 + r, p) with r < rows is an element of A (contract).
            let x = unsafe { *a.at(i0 + r, p) }.to_acc();
            for (v, &y) in row.iter_mut().zip(&bp) {
                *v = *v + x * y;
            }
        }
    }
    for (r, row) in acc.iter().enumerate().take(rows) {
        for (jj, &v) in row.iter().enumerate().take(cols) {
            // SAFETY: (i0 + r, j0 + jj) is an element of C, written by this call only.
            unsafe {
                let p = c.at(i0 + r, j0 + jj);
                let v = if accumulate { (*p).to_acc() + v } else { v };
                *p = T::from_acc(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct path against an f64 reference, on row-major, transposed and reversed
    /// operands, with and without accumulation.
    #[test]
    fn the_direct_path_matches_a_reference() {
        let (m, n, k) = (5, 7, 6);
        let av: Vec<f32> = (0..m * k).map(|i| (i as f32 * 0.37).sin()).collect();
        let bv: Vec<f32> = (0..k * n).map(|i| (i as f32 * 0.11).cos()).collect();
        let a_at = |i: usize, p: usize| f64::from(av[i * k + p]);
        let b_at = |p: usize, j: usize| f64::from(bv[p * n + j]);
        // B read as stored (unit-stride rows), then through a transposed copy (strided rows).
        let bt: Vec<f32> = (0..n * k).map(|q| bv[(q % k) * n + q / k]).collect();
        let bs = [
            MatRef {
                ptr: bv.as_ptr(),
                rs: n as isize,
                cs: 1,
            },
            MatRef {
                ptr: bt.as_ptr(),
                rs: 1,
                cs: k as isize,
            },
        ];
        // A read backwards along its rows: element (i, p) at (i, k - 1 - p) of a reversed copy.
        let ar: Vec<f32> = (0..m * k)
            .map(|q| av[(q / k) * k + (k - 1 - q % k)])
            .collect();
        let as_ = [
            MatRef {
                ptr: av.as_ptr(),
                rs: k as isize,
                cs: 1,
            },
            MatRef {
                ptr: ar.as_ptr().wrapping_add(k - 1),
                rs: k as isize,
                cs: -1,
            },
        ];
        for a in as_ {
            for b in bs {
                for accumulate in [false, true] {
                    let mut cv = vec![0.5f32; m * n];
                    let c = MatMut {
                        ptr: cv.as_mut_ptr(),
                        rs: n as isize,
                        cs: 1,
                    };
                    // SAFETY: A, B and C address exactly their vectors' elements.
                    unsafe { gemm_small(m, n, k, a, b, c, accumulate) };
                    for i in 0..m {
                        for j in 0..n {
                            let want: f64 = (0..k).map(|p| a_at(i, p) * b_at(p, j)).sum::<f64>()
                                + if accumulate { 0.5 } else { 0.0 };
                            let got = f64::from(cv[i * n + j]);
                            assert!((got - want).abs() < 1e-5, "({i}, {j}): {got} vs {want}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn empty_inner_dimension_gives_zeros_or_leaves_c() {
        let a = MatRef::<f64> {
            ptr: std::ptr::NonNull::dangling().as_ptr(),
            rs: 0,
            cs: 1,
        };
        let mut cv = vec![3.0f64; 4];
        let c = MatMut {
            ptr: cv.as_mut_ptr(),
            rs: 2,
            cs: 1,
        };
        // SAFETY: k = 0 reads no element of A or B; C is the 2 x 2 vector.
        unsafe { gemm_small(2, 2, 0, a, a, c, true) };
        assert_eq!(cv, vec![3.0; 4]);
        // SAFETY: as above.
        unsafe { gemm_small(2, 2, 0, a, a, c, false) };
        assert_eq!(cv, vec![0.0; 4]);
    }
}
