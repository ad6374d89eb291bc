//! Shape and stride arithmetic: where a strided view's elements live in its storage.
//!
//! A [`Layout`] is a shape (`usize` per dim), strides (`isize` per dim, counted in elements, may
//! be negative or zero) and an offset (in elements, from the start of the storage). Element
//! `[i0, i1, ..]` lives at storage offset `offset + i0 * strides[0] + i1 * strides[1] + ..`.
//!
//! This module knows nothing about element types or memory: it holds no `unsafe`, allocates only
//! the small shape and stride arrays, and every function in it can be property-tested on its own.
//! Every view op is a method here returning `Result<Layout, Error>`; `Tensor` only delegates.
//!
//! # Invariants
//!
//! Every `Layout` value, however it was built, satisfies all of these. The only constructor is
//! [`Layout::new`] (the others call it), which checks them, so code elsewhere may rely on them:
//!
//! 1. `shape.len() == strides.len()`.
//! 2. Every size, and the element count (the product of `shape`), fits in `isize` (so also in
//!    `usize`). A size-0 dim makes the count 0 whatever the other sizes, but they must still
//!    fit in `isize`, so all size arithmetic on a dim can be done in `isize`.
//! 3. If the layout has elements, every offset it addresses lies in `0..=isize::MAX`; in
//!    particular [`Layout::offset_range`] is exact and cannot overflow. Negative strides are fine
//!    as long as the offset is large enough to keep the lowest address non-negative.
//! 4. If it has no elements, it addresses nothing, and only `offset <= isize::MAX` is required.
//!
//! Bounds against a storage are one comparison: a layout fits a storage of `len` elements when it
//! is empty or `offset_range().1 < len` ([`Layout::fits_in`]). The `unsafe` code in the kernels
//! states which of these invariants it relies on.
//!
//! # Note on strides of size-1 dims and empty layouts
//!
//! A stride only matters when its index can be non-zero, so the stride of a size-1 dim is never
//! read when addressing, and a layout with zero elements addresses nothing at all. Consequently
//! (the PyTorch rule) [`Layout::is_contiguous`] ignores strides of size-1 dims and calls every
//! empty layout contiguous. The strides stridex *chooses* are fixed, so results are predictable:
//!
//! - [`Layout::contiguous`] gives row-major strides where each stride is the product of the
//!   later sizes with `0` counted as `1`: shape `[2, 0, 3]` gets strides `[3, 3, 1]`, shape
//!   `[4, 1, 5]` gets `[5, 5, 1]`. A size-1 dim thus gets the stride it would have if it were
//!   larger, and an empty layout keeps non-zero, row-major strides.
//! - [`Layout::unsqueeze`] gives the new size-1 dim the stride `size * stride` of the dim that
//!   follows it (1 when it becomes the last dim), so a contiguous layout stays row-major.
//! - [`Layout::view`] gives size-1 dims of the new shape the stride of the chunk they sit in.

mod broadcast;
mod coalesce;
mod dim;
mod dims;
mod expand_arg;
mod explain;
mod flips;
mod format;
mod index;
mod infer;
mod move_dims;
mod overlap;
mod shape_ops;
mod shape_strides;
mod slice_range;
mod split;
mod view;
mod view_ops;
mod windows;

pub use broadcast::{broadcast_shapes, broadcast_shapes_all};
pub use coalesce::coalesce_joint;
pub use dim::Dim;
pub(crate) use dim::{narrow_start_error, resolve_dims};
pub use expand_arg::ExpandShape;
pub use format::MemoryFormat;
pub use index::{Ellipsis, IndexArg, NewAxis, SliceItem};
pub use infer::{ShapeArg, infer_shape};
pub use slice_range::SliceRange;

use crate::error::{Error, Result};
pub(crate) use dims::Dims;
use shape_strides::ShapeStrides;

/// Shape, strides and offset of a strided view; see the [module docs](self) for its invariants.
///
/// ```
/// use stridex::Layout;
/// let l = Layout::contiguous(&[2, 3])?;
/// assert_eq!(l.strides(), &[3, 1]);
/// let t = l.transpose(0, 1)?;
/// assert_eq!((t.shape(), t.strides()), (&[3, 2][..], &[1, 3][..]));
/// assert!(!t.is_contiguous());
/// # Ok::<(), stridex::Error>(())
/// ```
// `repr(C)`: the shape and strides first, at a 16-byte boundary of a `Tensor`, the offset
// last (the reason is at `Tensor`).
#[derive(Clone, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Layout {
    dims: ShapeStrides,
    offset: usize,
}

impl std::fmt::Debug for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Layout {{ shape: {:?}, strides: {:?}, offset: {} }}",
            self.shape(),
            self.strides(),
            self.offset
        )
    }
}

/// Product of `shape`, or `None` if a size or the product does not fit in `isize`
/// (invariant 2). A 0 anywhere gives 0, whatever order the dims come in.
pub(crate) fn checked_numel(shape: &[usize]) -> Option<usize> {
    let max = isize::MAX as usize;
    if shape.iter().any(|&d| d > max) {
        return None;
    }
    if shape.contains(&0) {
        return Some(0);
    }
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= max)
}

/// The error of [`Layout::contiguous`] for a shape whose element count passes `isize::MAX`.
#[cold]
fn contiguous_overflow(shape: &[usize]) -> Error {
    Error::Overflow {
        op: "contiguous",
        shape: shape.to_vec(),
        strides: vec![],
    }
}

/// Row-major strides for `shape` (sizes of 0 count as 1; see the module note), or `None` on
/// overflow.
pub(crate) fn row_major_strides(shape: &[usize]) -> Option<Vec<isize>> {
    ShapeStrides::row_major(shape).map(|dims| dims.strides().to_vec())
}

impl Layout {
    /// Builds a layout from its parts, checking the [invariants](self).
    ///
    /// # Errors
    /// [`Error::RankMismatch`] if `strides` and `shape` differ in length, [`Error::Overflow`] if the
    /// element count or an addressed offset overflows `isize`, [`Error::NegativeOffset`] if some
    /// element would live before the start of the storage.
    ///
    /// ```
    /// use stridex::Layout;
    /// let flipped = Layout::new(&[3], &[-1], 2)?;
    /// assert_eq!(flipped.offset_range(), Some((0, 2)));
    /// assert!(Layout::new(&[3], &[-1], 1).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn new(shape: &[usize], strides: &[isize], offset: usize) -> Result<Layout> {
        Self::checked("Layout::new", shape, strides, offset)
    }

    /// The one constructor: checks every invariant and names `op` in the error.
    pub(crate) fn checked(
        op: &'static str,
        shape: &[usize],
        strides: &[isize],
        offset: usize,
    ) -> Result<Layout> {
        if shape.len() != strides.len() {
            return Err(Error::RankMismatch {
                op,
                what: "strides",
                expected: shape.len(),
                got: strides.len(),
            });
        }
        let overflow = |shape: &[usize], strides: &[isize]| Error::Overflow {
            op,
            shape: shape.to_vec(),
            strides: strides.to_vec(),
        };
        let numel = checked_numel(shape).ok_or_else(|| overflow(shape, strides))?;
        if offset > isize::MAX as usize {
            return Err(overflow(shape, strides));
        }
        if numel > 0 {
            let (lo, hi) =
                extent_i128(shape, strides, offset).ok_or_else(|| overflow(shape, strides))?;
            if lo < 0 {
                return Err(Error::NegativeOffset {
                    op,
                    min_offset: lo,
                    shape: shape.to_vec(),
                    strides: strides.to_vec(),
                });
            }
            if hi > isize::MAX as i128 {
                return Err(overflow(shape, strides));
            }
        }
        Ok(Layout {
            dims: ShapeStrides::new(shape, strides),
            offset,
        })
    }

    /// This layout's elements under other dims: `shape` and `strides` must be this layout's
    /// dims reordered, with size-1 dims removed or added (any stride). Such a layout has the
    /// same element count and addresses the same offsets, so every invariant carries over
    /// unchecked (a debug build checks anyway): the fast path of `transpose`, `permute`,
    /// `squeeze` and `unsqueeze`.
    #[inline]
    pub(crate) fn rearranged(&self, shape: &[usize], strides: &[isize]) -> Layout {
        debug_assert!(
            {
                let mut a: Vec<usize> = shape.iter().copied().filter(|&d| d != 1).collect();
                let mut b: Vec<usize> = self.shape().iter().copied().filter(|&d| d != 1).collect();
                a.sort_unstable();
                b.sort_unstable();
                a == b && shape.len() == strides.len()
            },
            "a rearrangement keeps the dims"
        );
        debug_assert_eq!(
            Layout::checked("rearranged", shape, strides, self.offset).map(|l| l.offset_range()),
            Ok(self.offset_range())
        );
        Layout {
            dims: ShapeStrides::new(shape, strides),
            offset: self.offset,
        }
    }

    /// Debug check behind the unchecked fast paths of narrowing view ops: `sub` satisfies
    /// every invariant and addresses only offsets inside this layout's range (or none).
    #[cfg(debug_assertions)]
    pub(crate) fn check_subset(&self, sub: &Layout) {
        let checked = Layout::checked("subset", sub.shape(), sub.strides(), sub.offset);
        let inside = checked.is_ok_and(|l| match (l.offset_range(), self.offset_range()) {
            (Some((lo, hi)), Some((slo, shi))) => slo <= lo && hi <= shi,
            (None, _) => true,
            (Some(_), None) => false,
        });
        assert!(inside, "{sub:?} is not a valid subset of {self:?}");
    }

    /// A row-major (C order) layout with offset 0.
    ///
    /// # Errors
    /// [`Error::Overflow`] if the element count does not fit in `isize`.
    ///
    /// ```
    /// use stridex::Layout;
    /// assert_eq!(Layout::contiguous(&[2, 3, 4])?.strides(), &[12, 4, 1]);
    /// assert_eq!(Layout::contiguous(&[2, 0, 3])?.strides(), &[3, 3, 1]);
    /// assert!(Layout::contiguous(&[usize::MAX, 2]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[inline]
    pub fn contiguous(shape: &[usize]) -> Result<Layout> {
        // Invariants without re-checking: the element count fits `isize` (row_major checks
        // the product of the sizes); the strides are positive, and a non-empty row-major
        // layout's highest offset is `numel - 1`, so the extent fits too (an empty one has
        // none to check).
        match ShapeStrides::row_major(shape) {
            Some(dims) => Ok(Layout { dims, offset: 0 }),
            None => Err(contiguous_overflow(shape)),
        }
    }

    /// The size of each dim.
    ///
    /// ```
    /// assert_eq!(stridex::Layout::contiguous(&[2, 5])?.shape(), &[2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn shape(&self) -> &[usize] {
        self.dims.shape()
    }

    /// The stride of each dim, in elements.
    ///
    /// ```
    /// assert_eq!(stridex::Layout::contiguous(&[2, 5])?.strides(), &[5, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn strides(&self) -> &[isize] {
        self.dims.strides()
    }

    /// Storage offset of element `[0, 0, ..]`, in elements.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[4, 5])?.narrow(0, 1, 2)?;
    /// assert_eq!(l.offset(), 5);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Number of dims.
    ///
    /// ```
    /// assert_eq!(stridex::Layout::contiguous(&[])?.ndim(), 0);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn ndim(&self) -> usize {
        self.dims.rank()
    }

    /// Number of elements (1 for a 0-dim layout).
    ///
    /// ```
    /// assert_eq!(stridex::Layout::contiguous(&[2, 3])?.numel(), 6);
    /// assert_eq!(stridex::Layout::contiguous(&[])?.numel(), 1);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn numel(&self) -> usize {
        // Invariant 2: the product fits, once a size-0 dim has been ruled out (the other
        // sizes of an empty layout may multiply past usize).
        if self.shape().contains(&0) {
            0
        } else {
            self.shape().iter().product()
        }
    }

    /// Whether the elements are stored in row-major order with no gaps, starting at `offset`.
    ///
    /// Strides of size-1 dims are ignored and empty layouts are contiguous (see the
    /// [module note](self)). The offset does not matter.
    ///
    /// ```
    /// use stridex::Layout;
    /// assert!(Layout::new(&[3, 1, 2], &[2, 99, 1], 7)?.is_contiguous());
    /// assert!(!Layout::contiguous(&[3, 2])?.transpose(0, 1)?.is_contiguous());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn is_contiguous(&self) -> bool {
        if self.numel() == 0 {
            return true;
        }
        let mut expected: isize = 1;
        for (&d, &s) in self.shape().iter().zip(self.strides()).rev() {
            if d != 1 {
                if s != expected {
                    return false;
                }
                // Fits: the running product is at most numel (invariant 2).
                expected *= d as isize;
            }
        }
        true
    }

    /// The element count of a non-empty row-major layout ([`Layout::is_contiguous`]) in one
    /// pass over the dims; `None` if the layout is not row-major or is empty. For the small
    /// ops' fast paths, where computing `numel` and then walking the strides again shows.
    #[inline]
    pub(crate) fn row_major_numel(&self) -> Option<usize> {
        let mut expected: usize = 1;
        for (&d, &s) in self.shape().iter().zip(self.strides()).rev() {
            if d == 0 {
                return None;
            }
            if d != 1 {
                if s < 0 || s as usize != expected {
                    return None;
                }
                // Wrapping only where a later dim is 0, which returns `None` above: a
                // non-empty layout's sizes multiply within `isize` (invariant 2).
                expected = expected.wrapping_mul(d);
            }
        }
        Some(expected)
    }

    /// Whether the elements occupy `numel` consecutive storage slots in *some* order of the dims
    /// (every stride positive, no overlap, no gaps): a permuted contiguous layout.
    ///
    /// ```
    /// use stridex::Layout;
    /// let t = Layout::contiguous(&[3, 4])?.transpose(0, 1)?;
    /// assert!(t.is_non_overlapping_and_dense());
    /// assert!(!t.narrow(0, 0, 2)?.is_non_overlapping_and_dense());
    /// assert!(!Layout::contiguous(&[1, 4])?.expand(&[3, 4])?.is_non_overlapping_and_dense());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn is_non_overlapping_and_dense(&self) -> bool {
        if self.numel() == 0 {
            return true;
        }
        let mut dims: Vec<usize> = (0..self.ndim()).filter(|&d| self.shape()[d] != 1).collect();
        dims.sort_by_key(|&d| self.strides()[d]);
        let mut expected: isize = 1;
        for d in dims {
            if self.strides()[d] != expected {
                return false;
            }
            expected *= self.shape()[d] as isize;
        }
        true
    }

    /// Whether no two indices address the same storage offset, so writing through the layout
    /// is well defined.
    ///
    /// Exact up to a work bound, refusing beyond it. A cheap span test accepts what transposing,
    /// narrowing, slicing, flipping, selecting and taking diagonals make of a dense layout;
    /// otherwise a bounded exact search decides (always when at most two dims of size > 1
    /// remain, and for small layouts), and a layout it cannot decide within its bound counts as
    /// overlapping. It never returns `true` for an overlapping layout. Signs of strides do not
    /// matter, a stride-0 dim of size > 1 overlaps, and layouts with at most one element never
    /// do.
    ///
    /// ```
    /// use stridex::Layout;
    /// assert!(Layout::contiguous(&[4, 5])?.slice(1, 0, 5, 2)?.flip(0)?.is_non_overlapping());
    /// // Offsets 0, 3, 2, 5, 4, 7: interleaved but distinct.
    /// assert!(Layout::new(&[3, 2], &[2, 3], 0)?.is_non_overlapping());
    /// assert!(!Layout::contiguous(&[1, 5])?.expand(&[3, 5])?.is_non_overlapping());
    /// assert!(!Layout::new(&[4, 3], &[1, 1], 0)?.is_non_overlapping());
    /// // Sliding windows of length 3 with step 2 share elements.
    /// assert!(!Layout::contiguous(&[7])?.unfold(0, 3, 2)?.is_non_overlapping());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn is_non_overlapping(&self) -> bool {
        self.overlap() == overlap::Overlap::None
    }

    /// The storage offset of the element at multi-index `index`.
    ///
    /// # Errors
    /// [`Error::IndexRank`] if `index` does not have one entry per dim,
    /// [`Error::IndexOutOfRange`] if an entry is not below its dim's size.
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[3, 4])?.flip(1)?;
    /// assert_eq!(l.offset_of(&[1, 0])?, 7);
    /// assert!(l.offset_of(&[3, 0]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn offset_of(&self, index: &[usize]) -> Result<usize> {
        self.offset_of_for("offset_of", index)
    }

    /// [`Layout::offset_of`] naming `op` in its errors.
    pub(crate) fn offset_of_for(&self, op: &'static str, index: &[usize]) -> Result<usize> {
        if index.len() != self.ndim() {
            return Err(Error::IndexRank {
                op,
                index: index.to_vec(),
                shape: self.shape().to_vec(),
            });
        }
        let mut off = self.offset as isize;
        for (dim, ((&i, &d), &s)) in index
            .iter()
            .zip(self.shape())
            .zip(self.strides())
            .enumerate()
        {
            if i >= d {
                return Err(Error::IndexOutOfRange {
                    op,
                    dim,
                    index: i,
                    size: d,
                });
            }
            // In range by invariant 3 once every index is: every partial sum lies between two
            // addressed offsets (the partial sums are themselves addressed offsets). An empty
            // layout's strides are unconstrained (invariant 4), so before a later index is
            // found out of range (a size-0 dim) the sum may leave `isize`: wrap, as the
            // result is then an error anyway.
            off = off.wrapping_add((i as isize).wrapping_mul(s));
        }
        Ok(off as usize)
    }

    /// The lowest and highest storage offsets addressed, or `None` for an empty layout.
    ///
    /// ```
    /// use stridex::Layout;
    /// assert_eq!(Layout::contiguous(&[2, 3])?.offset_range(), Some((0, 5)));
    /// assert_eq!(Layout::contiguous(&[2, 0])?.offset_range(), None);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn offset_range(&self) -> Option<(usize, usize)> {
        if self.numel() == 0 {
            return None;
        }
        // Invariant 3: the extent was checked at construction, so every partial sum below lies
        // between the lowest and highest addressed offsets, in `0..=isize::MAX`: each span
        // `(d - 1) * stride` is at most their difference, and no `isize` operation overflows.
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (&d, &s) in self.shape().iter().zip(self.strides().iter()) {
            let span = (d as isize - 1) * s;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        Some((lo as usize, hi as usize))
    }

    /// Whether every addressed offset is below `storage_len` (always true for empty layouts).
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[2, 3])?;
    /// assert!(l.fits_in(6) && !l.fits_in(5));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn fits_in(&self, storage_len: usize) -> bool {
        self.offset_range().is_none_or(|(_, hi)| hi < storage_len)
    }

    /// Number of storage elements needed to hold this layout: `max offset + 1`, or 0 if empty.
    ///
    /// ```
    /// use stridex::Layout;
    /// assert_eq!(Layout::new(&[2, 2], &[1, 4], 3)?.storage_len_needed(), 9);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn storage_len_needed(&self) -> usize {
        self.offset_range().map_or(0, |(_, hi)| hi + 1)
    }

    /// Checks `dim < ndim` for an operation.
    #[inline]
    pub(crate) fn check_dim(&self, op: &'static str, dim: usize) -> Result<()> {
        if dim < self.ndim() {
            Ok(())
        } else {
            Err(Error::DimOutOfRange {
                op,
                dim,
                ndim: self.ndim(),
            })
        }
    }

    /// Dims from outermost to innermost by decreasing `|stride|` (ties keep the original order),
    /// size-1 dims first: the order in which a loop nest reads storage most sequentially.
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[2, 3, 4])?.permute(&[2, 0, 1])?;
    /// assert_eq!(l.iteration_order(), vec![1, 2, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn iteration_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.ndim()).collect();
        order.sort_by_key(|&d| {
            (
                self.shape()[d] != 1,
                std::cmp::Reverse(self.strides()[d].unsigned_abs()),
            )
        });
        order
    }

    /// The same elements in the same row-major order with as few dims as possible: size-1 dims
    /// dropped and adjacent dims merged where `stride[d] == shape[d + 1] * stride[d + 1]`.
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[4, 1, 6])?.narrow(0, 1, 2)?.coalesced();
    /// assert_eq!((l.shape(), l.strides(), l.offset()), (&[12][..], &[1][..], 6));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn coalesced(&self) -> Layout {
        let mut shape = self.shape().to_vec();
        let mut strides = vec![self.strides().to_vec()];
        coalesce_joint(&mut shape, &mut strides);
        Layout {
            dims: ShapeStrides::new(&shape, &strides.pop().unwrap_or_default()),
            offset: self.offset,
        }
    }
}

/// Lowest and highest offsets addressed by a non-empty `shape`/`strides` at `offset`, in `i128`;
/// `None` on overflow.
fn extent_i128(shape: &[usize], strides: &[isize], offset: usize) -> Option<(i128, i128)> {
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&d, &s) in shape.iter().zip(strides) {
        // d >= 1 here (non-empty) and d <= isize::MAX, so the product is below 2^126.
        let span = (d as i128 - 1) * s as i128;
        if span < 0 {
            lo = lo.checked_add(span)?;
        } else {
            hi = hi.checked_add(span)?;
        }
    }
    Some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_matches_its_definition_at_every_rank_and_at_the_overflow_edge() {
        // Row-major strides by their definition: each the product of the later sizes, a size
        // of 0 counted as 1; ranks on both sides of the inline limit.
        for shape in [
            vec![],
            vec![7],
            vec![2, 3],
            vec![4, 0, 5],
            vec![2, 1, 3, 4],
            vec![2, 3, 1, 4, 5],
            vec![1, 2, 0, 3, 2, 2],
        ] {
            let want: Vec<isize> = (0..shape.len())
                .map(|d| shape[d + 1..].iter().map(|&s| s.max(1) as isize).product())
                .collect();
            let l = Layout::contiguous(&shape).unwrap();
            assert_eq!(
                (l.shape(), l.strides(), l.offset()),
                (&shape[..], &want[..], 0)
            );
        }
        let max = isize::MAX as usize;
        // The largest element count that fits, inline and spilled, and one past it.
        assert!(Layout::contiguous(&[max]).is_ok());
        assert!(Layout::contiguous(&[1, 1, 1, 1, 1, max]).is_ok());
        assert!(Layout::contiguous(&[max + 1]).is_err());
        assert!(Layout::contiguous(&[2, max / 2 + 1]).is_err());
        assert!(Layout::contiguous(&[1, 1, 1, 1, 2, max / 2 + 1]).is_err());
        // An empty shape whose other sizes overflow has no valid strides either.
        assert!(Layout::contiguous(&[0, max, 2]).is_err());
        assert!(Layout::contiguous(&[usize::MAX, 0]).is_err());
    }

    #[test]
    fn row_major_numel_is_the_count_of_non_empty_contiguous_layouts() {
        let base = Layout::contiguous(&[3, 4, 5]).unwrap();
        let cases = [
            base.clone(),
            base.transpose(0, 2).unwrap(),
            base.narrow(1, 1, 2).unwrap(),
            base.narrow(0, 1, 2).unwrap(),
            base.flip(2).unwrap(),
            base.select(1, 2).unwrap(),
            Layout::new(&[3, 1, 4], &[4, 99, 1], 2).unwrap(),
            Layout::new(&[2, 3], &[0, 1], 0).unwrap(),
            Layout::new(&[1, 1], &[-5, 7], 9).unwrap(),
            Layout::new(&[], &[], 3).unwrap(),
            Layout::new(&[2, 0, 3], &[7, 1, 2], 0).unwrap(),
        ];
        for l in cases {
            let want = (l.is_contiguous() && l.numel() > 0).then(|| l.numel());
            assert_eq!(l.row_major_numel(), want, "{l:?}");
        }
    }

    #[test]
    fn contiguous_strides_for_size_one_and_empty_dims() {
        // The documented convention: sizes of 0 count as 1 when forming strides.
        assert_eq!(
            Layout::contiguous(&[4, 1, 5]).unwrap().strides(),
            &[5, 5, 1]
        );
        assert_eq!(
            Layout::contiguous(&[2, 0, 3]).unwrap().strides(),
            &[3, 3, 1]
        );
        assert_eq!(Layout::contiguous(&[0]).unwrap().strides(), &[1]);
        assert_eq!(Layout::contiguous(&[]).unwrap().strides(), &[] as &[isize]);
    }

    #[test]
    fn contiguity_rules() {
        assert!(Layout::new(&[2, 0], &[-5, 77], 0).unwrap().is_contiguous());
        assert!(Layout::new(&[1, 1], &[0, 0], 3).unwrap().is_contiguous());
        assert!(!Layout::new(&[2, 3], &[3, 2], 0).unwrap().is_contiguous());
        assert!(!Layout::new(&[2], &[0], 0).unwrap().is_contiguous());
        assert!(!Layout::new(&[2], &[-1], 1).unwrap().is_contiguous());
        assert!(
            !Layout::new(&[2], &[-1], 1)
                .unwrap()
                .is_non_overlapping_and_dense()
        );
        assert!(
            Layout::new(&[2, 3], &[1, 2], 0)
                .unwrap()
                .is_non_overlapping_and_dense()
        );
        assert!(
            !Layout::new(&[2, 3], &[1, 3], 0)
                .unwrap()
                .is_non_overlapping_and_dense()
        );
    }

    #[test]
    fn construction_errors() {
        assert!(matches!(
            Layout::new(&[2], &[1, 1], 0),
            Err(Error::RankMismatch { .. })
        ));
        assert!(matches!(
            Layout::new(&[usize::MAX / 2, 4], &[1, 1], 0),
            Err(Error::Overflow { .. })
        ));
        assert!(matches!(
            Layout::new(&[3], &[isize::MAX], 0),
            Err(Error::Overflow { .. })
        ));
        assert!(matches!(
            Layout::new(&[3], &[isize::MIN], usize::MAX / 4),
            Err(Error::NegativeOffset { .. })
        ));
        assert!(matches!(
            Layout::new(&[1], &[1], usize::MAX),
            Err(Error::Overflow { .. })
        ));
        // An empty layout addresses nothing, whatever its strides.
        assert!(Layout::new(&[0, 3], &[isize::MIN, isize::MAX], 5).is_ok());
    }

    #[test]
    fn offsets_and_ranges() {
        let l = Layout::new(&[2, 3], &[-3, 2], 3).unwrap();
        assert_eq!(l.offset_of(&[1, 2]).unwrap(), 4);
        assert_eq!(l.offset_range(), Some((0, 7)));
        assert_eq!(l.storage_len_needed(), 8);
        assert!(l.fits_in(8));
        assert!(!l.fits_in(7));
        assert!(matches!(l.offset_of(&[0]), Err(Error::IndexRank { .. })));
        assert!(matches!(
            l.offset_of(&[0, 3]),
            Err(Error::IndexOutOfRange {
                dim: 1,
                index: 3,
                size: 3,
                ..
            })
        ));
        // An empty layout with a huge stride: an error, not an overflow, whatever the order.
        let e = Layout::new(&[2, 0], &[isize::MAX, 1], 5).unwrap();
        assert!(matches!(
            e.offset_of(&[1, 0]),
            Err(Error::IndexOutOfRange { dim: 1, .. })
        ));
    }
}
