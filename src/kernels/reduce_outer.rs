//! The outer reduction kernel: the innermost loop is kept (e.g. `sum` over dim 0 of a
//! row-major matrix), so whole input rows are added into rows of accumulators, one per output
//! element and lane, vectorised along the row (never a strided walk down a column), in the
//! canonical order (Note [canonical order] in `reduce.rs`): row `i` of a leaf of 512 rows into
//! accumulator row `i % 8`, the lanes combined by the fixed tree, leaves pairwise.

use crate::element::Element;
use crate::iter::ReducePlan;

use super::dispatch::with_avx2;
use super::parallel::{PAR_MIN_ELEMS, SharedPtr, for_each_chunk, threads_for};
use super::reduce_order::{LANES, LEAF, kept_loops, split_point};
use super::reducers::Reducer;
use super::unravel::{advance_offsets, unravel_offsets};

/// Bytes of accumulators ([`LANES`] rows of them) per panel of output columns in the outer
/// kernel: a panel of 4096 `f32` columns, so that each input row is read in long runs; the
/// accumulators sit in L2, touched once per four rows each.
const PANEL_BYTES: usize = 128 << 10;
/// Narrowest panel the outer kernel splits columns into for threads.
const MIN_PANEL: usize = 64;

/// The reduced loops of a plan in the outer kernel: each index is one input row.
pub(super) struct Rows<'a> {
    /// Sizes of the reduced loops.
    pub(super) shape: &'a [usize],
    /// `[input, index]` strides.
    pub(super) strides: &'a [[isize; 2]],
    /// Input stride along a row (the innermost, kept loop).
    pub(super) stride: isize,
}

/// The outer kernel; see the [module docs](self).
///
/// # Safety
/// As the inner kernel (`reduce.rs`): `input` at the plan's offset and `out` at offset 0
/// satisfy the plan.
pub(super) unsafe fn outer<T: Element, R: Reducer<T>>(
    plan: &ReducePlan,
    r: &R,
    input: *const T,
    out: *mut R::Out,
) {
    let nd = plan.shape.len();
    let w_dim = nd - 1;
    let width = plan.shape[w_dim];
    let (reduced, kept): (Vec<usize>, Vec<usize>) = (0..w_dim).partition(|&d| plan.is_reduced(d));
    let rows_shape: Vec<usize> = reduced.iter().map(|&d| plan.shape[d]).collect();
    let rows_strides: Vec<[isize; 2]> = reduced
        .iter()
        .map(|&d| [plan.input[d], plan.index[d]])
        .collect();
    let rows = Rows {
        shape: &rows_shape,
        strides: &rows_strides,
        stride: plan.input[w_dim],
    };
    let n_rows: usize = rows.shape.iter().product();
    let (k_shape, k_strides) = kept_loops(plan, &kept);
    let n_k: usize = k_shape.iter().product();
    let threads = threads_for(n_k.saturating_mul(n_rows).saturating_mul(width));
    let lane_bytes = std::mem::size_of::<R::Acc>().max(1) * LANES;
    let mut panel = width.min((PANEL_BYTES / lane_bytes).max(1));
    // Too few units for the threads: split the rows' tree across them if it is deep enough
    // (whole rows stay sequential streams), else narrow the panels.
    let split_rows = threads > 1 && n_k * width.div_ceil(panel) < threads;
    if split_rows && n_rows <= 4 * LEAF {
        panel = panel.min(width.div_ceil(threads).max(MIN_PANEL));
    }
    let panels = width.div_ceil(panel);
    let units = n_k * panels;
    let (w_in, w_out) = (plan.input[w_dim], plan.output[w_dim]);
    let (input, out) = (SharedPtr(input), SharedPtr(out));
    let run_units = |range: std::ops::Range<usize>, par: bool| {
        let mut acc: Vec<R::Acc> = Vec::with_capacity(panel);
        let mut scratch = RowScratch::new();
        for u in range {
            let (k, p) = (u / panels, u % panels);
            let (w0, w1) = (p * panel, ((p + 1) * panel).min(width));
            let (_, off) = unravel_offsets(k, &k_shape, &k_strides);
            acc.clear();
            acc.resize(w1 - w0, r.identity());
            // SAFETY: kept index `k` and columns `w0..w1` are in range, so the offsets are
            // addressed; this unit writes only its own output elements (distinct per unit).
            unsafe {
                let base = input.get().offset(off[0] + w0 as isize * w_in);
                row_tree(r, &rows, base, 0, n_rows, &mut acc, &mut scratch, par);
                let o = out.get().offset(off[1] + w0 as isize * w_out);
                for (w, &a) in acc.iter().enumerate() {
                    o.offset(w as isize * w_out).write(r.finish(a, n_rows));
                }
            }
        }
    };
    if threads > 1 && units >= threads {
        for_each_chunk(units, threads, |range| run_units(range, false));
    } else {
        run_units(0..units, threads > 1);
    }
}

/// Buffers [`row_tree`] reuses across calls: the [`LANES`] accumulator rows of a leaf, and the
/// right halves of tree nodes.
pub(super) struct RowScratch<A> {
    lanes: Vec<A>,
    stack: Vec<Vec<A>>,
}

impl<A> RowScratch<A> {
    /// Empty buffers (they grow on first use).
    pub(super) fn new() -> Self {
        RowScratch {
            lanes: Vec::new(),
            stack: Vec::new(),
        }
    }
}

/// Pairwise reduction of rows `lo..hi` into `acc` (one accumulator per column): leaves of at
/// most [`LEAF`] rows, split at multiples of [`LEAF`] as the inner kernel's `tree` splits
/// elements, so each column is folded in the canonical order (Note [canonical order]).
///
/// # Safety
/// `acc.len()` columns of every row of `rows` from `base` are in bounds and initialized.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn row_tree<T: Element, R: Reducer<T>>(
    r: &R,
    rows: &Rows,
    base: *const T,
    lo: usize,
    hi: usize,
    acc: &mut [R::Acc],
    scratch: &mut RowScratch<R::Acc>,
    par: bool,
) {
    if hi - lo <= LEAF {
        // SAFETY: forwarded.
        unsafe { leaf_rows(r, rows, base, lo, hi, acc, &mut scratch.lanes) };
        return;
    }
    let mid = split_point(lo, hi);
    let width = acc.len();
    let right = if par && (hi - lo).saturating_mul(width) >= PAR_MIN_ELEMS {
        let b = SharedPtr(base);
        let (_, right) = super::parallel::join(
            // SAFETY: forwarded; both halves only read the input.
            || unsafe { row_tree(r, rows, b.get(), lo, mid, acc, scratch, par) },
            || {
                let mut tmp = vec![r.identity(); width];
                let mut own = RowScratch::new();
                // SAFETY: forwarded.
                unsafe { row_tree(r, rows, b.get(), mid, hi, &mut tmp, &mut own, par) };
                tmp
            },
        );
        right
    } else {
        // SAFETY: forwarded.
        unsafe { row_tree(r, rows, base, lo, mid, acc, scratch, par) };
        let mut tmp = scratch.stack.pop().unwrap_or_default();
        tmp.resize(width, r.identity());
        // SAFETY: forwarded.
        unsafe { row_tree(r, rows, base, mid, hi, &mut tmp, scratch, par) };
        tmp
    };
    for (a, &b) in acc.iter_mut().zip(&right) {
        *a = r.combine(*a, b);
    }
    scratch.stack.push(right);
}

/// One leaf of [`row_tree`]: row `lo + i` is folded into accumulator row (lane) `i % LANES`,
/// each lane in row order, and the lanes are combined as `combine_lanes` combines the inner
/// kernel's: every column gets the bits the inner kernel gives the same values in a run.
///
/// Rows are read in blocks of `4 * LANES`: lane `k` folds rows `k`, `k + 8`, `k + 16` and
/// `k + 24` of the block in one pass over its accumulators, so each input row is read once,
/// in a window of 32 consecutive rows, with one load and store of the accumulators per four
/// rows.
///
/// # Safety
/// As [`row_tree`].
unsafe fn leaf_rows<T: Element, R: Reducer<T>>(
    r: &R,
    rows: &Rows,
    base: *const T,
    lo: usize,
    hi: usize,
    acc: &mut [R::Acc],
    lanes: &mut Vec<R::Acc>,
) {
    // SAFETY: forwarded.
    let done = unsafe { leaf_strips_avx2(r, rows, base, lo, hi, acc, lanes) };
    if done > 0 {
        if done < acc.len() {
            // SAFETY: forwarded: columns `done..` of the same rows.
            unsafe { leaf_rows(r, rows, base.add(done), lo, hi, &mut acc[done..], lanes) };
        }
        return;
    }
    // Compiled for AVX2 where the CPU has it, as in `leaf`.
    with_avx2(|| {
        let width = acc.len();
        lanes.clear();
        lanes.resize(LANES * width, r.identity());
        let (mut index, mut off) = unravel_offsets(lo, rows.shape, rows.strides);
        let mut block = [(0isize, 0usize); 4 * LANES];
        let mut start = lo;
        while start < hi {
            let n = (hi - start).min(4 * LANES);
            for slot in block.iter_mut().take(n) {
                *slot = (off[0], off[1] as usize);
                advance_offsets(&mut index, rows.shape, rows.strides, &mut off);
            }
            for (k, lane) in lanes.chunks_exact_mut(width).enumerate() {
                let mine = [k, k + LANES, k + 2 * LANES, k + 3 * LANES];
                if n == 4 * LANES {
                    let q = mine.map(|i| block[i]);
                    // SAFETY: the block's rows are rows `start..start + n` of the leaf,
                    // addressed rows (contract).
                    unsafe { fold_rows4(r, lane, base, &q, rows.stride) };
                } else {
                    for &(o, index) in mine.iter().filter(|&&i| i < n).map(|&i| &block[i]) {
                        // SAFETY: as above.
                        unsafe { fold_row(r, lane, base.offset(o), rows.stride, index) };
                    }
                }
            }
            start += n;
        }
        // Lane `k + w` into lane `k` for w = 4, 2, 1, column by column.
        let mut w = LANES;
        while w > 1 {
            w /= 2;
            let (low, high) = lanes.split_at_mut(w * width);
            for (a, &b) in low.iter_mut().zip(&high[..w * width]) {
                *a = r.combine(*a, b);
            }
        }
        acc.copy_from_slice(&lanes[..width]);
    });
}

/// [`leaf_rows`] in AVX2 intrinsics (`col_sums_avx2.rs`) for sums of contiguous `f32` or
/// `f64` rows, where the CPU has AVX2 and FMA and [`crate::simd`] allows them: the same
/// additions in the same order, each lane taking eight of its rows per pass (the lanes in
/// `lanes`, in L1). Returns the number of leading columns it summed into `acc` (a multiple of
/// one register's width), 0 where it does not apply.
///
/// # Safety
/// As [`row_tree`].
#[allow(unused_variables)]
unsafe fn leaf_strips_avx2<T: Element, R: Reducer<T>>(
    r: &R,
    rows: &Rows,
    base: *const T,
    lo: usize,
    hi: usize,
    acc: &mut [R::Acc],
    lanes: &mut Vec<R::Acc>,
) -> usize {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if R::ADDS && rows.stride == 1 && super::dispatch::has_avx2_fma() {
        use super::col_sums_avx2::{col_sums_f32, col_sums_f64};
        use std::any::TypeId;
        let (t, a) = (TypeId::of::<T>(), TypeId::of::<R::Acc>());
        let width = acc.len();
        let strip = if t == TypeId::of::<f32>() && a == t {
            8
        } else if t == TypeId::of::<f64>() && a == t {
            4
        } else {
            return 0;
        };
        let full = width - width % strip;
        if full == 0 {
            return 0;
        }
        let mut starts = [0isize; LEAF];
        if let [[step, _]] = *rows.strides {
            // One reduced dim (the common case): row `i` at `i * step`.
            for (i, slot) in (lo..hi).zip(starts.iter_mut()) {
                *slot = i as isize * step;
            }
        } else {
            let (mut index, mut off) = unravel_offsets(lo, rows.shape, rows.strides);
            for slot in starts.iter_mut().take(hi - lo) {
                *slot = off[0];
                advance_offsets(&mut index, rows.shape, rows.strides, &mut off);
            }
        }
        let starts = &starts[..hi - lo];
        // SAFETY: `T` and `R::Acc` are both `f32` (or both `f64`) by the `TypeId` tests, so
        // the casts are identities; the CPU has AVX2 and FMA (just checked); the rows'
        // first `width` elements are readable (contract) and `acc` takes `width` writes.
        // With `R::ADDS` the intrinsics' additions are `r`'s folds and combines, in the same
        // order, from the same zero identity.
        unsafe {
            lanes.clear();
            lanes.resize(LANES * width, r.identity());
            let (out, l, len) = (acc.as_mut_ptr(), lanes.as_mut_ptr(), lanes.len());
            if strip == 8 {
                let l = std::slice::from_raw_parts_mut(l.cast::<f32>(), len);
                col_sums_f32(base.cast(), starts, width, l, out.cast());
            } else {
                let l = std::slice::from_raw_parts_mut(l.cast::<f64>(), len);
                col_sums_f64(base.cast(), starts, width, l, out.cast());
            }
        }
        return full;
    }
    0
}

/// Folds four rows (`(offset from base, position)`) into `acc` in order, column by column:
/// the same folds as four [`fold_row`] calls, in one pass.
///
/// # Safety
/// As [`fold_row`], for each row.
#[inline(always)]
unsafe fn fold_rows4<T: Element, R: Reducer<T>>(
    r: &R,
    acc: &mut [R::Acc],
    base: *const T,
    q: &[(isize, usize)],
    stride: isize,
) {
    let n = acc.len();
    if stride == 1 {
        // SAFETY: contract: `n` contiguous initialized elements per row.
        let [x0, x1, x2, x3] =
            [0, 1, 2, 3].map(|k| unsafe { std::slice::from_raw_parts(base.offset(q[k].0), n) });
        for ((((a, &v0), &v1), &v2), &v3) in acc.iter_mut().zip(x0).zip(x1).zip(x2).zip(x3) {
            let t = r.fold(r.fold(*a, v0, q[0].1), v1, q[1].1);
            *a = r.fold(r.fold(t, v2, q[2].1), v3, q[3].1);
        }
    } else {
        for &(o, index) in q {
            // SAFETY: forwarded.
            unsafe { fold_row(r, acc, base.offset(o), stride, index) };
        }
    }
}

/// Folds one row (`acc.len()` elements at `p`, stride `stride`) into `acc`, column by column.
///
/// # Safety
/// The row's elements must be readable and initialized.
#[inline(always)]
unsafe fn fold_row<T: Element, R: Reducer<T>>(
    r: &R,
    acc: &mut [R::Acc],
    p: *const T,
    stride: isize,
    index: usize,
) {
    if stride == 1 {
        // SAFETY: contract: `acc.len()` contiguous initialized elements.
        let xs = unsafe { std::slice::from_raw_parts(p, acc.len()) };
        for (a, &x) in acc.iter_mut().zip(xs) {
            *a = r.fold(*a, x, index);
        }
    } else {
        for (w, a) in acc.iter_mut().enumerate() {
            // SAFETY: contract: column `w < acc.len()`.
            let x = unsafe { p.offset(w as isize * stride).read() };
            *a = r.fold(*a, x, index);
        }
    }
}
