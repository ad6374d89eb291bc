//! The rest of the view vocabulary PyTorch and NumPy users reach for, generated for the three
//! tensor types as [`view_api`](crate::view_api) generates the core ops (and from inside its
//! macros, so each type's module lists only those): dim moves (`movedim`, `movedims`,
//! `swapaxes`, `swapdims`, `mt`, `reversed_dims`), flips and rotations (`flip_dims`, `fliplr`,
//! `flipud`, `rot90`), shape changes that keep strides (`unflatten`, `squeeze_all`,
//! `squeeze_dims`, `atleast_1d` / `2d` / `3d`, `view_f`), and for the read-only types the
//! ops whose results may address one element from several indices (`broadcast_to`,
//! `expand_as`, `sliding_window_view`). Each is the [`Layout`](crate::Layout) op of the same
//! name, with its errors.
//!
//! `movedim` takes one dim and `movedims` a list: Rust has no overloading, and one argument
//! type for both a dim and a list of dims would make the common `movedim(0, -1)` need type
//! annotations (an untyped literal must pick one integer type).

/// The view ops in this module that cannot make two indices address one element, for all
/// three types; arguments as in `view_ops!`.
macro_rules! vocab_view_ops {
    (recv: [$($recv:tt)*] $s:ident, out: $Out:ty, make: $make:literal, mut: $mut:literal) => {
        /// Moves dim `src` to position `dst`, the other dims keeping their order (PyTorch's
        /// `movedim`, NumPy's `moveaxis`; [`Layout::movedim`](crate::Layout::movedim)). For
        /// several dims at once see `movedims`.
        ///
        /// # Errors
        /// As [`Layout::movedim`](crate::Layout::movedim);
        /// [`Error::NegativeDimOutOfRange`](crate::Error::NegativeDimOutOfRange).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3, 4])?;")]
        #[doc = concat!("assert_eq!(", $make, ".movedim(0, -1)?.shape(), &[3, 4, 2]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[doc(alias = "moveaxis")]
        pub fn movedim(
            $($recv)*,
            src: impl $crate::layout::Dim,
            dst: impl $crate::layout::Dim,
        ) -> $crate::error::Result<$Out> {
            let n = $s.layout.ndim();
            let (src, dst) = (src.index("movedim", n)?, dst.index("movedim", n)?);
            let l = $s.layout.movedim(&[src], &[dst])?;
            Ok($s.view_rewrap(l))
        }

        /// Moves dims `src[i]` to positions `dst[i]`, the other dims keeping their order in
        /// the positions left (PyTorch's `movedim` with lists, NumPy's `moveaxis`).
        ///
        /// # Errors
        /// As [`Layout::movedim`](crate::Layout::movedim);
        /// [`Error::RepeatedDim`](crate::Error::RepeatedDim) for a dim named twice in `src`
        /// or in `dst` (also as `1` and `-1`).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3, 4, 5])?;")]
        #[doc = concat!("assert_eq!(", $make, ".movedims(&[0, 1], &[-1, -2])?.shape(), &[4, 5, 3, 2]);")]
        #[doc = concat!("assert!(", $make, ".movedims(&[0, 1], &[2, -2]).is_err()); // dim 2 twice")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[doc(alias = "moveaxis")]
        pub fn movedims(
            $($recv)*,
            src: &[impl $crate::layout::Dim],
            dst: &[impl $crate::layout::Dim],
        ) -> $crate::error::Result<$Out> {
            let n = $s.layout.ndim();
            let src = $crate::layout::resolve_dims("movedims", src, n)?;
            let dst = $crate::layout::resolve_dims("movedims", dst, n)?;
            let l = $s.layout.movedim(&src, &dst).map_err(|e| e.named("movedims"))?;
            Ok($s.view_rewrap(l))
        }

        /// [`transpose`](Self::transpose) under NumPy's name (`swapaxes`).
        ///
        /// # Errors
        /// As `transpose`.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".swapaxes(0, 1)?.shape(), &[3, 2]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[inline]
        pub fn swapaxes(
            $($recv)*,
            d0: impl $crate::layout::Dim,
            d1: impl $crate::layout::Dim,
        ) -> $crate::error::Result<$Out> {
            $s.transpose(d0, d1)
        }

        /// [`transpose`](Self::transpose) under PyTorch's other name (`swapdims`).
        ///
        /// # Errors
        /// As `transpose`.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3, 4])?;")]
        #[doc = concat!("assert_eq!(", $make, ".swapdims(0, -1)?.shape(), &[4, 3, 2]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[inline]
        pub fn swapdims(
            $($recv)*,
            d0: impl $crate::layout::Dim,
            d1: impl $crate::layout::Dim,
        ) -> $crate::error::Result<$Out> {
            $s.transpose(d0, d1)
        }

        /// The last two dims swapped, PyTorch's `.mT` ([`Layout::mt`](crate::Layout::mt)).
        ///
        /// # Errors
        /// [`Error::RankMismatch`](crate::Error::RankMismatch) below 2 dims.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[5, 2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".mt()?.shape(), &[5, 3, 2]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[doc(alias = "mT")]
        pub fn mt($($recv)*) -> $crate::error::Result<$Out> {
            let l = $s.layout.mt()?;
            Ok($s.view_rewrap(l))
        }

        /// Every dim in reverse order, PyTorch's and NumPy's `.T`
        /// ([`Layout::reversed_dims`](crate::Layout::reversed_dims)).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 3, 4])?;")]
        #[doc = concat!("assert_eq!(", $make, ".reversed_dims().shape(), &[4, 3, 2]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[doc(alias = "T")]
        #[doc(alias = "reversed_axes")]
        #[must_use]
        pub fn reversed_dims($($recv)*) -> $Out {
            let l = $s.layout.reversed_dims();
            $s.view_rewrap(l)
        }

        /// Reverses every dim in `dims` in one view (PyTorch's `flip(dims)`, NumPy's
        /// `flip(axis=...)`; [`Layout::flip_dims`](crate::Layout::flip_dims)). A 0-dim tensor
        /// accepts dim 0 (or -1) and is unchanged.
        ///
        /// # Errors
        /// [`Error::DimOutOfRange`](crate::Error::DimOutOfRange),
        /// [`Error::RepeatedDim`](crate::Error::RepeatedDim) for a dim named twice.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".flip_dims(&[0, -1])?.to_vec(), vec![5, 4, 3, 2, 1, 0]);")]
        #[doc = concat!("assert!(", $make, ".flip_dims(&[1, -1]).is_err());")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn flip_dims(
            $($recv)*,
            dims: &[impl $crate::layout::Dim],
        ) -> $crate::error::Result<$Out> {
            let n = $s.layout.ndim().max(1);
            let dims = $crate::layout::resolve_dims("flip_dims", dims, n)?;
            let l = $s.layout.flip_dims(&dims)?;
            Ok($s.view_rewrap(l))
        }

        /// Dim 1 reversed ([`Layout::fliplr`](crate::Layout::fliplr)).
        ///
        /// # Errors
        /// [`Error::RankMismatch`](crate::Error::RankMismatch) below 2 dims.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..4).collect::<Vec<i32>>(), &[2, 2])?;")]
        #[doc = concat!("assert_eq!(", $make, ".fliplr()?.to_vec(), vec![1, 0, 3, 2]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn fliplr($($recv)*) -> $crate::error::Result<$Out> {
            let l = $s.layout.fliplr()?;
            Ok($s.view_rewrap(l))
        }

        /// Dim 0 reversed ([`Layout::flipud`](crate::Layout::flipud)).
        ///
        /// # Errors
        /// [`Error::RankMismatch`](crate::Error::RankMismatch) for a 0-dim tensor.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..4).collect::<Vec<i32>>(), &[2, 2])?;")]
        #[doc = concat!("assert_eq!(", $make, ".flipud()?.to_vec(), vec![2, 3, 0, 1]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn flipud($($recv)*) -> $crate::error::Result<$Out> {
            let l = $s.layout.flipud()?;
            Ok($s.view_rewrap(l))
        }

        /// The plane of `dims` rotated by `k` quarter turns from `dims[0]` towards `dims[1]`
        /// (PyTorch's and NumPy's `rot90`; [`Layout::rot90`](crate::Layout::rot90)): flips
        /// and a transpose, no copy.
        ///
        /// # Errors
        /// As [`Layout::rot90`](crate::Layout::rot90).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".rot90(1, [0, 1])?.to_vec(), vec![2, 5, 1, 4, 0, 3]);")]
        #[doc = concat!("assert!(", $make, ".rot90(1, [1, -1]).is_err());")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn rot90(
            $($recv)*,
            k: i64,
            dims: [impl $crate::layout::Dim; 2],
        ) -> $crate::error::Result<$Out> {
            let n = $s.layout.ndim();
            let (d0, d1) = (dims[0].index("rot90", n)?, dims[1].index("rot90", n)?);
            let l = $s.layout.rot90(k, d0, d1)?;
            Ok($s.view_rewrap(l))
        }

        /// Dim `dim` split into dims of `sizes`, one of which may be `-1` (PyTorch's
        /// `unflatten`; [`Layout::unflatten`](crate::Layout::unflatten)). Always a view.
        ///
        /// # Errors
        /// [`Error::DimOutOfRange`](crate::Error::DimOutOfRange);
        /// [`Error::NumelMismatch`](crate::Error::NumelMismatch) or
        /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) when the sizes cannot
        /// hold the dim's length.
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[2, 12])?;")]
        #[doc = concat!("assert_eq!(", $make, ".unflatten(1, &[3, -1])?.shape(), &[2, 3, 4]);")]
        #[doc = concat!("assert!(", $make, ".unflatten(-1, &[5, -1]).is_err());")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn unflatten(
            $($recv)*,
            dim: impl $crate::layout::Dim,
            sizes: &(impl $crate::layout::ShapeArg + ?Sized),
        ) -> $crate::error::Result<$Out> {
            let dim = dim.index("unflatten", $s.layout.ndim())?;
            $s.layout.check_dim("unflatten", dim)?;
            let sizes = sizes.resolve("unflatten", $s.layout.shape()[dim])?;
            let l = $s.layout.unflatten(dim, &sizes)?;
            Ok($s.view_rewrap(l))
        }

        /// Every size-1 dim removed (PyTorch's `squeeze()`, NumPy's `squeeze`;
        /// [`Layout::squeeze_all`](crate::Layout::squeeze_all)).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[1, 3, 1, 2])?;")]
        #[doc = concat!("assert_eq!(", $make, ".squeeze_all().shape(), &[3, 2]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[must_use]
        pub fn squeeze_all($($recv)*) -> $Out {
            let l = $s.layout.squeeze_all();
            $s.view_rewrap(l)
        }

        /// The size-1 dims in `dims` removed (NumPy's `squeeze(axis=...)`;
        /// [`Layout::squeeze_dims`](crate::Layout::squeeze_dims)): unlike PyTorch's
        /// `squeeze(dims)`, which skips a named dim whose size is not 1, that is an error,
        /// as for [`squeeze`](Self::squeeze).
        ///
        /// # Errors
        /// [`Error::DimOutOfRange`](crate::Error::DimOutOfRange),
        /// [`Error::RepeatedDim`](crate::Error::RepeatedDim),
        /// [`Error::SqueezeNonUnit`](crate::Error::SqueezeNonUnit).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[1, 3, 1])?;")]
        #[doc = concat!("assert_eq!(", $make, ".squeeze_dims(&[0, -1])?.shape(), &[3]);")]
        #[doc = concat!("assert!(", $make, ".squeeze_dims(&[1]).is_err()); // size 3")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn squeeze_dims(
            $($recv)*,
            dims: &[impl $crate::layout::Dim],
        ) -> $crate::error::Result<$Out> {
            let dims = $crate::layout::resolve_dims("squeeze_dims", dims, $s.layout.ndim())?;
            let l = $s.layout.squeeze_dims(&dims)?;
            Ok($s.view_rewrap(l))
        }

        /// At least 1 dim: a 0-dim tensor becomes shape `[1]`
        /// ([`Layout::atleast_1d`](crate::Layout::atleast_1d)).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec(vec![5], &[])?;")]
        #[doc = concat!("assert_eq!(", $make, ".atleast_1d().shape(), &[1]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[must_use]
        pub fn atleast_1d($($recv)*) -> $Out {
            let l = $s.layout.atleast_1d();
            $s.view_rewrap(l)
        }

        /// At least 2 dims: `[n]` becomes `[1, n]`
        /// ([`Layout::atleast_2d`](crate::Layout::atleast_2d)).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".atleast_2d().shape(), &[1, 3]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[must_use]
        pub fn atleast_2d($($recv)*) -> $Out {
            let l = $s.layout.atleast_2d();
            $s.view_rewrap(l)
        }

        /// At least 3 dims: `[n]` becomes `[1, n, 1]`, `[m, n]` becomes `[m, n, 1]`
        /// ([`Layout::atleast_3d`](crate::Layout::atleast_3d), NumPy's placement).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::<f32>::zeros(&[3])?;")]
        #[doc = concat!("assert_eq!(", $make, ".atleast_3d().shape(), &[1, 3, 1]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[must_use]
        pub fn atleast_3d($($recv)*) -> $Out {
            let l = $s.layout.atleast_3d();
            $s.view_rewrap(l)
        }

        /// The same elements in column-major order under a new shape, without copying
        /// (NumPy's `reshape(order='F')` when a view exists;
        /// [`Layout::view_f`](crate::Layout::view_f)); one length may be `-1`.
        ///
        /// # Errors
        /// As [`Layout::view_f`](crate::Layout::view_f).
        ///
        /// ```
        #[doc = concat!("let ", $mut, "a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[6])?;")]
        /// // Column-major: the first index varies fastest.
        #[doc = concat!("assert_eq!(", $make, ".view_f(&[2, -1])?.get(&[1, 0])?, 1);")]
        #[doc = concat!("assert_eq!(", $make, ".view_f(&[2, 3])?.get(&[0, 1])?, 2);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        #[doc(alias = "reshape_f")]
        pub fn view_f(
            $($recv)*,
            shape: &(impl $crate::layout::ShapeArg + ?Sized),
        ) -> $crate::error::Result<$Out> {
            let shape = shape.resolve("view_f", $s.layout.numel())?;
            let l = $s.layout.view_f(&shape)?;
            Ok($s.view_rewrap(l))
        }
    };
}

/// The view ops in this module whose results may address one element from several indices:
/// `Tensor` and `TensorView` only.
macro_rules! vocab_shared_view_ops {
    (recv: [$($recv:tt)*] $s:ident, out: $Out:ty, make: $make:literal) => {
        /// This tensor broadcast to `shape` without copying, NumPy's `broadcast_to`
        /// ([`Layout::broadcast_to`](crate::Layout::broadcast_to), the rule of `expand`).
        ///
        /// # Errors
        /// As [`expand`](Self::expand), naming `broadcast_to`.
        ///
        /// ```
        /// let a = stridex::Tensor::from_vec(vec![1, 2, 3], &[3])?;
        #[doc = concat!("let b = ", $make, ".broadcast_to(&[2, 3])?;")]
        /// assert_eq!(b.to_vec(), vec![1, 2, 3, 1, 2, 3]);
        #[doc = concat!("assert!(", $make, ".broadcast_to(&[2, 4]).is_err());")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn broadcast_to($($recv)*, shape: &[usize]) -> $crate::error::Result<$Out> {
            let l = $s.layout.broadcast_to(shape)?;
            Ok($s.view_rewrap(l))
        }

        /// [`expand`](Self::expand) to `other`'s shape (PyTorch's `expand_as`; `other` may
        /// have any element type).
        ///
        /// # Errors
        /// As `expand`.
        ///
        /// ```
        /// let a = stridex::Tensor::from_vec(vec![1, 2, 3], &[1, 3])?;
        /// let other = stridex::Tensor::<f64>::zeros(&[2, 3])?;
        #[doc = concat!("assert_eq!(", $make, ".expand_as(&other)?.shape(), &[2, 3]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn expand_as<U: $crate::element::Element>(
            $($recv)*,
            other: &$crate::Tensor<U>,
        ) -> $crate::error::Result<$Out> {
            let l = $s.layout.expand(other.shape()).map_err(|e| e.named("expand_as"))?;
            Ok($s.view_rewrap(l))
        }

        /// Every window of `window[i]` elements along dim `axes[i]`, the windows' dims
        /// appended at the end (NumPy's `sliding_window_view`;
        /// [`Layout::sliding_window_view`](crate::Layout::sliding_window_view)). One dim with a
        /// step is [`unfold`](Self::unfold).
        ///
        /// # Errors
        /// As [`Layout::sliding_window_view`](crate::Layout::sliding_window_view);
        /// [`Error::NegativeDimOutOfRange`](crate::Error::NegativeDimOutOfRange).
        ///
        /// ```
        /// let a = stridex::Tensor::from_vec((0..12).collect::<Vec<i32>>(), &[3, 4])?;
        #[doc = concat!("let w = ", $make, ".sliding_window_view(&[2, 2], &[0, -1])?;")]
        /// assert_eq!(w.shape(), &[2, 3, 2, 2]);
        /// assert_eq!(w.select(0, 1)?.select(0, 2)?.to_vec(), vec![6, 7, 10, 11]);
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub fn sliding_window_view(
            $($recv)*,
            window: &[usize],
            axes: &[impl $crate::layout::Dim],
        ) -> $crate::error::Result<$Out> {
            let n = $s.layout.ndim();
            let axes = axes
                .iter()
                .map(|&d| d.index("sliding_window_view", n))
                .collect::<$crate::error::Result<$crate::layout::Dims<usize>>>()?;
            let l = $s.layout.sliding_window_view(window, &axes)?;
            Ok($s.view_rewrap(l))
        }
    };
}
