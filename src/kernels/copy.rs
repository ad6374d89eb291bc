//! The strided copy kernel: every materialising copy in stridex goes through [`copy_strided`].
//!
//! A copy is planned before it runs (the idea of HPTT's plans and candle's `StridedBlocks`):
//!
//! 1. Order the dims by the destination's strides (outermost first) and coalesce dims that are
//!    contiguous with each other in *both* layouts ([`coalesce_joint`]).
//! 2. Classify the innermost loop:
//!    - [`CopyKind::Runs`]: source and destination both have unit stride inside, so the copy
//!      is a sequence of `memcpy`s of whole runs (a contiguous source is one run);
//!    - [`CopyKind::Tiled`]: the destination is unit-stride inside but the source is unit-stride
//!      (or smallest-stride) along some other dim `j`, a transpose: walk `j` and the inner dim
//!      in square tiles small enough for L1, so both sides read and write whole cache lines;
//!    - [`CopyKind::Gather`]: anything else (broadcast stride-0 sources, large strides on
//!      every dim): a strided loop along the destination's inner dim.
//! 3. Move elements as unsigned integers of the element's size (`u8`/`u16`/`u32`/`u64`), so
//!    every element type of the same size shares one instantiation.

use crate::element::Element;
use crate::error::Result;
use crate::layout::{coalesce_joint, Layout};
use crate::storage::Storage;

use super::walk::for_each_offset2;

/// How the innermost loops of a copy run; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CopyKind {
    /// Nothing to copy.
    Empty,
    /// Unit stride on both sides: whole runs are `memcpy`'d.
    Runs,
    /// A transpose between the inner dim and dim `j`, walked in tiles.
    Tiled {
        /// The dim (index into the plan's dims) along which the source is closest to
        /// unit-stride.
        j: usize,
    },
    /// A strided element loop along the inner dim.
    Gather,
}

/// A copy reduced to its essentials: dims ordered by destination stride, coalesced.
#[derive(Debug, Clone)]
pub(crate) struct CopyPlan {
    shape: Vec<usize>,
    src: Vec<isize>,
    dst: Vec<isize>,
    src_offset: usize,
    dst_offset: usize,
    kind: CopyKind,
}

impl CopyPlan {
    /// Plans copying the elements of `src` into the same indices of `dst`.
    ///
    /// # Panics
    /// If the shapes differ (an internal caller error).
    pub(crate) fn new(src: &Layout, dst: &Layout) -> CopyPlan {
        assert_eq!(src.shape(), dst.shape(), "copy: source and destination shapes differ");
        let order = dst.iteration_order();
        let mut shape: Vec<usize> = order.iter().map(|&d| src.shape()[d]).collect();
        let mut strides = [
            order.iter().map(|&d| src.strides()[d]).collect::<Vec<_>>(),
            order.iter().map(|&d| dst.strides()[d]).collect::<Vec<_>>(),
        ];
        coalesce_joint(&mut shape, &mut strides);
        let [src_strides, dst_strides] = strides;
        let kind = classify(&shape, &src_strides, &dst_strides);
        CopyPlan {
            shape,
            src: src_strides,
            dst: dst_strides,
            src_offset: src.offset(),
            dst_offset: dst.offset(),
            kind,
        }
    }

    /// The kind of inner loop this copy runs.
    #[cfg(test)]
    pub(crate) fn kind(&self) -> CopyKind {
        self.kind
    }
}

fn classify(shape: &[usize], src: &[isize], dst: &[isize]) -> CopyKind {
    if shape.contains(&0) {
        return CopyKind::Empty;
    }
    let Some(last) = shape.len().checked_sub(1) else {
        return CopyKind::Runs; // 0-dim: one element, a run of length 1.
    };
    if src[last] == 1 && dst[last] == 1 {
        return CopyKind::Runs;
    }
    let inner = src[last].unsigned_abs();
    let best = (0..last)
        .filter(|&d| src[d] != 0)
        .min_by_key(|&d| src[d].unsigned_abs());
    match best {
        Some(j) if dst[last] == 1 && inner != 0 && src[j].unsigned_abs() < inner => {
            CopyKind::Tiled { j }
        }
        _ => CopyKind::Gather,
    }
}

/// Copies every element of the layout `src` over `src_base` to the same index of the layout
/// `dst` over `dst_base`.
///
/// # Safety
/// - `src` and `dst` have the same shape (checked; a mismatch panics before any access);
/// - `src` fits the allocation at `src_base` (every offset it addresses is in bounds and
///   initialized) and `dst` fits the allocation at `dst_base` (every offset writable);
/// - `dst` addresses each element at most once (non-overlapping), and the memory `dst`
///   addresses does not overlap the memory `src` reads.
pub(crate) unsafe fn copy_strided<T: Element>(
    src_base: *const T,
    src: &Layout,
    dst_base: *mut T,
    dst: &Layout,
) {
    let plan = CopyPlan::new(src, dst);
    // SAFETY: forwarded from this function's contract; `T` has the size and alignment of the
    // word type chosen (Element's documented contract, tested in element.rs), so its elements
    // may be read and written as those words.
    unsafe {
        match std::mem::size_of::<T>() {
            1 => execute::<u8>(&plan, src_base.cast(), dst_base.cast()),
            2 => execute::<u16>(&plan, src_base.cast(), dst_base.cast()),
            4 => execute::<u32>(&plan, src_base.cast(), dst_base.cast()),
            8 => execute::<u64>(&plan, src_base.cast(), dst_base.cast()),
            n => unreachable!("Element types are 1, 2, 4 or 8 bytes, not {n}"),
        }
    }
}

/// Copies the elements `layout` addresses in `src` into a fresh storage, in row-major order;
/// returns the storage and its row-major layout (offset 0).
///
/// `layout` must fit `src` (the tensor invariant; checked, so a violation panics instead of
/// reading out of bounds).
pub(crate) fn to_fresh_storage<T: Element>(
    src: &Storage<T>,
    layout: &Layout,
) -> Result<(Storage<T>, Layout)> {
    assert!(layout.fits_in(src.len()), "copy: layout does not fit its storage");
    let dst = Layout::contiguous(layout.shape())?;
    let mut fresh = Storage::<T>::uninit(dst.numel())?;
    // SAFETY: `layout` fits `src` (asserted); `dst` is row-major over exactly `numel` fresh
    // elements, so it fits, writes each element once, and cannot overlap `src`'s allocation.
    unsafe { copy_strided(src.as_ptr(), layout, fresh.as_mut_ptr(), &dst) };
    // SAFETY: a row-major layout over `numel` elements addresses every one of them, and the
    // copy wrote each addressed element.
    Ok((unsafe { fresh.assume_init() }, dst))
}

/// The elements `layout` addresses in `src`, in row-major order, as a `Vec`.
///
/// `layout` must fit `src` (checked, as in [`to_fresh_storage`]).
pub(crate) fn to_vec<T: Element>(src: &Storage<T>, layout: &Layout) -> Vec<T> {
    assert!(layout.fits_in(src.len()), "copy: layout does not fit its storage");
    let n = layout.numel();
    let mut out = Vec::with_capacity(n);
    let dst = Layout::contiguous(layout.shape()).expect("the shape of a valid layout");
    // SAFETY: `out` has capacity for the `n` elements the row-major `dst` addresses, each once;
    // `layout` fits `src` (asserted); a fresh Vec cannot overlap the storage.
    unsafe {
        copy_strided(src.as_ptr(), layout, out.as_mut_ptr(), &dst);
        // SAFETY: all `n` elements were written by the copy.
        out.set_len(n);
    }
    out
}

/// Side of a square tile in elements: 128 bytes of each row, so a 4-byte tile is 32 x 32
/// (4 KiB read + 4 KiB written, well inside L1).
const fn tile<W>() -> usize {
    128 / std::mem::size_of::<W>()
}

/// Runs `plan` on words of type `W`.
///
/// # Safety
/// As [`copy_strided`], for the plan's layouts.
unsafe fn execute<W: Copy>(plan: &CopyPlan, src_base: *const W, dst_base: *mut W) {
    // SAFETY (for every pointer formed below): the plan's offsets and strides are those of the
    // two layouts (reordered and coalesced, which keeps the set of (index, offset) pairs), so
    // each `offset + Σ i_k * stride_k` formed here is an offset the layout addresses, in bounds
    // by the caller's contract. Partial sums stay inside the same allocation for the same
    // reason (Layout invariant 3).
    let src0 = unsafe { src_base.add(plan.src_offset) };
    let dst0 = unsafe { dst_base.add(plan.dst_offset) };
    let n = plan.shape.len();
    match plan.kind {
        CopyKind::Empty => {}
        CopyKind::Runs if n == 0 => unsafe { dst0.write(src0.read()) },
        CopyKind::Runs => {
            let len = plan.shape[n - 1];
            let outer = &plan.shape[..n - 1];
            for_each_offset2(outer, &plan.src[..n - 1], &plan.dst[..n - 1], |a, b| {
                // SAFETY: a run of `len` unit-stride elements on each side, all addressed by
                // the layouts; non-overlapping by the caller's contract.
                unsafe { std::ptr::copy_nonoverlapping(src0.offset(a), dst0.offset(b), len) }
            });
        }
        CopyKind::Tiled { j } => {
            let (outer_shape, outer_src, outer_dst) = without_dims(plan, &[j, n - 1]);
            let t = Tile2d {
                rows: plan.shape[j],
                cols: plan.shape[n - 1],
                src_row: plan.src[j],
                src_col: plan.src[n - 1],
                dst_row: plan.dst[j],
            };
            for_each_offset2(&outer_shape, &outer_src, &outer_dst, |a, b| {
                // SAFETY: the tile's indices are the plan's indices along dims j and n - 1.
                unsafe { t.run(src0.offset(a), dst0.offset(b)) }
            });
        }
        CopyKind::Gather => {
            let (len, ss, ds) = (plan.shape[n - 1], plan.src[n - 1], plan.dst[n - 1]);
            let outer = &plan.shape[..n - 1];
            for_each_offset2(outer, &plan.src[..n - 1], &plan.dst[..n - 1], |a, b| {
                let (s, d) = unsafe { (src0.offset(a), dst0.offset(b)) };
                for i in 0..len as isize {
                    // SAFETY: index i < len along the inner dim of both layouts.
                    unsafe { d.offset(i * ds).write(s.offset(i * ss).read()) }
                }
            });
        }
    }
}

/// The plan's shape and strides without `dims`.
fn without_dims(plan: &CopyPlan, dims: &[usize]) -> (Vec<usize>, Vec<isize>, Vec<isize>) {
    let keep = |d: &usize| !dims.contains(d);
    let shape = (0..plan.shape.len()).filter(keep).map(|d| plan.shape[d]).collect();
    let src = (0..plan.shape.len()).filter(keep).map(|d| plan.src[d]).collect();
    let dst = (0..plan.shape.len()).filter(keep).map(|d| plan.dst[d]).collect();
    (shape, src, dst)
}

/// A 2-D transpose-like copy: `dst[r * dst_row + c] = src[r * src_row + c * src_col]`.
struct Tile2d {
    rows: usize,
    cols: usize,
    src_row: isize,
    src_col: isize,
    dst_row: isize,
}

impl Tile2d {
    /// # Safety
    /// Every `src[r * src_row + c * src_col]` must be readable and every `dst[r * dst_row + c]`
    /// writable for `r < rows`, `c < cols`, and the two must not overlap.
    unsafe fn run<W: Copy>(&self, src: *const W, dst: *mut W) {
        let tb = tile::<W>();
        for r0 in (0..self.rows).step_by(tb) {
            let r1 = (r0 + tb).min(self.rows);
            for c0 in (0..self.cols).step_by(tb) {
                let c1 = (c0 + tb).min(self.cols);
                for r in r0..r1 {
                    let r = r as isize;
                    // SAFETY: r < rows and c < cols, as the contract requires.
                    unsafe {
                        let s = src.offset(r * self.src_row);
                        let d = dst.offset(r * self.dst_row);
                        for c in c0 as isize..c1 as isize {
                            d.offset(c).write(s.offset(c * self.src_col).read());
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(l: &Layout) -> CopyKind {
        CopyPlan::new(l, &Layout::contiguous(l.shape()).unwrap()).kind()
    }

    #[test]
    fn classifies_copies() {
        let c = Layout::contiguous(&[8, 6, 4]).unwrap();
        assert_eq!(kind(&c), CopyKind::Runs);
        assert_eq!(kind(&c.narrow(2, 1, 2).unwrap()), CopyKind::Runs);
        assert_eq!(kind(&c.transpose(1, 2).unwrap()), CopyKind::Tiled { j: 1 });
        assert_eq!(kind(&c.permute(&[2, 0, 1]).unwrap()), CopyKind::Tiled { j: 0 });
        assert_eq!(kind(&c.flip(2).unwrap()), CopyKind::Gather);
        assert_eq!(kind(&c.narrow(0, 0, 0).unwrap()), CopyKind::Empty);
        let row = Layout::contiguous(&[1, 4]).unwrap().expand(&[5, 4]).unwrap();
        assert_eq!(kind(&row), CopyKind::Runs);
        let col = Layout::contiguous(&[5, 1]).unwrap().expand(&[5, 4]).unwrap();
        assert_eq!(kind(&col), CopyKind::Gather);
        assert_eq!(kind(&Layout::contiguous(&[]).unwrap()), CopyKind::Runs);
    }
}
