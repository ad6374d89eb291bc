//! Arithmetic operators with a scalar on either side (`&a + 1.0`, `2.0 * &a`, `1.0 - &a`,
//! `&a / 3`), as PyTorch and ndarray users write them (the assignment operators on a mutable
//! view are in `tensor_mut/assign_ops.rs`).
//!
//! A scalar operand cannot mismatch a shape, so these return the tensor itself, not a
//! `Result`; like Rust's own integer `/`, an integer division by zero panics (the methods
//! [`Tensor::div_scalar`] returns it as an `Err`).

use std::ops::{Add, Div, Mul, Sub};

use half::{bf16, f16};

use super::Tensor;
use crate::scalar::Numeric;

macro_rules! tensor_scalar_ops {
    ($($trait:ident $method:ident $via:ident $sym:literal $($unwrap:ident)?;)*) => {$(
        #[doc = concat!("`&a ", $sym, " s`: every element ", $sym, " the scalar `s` ([`Tensor::", stringify!($via), "`]).")]
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
                self.$via(rhs)$(.$unwrap(|e| panic!("{e}")))?
            }
        }
    )*};
}

tensor_scalar_ops! {
    Add add add_scalar "+";
    Sub sub sub_scalar "-";
    Mul mul mul_scalar "*";
    Div div div_scalar "/" unwrap_or_else;
}

/// `s op &a` for each element type (a scalar on the left names a concrete type, so each
/// gets its own impls).
macro_rules! scalar_tensor_ops {
    ($($t:ty),*) => {$(
        /// `s + &a` ([`Tensor::add_scalar`]).
        impl Add<&Tensor<$t>> for $t {
            type Output = Tensor<$t>;
            fn add(self, rhs: &Tensor<$t>) -> Tensor<$t> {
                rhs.add_scalar(self)
            }
        }

        /// `s * &a` ([`Tensor::mul_scalar`]).
        impl Mul<&Tensor<$t>> for $t {
            type Output = Tensor<$t>;
            fn mul(self, rhs: &Tensor<$t>) -> Tensor<$t> {
                rhs.mul_scalar(self)
            }
        }

        /// `s - &a`: the scalar minus every element ([`Tensor::sub`] of a 0-dim tensor).
        ///
        /// # Panics
        /// If the result cannot be allocated.
        impl Sub<&Tensor<$t>> for $t {
            type Output = Tensor<$t>;
            #[track_caller]
            fn sub(self, rhs: &Tensor<$t>) -> Tensor<$t> {
                Tensor::full(&[], self)
                    .and_then(|s| s.sub(rhs))
                    .unwrap_or_else(|e| panic!("{e}"))
            }
        }

        /// `s / &a`: the scalar divided by every element ([`Tensor::div`] of a 0-dim tensor).
        ///
        /// # Panics
        /// On an integer division by zero (as Rust's `/` does), or if the result cannot be
        /// allocated.
        impl Div<&Tensor<$t>> for $t {
            type Output = Tensor<$t>;
            #[track_caller]
            fn div(self, rhs: &Tensor<$t>) -> Tensor<$t> {
                Tensor::full(&[], self)
                    .and_then(|s| s.div(rhs))
                    .unwrap_or_else(|e| panic!("{e}"))
            }
        }
    )*};
}

scalar_tensor_ops!(f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64);

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
    #[should_panic(expected = "integer division by zero")]
    fn integer_scalar_division_by_zero_panics() {
        let i = Tensor::from_vec(vec![7i32, 0], &[2]).unwrap();
        let _ = 1 / &i;
    }
}
