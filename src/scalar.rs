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
        }
    )*};
    (@abs signed, $x:expr) => { $x.wrapping_abs() };
    (@abs unsigned, $x:expr) => { $x };
}

int_numeric!(signed: i8, i16, i32, i64);
int_numeric!(unsigned: u8, u16, u32, u64);

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
