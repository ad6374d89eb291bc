//! What arithmetic means for each element type: the vocabulary of the elementwise and reduction
//! kernels.
//!
//! [`Numeric`] is implemented for every [`Element`] type. Its methods fix the semantics the
//! tensor ops document once, here:
//!
//! - **Integers wrap.** `+`, `-`, `*`, negation and `abs` wrap around on overflow, as the
//!   `wrapping_*` methods of the primitive types do (`i8::MIN.abs()` is `i8::MIN`), and sums and
//!   products wrap too. Results never depend on build settings and are never undefined.
//! - **Integer division truncates** towards zero (Rust's `/`); `MIN / -1` wraps to `MIN`.
//!   Division by zero has no integer result: [`Numeric::elem_div`] returns `None`, and the tensor
//!   ops turn that into [`Error::DivisionByZero`](crate::Error::DivisionByZero).
//! - **Floats follow IEEE 754**: `x / 0.0` is an infinity or NaN; `maximum`, `minimum` and the
//!   `max`/`min` reductions propagate NaN.
//! - **Sums and products of `f16`/`bf16` accumulate in `f32`** and round once at the end;
//!   `f32` and `f64` accumulate in their own type (with pairwise summation, see the reduction
//!   kernels); integers accumulate in their own type, wrapping.
//! - **Rounding** ([`Numeric::elem_floor`], `elem_ceil`, `elem_round`) leaves integers as they
//!   are (they are already whole), as PyTorch's `floor` / `ceil` / `round` do on integer
//!   tensors; floats round halves away from zero.
//!
//! # Float-only ops and integer inputs
//!
//! Ops that only make sense in floating point (`exp`, `sqrt`, `tanh`, `softmax`, `mean_dim`,
//! `var_dim` ...) take every element type through [`ToFloat`]: a float tensor is used as it is
//! (borrowed, no copy, the same kernel), an integer one is converted to `f32`, PyTorch's
//! default float type (`torch.exp(torch.tensor([0, 1]))` is `float32`). So `Tensor<i32>::exp`
//! is a `Tensor<f32>`, and `Tensor<f64>::exp` a `Tensor<f64>`. Generic code bounds its element
//! type by [`FloatElement`], whose [`ToFloat::Float`] is the type itself, and gets `Tensor<T>`
//! back.
//!
//! # Masks and indices
//!
//! Masks (`masked_fill`, `masked_select`, `where_cond`) and index tensors (`index_select`,
//! `gather`, `scatter`, `take` ...) may hold any integer type, [`IntElement`]. There is no
//! `Tensor<bool>`: every element type is plain old data, every bit pattern a value, and a byte
//! holding 2 read as a `bool` would be undefined behaviour; masks are `u8` 0/1 by default
//! (what comparisons return), [`Tensor::from_bools`](crate::Tensor::from_bools) builds one
//! from `bool`s.

use std::fmt::Debug;

use crate::element::Element;

/// Element arithmetic with the semantics described in the [module docs](self).
///
/// Implemented for every element type; sealed like [`Element`]. Users only name it as a bound;
/// the methods are the kernels' building blocks.
///
/// ```
/// use stridex::Numeric;
/// assert_eq!(200u8.elem_add(100), 44); // wraps
/// assert_eq!(7i32.elem_div(0), None); // no integer result
/// assert_eq!((-7i32).elem_div(2), Some(-3)); // truncates
/// assert!(f32::NAN.elem_max(1.0).is_nan());
/// ```
pub trait Numeric: Element + num_traits::Zero + num_traits::One {
    /// The type sums, products and means accumulate in.
    ///
    /// ```
    /// let acc: <half::f16 as stridex::Numeric>::Acc = 1.5f32; // f16 accumulates in f32
    /// # let _ = acc;
    /// ```
    type Acc: Copy + Send + Sync + Debug + 'static;

    /// The smallest value: negative infinity for floats, `MIN` for integers.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(<f32 as Numeric>::LOWEST, f32::NEG_INFINITY);
    /// assert_eq!(<i8 as Numeric>::LOWEST, -128);
    /// ```
    const LOWEST: Self;
    /// The largest value: positive infinity for floats, `MAX` for integers.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(<u16 as Numeric>::HIGHEST, u16::MAX);
    /// ```
    const HIGHEST: Self;

    /// `self + rhs`, wrapping for integers.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(i8::MAX.elem_add(1), i8::MIN);
    /// ```
    fn elem_add(self, rhs: Self) -> Self;
    /// `self - rhs`, wrapping for integers.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(0u32.elem_sub(1), u32::MAX);
    /// ```
    fn elem_sub(self, rhs: Self) -> Self;
    /// `self * rhs`, wrapping for integers.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(16u8.elem_mul(16), 0);
    /// ```
    fn elem_mul(self, rhs: Self) -> Self;
    /// `self / rhs`: IEEE for floats; truncating and wrapping for integers, `None` if `rhs` is 0.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(i64::MIN.elem_div(-1), Some(i64::MIN));
    /// assert_eq!(1.0f64.elem_div(0.0), Some(f64::INFINITY));
    /// ```
    fn elem_div(self, rhs: Self) -> Option<Self>;
    /// `-self`, wrapping for integers (for unsigned types, `0 - self` modulo `2^bits`).
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(1u8.elem_neg(), 255);
    /// ```
    fn elem_neg(self) -> Self;
    /// `|self|`, wrapping for signed integers (`MIN` stays `MIN`); the identity for unsigned.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!((-3i16).elem_abs(), 3);
    /// ```
    fn elem_abs(self) -> Self;
    /// The larger of the two; NaN if either is NaN.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(2.0f32.elem_max(3.0), 3.0);
    /// ```
    fn elem_max(self, rhs: Self) -> Self;
    /// The smaller of the two; NaN if either is NaN.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert!(2.0f32.elem_min(f32::NAN).is_nan());
    /// ```
    fn elem_min(self, rhs: Self) -> Self;
    /// Whether the value is a float NaN (always `false` for integers).
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert!(half::bf16::NAN.elem_is_nan() && !0u8.elem_is_nan());
    /// ```
    fn elem_is_nan(self) -> bool;

    /// The value in the accumulator type.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(half::f16::from_f32(0.5).to_acc(), 0.5f32);
    /// ```
    fn to_acc(self) -> Self::Acc;
    /// The accumulator rounded (or wrapped) back to the element type.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(half::bf16::from_acc(1.0), half::bf16::ONE);
    /// ```
    fn from_acc(acc: Self::Acc) -> Self;
    /// Accumulator addition (wrapping for integers).
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(u8::acc_add(200, 100), 44);
    /// ```
    fn acc_add(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// Accumulator multiplication (wrapping for integers).
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(f32::acc_mul(1.5, 2.0), 3.0);
    /// ```
    fn acc_mul(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// The accumulated sum divided by `count`, as an element: a float mean, or for integers the
    /// wrapped sum divided by `count` with truncation (0 when `count` is 0).
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(f64::acc_mean(3.0, 2), 1.5);
    /// assert_eq!(i32::acc_mean(7, 2), 3);
    /// ```
    fn acc_mean(sum: Self::Acc, count: usize) -> Self;

    /// The largest whole number not above `self`; integers are unchanged.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!((-1.5f32).elem_floor(), -2.0);
    /// assert_eq!(7i32.elem_floor(), 7);
    /// ```
    fn elem_floor(self) -> Self;
    /// The smallest whole number not below `self`; integers are unchanged.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!((-1.5f64).elem_ceil(), -1.0);
    /// assert_eq!(7u8.elem_ceil(), 7);
    /// ```
    fn elem_ceil(self) -> Self;
    /// The nearest whole number, halves away from zero (Rust's `f32::round`); integers are
    /// unchanged.
    ///
    /// ```
    /// use stridex::Numeric;
    /// assert_eq!(2.5f32.elem_round(), 3.0);
    /// assert_eq!((-7i64).elem_round(), -7);
    /// ```
    fn elem_round(self) -> Self;
}

macro_rules! float_numeric {
    ($($t:ty => $acc:ty, $to:expr, $from:expr;)*) => {$(
        impl Numeric for $t {
            type Acc = $acc;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;

            #[inline(always)]
            fn elem_add(self, rhs: Self) -> Self { self + rhs }
            #[inline(always)]
            fn elem_sub(self, rhs: Self) -> Self { self - rhs }
            #[inline(always)]
            fn elem_mul(self, rhs: Self) -> Self { self * rhs }
            #[inline(always)]
            fn elem_div(self, rhs: Self) -> Option<Self> { Some(self / rhs) }
            #[inline(always)]
            fn elem_neg(self) -> Self { -self }
            #[inline(always)]
            fn elem_abs(self) -> Self { num_traits::Float::abs(self) }
            #[inline(always)]
            fn elem_max(self, rhs: Self) -> Self {
                if self.is_nan() || rhs.is_nan() { <$t>::NAN } else if rhs > self { rhs } else { self }
            }
            #[inline(always)]
            fn elem_min(self, rhs: Self) -> Self {
                if self.is_nan() || rhs.is_nan() { <$t>::NAN } else if rhs < self { rhs } else { self }
            }
            #[inline(always)]
            fn elem_is_nan(self) -> bool { self.is_nan() }
            #[inline(always)]
            fn to_acc(self) -> $acc { $to(self) }
            #[inline(always)]
            fn from_acc(acc: $acc) -> Self { $from(acc) }
            #[inline(always)]
            fn acc_add(a: $acc, b: $acc) -> $acc { a + b }
            #[inline(always)]
            fn acc_mul(a: $acc, b: $acc) -> $acc { a * b }
            #[inline]
            fn acc_mean(sum: $acc, count: usize) -> Self { $from(sum / count as $acc) }
            #[inline(always)]
            fn elem_floor(self) -> Self { num_traits::Float::floor(self) }
            #[inline(always)]
            fn elem_ceil(self) -> Self { num_traits::Float::ceil(self) }
            #[inline(always)]
            fn elem_round(self) -> Self { num_traits::Float::round(self) }
        }
    )*};
}

float_numeric! {
    f32 => f32, |x| x, |a| a;
    f64 => f64, |x| x, |a| a;
    half::f16 => f32, half::f16::to_f32, half::f16::from_f32;
    half::bf16 => f32, half::bf16::to_f32, half::bf16::from_f32;
}

macro_rules! int_numeric {
    ($signed:tt: $($t:ty),*) => {$(
        impl Numeric for $t {
            type Acc = $t;
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;

            #[inline(always)]
            fn elem_add(self, rhs: Self) -> Self { self.wrapping_add(rhs) }
            #[inline(always)]
            fn elem_sub(self, rhs: Self) -> Self { self.wrapping_sub(rhs) }
            #[inline(always)]
            fn elem_mul(self, rhs: Self) -> Self { self.wrapping_mul(rhs) }
            #[inline(always)]
            fn elem_div(self, rhs: Self) -> Option<Self> {
                if rhs == 0 { None } else { Some(self.wrapping_div(rhs)) }
            }
            #[inline(always)]
            fn elem_neg(self) -> Self { self.wrapping_neg() }
            #[inline(always)]
            fn elem_abs(self) -> Self { int_numeric!(@abs $signed, self) }
            #[inline(always)]
            fn elem_max(self, rhs: Self) -> Self { Ord::max(self, rhs) }
            #[inline(always)]
            fn elem_min(self, rhs: Self) -> Self { Ord::min(self, rhs) }
            #[inline(always)]
            fn elem_is_nan(self) -> bool { false }
            #[inline(always)]
            fn to_acc(self) -> $t { self }
            #[inline(always)]
            fn from_acc(acc: $t) -> Self { acc }
            #[inline(always)]
            fn acc_add(a: $t, b: $t) -> $t { a.wrapping_add(b) }
            #[inline(always)]
            fn acc_mul(a: $t, b: $t) -> $t { a.wrapping_mul(b) }
            #[inline]
            fn acc_mean(sum: $t, count: usize) -> Self {
                // A count that does not fit in the type exceeds every |sum|: the mean truncates
                // to 0.
                match <$t>::try_from(count) {
                    Ok(0) | Err(_) => 0,
                    Ok(n) => sum.wrapping_div(n),
                }
            }
            #[inline(always)]
            fn elem_floor(self) -> Self { self }
            #[inline(always)]
            fn elem_ceil(self) -> Self { self }
            #[inline(always)]
            fn elem_round(self) -> Self { self }
        }
    )*};
    (@abs signed, $x:expr) => { $x.wrapping_abs() };
    (@abs unsigned, $x:expr) => { $x };
}

int_numeric!(signed: i8, i16, i32, i64);
int_numeric!(unsigned: u8, u16, u32, u64);

/// A float element type: `f32`, `f64`, [`half::f16`], [`half::bf16`]; sealed like
/// [`Element`].
///
/// Each is its own [`ToFloat::Float`], so in generic code bounded by `T: FloatElement` the
/// float-only ops (`exp`, `softmax`, `mean_dim` ...) return `Tensor<T>`, as before integer
/// inputs were accepted. The [`num_traits::Float`] supertrait gives the element functions.
///
/// ```
/// use stridex::{FloatElement, Tensor};
/// fn probabilities<T: FloatElement>(logits: &Tensor<T>) -> stridex::Result<Tensor<T>> {
///     logits.softmax(-1)
/// }
/// let p = probabilities(&Tensor::from_vec(vec![0.0f64, 0.0], &[2])?)?;
/// assert_eq!(p.to_vec(), vec![0.5, 0.5]);
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait FloatElement: Numeric + num_traits::Float + ToFloat<Float = Self> {}

/// An element type the float-only ops accept (every element type), and the float type they
/// compute in: floats are their own ([`FloatElement`]), every integer type gives `f32`,
/// PyTorch's default float type. See the [module docs](self#float-only-ops-and-integer-inputs).
///
/// Sealed like [`Element`]. Users name it as a bound; the tensor-level conversion is
/// [`Tensor::to_float`](crate::Tensor::to_float).
///
/// ```
/// use stridex::{Tensor, ToFloat};
/// let a = Tensor::from_vec(vec![0i32, 1], &[2])?;
/// let e: Tensor<f32> = a.exp(); // i32 in, f32 out
/// assert_eq!(e.to_vec(), vec![1.0, std::f32::consts::E]);
/// let f: <u8 as ToFloat>::Float = 1.5f32;
/// # let _ = f;
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait ToFloat: Numeric {
    /// The float type the float-only ops compute in and return: `Self` for floats, `f32`
    /// for integers.
    ///
    /// ```
    /// let x: <i64 as stridex::ToFloat>::Float = 0.5f32;
    /// let y: <half::bf16 as stridex::ToFloat>::Float = half::bf16::ONE;
    /// # let _ = (x, y);
    /// ```
    type Float: FloatElement;

    /// The value as [`ToFloat::Float`]: the identity for floats, Rust's `as` for integers
    /// (the nearest `f32`; `i64`/`u64` past 2^24 round, as PyTorch's conversion does).
    ///
    /// ```
    /// use stridex::ToFloat;
    /// assert_eq!(3i32.to_float(), 3.0f32);
    /// assert_eq!(16_777_217u32.to_float(), 16_777_216.0f32); // rounds to nearest
    /// assert_eq!(1.5f64.to_float(), 1.5f64);
    /// ```
    fn to_float(self) -> Self::Float;
}

macro_rules! float_to_float {
    ($($t:ty),*) => {$(
        impl FloatElement for $t {}
        impl ToFloat for $t {
            type Float = $t;
            #[inline(always)]
            fn to_float(self) -> $t { self }
        }
    )*};
}

macro_rules! int_to_float {
    ($($t:ty),*) => {$(
        impl ToFloat for $t {
            type Float = f32;
            #[inline(always)]
            fn to_float(self) -> f32 { self as f32 }
        }
    )*};
}

float_to_float!(f32, f64, half::f16, half::bf16);
int_to_float!(i8, i16, i32, i64, u8, u16, u32, u64);

/// An integer element type (`i8`..`i64`, `u8`..`u64`): what masks and index tensors hold.
/// Sealed like [`Element`]. See the [module docs](self#masks-and-indices).
///
/// As a mask, an element is true when it is non-zero. As an index, its value must lie in
/// `0..size`: a negative index, or one not below the size it indexes, is
/// [`Error::IndexOutOfBounds`](crate::Error::IndexOutOfBounds), and a `u64` past `i64::MAX`
/// (which no `i64` can name) [`Error::IndexTooLarge`](crate::Error::IndexTooLarge).
///
/// ```
/// use stridex::Tensor;
/// let a = Tensor::from_vec(vec![10, 20, 30], &[3])?;
/// let idx = Tensor::from_vec(vec![2u8, 0], &[2])?; // u8 indices
/// assert_eq!(a.index_select(0, &idx)?.to_vec(), vec![30, 10]);
/// let mask = Tensor::from_vec(vec![0i32, 5, 0], &[3])?; // an i32 mask: non-zero is true
/// assert_eq!(a.masked_select(&mask)?.to_vec(), vec![20]);
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait IntElement: Numeric {
    /// The value as an index into a dim of `size`: `Some` if `0 <= self < size`.
    ///
    /// ```
    /// use stridex::IntElement;
    /// assert_eq!(2i8.checked_index(3), Some(2));
    /// assert_eq!((-1i64).checked_index(3), None); // negative indices are not wrapped
    /// assert_eq!(3u16.checked_index(3), None);
    /// assert_eq!(u64::MAX.checked_index(usize::MAX), None);
    /// ```
    fn checked_index(self, size: usize) -> Option<usize>;

    /// The value, exactly, as an `i128` (for comparisons and messages).
    ///
    /// ```
    /// use stridex::IntElement;
    /// assert_eq!(u64::MAX.to_wide(), 18_446_744_073_709_551_615);
    /// assert_eq!((-3i16).to_wide(), -3);
    /// ```
    fn to_wide(self) -> i128;
}

macro_rules! int_element {
    ($($t:ty),*) => {$(
        impl IntElement for $t {
            #[inline(always)]
            fn checked_index(self, size: usize) -> Option<usize> {
                // One unsigned compare, as the i64 path always made: a negative value
                // sign-extends to at least 2^63, and the bound is capped at 2^63 (no size
                // reaches it: sizes fit in isize), so negatives fail whatever `size` is.
                let u = self as i64 as u64;
                (u < (size as u64).min(1 << 63)).then_some(u as usize)
            }
            #[inline(always)]
            fn to_wide(self) -> i128 {
                self as i128
            }
        }
    )*};
}

int_element!(i8, i16, i32, i64, u8, u16, u32, u64);

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    #[test]
    fn integer_semantics_wrap_and_truncate() {
        assert_eq!(i8::MAX.elem_add(1), i8::MIN);
        assert_eq!(0u16.elem_sub(1), u16::MAX);
        assert_eq!(i32::MIN.elem_div(-1), Some(i32::MIN));
        assert_eq!(i32::MIN.elem_abs(), i32::MIN);
        assert_eq!(5u8.elem_neg(), 251);
        assert_eq!(9u64.elem_div(0), None);
        assert_eq!((-9i64).elem_div(4), Some(-2));
        assert_eq!(i16::acc_mean(7, 2), 3);
        assert_eq!(i8::acc_mean(7, 1000), 0);
        assert_eq!(u8::acc_mean(7, 0), 0);
    }

    #[test]
    fn integer_indices_check_their_range_without_wrapping() {
        fn check<I: IntElement + TryFrom<i64>>(size: usize) {
            let of = |v: i64| I::try_from(v).ok();
            assert_eq!(of(0).unwrap().checked_index(size), (size > 0).then_some(0));
            if let (Some(last), true) = (of(size as i64 - 1), size > 0) {
                assert_eq!(last.checked_index(size), Some(size - 1));
            }
            if let Some(past) = of(size as i64) {
                assert_eq!(past.checked_index(size), None);
            }
            if let Some(neg) = of(-1) {
                assert_eq!(neg.checked_index(size), None);
                assert_eq!(neg.checked_index(usize::MAX), None);
                assert_eq!(neg.to_wide(), -1);
            }
        }
        for size in [0, 1, 100, 127, 255] {
            check::<i8>(size);
            check::<i16>(size);
            check::<i32>(size);
            check::<i64>(size);
            check::<u8>(size);
            check::<u16>(size);
            check::<u32>(size);
            check::<u64>(size);
        }
        assert_eq!(i64::MIN.checked_index(usize::MAX), None);
        assert_eq!((1u64 << 63).checked_index(usize::MAX), None);
        assert_eq!(
            ((1u64 << 63) - 1).checked_index(usize::MAX),
            Some((1 << 63) - 1)
        );
        assert_eq!(u64::MAX.to_wide(), u64::MAX as i128);
    }

    #[test]
    fn integers_convert_to_f32_and_floats_to_themselves() {
        assert_eq!(i64::MAX.to_float(), 9.223372e18f32);
        assert_eq!((-7i8).to_float(), -7.0f32);
        assert_eq!(f16::ONE.to_float(), f16::ONE);
        assert_eq!(bf16::ONE.to_float(), bf16::ONE);
        assert_eq!(2.5f64.elem_round(), 3.0);
        assert_eq!((-2.5f32).elem_round(), -3.0);
        assert_eq!(f16::from_f32(1.5).elem_floor(), f16::ONE);
        assert_eq!(i8::MIN.elem_ceil(), i8::MIN);
    }

    #[test]
    fn float_semantics_follow_ieee() {
        assert_eq!(1.0f32.elem_div(0.0), Some(f32::INFINITY));
        assert!(f64::NAN.elem_min(0.0).is_nan());
        assert!(0.0f64.elem_max(f64::NAN).is_nan());
        assert_eq!(
            f16::from_f32(2.0).elem_max(f16::from_f32(3.0)),
            f16::from_f32(3.0)
        );
        assert_eq!(bf16::LOWEST, bf16::NEG_INFINITY);
        assert_eq!(f16::acc_mean(3.0, 2), f16::from_f32(1.5));
        // f16 accumulates in f32: 2048 + 1 is not representable in f16 but is in the sum.
        let acc = f16::acc_add(f16::from_f32(2048.0).to_acc(), f16::ONE.to_acc());
        assert_eq!(acc, 2049.0f32);
    }
}
