//! Small products without packing.
//!
//! The packed core ([`super::core`]) pays a fixed cost per call (panel buffers, block loops,
//! the register kernel's edge handling) that dwarfs a 4 x 4 or 16 x 16 product. For products
//! that [`takes`] (C at most 64 columns wide, few multiply-adds), C is computed directly from
//! the operands' strides in register tiles of up to 4 rows by 4, 8 or 16 columns (in the
//! accumulator type: f16 and bf16 in f32): each element is summed over `p` in order, a row of
//! a tile per vector multiply-add (compiled for AVX2 and FMA where the CPU has them), the
//! rows and vectors of a tile as independent chains. For `f32` and `f64` with unit-stride rows
//! of B, [`super::small_avx2`] computes the full-width column blocks in 6-row tiles of
//! intrinsics (bit-identical results) and these tiles the columns left over.

use super::types::{MatMut, MatRef, Scalar};
#[cfg(all(target_arch = "x86_64", not(miri)))]
use crate::kernels::dispatch::has_avx2_fma;

/// Products of at most this many multiply-adds (`m * n * k`) take the direct path whatever
/// their strides.
const SMALL_MACS: usize = 4096;

/// Products of at most this many multiply-adds take the direct path when B's rows are
/// unit-stride (each row of a tile of B is then one vector load): up to 64³ it beat packing
/// on the machine of the bench report (32³: 1.9 µs against 3.4 µs; 64³: 9.0 against 13 µs).
const SMALL_MACS_UNIT_B: usize = 1 << 18;

/// Widest C row the direct path takes.
const SMALL_N: usize = 64;

/// Whether an `m x k` by `k x n` product whose B has column stride `b_cs` takes the direct
/// path.
pub(super) fn takes(m: usize, n: usize, k: usize, b_cs: isize) -> bool {
    let macs = m.saturating_mul(n).saturating_mul(k);
    n <= SMALL_N && (macs <= SMALL_MACS || (b_cs == 1 && macs <= SMALL_MACS_UNIT_B))
}

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
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if has_avx2_fma() {
        // SAFETY: the CPU has AVX2 and FMA (just detected); the rest is the caller's contract.
        return unsafe { tiles_avx2::<T, true>(m, n, k, a, b, c, accumulate) };
    }
    // SAFETY: the caller's contract.
    unsafe { tiles::<T, false>(m, n, k, a, b, c, accumulate, 0) }
}

/// [`tiles`] compiled with AVX2 and FMA; with `SIMD`, after [`super::small_avx2`]'s tiles
/// have taken every full-width column block of an `f32` or `f64` product with unit-stride
/// rows of B (`SIMD = false`, the generic tiles alone, is what the tests compare them with).
/// (A named function rather than `kernels::dispatch::with_avx2`: the tile loops are too large
/// for LLVM to inline a closure holding them, and a closure left out of line runs compiled
/// for the baseline target.)
///
/// # Safety
/// As [`gemm_small`], and the CPU has AVX2 and FMA.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx2,fma")]
unsafe fn tiles_avx2<T: Scalar, const SIMD: bool>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    accumulate: bool,
) {
    // (Narrower than an f64 tile, C has no full-width block: no need to look.)
    let done = if SIMD && b.cs == 1 && n >= COLS {
        // SAFETY: the caller's contract (this CPU has AVX2 and FMA), with B's rows
        // unit-stride (just checked).
        unsafe { simd_columns(m, n, k, a, b, c, accumulate) }
    } else {
        0
    };
    // SAFETY: the caller's contract; columns `done..n` are a block of C's columns.
    unsafe { tiles::<T, true>(m, n, k, a, b, c, accumulate, done) }
}

/// The tile loops of [`gemm_small`], over columns `from..n` of C.
///
/// # Safety
/// As [`gemm_small`], `from <= n`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn tiles<T: Scalar, const FMA: bool>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    accumulate: bool,
    from: usize,
) {
    // Two vectors per row for f32 accumulators (eight independent chains hide the latency
    // of the multiply-add); one for f64, whose accumulators would not fit the registers.
    let step = if size_of::<T::Acc>() == 4 {
        2 * COLS
    } else {
        COLS
    };
    if m == 0 || n <= from {
        return;
    }
    if from == 0 && m <= ROWS && n <= step {
        // One tile, outside the loops below: LLVM hoists the address arithmetic of every
        // tile shape to the top of the loops, which would cost a 4 x 4 product most of its
        // time.
        // SAFETY: the tile is all of C (non-empty), and its A rows and B columns all of A
        // and B, as the contract requires.
        return unsafe { tile_at::<T, FMA>(k, a, b, c, accumulate, 0, m, 0, n) };
    }
    for i0 in (0..m).step_by(ROWS) {
        for j0 in (from..n).step_by(step) {
            let (rows, cols) = (m - i0, (n - j0).min(step));
            // SAFETY: the tile's rows and columns are inside C (and its A rows and B columns
            // inside A and B), as the contract requires of every index below m, n.
            unsafe { tile_at::<T, FMA>(k, a, b, c, accumulate, i0, rows, j0, cols) }
        }
    }
}

/// The full-width column blocks of C through [`super::small_avx2`] when `T` is `f32` or
/// `f64`: returns how many leading columns of C are done (0 for other types).
///
/// # Safety
/// As [`gemm_small`], B's rows unit-stride, and the CPU has AVX2 and FMA.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
unsafe fn simd_columns<T: Scalar>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    accumulate: bool,
) -> usize {
    use super::small_avx2::{tiles_f32, tiles_f64};
    use std::any::TypeId;
    let t = TypeId::of::<T>();
    // SAFETY: `T` is the type the tiles read and write (the `TypeId` test, decided at compile
    // time); the rest is the caller's contract.
    unsafe {
        if t == TypeId::of::<f32>() {
            tiles_f32(m, n, k, a.cast(), b.cast(), c.cast(), accumulate)
        } else if t == TypeId::of::<f64>() {
            tiles_f64(m, n, k, a.cast(), b.cast(), c.cast(), accumulate)
        } else {
            0
        }
    }
}

/// The tile of C at `(i0, j0)`: rows `i0..i0 + rows.min(ROWS)` and columns `j0..j0 + cols`
/// (`cols <= 2 * COLS`), with its row count and width made constants.
///
/// # Safety
/// As [`tile`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn tile_at<T: Scalar, const FMA: bool>(
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
    // One `tile` per row count, for the width `$c`.
    macro_rules! rows_of {
        ($c:expr) => {
            match rows {
                1 => tile::<T, 1, { $c }, FMA>(k, a, b, c, accumulate, i0, j0, cols),
                2 => tile::<T, 2, { $c }, FMA>(k, a, b, c, accumulate, i0, j0, cols),
                3 => tile::<T, 3, { $c }, FMA>(k, a, b, c, accumulate, i0, j0, cols),
                _ => tile::<T, ROWS, { $c }, FMA>(k, a, b, c, accumulate, i0, j0, cols),
            }
        };
    }
    // SAFETY: the caller's contract, for `rows` clamped to the tile (every arm).
    unsafe {
        if cols <= COLS / 2 {
            rows_of!(COLS / 2)
        } else if cols <= COLS {
            rows_of!(COLS)
        } else {
            rows_of!(2 * COLS)
        }
    }
}

/// Rows of C a tile of the direct path computes at most (independent accumulator chains).
const ROWS: usize = 4;
/// Columns of C a tile computes at once: eight, one AVX2 vector of `f32`.
const COLS: usize = 8;

/// Rows `i0..i0 + R` and columns `j0..j0 + cols` of C (`R <= ROWS`, `cols <= C`, `C` one of
/// `COLS / 2`, `COLS`, `2 * COLS`), each element summed over `p` in order, in registers.
///
/// Both loop bounds inside the `p` loop are constants, so the `R x C` accumulators stay in
/// registers and each row's update is one multiply-add per vector of `C` (fused with `FMA`,
/// the AVX2 path; a multiply and an add otherwise); a tile narrower than `C` pads its row of
/// B with zeros and drops the padding's sums.
///
/// # Safety
/// As [`gemm_small`], for the tile's rows and columns.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn tile<T: Scalar, const R: usize, const C: usize, const FMA: bool>(
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    accumulate: bool,
    i0: usize,
    j0: usize,
    cols: usize,
) {
    let rows: [*const T; R] = std::array::from_fn(|r| a.at(i0 + r, 0));
    // The two ways of reading a row of B get a `p` loop each: merged into one loop, LLVM
    // splits the whole-row load into scalar pieces.
    // Each element's chain starts at C's value when accumulating (Note [canonical order] in
    // `super`), at zero otherwise.
    let zero = <T::Acc as num_traits::Zero>::zero();
    let mut start = [[zero; C]; R];
    if accumulate {
        for (r, row) in start.iter_mut().enumerate() {
            for (jj, v) in row.iter_mut().enumerate().take(cols) {
                // SAFETY: (i0 + r, j0 + jj) is an element of C, initialized when
                // accumulating (the contract).
                *v = unsafe { *c.at(i0 + r, j0 + jj) }.to_acc();
            }
        }
    }
    let acc = if cols == C && b.cs == 1 {
        // SAFETY: the caller's contract; B's rows are unit-stride and the tile is full.
        unsafe { sum_over_p::<T, R, C, true, FMA>(k, a, b, &rows, j0, cols, start) }
    } else {
        // SAFETY: the caller's contract.
        unsafe { sum_over_p::<T, R, C, false, FMA>(k, a, b, &rows, j0, cols, start) }
    };
    if cols == C && c.cs == 1 {
        for (r, row) in acc.iter().enumerate() {
            let out: [T; C] = std::array::from_fn(|jj| T::from_acc(row[jj]));
            // SAFETY: columns j0..j0 + C of row i0 + r of C, unit-stride, written by this
            // call only; `[T; C]` has the alignment of `T`.
            unsafe { c.at(i0 + r, j0).cast::<[T; C]>().write(out) };
        }
        return;
    }
    for (r, row) in acc.iter().enumerate() {
        for (jj, &v) in row.iter().enumerate().take(cols) {
            // SAFETY: (i0 + r, j0 + jj) is an element of C, written by this call only.
            unsafe { *c.at(i0 + r, j0 + jj) = T::from_acc(v) };
        }
    }
}

/// `acc[r][j] = fma(A(i0 + r, p), B(p, j0 + j), acc[r][j])` for every `p < k`, in order, from
/// `acc = start`, where `rows[r]` points at `A(i0 + r, 0)`; columns `j >= cols` of `acc` get
/// zeros added. `WHOLE`: B's rows are unit-stride and `cols == C`, so each row of B is one
/// vector load. The multiply-adds are fused on every path (`FMA` only says whether the
/// caller is compiled with the instruction; without it `mul_add` is a library call, slower,
/// with the same bits).
///
/// # Safety
/// Every `(i0 + r, p)` of A (`r < R`) and `(p, j0 + j)` of B (`j < cols`) is readable.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn sum_over_p<
    T: Scalar,
    const R: usize,
    const C: usize,
    const WHOLE: bool,
    const FMA: bool,
>(
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    rows: &[*const T; R],
    j0: usize,
    cols: usize,
    start: [[T::Acc; C]; R],
) -> [[T::Acc; C]; R] {
    let zero = <T::Acc as num_traits::Zero>::zero();
    // A local array (not a borrowed one), so it can live in registers across the loop.
    let mut acc = start;
    for p in 0..k {
        let mut bp = [zero; C];
        let run = b.at(p, j0);
        if WHOLE {
            for (jj, v) in bp.iter_mut().enumerate() {
                // SAFETY: (p, j0 + jj), jj < C = cols, unit-stride (the contract).
                *v = unsafe { *run.add(jj) }.to_acc();
            }
        } else {
            for (jj, v) in bp.iter_mut().enumerate().take(cols) {
                // SAFETY: (p, j0 + jj) with jj < cols is an element of B (the contract).
                *v = unsafe { *run.wrapping_offset(jj as isize * b.cs) }.to_acc();
            }
        }
        for (row, &at) in acc.iter_mut().zip(rows) {
            // SAFETY: element (i0 + r, p) of A, r < R and p < k (the contract).
            let x = unsafe { *at.wrapping_offset(p as isize * a.cs) }.to_acc();
            for (v, &y) in row.iter_mut().zip(&bp) {
                *v = num_traits::Float::mul_add(x, y, *v);
            }
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `T` from an `f64` (rounded as the accumulator type, then to `T`).
    fn from_f64<T: Scalar>(x: f64) -> T {
        T::from_acc(<T::Acc as num_traits::NumCast>::from(x).expect("finite"))
    }

    /// `v` as an `f64`.
    fn to_f64<T: Scalar>(v: T) -> f64 {
        num_traits::ToPrimitive::to_f64(&v.to_acc()).expect("finite")
    }

    /// The direct path against an f64 reference for one shape: B read as stored (unit-stride
    /// rows) and through a transposed copy (strided rows), A as stored and read backwards
    /// along its rows, C row-major and column-major, with and without accumulation.
    fn check<T: Scalar>(m: usize, n: usize, k: usize, tol: f64) {
        let av: Vec<T> = (0..m * k)
            .map(|i| from_f64((i as f64 * 0.37).sin()))
            .collect();
        let bv: Vec<T> = (0..k * n)
            .map(|i| from_f64((i as f64 * 0.11).cos()))
            .collect();
        let a_at = |i: usize, p: usize| to_f64(av[i * k + p]);
        let b_at = |p: usize, j: usize| to_f64(bv[p * n + j]);
        let bt: Vec<T> = (0..n * k).map(|q| bv[(q % k) * n + q / k]).collect();
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
        // Element (i, p) at (i, k - 1 - p) of a reversed copy.
        let ar: Vec<T> = (0..m * k)
            .map(|q| av[(q / k) * k + (k - 1 - q % k)])
            .collect();
        let as_ = [
            MatRef {
                ptr: av.as_ptr(),
                rs: k as isize,
                cs: 1,
            },
            MatRef {
                ptr: ar.as_ptr().wrapping_add(k.saturating_sub(1)),
                rs: k as isize,
                cs: -1,
            },
        ];
        let start = from_f64::<T>(0.5);
        for a in as_ {
            for b in bs {
                for (rs, cs) in [(n, 1), (1, m)] {
                    for (accumulate, portable) in [(false, false), (true, false), (true, true)] {
                        let mut cv = vec![start; m * n];
                        let c = MatMut {
                            ptr: cv.as_mut_ptr(),
                            rs: rs as isize,
                            cs: cs as isize,
                        };
                        // SAFETY: A, B and C address exactly their vectors' elements.
                        unsafe {
                            if portable {
                                // The loops without FMA, which other CPUs run.
                                tiles::<T, false>(m, n, k, a, b, c, accumulate, 0)
                            } else {
                                gemm_small(m, n, k, a, b, c, accumulate)
                            }
                        };
                        #[cfg(all(target_arch = "x86_64", not(miri)))]
                        if !portable && has_avx2_fma() {
                            // The intrinsics tiles (f32, f64) give the generic tiles' bits.
                            let mut generic = vec![start; m * n];
                            let g = MatMut {
                                ptr: generic.as_mut_ptr(),
                                ..c
                            };
                            // SAFETY: as above; the CPU has AVX2 and FMA (just detected).
                            unsafe { tiles_avx2::<T, false>(m, n, k, a, b, g, accumulate) };
                            assert!(
                                bytemuck::cast_slice::<T, u8>(&cv)
                                    == bytemuck::cast_slice::<T, u8>(&generic),
                                "{m}x{n}x{k}: the AVX2 tiles differ from the generic ones"
                            );
                        }
                        for i in 0..m {
                            for j in 0..n {
                                let want = (0..k).map(|p| a_at(i, p) * b_at(p, j)).sum::<f64>()
                                    + if accumulate { 0.5 } else { 0.0 };
                                let got = to_f64(cv[i * rs + j * cs]);
                                assert!(
                                    (got - want).abs() <= tol * (1.0 + want.abs()),
                                    "{m}x{n}x{k} ({i}, {j}): {got} vs {want}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every tile shape: 4, 8 and 16 columns wide, whole and ragged, one to four rows (one to
    /// six in the intrinsics tiles), and the partial row blocks and column blocks at the
    /// edges; f32, f64 and f16 (accumulated in f32, rounded once).
    #[test]
    fn the_direct_path_matches_a_reference() {
        let shapes: &[(usize, usize, usize)] = if cfg!(miri) {
            &[(5, 7, 6), (3, 16, 2), (2, 3, 1)]
        } else {
            &[
                (5, 7, 6),
                (4, 4, 4),
                (3, 2, 5),
                (9, 16, 3),
                (6, 12, 1),
                (1, 8, 8),
                (7, 20, 2),
                (2, 64, 4),
                (16, 16, 16),
                (4, 33, 3),
                (13, 24, 5),
                // One tile, the widest (f32) and the first past it: the single-tile path
                // and the loops on each side of its bound.
                (4, 16, 5),
                (5, 16, 2),
                (4, 17, 2),
                // The intrinsics tiles (f32: 16 columns, f64: 8; up to 6 rows): whole
                // blocks, every partial row block, and generic columns after them.
                (6, 16, 4),
                (7, 32, 3),
                (12, 48, 5),
                (11, 8, 3),
                (13, 40, 7),
                (64, 64, 9),
                (10, 17, 0),
                // Empty C, and an empty sum (C = 0).
                (0, 4, 3),
                (3, 0, 2),
                (3, 5, 0),
            ]
        };
        for &(m, n, k) in shapes {
            check::<f32>(m, n, k, 1e-5);
            check::<f64>(m, n, k, 1e-12);
            check::<half::f16>(m, n, k, 2e-3);
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
