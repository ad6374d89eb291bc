//! [`DynTensor`]: a tensor whose element type is known only at run time.
//!
//! A `.safetensors` file holds tensors of several element types, and a `.npy` file says its
//! type in its header, so loading cannot return a `Tensor<T>` for a `T` fixed at compile time.
//! The loaders return a `DynTensor`, an enum with one variant per element type; the accessors
//! ([`DynTensor::as_tensor`], [`DynTensor::into_tensor`], `TryFrom`) hand back the typed
//! tensor or an [`Error::DTypeMismatch`] naming both types. Converting never copies elements:
//! a variant holds the very `Tensor<T>` (storage `Arc` and layout) that was put in.

use std::any::Any;
use std::fmt;

use half::{bf16, f16};

use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A tensor whose element type is known only at run time: one variant per element type.
///
/// Made by the loaders ([`load_npy`](crate::interop::load_npy),
/// [`SafeTensorsFile`](crate::interop::SafeTensorsFile)) or from any `Tensor<T>` with `into()`;
/// turned back into a typed tensor with [`DynTensor::into_tensor`] (or `TryFrom`), or
/// borrowed as one with [`DynTensor::as_tensor`]. Neither copies.
///
/// ```
/// use stridex::interop::DynTensor;
/// use stridex::{DType, Tensor};
///
/// let d: DynTensor = Tensor::from_vec(vec![1i32, 2, 3], &[3])?.into();
/// assert_eq!((d.dtype(), d.shape()), (DType::I32, &[3][..]));
/// assert_eq!(d.as_tensor::<i32>()?.to_vec(), vec![1, 2, 3]);
/// assert!(d.as_tensor::<f32>().is_err()); // holds i32, not f32
/// let t: Tensor<i32> = d.try_into()?;
/// assert_eq!(t.numel(), 3);
/// # Ok::<(), stridex::Error>(())
/// ```
#[derive(Clone)]
#[allow(missing_docs)] // one variant per element type, named as `DType`
pub enum DynTensor {
    F16(Tensor<f16>),
    BF16(Tensor<bf16>),
    F32(Tensor<f32>),
    F64(Tensor<f64>),
    I8(Tensor<i8>),
    I16(Tensor<i16>),
    I32(Tensor<i32>),
    I64(Tensor<i64>),
    U8(Tensor<u8>),
    U16(Tensor<u16>),
    U32(Tensor<u32>),
    U64(Tensor<u64>),
}

/// Runs `$body` with `$t` bound to the typed tensor inside `$value`, whatever its variant.
macro_rules! each_dtype {
    ($value:expr, $t:ident => $body:expr) => {
        match $value {
            DynTensor::F16($t) => $body,
            DynTensor::BF16($t) => $body,
            DynTensor::F32($t) => $body,
            DynTensor::F64($t) => $body,
            DynTensor::I8($t) => $body,
            DynTensor::I16($t) => $body,
            DynTensor::I32($t) => $body,
            DynTensor::I64($t) => $body,
            DynTensor::U8($t) => $body,
            DynTensor::U16($t) => $body,
            DynTensor::U32($t) => $body,
            DynTensor::U64($t) => $body,
        }
    };
}
// Used by the file formats; a build with only `dlpack` has none.
#[allow(unused_imports)]
pub(crate) use each_dtype;

/// `value` as a `U`, if `T` and `U` are the same type (no copy: the value is moved).
fn same_type<T: 'static, U: 'static>(value: T) -> Option<U> {
    let mut slot = Some(value);
    (&mut slot as &mut dyn Any)
        .downcast_mut::<Option<U>>()
        .and_then(Option::take)
}

impl DynTensor {
    /// The element type held.
    ///
    /// ```
    /// let d = stridex::interop::DynTensor::from(stridex::Tensor::<half::bf16>::zeros(&[2])?);
    /// assert_eq!(d.dtype(), stridex::DType::BF16);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn dtype(&self) -> DType {
        match self {
            DynTensor::F16(_) => DType::F16,
            DynTensor::BF16(_) => DType::BF16,
            DynTensor::F32(_) => DType::F32,
            DynTensor::F64(_) => DType::F64,
            DynTensor::I8(_) => DType::I8,
            DynTensor::I16(_) => DType::I16,
            DynTensor::I32(_) => DType::I32,
            DynTensor::I64(_) => DType::I64,
            DynTensor::U8(_) => DType::U8,
            DynTensor::U16(_) => DType::U16,
            DynTensor::U32(_) => DType::U32,
            DynTensor::U64(_) => DType::U64,
        }
    }

    /// The size of each dim.
    ///
    /// ```
    /// let d = stridex::interop::DynTensor::from(stridex::Tensor::<u8>::zeros(&[2, 5])?);
    /// assert_eq!(d.shape(), &[2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn shape(&self) -> &[usize] {
        each_dtype!(self, t => t.shape())
    }

    /// Number of elements.
    ///
    /// ```
    /// let d = stridex::interop::DynTensor::from(stridex::Tensor::<u8>::zeros(&[2, 5])?);
    /// assert_eq!(d.numel(), 10);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn numel(&self) -> usize {
        each_dtype!(self, t => t.numel())
    }

    /// Number of dims.
    ///
    /// ```
    /// let d = stridex::interop::DynTensor::from(stridex::Tensor::<u8>::zeros(&[2, 5])?);
    /// assert_eq!(d.ndim(), 2);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn ndim(&self) -> usize {
        each_dtype!(self, t => t.ndim())
    }

    /// The typed tensor, borrowed.
    ///
    /// # Errors
    /// [`Error::DTypeMismatch`] if the tensor holds another element type than `T`.
    ///
    /// ```
    /// let d = stridex::interop::DynTensor::from(stridex::Tensor::from_vec(vec![1.5f64], &[1])?);
    /// assert_eq!(d.as_tensor::<f64>()?.get(&[0])?, 1.5);
    /// let err = d.as_tensor::<f32>().unwrap_err();
    /// assert!(err.to_string().starts_with("as_tensor: the tensor holds f64 elements, not f32"));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn as_tensor<T: Element>(&self) -> Result<&Tensor<T>> {
        self.as_typed("as_tensor")
    }

    /// [`DynTensor::as_tensor`] for a caller whose error names `op`, the method the user
    /// called (such as `SafeTensorsFile::tensor`).
    pub(crate) fn as_typed<T: Element>(&self, op: &'static str) -> Result<&Tensor<T>> {
        let got = self.dtype();
        each_dtype!(self, t => (t as &dyn Any).downcast_ref::<Tensor<T>>())
            .ok_or_else(|| mismatch::<T>(op, got))
    }

    /// The typed tensor, by value (no copy).
    ///
    /// # Errors
    /// [`Error::DTypeMismatch`] if the tensor holds another element type than `T`.
    ///
    /// ```
    /// let d = stridex::interop::DynTensor::from(stridex::Tensor::from_vec(vec![7u16], &[1])?);
    /// assert!(d.clone().into_tensor::<i16>().is_err());
    /// assert_eq!(d.into_tensor::<u16>()?.to_vec(), vec![7]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn into_tensor<T: Element>(self) -> Result<Tensor<T>> {
        self.into_typed("into_tensor")
    }

    /// [`DynTensor::into_tensor`] for a caller whose error names `op`.
    fn into_typed<T: Element>(self, op: &'static str) -> Result<Tensor<T>> {
        let got = self.dtype();
        each_dtype!(self, t => same_type::<_, Tensor<T>>(t)).ok_or_else(|| mismatch::<T>(op, got))
    }
}

fn mismatch<T: Element>(op: &'static str, got: DType) -> Error {
    Error::DTypeMismatch {
        op,
        expected: T::DTYPE,
        got,
    }
}

impl<T: Element> From<Tensor<T>> for DynTensor {
    fn from(t: Tensor<T>) -> DynTensor {
        // `Element` is sealed to exactly the twelve types below, so one of them matches.
        macro_rules! pick {
            ($($ty:ty => $v:ident),*) => {$(
                if let Some(t) = same_type::<Tensor<T>, Tensor<$ty>>(t) {
                    return DynTensor::$v(t);
                }
            )*};
        }
        match T::DTYPE {
            DType::F16 => pick!(f16 => F16),
            DType::BF16 => pick!(bf16 => BF16),
            DType::F32 => pick!(f32 => F32),
            DType::F64 => pick!(f64 => F64),
            DType::I8 => pick!(i8 => I8),
            DType::I16 => pick!(i16 => I16),
            DType::I32 => pick!(i32 => I32),
            DType::I64 => pick!(i64 => I64),
            DType::U8 => pick!(u8 => U8),
            DType::U16 => pick!(u16 => U16),
            DType::U32 => pick!(u32 => U32),
            DType::U64 => pick!(u64 => U64),
        }
        unreachable!(
            "Element is sealed: {} is one of the DynTensor variants",
            T::DTYPE
        )
    }
}

impl<T: Element> TryFrom<DynTensor> for Tensor<T> {
    type Error = Error;

    fn try_from(d: DynTensor) -> Result<Tensor<T>> {
        d.into_typed("try_from")
    }
}

impl fmt::Debug for DynTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        each_dtype!(self, t => fmt::Debug::fmt(t, f))
    }
}

impl fmt::Display for DynTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        each_dtype!(self, t => fmt::Display::fmt(t, f))
    }
}

/// Anything the savers accept: a `Tensor<T>` of any element type, or a [`DynTensor`].
///
/// It lets one call save tensors of different element types:
/// `&[("w", &weights), ("ids", &ids)]` is a `&[(&str, &dyn AsDynTensor)]` even when `weights`
/// is a `Tensor<f32>` and `ids` a `Tensor<i64>`. Converting clones the storage `Arc`, never
/// the elements.
///
/// ```
/// use stridex::interop::AsDynTensor;
/// use stridex::{DType, Tensor};
/// let w = Tensor::<f32>::zeros(&[2])?;
/// let ids = Tensor::<i64>::zeros(&[3])?;
/// let both: &[(&str, &dyn AsDynTensor)] = &[("w", &w), ("ids", &ids)];
/// assert_eq!(both[1].1.to_dyn().dtype(), DType::I64);
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait AsDynTensor {
    /// The tensor as a [`DynTensor`] sharing its storage.
    fn to_dyn(&self) -> DynTensor;
}

impl<T: Element> AsDynTensor for Tensor<T> {
    fn to_dyn(&self) -> DynTensor {
        self.clone().into()
    }
}

impl AsDynTensor for DynTensor {
    fn to_dyn(&self) -> DynTensor {
        self.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Element>(values: &[T]) {
        let t = Tensor::from_slice(values, &[values.len()]).unwrap();
        let d = DynTensor::from(t.clone());
        assert_eq!(d.dtype(), T::DTYPE);
        assert!(d.as_tensor::<T>().unwrap().shares_storage(&t));
        let back: Tensor<T> = d.try_into().unwrap();
        assert!(back.shares_storage(&t));
    }

    #[test]
    fn every_element_type_round_trips_without_a_copy() {
        round_trip(&[f16::ONE]);
        round_trip(&[bf16::ONE]);
        round_trip(&[1.0f32]);
        round_trip(&[1.0f64]);
        round_trip(&[1i8]);
        round_trip(&[1i16]);
        round_trip(&[1i32]);
        round_trip(&[1i64]);
        round_trip(&[1u8]);
        round_trip(&[1u16]);
        round_trip(&[1u32]);
        round_trip(&[1u64]);
    }

    #[test]
    fn the_wrong_type_is_refused_with_both_names() {
        let d = DynTensor::from(Tensor::<u32>::zeros(&[1]).unwrap());
        assert_eq!(
            d.clone().into_tensor::<i32>().unwrap_err(),
            Error::DTypeMismatch {
                op: "into_tensor",
                expected: DType::I32,
                got: DType::U32
            }
        );
        // Each error names the method the user called, never an internal path.
        let e = d.as_tensor::<u64>().unwrap_err();
        assert!(
            matches!(
                e,
                Error::DTypeMismatch {
                    op: "as_tensor",
                    ..
                }
            ),
            "{e:?}"
        );
        let e = Tensor::<f32>::try_from(d).unwrap_err();
        assert_eq!(
            e.to_string(),
            "try_from: the tensor holds u32 elements, not f32; ask for u32, or cast the u32 \
             tensor with .cast::<f32>()"
        );
    }
}
