//! The view API, written once for [`Tensor`](crate::Tensor), [`TensorView`](crate::TensorView)
//! and [`TensorMut`](crate::TensorMut).
//!
//! The three types differ only in how they hold the storage (a shared `Arc`, a borrowed
//! `&Arc`, a borrowed `&mut`) and in their receivers: `Tensor`'s view ops take `&self` and
//! return a new tensor sharing the storage, the borrowed views' consume `self` and return a
//! view of the same memory. Every view op is the [`Layout`](crate::Layout) op of the same name
//! with the same errors, so the ops are generated here, once, as inherent methods of each type
//! (inherent, so that no trait import is needed and `rustdoc` lists them with the type), from
//! two steps each type supplies in its own module:
//!
//! - `view_edit(recv, f)`: the result of editing (a copy of) the receiver's layout with `f`,
//!   over the same storage; the borrowed views edit their own layout in place, `Tensor` a
//!   copy. Used by the ops with an in-place `Layout` form (`transpose`, `t`, `narrow`): the
//!   layout is built where it is returned (see `Layout::transpose_in_place`).
//! - `view_rewrap(recv, layout)`: the same storage under a layout a view op derived from the
//!   receiver's.
//!
//! Every dim argument is a `Dim` (any integer type; negative values count from the end,
//! PyTorch's rule), resolved first; the `Layout` op then checks the range as before. Shapes
//! for `view` are a `ShapeArg` (one `-1` may be inferred), ranges for `slice` a `SliceRange`
//! (Python's slice rules), and the index of `i` an `IndexArg` (`s![..]`, a tuple, an item). `transpose` and `narrow` are
//! always inlined: with the dim resolution in them LLVM stopped inlining `narrow`, and an
//! owned `narrow` then `t` went from 1.08-1.22x to 1.31-1.49x ndarray's `ArcArray`.
//!
//! Both steps are always inlined, so a generated op costs what a hand-written one did. A view op
//! addresses a subset of the offsets its input addresses, so the result fits the storage (the
//! tensor invariant); `TensorMut` gets only the ops that also keep distinct indices on distinct
//! elements (`view_ops!`), the others get `shared_view_ops!` too. Each op has one doc
//! example, run against the type it documents (`$make` turns the tensor `a` into that type, and
//! `$mut` is `"mut "` where that needs a mutable `a`). The rest of the vocabulary (`movedim`,
//! `rot90`, `unflatten`, `sliding_window_view`, ...) comes from the macros of
//! [`view_api_vocab`](crate::view_api_vocab), invoked at the end of these two with the same
//! arguments.

/// The accessors of a strided type: `shape`, `strides`, `offset`, `ndim`, `numel`, `layout`,
/// `is_contiguous`, `explain`. The type has a `layout: Layout` field and a private
/// `storage_len(&self)`.
macro_rules! layout_accessors {
    (name: $name:literal, make: $make:literal, mut: $mut:literal) => {
        /// The size of each dim.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".shape(), &[2, 3]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[must_use]
        #[inline]
        pub fn shape(&self) -> &[usize] {
            self.layout.shape()
        }

        /// The stride of each dim, in elements (negative for flipped dims, 0 for broadcast ones).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".t()?.strides(), &[1, 3]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[must_use]
        #[inline]
        pub fn strides(&self) -> &[isize] {
            self.layout.strides()
        }

        /// Storage offset of the first element, in elements.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[4])?;")]
        #[doc = concat!("assert_eq!(", $make, ".narrow(0, 1, 2)?.offset(), 1);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[must_use]
        #[inline]
        pub fn offset(&self) -> usize {
            self.layout.offset()
        }

        /// Number of dims.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".select(0, 1)?.ndim(), 1);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[must_use]
        #[inline]
        pub fn ndim(&self) -> usize {
            self.layout.ndim()
        }

        /// Number of elements.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".narrow(1, 0, 2)?.numel(), 4);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[must_use]
        #[inline]
        pub fn numel(&self) -> usize {
            self.layout.numel()
        }

        /// The layout (shape, strides, offset).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3])?;")]
        #[doc = concat!("assert!(!", $make, ".t()?.layout().is_contiguous());")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[must_use]
        #[inline]
        pub fn layout(&self) -> &$crate::layout::Layout {
            &self.layout
        }

        /// Whether the layout is row-major contiguous
        /// ([`Layout::is_contiguous`](crate::Layout::is_contiguous)).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3])?;")]
        #[doc = concat!("assert!(", $make, ".is_contiguous());")]
        #[doc = concat!("assert!(!", $make, ".t()?.is_contiguous());")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[must_use]
        #[inline]
        pub fn is_contiguous(&self) -> bool {
            self.layout.is_contiguous()
        }

        /// A readable description of the layout
        /// ([`Layout::explain`](crate::Layout::explain)) plus the storage it views.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[4, 4])?;")]
        #[doc = concat!("assert!(", $make, ".t()?.explain().contains(\"contiguous: no\"));")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[must_use]
        pub fn explain(&self) -> String {
            format!(
                "{}<{}> over a storage of {} elements\n{}",
                $name,
                T::DTYPE,
                self.storage_len(),
                self.layout.explain()
            )
        }
    };
}

/// The view ops every strided type has (none can make two indices address one element):
/// `view`, `transpose`, `t`, `permute`, `narrow`, `slice`, `slice_step`, `i`, `select`,
/// `squeeze`, `unsqueeze`, `flip`, `diagonal`, `diagonal_with`. `recv` is the receiver (`&self` or `self`) followed
/// by the `self` token the bodies use; `out` the result type.
macro_rules! view_ops {
    (recv: [$($recv:tt)*] $s:ident, out: $Out:ty, make: $make:literal, mut: $mut:literal) => {
        /// The same elements under a new shape, without copying
        /// ([`Layout::view`](crate::Layout::view)); one length may be `-1`, inferred from the
        /// element count ([`ShapeArg`](crate::ShapeArg)). An integer literal in the shape
        /// is an `i32` unless typed otherwise, so write a length past `i32` as
        /// `&[1usize << 40, 1 << 40]` (`&[1 << 40, 1 << 40]` does not compile).
        ///
        /// # Errors
        /// [`Error::NumelMismatch`](crate::Error::NumelMismatch), or
        /// [`Error::ViewNotPossible`](crate::Error::ViewNotPossible) when the strides cannot
        /// express the shape; then [`Tensor::reshape`](crate::Tensor::reshape) copies instead.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[4, 6])?;")]
        #[doc = concat!("assert_eq!(", $make, ".view(&[2, 12])?.strides(), &[12, 1]);")]
        #[doc = concat!("assert_eq!(", $make, ".view(&[-1, 8])?.shape(), &[3, 8]);")]
        #[doc = concat!("assert!(", $make, ".t()?.view(&[24]).is_err());")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn view(
            $($recv)*,
            shape: &(impl $crate::layout::ShapeArg + ?Sized),
        ) -> $crate::error::Result<$Out> {
            let shape = shape.resolve("view", $s.layout.numel())?;
            let l = $s.layout.view(&shape)?;
            Ok($s.view_rewrap(l))
        }

        /// Swaps two dims ([`Layout::transpose`](crate::Layout::transpose)).
        ///
        /// Dims may count from the end (`-1` is the last; [`Dim`](crate::Dim)).
        ///
        /// # Errors
        /// [`Error::DimOutOfRange`](crate::Error::DimOutOfRange) naming `transpose`.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3, 4])?;")]
        #[doc = concat!("assert_eq!(", $make, ".transpose(0, 2)?.shape(), &[4, 3, 2]);")]
        #[doc = concat!("assert_eq!(", $make, ".transpose(-2, -1)?.shape(), &[2, 4, 3]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[inline(always)]
        pub fn transpose(
            $($recv)*,
            d0: impl $crate::layout::Dim,
            d1: impl $crate::layout::Dim,
        ) -> $crate::error::Result<$Out> {
            let n = $s.layout.ndim();
            let (d0, d1) = (d0.index("transpose", n)?, d1.index("transpose", n)?);
            $s.view_edit(|l| l.transpose_in_place(d0, d1))
        }

        /// Matrix transpose of a view of at most 2 dims ([`Layout::t`](crate::Layout::t)).
        ///
        /// # Errors
        /// [`Error::RankMismatch`](crate::Error::RankMismatch) naming `t` for more than 2 dims.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".t()?.get(&[2, 1])?, 5);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[inline]
        pub fn t($($recv)*) -> $crate::error::Result<$Out> {
            $s.view_edit($crate::layout::Layout::t_in_place)
        }

        /// Reorders the dims: dim `i` of the result is dim `dims[i]`
        /// ([`Layout::permute`](crate::Layout::permute)).
        ///
        /// Dims may count from the end (`-1` is the last; [`Dim`](crate::Dim)).
        ///
        /// # Errors
        /// [`Error::NegativeDimOutOfRange`](crate::Error::NegativeDimOutOfRange),
        /// [`Error::NotAPermutation`](crate::Error::NotAPermutation) (naming the dims after
        /// negative ones are counted from the end).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3, 4])?;")]
        #[doc = concat!("assert_eq!(", $make, ".permute(&[1, 2, 0])?.shape(), &[3, 4, 2]);")]
        #[doc = concat!("assert_eq!(", $make, ".permute(&[-1, 0, 1])?.shape(), &[4, 2, 3]);")]
        #[doc = concat!("assert!(", $make, ".permute(&[-1, 2, 0]).is_err()); // dim 2 twice")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn permute(
            $($recv)*,
            dims: &[impl $crate::layout::Dim],
        ) -> $crate::error::Result<$Out> {
            let n = $s.layout.ndim();
            let dims = dims
                .iter()
                .map(|&d| d.index("permute", n))
                .collect::<$crate::error::Result<$crate::layout::Dims<usize>>>()?;
            let l = $s.layout.permute(&dims)?;
            Ok($s.view_rewrap(l))
        }

        /// Keeps elements `start..start + len` of `dim`
        /// ([`Layout::narrow`](crate::Layout::narrow)).
        ///
        /// Dims may count from the end (`-1` is the last; [`Dim`](crate::Dim)), and so may
        /// `start` (PyTorch's rule: `-1` is the last index of the dim, `-size` the first).
        ///
        /// # Errors
        /// [`Error::DimOutOfRange`](crate::Error::DimOutOfRange),
        /// [`Error::RangeOutOfBounds`](crate::Error::RangeOutOfBounds),
        /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a negative `start`
        /// below `-size`.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".narrow(1, 1, 2)?.to_vec(), vec![1, 2, 4, 5]);")]
        #[doc = concat!("assert_eq!(", $make, ".narrow(-1, 1, 2)?.to_vec(), vec![1, 2, 4, 5]);")]
        #[doc = concat!("assert_eq!(", $make, ".narrow(1, -2, 2)?.to_vec(), vec![1, 2, 4, 5]);")]
        #[doc = concat!("assert!(", $make, ".narrow(1, -4, 1).is_err());")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[inline(always)]
        pub fn narrow(
            $($recv)*,
            dim: impl $crate::layout::Dim,
            start: impl $crate::layout::Dim,
            len: usize,
        ) -> $crate::error::Result<$Out> {
            let n = $s.layout.ndim();
            let dim = dim.index("narrow", n)?;
            // A negative start counts back from the dim's size; a non-negative one never reads
            // it, so the common path costs nothing more (`narrow_in_place` checks the dim).
            let size = $s.layout.shape().get(dim).copied().unwrap_or(0);
            let start = start
                .index("narrow", size)
                .map_err(|e| $crate::layout::narrow_start_error(e, dim, n))?;
            $s.view_edit(|l| l.narrow_in_place(dim, start, len))
        }

        /// The indices of `dim` in `range`, Python's `x[a:b]` along one dim: any Rust range
        /// (`1..3`, `-2..`, `..=4`, `..`; [`SliceRange`](crate::SliceRange)), negative bounds
        /// counting from the end and bounds past either end clamped, as in Python.
        ///
        /// Dims may count from the end (`-1` is the last; [`Dim`](crate::Dim)).
        ///
        /// # Errors
        /// [`Error::DimOutOfRange`](crate::Error::DimOutOfRange),
        /// [`Error::NegativeDimOutOfRange`](crate::Error::NegativeDimOutOfRange).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".slice(1, 1..)?.to_vec(), vec![1, 2, 4, 5]);")]
        #[doc = concat!("assert_eq!(", $make, ".slice(-1, -2..=-2)?.to_vec(), vec![1, 4]);")]
        #[doc = concat!("assert_eq!(", $make, ".slice(0, 1..100)?.shape(), &[1, 3]); // clamped")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn slice(
            $($recv)*,
            dim: impl $crate::layout::Dim,
            range: impl $crate::layout::SliceRange,
        ) -> $crate::error::Result<$Out> {
            let dim = dim.index("slice", $s.layout.ndim())?;
            let l = $s.layout.slice_step(dim, range, 1).map_err(|e| e.named("slice"))?;
            Ok($s.view_rewrap(l))
        }

        /// Every `step`-th index of `dim` in `range`, Python's `x[a:b:step]` along one dim
        /// ([`Layout::slice_step`](crate::Layout::slice_step)): a negative `step` walks
        /// backwards from the range's start, so `slice_step(0, .., -1)` reverses dim 0 and
        /// Python's `x[5:1:-1]` is `slice_step(0, 5..1, -1)`.
        ///
        /// # Errors
        /// [`Error::DimOutOfRange`](crate::Error::DimOutOfRange),
        /// [`Error::NegativeDimOutOfRange`](crate::Error::NegativeDimOutOfRange),
        /// [`Error::ZeroStep`](crate::Error::ZeroStep).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[6])?;")]
        #[doc = concat!("assert_eq!(", $make, ".slice_step(0, 1.., 2)?.to_vec(), vec![1, 3, 5]);")]
        #[doc = concat!("assert_eq!(", $make, ".slice_step(0, .., -1)?.to_vec(), vec![5, 4, 3, 2, 1, 0]);")]
        #[doc = concat!("assert_eq!(", $make, ".slice_step(0, 5..1, -2)?.to_vec(), vec![5, 3]);")]
        #[doc = concat!("assert!(", $make, ".slice_step(0, .., 0).is_err());")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn slice_step(
            $($recv)*,
            dim: impl $crate::layout::Dim,
            range: impl $crate::layout::SliceRange,
            step: isize,
        ) -> $crate::error::Result<$Out> {
            let dim = dim.index("slice_step", $s.layout.ndim())?;
            let l = $s.layout.slice_step(dim, range, step)?;
            Ok($s.view_rewrap(l))
        }

        /// A multi-dim index, PyTorch's `x[1:3, ::2, 0, None]`
        /// ([`Layout::i`](crate::Layout::i)): an [`s!`](crate::s) (`x.i(s![1..3, ..;2, 0,
        /// NewAxis])?`), a tuple of up to 6 items (`x.i((.., 1..3))?`) or one item
        /// (`x.i(0)?`). Ranges slice their dim, integers select an index and drop the dim,
        /// [`NewAxis`](crate::NewAxis) inserts a size-1 dim; dims after the last item are kept
        /// whole. One view, whatever the number of items.
        ///
        /// # Errors
        /// [`Error::IndexItem`](crate::Error::IndexItem) naming `i`, the item, its dim and
        /// the shape.
        ///
        /// ```
        /// use stridex::{NewAxis, s};
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..12).collect::<Vec<i32>>(), &[3, 4])?;")]
        #[doc = concat!("assert_eq!(", $make, ".i(s![1.., ..;2])?.to_vec(), vec![4, 6, 8, 10]);")]
        #[doc = concat!("assert_eq!(", $make, ".i((-1, 1..3))?.to_vec(), vec![9, 10]);")]
        #[doc = concat!("assert_eq!(", $make, ".i(s![.., NewAxis, -1])?.shape(), &[3, 1]);")]
        #[doc = concat!("assert_eq!(", $make, ".i(0)?.shape(), &[4]);")]
        #[doc = concat!("assert!(", $make, ".i((3, 0)).is_err());")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[doc(alias = "index")]
        #[doc(alias = "getitem")]
        pub fn i(
            $($recv)*,
            index: impl $crate::layout::IndexArg,
        ) -> $crate::error::Result<$Out> {
            let l = $s.layout.i(index)?;
            Ok($s.view_rewrap(l))
        }

        /// Index `index` of `dim`, dropping the dim ([`Layout::select`](crate::Layout::select)).
        ///
        /// Dims may count from the end (`-1` is the last; [`Dim`](crate::Dim)).
        ///
        /// # Errors
        /// [`Error::DimOutOfRange`](crate::Error::DimOutOfRange),
        /// [`Error::IndexOutOfRange`](crate::Error::IndexOutOfRange).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".select(1, 2)?.to_vec(), vec![2, 5]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn select(
            $($recv)*,
            dim: impl $crate::layout::Dim,
            index: usize,
        ) -> $crate::error::Result<$Out> {
            let dim = dim.index("select", $s.layout.ndim())?;
            let l = $s.layout.select(dim, index)?;
            Ok($s.view_rewrap(l))
        }

        /// Removes a size-1 dim ([`Layout::squeeze`](crate::Layout::squeeze)).
        ///
        /// Dims may count from the end (`-1` is the last; [`Dim`](crate::Dim)).
        ///
        /// # Errors
        /// [`Error::DimOutOfRange`](crate::Error::DimOutOfRange),
        /// [`Error::SqueezeNonUnit`](crate::Error::SqueezeNonUnit).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 1, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".squeeze(1)?.shape(), &[2, 3]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn squeeze($($recv)*, dim: impl $crate::layout::Dim) -> $crate::error::Result<$Out> {
            let dim = dim.index("squeeze", $s.layout.ndim())?;
            let l = $s.layout.squeeze(dim)?;
            Ok($s.view_rewrap(l))
        }

        /// Inserts a size-1 dim at `dim` ([`Layout::unsqueeze`](crate::Layout::unsqueeze)); a
        /// negative `dim` counts from the end of the result (`-1` appends a last dim).
        ///
        /// # Errors
        /// [`Error::DimOutOfRange`](crate::Error::DimOutOfRange) unless `dim <= ndim`.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".unsqueeze(2)?.shape(), &[2, 3, 1]);")]
        #[doc = concat!("assert_eq!(", $make, ".unsqueeze(-1)?.shape(), &[2, 3, 1]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn unsqueeze($($recv)*, dim: impl $crate::layout::Dim) -> $crate::error::Result<$Out> {
            // The result has one dim more: -1 puts the new dim last (PyTorch).
            let dim = dim.index("unsqueeze", $s.layout.ndim() + 1)?;
            let l = $s.layout.unsqueeze(dim)?;
            Ok($s.view_rewrap(l))
        }

        /// Reverses `dim` with a negative stride, without copying
        /// ([`Layout::flip`](crate::Layout::flip)); a 0-dim tensor is its own flip.
        ///
        /// Dims may count from the end (`-1` is the last; [`Dim`](crate::Dim)).
        ///
        /// # Errors
        /// [`Error::DimOutOfRange`](crate::Error::DimOutOfRange).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec(vec![1, 2, 3], &[3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".flip(0)?.to_vec(), vec![3, 2, 1]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn flip($($recv)*, dim: impl $crate::layout::Dim) -> $crate::error::Result<$Out> {
            // A 0-dim tensor takes dim 0 or -1, as a dim of one element (PyTorch's rule).
            let dim = dim.index("flip", $s.layout.ndim().max(1))?;
            let l = $s.layout.flip(dim)?;
            Ok($s.view_rewrap(l))
        }

        /// The main diagonal of dims 0 and 1 ([`Layout::diagonal`](crate::Layout::diagonal)).
        ///
        /// # Errors
        /// As [`Layout::diagonal`](crate::Layout::diagonal).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".diagonal()?.to_vec(), vec![0, 4]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn diagonal($($recv)*) -> $crate::error::Result<$Out> {
            let l = $s.layout.diagonal()?;
            Ok($s.view_rewrap(l))
        }

        /// Diagonal `k` (above the main one for `k > 0`) of dims `dim1` and `dim2`
        /// ([`Layout::diagonal_with`](crate::Layout::diagonal_with)).
        ///
        /// # Errors
        /// As [`Layout::diagonal_with`](crate::Layout::diagonal_with).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".diagonal_with(1, 0, 1)?.to_vec(), vec![1, 5]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn diagonal_with(
            $($recv)*,
            k: isize,
            dim1: impl $crate::layout::Dim,
            dim2: impl $crate::layout::Dim,
        ) -> $crate::error::Result<$Out> {
            let n = $s.layout.ndim();
            let (dim1, dim2) = (dim1.index("diagonal_with", n)?, dim2.index("diagonal_with", n)?);
            let l = $s.layout.diagonal_with(k, dim1, dim2)?;
            Ok($s.view_rewrap(l))
        }

        vocab_view_ops!(recv: [$($recv)*] $s, out: $Out, make: $make, mut: $mut);
    };
}

/// The view ops only the read-only types have, since their results may address one element
/// from several indices: `expand`, `unfold`, `as_strided`. The type has a private
/// `storage_len(&self)`.
macro_rules! shared_view_ops {
    (recv: [$($recv:tt)*] $s:ident, out: $Out:ty, make: $make:literal) => {
        /// Broadcasts size-1 dims (and new leading dims) to `shape` with stride 0, without
        /// copying ([`Layout::expand`](crate::Layout::expand)); `-1` keeps a dim's size
        /// (PyTorch's `x.expand(4, -1)`; [`ExpandShape`](crate::ExpandShape)).
        ///
        /// # Errors
        /// [`Error::RankMismatch`](crate::Error::RankMismatch) if `shape` has fewer dims,
        /// [`Error::ExpandMismatch`](crate::Error::ExpandMismatch) if a dim that is not 1
        /// differs from its target size, [`Error::InvalidArgument`](crate::Error::InvalidArgument)
        /// for `-1` on a new leading dim or another negative length.
        ///
        /// ```
        /// let a = stridex::Tensor::from_vec(vec![1, 2, 3], &[1, 3])?;
        #[doc = concat!("let m = ", $make, ".expand(&[2, 3])?;")]
        /// assert_eq!((m.strides(), m.to_vec()), (&[0, 1][..], vec![1, 2, 3, 1, 2, 3]));
        #[doc = concat!("assert_eq!(", $make, ".expand(&[4, -1])?.shape(), &[4, 3]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn expand(
            $($recv)*,
            shape: &(impl $crate::layout::ExpandShape + ?Sized),
        ) -> $crate::error::Result<$Out> {
            let shape = shape.resolve_expand("expand", $s.layout.shape())?;
            let l = $s.layout.expand(&shape)?;
            Ok($s.view_rewrap(l))
        }

        /// Sliding windows of `size` elements every `step` along `dim`, as a new last dim
        /// ([`Layout::unfold`](crate::Layout::unfold)).
        ///
        /// # Errors
        /// As [`Layout::unfold`](crate::Layout::unfold).
        ///
        /// ```
        /// let a = stridex::Tensor::from_vec((0..5).collect::<Vec<i32>>(), &[5])?;
        #[doc = concat!("assert_eq!(", $make, ".unfold(0, 3, 2)?.to_vec(), vec![0, 1, 2, 2, 3, 4]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn unfold(
            $($recv)*,
            dim: impl $crate::layout::Dim,
            size: usize,
            step: usize,
        ) -> $crate::error::Result<$Out> {
            // A 0-dim tensor takes dim 0 or -1, as a dim of one element (PyTorch's rule).
            let dim = dim.index("unfold", $s.layout.ndim().max(1))?;
            let l = $s.layout.unfold(dim, size, step)?;
            Ok($s.view_rewrap(l))
        }

        /// Any shape and strides over the same storage (absolute `offset`), checked against
        /// the storage length ([`Layout::as_strided`](crate::Layout::as_strided)).
        ///
        /// # Errors
        /// As [`Layout::new`](crate::Layout::new), and
        /// [`Error::OutOfBounds`](crate::Error::OutOfBounds) naming the offending offset and
        /// the storage length.
        ///
        /// ```
        /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[6])?;
        #[doc = concat!("let w = ", $make, ".as_strided(&[4, 3], &[1, 1], 0)?; // overlapping windows")]
        /// assert_eq!(w.get(&[3, 2])?, 5);
        #[doc = concat!("assert!(", $make, ".as_strided(&[4, 3], &[1, 1], 1).is_err());")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn as_strided(
            $($recv)*,
            shape: &[usize],
            strides: &[isize],
            offset: usize,
        ) -> $crate::error::Result<$Out> {
            let l = $s.layout.as_strided(shape, strides, offset)?;
            l.check_fits("as_strided", $s.storage_len())?;
            Ok($s.view_rewrap(l))
        }

        vocab_shared_view_ops!(recv: [$($recv)*] $s, out: $Out, make: $make);
    };
}
