//! Operators with a scalar on either side (`&a + 1.0`, `2.0 * &a`, `1.0 - a`, `a / 3`) and
//! unary minus, as PyTorch and ndarray users write them. An owned tensor operand takes the
//! result in place when it can (Note [operand reuse] in `mod.rs`).
//!
//! A scalar operand cannot mismatch a shape, so these return the tensor itself, not a
//! `Result`; like Rust's own integer `/`, an integer division by zero panics (the method
//! [`Tensor::div_scalar`] returns it as an `Err`). The scalar has the tensor's element type:
//! `&a + 1.0` on an `f32` tensor adds an `f32`, as PyTorch keeps a tensor's type for a
//! Python scalar of the same category.

use std::ops::{Add, Div, Mul, Neg, Sub};

use half::{bf16, f16};

use super::{Op, map_in_place, result_of, reusable};
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::scalar::Numeric;
use crate::tensor::Tensor;

/// Unwraps an operator's result: the operators with a scalar document their panics, which
/// name the operator's method (`add`, `div`, ...) and the user's line.
#[track_caller]
fn or_panic<T>(r: Result<T>, op: Op) -> T {
    r.or_panic(op.name())
}

/// Refuses an integer division by zero of `a op s` or `s op a` (`scalar_left`).
fn check_divisors<T: Numeric>(op: Op, a: &Tensor<T>, s: T, scalar_left: bool) -> Result<()> {
    if matches!(op, Op::Div) && a.numel() > 0 && T::zero().elem_div(T::zero()).is_none() {
        let zero = match scalar_left {
            true => a.iter().any(|x| x.is_zero()),
            false => s.is_zero(),
        };
        if zero {
            return Err(Error::DivisionByZero { op: "div" });
        }
    }
    Ok(())
}

/// `a op s` or `s op a` (`scalar_left`) into a fresh tensor, computed elementwise by `f`: the
/// op with `s` bound, a closure of its own per op so that the loop inlines it.
fn apply_ref<T: Numeric>(
    op: Op,
    a: &Tensor<T>,
    s: T,
    scalar_left: bool,
    f: impl Fn(T) -> T + Sync,
) -> Result<Tensor<T>> {
    check_divisors(op, a, s, scalar_left)?;
    a.try_map(f)
}

/// As [`apply_ref`], into `a`'s buffer when it can take the result.
fn apply<T: Numeric>(
    op: Op,
    mut a: Tensor<T>,
    s: T,
    scalar_left: bool,
    f: impl Fn(T) -> T + Sync,
) -> Result<Tensor<T>> {
    check_divisors(op, &a, s, scalar_left)?;
    if let Some(out) = reusable::<T, T>(&mut a, &[]) {
        map_in_place(out, f).map_err(|e| e.named(op.name()))?;
        return Ok(result_of(out));
    }
    a.try_map(f)
}

macro_rules! tensor_scalar_ops {
    ($($trait:ident $method:ident $op:ident $sym:literal |$x:ident, $s:ident| $f:expr;)*) => {$(
        #[doc = concat!("`&a ", $sym, " s`: every element ", $sym, " the scalar `s`, into a fresh tensor.")]
        ///
        /// # Panics
        /// If the result cannot be allocated, or, for `/`, on an integer division by zero.
        ///
        /// ```
        /// use stridex::Tensor;
        /// let a = Tensor::from_vec(vec![6.0f32, 8.0], &[2])?;
        #[doc = concat!("let b = &a ", $sym, " 2.0;")]
        #[doc = concat!("assert_eq!(b.to_vec(), vec![6.0 ", $sym, " 2.0, 8.0 ", $sym, " 2.0]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        impl<T: Numeric> $trait<T> for &Tensor<T> {
            type Output = Tensor<T>;

            #[track_caller]
            fn $method(self, rhs: T) -> Tensor<T> {
                let $s = rhs;
                or_panic(apply_ref(Op::$op, self, rhs, false, move |$x: T| $f), Op::$op)
            }
        }

        #[doc = concat!("`a ", $sym, " s`: as `&a ", $sym, " s`, written into `a`'s buffer when it can take the result (Note [operand reuse]).")]
        ///
        /// # Panics
        /// If the result cannot be allocated, or, for `/`, on an integer division by zero.
        ///
        /// ```
        /// use stridex::Tensor;
        /// let a = Tensor::from_vec(vec![6.0f32, 8.0], &[2])?;
        /// let p = a.data_ptr();
        #[doc = concat!("let b = a ", $sym, " 2.0;")]
        /// assert_eq!(b.data_ptr(), p); // the same buffer
        #[doc = concat!("assert_eq!(b.to_vec(), vec![6.0 ", $sym, " 2.0, 8.0 ", $sym, " 2.0]);")]
        /// # Ok::<(), stridex::Error>(())
        /// ```
        impl<T: Numeric> $trait<T> for Tensor<T> {
            type Output = Tensor<T>;

            #[track_caller]
            fn $method(self, rhs: T) -> Tensor<T> {
                let $s = rhs;
                or_panic(apply(Op::$op, self, rhs, false, move |$x: T| $f), Op::$op)
            }
        }
    )*};
}

// Divisors are checked before `f` runs, so `elem_div` always has a value there.
tensor_scalar_ops! {
    Add add Add "+" |x, s| x.elem_add(s);
    Sub sub Sub "-" |x, s| x.elem_sub(s);
    Mul mul Mul "*" |x, s| x.elem_mul(s);
    Div div Div "/" |x, s| x.elem_div(s).unwrap_or(x);
}

/// `s op &a` and `s op a` for each element type (a scalar on the left names a concrete type,
/// so each gets its own impls).
macro_rules! scalar_tensor_ops {
    ($($t:ty),*) => {$(
        scalar_tensor_ops!(@ops $t;
            Add add Add "+" |x, s| s.elem_add(x),
            Sub sub Sub "-" |x, s| s.elem_sub(x),
            Mul mul Mul "*" |x, s| s.elem_mul(x),
            Div div Div "/" |x, s| s.elem_div(x).unwrap_or(x));
    )*};
    (@ops $t:ty; $($trait:ident $method:ident $op:ident $sym:literal |$x:ident, $s:ident| $f:expr),*) => {$(
        #[doc = concat!("`s ", $sym, " &a`: the scalar ", $sym, " every element, into a fresh tensor.")]
        ///
        /// # Panics
        /// If the result cannot be allocated, or, for `/`, on an integer division by zero.
        impl $trait<&Tensor<$t>> for $t {
            type Output = Tensor<$t>;

            #[track_caller]
            fn $method(self, rhs: &Tensor<$t>) -> Tensor<$t> {
                let $s = self;
                or_panic(apply_ref(Op::$op, rhs, self, true, move |$x: $t| $f), Op::$op)
            }
        }

        #[doc = concat!("`s ", $sym, " a`: as `s ", $sym, " &a`, written into `a`'s buffer when it can take the result.")]
        ///
        /// # Panics
        /// If the result cannot be allocated, or, for `/`, on an integer division by zero.
        impl $trait<Tensor<$t>> for $t {
            type Output = Tensor<$t>;

            #[track_caller]
            fn $method(self, rhs: Tensor<$t>) -> Tensor<$t> {
                let $s = self;
                or_panic(apply(Op::$op, rhs, self, true, move |$x: $t| $f), Op::$op)
            }
        }
    )*};
}

scalar_tensor_ops!(f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64);

/// `-&a`: [`Tensor::neg`] (integers wrap: `-i8::MIN` is `i8::MIN`).
///
/// ```
/// let a = stridex::Tensor::from_vec(vec![1.0f32, -2.0], &[2])?;
/// assert_eq!((-&a).to_vec(), vec![-1.0, 2.0]);
/// # Ok::<(), stridex::Error>(())
/// ```
impl<T: Numeric> Neg for &Tensor<T> {
    type Output = Tensor<T>;

    #[track_caller]
    fn neg(self) -> Tensor<T> {
        Tensor::neg(self)
    }
}

/// `-a`: as `-&a`, written into `a`'s buffer when it can take the result.
///
/// # Panics
/// If a fresh result is needed and cannot be allocated.
///
/// ```
/// let a = stridex::Tensor::from_vec(vec![1i8, i8::MIN], &[2])?;
/// assert_eq!((-a).to_vec(), vec![-1, i8::MIN]);
/// # Ok::<(), stridex::Error>(())
/// ```
impl<T: Numeric> Neg for Tensor<T> {
    type Output = Tensor<T>;

    #[track_caller]
    fn neg(mut self) -> Tensor<T> {
        if let Some(out) = reusable::<T, T>(&mut self, &[]) {
            if map_in_place(out, T::elem_neg).is_ok() {
                return result_of(out);
            }
        }
        Tensor::neg(&self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_on_either_side() {
        let a = Tensor::from_vec(vec![1.0f32, 2.0, 4.0], &[3]).unwrap();
        assert_eq!((&a + 1.0).to_vec(), vec![2.0, 3.0, 5.0]);
        assert_eq!((2.0 * &a).to_vec(), vec![2.0, 4.0, 8.0]);
        assert_eq!((1.0 - &a).to_vec(), vec![0.0, -1.0, -3.0]);
        assert_eq!((4.0 / &a).to_vec(), vec![4.0, 2.0, 1.0]);
        assert_eq!((&a / 2.0).to_vec(), vec![0.5, 1.0, 2.0]);
        let i = Tensor::from_vec(vec![7i32, -7], &[2]).unwrap();
        assert_eq!((&i / 2).to_vec(), vec![3, -3]);
        assert_eq!((10 - &i).to_vec(), vec![3, 17]);
        assert_eq!(
            (200u8 + &Tensor::from_vec(vec![100u8], &[1]).unwrap()).to_vec(),
            vec![44]
        );
    }

    #[test]
    fn owned_operands_take_the_result_in_place() {
        let a = Tensor::from_vec(vec![1.0f32, 2.0, 4.0], &[3]).unwrap();
        let p = a.data_ptr();
        let b = 8.0 / (a * 2.0);
        assert_eq!(b.data_ptr(), p);
        assert_eq!(b.to_vec(), vec![4.0, 2.0, 1.0]);
        let c = -(10.0 - b);
        assert_eq!(c.data_ptr(), p);
        assert_eq!(c.to_vec(), vec![-6.0, -8.0, -9.0]);
        // Shared storage: a fresh result, the other holder unchanged.
        let keep = c.clone();
        let d = c + 1.0;
        assert_ne!(d.data_ptr(), p);
        assert_eq!(keep.to_vec(), vec![-6.0, -8.0, -9.0]);
        assert_eq!(d.to_vec(), vec![-5.0, -7.0, -8.0]);
        // A broadcast view cannot be written: a fresh, dense result.
        let e = Tensor::from_vec(vec![1i32], &[1])
            .unwrap()
            .expand(&[3])
            .unwrap()
            + 1;
        assert_eq!(e.to_vec(), vec![2, 2, 2]);
        assert!(!e.is_view());
    }

    #[test]
    #[should_panic(expected = "integer division by zero")]
    fn integer_scalar_division_by_zero_panics() {
        let i = Tensor::from_vec(vec![7i32, 0], &[2]).unwrap();
        let _ = 1 / &i;
    }

    #[test]
    #[should_panic(expected = "integer division by zero")]
    fn owned_integer_division_by_zero_panics_before_writing() {
        let i = Tensor::from_vec(vec![7i32, 0], &[2]).unwrap();
        let _ = 1 / i;
    }
}
