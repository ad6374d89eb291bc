//! Scans along one dim (cumulative sums and products) into a fresh tensor.
//!
//! The result is dense in the input's memory order ([`Layout::dense_like`]), so the scan dim
//! splits the other dims in two: those *outside* it in memory (larger output strides) index
//! independent *lines*, and those *inside* it form a *block* of output elements that is
//! contiguous in memory. Step `i` of the scan then computes a whole block at once from step
//! `i - 1`'s: `acc[j] = acc[j] (op) x[i, j]`, `out[i, j] = acc[j]`, a loop over `j` the compiler
//! vectorises (for `cumsum` along dim 0 of a row-major matrix: row `i` of the output is row
//! `i - 1` plus row `i` of the input, never a walk down one column).
//!
//! - **Block kernel** (the block has more than one element): each work unit takes one line
//!   and a chunk of at most [`CHUNK`] block elements, keeps their running values in a buffer
//!   of [`Numeric::Acc`] (which stays in L1) and walks the scan dim; input elements are read
//!   through their strides as runs along the innermost block dim.
//! - **Line kernel** (the scan dim is innermost in memory): each line is a sequential loop;
//!   four lines are scanned side by side, so four independent dependency chains overlap.
//!
//! Either way every output element is the left-to-right fold of its prefix, computed by one
//! thread in the same order whatever the number of threads: results are bit-identical for any
//! split. The running value is kept in [`Numeric::Acc`] and rounded once per output element,
//! so an `f16` cumulative sum accumulates in `f32` (integers wrap, as their `Acc` does).
//! The input is read in place through its strides (transposed, narrowed, flipped, expanded):
//! no operand copy.

use std::mem::MaybeUninit;

use crate::error::Result;
use crate::layout::{Layout, coalesce_joint};
use crate::scalar::Numeric;
use crate::storage::Storage;

use super::parallel::{SharedPtr, for_each_chunk, threads_for};
use super::unravel::{advance_offsets, unravel_offsets};

/// Most block elements one work unit of the block kernel keeps running values for.
const CHUNK: usize = 2048;
/// Fewest block elements per work unit when chunks are narrowed to feed threads.
const MIN_CHUNK: usize = 256;
/// Lines the line kernel scans side by side.
const LINES: usize = 4;

/// The loops of an op along one dim (a scan, a softmax, a moments reduction): the other dims
/// split into *lines* (outside the dim in memory) and a *block* (inside it), with
/// `[input, output]` strides per loop, outermost first. Shared by the scan, softmax and
/// moments kernels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DimPlan {
    /// Sizes of the line loops (coalesced; may be empty).
    pub(crate) outer: Vec<usize>,
    /// Their `[input, output]` strides.
    pub(crate) outer_strides: Vec<[isize; 2]>,
    /// Size of the dim.
    pub(crate) len: usize,
    /// `[input, output]` strides along the dim.
    pub(crate) step: [isize; 2],
    /// Sizes of the block loops (coalesced; may be empty).
    pub(crate) inner: Vec<usize>,
    /// Their `[input, output]` strides.
    pub(crate) inner_strides: Vec<[isize; 2]>,
}

impl DimPlan {
    /// Plans an op along `dim` over `shape`, reading through `input` strides and writing
    /// through `output` strides (0 along `dim` for a reduction). The other dims of size > 1
    /// are ordered by decreasing `|order[d]|` (the memory order to follow) and those above
    /// `|order[dim]|` become lines, the rest the block.
    pub(crate) fn new(
        shape: &[usize],
        dim: usize,
        input: &[isize],
        output: &[isize],
        order: &[isize],
    ) -> DimPlan {
        let key = |d: usize| order[d].unsigned_abs();
        let mut others: Vec<usize> = (0..shape.len())
            .filter(|&d| d != dim && shape[d] != 1)
            .collect();
        others.sort_by_key(|&d| std::cmp::Reverse(key(d)));
        let group = |dims: Vec<usize>| {
            let mut sh: Vec<usize> = dims.iter().map(|&d| shape[d]).collect();
            let mut st = [
                dims.iter().map(|&d| input[d]).collect::<Vec<_>>(),
                dims.iter().map(|&d| output[d]).collect::<Vec<_>>(),
            ];
            coalesce_joint(&mut sh, &mut st);
            let strides = (0..sh.len()).map(|k| [st[0][k], st[1][k]]).collect();
            (sh, strides)
        };
        let (outer_dims, inner_dims): (Vec<usize>, Vec<usize>) =
            others.into_iter().partition(|&d| key(d) > key(dim));
        let (outer, outer_strides) = group(outer_dims);
        let (inner, inner_strides) = group(inner_dims);
        DimPlan {
            outer,
            outer_strides,
            len: shape[dim],
            step: [input[dim], output[dim]],
            inner,
            inner_strides,
        }
    }

    /// Number of lines.
    pub(crate) fn lines(&self) -> usize {
        self.outer.iter().product()
    }

    /// Number of elements in the block.
    pub(crate) fn block(&self) -> usize {
        self.inner.iter().product()
    }

    /// `[input, output]` offsets of line `o`'s first element (`o < self.lines()`).
    pub(crate) fn line_base(&self, o: usize) -> [isize; 2] {
        unravel_offsets(o, &self.outer, &self.outer_strides).1
    }

    /// Block elements `range` as runs along the innermost block loop: `(input offset, output
    /// offset, length)` relative to a line's first element, and the runs' `[input, output]`
    /// strides. Needs a non-empty block and `range.end <= self.block()`.
    pub(crate) fn runs(
        &self,
        range: std::ops::Range<usize>,
    ) -> (Vec<(isize, isize, usize)>, [isize; 2]) {
        let last = self.inner.len() - 1;
        let (run_len, [ri, ro]) = (self.inner[last], self.inner_strides[last]);
        let (outer_sh, outer_st) = (&self.inner[..last], &self.inner_strides[..last]);
        let mut runs = Vec::new();
        let (mut index, mut off) = unravel_offsets(range.start / run_len, outer_sh, outer_st);
        let mut col = range.start % run_len;
        let mut pos = range.start;
        while pos < range.end {
            let n = (run_len - col).min(range.end - pos);
            let c = col as isize;
            runs.push((off[0] + c * ri, off[1] + c * ro, n));
            pos += n;
            col = 0;
            advance_offsets(&mut index, outer_sh, outer_st, &mut off);
        }
        (runs, [ri, ro])
    }

    /// The block's elements split into work-unit chunks: the chunk length, as long as
    /// `max` and at least `min` (unless the block is shorter), narrowed so that lines times
    /// chunks give each of `threads` threads a few units.
    pub(crate) fn chunk_len(&self, max: usize, min: usize, threads: usize) -> usize {
        let (block, lines) = (self.block(), self.lines());
        let mut chunk = block.min(max);
        let wanted = threads * 4;
        if threads > 1 && lines * block.div_ceil(chunk) < wanted {
            chunk = block.div_ceil(wanted.div_ceil(lines)).max(min).min(chunk);
        }
        chunk.max(1)
    }
}

/// Scans the elements `layout` addresses in `storage` along `dim` with `op` (the running
/// value first, the next element second, both in [`Numeric::Acc`]) into a fresh storage laid
/// out as `layout.dense_like()`.
///
/// # Errors
/// [`Error::Alloc`](crate::Error::Alloc) if the output cannot be allocated;
/// [`Error::Overflow`](crate::Error::Overflow) only for an empty layout whose other sizes
/// overflow row-major strides (see [`Layout::dense_like`]).
///
/// # Panics
/// If `layout` does not fit `storage` (the tensor invariant) or `dim >= layout.ndim()`.
pub(crate) fn scan<T, F>(
    storage: &Storage<T>,
    layout: &Layout,
    dim: usize,
    op: &F,
) -> Result<(Storage<T>, Layout)>
where
    T: Numeric,
    F: Fn(T::Acc, T::Acc) -> T::Acc + Sync,
{
    assert!(
        layout.fits_in(storage.len()),
        "scan: layout does not fit its storage"
    );
    assert!(dim < layout.ndim(), "scan: dim out of range");
    let out_layout = layout.dense_like()?;
    let n = out_layout.numel();
    let mut fresh = super::fresh::<T>("scan", out_layout.shape(), n)?;
    if n > 0 {
        let (shape, so) = (layout.shape(), out_layout.strides());
        let plan = DimPlan::new(shape, dim, layout.strides(), so, so);
        // SAFETY: the layout has elements, so its offset is an addressed element, in bounds by
        // the fit checked above (the Tensor invariant).
        let input = unsafe { storage.as_ptr().add(layout.offset()) };
        // SAFETY: the plan's input strides are `layout`'s, regrouped and coalesced, so every
        // offset it forms from `input` is addressed by `layout` (in bounds, initialized by
        // Storage invariant 3, no overflow by Layout invariant 3); its output strides are the
        // dense `out_layout`'s (offset 0), which address each of the `n` fresh elements
        // (Storage invariant 2) exactly once over the loops' ranges.
        unsafe { run(&plan, input, fresh.as_mut_ptr(), op) };
    }
    // SAFETY: Storage invariant 3 holds: every output index was written once by the kernels
    // (a dense layout's indices cover its storage), or there are no elements.
    Ok((unsafe { fresh.assume_init() }, out_layout))
}

/// Runs a plan with at least one element.
///
/// # Safety
/// As in [`scan`]: every offset the plan forms from `input` is an addressed, initialized
/// input element; those it forms from `out` are distinct elements of one fresh allocation.
unsafe fn run<T, F>(plan: &DimPlan, input: *const T, out: *mut T, op: &F)
where
    T: Numeric,
    F: Fn(T::Acc, T::Acc) -> T::Acc + Sync,
{
    let (n_outer, block) = (plan.lines(), plan.block());
    let threads = threads_for(n_outer * block * plan.len);
    let (input, out) = (SharedPtr(input), SharedPtr(out));
    if block == 1 {
        // Distinct lines write distinct output elements, so threads never share one.
        for_each_chunk(n_outer, threads, |range| {
            let mut o = range.start;
            while o < range.end {
                if range.end - o >= LINES {
                    let offs: [[isize; 2]; LINES] = std::array::from_fn(|k| plan.line_base(o + k));
                    // SAFETY: the lines' first elements are addressed (o + k < n_outer); from
                    // there the scan dim's strides stay inside the plan (contract).
                    unsafe {
                        lines(
                            plan,
                            offs.map(|b| input.get().offset(b[0])),
                            offs.map(|b| out.get().offset(b[1])),
                            op,
                        )
                    };
                    o += LINES;
                } else {
                    let b = plan.line_base(o);
                    // SAFETY: as above, for one line.
                    unsafe {
                        lines(
                            plan,
                            [input.get().offset(b[0])],
                            [out.get().offset(b[1])],
                            op,
                        )
                    };
                    o += 1;
                }
            }
        });
    } else {
        let chunk = plan.chunk_len(CHUNK, MIN_CHUNK, threads);
        let per_line = block.div_ceil(chunk);
        // Units (line, chunk) write disjoint output elements.
        for_each_chunk(n_outer * per_line, threads, |range| {
            let mut acc: Vec<T::Acc> = Vec::with_capacity(chunk);
            for u in range {
                let (o, c) = (u / per_line, u % per_line);
                let (j0, j1) = (c * chunk, ((c + 1) * chunk).min(block));
                let b = plan.line_base(o);
                // SAFETY: line `o < n_outer` and block elements `j0..j1 <= block` are in the
                // plan's ranges (contract).
                unsafe {
                    block_unit(
                        plan,
                        input.get().offset(b[0]),
                        out.get().offset(b[1]),
                        j0..j1,
                        &mut acc,
                        op,
                    )
                };
            }
        });
    }
}

/// Scans `M` lines side by side (the block is one element): line `k` starts at `xs[k]` and
/// `os[k]`, and steps by the plan's scan strides.
///
/// # Safety
/// For `i < plan.len`, `xs[k] + i * step[0]` is an initialized input element and
/// `os[k] + i * step[1]` a writable output element, distinct for distinct `(k, i)` and not
/// overlapping the input.
#[inline(always)]
unsafe fn lines<T, F, const M: usize>(plan: &DimPlan, xs: [*const T; M], os: [*mut T; M], op: &F)
where
    T: Numeric,
    F: Fn(T::Acc, T::Acc) -> T::Acc,
{
    let (len, [si, so]) = (plan.len, plan.step);
    if si == 1 && so == 1 {
        // SAFETY: contract: `len` contiguous input elements per line.
        let x = xs.map(|p| unsafe { std::slice::from_raw_parts(p, len) });
        // SAFETY: contract: `len` contiguous output elements per line, disjoint from each
        // other and from the input.
        let o =
            os.map(|p| unsafe { std::slice::from_raw_parts_mut(p.cast::<MaybeUninit<T>>(), len) });
        let mut acc: [T::Acc; M] = std::array::from_fn(|k| x[k][0].to_acc());
        for k in 0..M {
            o[k][0].write(T::from_acc(acc[k]));
        }
        for i in 1..len {
            for k in 0..M {
                acc[k] = op(acc[k], x[k][i].to_acc());
                o[k][i].write(T::from_acc(acc[k]));
            }
        }
    } else {
        // SAFETY (block): element `i < len` of each line, as the contract says.
        unsafe {
            let mut acc: [T::Acc; M] = std::array::from_fn(|k| xs[k].read().to_acc());
            for k in 0..M {
                os[k].write(T::from_acc(acc[k]));
            }
            for i in 1..len as isize {
                for k in 0..M {
                    acc[k] = op(acc[k], xs[k].offset(i * si).read().to_acc());
                    os[k].offset(i * so).write(T::from_acc(acc[k]));
                }
            }
        }
    }
}

/// Scans block elements `range` of one line, whose first elements are `x` and `o`, keeping
/// their running values in `acc`.
///
/// # Safety
/// Every offset the plan's scan and inner loops form from `x` (from `o`) for this range is an
/// initialized input element (a writable output element, each formed once, not overlapping
/// the input).
unsafe fn block_unit<T, F>(
    plan: &DimPlan,
    x: *const T,
    o: *mut T,
    range: std::ops::Range<usize>,
    acc: &mut Vec<T::Acc>,
    op: &F,
) where
    T: Numeric,
    F: Fn(T::Acc, T::Acc) -> T::Acc,
{
    let (runs, [ri, ro]) = plan.runs(range.clone());
    acc.clear();
    acc.resize(range.len(), T::zero().to_acc());
    let [si, so] = plan.step;
    for i in 0..plan.len as isize {
        let mut a = &mut acc[..];
        for &(in_off, out_off, n) in &runs {
            let (now, rest) = a.split_at_mut(n);
            a = rest;
            // SAFETY: step `i` of the run's `n` elements: addressed by the plan (contract).
            unsafe {
                let xr = x.offset(i * si + in_off);
                let or = o.offset(i * so + out_off);
                step_run(now, xr, ri, or, ro, i == 0, op);
            }
        }
    }
}

/// One scan step of one run: `acc[k] = acc[k] (op) x[k]` (or `x[k]` on the `first` step),
/// `o[k] = acc[k]`, for the `acc.len()` elements of the run.
///
/// # Safety
/// The run's `acc.len()` elements at `x` (stride `sx`) are initialized input elements; those at
/// `o` (stride `so`) are writable, distinct, and do not overlap the input.
#[inline(always)]
unsafe fn step_run<T, F>(
    acc: &mut [T::Acc],
    x: *const T,
    sx: isize,
    o: *mut T,
    so: isize,
    first: bool,
    op: &F,
) where
    T: Numeric,
    F: Fn(T::Acc, T::Acc) -> T::Acc,
{
    let n = acc.len();
    if sx == 1 && so == 1 {
        // SAFETY: contract: `n` contiguous elements each side, not overlapping.
        let (xs, os) = unsafe {
            (
                std::slice::from_raw_parts(x, n),
                std::slice::from_raw_parts_mut(o.cast::<MaybeUninit<T>>(), n),
            )
        };
        if first {
            for ((a, &v), w) in acc.iter_mut().zip(xs).zip(os) {
                *a = v.to_acc();
                w.write(T::from_acc(*a));
            }
        } else {
            for ((a, &v), w) in acc.iter_mut().zip(xs).zip(os) {
                *a = op(*a, v.to_acc());
                w.write(T::from_acc(*a));
            }
        }
    } else {
        for (k, a) in acc.iter_mut().enumerate() {
            let k = k as isize;
            // SAFETY: element `k < n` of the run on each side (contract).
            unsafe {
                let v = x.offset(k * sx).read().to_acc();
                *a = if first { v } else { op(*a, v) };
                o.offset(k * so).write(T::from_acc(*a));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cumsum(data: &[i64], layout: &Layout, dim: usize) -> (Vec<i64>, Layout) {
        let s = Storage::from_slice(data).unwrap();
        let (out, l) = scan(&s, layout, dim, &|a: i64, b: i64| a.wrapping_add(b)).unwrap();
        (out.as_slice().to_vec(), l)
    }

    #[test]
    fn plans_split_lines_scan_dim_and_block() {
        let plan = |l: &Layout, o: &Layout, dim| {
            DimPlan::new(l.shape(), dim, l.strides(), o.strides(), o.strides())
        };
        let m = Layout::contiguous(&[3, 4, 5]).unwrap();
        let p = plan(&m, &m, 1);
        assert_eq!((p.outer.clone(), p.inner.clone()), (vec![3], vec![5]));
        assert_eq!((p.len, p.step), (4, [5, 5]));
        let p = plan(&m, &m, 0);
        assert_eq!((p.outer.clone(), p.inner.clone()), (vec![], vec![20]));
        let p = plan(&m, &m, 2);
        assert_eq!((p.outer.clone(), p.inner.clone()), (vec![12], vec![]));
        // A transposed input: dim 0 is innermost in memory.
        let t = m.permute(&[2, 1, 0]).unwrap();
        let d = t.dense_like().unwrap();
        let p = plan(&t, &d, 0);
        assert_eq!((p.outer.clone(), p.inner.clone()), (vec![12], vec![]));
        assert_eq!(p.step, [1, 1]);
    }

    #[test]
    fn scans_rows_columns_and_strided_views() {
        let data: Vec<i64> = (1..=12).collect();
        let m = Layout::contiguous(&[3, 4]).unwrap();
        assert_eq!(
            cumsum(&data, &m, 0).0,
            vec![1, 2, 3, 4, 6, 8, 10, 12, 15, 18, 21, 24]
        );
        assert_eq!(
            cumsum(&data, &m, 1).0,
            vec![1, 3, 6, 10, 5, 11, 18, 26, 9, 19, 30, 42]
        );
        // Transposed [4, 3]: the output keeps the transposed order.
        let (out, l) = cumsum(&data, &m.t().unwrap(), 0);
        assert_eq!(l.strides(), &[1, 4]);
        assert_eq!(out, vec![1, 3, 6, 10, 5, 11, 18, 26, 9, 19, 30, 42]);
        // Flipped and stepped.
        let f = m.flip(1).unwrap().slice(1, 0, 4, 2).unwrap();
        let (out, l) = cumsum(&data, &f, 1);
        assert_eq!(l.shape(), &[3, 2]);
        assert_eq!(out, vec![4, 6, 8, 14, 12, 22]);
        // Expanded along the scan dim.
        // Expanded along the scan dim (the stride-0 dim is innermost in memory: dense_like).
        let e = Layout::new(&[4, 3], &[0, 1], 0).unwrap();
        let (out, l) = cumsum(&data, &e, 0);
        assert_eq!(l.strides(), &[1, 4]);
        assert_eq!(out, vec![1, 2, 3, 4, 2, 4, 6, 8, 3, 6, 9, 12]);
    }

    #[test]
    #[cfg_attr(miri, ignore = "132K elements and thread pools: too slow")]
    fn many_lines_and_long_blocks_in_parallel_match_serial() {
        let pool = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        };
        // Above the parallel threshold (2^17 elements).
        let data: Vec<f32> = (0..440 * 301).map(|i| (i % 17) as f32 * 0.1).collect();
        let s = Storage::from_slice(&data).unwrap();
        let m = Layout::contiguous(&[440, 301]).unwrap();
        for (dim, l) in [(0, m.clone()), (1, m.clone()), (0, m.t().unwrap())] {
            let add = |a: f32, b: f32| a + b;
            let one = pool(1).install(|| scan(&s, &l, dim, &add).unwrap().0);
            let four = pool(4).install(|| scan(&s, &l, dim, &add).unwrap().0);
            assert_eq!(one.as_slice(), four.as_slice());
        }
    }
}
