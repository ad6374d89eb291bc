//! Writes through a `TensorMut`: `fill`, `copy_from`, `set`, `map_inplace`, `zip_map_inplace`
//! and the in-place arithmetic built on it.
//!
//! Every write validates its arguments before touching an element, so a call that returns
//! `Err` has written nothing. Sources are broadcast to the destination's shape (NumPy rules, in
//! one direction: the destination's shape never changes) and read through their own strides.

use super::TensorMut;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels::elementwise::Src;
use crate::kernels::inplace;
use crate::layout::Layout;
use crate::scalar::Numeric;
use crate::tensor::Tensor;

/// `src`'s layout broadcast to `shape`, or the error naming `op`.
fn broadcast_source(op: &'static str, src: &Layout, shape: &[usize]) -> Result<Layout> {
    src.expand(shape).map_err(|_| Error::SourceMismatch {
        op,
        dst: shape.to_vec(),
        src: src.shape().to_vec(),
    })
}

/// `Err(DivisionByZero)` if `T` is an integer type, the destination has elements and `src`
/// holds a 0 (every element of a source broadcast to a non-empty destination is used).
pub(crate) fn check_divisor<T: Numeric>(
    op: &'static str,
    numel: usize,
    src: &Tensor<T>,
) -> Result<()> {
    let integer = T::zero().elem_div(T::zero()).is_none();
    if integer && numel > 0 && src.iter().any(|y| y.is_zero()) {
        return Err(Error::DivisionByZero { op });
    }
    Ok(())
}

impl<T: Element> TensorMut<'_, T> {
    /// Sets every element of the view to `value`.
    ///
    /// # Errors
    /// None today; `Result` keeps the signature of the other writes.
    ///
    /// ```
    /// let mut x = stridex::Tensor::<f32>::zeros(&[3, 3])?;
    /// x.view_mut()?.t()?.narrow(0, 2, 1)?.fill(1.0)?; // the last column
    /// assert_eq!(x.to_vec(), vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn fill(&mut self, value: T) -> Result<()> {
        inplace::fill(&self.mem, &self.layout, value);
        Ok(())
    }

    /// Copies `src`, broadcast to this view's shape, into the view: any strides on both sides,
    /// through the tiled copy kernel (a transposed copy runs at `contiguous()` speed).
    ///
    /// # Errors
    /// [`Error::SourceMismatch`] if `src` does not broadcast to this view's shape.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let src = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// let mut dst = Tensor::<i32>::zeros(&[3, 2])?;
    /// dst.view_mut()?.t()?.copy_from(&src)?; // dst = src.t()
    /// assert_eq!(dst.to_vec(), vec![0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn copy_from(&mut self, src: &Tensor<T>) -> Result<()> {
        let from = broadcast_source("copy_from", src.layout(), self.shape())?;
        let src = Src {
            storage: src.storage(),
            layout: &from,
        };
        inplace::copy_from(&self.mem, &self.layout, src, &from);
        Ok(())
    }

    /// Sets the element at multi-index `index`.
    ///
    /// # Errors
    /// [`Error::IndexRank`] or [`Error::IndexOutOfRange`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::<u8>::zeros(&[2, 2])?;
    /// x.view_mut()?.flip(1)?.set(&[0, 0], 4)?;
    /// assert_eq!(x.to_vec(), vec![0, 4, 0, 0]);
    /// assert!(x.view_mut()?.set(&[2, 0], 1).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn set(&mut self, index: &[usize], value: T) -> Result<()> {
        let off = self.layout.offset_of_for("set", index)?;
        inplace::write_at(&self.mem, &self.layout, off, value);
        Ok(())
    }

    /// Replaces every element `x` by `f(x)`. `f` may run on several threads.
    ///
    /// # Errors
    /// None today; `Result` keeps the signature of the other writes.
    ///
    /// ```
    /// let mut x = stridex::Tensor::from_vec(vec![1.0f32, 4.0, 9.0], &[3])?;
    /// x.view_mut()?.narrow(0, 1, 2)?.map_inplace(|v| v.sqrt())?;
    /// assert_eq!(x.to_vec(), vec![1.0, 2.0, 3.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn map_inplace<F: Fn(T) -> T + Sync>(&mut self, f: F) -> Result<()> {
        inplace::map(&self.mem, &self.layout, f);
        Ok(())
    }

    /// Replaces every element `x` by `f(x, y)`, `y` the element of `src` (broadcast to this
    /// view's shape) at the same index. The general form of the in-place arithmetic.
    ///
    /// # Errors
    /// [`Error::SourceMismatch`] if `src` does not broadcast to this view's shape.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mut acc = Tensor::<f32>::zeros(&[2, 2])?;
    /// let mask = Tensor::from_vec(vec![1u8, 0], &[2])?;
    /// acc.view_mut()?.zip_map_inplace(&mask, |a, m| a + m as f32)?;
    /// assert_eq!(acc.to_vec(), vec![1.0, 0.0, 1.0, 0.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn zip_map_inplace<U: Element, F: Fn(T, U) -> T + Sync>(
        &mut self,
        src: &Tensor<U>,
        f: F,
    ) -> Result<()> {
        self.update("zip_map_inplace", src, f)
    }

    fn update<U: Element, F: Fn(T, U) -> T + Sync>(
        &mut self,
        op: &'static str,
        src: &Tensor<U>,
        f: F,
    ) -> Result<()> {
        let from = broadcast_source(op, src.layout(), self.shape())?;
        let src = Src {
            storage: src.storage(),
            layout: &from,
        };
        inplace::update(&self.mem, &self.layout, src, f);
        Ok(())
    }
}

impl<T: Numeric> TensorMut<'_, T> {
    /// `self += src` elementwise, `src` broadcast to this view's shape; integers wrap.
    ///
    /// # Errors
    /// [`Error::SourceMismatch`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mut x = Tensor::<i32>::zeros(&[2, 3])?;
    /// let bias = Tensor::from_vec(vec![1, 2, 3], &[3])?;
    /// x.view_mut()?.add_assign(&bias)?;
    /// assert_eq!(x.to_vec(), vec![1, 2, 3, 1, 2, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn add_assign(&mut self, src: &Tensor<T>) -> Result<()> {
        self.update("add_assign", src, T::elem_add)
    }

    /// `self -= src` elementwise, broadcasting as [`TensorMut::add_assign`]; integers wrap.
    ///
    /// # Errors
    /// [`Error::SourceMismatch`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mut x = Tensor::from_vec(vec![5.0f64, 6.0], &[2])?;
    /// x.view_mut()?.sub_assign(&Tensor::full(&[], 1.0)?)?;
    /// assert_eq!(x.to_vec(), vec![4.0, 5.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn sub_assign(&mut self, src: &Tensor<T>) -> Result<()> {
        self.update("sub_assign", src, T::elem_sub)
    }

    /// `self *= src` elementwise, broadcasting as [`TensorMut::add_assign`]; integers wrap.
    ///
    /// # Errors
    /// [`Error::SourceMismatch`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mut x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let col = Tensor::from_vec(vec![10.0f32, 100.0], &[2, 1])?;
    /// x.view_mut()?.mul_assign(&col)?;
    /// assert_eq!(x.to_vec(), vec![10.0, 20.0, 300.0, 400.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn mul_assign(&mut self, src: &Tensor<T>) -> Result<()> {
        self.update("mul_assign", src, T::elem_mul)
    }

    /// `self /= src` elementwise, broadcasting, with the semantics of
    /// [`Tensor::div`](crate::Tensor::div).
    ///
    /// # Errors
    /// [`Error::SourceMismatch`]; [`Error::DivisionByZero`] if an integer divisor is 0 (checked
    /// before any element is written, so nothing changes).
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mut x = Tensor::from_vec(vec![8i32, 9], &[2])?;
    /// x.view_mut()?.div_assign(&Tensor::from_vec(vec![2, 3], &[2])?)?;
    /// assert_eq!(x.to_vec(), vec![4, 3]);
    /// assert!(x.view_mut()?.div_assign(&Tensor::from_vec(vec![1, 0], &[2])?).is_err());
    /// assert_eq!(x.to_vec(), vec![4, 3]); // unchanged
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn div_assign(&mut self, src: &Tensor<T>) -> Result<()> {
        broadcast_source("div_assign", src.layout(), self.shape())?;
        check_divisor("div_assign", self.numel(), src)?;
        // Integer divisors are all non-zero here, so `elem_div` always has a value.
        self.update("div_assign", src, |x, y| x.elem_div(y).unwrap_or(x))
    }

    /// `x += value` for every element; integers wrap.
    ///
    /// # Errors
    /// None today; `Result` keeps the signature of the other writes.
    ///
    /// ```
    /// let mut x = stridex::Tensor::from_vec(vec![1u8, 255], &[2])?;
    /// x.view_mut()?.add_assign_scalar(1)?;
    /// assert_eq!(x.to_vec(), vec![2, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn add_assign_scalar(&mut self, value: T) -> Result<()> {
        self.map_inplace(|x| x.elem_add(value))
    }

    /// `x -= value` for every element; integers wrap.
    ///
    /// # Errors
    /// None today; `Result` keeps the signature of the other writes.
    ///
    /// ```
    /// let mut x = stridex::Tensor::from_vec(vec![1i8, -128], &[2])?;
    /// x.view_mut()?.sub_assign_scalar(1)?;
    /// assert_eq!(x.to_vec(), vec![0, 127]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn sub_assign_scalar(&mut self, value: T) -> Result<()> {
        self.map_inplace(|x| x.elem_sub(value))
    }

    /// `x *= value` for every element; integers wrap.
    ///
    /// # Errors
    /// None today; `Result` keeps the signature of the other writes.
    ///
    /// ```
    /// let mut x = stridex::Tensor::from_vec(vec![1.5f32, -2.0], &[2])?;
    /// x.view_mut()?.mul_assign_scalar(2.0)?;
    /// assert_eq!(x.to_vec(), vec![3.0, -4.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn mul_assign_scalar(&mut self, value: T) -> Result<()> {
        self.map_inplace(|x| x.elem_mul(value))
    }

    /// `x /= value` for every element, with the semantics of [`Tensor::div`](crate::Tensor::div).
    ///
    /// # Errors
    /// [`Error::DivisionByZero`] if `value` is an integer 0 and the view is not empty (nothing
    /// is written).
    ///
    /// ```
    /// let mut x = stridex::Tensor::from_vec(vec![9u32, 10], &[2])?;
    /// x.view_mut()?.div_assign_scalar(3)?;
    /// assert_eq!(x.to_vec(), vec![3, 3]);
    /// assert!(x.view_mut()?.div_assign_scalar(0).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn div_assign_scalar(&mut self, value: T) -> Result<()> {
        if self.numel() > 0 && value.elem_div(value).is_none() {
            return Err(Error::DivisionByZero {
                op: "div_assign_scalar",
            });
        }
        self.map_inplace(|x| x.elem_div(value).unwrap_or(x))
    }
}
