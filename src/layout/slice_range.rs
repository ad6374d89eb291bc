//! [`SliceRange`]: the ranges `slice`, `slice_step` and `i` take, Rust's range syntax read
//! with Python's slice rules, and [`Layout::slice_step`], the range form of
//! [`Layout::slice`].
//!
//! # Note on Rust ranges as Python slices
//!
//! A Rust range gives a start (always included) and an end that is excluded (`a..b`),
//! included (`a..=b`) or open (`a..`, `..`). Python's `start:end:step` has only excluded ends,
//! so an included end becomes the next index in the walk's direction: `a..=b` walked forwards
//! is `a:b+1`, walked backwards (a negative step) `a:b-1`. Two included ends have no Python
//! index past them, because it would read as counting from the end: `..=-1` forwards (the
//! last index) and `..=0` backwards (the first) become open ends. Every bound is then Python's:
//! negative values count from the end, and values past either end clamp, so no range is ever
//! out of bounds. A value past `isize` (a `u64` or `usize` above `isize::MAX`) saturates to
//! `isize::MAX`: no dim is that long, so it clamps to the same place.

use std::ops::{
    Bound, Range, RangeBounds, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive,
};

use super::Layout;
use crate::error::Result;

/// A range of indices of one dim, as `slice`, `slice_step` and `i` take it: any Rust range
/// (`a..b`, `a..`, `..b`, `..`, `a..=b`, `..=b`) of any integer type [`Dim`](crate::Dim)
/// accepts (`usize`, `u32`, `u64`, `i32`, `i64`, `isize`), so literals (`1..3`, `-2..`) need no
/// suffix. Bounds follow Python's slice rules: negative ones count from the end (`-2..` is
/// Python's `-2:`), and bounds past either end clamp instead of failing (see the module
/// note for included ends and negative steps).
///
/// A backward walk starts above its end, so its range reads reversed (`5..1` for Python's
/// `5:1:-1`). Clippy's `reversed_empty_ranges` lint, deny by default, rejects such a range
/// when both bounds are literals, since as an iterator it would be empty: allow the lint
/// where you write one, write an open range (`5..` walks down to the first index), or write
/// the range in [`s!`](crate::s) (`x.i(s![5..1;-1])`), which allows it.
///
/// ```
/// use std::ops::Bound;
/// use stridex::{SliceRange, Tensor};
/// assert_eq!((1i32..3).bounds(), (Some(1), Bound::Excluded(3)));
/// assert_eq!((..=-1i64).bounds(), (None, Bound::Included(-1)));
/// assert_eq!((2usize..).bounds(), (Some(2), Bound::Unbounded));
/// let a = Tensor::arange(0i32, 6, 1)?;
/// assert_eq!(a.slice(0, -2..)?.to_vec(), vec![4, 5]);
/// assert_eq!(a.slice(0, 4..100)?.to_vec(), vec![4, 5]); // clamped, as in Python
/// assert_eq!(a.slice_step(0, 4..=1, -1)?.to_vec(), vec![4, 3, 2, 1]);
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait SliceRange {
    /// The first index (`None` when open: the first index walking forwards, the last
    /// walking backwards) and the end bound, each saturated to `isize`.
    fn bounds(&self) -> (Option<isize>, Bound<isize>);
}

/// `v` clamped to `isize`: a bound past either end of every dim stays past it.
#[inline(always)]
fn saturate(v: i128) -> isize {
    v.clamp(isize::MIN as i128, isize::MAX as i128) as isize
}

/// The bounds of a std range whose values `to` converts.
#[inline(always)]
fn bounds_of<T: Copy>(
    r: &impl RangeBounds<T>,
    to: fn(T) -> isize,
) -> (Option<isize>, Bound<isize>) {
    let start = match r.start_bound() {
        Bound::Included(&s) => Some(to(s)),
        // No std range excludes its start; read one as the next index.
        Bound::Excluded(&s) => Some(to(s).saturating_add(1)),
        Bound::Unbounded => None,
    };
    (start, r.end_bound().map(|&e| to(e)))
}

macro_rules! slice_ranges {
    ($($t:ty),*) => {$(
        slice_ranges!(@each $t; Range RangeFrom RangeTo RangeInclusive RangeToInclusive);
    )*};
    (@each $t:ty; $($range:ident)*) => {$(
        impl SliceRange for $range<$t> {
            #[inline(always)]
            fn bounds(&self) -> (Option<isize>, Bound<isize>) {
                bounds_of(self, |v| saturate(v as i128))
            }
        }
    )*};
}

slice_ranges!(usize, u32, u64, i32, i64, isize);

impl SliceRange for RangeFull {
    #[inline(always)]
    fn bounds(&self) -> (Option<isize>, Bound<isize>) {
        (None, Bound::Unbounded)
    }
}

/// `bounds` as Python's `start:end` for a walk with `step` (`None`: open), by the module
/// note's rule for included ends.
#[inline]
pub(crate) fn python_bounds(
    (start, end): (Option<isize>, Bound<isize>),
    step: isize,
) -> (Option<isize>, Option<isize>) {
    let end = match end {
        Bound::Unbounded => None,
        Bound::Excluded(e) => Some(e),
        Bound::Included(-1) if step > 0 => None,
        Bound::Included(e) if step > 0 => Some(e.saturating_add(1)),
        Bound::Included(0) => None,
        Bound::Included(e) => Some(e.saturating_sub(1)),
    };
    (start, end)
}

/// Python's `start:end:step` as the arguments of [`Layout::slice`]: an open bound becomes
/// the extreme value that clamps to the end the walk starts or stops at.
#[inline]
pub(crate) fn slice_args(start: Option<isize>, end: Option<isize>, step: isize) -> (isize, isize) {
    let (open_start, open_end) = if step > 0 {
        (0, isize::MAX)
    } else {
        (isize::MAX, isize::MIN)
    };
    (start.unwrap_or(open_start), end.unwrap_or(open_end))
}

impl Layout {
    /// The indices of `dim` in `range`, every `step`-th one ([`SliceRange`]: Python's slice
    /// rules, negative bounds from the end, clamping); a negative `step` walks backwards
    /// from the range's start, so `(.., -1)` reverses the dim and Python's `5:1:-1` is
    /// `(5..1, -1)`. The arithmetic is [`Layout::slice`]'s.
    ///
    /// # Errors
    /// As [`Layout::slice`], naming `slice_step`.
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[10])?;
    /// let s = l.slice_step(0, 1..8, 3)?; // indices 1, 4, 7
    /// assert_eq!((s.shape(), s.strides(), s.offset()), (&[3][..], &[3][..], 1));
    /// let r = l.slice_step(0, .., -2)?; // indices 9, 7, 5, 3, 1
    /// assert_eq!((r.shape(), r.strides(), r.offset()), (&[5][..], &[-2][..], 9));
    /// assert!(l.slice_step(0, .., 0).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn slice_step(&self, dim: usize, range: impl SliceRange, step: isize) -> Result<Layout> {
        let (start, end) = python_bounds(range.bounds(), step);
        let (start, end) = slice_args(start, end, step);
        self.slice(dim, start, end, step)
            .map_err(|e| e.named("slice_step"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The indices a `slice_step` of a dim of size `n` keeps, read back from offsets.
    fn kept(n: usize, range: impl SliceRange, step: isize) -> Vec<usize> {
        let l = Layout::contiguous(&[n])
            .unwrap()
            .slice_step(0, range, step)
            .unwrap();
        (0..l.shape()[0])
            .map(|i| l.offset_of(&[i]).unwrap())
            .collect()
    }

    #[test]
    #[allow(clippy::reversed_empty_ranges)] // backward walks start above their end
    fn included_ends_become_pythons_excluded_ones() {
        // Expected values written from Python: list(range(5))[a:b:c].
        assert_eq!(kept(5, 1..=3, 1), [1, 2, 3]); // [1:4]
        assert_eq!(kept(5, -3..=-1, 1), [2, 3, 4]); // [-3:] (not [-3:0])
        assert_eq!(kept(5, ..=-2, 1), [0, 1, 2, 3]); // [:-1]
        assert_eq!(kept(5, 3..=0, -1), [3, 2, 1, 0]); // [3::-1] (not [3:-1:-1])
        assert_eq!(kept(5, 3..=1, -1), [3, 2, 1]); // [3:0:-1]
        assert_eq!(kept(5, ..=-2, -1), [4, 3]); // [:-3:-1]
        assert_eq!(kept(5, ..=usize::MAX, 2), [0, 2, 4]);
        assert_eq!(kept(5, i64::MIN..=i64::MAX, 1), [0, 1, 2, 3, 4]);
        assert_eq!(kept(5, ..=i64::MIN, 1), Vec::<usize>::new());
        assert_eq!(kept(5, ..=i64::MIN, -1), [4, 3, 2, 1, 0]);
        assert_eq!(kept(5, u64::MAX.., -1), [4, 3, 2, 1, 0]);
    }
}
