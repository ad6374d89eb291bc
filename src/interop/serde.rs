//! `serde` support (feature `serde`): a tensor is a struct of its shape and its elements in
//! logical (row-major) order, whatever its layout.
//!
//! ```text
//! {"shape": [2, 3], "data": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]}
//! ```
//!
//! Strides, offset and storage are not part of the value: a transposed view serializes as the
//! transposed matrix, and deserializing gives a fresh row-major tensor on the `Vec` the
//! elements were read into (no second copy). Deserializing validates the pair: a shape whose
//! element count overflows, or a data length that is not that count, is an error naming both.
//!
//! `f16` and `bf16` elements are numbers (their `f32` values, exact) in human-readable formats
//! such as JSON, and `half`'s own 16-bit encoding in binary formats. JSON has no NaN or
//! infinity (serde_json writes `null`), so tensors holding them need a binary format (a NaN's
//! payload survives only there).
//!
//! # Exact floats in JSON: enable serde_json's `float_roundtrip`
//!
//! serde_json writes every `f32` / `f64` with enough digits to name it exactly, but by default
//! it reads numbers with a fast algorithm that can land one ulp off: about 29% of random
//! `f64` values come back changed. Tensors that must round-trip bit for bit through JSON need
//! that crate's `float_roundtrip` feature, in the Cargo.toml of the crate that calls
//! serde_json (stridex does not depend on serde_json for this feature, so cannot turn it on):
//!
//! ```toml
//! serde_json = { version = "1", features = ["float_roundtrip"] }
//! ```
//!
//! With it, every finite `f64`, `f32`, `f16` and `bf16` (subnormals and extremes included)
//! comes back with its exact bits; integers are exact either way.
//!
//! # Large tensors
//!
//! Serializing walks the tensor's layout and hands the elements one at a time, in logical
//! order, to a `SerializeSeq`: nothing is collected, so a view of any size (an expanded view
//! of 2^30 elements over one stored element, say) costs no memory beyond what the serializer
//! itself keeps. Write such tensors to a stream (`serde_json::to_writer` on a file or a
//! `BufWriter`): `serde_json::to_string` and `to_vec` build the whole text in memory first,
//! gigabytes for 2^30 elements, and a failed allocation aborts the process.

use std::fmt;
use std::marker::PhantomData;

use ::serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use ::serde::ser::{SerializeSeq, SerializeStruct};
use ::serde::{Deserialize, Deserializer, Serialize, Serializer};
use half::{bf16, f16};

use crate::element::{DType, Element};
use crate::layout::checked_numel;
use crate::tensor::Tensor;

/// Whether elements of `T` travel as `f32` numbers in a human-readable format.
fn as_f32<T: Element>(human_readable: bool) -> bool {
    human_readable && matches!(T::DTYPE, DType::F16 | DType::BF16)
}

fn to_f32<T: Element>(x: T) -> Option<f32> {
    match T::DTYPE {
        DType::F16 => bytemuck::try_cast::<T, f16>(x).ok().map(f16::to_f32),
        DType::BF16 => bytemuck::try_cast::<T, bf16>(x).ok().map(bf16::to_f32),
        _ => None,
    }
}

fn from_f32<T: Element>(x: f32) -> Option<T> {
    match T::DTYPE {
        DType::F16 => bytemuck::try_cast(f16::from_f32(x)).ok(),
        DType::BF16 => bytemuck::try_cast(bf16::from_f32(x)).ok(),
        _ => None,
    }
}

/// Serializes as `{shape, data}` with the elements in logical order; see the
/// [module docs](self).
///
/// ```
/// use stridex::Tensor;
/// let t = Tensor::arange(0i32, 6, 1)?.view(&[2, 3])?.t()?;
/// let json = serde_json::to_string(&t).unwrap();
/// assert_eq!(json, r#"{"shape":[3,2],"data":[0,3,1,4,2,5]}"#);
/// # Ok::<(), stridex::Error>(())
/// ```
impl<T: Element + Serialize> Serialize for Tensor<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let elements = Elements {
            tensor: self,
            as_f32: as_f32::<T>(serializer.is_human_readable()),
        };
        let mut s = serializer.serialize_struct("Tensor", 2)?;
        s.serialize_field("shape", self.shape())?;
        s.serialize_field("data", &elements)?;
        s.end()
    }
}

struct Elements<'a, T: Element> {
    tensor: &'a Tensor<T>,
    as_f32: bool,
}

impl<T: Element + Serialize> Serialize for Elements<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.tensor.numel()))?;
        // `Tensor::iter` walks the layout (an odometer over the strides): one element at a
        // time, never a copy of the tensor, so a huge broadcast view streams in constant memory
        // and a failing writer stops the walk at its first error.
        for x in self.tensor.iter() {
            match to_f32(x).filter(|_| self.as_f32) {
                Some(f) => seq.serialize_element(&f)?,
                None => seq.serialize_element(&x)?,
            }
        }
        seq.end()
    }
}

/// Deserializes `{shape, data}` (a map, or a sequence of the two in binary formats) into a
/// fresh row-major tensor, after checking that the shape's element count neither overflows
/// nor differs from the data's length.
///
/// ```
/// use stridex::Tensor;
/// let t: Tensor<f32> = serde_json::from_str(r#"{"shape": [2, 2], "data": [1, 2, 3, 4]}"#).unwrap();
/// assert_eq!(t.get(&[1, 0])?, 3.0);
/// let err = serde_json::from_str::<Tensor<f32>>(r#"{"shape": [2, 3], "data": [1, 2]}"#);
/// let msg = err.unwrap_err().to_string();
/// assert!(msg.contains(r#"the shape [2, 3] needs 6 elements in "data", but "data" has 2"#));
/// # Ok::<(), stridex::Error>(())
/// ```
impl<'de, T: Element + Deserialize<'de>> Deserialize<'de> for Tensor<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let as_f32 = as_f32::<T>(deserializer.is_human_readable());
        deserializer.deserialize_struct(
            "Tensor",
            FIELDS,
            TensorVisitor {
                as_f32,
                _t: PhantomData,
            },
        )
    }
}

const FIELDS: &[&str] = &["shape", "data"];

struct TensorVisitor<T> {
    as_f32: bool,
    _t: PhantomData<T>,
}

impl<T: Element> TensorVisitor<T> {
    fn build<E: de::Error>(shape: Vec<usize>, data: Vec<T>) -> Result<Tensor<T>, E> {
        let need = checked_numel(&shape);
        if need != Some(data.len()) {
            return Err(E::custom(numel_message::<T>(&shape, need, data.len())));
        }
        Tensor::from_vec(data, &shape).map_err(|e| E::custom(e.with_op("deserialize")))
    }
}

/// Why `shape` and a `data` of `have` elements do not make a tensor, as one sentence: what
/// was asked, what was found, what to do. Deserializers append the position (serde_json:
/// `" at line 1 column 25"`), so the message ends on a plain clause.
fn numel_message<T: Element>(shape: &[usize], need: Option<usize>, have: usize) -> String {
    let elements = |n: usize| format!("{n} element{}", if n == 1 { "" } else { "s" });
    let shape_text = format!("{shape:?}");
    let asked = format!("cannot deserialize a Tensor<{}>", T::DTYPE);
    match need {
        Some(_) if shape.is_empty() => format!(
            "{asked}: the shape is [] (0 dims, a scalar), which needs exactly 1 element in \
             \"data\", but \"data\" has {have}; give \"data\" one element, or the shape \
             [{have}] for a 1-dim tensor of {}",
            elements(have)
        ),
        Some(n) => format!(
            "{asked}: the shape {shape_text} needs {} in \"data\", but \"data\" has {have}; \
             give {}, or a shape whose sizes multiply to {have}",
            elements(n),
            elements(n)
        ),
        None => format!(
            "{asked}: the shape {shape_text} has a size or element count above isize::MAX, \
             which no tensor can hold; \"data\" has {}, so give a shape whose sizes multiply \
             to {have}",
            elements(have)
        ),
    }
}

impl<'de, T: Element + Deserialize<'de>> Visitor<'de> for TensorVisitor<T> {
    type Value = Tensor<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a tensor: a shape and {} elements in row-major order",
            T::DTYPE
        )
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tensor<T>, A::Error> {
        let shape: Vec<usize> = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let data = seq
            .next_element_seed(ElementsSeed::<T>::new(self.as_f32))?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        Self::build(shape, data)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tensor<T>, A::Error> {
        let (mut shape, mut data) = (None, None);
        while let Some(key) = map.next_key::<Field>()? {
            match key {
                Field::Shape if shape.is_some() => return Err(de::Error::duplicate_field("shape")),
                Field::Data if data.is_some() => return Err(de::Error::duplicate_field("data")),
                Field::Shape => shape = Some(map.next_value::<Vec<usize>>()?),
                Field::Data => data = Some(map.next_value_seed(ElementsSeed::new(self.as_f32))?),
            }
        }
        let shape = shape.ok_or_else(|| de::Error::missing_field("shape"))?;
        let data = data.ok_or_else(|| de::Error::missing_field("data"))?;
        Self::build(shape, data)
    }
}

/// The two field names; anything else is refused.
enum Field {
    Shape,
    Data,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl Visitor<'_> for FieldVisitor {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`shape` or `data`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
                match v {
                    "shape" => Ok(Field::Shape),
                    "data" => Ok(Field::Data),
                    other => Err(E::unknown_field(other, FIELDS)),
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Field, E> {
                match v {
                    0 => Ok(Field::Shape),
                    1 => Ok(Field::Data),
                    _ => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
                }
            }
        }
        deserializer.deserialize_identifier(FieldVisitor)
    }
}

/// Reads the element sequence, as `f32` numbers for `f16`/`bf16` in human-readable formats.
struct ElementsSeed<T> {
    as_f32: bool,
    _t: PhantomData<T>,
}

impl<T> ElementsSeed<T> {
    fn new(as_f32: bool) -> Self {
        ElementsSeed {
            as_f32,
            _t: PhantomData,
        }
    }
}

impl<'de, T: Element + Deserialize<'de>> DeserializeSeed<'de> for ElementsSeed<T> {
    type Value = Vec<T>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: Element + Deserialize<'de>> Visitor<'de> for ElementsSeed<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a sequence of {} elements", T::DTYPE)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        // Trust the length hint only so far: a hostile hint must not allocate.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        if self.as_f32 {
            while let Some(x) = seq.next_element::<f32>()? {
                out.push(from_f32(x).ok_or_else(|| de::Error::custom("not a 16-bit float"))?);
            }
        } else {
            while let Some(x) = seq.next_element::<T>()? {
                out.push(x);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_floats_are_numbers_in_json() {
        let t = Tensor::from_vec(vec![f16::from_f32(1.5), f16::from_f32(-0.25)], &[2]).unwrap();
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, r#"{"shape":[2],"data":[1.5,-0.25]}"#);
        let back: Tensor<f16> = serde_json::from_str(&json).unwrap();
        assert_eq!(back.to_vec(), t.to_vec());
    }

    #[test]
    fn shape_overflow_and_unknown_fields_are_refused() {
        let big = format!(r#"{{"shape":[{}, 4], "data":[]}}"#, usize::MAX);
        let e = serde_json::from_str::<Tensor<u8>>(&big)
            .unwrap_err()
            .to_string();
        assert!(e.contains("above isize::MAX"), "{e}");
        let e = serde_json::from_str::<Tensor<u8>>(r#"{"shape":[1],"data":[1],"x":0}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `x`"), "{e}");
        let e = serde_json::from_str::<Tensor<u8>>(r#"{"data":[1]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing field `shape`"), "{e}");
    }
}
