//! Multi-dim indexing, PyTorch's `x[1:3, ::2, 0, None]`: the items ([`SliceItem`], built by
//! [`s!`](crate::s) or converted from ranges, integers and [`NewAxis`]), the argument of `i`
//! ([`IndexArg`]: an `s![]`, a tuple of items, or one item) and [`Layout::i`], which applies
//! every item in one pass to build one layout.

use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

use super::Layout;
use super::dims::Dims;
use super::slice_range::{SliceRange, python_bounds, slice_args};
use super::view_ops::{shifted, slice_dim};
use crate::error::{Error, Result};

/// One item of a multi-dim index ([`s!`](crate::s), [`Layout::i`], `Tensor::i`). Items apply
/// to the dims from the first on; dims left over after the last item are kept whole.
///
/// Usually built by `s![]` or converted (`From`) from a range (`1..3`, `..`, `-2..`; any
/// [`SliceRange`]), an integer (any type [`Dim`](crate::Dim) accepts) or [`NewAxis`].
///
/// ```
/// use stridex::{NewAxis, SliceItem, s};
/// assert_eq!(SliceItem::from(1..3), SliceItem::Range { start: Some(1), end: Some(3), step: 1 });
/// assert_eq!(SliceItem::from(-1), SliceItem::Index(-1));
/// assert_eq!(SliceItem::from(NewAxis), SliceItem::NewAxis);
/// assert_eq!(s![..;-1], [SliceItem::Range { start: None, end: None, step: -1 }]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SliceItem {
    /// Python's `start:end:step` of one dim ([`Layout::slice`]'s rules; `None`: open).
    Range {
        /// The first index walked (`None`: the first, or the last for a negative step).
        start: Option<isize>,
        /// Where the walk stops, excluded (`None`: past the last index walked).
        end: Option<isize>,
        /// The step, not 0; negative walks backwards.
        step: isize,
    },
    /// One index of one dim (negative from the end), which the result drops: `x[2]`.
    Index(isize),
    /// A new dim of size 1, taking no dim of the input: Python's `x[None]`.
    NewAxis,
    /// As many whole dims as the other items leave: Python's `x[..., 0]` (at most one per
    /// index; [`Ellipsis`]).
    Ellipsis,
}

impl SliceItem {
    /// `range` walked with `step`: `s![range;step]`, Python's `start:end:step`. A negative
    /// `step` walks backwards from the range's start (see [`SliceRange`] for included ends).
    ///
    /// ```
    /// use stridex::SliceItem;
    /// let every_2nd = SliceItem::range_step(.., 2);
    /// assert_eq!(every_2nd, SliceItem::Range { start: None, end: None, step: 2 });
    /// let down = SliceItem::range_step(3..=1, -1); // Python's 3:0:-1
    /// assert_eq!(down, SliceItem::Range { start: Some(3), end: Some(0), step: -1 });
    /// ```
    #[must_use]
    #[inline]
    pub fn range_step(range: impl SliceRange, step: isize) -> SliceItem {
        let (start, end) = python_bounds(range.bounds(), step);
        SliceItem::Range { start, end, step }
    }
}

/// The index item that inserts a new dim of size 1 (NumPy's `np.newaxis`, Python's `None`):
/// `s![.., NewAxis]`, `x.i((NewAxis, ..))`.
///
/// ```
/// use stridex::{NewAxis, Tensor, s};
/// let a = Tensor::<f32>::zeros(&[2, 3])?;
/// assert_eq!(a.i(s![.., NewAxis])?.shape(), &[2, 1, 3]);
/// assert_eq!(a.i((NewAxis,))?.shape(), &[1, 2, 3]);
/// # Ok::<(), stridex::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NewAxis;

impl From<NewAxis> for SliceItem {
    #[inline]
    fn from(_: NewAxis) -> SliceItem {
        SliceItem::NewAxis
    }
}

/// The index item that stands for every dim the other items do not take, kept whole (Python's
/// `...`): `s![Ellipsis, ..2]` is `x[..., :2]`, `x.i((0, Ellipsis, NewAxis))` is
/// `x[0, ..., None]`. At most one per index; it may stand for no dim at all.
///
/// ```
/// use stridex::{Ellipsis, NewAxis, Tensor, s};
/// let a = Tensor::arange(0i32, 24, 1)?.view(&[2, 3, 4])?;
/// assert_eq!(a.i(s![Ellipsis, ..2])?.shape(), &[2, 3, 2]);
/// assert_eq!(a.i(s![Ellipsis, 1])?.to_vec(), a.select(2, 1)?.to_vec());
/// assert_eq!(a.i((0, Ellipsis, NewAxis))?.shape(), &[3, 4, 1]);
/// assert_eq!(a.i(s![1, 2, Ellipsis, 3])?.shape(), &[0usize; 0]);
/// assert!(a.i(s![Ellipsis, 0, Ellipsis]).is_err());
/// # Ok::<(), stridex::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ellipsis;

impl From<Ellipsis> for SliceItem {
    #[inline]
    fn from(_: Ellipsis) -> SliceItem {
        SliceItem::Ellipsis
    }
}

impl From<RangeFull> for SliceItem {
    #[inline]
    fn from(r: RangeFull) -> SliceItem {
        SliceItem::range_step(r, 1)
    }
}

/// `IndexArg` for types that convert into one `SliceItem`: an index of one item.
macro_rules! single_items {
    ($($t:ty),*) => {$(
        impl IndexArg for $t {
            type Items = [SliceItem; 1];
            #[inline]
            fn into_items(self) -> [SliceItem; 1] {
                [self.into()]
            }
        }
    )*};
}

/// `SliceItem` from integers (an index) and ranges (step 1) of each integer type, and
/// `IndexArg` for each.
macro_rules! integer_items {
    (@ranges $t:ty: $($range:ident),*) => {$(
        impl From<$range<$t>> for SliceItem {
            #[inline]
            fn from(r: $range<$t>) -> SliceItem {
                SliceItem::range_step(r, 1)
            }
        }
    )*};
    ($($t:ty),*) => {$(
        impl From<$t> for SliceItem {
            /// Index `i` of its dim (negative from the end); a value past `isize` saturates,
            /// and is out of range for every dim.
            #[inline]
            fn from(i: $t) -> SliceItem {
                SliceItem::Index((i as i128).clamp(isize::MIN as i128, isize::MAX as i128) as isize)
            }
        }
        integer_items!(@ranges $t: Range, RangeFrom, RangeTo, RangeInclusive, RangeToInclusive);
        single_items!($t, Range<$t>, RangeFrom<$t>, RangeTo<$t>, RangeInclusive<$t>,
            RangeToInclusive<$t>);
    )*};
}

integer_items!(usize, u32, u64, i32, i64, isize);
single_items!(RangeFull, NewAxis, Ellipsis, SliceItem);

/// What `i` takes ([`Layout::i`], `Tensor::i`): the items of a multi-dim index, in order.
///
/// - `s![...]` (an array of [`SliceItem`]s), or a slice or `Vec` of them built at run time;
/// - a tuple of up to 6 items, each a range, an integer, [`NewAxis`] or a `SliceItem`:
///   `(.., 1..3)`, `(0, ..)`, `(-1, NewAxis)`;
/// - one item on its own: `1..3`, `..`, `0`, `NewAxis`.
///
/// ```
/// use stridex::{SliceItem, Tensor, s};
/// let a = Tensor::arange(0i32, 12, 1)?.view(&[3, 4])?;
/// assert_eq!(a.i(1)?.to_vec(), vec![4, 5, 6, 7]);
/// assert_eq!(a.i((.., 1..3))?.shape(), &[3, 2]);
/// assert_eq!(a.i(s![.., -1])?.to_vec(), vec![3, 7, 11]);
/// let items: Vec<SliceItem> = vec![(0..3).into(), SliceItem::range_step(.., 3)];
/// assert_eq!(a.i(&items[..])?.shape(), &[3, 2]);
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait IndexArg {
    /// The items, as an array or a slice.
    type Items: AsRef<[SliceItem]>;

    /// The items, in order.
    fn into_items(self) -> Self::Items;
}

impl<const N: usize> IndexArg for [SliceItem; N] {
    type Items = [SliceItem; N];
    #[inline]
    fn into_items(self) -> [SliceItem; N] {
        self
    }
}

impl<'a, const N: usize> IndexArg for &'a [SliceItem; N] {
    type Items = &'a [SliceItem];
    #[inline]
    fn into_items(self) -> &'a [SliceItem] {
        self
    }
}

impl<'a> IndexArg for &'a [SliceItem] {
    type Items = &'a [SliceItem];
    #[inline]
    fn into_items(self) -> &'a [SliceItem] {
        self
    }
}

impl IndexArg for Vec<SliceItem> {
    type Items = Vec<SliceItem>;
    #[inline]
    fn into_items(self) -> Vec<SliceItem> {
        self
    }
}

impl<'a> IndexArg for &'a Vec<SliceItem> {
    type Items = &'a [SliceItem];
    #[inline]
    fn into_items(self) -> &'a [SliceItem] {
        self
    }
}

macro_rules! tuple_items {
    ($n:literal: $($a:ident),*) => {
        impl<$($a: Into<SliceItem>),*> IndexArg for ($($a,)*) {
            type Items = [SliceItem; $n];
            #[inline]
            #[allow(non_snake_case)]
            fn into_items(self) -> [SliceItem; $n] {
                let ($($a,)*) = self;
                [$($a.into()),*]
            }
        }
    };
}

tuple_items!(0:);
tuple_items!(1: A);
tuple_items!(2: A, B);
tuple_items!(3: A, B, C);
tuple_items!(4: A, B, C, D);
tuple_items!(5: A, B, C, D, E);
tuple_items!(6: A, B, C, D, E, F);

/// A multi-dim index, as ndarray's `s![]` and Python's `x[...]` write it: items separated by
/// commas, each a range (`1..3`, `..`, `-2..`, `..=4`), a range with a step after `;`
/// (`..;2` is Python's `::2`, `..;-1` reverses), an integer (selects one index and drops the
/// dim; negative from the end), [`NewAxis`] (a new size-1 dim, Python's `None`) or
/// [`Ellipsis`] (every dim the other items leave, kept whole: Python's `...`). Items apply to
/// the dims from the first on; dims after the last item are kept whole (PyTorch's rule). The result is an array of [`SliceItem`]s, for [`Layout::i`] and `Tensor::i`.
/// A stepped range may read reversed (`5..1;-1`, a backward walk from 5) without tripping
/// clippy's `reversed_empty_ranges` lint.
///
/// | Python | stridex |
/// |---|---|
/// | `x[1:3]` | `x.i(s![1..3])?` or `x.i(1..3)?` |
/// | `x[:, ::2]` | `x.i(s![.., ..;2])?` |
/// | `x[::-1, 0]` | `x.i(s![..;-1, 0])?` |
/// | `x[..., None]` | `x.i(s![Ellipsis, NewAxis])?` |
/// | `x[..., :2]` | `x.i(s![Ellipsis, ..2])?` |
///
/// ```
/// use stridex::{NewAxis, Tensor, s};
/// let x = Tensor::arange(0i32, 24, 1)?.view(&[2, 3, 4])?;
/// let v = x.i(s![.., 1..3, ..;2])?; // x[:, 1:3, ::2]
/// assert_eq!(v.shape(), &[2, 2, 2]);
/// assert_eq!(v.to_vec(), vec![4, 6, 8, 10, 16, 18, 20, 22]);
/// assert_eq!(x.i(s![-1, ..;-1, 0])?.to_vec(), vec![20, 16, 12]); // x[-1, ::-1, 0]
/// assert_eq!(x.i(s![0, NewAxis])?.shape(), &[1, 3, 4]); // x[0, None]
/// # Ok::<(), stridex::Error>(())
/// ```
#[doc(alias = "index")]
#[doc(alias = "slice")]
#[macro_export]
macro_rules! s {
    (@item $r:expr) => {
        $crate::SliceItem::from($r)
    };
    (@item $r:expr; $step:expr) => {{
        // A backward walk starts above its end (`5..1;-1`), which reads as an empty range to
        // clippy's `reversed_empty_ranges` (deny by default); here it is what is meant.
        #[allow(clippy::reversed_empty_ranges)]
        let range = $r;
        $crate::SliceItem::range_step(range, $step)
    }};
    ($($r:expr $(; $step:expr)?),* $(,)?) => {
        [$($crate::s!(@item $r $(; $step)?)),*]
    };
}

impl Layout {
    /// Applies a multi-dim index ([`IndexArg`]: `s![..]`, a tuple of items, one item), all
    /// items in one pass: ranges slice their dim ([`Layout::slice`]'s rules), integers select
    /// one index and drop the dim, [`NewAxis`] inserts a size-1 dim (with
    /// [`Layout::unsqueeze`]'s stride), [`Ellipsis`] keeps whole every dim the other items
    /// leave, and dims after the last item are kept whole. Builds one layout; allocates only
    /// its shape and strides (nothing up to 4 dims).
    ///
    /// # Errors
    /// [`Error::IndexItem`] naming `i`, the position of the item, its dim and the shape,
    /// with the cause: [`Error::ZeroStep`], [`Error::IndexOutOfBounds`] for an integer
    /// outside `-size..size`, [`Error::RankMismatch`] when more items than dims take a
    /// dim, [`Error::InvalidArgument`] for a second [`Ellipsis`], [`Error::Overflow`].
    ///
    /// ```
    /// use stridex::{Layout, NewAxis, s};
    /// let l = Layout::contiguous(&[4, 5, 6])?;
    /// let v = l.i(s![1..3, -1, ..;-2, NewAxis])?;
    /// assert_eq!((v.shape(), v.strides(), v.offset()), (&[2, 3, 1][..], &[30, -2, 1][..], 59));
    /// assert_eq!(l.i(2)?, l.select(0, 2)?);
    /// assert!(l.i((0, 0, 0, 0)).is_err()); // 4 items for 3 dims
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "index")]
    pub fn i(&self, index: impl IndexArg) -> Result<Layout> {
        self.index_items("i", index.into_items().as_ref())
    }

    /// [`Layout::i`] of `items`, naming `op` in its errors.
    pub(crate) fn index_items(&self, op: &'static str, items: &[SliceItem]) -> Result<Layout> {
        let (shape, strides) = (self.shape(), self.strides());
        let n = shape.len();
        let wrap = |item: usize, dim: usize, cause: Error| Error::IndexItem {
            op,
            item,
            dim,
            shape: shape.to_vec(),
            cause: Box::new(cause),
        };
        // The result's rank first, so its arrays are built once at their size.
        let (mut taken, mut dropped, mut added) = (0usize, 0usize, 0usize);
        let mut ellipsis = None;
        for (k, item) in items.iter().enumerate() {
            match item {
                SliceItem::NewAxis => added += 1,
                SliceItem::Index(_) => (taken, dropped) = (taken + 1, dropped + 1),
                SliceItem::Range { .. } => taken += 1,
                SliceItem::Ellipsis => {
                    if let Some(first) = ellipsis.replace(k) {
                        let cause = Error::InvalidArgument {
                            op,
                            message: format!(
                                "items {first} and {k} are both Ellipsis; an index has at \
                                 most one (it stands for every dim the other items leave)"
                            ),
                        };
                        return Err(wrap(k, taken, cause));
                    }
                }
            }
            if taken > n {
                let got = items
                    .iter()
                    .filter(|it| matches!(it, SliceItem::Index(_) | SliceItem::Range { .. }))
                    .count();
                let cause = Error::RankMismatch {
                    op,
                    what: "indexed dims (at most)",
                    expected: n,
                    got,
                };
                return Err(wrap(k, n, cause));
            }
        }
        // The dims an `Ellipsis` keeps whole (`taken <= n`, checked above).
        let spread = n - taken;
        let rank = n - dropped + added;
        let mut new_shape = Dims::<usize>::zeroed(rank);
        let mut new_strides = Dims::<isize>::zeroed(rank);
        // The offset moves by the sum of each dim's first index times its stride; a sum that
        // overflows belongs to an empty result (a result with elements starts at an element
        // of this layout), which keeps the offset (see `shifted`).
        let mut delta = Some(0i128);
        let (mut d, mut o) = (0, 0);
        for (k, &item) in items.iter().enumerate() {
            match item {
                SliceItem::NewAxis => {
                    new_shape[o] = 1; // its stride is set below, once the next dim is known
                    o += 1;
                }
                SliceItem::Ellipsis => {
                    new_shape[o..o + spread].copy_from_slice(&shape[d..d + spread]);
                    new_strides[o..o + spread].copy_from_slice(&strides[d..d + spread]);
                    (d, o) = (d + spread, o + spread);
                }
                SliceItem::Index(i) => {
                    let size = shape[d];
                    let at = if i < 0 {
                        size as i128 + i as i128
                    } else {
                        i as i128
                    };
                    if !(0..size as i128).contains(&at) {
                        let cause = Error::IndexOutOfBounds {
                            op,
                            dim: d,
                            index: i as i64,
                            size,
                        };
                        return Err(wrap(k, d, cause));
                    }
                    delta = delta.and_then(|t| t.checked_add(at * strides[d] as i128));
                    d += 1;
                }
                SliceItem::Range { start, end, step } => {
                    if step == 0 {
                        return Err(wrap(k, d, Error::ZeroStep { op, dim: d }));
                    }
                    let (start, end) = slice_args(start, end, step);
                    let Some((first, len, stride)) =
                        slice_dim(shape[d], strides[d], start, end, step)
                    else {
                        let cause = Error::Overflow {
                            op,
                            shape: shape.to_vec(),
                            strides: strides.to_vec(),
                        };
                        return Err(wrap(k, d, cause));
                    };
                    delta = delta.and_then(|t| t.checked_add(first as i128 * strides[d] as i128));
                    (new_shape[o], new_strides[o]) = (len, stride);
                    (d, o) = (d + 1, o + 1);
                }
            }
        }
        new_shape[o..].copy_from_slice(&shape[d..]);
        new_strides[o..].copy_from_slice(&strides[d..]);
        // New dims get the stride `size * stride` of the dim after them (1 at the end), as
        // `unsqueeze` gives: walked back to front, so a run of new dims chains.
        for item in items.iter().rev() {
            match item {
                SliceItem::NewAxis => {
                    o -= 1;
                    new_strides[o] = match new_shape.get(o + 1) {
                        Some(&size) => new_strides[o + 1].checked_mul(size as isize).unwrap_or(1),
                        None => 1,
                    };
                }
                SliceItem::Range { .. } => o -= 1,
                SliceItem::Ellipsis => o -= spread,
                SliceItem::Index(_) => {}
            }
        }
        let offset = delta.map_or(self.offset(), |t| shifted(self.offset(), t));
        Layout::checked(op, &new_shape, &new_strides, offset)
    }
}
