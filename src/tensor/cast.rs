//! Converting element types.

use std::borrow::Cow;

use num_traits::AsPrimitive;

use super::Tensor;
use crate::element::Element;
use crate::error::Result;
use crate::scalar::ToFloat;

impl<T: Element> Tensor<T> {
    /// A new tensor of element type `U` holding every element converted as Rust's `as` does:
    /// integers wrap or sign-extend, floats to integers truncate and saturate (NaN becomes 0),
    /// and `f16`/`bf16` convert through `f32` (`f64` directly), rounding to nearest.
    ///
    /// The result follows this tensor's layout like [`Tensor::map`].
    ///
    /// # Panics
    /// Only if the result cannot be allocated (see [`Tensor::try_cast`]).
    ///
    /// ```
    /// use half::bf16;
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.75f32, -3.5, 300.0], &[3])?;
    /// assert_eq!(a.cast::<i32>().to_vec(), vec![1, -3, 300]);
    /// assert_eq!(a.cast::<u8>().to_vec(), vec![1, 0, 255]);
    /// assert_eq!(a.cast::<bf16>().to_vec()[1], bf16::from_f32(-3.5));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn cast<U: Element>(&self) -> Tensor<U>
    where
        T: AsPrimitive<U>,
    {
        self.map_as("cast", |x| x.as_())
    }

    /// [`Tensor::cast`] returning allocation failure as an `Err`.
    ///
    /// # Errors
    /// [`Error::Alloc`](crate::Error::Alloc) if the result cannot be allocated.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![-1i8], &[1])?;
    /// assert_eq!(a.try_cast::<u16>()?.to_vec(), vec![65535]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn try_cast<U: Element>(&self) -> Result<Tensor<U>>
    where
        T: AsPrimitive<U>,
    {
        self.try_map(|x| x.as_())
    }
}

impl<T: ToFloat> Tensor<T> {
    /// This tensor as the float type the float-only ops compute in ([`ToFloat::Float`]): a
    /// float tensor is borrowed as it is (no copy, same layout), an integer one converted to
    /// `f32` as [`Tensor::cast`] does (PyTorch's default float type).
    ///
    /// The float-only ops (`exp`, `softmax`, `mean_dim`, ...) accept integer tensors this
    /// way; see [`ToFloat`].
    ///
    /// # Panics
    /// Only if an integer tensor's conversion cannot be allocated.
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use stridex::Tensor;
    /// let f = Tensor::from_vec(vec![1.5f64, 2.0], &[2])?;
    /// assert!(matches!(f.to_float(), Cow::Borrowed(_)));
    /// let i = Tensor::from_vec(vec![1i64, -2], &[2])?;
    /// let c: Cow<'_, Tensor<f32>> = i.to_float();
    /// assert_eq!(c.to_vec(), vec![1.0, -2.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn to_float(&self) -> Cow<'_, Tensor<T::Float>> {
        // A float tensor is its own float form: borrowed (the downcast succeeds exactly when
        // `T::Float` is `T`, decided at compile time).
        match (self as &dyn std::any::Any).downcast_ref::<Tensor<T::Float>>() {
            Some(same) => Cow::Borrowed(same),
            None => Cow::Owned(self.map_as("to_float", T::to_float)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    /// Casts 3 (and, where representable, -2) between every pair of element types.
    #[test]
    fn every_pair_of_element_types_casts() {
        macro_rules! from {
            ($t:ty, $three:expr; $($u:ty),*) => {$(
                let t = Tensor::from_vec(vec![$three; 2], &[2]).unwrap().narrow(0, 1, 1).unwrap();
                let back: Tensor<f64> = t.cast::<$u>().cast::<f64>();
                assert_eq!(back.to_vec(), vec![3.0], "{} -> {}", stringify!($t), stringify!($u));
            )*};
        }
        macro_rules! all {
            ($($t:ty => $three:expr),*) => {$(
                from!($t, $three; f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64);
            )*};
        }
        all!(
            f32 => 3.0f32, f64 => 3.0f64, f16 => f16::from_f32(3.0), bf16 => bf16::from_f32(3.0),
            i8 => 3i8, i16 => 3i16, i32 => 3i32, i64 => 3i64,
            u8 => 3u8, u16 => 3u16, u32 => 3u32, u64 => 3u64
        );
        let neg = Tensor::from_vec(vec![-2i8], &[1]).unwrap();
        assert_eq!(neg.cast::<u8>().to_vec(), vec![254]);
        assert_eq!(neg.cast::<i64>().to_vec(), vec![-2]);
        assert_eq!(neg.cast::<bf16>().to_vec(), vec![bf16::from_f32(-2.0)]);
    }

    #[test]
    fn half_conversions() {
        let a = Tensor::from_vec(vec![0.5f32, 65504.0, 1e6, -2.0], &[4]).unwrap();
        let h = a.cast::<f16>();
        assert_eq!(h.to_vec()[..2], [f16::from_f32(0.5), f16::MAX]);
        assert_eq!(h.to_vec()[2], f16::INFINITY);
        let b = h.cast::<bf16>().cast::<i16>();
        assert_eq!(b.to_vec()[3], -2);
        let back = Tensor::from_vec(vec![bf16::from_f32(1.5)], &[1])
            .unwrap()
            .cast::<f64>();
        assert_eq!(back.to_vec(), vec![1.5]);
        assert_eq!(
            Tensor::from_vec(vec![f32::NAN], &[1])
                .unwrap()
                .cast::<u32>()
                .to_vec(),
            vec![0]
        );
    }
}
