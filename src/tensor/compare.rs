//! `where`-style selection and `u8` masks. (The comparisons that produce masks, `cmp_eq` ...
//! `cmp_ge`, are in `operators/compare.rs`, with the element-type promotion they use.)
//!
//! stridex has no `bool` element type (elements are plain-old-data numbers), so a comparison
//! yields a `Tensor<u8>` holding 1 where it holds and 0 elsewhere, like NumPy's `uint8` view of
//! a boolean array. [`Tensor::where_cond`] and the mask ops read any non-zero element of any
//! integer type as true; [`Tensor::from_bools`] builds a `u8` mask from `bool`s. Comparisons
//! follow `PartialOrd`: every comparison with a NaN is false except `!=`.
//!
//! # Note [no bool tensors]
//!
//! `Tensor<bool>` does not exist, by design: every element type is plain old data (any bit
//! pattern is a value), which the copy kernels, `view_dtype`, DLPack and the file readers rely
//! on, and `bool` is not (a byte holding 2 read as a `bool` is undefined behaviour). A mask is
//! a tensor of integers instead, `u8` 0/1 by default, any non-zero value meaning true.

use super::Tensor;
use super::operand::TensorOrScalar;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::elementwise;
use crate::scalar::IntElement;

impl<T: Element> Tensor<T> {
    /// Elementwise selection: `on_true` where `cond` is non-zero, `on_false` elsewhere, all
    /// three broadcast together (NumPy's `where`, PyTorch's `torch.where`). `cond` holds any
    /// integer type: a `u8` mask from a comparison, or `i32`, `i64` ... (see the Note \[no bool
    /// tensors\] on [`Tensor::from_bools`]). Either branch may be a tensor (borrowed or owned)
    /// or a scalar ([`TensorOrScalar`](crate::TensorOrScalar)).
    ///
    /// # Errors
    /// [`Error::BroadcastMismatch`](crate::Error::BroadcastMismatch) if the three shapes do
    /// not broadcast; [`Error::Alloc`](crate::Error::Alloc).
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec(vec![-1.0f32, 2.0, -3.0, 4.0], &[2, 2])?;
    /// let zero = Tensor::full(&[], 0.0f32)?;
    /// let relu = Tensor::where_cond(&x.cmp_gt(&zero)?, &x, &zero)?;
    /// assert_eq!(relu.to_vec(), vec![0.0, 2.0, 0.0, 4.0]);
    /// let cond = Tensor::from_vec(vec![0i64, 3, 0, -1], &[2, 2])?; // non-zero is true
    /// assert_eq!(Tensor::where_cond(&cond, &x, &zero)?.to_vec(), vec![0.0, 2.0, 0.0, 4.0]);
    /// assert_eq!(Tensor::where_cond(&cond, -1.0, &x)?.to_vec(), vec![-1.0, -1.0, -3.0, -1.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn where_cond<M: IntElement>(
        cond: &Tensor<M>,
        on_true: impl TensorOrScalar<T>,
        on_false: impl TensorOrScalar<T>,
    ) -> Result<Tensor<T>> {
        let named = |e: crate::Error| e.named("where_cond");
        let (on_true, on_false) = (
            on_true.tensor().map_err(named)?,
            on_false.tensor().map_err(named)?,
        );
        let zero = M::zero();
        let f = move |c: M, x: T, y: T| if c != zero { x } else { y };
        let out = elementwise::zip3(cond.src(), on_true.src(), on_false.src(), f);
        Ok(Tensor::fresh(out.map_err(|e| e.named("where_cond"))?))
    }
}

impl Tensor<u8> {
    /// A `u8` mask from `bool`s, row-major: 1 for `true`, 0 for `false`, so that
    /// `vec![true, false]` masks are one call. Masks are `u8` because a tensor cannot hold
    /// `bool`s: every element type is plain old data, any bit pattern a value, and a byte
    /// holding 2 read as a `bool` would be undefined behaviour (Note \[no bool tensors\] in
    /// the comparison module). Any integer tensor serves as a mask; comparisons return `u8`.
    ///
    /// # Errors
    /// [`Error::NumelMismatch`](crate::Error::NumelMismatch) if `shape` does not hold
    /// `values.len()` elements; [`Error::Alloc`](crate::Error::Alloc).
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mask = Tensor::from_bools(&[true, false, true, true], &[2, 2])?;
    /// assert_eq!(mask.to_vec(), vec![1, 0, 1, 1]);
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
    /// assert_eq!(a.masked_select(&mask)?.to_vec(), vec![1.0, 3.0, 4.0]);
    /// assert!(Tensor::from_bools(&[true], &[2]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn from_bools(values: &[bool], shape: &[usize]) -> Result<Tensor<u8>> {
        Tensor::from_vec(values.iter().map(|&b| u8::from(b)).collect(), shape)
            .map_err(|e| e.named("from_bools"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_compares_false_except_ne() {
        let a = Tensor::from_vec(vec![f64::NAN, 1.0], &[2]).unwrap();
        assert_eq!(a.cmp_eq(&a).unwrap().to_vec(), vec![0, 1]);
        assert_eq!(a.cmp_ne(&a).unwrap().to_vec(), vec![1, 0]);
        assert_eq!(a.cmp_ge(&a).unwrap().to_vec(), vec![0, 1]);
    }

    #[test]
    fn where_broadcasts_three_ways() {
        let cond = Tensor::from_vec(vec![1u8, 0, 7], &[3, 1]).unwrap();
        let a = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
        let b = Tensor::full(&[], -1i32).unwrap();
        let w = Tensor::where_cond(&cond, &a, &b).unwrap();
        assert_eq!(w.shape(), &[3, 2]);
        assert_eq!(w.to_vec(), vec![1, 2, -1, -1, 1, 2]);
        let bad = Tensor::<i32>::zeros(&[4]).unwrap();
        assert!(Tensor::where_cond(&cond, &a, &bad).is_err());
    }
}
