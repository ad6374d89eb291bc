//! Ops that work line by line along one dim (sort, topk, roll, diff, tril): where each line
//! of the input starts, and a fresh output filled line after line, in parallel over lines.
//!
//! An input is read in place through its strides ([`LineWalk`]: the line's first offset, then
//! `step` apart), never copied whole. The output is written as whole lines, one after the
//! other ([`fresh_by_lines`]); the caller gives it the layout that puts those lines back in
//! their dims (the line dim innermost in memory, the others in row-major order). A line is
//! always written by one thread, in the same order, so results never depend on the split.

use std::mem::MaybeUninit;

use crate::element::Element;
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::Storage;

use super::parallel::{par_chunks_mut, threads_for};
use super::unravel::unravel_offsets;

/// The lines of a layout along one dim: every multi-index of the other dims (in row-major
/// order) starts a line of `len` elements, `step` apart in storage.
#[derive(Debug, Clone)]
pub(crate) struct LineWalk {
    /// Sizes of the other dims, in order.
    others: Vec<usize>,
    /// Their strides.
    strides: Vec<[isize; 1]>,
    /// The layout's offset.
    offset: usize,
    /// Elements per line (the dim's size).
    pub(crate) len: usize,
    /// Stride along the line.
    pub(crate) step: isize,
}

impl LineWalk {
    /// The lines of `layout` along `dim` (`dim < layout.ndim()`).
    pub(crate) fn new(layout: &Layout, dim: usize) -> LineWalk {
        let (shape, strides) = (layout.shape(), layout.strides());
        let others = (0..shape.len()).filter(|&d| d != dim);
        LineWalk {
            others: others.clone().map(|d| shape[d]).collect(),
            strides: others.map(|d| [strides[d]]).collect(),
            offset: layout.offset(),
            len: shape[dim],
            step: strides[dim],
        }
    }

    /// Number of lines (the product of the other sizes).
    pub(crate) fn lines(&self) -> usize {
        self.others.iter().product()
    }

    /// Storage offset of element `i` (in range) of the line whose [`LineWalk::base`] is
    /// `base`: for a layout that fits its storage an addressed offset, so in bounds and
    /// without overflow.
    #[inline]
    pub(crate) fn at(&self, base: isize, i: usize) -> usize {
        (base + i as isize * self.step) as usize
    }

    /// Storage offset of line `line`'s first element, as a signed base for [`LineWalk::at`].
    pub(crate) fn base(&self, line: usize) -> isize {
        self.offset as isize + unravel_offsets(line, &self.others, &self.strides).1[0]
    }

    /// Elements `range` of the line at `base` pushed to `out`, in order.
    #[inline]
    pub(crate) fn push_range<T: Copy>(
        &self,
        data: &[T],
        base: isize,
        range: std::ops::Range<usize>,
        out: &mut LineOut<'_, T>,
    ) {
        if self.step == 1 {
            let start = (base + range.start as isize) as usize;
            out.extend_from_slice(&data[start..start + range.len()]);
        } else {
            for i in range {
                out.push(data[self.at(base, i)]);
            }
        }
    }

    /// Line `line`'s elements read from `data` into `out` (cleared first), in order.
    pub(crate) fn gather<T: Copy>(&self, data: &[T], line: usize, out: &mut Vec<T>) {
        out.clear();
        let base = self.base(line);
        if self.step == 1 {
            let start = base as usize;
            out.extend_from_slice(&data[start..start + self.len]);
        } else {
            out.extend((0..self.len).map(|i| data[self.at(base, i)]));
        }
    }
}

/// The output line being written by a [`fresh_by_lines`] fill: elements are pushed in order
/// and the helper checks that the line is full before the storage is trusted.
pub(crate) struct LineOut<'a, T> {
    out: &'a mut [MaybeUninit<T>],
    filled: usize,
}

impl<'a, T: Copy> LineOut<'a, T> {
    /// An empty line writing into `out`.
    fn new(out: &'a mut [MaybeUninit<T>]) -> Self {
        LineOut { out, filled: 0 }
    }

    /// Panics unless the line is full (every element of it written).
    fn check_full(&self, op: &str) {
        assert_eq!(self.filled, self.out.len(), "{op}: a line was not filled");
    }

    /// Appends one element. Panics past the end of the line.
    #[inline]
    pub(crate) fn push(&mut self, value: T) {
        self.out[self.filled].write(value);
        self.filled += 1;
    }

    /// Appends `values`. Panics past the end of the line.
    #[inline]
    pub(crate) fn extend_from_slice(&mut self, values: &[T]) {
        let dst = &mut self.out[self.filled..self.filled + values.len()];
        for (d, &v) in dst.iter_mut().zip(values) {
            d.write(v);
        }
        self.filled += values.len();
    }

    /// Appends `n` copies of `value`. Panics past the end of the line.
    #[inline]
    pub(crate) fn fill(&mut self, value: T, n: usize) {
        for d in &mut self.out[self.filled..self.filled + n] {
            d.write(value);
        }
        self.filled += n;
    }
}

/// Fewest lines a parallel work unit takes.
const MIN_UNIT_ELEMS: usize = 1 << 14;

/// A fresh storage of `lines * line_len` elements for the result of `op` (shape `shape`,
/// for the overflow message), line `l` filled by `fill(l, out)`, which must push exactly
/// `line_len` elements. Lines are split across threads when there are many elements; each
/// is filled by one call, so the result does not depend on the split.
///
/// # Errors
/// [`Error::Overflow`](crate::Error::Overflow) or [`Error::Alloc`](crate::Error::Alloc) for
/// the output.
///
/// # Panics
/// If a fill pushes more or fewer than `line_len` elements (a bug in the caller).
pub(crate) fn fresh_by_lines<T, F>(
    op: &'static str,
    shape: &[usize],
    lines: usize,
    line_len: usize,
    work_per_elem: usize,
    fill: F,
) -> Result<Storage<T>>
where
    T: Element,
    F: Fn(usize, &mut LineOut<'_, T>) + Sync + Send,
{
    let n = lines * line_len;
    let mut fresh = super::fresh::<T>(op, shape, n)?;
    if n > 0 {
        // SAFETY: `fresh` owns `n` elements of memory at this pointer (Storage invariant 2),
        // borrowed mutably for this slice's lifetime only; `MaybeUninit` makes no claim that
        // they are initialized.
        let out = unsafe {
            std::slice::from_raw_parts_mut(fresh.as_mut_ptr().cast::<MaybeUninit<T>>(), n)
        };
        let run = |first: usize, chunk: &mut [MaybeUninit<T>]| {
            for (k, line) in chunk.chunks_mut(line_len).enumerate() {
                let mut w = LineOut::new(line);
                fill(first + k, &mut w);
                w.check_full(op);
            }
        };
        match lines_per_unit(lines, line_len, work_per_elem) {
            None => run(0, out),
            Some(per) => par_chunks_mut(out, per * line_len, |c, chunk| run(c * per, chunk)),
        }
    }
    // SAFETY: Storage invariant 3 holds: every one of the `n` elements was written, each
    // line's fill having pushed exactly `line_len` of them (checked above, and a panic
    // there never reaches this line), and the lines tile `0..n`.
    Ok(unsafe { fresh.assume_init() })
}

/// [`fresh_by_lines`] for an op with two results of the same shape (values and their
/// indices): line `l` of both filled by one call `fill(l, a, b)`, which must push exactly
/// `line_len` elements to each.
///
/// # Errors
/// As [`fresh_by_lines`], for either output.
///
/// # Panics
/// If a fill pushes more or fewer than `line_len` elements to either output.
pub(crate) fn fresh_pair_by_lines<A, B, F>(
    op: &'static str,
    shape: &[usize],
    lines: usize,
    line_len: usize,
    work_per_elem: usize,
    fill: F,
) -> Result<(Storage<A>, Storage<B>)>
where
    A: Element,
    B: Element,
    F: Fn(usize, &mut LineOut<'_, A>, &mut LineOut<'_, B>) + Sync + Send,
{
    let n = lines * line_len;
    let mut fresh_a = super::fresh::<A>(op, shape, n)?;
    let mut fresh_b = super::fresh::<B>(op, shape, n)?;
    if n > 0 {
        // SAFETY: as in `fresh_by_lines`, for each of the two fresh storages of `n` elements
        // (two allocations, so the slices do not overlap).
        let (out_a, out_b) = unsafe {
            (
                std::slice::from_raw_parts_mut(fresh_a.as_mut_ptr().cast::<MaybeUninit<A>>(), n),
                std::slice::from_raw_parts_mut(fresh_b.as_mut_ptr().cast::<MaybeUninit<B>>(), n),
            )
        };
        let run = |first: usize, chunk_a: &mut [MaybeUninit<A>], chunk_b: &mut [MaybeUninit<B>]| {
            let pairs = chunk_a
                .chunks_mut(line_len)
                .zip(chunk_b.chunks_mut(line_len));
            for (k, (line_a, line_b)) in pairs.enumerate() {
                let (mut a, mut b) = (LineOut::new(line_a), LineOut::new(line_b));
                fill(first + k, &mut a, &mut b);
                a.check_full(op);
                b.check_full(op);
            }
        };
        match lines_per_unit(lines, line_len, work_per_elem) {
            None => run(0, out_a, out_b),
            Some(per) => {
                let mut units: Vec<_> = out_a
                    .chunks_mut(per * line_len)
                    .zip(out_b.chunks_mut(per * line_len))
                    .collect();
                par_chunks_mut(&mut units, 1, |c, unit| {
                    let (a, b) = &mut unit[0];
                    run(c * per, a, b);
                });
            }
        }
    }
    // SAFETY: Storage invariant 3 holds for both: every line of each was filled with exactly
    // `line_len` elements (checked above; a panic there never reaches this line), and the
    // lines tile `0..n`.
    Ok(unsafe { (fresh_a.assume_init(), fresh_b.assume_init()) })
}

/// Lines per parallel work unit for `lines` lines of `line_len` results costing
/// `work_per_elem` each, or `None` to fill them all on this thread.
fn lines_per_unit(lines: usize, line_len: usize, work_per_elem: usize) -> Option<usize> {
    let threads = threads_for((lines * line_len).saturating_mul(work_per_elem.max(1)));
    (threads > 1 && lines > 1).then(|| {
        lines
            .div_ceil(threads * 4)
            .max(MIN_UNIT_ELEMS.div_ceil(line_len))
    })
}

/// Row-major strides of `shape` with dim `dim` moved innermost: the layout of a
/// [`fresh_by_lines`] result along `dim` (`shape` fits memory: it was allocated).
pub(crate) fn line_major_strides(shape: &[usize], dim: usize) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = shape[dim].max(1) as isize;
    strides[dim] = 1;
    for d in (0..shape.len()).rev().filter(|&d| d != dim) {
        strides[d] = acc;
        acc *= shape[d].max(1) as isize;
    }
    strides
}

/// `count` elements of `layout` from row-major position `start` on (wrapping is the caller's
/// business: `start + count <= numel`), read from `data` and pushed to `out`.
pub(crate) fn push_logical<T: Copy>(
    data: &[T],
    layout: &Layout,
    start: usize,
    count: usize,
    out: &mut LineOut<'_, T>,
) {
    if count == 0 {
        return;
    }
    let shape = layout.shape();
    let strides: Vec<[isize; 1]> = layout.strides().iter().map(|&s| [s]).collect();
    let (mut index, [mut off]) = unravel_offsets(start, shape, &strides);
    let base = layout.offset() as isize;
    for k in 0..count {
        out.push(data[(base + off) as usize]);
        if k + 1 < count {
            let mut o = [off];
            super::unravel::advance_offsets(&mut index, shape, &strides, &mut o);
            off = o[0];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line `l` of both outputs: `l * 1000 + j` and its negation, as f32 and i64.
    fn fill_both(l: usize, a: &mut LineOut<'_, f32>, b: &mut LineOut<'_, i64>, len: usize) {
        for j in 0..len {
            a.push((l * 1000 + j) as f32);
            b.push(-((l * 1000 + j) as i64));
        }
    }

    #[test]
    fn pair_outputs_hold_every_line_in_order_serial_and_split() {
        // Few elements (one thread), then enough work per element to split across threads.
        #[cfg(not(miri))]
        let cases = [(3, 4, 1), (0, 4, 1), (5, 0, 1), (300, 70, 64)];
        #[cfg(miri)]
        let cases = [(3, 4, 1), (0, 4, 1), (5, 0, 1), (6, 3, 1)];
        for (lines, len, work) in cases {
            let (a, b) = fresh_pair_by_lines("test", &[lines, len], lines, len, work, |l, a, b| {
                fill_both(l, a, b, len)
            })
            .expect("small outputs");
            let want: Vec<f32> = (0..lines)
                .flat_map(|l| (0..len).map(move |j| (l * 1000 + j) as f32))
                .collect();
            assert_eq!(a.as_slice(), want.as_slice(), "{lines} x {len}");
            let negated: Vec<i64> = want.iter().map(|&x| -(x as i64)).collect();
            assert_eq!(b.as_slice(), negated.as_slice(), "{lines} x {len}");
        }
    }

    #[test]
    #[should_panic(expected = "a line was not filled")]
    fn a_short_line_in_the_second_output_panics() {
        let _ = fresh_pair_by_lines::<f32, i64, _>("test", &[2, 3], 2, 3, 1, |_, a, b| {
            a.fill(1.0, 3);
            b.fill(7, 2);
        });
    }
}
