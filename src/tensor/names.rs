//! The short names PyTorch and ndarray users type, each the crate's longer-named op:
//! `sum()`, `mean()`, `max()`, `min()`, `norm()` over every element, `argmax(dim)` /
//! `argmin(dim)`, `std(dim)` / `var(dim)`, `dot` of two vectors, `to_dtype::<U>()`. The
//! longer names (`sum_all`, `argmax_dim`, `cast`, ...) stay the documented home of each op's
//! rules. (The comparison names `gt`, `eq`, ... are in `operators/compare_names.rs`.)

use num_traits::AsPrimitive;

use super::Tensor;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::Dim;
use crate::matmul::MatmulElement;
use crate::scalar::{Numeric, ToFloat};

impl<T: Numeric> Tensor<T> {
    /// Sum of every element in the element type ([`Tensor::sum_all`]): PyTorch's `x.sum()`
    /// for floats, but an integer sum *wraps* at the element type's width, where PyTorch
    /// widens integer and bool sums to `int64`. For PyTorch's integer result, sum in `i64`:
    /// [`Tensor::sum_all_as::<i64>()`](Tensor::sum_all_as) (no copy), or convert first with
    /// `to_dtype::<i64>().sum()`.
    ///
    /// # Panics
    /// As [`Tensor::sum_all`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.sum(), 10);
    /// let ones = stridex::Tensor::full(&[300], 1u8)?;
    /// assert_eq!(ones.sum(), 44); // 300 wraps in u8
    /// assert_eq!(ones.sum_all_as::<i64>(), 300); // PyTorch's ones.sum()
    /// assert_eq!(ones.to_dtype::<i64>().sum(), 300);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn sum(&self) -> T {
        self.sum_all()
    }

    /// Maximum of every element ([`Tensor::max_all`]; NaN if any element is NaN).
    ///
    /// # Errors
    /// As [`Tensor::max_all`]: an empty tensor has no maximum.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![3i8, -1, 4, 1], &[2, 2])?;
    /// assert_eq!((a.max()?, a.min()?), (4, -1));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn max(&self) -> Result<T> {
        self.max_all()
    }

    /// Minimum of every element ([`Tensor::min_all`]).
    ///
    /// # Errors
    /// As [`Tensor::min_all`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![3.0f32, -1.0], &[2])?;
    /// assert_eq!(a.min()?, -1.0);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn min(&self) -> Result<T> {
        self.min_all()
    }

    /// Index along `dim` of each maximum, the dim removed ([`Tensor::argmax_dim`] without
    /// `keepdim`; PyTorch's `x.argmax(dim)`).
    ///
    /// # Errors
    /// As [`Tensor::argmax_dim`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.0f32, 7.0, 2.0, 0.0, 5.0, 9.0], &[2, 3])?;
    /// assert_eq!(a.argmax(1)?.to_vec(), vec![1, 2]);
    /// assert_eq!(a.argmax(-1)?.to_vec(), vec![1, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn argmax(&self, dim: impl Dim) -> Result<Tensor<i64>> {
        self.argmax_dim(dim, false).map_err(|e| e.named("argmax"))
    }

    /// Index along `dim` of each minimum, the dim removed ([`Tensor::argmin_dim`]).
    ///
    /// # Errors
    /// As [`Tensor::argmin_dim`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1, 7, 2, 0, 5, 9], &[2, 3])?;
    /// assert_eq!(a.argmin(0)?.to_vec(), vec![1, 1, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn argmin(&self, dim: impl Dim) -> Result<Tensor<i64>> {
        self.argmin_dim(dim, false).map_err(|e| e.named("argmin"))
    }
}

impl<T: ToFloat> Tensor<T> {
    /// Mean of every element ([`Tensor::mean_all`]; NaN for an empty tensor). Integer
    /// inputs give an `f32` (PyTorch's default float type), floats their own type.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 6.0], &[2, 2])?;
    /// assert_eq!(a.mean(), 3.0);
    /// assert_eq!(stridex::Tensor::from_vec(vec![1, 2], &[2])?.mean(), 1.5f32);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn mean(&self) -> T::Float {
        self.mean_all()
    }

    /// The L2 norm of every element ([`Tensor::norm_all`] with [`Norm::L2`](crate::Norm);
    /// PyTorch's `x.norm()`, NumPy's `linalg.norm(x)` of the flattened array); 0 for an empty
    /// tensor. Integer inputs give an `f32`.
    ///
    /// # Panics
    /// As [`Tensor::sum_all`]: only if the one-element result cannot be allocated.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![3.0f32, 0.0, 0.0, -4.0], &[2, 2])?;
    /// assert_eq!(a.norm(), 5.0);
    /// assert_eq!(a.t()?.norm(), 5.0);
    /// assert_eq!(stridex::Tensor::from_vec(vec![3i64, 4], &[2])?.norm(), 5.0f32);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[doc(alias = "linalg_norm")]
    pub fn norm(&self) -> T::Float {
        self.norm_all(crate::Norm::L2)
            .unwrap_or_else(|e| panic!("norm: {e}"))
    }

    /// Standard deviation along `dim` with Bessel's correction, the dim removed
    /// ([`Tensor::std_dim`] with `keepdim = false`, `correction = 1`: PyTorch's `x.std(dim)`;
    /// NumPy's `std` defaults to `ddof = 0`, which is `std_dim(dim, false, 0)`).
    ///
    /// # Errors
    /// As [`Tensor::std_dim`] (reported for `std`).
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.0f64, 3.0, 2.0, 2.0], &[2, 2])?;
    /// assert_eq!(a.std(1)?.to_vec(), vec![2.0f64.sqrt(), 0.0]);
    /// assert_eq!(a.std(-2)?.to_vec(), vec![0.5f64.sqrt(), 0.5f64.sqrt()]);
    /// assert!(a.std(2).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn std(&self, dim: impl Dim) -> Result<Tensor<T::Float>> {
        self.std_dim(dim, false, 1).map_err(|e| e.named("std"))
    }

    /// Variance along `dim` with Bessel's correction, the dim removed ([`Tensor::var_dim`]
    /// with `keepdim = false`, `correction = 1`: PyTorch's `x.var(dim)`).
    ///
    /// # Errors
    /// As [`Tensor::var_dim`] (reported for `var`).
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.0f32, 3.0, 2.0, 2.0], &[2, 2])?;
    /// assert_eq!(a.var(1)?.to_vec(), vec![2.0, 0.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn var(&self, dim: impl Dim) -> Result<Tensor<T::Float>> {
        self.var_dim(dim, false, 1).map_err(|e| e.named("var"))
    }
}

impl<T: Element> Tensor<T> {
    /// The elements converted to `U` ([`Tensor::cast`], under the name PyTorch users look
    /// for: `x.to(dtype)`; the docs' search finds it as `to` and as NumPy's `astype` too).
    ///
    /// # Panics
    /// As [`Tensor::cast`]: only if the result cannot be allocated.
    ///
    /// ```
    /// use half::f16;
    /// let a = stridex::Tensor::from_vec(vec![1.5f32, -2.0], &[2])?;
    /// assert_eq!(a.to_dtype::<f16>().to_vec(), vec![f16::from_f32(1.5), f16::from_f32(-2.0)]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[doc(alias = "to")]
    #[doc(alias = "astype")]
    #[track_caller]
    pub fn to_dtype<U: Element>(&self) -> Tensor<U>
    where
        T: AsPrimitive<U>,
    {
        self.map_as("to_dtype", |x| x.as_())
    }
}

impl<T: MatmulElement> Tensor<T> {
    /// The dot product of two vectors (1-dim tensors of one length), as a number: ndarray's
    /// `a.dot(&b)` for vectors; read through both strides, no copy.
    ///
    /// # Errors
    /// [`Error::RankMismatch`] unless both are 1-dim; as [`Tensor::matmul`] for lengths that
    /// differ.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3])?;
    /// let b = Tensor::from_vec(vec![4.0f32, 5.0, 6.0], &[3])?;
    /// assert_eq!(a.dot(&b)?, 32.0);
    /// assert_eq!(a.dot(&b.flip(0)?)?, 28.0);
    /// assert!(a.dot(&Tensor::zeros(&[1, 3])?).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn dot(&self, other: &Tensor<T>) -> Result<T> {
        for t in [self, other] {
            if t.ndim() != 1 {
                return Err(Error::RankMismatch {
                    op: "dot",
                    what: "dims",
                    expected: 1,
                    got: t.ndim(),
                });
            }
        }
        if self.numel() != other.numel() {
            return Err(Error::ShapeMismatch {
                op: "dot",
                expected: self.shape().to_vec(),
                got: other.shape().to_vec(),
            });
        }
        self.matmul(other).map_err(|e| e.named("dot"))?.get(&[])
    }
}
