//! The comparison helpers `cmp_eq` ... `cmp_ge` with the right operand users write: a tensor
//! of any element type, borrowed or owned (both sides promoted as the arithmetic operators
//! promote, Note [promotion rules]), or a scalar of the tensor's own type. They live here, not
//! in `tensor/compare.rs`, because promotion does (`tensor/` does not import `operators/`).

use super::promote::Promote;
use super::promoted;
use crate::element::Element;
use crate::error::Result;
use crate::tensor::Tensor;

mod sealed {
    /// One comparison: its name and whether it holds for a pair (zero-sized, so each
    /// comparison's loop is compiled with it inlined).
    pub trait Cmp {
        const NAME: &'static str;
        fn holds<P: PartialOrd>(a: P, b: P) -> bool;
    }
}
use sealed::Cmp;

/// The right operand of a comparison helper ([`Tensor::cmp_gt`], ...): `&Tensor<U>` or
/// `Tensor<U>` of any element type (the two sides compare in their promoted type, as `&a -
/// &b` computes in it), or a scalar of the tensor's own type. Sealed: only those.
///
/// ```
/// use stridex::Tensor;
/// let x = Tensor::from_vec(vec![1.0f32, 2.5, 3.0], &[3])?;
/// assert_eq!(x.cmp_gt(2.0)?.to_vec(), vec![0, 1, 1]); // a scalar
/// let i = Tensor::from_vec(vec![1i32, 2, 3], &[3])?;
/// assert_eq!(x.cmp_eq(&i)?.to_vec(), vec![1, 0, 1]); // f32 with i32: compared as f32
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait CmpRhs<T: Element>: Sized {
    /// `lhs` compared with `self` elementwise by `C`: 1 where it holds, 0 elsewhere.
    ///
    /// # Errors
    /// As the comparison helpers.
    #[doc(hidden)]
    fn compare<C: Cmp>(self, lhs: &Tensor<T>) -> Result<Tensor<u8>>;
}

impl<T: Promote<U>, U: Element> CmpRhs<T> for &Tensor<U> {
    fn compare<C: Cmp>(self, lhs: &Tensor<T>) -> Result<Tensor<u8>> {
        let (a, b) = (promoted(lhs, T::left), promoted(self, T::right));
        a.zip_map(&b, |x, y| u8::from(C::holds(x, y)))
            .map_err(|e| e.named(C::NAME))
    }
}

impl<T: Promote<U>, U: Element> CmpRhs<T> for Tensor<U> {
    fn compare<C: Cmp>(self, lhs: &Tensor<T>) -> Result<Tensor<u8>> {
        (&self).compare::<C>(lhs)
    }
}

impl<T: Element> CmpRhs<T> for T {
    fn compare<C: Cmp>(self, lhs: &Tensor<T>) -> Result<Tensor<u8>> {
        lhs.try_map(|x| u8::from(C::holds(x, self)))
    }
}

macro_rules! comparisons {
    ($($name:ident $ty:ident $op:tt $what:literal $alias:literal $example:literal;)*) => {
        $(
            #[doc = concat!("`", stringify!($op), "` for [`Tensor::", stringify!($name), "`].")]
            struct $ty;

            impl Cmp for $ty {
                const NAME: &'static str = stringify!($name);

                #[inline(always)]
                fn holds<P: PartialOrd>(a: P, b: P) -> bool {
                    a $op b
                }
            }
        )*

        impl<T: Element> Tensor<T> {
            $(
                #[doc = concat!("Elementwise `self ", stringify!($op), " other` (", $what, "), broadcasting: 1 where it holds, 0 elsewhere (PyTorch's `", $alias, "`).")]
                ///
                /// `other` is a tensor of any element type, borrowed or owned (the two sides
                /// are compared in their promoted type), or a scalar of this tensor's type
                /// ([`CmpRhs`]). Comparisons follow `PartialOrd`: any comparison with a NaN is
                /// false except `!=`.
                ///
                /// # Errors
                /// [`Error::BroadcastMismatch`](crate::Error::BroadcastMismatch) if the shapes
                /// do not broadcast; [`Error::Alloc`](crate::Error::Alloc).
                ///
                /// ```
                /// use stridex::Tensor;
                /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3])?;
                #[doc = concat!("assert_eq!(a.", stringify!($name), "(2.0)?.to_vec(), vec!", $example, ");")]
                #[doc = concat!("assert_eq!(a.", stringify!($name), "(&Tensor::full(&[], 2i64)?)?.to_vec(), vec!", $example, ");")]
                /// # Ok::<(), stridex::Error>(())
                /// ```
                #[doc(alias = $alias)]
                pub fn $name(&self, other: impl CmpRhs<T>) -> Result<Tensor<u8>> {
                    other.compare::<$ty>(self)
                }
            )*
        }
    };
}

comparisons! {
    cmp_eq Eq == "equal" "eq" "[0, 1, 0]";
    cmp_ne Ne != "not equal" "ne" "[1, 0, 1]";
    cmp_lt Lt < "less than" "lt" "[1, 0, 0]";
    cmp_le Le <= "less than or equal" "le" "[1, 1, 0]";
    cmp_gt Gt > "greater than" "gt" "[0, 0, 1]";
    cmp_ge Ge >= "greater than or equal" "ge" "[0, 1, 1]";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_right_operand_form() {
        let x = Tensor::from_vec(vec![-1i8, 0, 1], &[3]).unwrap();
        // i8 with u8 compares as i16: -1 < 255 holds (no wrap to 255 == 255).
        let big = Tensor::from_vec(vec![255u8], &[1]).unwrap();
        assert_eq!(x.cmp_lt(&big).unwrap().to_vec(), vec![1, 1, 1]);
        assert_eq!(x.cmp_lt(big).unwrap().to_vec(), vec![1, 1, 1]);
        assert_eq!(x.cmp_ge(0).unwrap().to_vec(), vec![0, 1, 1]);
        let half = Tensor::from_vec(vec![0.5f64], &[1]).unwrap();
        assert_eq!(x.cmp_gt(&half).unwrap().to_vec(), vec![0, 0, 1]);
        let err = x.cmp_eq(Tensor::<i8>::zeros(&[2]).unwrap()).unwrap_err();
        assert!(matches!(
            err,
            crate::Error::BroadcastMismatch { op: "cmp_eq", .. }
        ));
    }
}
