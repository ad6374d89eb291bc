//! Indexing ops: index_select, gather, scatter, masks, nonzero, take.
//!
//! Indices are tensors of any integer type ([`IntElement`]: `i64` as in PyTorch, or `i32`,
//! `u8`, `u64` ...), read through their strides like any operand. Every index is checked
//! before anything is written: a negative index or one not below the size it indexes is
//! [`Error::IndexOutOfBounds`] naming the op, the dim, the index and the size (a `u64` index
//! past `i64::MAX`, [`Error::IndexTooLarge`]), and no result exists.
//!
//! Negative indices are errors in every op and for every type: PyTorch's `index_select`,
//! `gather` and `scatter` reject them too, and this crate's `take` keeps the same rule rather
//! than PyTorch's count from the end (one rule for all index ops; wrap first, e.g. with
//! [`Tensor::rem`], to count from the end).
//!
//! Masks are tensors of any integer type too; any non-zero element selects, as in
//! [`Tensor::where_cond`]. `u8` masks (what comparisons return) are the usual kind; there is
//! no `Tensor<bool>` (see [`Tensor::from_bools`] for why, and for building a mask from
//! `bool`s).
//!
//! No operand is copied to make it contiguous: the kernels (`crate::kernels::gather`) and the
//! iteration engine read every operand in place. Results are fresh row-major tensors, except
//! `scatter`/`scatter_add` (a copy of `self` in `self`'s memory order, see
//! [`Layout::dense_like`](crate::Layout::dense_like)), `masked_fill` and `take` (the
//! elementwise output layout of [`Tensor::zip_map`]).

use super::Tensor;
use crate::element::Element;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::kernels::gather;
use crate::scalar::{IntElement, Numeric};

/// `Err(IndexOutOfBounds)` (or `IndexTooLarge`) naming the first index of `index`
/// (row-major) that is negative or not below `size`, if there is one.
///
/// The common all-valid case costs two parallel reductions (min and max); only a failure
/// walks the indices to name the first bad one.
fn check_indices<I: IntElement>(
    op: &'static str,
    dim: usize,
    index: &Tensor<I>,
    size: usize,
) -> Result<()> {
    if index.numel() == 0 {
        return Ok(());
    }
    let (lo, hi) = (index.min_all()?, index.max_all()?);
    let bad = |i: I| i.checked_index(size).is_none();
    if !bad(lo) && !bad(hi) {
        return Ok(());
    }
    let first = index
        .iter()
        .find(|&i| bad(i))
        .unwrap_or(if bad(lo) { lo } else { hi });
    Err(out_of_bounds(op, dim, first, size))
}

/// The error for index `i`, not in `0..size`: [`Error::IndexOutOfBounds`], or
/// [`Error::IndexTooLarge`] for a `u64` past `i64::MAX`.
#[cold]
fn out_of_bounds<I: IntElement>(op: &'static str, dim: usize, i: I, size: usize) -> Error {
    let wide = i.to_wide();
    match i64::try_from(wide) {
        Ok(index) => Error::IndexOutOfBounds {
            op,
            dim,
            index,
            size,
        },
        Err(_) => Error::IndexTooLarge {
            op,
            dim,
            index: wide as u64,
            size,
        },
    }
}

/// `Err(RankMismatch)` unless `got == expected` dims.
fn check_rank(op: &'static str, what: &'static str, expected: usize, got: usize) -> Result<()> {
    if expected == got {
        Ok(())
    } else {
        Err(Error::RankMismatch {
            op,
            what,
            expected,
            got,
        })
    }
}

/// `Err(InvalidArgument)` unless the index shape is no larger than `other` in every dim but
/// `except` (PyTorch's rule for `gather` and `scatter`).
fn check_within(
    op: &'static str,
    index: &[usize],
    other: &[usize],
    other_name: &str,
    except: Option<usize>,
) -> Result<()> {
    match (0..index.len()).find(|&d| Some(d) != except && index[d] > other[d]) {
        None => Ok(()),
        Some(d) => {
            let but = except.map_or(String::new(), |e| format!(" but {e}"));
            Err(Error::InvalidArgument {
                op,
                message: format!(
                    "the index has shape {index:?} and {other_name} has shape {other:?}: the \
                     index is larger in dim {d}; its size must be <= {other_name}'s in every \
                     dim{but}"
                ),
            })
        }
    }
}

impl<T: Element> Tensor<T> {
    /// The slices of `self` at `indices` along `dim`, in the order given (repeats allowed):
    /// `out[.., p, ..] = self[.., indices[p], ..]`, with `dim` of size `indices.numel()`.
    ///
    /// `indices` is 1-dim (or 0-dim, one index), of any integer type (`i64` as in PyTorch,
    /// `i32`, `u8`, ...). `self` is read through its strides; when the dims after `dim` form
    /// contiguous rows (e.g. rows of a row-major matrix), each selected row is moved with one
    /// `memcpy`. The result is a fresh row-major tensor.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::RankMismatch`] if `indices` has more than one dim;
    /// [`Error::IndexOutOfBounds`] for the first index that is negative or not below
    /// `self.shape()[dim]` ([`Error::IndexTooLarge`] for a `u64` past `i64::MAX`; nothing is
    /// computed); [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec((0..12).collect::<Vec<i32>>(), &[4, 3])?;
    /// let idx = Tensor::from_vec(vec![3i64, 0, 3], &[3])?;
    /// assert_eq!(a.index_select(0, &idx)?.to_vec(), vec![9, 10, 11, 0, 1, 2, 9, 10, 11]);
    /// let cols = a.t()?.index_select(1, &Tensor::from_vec(vec![1i64], &[1])?)?;
    /// assert_eq!((cols.shape(), cols.to_vec()), (&[3, 1][..], vec![3, 4, 5]));
    /// assert!(a.index_select(0, &Tensor::from_vec(vec![4i64], &[1])?).is_err());
    /// let small = Tensor::from_vec(vec![3u8, 0], &[2])?; // any integer type
    /// assert_eq!(a.index_select(-2, &small)?.to_vec(), vec![9, 10, 11, 0, 1, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn index_select<I: IntElement>(
        &self,
        dim: impl crate::layout::Dim,
        indices: &Tensor<I>,
    ) -> Result<Tensor<T>> {
        let dim = dim.index("index_select", self.ndim().max(1))?;
        const OP: &str = "index_select";
        self.layout.check_dim(OP, dim)?;
        if indices.ndim() > 1 {
            return Err(Error::RankMismatch {
                op: OP,
                what: "index dims (at most)",
                expected: 1,
                got: indices.ndim(),
            });
        }
        let size = self.shape()[dim];
        let picked = indices
            .iter()
            .map(|i| {
                i.checked_index(size)
                    .ok_or_else(|| out_of_bounds(OP, dim, i, size))
            })
            .collect::<Result<Vec<usize>>>()?;
        Ok(Tensor::fresh(gather::index_select(
            self.src(),
            dim,
            &picked,
        )?))
    }

    /// Values picked along `dim` by an index tensor of the same rank (PyTorch's `gather`):
    /// `out[i][j][k] = self[index[i][j][k]][j][k]` for `dim == 0`, and likewise for other
    /// dims. The result has `index`'s shape.
    ///
    /// `index` holds any integer type and may be smaller than `self` in any dim (larger only
    /// along `dim`); both are read through their strides. The result is a fresh row-major
    /// tensor.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::RankMismatch`] if `index.ndim() != self.ndim()`;
    /// [`Error::InvalidArgument`] if `index` is larger than `self` in a dim other than `dim`;
    /// [`Error::IndexOutOfBounds`] for the first index not in `0..self.shape()[dim]`
    /// (negative ones included; [`Error::IndexTooLarge`] for a `u64` past `i64::MAX`);
    /// [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let idx = Tensor::from_vec(vec![2i64, 0, 1, 1], &[2, 2])?;
    /// assert_eq!(a.gather(1, &idx)?.to_vec(), vec![3, 1, 5, 5]);
    /// let rows = Tensor::from_vec(vec![1i64, 0, 1], &[1, 3])?;
    /// assert_eq!(a.gather(0, &rows)?.to_vec(), vec![4, 2, 6]);
    /// assert!(a.gather(1, &Tensor::from_vec(vec![3i64], &[1, 1])?).is_err());
    /// assert!(a.gather(1, &Tensor::from_vec(vec![0i64], &[1])?).is_err()); // rank 1 != 2
    /// let idx32 = Tensor::from_vec(vec![2i32, 0, 1, 1], &[2, 2])?;
    /// assert_eq!(a.gather(-1, &idx32)?.to_vec(), vec![3, 1, 5, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn gather<I: IntElement>(
        &self,
        dim: impl crate::layout::Dim,
        index: &Tensor<I>,
    ) -> Result<Tensor<T>> {
        let dim = dim.index("gather", self.ndim().max(1))?;
        const OP: &str = "gather";
        self.layout.check_dim(OP, dim)?;
        check_rank(OP, "index dims", self.ndim(), index.ndim())?;
        check_within(OP, index.shape(), self.shape(), "the input", Some(dim))?;
        check_indices(OP, dim, index, self.shape()[dim])?;
        Ok(Tensor::fresh(gather::gather(self.src(), dim, index.src())?))
    }

    /// A copy of `self` with values of `src` written at positions given by `index` along
    /// `dim` (PyTorch's out-of-place `scatter`): for `dim == 0`,
    /// `out[index[i][j]][j] = src[i][j]` for every position `(i, j)` of `index`, and likewise
    /// for other dims; every other element is `self`'s.
    ///
    /// Positions of `index` are applied in row-major order, so where two positions name the
    /// same element, **the later one wins** (PyTorch leaves this unspecified). `index` holds
    /// any integer type, has `self`'s rank and may be smaller than `self` in every dim but `dim`, and no larger
    /// than `src` in any dim; all three are read through their strides. The result is a copy
    /// of `self` in `self`'s memory order (see
    /// [`Layout::dense_like`](crate::Layout::dense_like)).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::RankMismatch`] if `index` or `src` has another rank
    /// than `self`; [`Error::InvalidArgument`] if `index` is larger than `self` off `dim` or
    /// than `src` anywhere; [`Error::IndexOutOfBounds`] for the first index not in
    /// `0..self.shape()[dim]` ([`Error::IndexTooLarge`] for a `u64` past `i64::MAX`), before
    /// anything is written; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::<i32>::zeros(&[2, 3])?;
    /// let idx = Tensor::from_vec(vec![2i64, 0, 0], &[1, 3])?;
    /// let src = Tensor::from_vec(vec![7, 8, 9, 10, 11, 12], &[2, 3])?;
    /// let out = a.scatter(1, &idx, &src)?; // row 0: 7 -> col 2, then 8 and 9 -> col 0
    /// assert_eq!(out.to_vec(), vec![9, 0, 7, 0, 0, 0]); // the later 9 wins over 8
    /// assert!(a.scatter(1, &Tensor::from_vec(vec![-1i64], &[1, 1])?, &src).is_err());
    /// let idx16 = Tensor::from_vec(vec![2u16, 0, 0], &[1, 3])?;
    /// assert_eq!(a.scatter(1, &idx16, &src)?, out);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn scatter<I: IntElement>(
        &self,
        dim: impl crate::layout::Dim,
        index: &Tensor<I>,
        src: &Tensor<T>,
    ) -> Result<Tensor<T>> {
        let dim = dim.index("scatter", self.ndim().max(1))?;
        self.scatter_with("scatter", dim, index, src, |_, new| new)
    }

    /// The checks and the kernel of `scatter` and `scatter_add`.
    fn scatter_with<I: IntElement>(
        &self,
        op: &'static str,
        dim: usize,
        index: &Tensor<I>,
        src: &Tensor<T>,
        combine: impl Fn(T, T) -> T,
    ) -> Result<Tensor<T>> {
        self.layout.check_dim(op, dim)?;
        check_rank(op, "index dims", self.ndim(), index.ndim())?;
        check_rank(op, "source dims", self.ndim(), src.ndim())?;
        check_within(op, index.shape(), self.shape(), "the input", Some(dim))?;
        check_within(op, index.shape(), src.shape(), "the source", None)?;
        check_indices(op, dim, index, self.shape()[dim])?;
        Ok(Tensor::fresh(gather::scatter(
            self.src(),
            dim,
            index.src(),
            src.src(),
            combine,
        )?))
    }

    /// `self` with `value` wherever `mask` is non-zero, the two broadcast together (PyTorch's
    /// out-of-place `masked_fill`): the result has the broadcast shape, and is
    /// `where_cond(mask, value, self)`. The mask holds any integer type (`u8`, as comparisons
    /// return, or `i32`, `i64` ...); [`Tensor::from_bools`] builds one from `bool`s.
    ///
    /// # Errors
    /// [`Error::BroadcastMismatch`] if the shapes do not broadcast; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let col = Tensor::from_vec(vec![0u8, 1], &[2])?; // broadcast over the rows
    /// assert_eq!(a.masked_fill(&col, -1.0)?.to_vec(), vec![1.0, -1.0, 3.0, -1.0]);
    /// assert!(a.masked_fill(&Tensor::<u8>::zeros(&[3])?, 0.0).is_err());
    /// let rows = Tensor::from_vec(vec![1i64, 0], &[2, 1])?; // an i64 mask
    /// assert_eq!(a.masked_fill(&rows, 0.0)?.to_vec(), vec![0.0, 0.0, 3.0, 4.0]);
    /// let bools = Tensor::from_bools(&[true, false, false, true], &[2, 2])?;
    /// assert_eq!(a.masked_fill(&bools, 9.0)?.to_vec(), vec![9.0, 2.0, 3.0, 9.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn masked_fill<M: IntElement>(&self, mask: &Tensor<M>, value: T) -> Result<Tensor<T>> {
        Tensor::where_cond(mask, &Tensor::full(&[], value)?, self)
            .map_err(|e| e.named("masked_fill"))
    }

    /// The elements of `self` where `mask` is non-zero, as a 1-dim tensor, in row-major order
    /// (PyTorch's `masked_select`). `mask` and `self` broadcast together (usually `mask`
    /// broadcasts to `self`'s shape); an element of `self` repeated by broadcasting is taken
    /// once per selected position. The mask holds any integer type, non-zero selecting.
    ///
    /// # Errors
    /// [`Error::BroadcastMismatch`] if the shapes do not broadcast; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<u16>>(), &[2, 3])?;
    /// let mask = a.cmp_ge(&Tensor::full(&[], 2)?)?;
    /// assert_eq!(a.t()?.masked_select(&mask.t()?)?.to_vec(), vec![3, 4, 2, 5]);
    /// let row = Tensor::from_vec(vec![1u8, 0, 1], &[3])?;
    /// assert_eq!(a.masked_select(&row)?.to_vec(), vec![0, 2, 3, 5]);
    /// assert!(a.masked_select(&Tensor::<u8>::zeros(&[2])?).is_err());
    /// let wide = Tensor::from_vec(vec![-1i32, 0, 2], &[3])?; // non-zero selects
    /// assert_eq!(a.masked_select(&wide)?.to_vec(), vec![0, 2, 3, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn masked_select<M: IntElement>(&self, mask: &Tensor<M>) -> Result<Tensor<T>> {
        let out = gather::masked_select(self.src(), mask.src());
        Ok(Tensor::fresh(out.map_err(|e| e.named("masked_select"))?))
    }

    /// The multi-indices of the non-zero elements, in row-major order, as a `[count, ndim]`
    /// tensor (PyTorch's `nonzero`). An element is non-zero when `x != 0`: NaN is, `-0.0` is
    /// not.
    ///
    /// # Panics
    /// Only if the result cannot be allocated.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![0.0f32, 1.5, 0.0, -0.0, f32::NAN, 2.0], &[2, 3])?;
    /// let nz = a.nonzero();
    /// assert_eq!(nz.shape(), &[3, 2]);
    /// assert_eq!(nz.to_vec(), vec![0, 1, 1, 1, 1, 2]);
    /// assert_eq!(a.t()?.nonzero().to_vec(), vec![1, 0, 1, 1, 2, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn nonzero(&self) -> Tensor<i64> {
        gather::nonzero(self.src())
            .map(Tensor::fresh)
            .or_panic("nonzero")
    }

    /// The elements of `self` at positions of its row-major flattening (PyTorch's `take`):
    /// `out[i] = self.flatten()[indices[i]]`, with `indices`' shape. `self` is read through
    /// its strides (never flattened by a copy).
    ///
    /// `indices` holds any integer type. Negative indices are errors, as in the other index
    /// ops (PyTorch's `take` would count them from the end: one rule for every index op
    /// here).
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] (with `dim` 0 and `size` = `self.numel()`) for the first
    /// index not in `0..self.numel()` ([`Error::IndexTooLarge`] for a `u64` past
    /// `i64::MAX`); [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i64>>(), &[2, 3])?;
    /// let idx = Tensor::from_vec(vec![5i64, 0, 1, 1], &[2, 2])?;
    /// assert_eq!(a.t()?.take(&idx)?.to_vec(), vec![5, 0, 3, 3]); // a.t() is [[0, 3], [1, 4], [2, 5]]
    /// assert!(a.take(&Tensor::from_vec(vec![6i64], &[1])?).is_err());
    /// assert_eq!(a.take(&Tensor::from_vec(vec![5u32, 0], &[2])?)?.to_vec(), vec![5, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn take<I: IntElement>(&self, indices: &Tensor<I>) -> Result<Tensor<T>> {
        let n = self.numel();
        check_indices("take", 0, indices, n)?;
        // Every index is in 0..n (checked above), so `pos` never panics: one predictable
        // compare per index, beside a read from anywhere in `data`.
        let pos = move |i: I| {
            i.checked_index(n)
                .unwrap_or_else(|| panic!("take: index {i} escaped validation"))
        };
        // Same elements, same row-major order, fewest dims: one multiply-add per index for
        // any layout that coalesces to one dim.
        let l = self.layout.coalesced();
        let data = self.storage.as_slice();
        let base = l.offset() as isize;
        // Offsets are addressed by the layout (indices checked above), so in bounds of
        // `data` by the tensor invariant; slice indexing re-checks.
        match (l.shape(), l.strides()) {
            ([], _) => indices.try_map(|_| data[base as usize]),
            (_, &[s]) => indices.try_map(move |i| data[(base + pos(i) as isize * s) as usize]),
            (shape, strides) => indices.try_map(move |i| {
                let (mut rest, mut off) = (pos(i), base);
                for d in (0..shape.len()).rev() {
                    off += (rest % shape[d]) as isize * strides[d];
                    rest /= shape[d];
                }
                data[off as usize]
            }),
        }
    }
}

impl<T: Numeric> Tensor<T> {
    /// A copy of `self` with the values of `src` added at positions given by `index` along
    /// `dim` (PyTorch's out-of-place `scatter_add`): for `dim == 0`,
    /// `out[index[i][j]][j] += src[i][j]`, and likewise for other dims. Repeated indices
    /// accumulate; the additions are made in row-major order of `index`, so float results do
    /// not depend on threads. Integers wrap.
    ///
    /// Shape rules, layout of the result and errors as [`Tensor::scatter`].
    ///
    /// # Errors
    /// As [`Tensor::scatter`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::full(&[3], 10.0f32)?;
    /// let idx = Tensor::from_vec(vec![0i64, 2, 0, 0], &[4])?;
    /// let src = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4])?;
    /// assert_eq!(a.scatter_add(0, &idx, &src)?.to_vec(), vec![18.0, 10.0, 12.0]);
    /// assert!(a.scatter_add(0, &Tensor::from_vec(vec![3i64], &[1])?, &src).is_err());
    /// let idx8 = Tensor::from_vec(vec![0u8, 2, 0, 0], &[4])?;
    /// assert_eq!(a.scatter_add(0, &idx8, &src)?.to_vec(), vec![18.0, 10.0, 12.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn scatter_add<I: IntElement>(
        &self,
        dim: impl crate::layout::Dim,
        index: &Tensor<I>,
        src: &Tensor<T>,
    ) -> Result<Tensor<T>> {
        let dim = dim.index("scatter_add", self.ndim().max(1))?;
        self.scatter_with("scatter_add", dim, index, src, T::elem_add)
    }
}
