//! serde: random views of every element type round-trip through JSON as shape + logical-order
//! elements, and deserialization refuses inconsistent input with clear errors.
#![cfg(feature = "serde")]

use crate::interop_common;

use half::{bf16, f16};
use interop_common::{Recipe, Sample, arb_recipe, config};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use stridex::Tensor;

fn round_trip<T: Sample + Serialize + DeserializeOwned>(r: &Recipe) -> Result<(), TestCaseError> {
    let t = r.exact::<T>();
    let json = serde_json::to_string(&t).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    // The value is exactly the shape and the elements in logical order.
    prop_assert_eq!(value["shape"].as_array().unwrap().len(), t.ndim());
    prop_assert_eq!(value["data"].as_array().unwrap().len(), t.numel());
    let back: Tensor<T> = serde_json::from_str(&json).unwrap();
    prop_assert_eq!(back.shape(), t.shape());
    prop_assert_eq!(back.to_vec(), t.to_vec());
    prop_assert!(back.is_contiguous());
    Ok(())
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn random_views_round_trip_through_json(r in arb_recipe()) {
        round_trip::<f16>(&r)?;
        round_trip::<bf16>(&r)?;
        round_trip::<f32>(&r)?;
        round_trip::<f64>(&r)?;
        round_trip::<i8>(&r)?;
        round_trip::<i16>(&r)?;
        round_trip::<i32>(&r)?;
        round_trip::<i64>(&r)?;
        round_trip::<u8>(&r)?;
        round_trip::<u16>(&r)?;
        round_trip::<u32>(&r)?;
        round_trip::<u64>(&r)?;
    }

    /// Any shape and any data length: a tensor exactly when they agree.
    #[test]
    fn shape_and_length_must_agree(shape in prop::collection::vec(0usize..5, 0..4), len in 0usize..80) {
        let json = format!(r#"{{"shape":{:?},"data":{:?}}}"#, shape, vec![1u8; len]);
        let need: usize = shape.iter().product();
        match serde_json::from_str::<Tensor<u8>>(&json) {
            Ok(t) => {
                prop_assert_eq!(need, len);
                prop_assert_eq!(t.shape(), &shape[..]);
            }
            Err(e) => {
                prop_assert!(need != len);
                let msg = e.to_string();
                let want = if shape.is_empty() {
                    format!(r#"the shape is [] (0 dims, a scalar), which needs exactly 1 element in "data", but "data" has {len}"#)
                } else {
                    let s = if need == 1 { "" } else { "s" };
                    format!(r#"the shape {shape:?} needs {need} element{s} in "data", but "data" has {len}"#)
                };
                prop_assert!(msg.starts_with("cannot deserialize a Tensor<u8>: "), "{}", msg);
                prop_assert!(msg.contains(&want), "{}", msg);
            }
        }
    }
}

#[test]
fn the_serialized_form_is_shape_and_logical_data() {
    let t = Tensor::arange(0u8, 6, 1)
        .unwrap()
        .view(&[2, 3])
        .unwrap()
        .flip(1)
        .unwrap();
    assert_eq!(
        serde_json::to_string(&t).unwrap(),
        r#"{"shape":[2,3],"data":[2,1,0,5,4,3]}"#
    );
    let s = Tensor::from_vec(vec![2.5f64], &[]).unwrap();
    assert_eq!(
        serde_json::to_string(&s).unwrap(),
        r#"{"shape":[],"data":[2.5]}"#
    );
    let e = Tensor::<u8>::zeros(&[1]).unwrap().expand(&[3]).unwrap();
    assert_eq!(
        serde_json::to_string(&e).unwrap(),
        r#"{"shape":[3],"data":[0,0,0]}"#
    );
}

#[test]
fn bad_input_is_refused_with_a_clear_error() {
    let cases = [
        (
            r#"{"shape":[2,2],"data":[1,2,3]}"#,
            r#"the shape [2, 2] needs 4 elements in "data", but "data" has 3; give 4 elements, or a shape whose sizes multiply to 3"#,
        ),
        (
            r#"{"shape":[18446744073709551615,2],"data":[]}"#,
            "above isize::MAX",
        ),
        (
            r#"{"shape":[2],"data":[1,2],"shape":[2]}"#,
            "duplicate field `shape`",
        ),
        (r#"{"shape":[2]}"#, "missing field `data`"),
        (
            r#"{"shape":[2],"data":[1,2],"strides":[1]}"#,
            "unknown field `strides`",
        ),
        (r#"{"shape":[-1],"data":[]}"#, "invalid value"),
        (r#"{"shape":[1],"data":[300]}"#, "invalid value"),
        (r#"{"shape":[1],"data":["x"]}"#, "invalid type"),
        (r#"[[2],[1,2]]"#, ""),
    ];
    for (json, want) in cases {
        let r = serde_json::from_str::<Tensor<u8>>(json);
        if want.is_empty() {
            // The sequence form (used by binary formats) is accepted too.
            assert_eq!(r.unwrap().to_vec(), vec![1, 2]);
        } else {
            let e = r.unwrap_err().to_string();
            assert!(e.contains(want), "{json}: {e}");
        }
    }
}

#[test]
fn a_0_dim_shape_with_the_wrong_data_length_reads_as_a_sentence() {
    let cases = [
        (
            r#"{"shape":[],"data":[1,2]}"#,
            r#"cannot deserialize a Tensor<u8>: the shape is [] (0 dims, a scalar), which needs exactly 1 element in "data", but "data" has 2; give "data" one element, or the shape [2] for a 1-dim tensor of 2 elements at line 1 column 25"#,
        ),
        (
            r#"{"shape":[],"data":[]}"#,
            r#"cannot deserialize a Tensor<u8>: the shape is [] (0 dims, a scalar), which needs exactly 1 element in "data", but "data" has 0; give "data" one element, or the shape [0] for a 1-dim tensor of 0 elements at line 1 column 22"#,
        ),
        (
            r#"[[],[1,2]]"#,
            r#"the shape is [] (0 dims, a scalar), which needs exactly 1 element in "data", but "data" has 2"#,
        ),
        (
            r#"{"shape":[1,1],"data":[]}"#,
            r#"cannot deserialize a Tensor<u8>: the shape [1, 1] needs 1 element in "data", but "data" has 0; give 1 element, or a shape whose sizes multiply to 0"#,
        ),
        (
            r#"{"shape":[0],"data":[1]}"#,
            r#"the shape [0] needs 0 elements in "data", but "data" has 1; give 0 elements, or a shape whose sizes multiply to 1"#,
        ),
    ];
    for (json, want) in cases {
        let e = serde_json::from_str::<Tensor<u8>>(json)
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{json}:\n{e}\n{want}");
        // No internal names, no "1 elements".
        assert!(
            !e.contains("Tensor::deserialize") && !e.contains(" 1 elements"),
            "{e}"
        );
    }
    // The right count for a 0-dim tensor is one element.
    let t: Tensor<u8> = serde_json::from_str(r#"{"shape":[],"data":[7]}"#).unwrap();
    assert_eq!((t.shape(), t.get(&[]).unwrap()), (&[][..], 7));
}

/// A small deterministic generator (xorshift64*), so the test needs no extra crate.
struct Bits(u64);

impl Bits {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// With serde_json's `float_roundtrip` (enabled in this crate's dev-dependencies, as the
/// module docs tell users to), every finite f64 comes back with its exact bits. Without it,
/// about 29% of these random values came back one ulp off.
#[test]
fn f64_round_trips_bit_exactly_through_json() {
    let mut rng = Bits(0x9e37_79b9_7f4a_7c15);
    let mut values: Vec<f64> = vec![
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::from_bits(1), // the smallest subnormal
        -f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff), // the largest subnormal
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        1.0 / 3.0,
        0.1,
        9007199254740994.0,                    // 2^53 + 2
        f64::from_bits(0x0010_0000_0000_0001), // just above the smallest normal
    ];
    while values.len() < 100_000 {
        let bits = rng.next();
        // Every third value a subnormal (exponent bits cleared), the rest any finite value.
        let bits = if values.len() % 3 == 0 {
            bits & 0x800f_ffff_ffff_ffff
        } else {
            bits
        };
        let x = f64::from_bits(bits);
        if x.is_finite() {
            values.push(x);
        }
    }
    let t = Tensor::from_vec(values.clone(), &[values.len() / 4, 4]).unwrap();
    let json = serde_json::to_string(&t.t().unwrap()).unwrap();
    let back: Tensor<f64> = serde_json::from_str(&json).unwrap();
    let back = back.t().unwrap().to_vec();
    let changed = values
        .iter()
        .zip(&back)
        .filter(|(a, b)| a.to_bits() != b.to_bits())
        .count();
    assert_eq!(changed, 0, "{changed} of {} f64 changed", values.len());
}

#[test]
fn f32_and_half_floats_round_trip_bit_exactly_through_json() {
    let mut rng = Bits(0x0123_4567_89ab_cdef);
    let mut values: Vec<f32> = vec![
        f32::from_bits(1),
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        -0.0,
    ];
    while values.len() < 50_000 {
        let x = f32::from_bits(rng.next() as u32);
        if x.is_finite() {
            values.push(x);
        }
    }
    let t = Tensor::from_vec(values.clone(), &[values.len()]).unwrap();
    let back: Tensor<f32> = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
    assert_eq!(
        back.to_vec()
            .iter()
            .map(|x| x.to_bits())
            .collect::<Vec<_>>(),
        values.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    // Every finite f16 and bf16 bit pattern.
    let halves: Vec<f16> = (0..=u16::MAX)
        .map(f16::from_bits)
        .filter(|x| x.is_finite())
        .collect();
    let t = Tensor::from_vec(halves.clone(), &[halves.len()]).unwrap();
    let back: Tensor<f16> = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
    assert!(
        back.to_vec()
            .iter()
            .zip(&halves)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );
    let brains: Vec<bf16> = (0..=u16::MAX)
        .map(bf16::from_bits)
        .filter(|x| x.is_finite())
        .collect();
    let t = Tensor::from_vec(brains.clone(), &[brains.len()]).unwrap();
    let back: Tensor<bf16> = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
    assert!(
        back.to_vec()
            .iter()
            .zip(&brains)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );
}

/// A writer that takes `limit` bytes, then fails.
struct Limited {
    written: usize,
    limit: usize,
}

impl std::io::Write for Limited {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.written + buf.len() > self.limit {
            return Err(std::io::Error::other("the test writer is full"));
        }
        self.written += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_huge_expanded_view_streams_and_stops_at_the_writer_error() {
    // 2^30 elements over one stored f32: 4 GiB if collected, more as JSON text.
    let huge = Tensor::<f32>::zeros(&[1])
        .unwrap()
        .expand(&[1usize << 30])
        .unwrap();
    let mut w = Limited {
        written: 0,
        limit: 16 << 10,
    };
    let e = serde_json::to_writer(&mut w, &huge).unwrap_err();
    assert!(e.is_io(), "{e}");
    assert!(e.to_string().contains("the test writer is full"), "{e}");
    assert!(
        w.written > (16 << 10) - 16 && w.written <= 16 << 10,
        "{}",
        w.written
    );
    // The same for a 2-dim broadcast of a half-float row, which travels as f32 numbers.
    let row = Tensor::from_vec(vec![half::bf16::ONE; 4], &[4]).unwrap();
    let wide = row.expand(&[1usize << 28, 4]).unwrap();
    let mut w = Limited {
        written: 0,
        limit: 4096,
    };
    assert!(serde_json::to_writer(&mut w, &wide).unwrap_err().is_io());
}

#[test]
fn an_expanded_view_is_written_whole_to_a_counting_writer() {
    let n = 1usize << 18;
    let e = Tensor::from_vec(vec![7u8], &[1])
        .unwrap()
        .expand(&[n])
        .unwrap();
    let mut w = Limited {
        written: 0,
        limit: usize::MAX,
    };
    serde_json::to_writer(&mut w, &e).unwrap();
    // {"shape":[n],"data":[7,7,...,7]}: each element one digit and a comma but the last.
    let head = format!(r#"{{"shape":[{n}],"data":["#).len();
    assert_eq!(w.written, head + 2 * n - 1 + 2);
}
