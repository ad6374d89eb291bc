//! Type promotion: the element type of `a op b` when `a` and `b` hold different element types,
//! by PyTorch's rules for tensors of one category ordering (`bool` aside, which stridex has
//! not), with NumPy's answers where PyTorch defines none.
//!
//! # Note [promotion rules]
//!
//! 1. The same type gives itself.
//! 2. An integer and a float give the float (`i64 + f16` is `f16`, as in PyTorch: the float
//!    category wins, whatever the widths).
//! 3. Two floats give the wider; `f16` with `bf16` gives `f32` (neither holds the other).
//! 4. Two signed or two unsigned integers give the wider.
//! 5. A signed and an unsigned integer give the signed one if it is wider, else the signed type
//!    of twice the unsigned width (`u8 + i8` is `i16`, `u32 + i32` is `i64`); `u64` with any
//!    signed type gives `f64`, since no integer type holds both (NumPy's answer; PyTorch does
//!    not promote `u16`..`u64` at all).
//!
//! The rules live twice, on purpose: as a table of types ([`Promote`], what the operators
//! compile against, read as the specification) and as a function of [`DType`]s
//! ([`DType::promote`], for code that only knows types at run time). A test checks that the
//! two agree on all 144 pairs.

use half::{bf16, f16};
use num_traits::AsPrimitive;

use crate::element::{DType, Element};
use crate::scalar::Numeric;

/// The element type of a binary op between `Self` and `U` (Note [promotion rules] in
/// `src/operators/promote.rs`), and how each side converts to it.
///
/// Implemented for every pair of element types. The tensor operators (`&a + &b`, `a * b`, ...)
/// use it so that tensors of two element types combine without a cast written by hand; the
/// methods ([`Tensor::add`](crate::Tensor::add), ...) take one element type.
///
/// ```
/// use stridex::{Promote, Tensor};
/// fn kind<T: Promote<U>, U: stridex::Element>() -> stridex::DType {
///     <T::Output as stridex::Element>::DTYPE
/// }
/// assert_eq!(kind::<f32, f64>(), stridex::DType::F64);
/// assert_eq!(kind::<i64, half::f16>(), stridex::DType::F16);
/// assert_eq!(kind::<u8, i8>(), stridex::DType::I16);
/// let x = Tensor::from_vec(vec![1i32, 2], &[2])?;
/// let y = Tensor::from_vec(vec![0.5f32, 0.25], &[2])?;
/// let z: Tensor<f32> = (&x + &y)?;
/// assert_eq!(z.to_vec(), vec![1.5, 2.25]);
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait Promote<U: Element>: Element {
    /// The result's element type.
    type Output: Numeric;

    /// A left operand's element as the result type (a plain `as` conversion: exact for every
    /// pair the rules produce except integers wider than the float's mantissa, which round).
    ///
    /// ```
    /// use stridex::Promote;
    /// assert_eq!(<u8 as Promote<i8>>::left(200), 200i16);
    /// ```
    fn left(x: Self) -> Self::Output;

    /// A right operand's element as the result type.
    ///
    /// ```
    /// use stridex::Promote;
    /// assert_eq!(<u8 as Promote<i8>>::right(-3), -3i16);
    /// ```
    fn right(y: U) -> Self::Output;
}

/// One row of the table: `Promote<U> for T` with the output each column gives.
macro_rules! promote_row {
    ($t:ty; [$($u:ty),*]; [$($o:ty),*]) => {$(
        impl Promote<$u> for $t {
            type Output = $o;

            #[inline(always)]
            fn left(x: $t) -> $o {
                AsPrimitive::<$o>::as_(x)
            }

            #[inline(always)]
            fn right(y: $u) -> $o {
                AsPrimitive::<$o>::as_(y)
            }
        }
    )*};
}

/// The table: a row per left type, a column per right type (`$cols` is passed whole so that
/// each row can zip it with its outputs).
macro_rules! promote_table {
    ($cols:tt; $($t:ty => [$($o:ty),*];)*) => {$(
        promote_row!($t; $cols; [$($o),*]);
    )*};
}

promote_table! {
    [f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64];
    //       f16   bf16  f32  f64  i8    i16   i32   i64   u8    u16   u32   u64
    f16  => [f16,  f32,  f32, f64, f16,  f16,  f16,  f16,  f16,  f16,  f16,  f16];
    bf16 => [f32,  bf16, f32, f64, bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16];
    f32  => [f32,  f32,  f32, f64, f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32];
    f64  => [f64,  f64,  f64, f64, f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64];
    i8   => [f16,  bf16, f32, f64, i8,   i16,  i32,  i64,  i16,  i32,  i64,  f64];
    i16  => [f16,  bf16, f32, f64, i16,  i16,  i32,  i64,  i16,  i32,  i64,  f64];
    i32  => [f16,  bf16, f32, f64, i32,  i32,  i32,  i64,  i32,  i32,  i64,  f64];
    i64  => [f16,  bf16, f32, f64, i64,  i64,  i64,  i64,  i64,  i64,  i64,  f64];
    u8   => [f16,  bf16, f32, f64, i16,  i16,  i32,  i64,  u8,   u16,  u32,  u64];
    u16  => [f16,  bf16, f32, f64, i32,  i32,  i32,  i64,  u16,  u16,  u32,  u64];
    u32  => [f16,  bf16, f32, f64, i64,  i64,  i64,  i64,  u32,  u32,  u32,  u64];
    u64  => [f16,  bf16, f32, f64, f64,  f64,  f64,  f64,  u64,  u64,  u64,  u64];
}

impl DType {
    /// The element type of a binary op between `self` and `other`: the run-time form of
    /// [`Promote`] (PyTorch's `torch.promote_types`), by the rules in Note [promotion rules]
    /// (`src/operators/promote.rs`).
    ///
    /// ```
    /// use stridex::DType;
    /// assert_eq!(DType::F16.promote(DType::BF16), DType::F32);
    /// assert_eq!(DType::I32.promote(DType::F16), DType::F16);
    /// assert_eq!(DType::U8.promote(DType::I8), DType::I16);
    /// assert_eq!(DType::U64.promote(DType::I64), DType::F64);
    /// ```
    #[must_use]
    pub fn promote(self, other: DType) -> DType {
        use DType::*;
        let is_float = |d: DType| matches!(d, F16 | BF16 | F32 | F64);
        let is_signed = |d: DType| matches!(d, I8 | I16 | I32 | I64);
        let signed_of = |size: usize| match size {
            1 => I8,
            2 => I16,
            4 => I32,
            _ => I64,
        };
        let (a, b) = (self, other);
        match (is_float(a), is_float(b)) {
            _ if a == b => a,
            (true, false) => a,
            (false, true) => b,
            (true, true) if a.size() == b.size() => F32, // f16 with bf16
            (true, true) => [a, b].into_iter().max_by_key(|d| d.size()).unwrap_or(a),
            (false, false) if is_signed(a) == is_signed(b) => {
                [a, b].into_iter().max_by_key(|d| d.size()).unwrap_or(a)
            }
            (false, false) => {
                let (s, u) = if is_signed(a) { (a, b) } else { (b, a) };
                match u.size() {
                    _ if s.size() > u.size() => s,
                    8 => F64,
                    n => signed_of(2 * n),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output<T: Promote<U>, U: Element>() -> DType {
        <T::Output as Element>::DTYPE
    }

    #[test]
    fn the_table_and_the_rules_agree_on_every_pair() {
        macro_rules! row {
            ($t:ty; $($u:ty),*) => {$(
                assert_eq!(
                    output::<$t, $u>(),
                    <$t as Element>::DTYPE.promote(<$u as Element>::DTYPE),
                    "{} with {}", stringify!($t), stringify!($u)
                );
            )*};
        }
        macro_rules! all {
            ($($t:ty),*) => {$(
                row!($t; f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);
            )*};
        }
        all!(f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);
    }

    #[test]
    fn promotion_is_symmetric() {
        use DType::*;
        let all = [F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64];
        for a in all {
            for b in all {
                assert_eq!(a.promote(b), b.promote(a), "{a} with {b}");
            }
        }
    }

    #[test]
    fn pytorch_examples() {
        // torch.promote_types, by hand from PyTorch's documentation.
        use DType::*;
        assert_eq!(F32.promote(F64), F64);
        assert_eq!(F16.promote(F32), F32);
        assert_eq!(BF16.promote(F16), F32);
        assert_eq!(I64.promote(F32), F32);
        assert_eq!(U8.promote(I8), I16);
        assert_eq!(U8.promote(I32), I32);
        assert_eq!(I8.promote(I64), I64);
        assert_eq!(<u8 as Promote<i8>>::left(255), 255i16);
        assert_eq!(<f32 as Promote<f16>>::right(f16::from_f32(1.5)), 1.5f32);
        assert_eq!(<i32 as Promote<bf16>>::left(3), bf16::from_f32(3.0));
    }
}
