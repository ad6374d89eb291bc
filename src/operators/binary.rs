//! `a op b` for two tensors, each owned or borrowed, of any two element types (promoted, Note
//! [promotion rules] in `promote.rs`), for `+ - * /`, reusing an owned operand's buffer
//! (Note [operand reuse] in `mod.rs`).

use std::ops::{Add, Div, Mul, Sub};

use super::promote::Promote;
use super::{Arg, Op, promoted, result_of, reusable};
use crate::element::Element;
use crate::error::Result;
use crate::tensor::Tensor;

/// `a op b`, reusing an owned operand's buffer where it can (Note [operand reuse]).
fn apply<T, U>(op: Op, mut a: Arg<'_, T>, mut b: Arg<'_, U>) -> Result<Tensor<T::Output>>
where
    T: Promote<U>,
    U: Element,
{
    if let Arg::Owned(x) = &mut a {
        if let Some(out) = reusable::<T, T::Output>(x, b.get().shape()) {
            op.into_left(out, &promoted(b.get(), T::right))?;
            return Ok(result_of(out));
        }
    }
    if let Arg::Owned(y) = &mut b {
        if let Some(out) = reusable::<U, T::Output>(y, a.get().shape()) {
            op.into_right(out, &promoted(a.get(), T::left))?;
            return Ok(result_of(out));
        }
    }
    op.fresh(&promoted(a.get(), T::left), &promoted(b.get(), T::right))
}

macro_rules! binary_ops {
    ($($trait:ident $method:ident $op:ident $sym:literal;)*) => {$(
        #[doc = concat!("`&a ", $sym, " &b`: elementwise, broadcasting, promoting the element types (Note [promotion rules]); the method [`Tensor::", stringify!($method), "`] for one type.")]
        ///
        /// A `Result`: shapes that do not broadcast are an `Err`, never a panic.
        ///
        /// # Errors
        #[doc = concat!("As [`Tensor::", stringify!($method), "`].")]
        ///
        /// ```
        /// use stridex::Tensor;
        /// let a = Tensor::from_vec(vec![6i32, 8], &[2])?;
        /// let f = Tensor::from_vec(vec![2.0f64], &[1])?;
        #[doc = concat!("let c: Tensor<f64> = (&a ", $sym, " &f)?; // i32 with f64 gives f64")]
        /// assert_eq!(c.shape(), &[2]);
        #[doc = concat!("assert!((&a ", $sym, " &Tensor::<i32>::zeros(&[3])?).is_err());")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        impl<T: Promote<U>, U: Element> $trait<&Tensor<U>> for &Tensor<T> {
            type Output = Result<Tensor<T::Output>>;

            fn $method(self, rhs: &Tensor<U>) -> Self::Output {
                apply(Op::$op, Arg::Borrowed(self), Arg::Borrowed(rhs))
            }
        }

        #[doc = concat!("`a ", $sym, " &b`: as `&a ", $sym, " &b`, written into `a`'s buffer when `a` can take the result (Note [operand reuse]).")]
        ///
        /// # Errors
        #[doc = concat!("As [`Tensor::", stringify!($method), "`].")]
        ///
        /// ```
        /// use stridex::Tensor;
        /// let a = Tensor::from_vec(vec![6.0f32, 8.0], &[2])?;
        /// let p = a.data_ptr();
        #[doc = concat!("let c = (a ", $sym, " &Tensor::full(&[], 2.0f32)?)?;")]
        /// assert_eq!(c.data_ptr(), p); // same buffer, no allocation
        /// # Ok::<(), stridex::Error>(())
        /// ```
        impl<T: Promote<U>, U: Element> $trait<&Tensor<U>> for Tensor<T> {
            type Output = Result<Tensor<T::Output>>;

            fn $method(self, rhs: &Tensor<U>) -> Self::Output {
                apply(Op::$op, Arg::Owned(self), Arg::Borrowed(rhs))
            }
        }

        #[doc = concat!("`&a ", $sym, " b`: as `&a ", $sym, " &b`, written into `b`'s buffer when `b` can take the result (Note [operand reuse]).")]
        ///
        /// # Errors
        #[doc = concat!("As [`Tensor::", stringify!($method), "`].")]
        ///
        /// ```
        /// use stridex::Tensor;
        /// let a = Tensor::from_vec(vec![6.0f32, 8.0], &[2])?;
        #[doc = concat!("let c = (&a ", $sym, " (&a ", $sym, " &a)?)?;")]
        /// assert_eq!(c.shape(), &[2]);
        /// # Ok::<(), stridex::Error>(())
        /// ```
        impl<T: Promote<U>, U: Element> $trait<Tensor<U>> for &Tensor<T> {
            type Output = Result<Tensor<T::Output>>;

            fn $method(self, rhs: Tensor<U>) -> Self::Output {
                apply(Op::$op, Arg::Borrowed(self), Arg::Owned(rhs))
            }
        }

        #[doc = concat!("`a ", $sym, " b`: as `&a ", $sym, " &b`, written into `a`'s or else `b`'s buffer when one can take the result (Note [operand reuse]).")]
        ///
        /// # Errors
        #[doc = concat!("As [`Tensor::", stringify!($method), "`].")]
        ///
        /// ```
        /// use stridex::Tensor;
        /// let a = Tensor::from_vec(vec![6.0f32, 8.0], &[2])?;
        /// let b = Tensor::from_vec(vec![2.0f32, 4.0], &[2])?;
        #[doc = concat!("let c = (a ", $sym, " b)?;")]
        #[doc = concat!("assert_eq!(c.to_vec(), vec![6.0 ", $sym, " 2.0, 8.0 ", $sym, " 4.0]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        impl<T: Promote<U>, U: Element> $trait<Tensor<U>> for Tensor<T> {
            type Output = Result<Tensor<T::Output>>;

            fn $method(self, rhs: Tensor<U>) -> Self::Output {
                apply(Op::$op, Arg::Owned(self), Arg::Owned(rhs))
            }
        }
    )*};
}

binary_ops! {
    Add add Add "+";
    Sub sub Sub "-";
    Mul mul Mul "*";
    Div div Div "/";
}
