//! Elementwise ops: `map`, `zip_map`, arithmetic with broadcasting, and their `std::ops` forms.
//!
//! Every op runs on the strided iteration engine: inputs are read in place, whatever their
//! strides (transposed, narrowed, flipped, expanded), and never copied to make them
//! contiguous. Binary ops broadcast by NumPy's rules. The result is a fresh tensor laid out as
//! the output layout rule of [`Tensor::zip_map`] says.
//!
//! Element semantics (integer wrapping, division by zero, NaN) are those of
//! [`Numeric`](crate::Numeric).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use num_traits::Float;

use super::Tensor;
use crate::element::Element;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::kernels::elementwise::{self, Src};
use crate::layout::Layout;
use crate::scalar::{Numeric, ToFloat};
use crate::storage::Storage;

impl<T: Element> Tensor<T> {
    /// [`Tensor::zip_map`] with its errors named for `op`, the method the user called.
    pub(super) fn zip_named<U: Element, V: Element, F: Fn(T, U) -> V + Sync>(
        &self,
        op: &'static str,
        other: &Tensor<U>,
        f: F,
    ) -> Result<Tensor<V>> {
        self.zip_map(other, f).map_err(|e| e.named(op))
    }

    /// This tensor as a kernel input.
    pub(super) fn src(&self) -> Src<'_, T> {
        Src {
            storage: &self.storage,
            layout: &self.layout,
        }
    }

    /// Wraps a kernel's fresh output.
    pub(super) fn fresh(parts: (Storage<T>, Layout)) -> Tensor<T> {
        Tensor::from_parts(Arc::new(parts.0), parts.1)
    }

    /// A new tensor holding `f(x)` for every element `x`, read in place whatever the strides.
    ///
    /// The result has this tensor's shape; it is laid out like this tensor if this tensor is
    /// a permuted contiguous layout (e.g. transposed), row-major otherwise (see the
    /// output layout rule of [`Tensor::zip_map`]). `f` may run on several threads.
    ///
    /// # Panics
    /// Only if the result's memory cannot be allocated (see [`Tensor::try_map`]).
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1i32, 2, 3, 4], &[2, 2])?;
    /// let b = a.t()?.map(|x| x as f32 * 0.5);
    /// assert_eq!(b.to_vec(), vec![0.5, 1.5, 1.0, 2.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn map<U: Element, F: Fn(T) -> U + Sync>(&self, f: F) -> Tensor<U> {
        self.map_as("map", f)
    }

    /// [`Tensor::map`] for the shorthand `op` the user called (`add_scalar`, `cast`, ...),
    /// which its panic names (at the user's line: the shorthand is `#[track_caller]` too).
    #[track_caller]
    pub(crate) fn map_as<U: Element, F: Fn(T) -> U + Sync>(
        &self,
        op: &'static str,
        f: F,
    ) -> Tensor<U> {
        self.try_map(f).or_panic(op)
    }

    /// [`Tensor::map`] returning allocation failure as an `Err`.
    ///
    /// # Errors
    /// [`Error::Alloc`] if the result cannot be allocated.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1u8, 2], &[2])?;
    /// assert_eq!(a.try_map(|x| x * 2)?.to_vec(), vec![2, 4]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn try_map<U: Element, F: Fn(T) -> U + Sync>(&self, f: F) -> Result<Tensor<U>> {
        Ok(Tensor::fresh(elementwise::map(self.src(), f)?))
    }

    /// A new tensor holding `f(x, y)` for the elements of `self` and `other` broadcast
    /// together (NumPy rules).
    ///
    /// # Output layout
    ///
    /// Every elementwise op (`map`, `zip_map`, the arithmetic, comparisons, `where_cond`,
    /// `cast`) allocates its result in the layout that lets it read and write every operand in
    /// storage order, following PyTorch: if all inputs that are not broadcast are permuted
    /// contiguous layouts with the *same* permutation (transposed, channels-last, ...), the
    /// result has that permutation too; otherwise it is row-major. So `a.t() + b.t()` is
    /// transposed (and as fast as `a + b`), while `a + b.t()` is row-major.
    ///
    /// # Errors
    /// [`Error::BroadcastMismatch`] naming both shapes and the dim if the shapes do not
    /// broadcast; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    /// let row = Tensor::from_vec(vec![10u8, 20, 30], &[3])?;
    /// let c = a.zip_map(&row, |x, y| x * y as f32)?;
    /// assert_eq!(c.to_vec(), vec![10.0, 40.0, 90.0, 40.0, 100.0, 180.0]);
    /// assert!(c.is_contiguous());
    /// let t = a.t()?.zip_map(&a.t()?, |x, y| x - y)?;
    /// assert_eq!(t.strides(), &[1, 3]); // follows the transposed inputs
    /// assert!(a.zip_map(&a.t()?, |x, y| x + y).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn zip_map<U: Element, V: Element, F: Fn(T, U) -> V + Sync>(
        &self,
        other: &Tensor<U>,
        f: F,
    ) -> Result<Tensor<V>> {
        let out = elementwise::zip(self.src(), other.src(), f);
        Ok(Tensor::fresh(out.map_err(|e| e.named("zip_map"))?))
    }
}

impl<T: Numeric> Tensor<T> {
    /// Elementwise `self + other`, broadcasting; integers wrap on overflow.
    ///
    /// # Errors
    /// [`Error::BroadcastMismatch`] if the shapes do not broadcast; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec((0..6).map(|x| x as f32).collect(), &[2, 3])?;
    /// let b = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2])?;
    /// assert_eq!(a.add(&b.t()?)?.to_vec(), vec![1.0, 4.0, 7.0, 5.0, 8.0, 11.0]);
    /// let bytes = Tensor::from_vec(vec![250u8], &[1])?;
    /// assert_eq!(bytes.add(&bytes)?.to_vec(), vec![244]); // wraps
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn add(&self, other: &Tensor<T>) -> Result<Tensor<T>> {
        self.zip_named("add", other, T::elem_add)
    }

    /// Elementwise `self - other`, broadcasting; integers wrap on overflow.
    ///
    /// # Errors
    /// As [`Tensor::add`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![5i32, 7, 9], &[3, 1])?;
    /// let b = Tensor::from_vec(vec![1i32, 2], &[2])?;
    /// assert_eq!(a.sub(&b)?.to_vec(), vec![4, 3, 6, 5, 8, 7]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn sub(&self, other: &Tensor<T>) -> Result<Tensor<T>> {
        self.zip_named("sub", other, T::elem_sub)
    }

    /// Elementwise `self * other`, broadcasting; integers wrap on overflow.
    ///
    /// # Errors
    /// As [`Tensor::add`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.5f64, -2.0], &[2])?;
    /// assert_eq!(a.mul(&a.flip(0)?)?.to_vec(), vec![-3.0, -3.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn mul(&self, other: &Tensor<T>) -> Result<Tensor<T>> {
        self.zip_named("mul", other, T::elem_mul)
    }

    /// Elementwise `self / other`, broadcasting. Floats follow IEEE 754 (`x / 0.0` is an
    /// infinity or NaN); integers truncate towards zero and wrap (`MIN / -1 == MIN`).
    ///
    /// # Errors
    /// [`Error::DivisionByZero`] if an integer divisor is 0 (no partial result is returned);
    /// [`Error::BroadcastMismatch`]; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![7i32, -7], &[2])?;
    /// let two = Tensor::full(&[], 2i32)?;
    /// assert_eq!(a.div(&two)?.to_vec(), vec![3, -3]);
    /// assert!(a.div(&Tensor::zeros(&[2])?).is_err());
    /// let f = Tensor::from_vec(vec![1.0f32, 0.0], &[2])?;
    /// assert_eq!(f.div(&Tensor::zeros(&[])?)?.get(&[0])?, f32::INFINITY);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn div(&self, other: &Tensor<T>) -> Result<Tensor<T>> {
        let by_zero = AtomicBool::new(false);
        let out = self.zip_named("div", other, |x, y| {
            x.elem_div(y).unwrap_or_else(|| {
                by_zero.store(true, Ordering::Relaxed);
                T::zero()
            })
        })?;
        match by_zero.load(Ordering::Relaxed) {
            true => Err(Error::DivisionByZero { op: "div" }),
            false => Ok(out),
        }
    }

    /// `self + value` for every element; integers wrap.
    ///
    /// # Panics
    /// Only if the result cannot be allocated, as [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1i8, 127], &[2])?;
    /// assert_eq!(a.add_scalar(1).to_vec(), vec![2, -128]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn add_scalar(&self, value: T) -> Tensor<T> {
        self.map_as("add_scalar", |x| x.elem_add(value))
    }

    /// `self - value` for every element; integers wrap.
    ///
    /// # Panics
    /// As [`Tensor::add_scalar`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1u8, 2], &[2])?;
    /// assert_eq!(a.sub_scalar(2).to_vec(), vec![255, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn sub_scalar(&self, value: T) -> Tensor<T> {
        self.map_as("sub_scalar", |x| x.elem_sub(value))
    }

    /// `self * value` for every element; integers wrap.
    ///
    /// # Panics
    /// As [`Tensor::add_scalar`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.5f32, 2.0], &[2])?;
    /// assert_eq!(a.mul_scalar(2.0).to_vec(), vec![3.0, 4.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn mul_scalar(&self, value: T) -> Tensor<T> {
        self.map_as("mul_scalar", |x| x.elem_mul(value))
    }

    /// `self / value` for every element, with the semantics of [`Tensor::div`].
    ///
    /// # Errors
    /// [`Error::DivisionByZero`] if `value` is an integer 0 (for a non-empty tensor);
    /// [`Error::Alloc`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![9u32, 10], &[2])?;
    /// assert_eq!(a.div_scalar(3)?.to_vec(), vec![3, 3]);
    /// assert!(a.div_scalar(0).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn div_scalar(&self, value: T) -> Result<Tensor<T>> {
        self.div(&Tensor::full(&[], value)?)
    }

    /// `-x` for every element; integers wrap (`-MIN == MIN`, and for unsigned types
    /// `-x == 2^bits - x`).
    ///
    /// # Panics
    /// As [`Tensor::add_scalar`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1i32, -2], &[2])?;
    /// assert_eq!(a.neg().to_vec(), vec![-1, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[allow(clippy::should_implement_trait)] // `Neg` is implemented for `&Tensor` too.
    #[must_use]
    #[track_caller]
    pub fn neg(&self) -> Tensor<T> {
        self.map_as("neg", T::elem_neg)
    }

    /// `|x|` for every element; `MIN` of a signed integer type stays `MIN` (wrapping).
    ///
    /// # Panics
    /// As [`Tensor::add_scalar`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![-1.5f32, 2.0], &[2])?;
    /// assert_eq!(a.abs().to_vec(), vec![1.5, 2.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn abs(&self) -> Tensor<T> {
        self.map_as("abs", T::elem_abs)
    }

    /// The elementwise larger of `self` and `other`, broadcasting; NaN if either is NaN.
    ///
    /// # Errors
    /// As [`Tensor::add`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.0f32, 5.0, f32::NAN], &[3])?;
    /// let m = a.maximum(&Tensor::full(&[], 2.0)?)?.to_vec();
    /// assert_eq!(&m[..2], &[2.0, 5.0]);
    /// assert!(m[2].is_nan());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn maximum(&self, other: &Tensor<T>) -> Result<Tensor<T>> {
        self.zip_named("maximum", other, T::elem_max)
    }

    /// The elementwise smaller of `self` and `other`, broadcasting; NaN if either is NaN.
    ///
    /// # Errors
    /// As [`Tensor::add`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1i64, 5], &[2])?;
    /// assert_eq!(a.minimum(&Tensor::full(&[], 2)?)?.to_vec(), vec![1, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn minimum(&self, other: &Tensor<T>) -> Result<Tensor<T>> {
        self.zip_named("minimum", other, T::elem_min)
    }
}

impl<T: ToFloat> Tensor<T> {
    /// Square root of every element (NaN for negative elements). Integer inputs give
    /// `Tensor<f32>` (converted as [`ToFloat`](crate::ToFloat) says, PyTorch's rule).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![4.0f32, 9.0], &[2])?;
    /// assert_eq!(a.sqrt().to_vec(), vec![2.0, 3.0]);
    /// let i = stridex::Tensor::from_vec(vec![4i32, 9], &[2])?;
    /// assert_eq!(i.sqrt().to_vec(), vec![2.0f32, 3.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn sqrt(&self) -> Tensor<T::Float> {
        self.map_as("sqrt", |x| x.to_float().sqrt())
    }

    /// `e^x` for every element. Integer inputs give `Tensor<f32>` (converted as
    /// [`ToFloat`](crate::ToFloat) says, PyTorch's rule).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, 1.0], &[2])?;
    /// assert_eq!(a.exp().to_vec(), vec![1.0, std::f64::consts::E]);
    /// let i = stridex::Tensor::from_vec(vec![0i32, 1], &[2])?;
    /// assert_eq!(i.exp().to_vec(), vec![1.0f32, std::f32::consts::E]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn exp(&self) -> Tensor<T::Float> {
        self.map_as("exp", |x| x.to_float().exp())
    }

    /// Natural logarithm of every element (`-inf` at 0, NaN for negative elements). Integer
    /// inputs give `Tensor<f32>` (converted as [`ToFloat`](crate::ToFloat) says).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.0f32, 0.0], &[2])?;
    /// assert_eq!(a.ln().to_vec(), vec![0.0, f32::NEG_INFINITY]);
    /// let i = stridex::Tensor::from_vec(vec![1u8, 0], &[2])?;
    /// assert_eq!(i.ln().to_vec(), vec![0.0f32, f32::NEG_INFINITY]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn ln(&self) -> Tensor<T::Float> {
        self.map_as("ln", |x| x.to_float().ln())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_division_by_zero_is_an_error_not_a_panic() {
        let a = Tensor::from_vec(vec![1i32, 2, 3, 4], &[2, 2]).unwrap();
        let b = Tensor::from_vec(vec![1i32, 0], &[2]).unwrap();
        assert_eq!(a.div(&b).unwrap_err(), Error::DivisionByZero { op: "div" });
        assert!(a.div_scalar(0).is_err());
        // An empty divisor has nothing to divide.
        let e = Tensor::<i32>::zeros(&[0]).unwrap();
        assert_eq!(e.div(&e).unwrap().numel(), 0);
        assert_eq!(
            Tensor::from_vec(vec![i64::MIN], &[1])
                .unwrap()
                .div_scalar(-1)
                .unwrap()
                .to_vec(),
            vec![i64::MIN]
        );
    }

    #[test]
    fn huge_empty_and_overflowing_shapes_are_errors_or_empty_never_panics() {
        let huge = 1usize << 40;
        let empty = Tensor::<f32>::zeros(&[0]).unwrap();
        let e = empty.as_strided(&[0, huge, huge], &[0, 0, 0], 0).unwrap();
        assert_eq!(e.add(&e).unwrap().shape(), &[0, huge, huge]);
        assert_eq!(e.map(|x| x as i8).shape(), &[0, huge, huge]);
        assert_eq!(e.sum_dims(&[1, 2], false).unwrap().shape(), &[0]);
        assert_eq!(e.sum_all(), 0.0);
        assert!(e.max_all().is_err());
        // Kept sizes whose product overflows: no output layout exists.
        assert!(matches!(e.sum_dim(0, false), Err(Error::Overflow { .. })));
        // Two broadcast operands whose result would have 2^80 elements.
        let one = Tensor::<f32>::zeros(&[1]).unwrap();
        let col = one.as_strided(&[huge, 1], &[0, 0], 0).unwrap();
        let row = one.as_strided(&[1, huge], &[0, 0], 0).unwrap();
        assert!(matches!(col.add(&row), Err(Error::Overflow { .. })));
    }

    #[test]
    fn half_precision_ops() {
        use half::{bf16, f16};
        let h = Tensor::from_vec([1.0f32, 4.0, 9.0].map(f16::from_f32).to_vec(), &[3]).unwrap();
        let two = Tensor::full(&[], f16::from_f32(2.0)).unwrap();
        assert_eq!(
            h.add(&two).unwrap().cast::<f32>().to_vec(),
            vec![3.0, 6.0, 11.0]
        );
        assert_eq!(h.sqrt().cast::<f32>().to_vec(), vec![1.0, 2.0, 3.0]);
        assert_eq!(
            h.maximum(&two).unwrap().cast::<f32>().to_vec(),
            vec![2.0, 4.0, 9.0]
        );
        assert_eq!(h.sum_all(), f16::from_f32(14.0));
        let b = h.cast::<bf16>();
        assert_eq!(
            b.neg().abs().div(&b).unwrap().cast::<f32>().to_vec(),
            vec![1.0; 3]
        );
        assert_eq!(b.mean_all(), bf16::from_f32(14.0 / 3.0));
    }

    #[test]
    fn integer_overflow_wraps() {
        let a = Tensor::from_vec(vec![i16::MAX, i16::MIN, 300], &[3]).unwrap();
        let one = Tensor::full(&[], 1i16).unwrap();
        assert_eq!(a.add(&one).unwrap().to_vec(), vec![i16::MIN, -32767, 301]);
        assert_eq!(a.mul(&a).unwrap().to_vec(), vec![1, 0, 24464]);
        assert_eq!(a.neg().to_vec(), vec![-i16::MAX, i16::MIN, -300]);
        assert_eq!(a.abs().to_vec(), vec![i16::MAX, i16::MIN, 300]);
    }

    #[test]
    fn zero_dim_and_empty_operands() {
        let s = Tensor::full(&[], 3.0f32).unwrap();
        let t = s.add(&s).unwrap();
        assert_eq!((t.ndim(), t.get(&[]).unwrap()), (0, 6.0));
        let e = Tensor::<f32>::zeros(&[2, 0]).unwrap();
        let r = e.add(&s).unwrap();
        assert_eq!(r.shape(), &[2, 0]);
        let col = Tensor::<f32>::zeros(&[2, 1]).unwrap();
        assert_eq!(e.add(&col).unwrap().shape(), &[2, 0]);
    }

    #[test]
    fn negative_zero_and_large_strides() {
        let a = Tensor::from_vec((0..12).collect::<Vec<i32>>(), &[3, 4]).unwrap();
        let f = a.flip(0).unwrap().flip(1).unwrap();
        let want: Vec<i32> = (0..12).rev().map(|x| x + x).collect();
        assert_eq!(f.add(&f).unwrap().to_vec(), want);
        let row = Tensor::from_vec(vec![100, 200, 300, 400], &[1, 4]).unwrap();
        let b = a.add(&row.expand(&[3, 4]).unwrap()).unwrap();
        assert_eq!(b.get(&[2, 3]).unwrap(), 411);
        let t = a.t().unwrap().add(&a.t().unwrap()).unwrap();
        assert_eq!(t.strides(), &[1, 4]); // follows the transposed inputs
        assert_eq!(t.get(&[3, 2]).unwrap(), 22);
    }

    #[test]
    fn tiled_transposed_operand() {
        // Large enough to tile: a row-major + a transposed operand, with a narrowed view.
        let n = 70;
        let a = Tensor::from_vec((0..n * n).map(|x| x as f64).collect(), &[n, n]).unwrap();
        let b = a.t().unwrap();
        let c = a.add(&b).unwrap();
        assert_eq!(c.strides(), &[n as isize, 1]);
        for (i, j) in [(0, 0), (3, 69), (69, 3), (17, 40)] {
            assert_eq!(c.get(&[i, j]).unwrap(), (i * n + j + j * n + i) as f64);
        }
        let bn = b.narrow(1, 5, 60).unwrap();
        let an = a.narrow(1, 1, 60).unwrap();
        let d = an.sub(&bn).unwrap();
        for (i, j) in [(0, 0), (69, 59), (12, 33)] {
            assert_eq!(
                d.get(&[i, j]).unwrap(),
                (i * n + j + 1) as f64 - ((j + 5) * n + i) as f64
            );
        }
    }
}
