//! Scans along a dim: cumulative sums and products.
//!
//! The result is a fresh tensor dense in the input's memory order ([`Layout::dense_like`]:
//! a transposed input gives a transposed result, channels-last stays channels-last), computed
//! by the scan kernel (`src/kernels/scan.rs`) straight from the input's strides, with no
//! operand copy. Each output element is the left-to-right fold of its prefix, accumulated in
//! [`Numeric::Acc`] and rounded once: `f16`/`bf16` accumulate in `f32`, integers wrap. Results
//! are bit-identical for any number of threads. As in PyTorch, a 0-dim tensor accepts
//! `dim = 0` (its scan is itself).
//!
//! [`Layout::dense_like`]: crate::Layout::dense_like

use std::sync::Arc;

use super::Tensor;
use crate::error::Result;
use crate::kernels::scan::scan;
use crate::scalar::Numeric;

impl<T: Numeric> Tensor<T> {
    /// Cumulative sum along `dim`: element `i` is the sum of elements `0..=i` (PyTorch's
    /// `cumsum`). Floats add left to right in [`Numeric::Acc`] (`f32` for `f16`/`bf16`, so
    /// long half-precision sums stay accurate); integers wrap.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`](crate::Error::DimOutOfRange) if `dim >= ndim` (except
    /// `dim = 0` of a 0-dim tensor); [`Error::Alloc`](crate::Error::Alloc).
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec((1..=6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.cumsum(1)?.to_vec(), vec![1, 3, 6, 4, 9, 15]);
    /// assert_eq!(a.cumsum(0)?.to_vec(), vec![1, 2, 3, 5, 7, 9]);
    /// let t = a.t()?.cumsum(0)?; // transposed in, transposed out
    /// assert_eq!((t.strides(), t.to_vec()), (&[1, 3][..], vec![1, 4, 3, 9, 6, 15]));
    /// assert!(a.cumsum(2).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn cumsum(&self, dim: impl crate::layout::Dim) -> Result<Tensor<T>> {
        let dim = dim.index("cumsum", self.ndim().max(1))?;
        self.scan_with("cumsum", dim, &T::acc_add)
    }

    /// Cumulative product along `dim`: element `i` is the product of elements `0..=i`
    /// (PyTorch's `cumprod`), accumulated as [`Tensor::cumsum`] accumulates; integers wrap.
    ///
    /// # Errors
    /// As [`Tensor::cumsum`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4])?;
    /// assert_eq!(a.cumprod(0)?.to_vec(), vec![1.0, 2.0, 6.0, 24.0]);
    /// assert_eq!(a.flip(0)?.cumprod(0)?.to_vec(), vec![4.0, 12.0, 24.0, 24.0]);
    /// let bytes = Tensor::from_vec(vec![16u8, 16, 3], &[3])?;
    /// assert_eq!(bytes.cumprod(0)?.to_vec(), vec![16, 0, 0]); // wraps
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn cumprod(&self, dim: impl crate::layout::Dim) -> Result<Tensor<T>> {
        let dim = dim.index("cumprod", self.ndim().max(1))?;
        self.scan_with("cumprod", dim, &T::acc_mul)
    }

    /// Runs the scan kernel with `f` along `dim`.
    fn scan_with<F>(&self, op: &'static str, dim: usize, f: &F) -> Result<Tensor<T>>
    where
        F: Fn(T::Acc, T::Acc) -> T::Acc + Sync,
    {
        if self.stat_dims(op, dim)?.is_empty() {
            // A 0-dim tensor: scan it as a 1-element vector.
            return self.unsqueeze(0)?.scan_with(op, 0, f)?.squeeze(0);
        }
        let (storage, layout) = scan(&self.storage, &self.layout, dim, f)?;
        Ok(Tensor::from_parts(Arc::new(storage), layout))
    }
}
