//! Reductions beyond sums: softmax, log-softmax, logsumexp, variance, norms, counts.
//!
//! Every op reads its input in place through its strides (transposed, narrowed, flipped,
//! expanded): no operand is copied. Results are fresh and bit-identical for any number of
//! threads.
//!
//! - **Softmax** ([`Tensor::softmax`], [`Tensor::log_softmax`]) has a kernel of its own
//!   (`src/kernels/softmax/`): per slice, its max, then the sum of `e^(x - max)` in the
//!   canonical order of every reduction, then `e^(x - max) / sum` (or `x - max - ln sum`).
//!   Logits near ±1000 are as safe as logits near 0. Elements compute in `f32` (`f64` for
//!   `f64`). The result is laid out like the input (the elementwise output layout rule of
//!   [`Tensor::zip_map`]).
//! - **Variance** ([`Tensor::var_dim`], [`Tensor::std_dim`]) has the moments kernel
//!   (`src/kernels/moments.rs`): per leaf of 512 elements, sums of the elements shifted by the
//!   leaf's first element, in `f64` for every float type, and leaves merged pairwise with
//!   Chan's parallel formula; correct to about `1e-12` relative for data with mean `1e6` and
//!   spread 1.
//!
//! Like every reduction (Note [canonical order] in `src/kernels/reduce.rs`), each result is a
//! function of the logical values it reduces alone: the layout, the batch around it, the
//! thread count and the SIMD level change its speed, never its bits.
//! - **Logsumexp, norms, non-zero tests, counts and wider sums** run on the reduction kernel
//!   with reducers of their own (`src/kernels/reducers.rs`). Norms are L1, L2 and max, chosen
//!   by a [`Norm`] or by PyTorch's `ord` number (`1.0`, `2.0`, `f64::INFINITY`). Non-zero tests
//!   and counts work on every element type: an element is non-zero when it differs from zero
//!   (`-0.0` is zero, NaN is not); counts are `i64` / `usize` and never wrap.
//!   [`Tensor::sum_all_as`] sums in a wider type (a `u8` mask in `i64`).
//!
//! # Dims of 0-dim tensors
//!
//! As in PyTorch, a 0-dim tensor accepts `dim = 0` and treats itself as its single slice
//! (`softmax` gives 1, `logsumexp` the element, `var` with correction 1 NaN); results of
//! reductions over it are 0-dim whatever `keepdim` says.

use std::marker::PhantomData;
use std::sync::Arc;

use num_traits::AsPrimitive;

use super::Tensor;
use crate::element::{DType, Element};
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::iter::ReducePlan;
use crate::kernels::moments::{VarSpec, moments};
use crate::kernels::reducers::{
    AbsMax, AbsSum, ArgExtreme, CountNonzero, LogSumExp, NonzeroTest, Reducer, SquareSum, SumAs,
};
use crate::kernels::softmax::softmax;
use crate::kernels::walk::for_each_offset2;
use crate::scalar::{FloatElement, Numeric, ToFloat};

/// Which vector norm [`Tensor::norm_dim`] and [`Tensor::norm_all`] compute.
///
/// ```
/// use stridex::Tensor;
/// let v = Tensor::from_vec(vec![3.0f32, -4.0], &[2])?;
/// // `2.0` is PyTorch's `ord = 2`; `Norm::L2` says the same by name.
/// assert_eq!(v.norm_all(2.0)?, 5.0);
/// # Ok::<(), stridex::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Norm {
    /// Sum of absolute values (`ord = 1`).
    L1,
    /// Square root of the sum of squares (`ord = 2`), without rescaling: as in PyTorch, an
    /// `f32` norm overflows to `inf` once the sum of squares does.
    L2,
    /// Largest absolute value (`ord = inf`); over no elements an [`Error::EmptyReduction`].
    Max,
}

/// What the `ord` argument of [`Tensor::norm_dim`] accepts: a [`Norm`], or PyTorch's number
/// (`1.0`, `2.0` or `f64::INFINITY`, or the integers `1` and `2`; anything else is an
/// [`Error::InvalidArgument`]).
///
/// ```
/// use stridex::Tensor;
/// let v = Tensor::from_vec(vec![3.0f64, -4.0], &[2])?;
/// assert_eq!(v.norm_all(1.0)?, 7.0);
/// assert_eq!(v.norm_all(2)?, 5.0);
/// assert_eq!(v.norm_all(f64::INFINITY)?, 4.0);
/// assert!(v.norm_all(3.0).is_err());
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait NormOrder {
    /// The norm meant, or [`Error::InvalidArgument`] naming `op`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a number other than 1, 2 or `+inf`.
    ///
    /// ```
    /// // Every `ord` argument goes through this method.
    /// let v = stridex::Tensor::from_vec(vec![1.0f32, -1.0], &[2])?;
    /// assert_eq!(v.norm_all(1.0)?, 2.0);
    /// assert!(v.norm_all(f64::NAN).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn to_norm(self, op: &'static str) -> Result<Norm>;
}

impl NormOrder for Norm {
    fn to_norm(self, _: &'static str) -> Result<Norm> {
        Ok(self)
    }
}

/// An integer order: `1` or `2` (as PyTorch's `ord=2`).
impl NormOrder for i32 {
    fn to_norm(self, op: &'static str) -> Result<Norm> {
        (self as f64).to_norm(op)
    }
}

impl NormOrder for f64 {
    fn to_norm(self, op: &'static str) -> Result<Norm> {
        match self {
            1.0 => Ok(Norm::L1),
            2.0 => Ok(Norm::L2),
            f64::INFINITY => Ok(Norm::Max),
            _ => Err(Error::InvalidArgument {
                op,
                message: format!(
                    "norm order {self} is not supported; pass 1.0 (L1), 2.0 (L2) or \
                     f64::INFINITY (max), or a Norm"
                ),
            }),
        }
    }
}

impl<T: Element> Tensor<T> {
    /// The dims a reduction over `dim` reduces: `[dim]`, or none for `dim = 0` of a 0-dim
    /// tensor (PyTorch's rule: it is its own single slice).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] naming `op`.
    pub(super) fn stat_dims(&self, op: &'static str, dim: usize) -> Result<Vec<usize>> {
        match (self.ndim(), dim) {
            (0, 0) => Ok(vec![]),
            (ndim, d) if d >= ndim => Err(Error::DimOutOfRange { op, dim, ndim }),
            _ => Ok(vec![dim]),
        }
    }

    /// Runs reducer `r` over `dim` (see [`Tensor::stat_dims`]).
    fn stat_dim<R: Reducer<T>>(
        &self,
        op: &'static str,
        dim: usize,
        keepdim: bool,
        r: &R,
        needs_elements: bool,
    ) -> Result<Tensor<R::Out>> {
        let dims = self.stat_dims(op, dim)?;
        self.reduce_with(op, &dims, keepdim, r, needs_elements)
    }

    /// Runs reducer `r` over every element and returns the single result.
    fn stat_all<R: Reducer<T>>(&self, op: &'static str, r: &R, needs: bool) -> Result<R::Out> {
        let dims: Vec<usize> = (0..self.ndim()).collect();
        self.reduce_with(op, &dims, false, r, needs)?.get(&[])
    }

    /// Whether any element along `dim` is non-zero, as a `u8` tensor of 0s and 1s (0 over
    /// no elements). An element is non-zero when it differs from zero: `-0.0` is zero, NaN is
    /// not.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] if `dim >= ndim` (except `dim = 0` of a 0-dim tensor);
    /// [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![0i32, 3, 0, 0], &[2, 2])?;
    /// assert_eq!(a.any_dim(1, false)?.to_vec(), vec![1, 0]);
    /// assert_eq!(a.any_dim(0, true)?.to_vec(), vec![0, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn any_dim(&self, dim: impl crate::layout::Dim, keepdim: bool) -> Result<Tensor<u8>> {
        let dim = dim.index("any_dim", self.ndim().max(1))?;
        self.stat_dim("any", dim, keepdim, &NonzeroTest::<true>, false)
    }

    /// Whether every element along `dim` is non-zero, as a `u8` tensor of 0s and 1s (1 over
    /// no elements); non-zero as in [`Tensor::any_dim`].
    ///
    /// # Errors
    /// As [`Tensor::any_dim`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.0f32, f32::NAN, -0.0, 2.0], &[2, 2])?;
    /// assert_eq!(a.all_dim(1, false)?.to_vec(), vec![1, 0]);
    /// assert_eq!(Tensor::<u8>::zeros(&[3, 0])?.all_dim(1, false)?.to_vec(), vec![1, 1, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn all_dim(&self, dim: impl crate::layout::Dim, keepdim: bool) -> Result<Tensor<u8>> {
        let dim = dim.index("all_dim", self.ndim().max(1))?;
        self.stat_dim("all", dim, keepdim, &NonzeroTest::<false>, false)
    }

    /// Whether any element is non-zero (`false` for an empty tensor).
    ///
    /// # Panics
    /// Only if the one-element result cannot be allocated.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![0u8, 0, 7], &[3])?;
    /// assert!(a.any_all() && !a.narrow(0, 0, 2)?.any_all());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn any_all(&self) -> bool {
        if let Some((stored, _)) = self.stored_elements() {
            return stored.any_all();
        }
        self.stat_all("any", &NonzeroTest::<true>, false)
            .or_panic("any_all")
            != 0
    }

    /// Whether every element is non-zero (`true` for an empty tensor).
    ///
    /// # Panics
    /// As [`Tensor::any_all`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1i64, -2, 0], &[3])?;
    /// assert!(!a.all_all() && a.narrow(0, 0, 2)?.all_all());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn all_all(&self) -> bool {
        if let Some((stored, _)) = self.stored_elements() {
            return stored.all_all();
        }
        self.stat_all("all", &NonzeroTest::<false>, false)
            .or_panic("all_all")
            != 0
    }

    /// Number of non-zero elements (non-zero as in [`Tensor::any_dim`]), counted without
    /// wrapping whatever the element type.
    ///
    /// # Panics
    /// As [`Tensor::any_all`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mask = Tensor::full(&[1000], 1u8)?;
    /// assert_eq!(mask.count_nonzero_all(), 1000); // a u8 sum would wrap to 232
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn count_nonzero_all(&self) -> usize {
        if let Some((stored, n)) = self.stored_elements() {
            // At most the element count, which fits `isize`.
            return stored.count_nonzero_all() * n;
        }
        self.stat_all("count_nonzero", &CountNonzero, false)
            .or_panic("count_nonzero_all") as usize
    }

    /// Number of non-zero elements along `dim`, as `i64`.
    ///
    /// # Errors
    /// As [`Tensor::any_dim`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![0.0f32, 1.0, 2.0, 0.0, 0.0, 5.0], &[2, 3])?;
    /// assert_eq!(a.count_nonzero_dim(1, false)?.to_vec(), vec![2, 1]);
    /// assert_eq!(a.t()?.count_nonzero_dim(1, true)?.shape(), &[3, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn count_nonzero_dim(
        &self,
        dim: impl crate::layout::Dim,
        keepdim: bool,
    ) -> Result<Tensor<i64>> {
        let dim = dim.index("count_nonzero_dim", self.ndim().max(1))?;
        self.stat_dim("count_nonzero", dim, keepdim, &CountNonzero, false)
    }

    /// Sum of every element converted to `U` as Rust's `as` does, accumulated as `U`'s sums
    /// are ([`Numeric`]: pairwise for floats, wrapping only at `U`'s width for integers), so
    /// a `u8` mask can be summed in `i64` without wrapping at 256. 0 for an empty tensor.
    ///
    /// # Panics
    /// As [`Tensor::any_all`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mask = Tensor::full(&[300], 1u8)?;
    /// assert_eq!(mask.sum_all(), 44); // wraps in u8
    /// assert_eq!(mask.sum_all_as::<i64>(), 300);
    /// let small = Tensor::from_vec(vec![-3i8, 100, 100], &[3])?;
    /// assert_eq!(small.sum_all_as::<f32>(), 197.0);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn sum_all_as<U: Numeric>(&self) -> U
    where
        T: AsPrimitive<U>,
    {
        self.stat_all("sum_all_as", &SumAs::<U>(PhantomData), false)
            .or_panic("sum_all_as")
    }
}

impl<T: Numeric> Tensor<T> {
    /// Maximum along `dim` and its index (PyTorch's `x.max(dim)`: `(values, indices)`), from
    /// one pass over the input: the values as [`Tensor::max_dim`] gives them and the indices
    /// as [`Tensor::argmax_dim`] does (the first NaN if there is one, else the first maximum). The two results share a layout.
    ///
    /// # Errors
    /// [`Error::EmptyReduction`] if `dim` has size 0 (and the result is not empty);
    /// [`Error::DimOutOfRange`]; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1i32, 7, 7, 9, 0, 5], &[2, 3])?;
    /// let (values, indices) = a.max_dim_with_indices(1, false)?;
    /// assert_eq!((values.to_vec(), indices.to_vec()), (vec![7, 9], vec![1, 0]));
    /// let (v, i) = a.t()?.max_dim_with_indices(0, true)?;
    /// assert_eq!((v.shape(), i.to_vec()), (&[1, 2][..], vec![1, 0]));
    /// assert!(Tensor::<f32>::zeros(&[2, 0])?.max_dim_with_indices(1, false).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "max")]
    pub fn max_dim_with_indices(
        &self,
        dim: impl crate::layout::Dim,
        keepdim: bool,
    ) -> Result<(Tensor<T>, Tensor<i64>)> {
        let dim = dim.index("max_dim_with_indices", self.ndim().max(1))?;
        self.extreme_with_indices("max_dim_with_indices", dim, keepdim, &ArgExtreme::<true>)
    }

    /// Minimum along `dim` and its index, from one pass over the input (as
    /// [`Tensor::max_dim_with_indices`], for the minimum).
    ///
    /// # Errors
    /// As [`Tensor::max_dim_with_indices`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![4.0f32, 2.0, 2.0, 8.0], &[2, 2])?;
    /// let (values, indices) = a.min_dim_with_indices(0, false)?;
    /// assert_eq!((values.to_vec(), indices.to_vec()), (vec![2.0, 2.0], vec![1, 0]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "min")]
    pub fn min_dim_with_indices(
        &self,
        dim: impl crate::layout::Dim,
        keepdim: bool,
    ) -> Result<(Tensor<T>, Tensor<i64>)> {
        let dim = dim.index("min_dim_with_indices", self.ndim().max(1))?;
        self.extreme_with_indices("min_dim_with_indices", dim, keepdim, &ArgExtreme::<false>)
    }

    /// The arg-reduction `r` over `dim` (keepdim), then each winner's value read at its
    /// index: one pass over the input, plus one read per output element.
    fn extreme_with_indices<R: Reducer<T, Out = i64>>(
        &self,
        op: &'static str,
        dim: usize,
        keepdim: bool,
        r: &R,
    ) -> Result<(Tensor<T>, Tensor<i64>)> {
        let dims = self.stat_dims(op, dim)?;
        let indices = self.reduce_with(op, &dims, true, r, true)?;
        // Element `k` of the keepdim result is input element `k` with `dim` set to its index.
        let mut strides = self.strides().to_vec();
        let step = match dims.first() {
            Some(&d) => std::mem::replace(&mut strides[d], 0),
            None => 0,
        };
        let (data, ids) = (self.storage.as_slice(), indices.storage.as_slice());
        let mut values = vec![T::zeroed(); ids.len()];
        let base = self.offset() as isize;
        for_each_offset2(indices.shape(), &strides, indices.strides(), |a, k| {
            let k = k as usize;
            // In range: `a` plus `index * step` is an addressed offset of the input (the index
            // is below the size of `dim`), and `k` an offset of the dense result.
            values[k] = data[(base + a + ids[k] as isize * step) as usize];
        });
        let values = Tensor::from_parts(
            Arc::new(crate::storage::Storage::from_slice(&values)?),
            indices.layout.clone(),
        );
        match dims.first() {
            Some(&d) if !keepdim => Ok((values.squeeze(d)?, indices.squeeze(d)?)),
            _ => Ok((values, indices)),
        }
    }
}

impl<T: ToFloat> Tensor<T> {
    /// Softmax along `dim`: `e^(x - max) / sum(e^(x - max))` over each slice along `dim`,
    /// computed stably (logits near ±1000 are fine); `f16`/`bf16` compute in `f32`. Each
    /// slice's max comes first, then its sum in the canonical order of every reduction, then
    /// the output: the bits of a slice's result do not depend on the layout, on the other
    /// slices, on the thread count or on the CPU's SIMD level.
    ///
    /// The result is laid out like the input when the input is a permuted dense layout
    /// (transposed, channels-last), row-major otherwise. A slice containing NaN or `+inf`
    /// gives NaN throughout, one of only `-inf` NaN too (as in PyTorch).
    ///
    /// Integer inputs give `Tensor<f32>`: converted to `f32` first (PyTorch's default float
    /// type, see [`ToFloat`]); float inputs are read in place and give their own type.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] if `dim >= ndim` (except `dim = 0` of a 0-dim tensor);
    /// [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let logits = Tensor::from_vec(vec![1000.0f32, 1000.0, -1000.0, 0.0], &[2, 2])?;
    /// let p = logits.softmax(1)?;
    /// assert_eq!(p.to_vec(), vec![0.5, 0.5, 0.0, 1.0]);
    /// let q = logits.t()?.softmax(0)?; // the same slices, transposed
    /// assert_eq!(q.strides(), &[1, 2]);
    /// assert!(logits.softmax(2).is_err());
    /// let ints = Tensor::from_vec(vec![0i32, 0], &[2])?;
    /// assert_eq!(ints.softmax(-1)?.to_vec(), vec![0.5f32, 0.5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn softmax(&self, dim: impl crate::layout::Dim) -> Result<Tensor<T::Float>> {
        let dim = dim.index("softmax", self.ndim().max(1))?;
        self.to_float().softmax_with("softmax", dim, false)
    }

    /// Log-softmax along `dim`: `x - max - ln(sum(e^(x - max)))`, as [`Tensor::softmax`]
    /// computes it (stable for large logits; the same bits for every layout). Integer inputs give
    /// `Tensor<f32>`, as [`Tensor::softmax`].
    ///
    /// # Errors
    /// As [`Tensor::softmax`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let logits = Tensor::from_vec(vec![1000.0f64, 1000.0, 0.0], &[3])?;
    /// let lp = logits.log_softmax(0)?.to_vec();
    /// assert!((lp[0] + std::f64::consts::LN_2).abs() < 1e-12);
    /// assert!((lp[2] + 1000.0 + std::f64::consts::LN_2).abs() < 1e-9);
    /// let ints = Tensor::from_vec(vec![5u8], &[1])?;
    /// assert_eq!(ints.log_softmax(0)?.to_vec(), vec![0.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn log_softmax(&self, dim: impl crate::layout::Dim) -> Result<Tensor<T::Float>> {
        let dim = dim.index("log_softmax", self.ndim().max(1))?;
        self.to_float().softmax_with("log_softmax", dim, true)
    }

    /// `ln(sum(e^x))` along `dim`, computed stably as `max + ln(sum(e^(x - max)))` in one
    /// pass (online: the sum is rescaled whenever the max grows). `-inf` over no elements or
    /// if every element is `-inf`; `+inf` if an element is `+inf`; NaN if one is NaN.
    /// Integer inputs give `Tensor<f32>`, as [`Tensor::softmax`].
    ///
    /// # Errors
    /// As [`Tensor::softmax`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1000.0f32, 1000.0, 0.0, f32::NEG_INFINITY], &[2, 2])?;
    /// let l = a.logsumexp_dim(1, false)?.to_vec();
    /// assert!((l[0] - (1000.0 + std::f32::consts::LN_2)).abs() < 1e-3);
    /// assert_eq!(l[1], 0.0);
    /// assert_eq!(a.logsumexp_dim(0, true)?.shape(), &[1, 2]);
    /// let ints = Tensor::from_vec(vec![0i64, 0], &[2])?;
    /// assert_eq!(ints.logsumexp_dim(0, false)?.to_vec(), vec![std::f32::consts::LN_2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn logsumexp_dim(
        &self,
        dim: impl crate::layout::Dim,
        keepdim: bool,
    ) -> Result<Tensor<T::Float>> {
        let dim = dim.index("logsumexp_dim", self.ndim().max(1))?;
        self.to_float().logsumexp_with(dim, keepdim)
    }

    /// Variance along `dim` with `correction` (1 for the unbiased estimate, 0 for the
    /// population variance): `sum((x - mean)^2) / (n - correction)`, accumulated in `f64`
    /// whatever the element type, from sums of elements shifted by one of their neighbours and
    /// merged pairwise with Chan's parallel formula: accurate for data far from zero (mean
    /// `1e6`, spread 1: about `1e-12` relative). The order of the sums is fixed by the
    /// slice's length alone: the same bits for every layout, thread count and SIMD level.
    ///
    /// When `n <= correction` the divisor is 0, as in PyTorch: the result is NaN when the
    /// deviations are all zero (always for `n <= 1`, and over no elements) and `+inf`
    /// otherwise. NaN or infinite elements give NaN.
    ///
    /// Integer inputs give `Tensor<f32>` (converted first, see [`ToFloat`]); the variance of
    /// the converted values is still accumulated in `f64`.
    ///
    /// # Errors
    /// As [`Tensor::softmax`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 4.0, 4.0], &[2, 3])?;
    /// assert_eq!(a.var_dim(1, false, 1)?.to_vec(), vec![1.0, 0.0]);
    /// assert_eq!(a.var_dim(0, true, 0)?.to_vec(), vec![2.25, 1.0, 0.25]);
    /// assert!(a.narrow(1, 0, 1)?.var_dim(1, false, 1)?.to_vec()[0].is_nan());
    /// let ints = Tensor::from_vec(vec![1i32, 2, 3, 4], &[4])?;
    /// assert_eq!(ints.var_dim(-1, false, 1)?.to_vec(), vec![5.0f32 / 3.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn var_dim(
        &self,
        dim: impl crate::layout::Dim,
        keepdim: bool,
        correction: usize,
    ) -> Result<Tensor<T::Float>> {
        let dim = dim.index("var_dim", self.ndim().max(1))?;
        let spec = VarSpec {
            correction,
            sqrt: false,
        };
        self.to_float().moments_with("var", dim, keepdim, spec)
    }

    /// Standard deviation along `dim`: the square root of [`Tensor::var_dim`] (taken in
    /// `f64`), with the same rule for `n <= correction`. Integer inputs give `Tensor<f32>`,
    /// as [`Tensor::var_dim`].
    ///
    /// # Errors
    /// As [`Tensor::softmax`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![2.0f32, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], &[8])?;
    /// assert_eq!(a.std_dim(0, false, 0)?.to_vec(), vec![2.0]);
    /// let ints = Tensor::from_vec(vec![2u16, 4, 4, 4, 5, 5, 7, 9], &[8])?;
    /// assert_eq!(ints.std_dim(0, false, 0)?.to_vec(), vec![2.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn std_dim(
        &self,
        dim: impl crate::layout::Dim,
        keepdim: bool,
        correction: usize,
    ) -> Result<Tensor<T::Float>> {
        let dim = dim.index("std_dim", self.ndim().max(1))?;
        let spec = VarSpec {
            correction,
            sqrt: true,
        };
        self.to_float().moments_with("std", dim, keepdim, spec)
    }

    /// The vector norm `ord` of each slice along `dim`: L1, L2 or max (see [`Norm`]; `ord`
    /// is a `Norm` or PyTorch's number, `1.0`, `2.0`, `f64::INFINITY`, `1` or `2`: see
    /// [`NormOrder`]). Sums accumulate in `f32` for `f32`/`f16`/`bf16` and `f64` for `f64`
    /// (pairwise); the max norm propagates NaN. Integer inputs give `Tensor<f32>` (converted
    /// first, see [`ToFloat`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another `ord`; [`Error::EmptyReduction`] for the max
    /// norm over a dim of size 0 (L1 and L2 give 0 there); as [`Tensor::softmax`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![3.0f32, -4.0, 1.0, 0.0], &[2, 2])?;
    /// assert_eq!(a.norm_dim(1, false, 2.0)?.to_vec(), vec![5.0, 1.0]);
    /// assert_eq!(a.norm_dim(1, false, 2)?.to_vec(), vec![5.0, 1.0]);
    /// assert_eq!(a.norm_dim(0, true, 1.0)?.to_vec(), vec![4.0, 4.0]);
    /// assert_eq!(a.norm_dim(1, false, f64::INFINITY)?.to_vec(), vec![4.0, 1.0]);
    /// assert!(a.norm_dim(1, false, 0.5).is_err());
    /// let ints = Tensor::from_vec(vec![3i8, -4], &[1, 2])?;
    /// assert_eq!(ints.norm_dim(-1, false, 2)?.to_vec(), vec![5.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn norm_dim(
        &self,
        dim: impl crate::layout::Dim,
        keepdim: bool,
        ord: impl NormOrder,
    ) -> Result<Tensor<T::Float>> {
        let dim = dim.index("norm_dim", self.ndim().max(1))?;
        let norm = ord.to_norm("norm")?;
        self.to_float().norm_dim_with(dim, keepdim, norm)
    }

    /// The vector norm `ord` of all elements (as [`Tensor::norm_dim`]); integer inputs give
    /// an `f32`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another `ord`; [`Error::EmptyReduction`] for the max
    /// norm of an empty tensor; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![half::f16::from_f32(-3.0); 4], &[2, 2])?;
    /// assert_eq!(a.norm_all(2.0)?, half::f16::from_f32(6.0));
    /// assert!(Tensor::<f32>::zeros(&[0])?.norm_all(f64::INFINITY).is_err());
    /// assert_eq!(Tensor::from_vec(vec![-3i32, 4], &[2])?.norm_all(1)?, 7.0f32);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn norm_all(&self, ord: impl NormOrder) -> Result<T::Float> {
        let norm = ord.to_norm("norm")?;
        self.to_float().norm_all_with(norm)
    }
}

/// The float-only reductions' kernels, on a tensor of the float type they compute in.
impl<T: FloatElement> Tensor<T> {
    /// Runs the softmax kernel along `dim` (a 0-dim tensor as a 1-element vector).
    fn softmax_with(&self, op: &'static str, dim: usize, log: bool) -> Result<Tensor<T>> {
        if self.stat_dims(op, dim)?.is_empty() {
            return self.unsqueeze(0)?.softmax_with(op, 0, log)?.squeeze(0);
        }
        let (storage, layout) = softmax(&self.storage, &self.layout, dim, log)?;
        Ok(Tensor::from_parts(Arc::new(storage), layout))
    }

    /// `logsumexp_dim` over the resolved `dim`: `f64` accumulation for `f64`, `f32` else.
    fn logsumexp_with(&self, dim: usize, keepdim: bool) -> Result<Tensor<T>> {
        match T::DTYPE {
            DType::F64 => self.stat_dim(
                "logsumexp",
                dim,
                keepdim,
                &LogSumExp::<f64>(PhantomData),
                false,
            ),
            _ => self.stat_dim(
                "logsumexp",
                dim,
                keepdim,
                &LogSumExp::<f32>(PhantomData),
                false,
            ),
        }
    }

    /// Runs the moments kernel along `dim` into the layout every reduction gets (a 0-dim
    /// tensor as a 1-element vector).
    fn moments_with(
        &self,
        op: &'static str,
        dim: usize,
        keepdim: bool,
        spec: VarSpec,
    ) -> Result<Tensor<T>> {
        if self.stat_dims(op, dim)?.is_empty() {
            return self.unsqueeze(0)?.moments_with(op, 0, false, spec);
        }
        let plan = ReducePlan::new(op, &self.layout, &[dim], true)?;
        let storage = moments(&self.storage, &self.layout, dim, &plan.out_layout, spec)?;
        let out = Tensor::from_parts(Arc::new(storage), plan.out_layout);
        match keepdim {
            true => Ok(out),
            false => out.squeeze(dim),
        }
    }

    /// `norm_dim` over the resolved `dim`.
    fn norm_dim_with(&self, dim: usize, keepdim: bool, norm: Norm) -> Result<Tensor<T>> {
        let op = "norm";
        match norm {
            Norm::L1 => self.stat_dim(op, dim, keepdim, &AbsSum, false),
            Norm::L2 if T::DTYPE == DType::F64 => {
                self.stat_dim(op, dim, keepdim, &SquareSum::<f64>(PhantomData), false)
            }
            Norm::L2 => self.stat_dim(op, dim, keepdim, &SquareSum::<f32>(PhantomData), false),
            Norm::Max => self.stat_dim(op, dim, keepdim, &AbsMax, true),
        }
    }

    /// `norm_all` of the resolved `norm`.
    fn norm_all_with(&self, norm: Norm) -> Result<T> {
        let op = "norm";
        match norm {
            Norm::L1 => self.stat_all(op, &AbsSum, false),
            Norm::L2 if T::DTYPE == DType::F64 => {
                self.stat_all(op, &SquareSum::<f64>(PhantomData), false)
            }
            Norm::L2 => self.stat_all(op, &SquareSum::<f32>(PhantomData), false),
            Norm::Max => self.stat_all(op, &AbsMax, true),
        }
    }
}
