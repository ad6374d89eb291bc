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

impl<T: Copy> LineOut<'_, T> {
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
                let mut w = LineOut {
                    out: line,
                    filled: 0,
                };
                fill(first + k, &mut w);
                assert_eq!(w.filled, line_len, "{op}: a line was not filled");
            }
        };
        let threads = threads_for(n.saturating_mul(work_per_elem.max(1)));
        if threads == 1 || lines == 1 {
            run(0, out);
        } else {
            let per = lines
                .div_ceil(threads * 4)
                .max(MIN_UNIT_ELEMS.div_ceil(line_len));
            par_chunks_mut(out, per * line_len, |c, chunk| run(c * per, chunk));
        }
    }
    // SAFETY: Storage invariant 3 holds: every one of the `n` elements was written, each
    // line's fill having pushed exactly `line_len` of them (asserted above, and a panic
    // there never reaches this line), and the lines tile `0..n`.
    Ok(unsafe { fresh.assume_init() })
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
