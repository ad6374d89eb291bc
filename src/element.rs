//! Element types a tensor can hold.

use std::fmt::{Debug, Display};

/// The runtime name of an element type, for messages and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum DType {
    F16,
    BF16,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
}

impl DType {
    /// Size of one element in bytes.
    ///
    /// ```
    /// assert_eq!(stridex::DType::BF16.size(), 2);
    /// ```
    #[must_use]
    pub fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    /// The name users write, e.g. `"bf16"`.
    ///
    /// ```
    /// assert_eq!(stridex::DType::F32.name(), "f32");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
        }
    }
}

impl Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A type a [`Tensor`](crate::Tensor) can hold: plain old data (any bit pattern is a value, no
/// drop glue), thread-safe, printable.
///
/// Implemented for `f32`, `f64`, [`half::f16`], [`half::bf16`], `i8`..`i64` and `u8`..`u64`. The
/// trait is sealed: the copy kernels move elements as plain integers of `size_of::<T>()` bytes,
/// which is sound for exactly these types (their alignment equals their size).
///
/// ```
/// use stridex::{DType, Element};
/// assert_eq!(<half::bf16 as Element>::DTYPE, DType::BF16);
/// ```
pub trait Element:
    bytemuck::Pod + Send + Sync + Debug + Display + PartialEq + PartialOrd + sealed::Sealed + 'static
{
    /// The runtime tag of this type.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
        }
    )*};
}

element!(
    f32 => F32, f64 => F64, half::f16 => F16, half::bf16 => BF16,
    i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
);

#[cfg(test)]
mod tests {
    use super::*;

    fn check<T: Element>() {
        assert_eq!(T::DTYPE.size(), std::mem::size_of::<T>());
        // The copy kernels rely on alignment == size.
        assert_eq!(std::mem::align_of::<T>(), std::mem::size_of::<T>());
    }

    #[test]
    fn sizes_and_alignments_match() {
        check::<f32>();
        check::<f64>();
        check::<half::f16>();
        check::<half::bf16>();
        check::<i8>();
        check::<i16>();
        check::<i32>();
        check::<i64>();
        check::<u8>();
        check::<u16>();
        check::<u32>();
        check::<u64>();
    }
}
