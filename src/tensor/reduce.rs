//! Reductions: sum, mean, prod, max, min, argmax, argmin over one dim, several dims or all.
//!
//! Each comes as `X_dim(dim, keepdim)`, `X_dims(&dims, keepdim)` and `X_all()`. With
//! `keepdim` the reduced dims stay as size-1 dims, otherwise they are removed. Dims are any
//! [`Dim`] (`-1` is the last): `dim` a single one, `dims` a slice of one integer type
//! (`&[-1, 0]`, `&[0, 1]`, a `&Vec<usize>`); a dim named twice in `dims`, in one form or in two
//! (`[1, -1]` of 2 dims), is an [`Error::RepeatedDim`]. The input is
//! read in place whatever its strides; the result is fresh, row-major unless the input is a
//! permuted contiguous layout, whose order of kept dims it then follows.
//!
//! Float sums and means are pairwise (error growing with `log n`, not `n`), `f16`/`bf16`
//! accumulate in `f32`, integer sums and products wrap (see [`Numeric`]). Results are
//! bit-identical for any number of threads. Sums over no elements are 0, products 1, means NaN;
//! max, min and the arg-reductions over no elements are an [`Error::EmptyReduction`].
//! Max and min propagate NaN; argmax and argmin return the first NaN's index if there is one,
//! else the first index of the extreme value, as `i64`.

use std::sync::Arc;

use super::Tensor;
use crate::element::{DType, Element};
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::iter::{ReducePlan, element_count};
use crate::kernels::reduce::reduce;
use crate::kernels::reduce_small::reduce_dim_small;
use crate::kernels::reducers::{ArgExtreme, Extreme, Mean, Prod, Reducer, Sum};
use crate::layout::{Dim, resolve_dims};
use crate::scalar::{Numeric, ToFloat};

impl<T: Element> Tensor<T> {
    /// Runs reducer `r` over `dims` (also for the statistics in `stats.rs`).
    /// `needs_elements`: reducing zero elements into a non-empty result is an
    /// [`Error::EmptyReduction`].
    pub(super) fn reduce_with<R: Reducer<T>>(
        &self,
        op: &'static str,
        dims: &[usize],
        keepdim: bool,
        r: &R,
        needs_elements: bool,
    ) -> Result<Tensor<R::Out>> {
        if let [dim] = *dims {
            // Small row-major inputs skip the plan (same results; kernels::reduce_small).
            if let Some(done) = reduce_dim_small(&self.storage, &self.layout, dim, keepdim, r) {
                let (storage, layout) = done?;
                return Ok(Tensor::from_parts(Arc::new(storage), layout));
            }
        }
        let plan = ReducePlan::new(op, &self.layout, dims, keepdim)?;
        if needs_elements && plan.count == 0 && element_count(plan.out_layout.shape()) > 0 {
            return Err(Error::EmptyReduction {
                op,
                dims: dims.to_vec(),
                shape: self.shape().to_vec(),
            });
        }
        let storage = reduce(&self.storage, &self.layout, &plan, r)?;
        Ok(Tensor::from_parts(Arc::new(storage), plan.out_layout))
    }

    /// Runs reducer `r` over every dim and returns the single result.
    /// The stored elements of a broadcast view and how often each repeats
    /// ([`Layout::without_repeats`]): whole-tensor reductions fold these instead of every
    /// repeat, so a huge expanded view costs what its stored elements cost.
    pub(super) fn stored_elements(&self) -> Option<(Tensor<T>, usize)> {
        let (layout, repeats) = self.layout.without_repeats()?;
        Some((Tensor::view_of(self.storage.clone(), layout), repeats))
    }

    /// [`Tensor::stored_elements`] for a whole-tensor sum, product or mean, where folding
    /// the stored elements and repeating the result is exact only for integers (wrapping
    /// arithmetic is associative). A float result must be the canonical order's over every
    /// logical element (Note [canonical order] in `kernels/reduce.rs`), the bits a dense copy
    /// of the same values gives; so floats fold every element, except past
    /// [`MATERIALIZABLE`] elements, a count no dense tensor reaches, where only the shortcut
    /// finishes at all.
    pub(super) fn stored_elements_for_sum(&self) -> Option<(Tensor<T>, usize)> {
        let exact = !matches!(T::DTYPE, DType::F16 | DType::BF16 | DType::F32 | DType::F64);
        if exact || self.numel() > MATERIALIZABLE {
            self.stored_elements()
        } else {
            None
        }
    }

    fn reduce_all<R: Reducer<T>>(&self, op: &'static str, r: &R, needs: bool) -> Result<R::Out> {
        let dims: Vec<usize> = (0..self.ndim()).collect();
        self.reduce_with(op, &dims, false, r, needs)?.get(&[])
    }
}

impl<T: Numeric> Tensor<T> {
    /// Sum over `dim` (pairwise for floats, wrapping for integers).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] if `dim >= ndim`; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec((1..=6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.sum_dim(0, false)?.to_vec(), vec![5, 7, 9]);
    /// assert_eq!(a.sum_dim(1, true)?.shape(), &[2, 1]);
    /// assert_eq!(a.t()?.sum_dim(0, false)?.to_vec(), vec![6, 15]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn sum_dim(&self, dim: impl Dim, keepdim: bool) -> Result<Tensor<T>> {
        let dim = dim.index("sum_dim", self.ndim().max(1))?;
        self.reduce_with("sum_dim", &[dim], keepdim, &Sum, false)
    }

    /// Sum over several dims at once (any order; none means no reduction). Each dim is any
    /// [`Dim`]: negative ones count from the end, so `&[-1, 0]` of 3 dims is `&[2, 0]`.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::NegativeDimOutOfRange`]; [`Error::RepeatedDim`] if
    /// two entries name one dim (`&[1, 1]`, or `&[1, -2]` of 3 dims), naming both as given;
    /// [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::{Error, Tensor};
    /// let a = Tensor::from_vec((0..24).collect::<Vec<i64>>(), &[2, 3, 4])?;
    /// let s = a.sum_dims(&[2, 0], false)?;
    /// assert_eq!(s.to_vec(), vec![6 + 54, 22 + 70, 38 + 86]);
    /// assert_eq!(a.sum_dims(&[-1, 0], false)?, s);
    /// let dims: Vec<usize> = vec![0, 2];
    /// assert_eq!(a.sum_dims(&dims, false)?, s);
    /// assert!(a.sum_dims(&[1, 1], false).is_err());
    /// assert!(matches!(
    ///     a.sum_dims(&[1, -2], false),
    ///     Err(Error::RepeatedDim { given: (1, -2), dim: 1, .. })
    /// ));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn sum_dims<D: Dim>(&self, dims: &[D], keepdim: bool) -> Result<Tensor<T>> {
        let dims = resolve_dims("sum_dims", dims, self.ndim())?;
        self.reduce_with("sum_dims", &dims, keepdim, &Sum, false)
    }

    /// Sum of every element (0 for an empty tensor).
    ///
    /// Floats are summed pairwise in the crate's one canonical order, so the result has the
    /// same bits for every layout of the same values (`x.t()?.contiguous().t()?.sum_all()`
    /// is `x.sum_all()`, bit for bit). Over broadcast (stride-0) dims of an integer tensor
    /// the stored elements are summed once and the sum is repeated by doubling and adding
    /// (exact: integers wrap as a plain sum would), so a huge expanded view costs what its
    /// stored elements cost; a float view does that only past 2^40 elements, a count no
    /// dense tensor reaches (at most one rounding per bit of the count).
    ///
    /// # Panics
    /// Only if the one-element result cannot be allocated.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.5f32; 1000], &[10, 100])?;
    /// assert_eq!(a.t()?.sum_all(), 500.0);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn sum_all(&self) -> T {
        if let Some((stored, n)) = self.stored_elements_for_sum() {
            return repeated(stored.sum_all(), n, T::zero(), T::elem_add);
        }
        self.reduce_all("sum", &Sum, false).or_panic("sum_all")
    }

    /// Product over `dim` (wrapping for integers; 1 over no elements).
    ///
    /// # Errors
    /// As [`Tensor::sum_dim`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
    /// assert_eq!(a.prod_dim(1, false)?.to_vec(), vec![2.0, 12.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn prod_dim(&self, dim: impl Dim, keepdim: bool) -> Result<Tensor<T>> {
        let dim = dim.index("prod_dim", self.ndim().max(1))?;
        self.reduce_with("prod_dim", &[dim], keepdim, &Prod, false)
    }

    /// Product over several dims (negative ones count from the end, as [`Tensor::sum_dims`]).
    ///
    /// # Errors
    /// As [`Tensor::sum_dims`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1u8, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.prod_dims(&[0, 1], true)?.to_vec(), vec![24]);
    /// assert_eq!(a.prod_dims(&[-1], false)?.to_vec(), vec![2, 12]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn prod_dims<D: Dim>(&self, dims: &[D], keepdim: bool) -> Result<Tensor<T>> {
        let dims = resolve_dims("prod_dims", dims, self.ndim())?;
        self.reduce_with("prod_dims", &dims, keepdim, &Prod, false)
    }

    /// Product of every element (1 for an empty tensor); over broadcast dims the stored
    /// elements' product is raised to the repeat count by squaring, as [`Tensor::sum_all`].
    ///
    /// # Panics
    /// As [`Tensor::sum_all`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![2i32; 10], &[10])?;
    /// assert_eq!(a.prod_all(), 1024);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn prod_all(&self) -> T {
        if let Some((stored, n)) = self.stored_elements_for_sum() {
            return repeated(stored.prod_all(), n, T::one(), T::elem_mul);
        }
        self.reduce_all("prod", &Prod, false).or_panic("prod_all")
    }

    /// Maximum over `dim`; NaN if the reduced elements contain a NaN (the values only:
    /// PyTorch's `x.max(dim)`, which also gives the indices, is
    /// [`Tensor::max_dim_with_indices`]; NumPy's `amax` is this).
    ///
    /// # Errors
    /// [`Error::EmptyReduction`] if `dim` has size 0 (and the result is not empty); as
    /// [`Tensor::sum_dim`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![3i8, -1, 4, 1], &[2, 2])?;
    /// assert_eq!(a.max_dim(0, false)?.to_vec(), vec![4, 1]);
    /// assert!(stridex::Tensor::<f32>::zeros(&[2, 0])?.max_dim(1, false).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn max_dim(&self, dim: impl Dim, keepdim: bool) -> Result<Tensor<T>> {
        let dim = dim.index("max_dim", self.ndim().max(1))?;
        self.reduce_with("max_dim", &[dim], keepdim, &Extreme::<true>, true)
    }

    /// Maximum over several dims (negative ones count from the end, as [`Tensor::sum_dims`]).
    ///
    /// # Errors
    /// As [`Tensor::max_dim`] and [`Tensor::sum_dims`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![3.0f32, 9.0, 4.0, 1.0], &[2, 2])?;
    /// assert_eq!(a.max_dims(&[0, 1], false)?.to_vec(), vec![9.0]);
    /// assert_eq!(a.max_dims(&[-2], false)?.to_vec(), vec![4.0, 9.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn max_dims<D: Dim>(&self, dims: &[D], keepdim: bool) -> Result<Tensor<T>> {
        let dims = resolve_dims("max_dims", dims, self.ndim())?;
        self.reduce_with("max_dims", &dims, keepdim, &Extreme::<true>, true)
    }

    /// Maximum of every element.
    ///
    /// # Errors
    /// [`Error::EmptyReduction`] for an empty tensor; [`Error::Alloc`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![3u16, 9, 4], &[3])?;
    /// assert_eq!(a.max_all()?, 9);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn max_all(&self) -> Result<T> {
        if let Some((stored, _)) = self.stored_elements() {
            return stored.max_all(); // repeats change no extreme
        }
        self.reduce_all("max", &Extreme::<true>, true)
    }

    /// Minimum over `dim`; NaN if the reduced elements contain a NaN.
    ///
    /// # Errors
    /// As [`Tensor::max_dim`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![3i8, -1, 4, 1], &[2, 2])?;
    /// assert_eq!(a.min_dim(1, true)?.to_vec(), vec![-1, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn min_dim(&self, dim: impl Dim, keepdim: bool) -> Result<Tensor<T>> {
        let dim = dim.index("min_dim", self.ndim().max(1))?;
        self.reduce_with("min_dim", &[dim], keepdim, &Extreme::<false>, true)
    }

    /// Minimum over several dims (negative ones count from the end, as [`Tensor::sum_dims`]).
    ///
    /// # Errors
    /// As [`Tensor::max_dims`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![3.0f32, 9.0, 4.0, 1.0], &[2, 2])?;
    /// assert_eq!(a.min_dims(&[1, 0], false)?.to_vec(), vec![1.0]);
    /// assert_eq!(a.min_dims(&[-1], true)?.to_vec(), vec![3.0, 1.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn min_dims<D: Dim>(&self, dims: &[D], keepdim: bool) -> Result<Tensor<T>> {
        let dims = resolve_dims("min_dims", dims, self.ndim())?;
        self.reduce_with("min_dims", &dims, keepdim, &Extreme::<false>, true)
    }

    /// Minimum of every element.
    ///
    /// # Errors
    /// As [`Tensor::max_all`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![3i64, -9, 4], &[3])?;
    /// assert_eq!(a.min_all()?, -9);
    /// assert!(stridex::Tensor::<i64>::zeros(&[0])?.min_all().is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn min_all(&self) -> Result<T> {
        if let Some((stored, _)) = self.stored_elements() {
            return stored.min_all(); // repeats change no extreme
        }
        self.reduce_all("min", &Extreme::<false>, true)
    }

    /// Index along `dim` of the maximum (the first NaN, else the first maximum), as `i64`.
    ///
    /// # Errors
    /// As [`Tensor::max_dim`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.0f32, 7.0, 7.0, 2.0, 0.0, 5.0], &[2, 3])?;
    /// assert_eq!(a.argmax_dim(1, false)?.to_vec(), vec![1, 2]);
    /// assert_eq!(a.argmax_dim(0, false)?.to_vec(), vec![1, 0, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn argmax_dim(&self, dim: impl Dim, keepdim: bool) -> Result<Tensor<i64>> {
        let dim = dim.index("argmax_dim", self.ndim().max(1))?;
        self.reduce_with("argmax_dim", &[dim], keepdim, &ArgExtreme::<true>, true)
    }

    /// Position of the maximum among the elements of several dims, counted row-major over
    /// those dims in their original order (as if they were flattened into one), as `i64`.
    /// Negative dims count from the end, as in [`Tensor::sum_dims`].
    ///
    /// # Errors
    /// As [`Tensor::max_dims`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..12).map(|x| (x * 5 % 12) as u8).collect(), &[2, 2, 3])?;
    /// // Batch 0 holds [0, 5, 10, 3, 8, 1], batch 1 [6, 11, 4, 9, 2, 7].
    /// assert_eq!(a.argmax_dims(&[1, 2], false)?.to_vec(), vec![2, 1]);
    /// assert_eq!(a.argmax_dims(&[-1, -2], false)?.to_vec(), vec![2, 1]); // same dims
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn argmax_dims<D: Dim>(&self, dims: &[D], keepdim: bool) -> Result<Tensor<i64>> {
        let dims = resolve_dims("argmax_dims", dims, self.ndim())?;
        self.reduce_with("argmax_dims", &dims, keepdim, &ArgExtreme::<true>, true)
    }

    /// Row-major position of the maximum of all elements.
    ///
    /// # Errors
    /// As [`Tensor::max_all`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1i32, 9, 3, 9], &[2, 2])?;
    /// assert_eq!(a.argmax_all()?, 1);
    /// assert_eq!(a.t()?.argmax_all()?, 2);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn argmax_all(&self) -> Result<usize> {
        Ok(self.reduce_all("argmax", &ArgExtreme::<true>, true)? as usize)
    }

    /// Index along `dim` of the minimum (the first NaN, else the first minimum), as `i64`.
    ///
    /// # Errors
    /// As [`Tensor::max_dim`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![4u8, 2, 2, 8], &[2, 2])?;
    /// assert_eq!(a.argmin_dim(1, false)?.to_vec(), vec![1, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn argmin_dim(&self, dim: impl Dim, keepdim: bool) -> Result<Tensor<i64>> {
        let dim = dim.index("argmin_dim", self.ndim().max(1))?;
        self.reduce_with("argmin_dim", &[dim], keepdim, &ArgExtreme::<false>, true)
    }

    /// Position of the minimum among the elements of several dims (see
    /// [`Tensor::argmax_dims`]; negative dims count from the end).
    ///
    /// # Errors
    /// As [`Tensor::max_dims`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![4i16, 2, 2, 1], &[2, 2])?;
    /// assert_eq!(a.argmin_dims(&[0, 1], true)?.to_vec(), vec![3]);
    /// assert_eq!(a.argmin_dims(&[-2], false)?.to_vec(), vec![1, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn argmin_dims<D: Dim>(&self, dims: &[D], keepdim: bool) -> Result<Tensor<i64>> {
        let dims = resolve_dims("argmin_dims", dims, self.ndim())?;
        self.reduce_with("argmin_dims", &dims, keepdim, &ArgExtreme::<false>, true)
    }

    /// Row-major position of the minimum of all elements.
    ///
    /// # Errors
    /// As [`Tensor::max_all`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.0f64, -9.0, 3.0], &[3])?;
    /// assert_eq!(a.flip(0)?.argmin_all()?, 1);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn argmin_all(&self) -> Result<usize> {
        Ok(self.reduce_all("argmin", &ArgExtreme::<false>, true)? as usize)
    }
}

impl<T: ToFloat> Tensor<T> {
    /// Mean over `dim` (pairwise sum, in `f32` for `f16`/`bf16`, divided by the count; NaN
    /// over no elements).
    ///
    /// Integer inputs give `Tensor<f32>`: they are converted to `f32` first (PyTorch's
    /// default float type; see [`ToFloat`]), so the mean of `[1, 2]` is 1.5. A float input
    /// is reduced in place, its result of its own type.
    ///
    /// # Errors
    /// As [`Tensor::sum_dim`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.mean_dim(0, false)?.to_vec(), vec![2.0, 3.5]);
    /// let i = Tensor::from_vec(vec![1i32, 2, 3, 4], &[2, 2])?;
    /// let m: Tensor<f32> = i.mean_dim(-1, false)?;
    /// assert_eq!(m.to_vec(), vec![1.5, 3.5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn mean_dim(&self, dim: impl Dim, keepdim: bool) -> Result<Tensor<T::Float>> {
        let dim = dim.index("mean_dim", self.ndim().max(1))?;
        self.to_float()
            .reduce_with("mean_dim", &[dim], keepdim, &Mean, false)
    }

    /// Mean over several dims (negative ones count from the end, as [`Tensor::sum_dims`]).
    /// Integer inputs give `Tensor<f32>`, as [`Tensor::mean_dim`].
    ///
    /// # Errors
    /// As [`Tensor::sum_dims`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 6.0], &[2, 2])?;
    /// assert_eq!(a.mean_dims(&[0, 1], true)?.to_vec(), vec![3.0]);
    /// assert_eq!(a.mean_dims(&[-2], false)?.to_vec(), vec![2.0, 4.0]);
    /// let i = stridex::Tensor::from_vec(vec![1u8, 2, 3, 6], &[2, 2])?;
    /// assert_eq!(i.mean_dims(&[0, 1], false)?.to_vec(), vec![3.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn mean_dims<D: Dim>(&self, dims: &[D], keepdim: bool) -> Result<Tensor<T::Float>> {
        let dims = resolve_dims("mean_dims", dims, self.ndim())?;
        self.to_float()
            .reduce_with("mean_dims", &dims, keepdim, &Mean, false)
    }

    /// Mean of every element (NaN for an empty tensor). Integer inputs give an `f32`, as
    /// [`Tensor::mean_dim`].
    ///
    /// # Panics
    /// As [`Tensor::sum_all`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![half::f16::from_f32(1.0), half::f16::from_f32(2.0)], &[2])?;
    /// assert_eq!(a.mean_all(), half::f16::from_f32(1.5));
    /// assert_eq!(stridex::Tensor::from_vec(vec![1i64, 2], &[2])?.mean_all(), 1.5f32);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn mean_all(&self) -> T::Float {
        if let Some((stored, _)) = self.stored_elements_for_sum() {
            // Every stored element repeats equally often (and only these are converted).
            return stored.mean_all();
        }
        self.to_float()
            .reduce_all("mean", &Mean, false)
            .or_panic("mean_all")
    }
}

/// Element counts above which a whole-tensor float sum, product or mean of a broadcast view
/// folds its stored elements once and repeats the result (2^40: 4 TiB of `f32`, 2 TiB of
/// `f16`, so no dense tensor with the same values exists to differ from).
const MATERIALIZABLE: usize = 1 << 40;

/// `x` combined with itself `n` times by `op` (whose identity is `id`): `n * x` for addition,
/// `x^n` for multiplication, by doubling (squaring) in `O(log n)` steps.
fn repeated<T: Copy>(x: T, mut n: usize, id: T, op: impl Fn(T, T) -> T) -> T {
    let (mut acc, mut base) = (id, x);
    while n > 0 {
        if n & 1 == 1 {
            acc = op(acc, base);
        }
        n >>= 1;
        if n > 0 {
            base = op(base, base);
        }
    }
    acc
}
