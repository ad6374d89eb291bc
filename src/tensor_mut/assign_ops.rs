//! The assignment operators on a mutable view (`v += &x`, `v *= 2.0`): each writes through
//! the view into the tensor it was borrowed from, as the method of the same name does.

use std::ops::{AddAssign, DivAssign, MulAssign, SubAssign};

use super::TensorMut;
use crate::error::OrPanic;
use crate::scalar::Numeric;
use crate::tensor::Tensor;

macro_rules! view_assign_ops {
    ($($trait:ident $method:ident $scalar:ident;)*) => {$(
        /// The assignment operator on a mutable view, with a tensor (broadcast to the view's
        /// shape) on the right: writes through the view into the tensor it was borrowed from.
        ///
        /// # Panics
        /// Where the method of the same name returns `Err` (a shape that does not broadcast,
        /// an integer division by zero); call it for a `Result`.
        ///
        /// ```
        /// use stridex::Tensor;
        /// let mut y = Tensor::<f32>::zeros(&[2, 2])?;
        /// let x = Tensor::from_vec(vec![1.0f32, 2.0], &[2])?;
        /// let mut v = y.view_mut()?.t()?;
        /// v += &x; // v is y transposed: row i of y gets x[i]
        /// v *= 2.0;
        /// assert_eq!(y.to_vec(), vec![2.0, 2.0, 4.0, 4.0]);
        /// # Ok::<(), stridex::Error>(())
        /// ```
        impl<T: Numeric> $trait<&Tensor<T>> for TensorMut<'_, T> {
            #[track_caller]
            fn $method(&mut self, rhs: &Tensor<T>) {
                TensorMut::$method(self, rhs).or_panic(stringify!($method));
            }
        }

        /// The assignment operator on a mutable view with a scalar on the right.
        ///
        /// # Panics
        /// On an integer division by zero (`/=`).
        impl<T: Numeric> $trait<T> for TensorMut<'_, T> {
            #[track_caller]
            fn $method(&mut self, rhs: T) {
                self.$scalar(rhs).or_panic(stringify!($method));
            }
        }
    )*};
}

view_assign_ops! {
    AddAssign add_assign add_assign_scalar;
    SubAssign sub_assign sub_assign_scalar;
    MulAssign mul_assign mul_assign_scalar;
    DivAssign div_assign div_assign_scalar;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_assign_operators_write_through() {
        let mut y = Tensor::<i32>::zeros(&[2, 3]).unwrap();
        let x = Tensor::from_vec(vec![1, 2], &[2]).unwrap();
        {
            let mut col = y.view_mut().unwrap().t().unwrap();
            col += &x; // each row i of y gets x[i]
            col -= 1;
            col *= 3;
        }
        assert_eq!(y.to_vec(), vec![0, 0, 0, 3, 3, 3]);
        let mut v = y.view_mut().unwrap();
        v /= 3;
        assert_eq!(y.to_vec(), vec![0, 0, 0, 1, 1, 1]);
    }
}
