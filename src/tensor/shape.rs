//! Shape changes written the PyTorch way: one inferred dim (`-1`) in `view` / `reshape`, and
//! `flatten(start, end)`. Each resolves the shape with `Layout` and then is a plain
//! [`Tensor::view`] or [`Tensor::reshape`].

use super::Tensor;
use crate::element::Element;
use crate::error::Result;
use crate::layout::{Dim, infer_shape};

impl<T: Element> Tensor<T> {
    /// [`Tensor::view`] with at most one length given as `-1` and inferred from the element
    /// count (PyTorch's `view(-1, n)`); never copies.
    ///
    /// # Errors
    /// As [`infer_shape`](crate::layout::infer_shape) (naming `view`) and [`Tensor::view`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::arange(0i32, 12, 1)?;
    /// assert_eq!(a.view_infer(&[-1, 4])?.shape(), &[3, 4]);
    /// assert!(a.view_infer(&[5, -1]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn view_infer(&self, shape: &[isize]) -> Result<Tensor<T>> {
        self.view(&infer_shape("view", shape, self.numel())?)
    }

    /// [`Tensor::reshape`] with at most one length given as `-1` and inferred from the
    /// element count: a view when one exists, otherwise one copy.
    ///
    /// # Errors
    /// As [`infer_shape`](crate::layout::infer_shape) (naming `reshape`) and
    /// [`Tensor::reshape`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::arange(0i32, 6, 1)?.view(&[2, 3])?.t()?;
    /// assert_eq!(a.reshape_infer(&[-1])?.to_vec(), vec![0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn reshape_infer(&self, shape: &[isize]) -> Result<Tensor<T>> {
        self.reshape(&infer_shape("reshape", shape, self.numel())?)
    }

    /// Dims `start..=end` merged into one (PyTorch's `flatten(start_dim, end_dim)`): a view
    /// when those dims can be merged, otherwise one copy, as [`Tensor::reshape`]. A 0-dim
    /// tensor flattens to shape `[1]`.
    ///
    /// # Errors
    /// As [`Layout::flattened_shape`](crate::Layout::flattened_shape), and
    /// [`Tensor::reshape`]'s copy errors.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::<f32>::zeros(&[2, 3, 4])?;
    /// let f = a.flatten(1, 2)?;
    /// assert_eq!(f.shape(), &[2, 12]);
    /// assert!(f.shares_storage(&a)); // a view
    /// assert_eq!(a.flatten(0, 2)?.shape(), &[24]);
    /// assert_eq!(a.flatten(-2, -1)?.shape(), &[2, 12]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn flatten(&self, start: impl Dim, end: impl Dim) -> Result<Tensor<T>> {
        let n = self.ndim().max(1);
        let (start, end) = (start.index("flatten", n)?, end.index("flatten", n)?);
        self.reshape(&self.layout.flattened_shape(start, end)?)
    }
}
