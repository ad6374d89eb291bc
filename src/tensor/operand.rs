//! [`TensorOrScalar`]: an argument that may be a tensor or one value of its element type
//! (`x.pow(2.0)` and `x.pow(&e)`, `Tensor::where_cond(&m, &x, 0.0)`), as PyTorch's functions
//! take a number wherever they take a tensor.

use std::borrow::Cow;

use super::Tensor;
use crate::element::Element;
use crate::error::Result;

mod sealed {
    pub trait Sealed {}
}

/// An operand that is a tensor (`&Tensor<T>` or `Tensor<T>`) or one scalar of type `T`
/// (a 0-dim tensor, broadcast against the others). Sealed: only those three.
///
/// ```
/// use stridex::Tensor;
/// let x = Tensor::from_vec(vec![1.0f32, -2.0, 3.0], &[3])?;
/// let pos = Tensor::where_cond(&x.gt(0.0)?, &x, 0.0)?; // a scalar branch
/// assert_eq!(pos.to_vec(), vec![1.0, 0.0, 3.0]);
/// assert_eq!(x.pow(2.0)?.to_vec(), vec![1.0, 4.0, 9.0]); // a scalar exponent
/// # Ok::<(), stridex::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is neither a tensor of `{T}` nor a `{T}` scalar",
    label = "expected `&Tensor<{T}>`, `Tensor<{T}>` or a `{T}` value",
    note = "a scalar must have the tensor's element type: write `2.0` (not `2`) for a float \
            tensor, or convert the tensor first (`to_dtype`)"
)]
pub trait TensorOrScalar<T: Element>: sealed::Sealed + Sized {
    /// The scalar, if this operand is one.
    #[doc(hidden)]
    fn scalar(&self) -> Option<T>;

    /// The operand as a tensor (a scalar as a 0-dim tensor).
    ///
    /// # Errors
    /// [`Error::Alloc`](crate::Error::Alloc) for a scalar's tensor.
    #[doc(hidden)]
    fn tensor<'a>(self) -> Result<Cow<'a, Tensor<T>>>
    where
        Self: 'a;
}

impl<T: Element> sealed::Sealed for &Tensor<T> {}
impl<T: Element> sealed::Sealed for Tensor<T> {}
impl<T: Element> sealed::Sealed for T {}

impl<T: Element> TensorOrScalar<T> for &Tensor<T> {
    fn scalar(&self) -> Option<T> {
        None
    }

    fn tensor<'a>(self) -> Result<Cow<'a, Tensor<T>>>
    where
        Self: 'a,
    {
        Ok(Cow::Borrowed(self))
    }
}

impl<T: Element> TensorOrScalar<T> for Tensor<T> {
    fn scalar(&self) -> Option<T> {
        None
    }

    fn tensor<'a>(self) -> Result<Cow<'a, Tensor<T>>>
    where
        Self: 'a,
    {
        Ok(Cow::Owned(self))
    }
}

impl<T: Element> TensorOrScalar<T> for T {
    fn scalar(&self) -> Option<T> {
        Some(*self)
    }

    fn tensor<'a>(self) -> Result<Cow<'a, Tensor<T>>>
    where
        Self: 'a,
    {
        Tensor::full(&[], self).map(Cow::Owned)
    }
}
