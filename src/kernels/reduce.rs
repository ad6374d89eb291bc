//! Executing a [`ReducePlan`]: blocked, pairwise, and in one canonical order.
//!
//! # Note [canonical order]
//!
//! A layout changes speed, never the answer. Each output element of a reduction is a function
//! of the logical values it reduces, combined in an order fixed by the number of reduced
//! elements `n` and the element type alone: not by strides, offset, flips, memory format,
//! alignment, the number or position of the other outputs, the thread count, the kernel path
//! that runs, or the CPU's SIMD features. The order:
//!
//! 1. Number the reduced elements by their logical position `i` in `0..n`: row-major over
//!    the reduced dims, in dim order (the plan's `index` operand; the plan runs the reduced
//!    loops in that order, `ReducePlan::new`).
//! 2. Leaves: positions `[512 j, 512 (j + 1))`. In a leaf, element `i` is folded into lane
//!    `i % 8`; each of the [`LANES`] lanes starts at the reducer's identity and folds its
//!    elements in increasing `i`. The lanes are then combined by one fixed tree: lane `k + w`
//!    into lane `k` for `w = 4, 2, 1` ([`combine_lanes`]).
//! 3. Leaves combine pairwise: the value of `[lo, hi)` longer than a leaf is
//!    `combine(value(lo, mid), value(mid, hi))` with `mid = lo + ⌈(hi - lo) / 2 / 512⌉ · 512`
//!    ([`tree`], [`row_tree`]).
//!
//! Every path reproduces exactly these operations: the inner kernel (lanes in registers,
//! runs that start mid-lane rotate into the right lane), the outer kernel (8 accumulator
//! rows, row `i` of a leaf into row `i % 8`, the same lane tree column by column), the small
//! direct path and the AVX2 row sums (`row_sums_avx2`), threads (whole outputs, or both
//! halves of a tree node joined in order), and the portable, AVX2 and AVX-512 builds of each
//! (the same IEEE operations; fused multiply-adds are written as `mul_add` on every path).
//! `tests/suite/invariance.rs` checks the bits across layouts, batch sizes, thread counts and
//! SIMD levels ([`crate::simd::set_max_simd_level`]).
//!
//! Why these numbers: 8 lanes fill one AVX2 register of `f32` (the `f32` accumulator of
//! `f16` / `bf16` too) and two of `f64`, so a contiguous row is one vector add per 8
//! elements, and four rows side by side ([`GROUP`]) hide the add's latency; 512-element
//! leaves keep the error bound of pairwise summation, roughly `(LEAF / LANES + log2 n) * eps`
//! instead of a running sum's `n * eps`. The order fixes what the kernels may do: a row sum
//! may not use 16 or 32 lanes where AVX-512 has room for them, and a reduction whose reduced
//! dims run against the memory order (`x.t()?.sum_all()`) reads its innermost loop strided.
//!
//! The same contract holds for matrix products (`crate::matmul`: one chain of fused
//! multiply-adds over `k` per element), softmax and variance (their modules say how), and
//! whole-tensor reductions of broadcast views (`Tensor::sum_all` folds every logical float
//! element). Integer sums and products wrap, and max, min and the arg-reductions pick the
//! same element in any order (NaN first, then the smallest position), so for them the order
//! is moot.
//!
//! # Kernel shapes
//!
//! Two, chosen by which loop the plan puts innermost ([`ReduceKind`]):
//!
//! - **Inner** (e.g. `sum` over dim 1 of a row-major matrix): each output element reduces its
//!   own set of input elements, read as runs along the innermost loop and folded into its
//!   [`LANES`] accumulators, which the compiler keeps in vector registers. [`GROUP`] output
//!   elements are reduced side by side, so their inputs stream in concurrently.
//! - **Outer** (e.g. `sum` over dim 0 of a row-major matrix): the innermost loop is kept, so
//!   whole input rows are added into rows of accumulators, one per output element and lane,
//!   vectorised along the row (never a strided walk down a column), four rows per pass.
//!
//! # Determinism across threads
//!
//! Threads either take whole output elements (or whole output columns) or evaluate both
//! halves of a tree node in parallel with `rayon::join`, which combines them in the same
//! order as the sequential code.

use crate::element::Element;
use crate::error::Result;
use crate::iter::{ReduceKind, ReducePlan, element_count};
use crate::layout::{Dims, Layout};
use crate::storage::Storage;

use super::dispatch::with_avx2;
use super::parallel::{PAR_MIN_ELEMS, SharedPtr, for_each_chunk, threads_for};
use super::reduce_order::{
    LANES, LEAF, Reduced, combine_lanes, fold_runs, kept_loops, split_point,
};
use super::reduce_outer::outer;
use super::reduce_staged;
use super::reducers::Reducer;
use super::unravel::{advance_offsets, unravel_offsets};

/// Reduces the elements `layout` addresses in `storage` as `plan` says (the plan must have
/// been built from `layout`), into a fresh storage laid out as `plan.out_layout`.
///
/// Reductions over zero elements give `finish(identity, 0)` for every output element.
///
/// # Errors
/// [`Error::Alloc`](crate::Error::Alloc) if the output cannot be allocated.
///
/// # Panics
/// If `layout` does not fit `storage` (the tensor invariant; checked before any access).
pub(crate) fn reduce<T: Element, R: Reducer<T>>(
    storage: &Storage<T>,
    layout: &Layout,
    plan: &ReducePlan,
    r: &R,
) -> Result<Storage<R::Out>> {
    assert!(
        layout.fits_in(storage.len()),
        "reduce: layout does not fit its storage"
    );
    let n_out = element_count(plan.out_layout.shape());
    let mut fresh = super::fresh::<R::Out>("reduction", plan.out_layout.shape(), n_out)?;
    let out = fresh.as_mut_ptr();
    if plan.count == 0 {
        let value = r.finish(r.identity(), 0);
        for i in 0..n_out {
            // SAFETY: i < n_out, the fresh allocation's length (Storage invariant 2).
            unsafe { out.add(i).write(value) };
        }
    } else if n_out > 0 {
        // SAFETY: the offset is an addressed element of `layout` (it has elements: count > 0
        // and n_out > 0), in bounds by the fit checked above (the Tensor invariant).
        let input = unsafe { storage.as_ptr().add(plan.input_offset) };
        // SAFETY: the plan's input strides are `layout`'s (reordered and coalesced), so every
        // offset it forms from `input` is addressed by `layout`: in bounds, initialized
        // (Storage invariant 3), and without overflow (Layout invariant 3). Its output strides
        // are the dense `out_layout`'s, which addresses each of the `n_out` fresh elements
        // (Storage invariant 2) exactly once as the kept loops run over their ranges.
        unsafe {
            match plan.kind() {
                ReduceKind::Inner => inner(plan, r, input, out),
                ReduceKind::Outer => outer(plan, r, input, out),
            }
        }
    }
    // SAFETY: Storage invariant 3 holds: every output element was written, by the fill loop
    // or once per kept index by the kernels (a dense layout's indices cover its storage).
    Ok(unsafe { fresh.assume_init() })
}

/// Output elements the inner kernel reduces side by side (their inputs are read as that many
/// concurrent streams, which keeps more memory requests in flight than one stream does).
pub(super) const GROUP: usize = 4;

/// The inner kernel; see the [module docs](self).
///
/// # Safety
/// `input` at the plan's offset and `out` at offset 0 satisfy the plan: every offset formed
/// from the plan's strides is in bounds (initialized for the input), and the output offsets of
/// distinct kept indices are distinct.
unsafe fn inner<T: Element, R: Reducer<T>>(
    plan: &ReducePlan,
    r: &R,
    input: *const T,
    out: *mut R::Out,
) {
    let nd = plan.shape.len();
    let (kept, reduced): (Vec<usize>, Vec<usize>) = (0..nd).partition(|&d| !plan.is_reduced(d));
    let (run_dim, outer_r) = reduced.split_last().expect("the innermost loop is reduced");
    let space = Reduced {
        shape: outer_r.iter().map(|&d| plan.shape[d]).collect(),
        strides: outer_r
            .iter()
            .map(|&d| [plan.input[d], plan.index[d]])
            .collect(),
        run: (
            plan.shape[*run_dim],
            plan.input[*run_dim],
            plan.index[*run_dim],
        ),
        len: reduced.iter().map(|&d| plan.shape[d]).product(),
    };
    let (k_shape, k_strides) = kept_loops(plan, &kept);
    let n_k: usize = k_shape.iter().product();
    let threads = threads_for(n_k.saturating_mul(space.len));
    // Reduced dims against the memory order: staged windows (one thread per output).
    let staged = reduce_staged::applies(&space);
    let (input, out) = (SharedPtr(input), SharedPtr(out));
    // Reduces output elements `range`, GROUP at a time. Each output's folds and tree are the
    // same whether it is reduced alone or in a group, so results do not depend on the split.
    let run = |range: std::ops::Range<usize>, par: bool| {
        // Kept indices are visited in order, so their offsets advance by an odometer step (a
        // division per dim only for the first).
        let (mut index, mut at) = unravel_offsets(range.start, &k_shape, &k_strides);
        let mut k = range.start;
        while k < range.end {
            // Each `k` below `n_k` is a kept index, so its offsets are addressed input and
            // output offsets, and each output element is written by its own `k` only.
            if staged {
                let o = at;
                advance_offsets(&mut index, &k_shape, &k_strides, &mut at);
                // SAFETY: as for a group below, for one kept index; `applies` holds.
                let acc = unsafe { reduce_staged::reduce_one(r, &space, input.get().offset(o[0])) };
                // SAFETY: as for a group.
                unsafe { out.get().offset(o[1]).write(r.finish(acc, space.len)) };
                k += 1;
                continue;
            }
            let m = if range.end - k >= GROUP && !par {
                GROUP
            } else {
                1
            };
            if m == GROUP {
                let mut offs = [[0isize; 2]; GROUP];
                for o in &mut offs {
                    *o = at;
                    advance_offsets(&mut index, &k_shape, &k_strides, &mut at);
                }
                // SAFETY: addressed input offsets (above).
                let bases = offs.map(|o| unsafe { input.get().offset(o[0]) });
                // SAFETY: each base is the first input element of a kept index, from which
                // the reduced loops address only input elements (the plan is the layout's).
                let accs = unsafe { tree(r, &space, bases, 0, space.len, false) };
                for (o, acc) in offs.iter().zip(accs) {
                    // SAFETY: the output element of a kept index, written once (above).
                    unsafe { out.get().offset(o[1]).write(r.finish(acc, space.len)) };
                }
            } else {
                let o = at;
                advance_offsets(&mut index, &k_shape, &k_strides, &mut at);
                // SAFETY: as for a group, for one kept index.
                let [acc] =
                    unsafe { tree(r, &space, [input.get().offset(o[0])], 0, space.len, par) };
                // SAFETY: as for a group.
                unsafe { out.get().offset(o[1]).write(r.finish(acc, space.len)) };
            }
            k += m;
        }
    };
    if threads > 1 && n_k >= threads {
        for_each_chunk(n_k, threads, |range| run(range, false));
    } else {
        run(0..n_k, threads > 1);
    }
}

/// Pairwise reduction of reduced elements `lo..hi` (row-major over the reduced loops) of `M`
/// output elements at once, whose first input elements are at `bases`.
///
/// # Safety
/// Every element of `space` from each base is in bounds and initialized.
pub(super) unsafe fn tree<T: Element, R: Reducer<T>, const M: usize>(
    r: &R,
    space: &Reduced,
    bases: [*const T; M],
    lo: usize,
    hi: usize,
    par: bool,
) -> [R::Acc; M] {
    if hi - lo <= LEAF {
        // SAFETY: forwarded.
        return unsafe { leaf(r, space, bases, lo, hi) };
    }
    let mid = split_point(lo, hi);
    let (left, right) = if par && hi - lo >= PAR_MIN_ELEMS {
        let b = SharedPtr(bases);
        super::parallel::join(
            // SAFETY: forwarded; both halves only read.
            || unsafe { tree(r, space, b.get(), lo, mid, par) },
            // SAFETY: as for the left half.
            || unsafe { tree(r, space, b.get(), mid, hi, par) },
        )
    } else {
        // SAFETY: forwarded.
        unsafe {
            (
                tree(r, space, bases, lo, mid, par),
                tree(r, space, bases, mid, hi, par),
            )
        }
    };
    std::array::from_fn(|m| r.combine(left[m], right[m]))
}

/// Folds reduced elements `lo..hi` of each of the `M` outputs into [`LANES`] accumulators per
/// output, then combines each output's lanes pairwise.
///
/// # Safety
/// As [`tree`].
unsafe fn leaf<T: Element, R: Reducer<T>, const M: usize>(
    r: &R,
    space: &Reduced,
    bases: [*const T; M],
    lo: usize,
    hi: usize,
) -> [R::Acc; M] {
    // Compiled for AVX2 where the CPU has it: the lanes fill whole vector registers, and the
    // folds are the same IEEE operations in the same order (kernels::dispatch).
    with_avx2(|| {
        let (run_len, run_in, run_idx) = space.run;
        let mut lanes = [[r.identity(); LANES]; M];
        // One run (no outer reduced loops, the common case) needs no division.
        let (mut index, mut off, mut col) = if space.shape.is_empty() {
            (Dims::zeroed(0), [0, 0], lo)
        } else {
            let (index, off) = unravel_offsets(lo / run_len, &space.shape, &space.strides);
            (index, off, lo % run_len)
        };
        let mut pos = lo;
        while pos < hi {
            let len = (run_len - col).min(hi - pos);
            let start = off[0] + col as isize * run_in;
            let first_index = (off[1] + col as isize * run_idx) as usize;
            // SAFETY: the run's elements are reduced elements of each output (contract).
            let runs = bases.map(|b| unsafe { b.offset(start) });
            let lane = pos % LANES;
            unsafe { fold_runs(r, &mut lanes, runs, run_in, len, first_index, run_idx, lane) };
            pos += len;
            col = 0;
            advance_offsets(&mut index, &space.shape, &space.strides, &mut off);
        }
        lanes.map(|l| combine_lanes(r, l))
    })
}

/// Longest row [`reduce_rows`] takes: a row that is one leaf of the inner kernel's tree.
pub(super) const ROW_LEAF: usize = LEAF;

/// Reduces each of `rows` contiguous rows of `len` elements, row `i` starting at
/// `input + i * len`, into `out[i]`: what the inner kernel computes for a plan whose reduced
/// loop is one run of `len` unit-stride elements (`tree` over `Reduced { run: (len, 1, 1) }`),
/// bit for bit, without its per-group set-up. Each row is folded into its own [`LANES`]
/// accumulators, element `j` into lane `j % LANES`, then [`combine_lanes`]; four rows are
/// folded side by side, each in named accumulators of its own, so the compiler gives every
/// row whole vector registers (a `[[_; LANES]; 4]` array was split into halves and reloaded
/// through the stack).
///
/// # Safety
/// `1 <= len <= ROW_LEAF`; the `rows * len` elements from `input` are readable and
/// initialized, and `out` is valid for `rows` writes.
pub(super) unsafe fn reduce_rows<T: Element, R: Reducer<T>>(
    r: &R,
    input: *const T,
    len: usize,
    rows: usize,
    out: *mut R::Out,
) {
    debug_assert!((1..=ROW_LEAF).contains(&len));
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if R::ADDS && super::dispatch::has_avx2_fma() {
        use super::row_sums_avx2::{row_sums_f32, row_sums_f64};
        use std::any::TypeId;
        let (t, acc) = (TypeId::of::<T>(), TypeId::of::<R::Acc>());
        // SAFETY: `T` and `R::Acc` are both `f32` (or both `f64`, below) by the `TypeId`
        // tests, so the casts and `transmute_copy` are identities; the CPU has AVX2 and FMA;
        // the rows are readable and `out` takes `rows` writes (contract). With `R::ADDS` the
        // intrinsics' additions are `r`'s folds and combines, in the same order.
        unsafe {
            let put = |i: usize, acc: R::Acc| out.add(i).write(r.finish(acc, len));
            if t == TypeId::of::<f32>() && acc == t {
                row_sums_f32(input.cast(), len, rows, |i, s| {
                    put(i, std::mem::transmute_copy(&s))
                });
                return;
            }
            if t == TypeId::of::<f64>() && acc == t {
                row_sums_f64(input.cast(), len, rows, |i, s| {
                    put(i, std::mem::transmute_copy(&s))
                });
                return;
            }
        }
    }
    let full = len - len % LANES;
    // Folds `x` (`len` elements) into `acc` from element `from`, lane `j % LANES` each.
    #[inline(always)]
    fn fold_row<T: Element, R: Reducer<T>>(r: &R, acc: &mut [R::Acc; LANES], x: &[T], from: usize) {
        for (k, &v) in x[from..].iter().enumerate() {
            acc[k] = r.fold(acc[k], v, from + k);
        }
    }
    #[inline(always)]
    fn fold8<T: Element, R: Reducer<T>>(
        r: &R,
        a: [R::Acc; LANES],
        c: [T; LANES],
        j: usize,
    ) -> [R::Acc; LANES] {
        std::array::from_fn(|k| r.fold(a[k], c[k], j + k))
    }
    // Compiled for AVX2 where the CPU has it; the same operations in the same order either
    // way (kernels::dispatch).
    with_avx2(|| {
        // SAFETY: row `i < rows` is `len` readable, initialized elements (contract).
        let row = |i: usize| unsafe { std::slice::from_raw_parts(input.add(i * len), len) };
        let mut i = 0;
        while rows - i >= GROUP {
            let (x0, x1, x2, x3) = (row(i), row(i + 1), row(i + 2), row(i + 3));
            let (mut a0, mut a1, mut a2, mut a3) = (
                [r.identity(); LANES],
                [r.identity(); LANES],
                [r.identity(); LANES],
                [r.identity(); LANES],
            );
            for j in (0..full).step_by(LANES) {
                let chunk = |x: &[T]| -> [T; LANES] { x[j..j + LANES].try_into().expect("LANES") };
                let (c0, c1, c2, c3) = (chunk(x0), chunk(x1), chunk(x2), chunk(x3));
                a0 = fold8(r, a0, c0, j);
                a1 = fold8(r, a1, c1, j);
                a2 = fold8(r, a2, c2, j);
                a3 = fold8(r, a3, c3, j);
            }
            fold_row(r, &mut a0, x0, full);
            fold_row(r, &mut a1, x1, full);
            fold_row(r, &mut a2, x2, full);
            fold_row(r, &mut a3, x3, full);
            for (k, a) in [a0, a1, a2, a3].into_iter().enumerate() {
                // SAFETY: `i + k < rows` (contract).
                unsafe { out.add(i + k).write(r.finish(combine_lanes(r, a), len)) };
            }
            i += GROUP;
        }
        while i < rows {
            let x = row(i);
            let mut a = [r.identity(); LANES];
            for j in (0..full).step_by(LANES) {
                for k in 0..LANES {
                    a[k] = r.fold(a[k], x[j + k], j + k);
                }
            }
            fold_row(r, &mut a, x, full);
            // SAFETY: `i < rows` (contract).
            unsafe { out.add(i).write(r.finish(combine_lanes(r, a), len)) };
            i += 1;
        }
    });
}
