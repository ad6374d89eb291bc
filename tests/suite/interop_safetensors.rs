//! `.safetensors` files: random views of mixed element types round-trip, loaded tensors read
//! the file's bytes in place (copied only when misaligned), and every malformed file is an
//! error, never a panic, including headers fuzzed from their parts.
#![cfg(feature = "safetensors")]

use crate::interop_common;

use std::sync::Arc;

use half::{bf16, f16};
use interop_common::{arb_recipe, bits, config, scratch};
use proptest::prelude::*;
use stridex::interop::{
    AsDynTensor, SafeTensorsFile, load_safetensors, map_safetensors, save_safetensors,
    save_safetensors_with_metadata,
};
use stridex::{Error, Tensor};

/// A file from a header text and data bytes.
fn file(header: &str, data: &[u8]) -> Vec<u8> {
    let mut f = (header.len() as u64).to_le_bytes().to_vec();
    f.extend_from_slice(header.as_bytes());
    f.extend_from_slice(data);
    f
}

fn parse(bytes: Vec<u8>) -> Result<SafeTensorsFile, Error> {
    SafeTensorsFile::from_bytes(Arc::new(bytes))
}

fn saved(tensors: &[(&str, &dyn AsDynTensor)]) -> Vec<u8> {
    let path = scratch("saved.safetensors");
    save_safetensors(&path, tensors).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    bytes
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn random_views_of_mixed_types_round_trip(r1 in arb_recipe(), r2 in arb_recipe(), r3 in arb_recipe()) {
        let a = r1.random::<f32>();
        let b = r2.random::<bf16>();
        let c = r3.random::<i64>();
        let d = r1.random::<u8>();
        let e = r2.random::<f16>();
        let path = scratch("round.safetensors");
        save_safetensors(&path, &[("a", &a), ("b", &b), ("c", &c), ("d", &d), ("e.x", &e)]).unwrap();
        let file = load_safetensors(&path).unwrap();
        prop_assert_eq!(file.len(), 5);
        let a2 = file.tensor::<f32>("a").unwrap();
        prop_assert_eq!(a2.shape(), a.shape());
        prop_assert_eq!(bits(&a2.to_vec()), bits(&a.to_vec()));
        prop_assert_eq!(bits(&file.tensor::<bf16>("b").unwrap().to_vec()), bits(&b.to_vec()));
        prop_assert_eq!(file.tensor::<i64>("c").unwrap().to_vec(), c.to_vec());
        prop_assert_eq!(file.tensor::<u8>("d").unwrap().to_vec(), d.to_vec());
        prop_assert_eq!(bits(&file.tensor::<f16>("e.x").unwrap().to_vec()), bits(&e.to_vec()));
        // Every non-empty tensor reads the loaded bytes in place (the safetensors writer aligns
        // each one to its element type).
        for (name, t) in file.iter() {
            if t.numel() > 0 {
                let foreign = match t {
                    stridex::interop::DynTensor::F32(t) => !t.storage().is_writable(),
                    stridex::interop::DynTensor::BF16(t) => !t.storage().is_writable(),
                    stridex::interop::DynTensor::I64(t) => !t.storage().is_writable(),
                    stridex::interop::DynTensor::U8(t) => !t.storage().is_writable(),
                    stridex::interop::DynTensor::F16(t) => !t.storage().is_writable(),
                    _ => false,
                };
                prop_assert!(foreign, "{} was copied", name);
            }
        }
        // The mapped file gives the same tensors.
        // SAFETY: this test alone uses the file, and removes it only after the tensors are gone.
        let mapped = unsafe { map_safetensors(&path) }.unwrap();
        prop_assert_eq!(bits(&mapped.tensor::<f32>("a").unwrap().to_vec()), bits(&a.to_vec()));
        drop((file, mapped, a2));
        std::fs::remove_file(&path).unwrap();
    }

    /// Headers built from the tokens a header is made of: the parser answers every one with
    /// tensors inside the file or an error.
    #[test]
    fn random_headers_never_panic(
        tokens in prop::collection::vec(0usize..TOKENS.len(), 0..48),
        data_len in 0usize..40,
    ) {
        let header: String = tokens.iter().map(|&i| TOKENS[i]).collect();
        let f = file(&header, &vec![7u8; data_len]);
        if let Ok(file) = parse(f) {
            let total: usize = file.iter().map(|(_, t)| t.numel() * t.dtype().size()).sum();
            prop_assert_eq!(total, data_len);
        }
    }

    /// Structurally plausible headers with random dtypes, shapes and offsets.
    #[test]
    fn random_entries_are_validated(
        entries in prop::collection::vec(
            (0usize..DTYPES.len(), prop::collection::vec(0usize..4, 0..3), 0usize..40, 0usize..40),
            0..4,
        ),
        data_len in 0usize..64,
    ) {
        let body: Vec<String> = entries
            .iter()
            .enumerate()
            .map(|(i, (d, shape, s, e))| {
                format!(
                    r#""t{i}":{{"dtype":"{}","shape":{:?},"data_offsets":[{s},{e}]}}"#,
                    DTYPES[*d], shape
                )
            })
            .collect();
        let header = format!("{{{}}}", body.join(","));
        if let Ok(file) = parse(file(&header, &vec![1u8; data_len])) {
            let total: usize = file.iter().map(|(_, t)| t.numel() * t.dtype().size()).sum();
            prop_assert_eq!(total, data_len);
            for (_, t) in file.iter() {
                prop_assert_eq!(t.numel(), t.shape().iter().product::<usize>());
            }
        }
    }

    /// Random bytes written over, or cut off, a valid file.
    #[test]
    fn corrupted_files_never_panic(
        edits in prop::collection::vec((0usize..400, any::<u8>()), 1..6),
        cut in 0usize..500,
    ) {
        let x = Tensor::<f32>::zeros(&[3, 4]).unwrap();
        let y = Tensor::<i16>::zeros(&[5]).unwrap();
        let mut f = saved(&[("x", &x), ("y", &y)]);
        for (at, b) in edits {
            let n = f.len();
            f[at % n] = b;
        }
        f.truncate(cut.max(1));
        if let Ok(file) = parse(f) {
            for (_, t) in file.iter() {
                prop_assert!(t.numel() <= 12);
            }
        }
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "\"x\"",
    "\"y\"",
    ":",
    ",",
    "[",
    "]",
    "\"dtype\"",
    "\"shape\"",
    "\"data_offsets\"",
    "\"F32\"",
    "\"U8\"",
    "\"BOOL\"",
    "\"F8_E4M3\"",
    "0",
    "1",
    "4",
    "8",
    "18446744073709551615",
    "-1",
    "\"__metadata__\"",
    "\"a\"",
    " ",
    "null",
    "1.5",
    "\"",
];

const DTYPES: &[&str] = &[
    "U8", "I8", "BOOL", "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "F64", "I64", "U64",
    "F8_E5M2", "C64", "Q4",
];

fn malformed(bytes: Vec<u8>, want: &str) {
    match parse(bytes) {
        Err(e @ Error::MalformedFile { .. }) => {
            assert!(e.to_string().contains(want), "{want}: {e}")
        }
        other => panic!("{want}: {other:?}"),
    }
}

#[test]
fn malformed_files_are_errors_that_say_why() {
    let entry = |dtype: &str, shape: &str, s: usize, e: usize| {
        format!(r#""w":{{"dtype":"{dtype}","shape":{shape},"data_offsets":[{s},{e}]}}"#)
    };
    let w = entry("F32", "[2]", 0, 8);
    // Truncated: too short for the length field, a header cut short, data cut short.
    malformed(vec![1, 0, 0], "shorter than the 8-byte header length");
    malformed(
        file(&format!("{{{w}}}"), &[0; 8])[..20].to_vec(),
        "truncated",
    );
    malformed(
        file(&format!("{{{w}}}"), &[0; 7]),
        "cover 8 data bytes but the file has 7",
    );
    malformed(file(&format!("{{{w}}}"), &[0; 9]), "trailing bytes");
    // Bad header JSON, and a header that is not UTF-8.
    malformed(file("{\"w\":", &[]), "JSON header is not valid");
    malformed(file("not json", &[]), "JSON header is not valid");
    let mut f = file("{}", &[]);
    f[8] = 0xFF;
    malformed(f, "not UTF-8");
    // An absurd length field.
    let mut f = file("{}", &[]);
    f[..8].copy_from_slice(&u64::MAX.to_le_bytes());
    malformed(f, "above the format's limit");
    // Offsets out of range, overlapping, or leaving a gap.
    malformed(
        file(&format!("{{{}}}", entry("F32", "[2]", 0, 16)), &[0; 8]),
        "invalid",
    );
    let two = format!(
        "{{{},{}}}",
        entry("F32", "[2]", 0, 8),
        r#""v":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}"#
    );
    malformed(file(&two, &[0; 12]), "invalid offset");
    let gap = format!(
        "{{{},{}}}",
        entry("U8", "[2]", 0, 2),
        r#""v":{"dtype":"U8","shape":[2],"data_offsets":[4,6]}"#
    );
    malformed(file(&gap, &[0; 6]), "invalid offset");
    // Shape and length disagree; an unknown dtype name; a size that overflows.
    malformed(
        file(&format!("{{{}}}", entry("F32", "[3]", 0, 8)), &[0; 8]),
        "invalid",
    );
    malformed(
        file(&format!("{{{}}}", entry("F33", "[2]", 0, 8)), &[0; 8]),
        "JSON header is not valid",
    );
    let huge = entry("F64", "[4294967296,4294967296,4294967296]", 0, 8);
    malformed(
        file(&format!("{{{huge}}}"), &[0; 8]),
        "JSON header is not valid",
    );
    // Offsets that add up to nearly usize::MAX (their sum with the header length overflows).
    let m = usize::MAX / 8;
    let near: Vec<String> = (0..8)
        .map(|i| {
            format!(
                r#""t{i}":{{"dtype":"U8","shape":[{m}],"data_offsets":[{},{}]}}"#,
                i * m,
                (i + 1) * m
            )
        })
        .collect();
    malformed(
        file(&format!("{{{}}}", near.join(",")), &[0; 8]),
        "data bytes",
    );
}

#[test]
fn dtypes_stridex_lacks_are_unsupported_and_bool_is_u8() {
    let h = r#"{"q":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}}"#;
    let e = parse(file(h, &[0, 0])).unwrap_err();
    assert!(
        matches!(&e, Error::UnsupportedDType { dtype, .. } if dtype.contains("F8_E4M3") && dtype.contains("\"q\"")),
        "{e}"
    );
    let h = r#"{"m":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}}"#;
    let f = parse(file(h, &[1, 0, 1])).unwrap();
    assert_eq!(f.tensor::<u8>("m").unwrap().to_vec(), vec![1, 0, 1]);
}

#[test]
fn misaligned_tensors_are_copied_and_aligned_ones_are_not() {
    // A 9-byte header puts the data at byte 17 of an 8-aligned buffer: an f32 there is
    // misaligned, so it is copied; the u8 next to it is read in place.
    let h = r#"{"f":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"U8","shape":[1],"data_offsets":[8,9]}}"#;
    let pad = (1 + 8 - (8 + h.len()) % 8) % 8;
    let header = format!("{h}{}", " ".repeat(pad));
    assert_eq!((8 + header.len()) % 8, 1);
    let mut data = bits(&[1.5f32, -2.0]);
    data.push(42);
    let path = scratch("misaligned.safetensors");
    std::fs::write(&path, file(&header, &data)).unwrap();
    let loaded = load_safetensors(&path).unwrap();
    let f = loaded.tensor::<f32>("f").unwrap();
    assert_eq!(f.to_vec(), vec![1.5, -2.0]);
    assert!(f.storage().is_writable(), "a misaligned tensor is a copy");
    let b = loaded.tensor::<u8>("b").unwrap();
    assert_eq!(b.to_vec(), vec![42]);
    assert!(
        !b.storage().is_writable(),
        "an aligned tensor is read in place"
    );
    // Writing to a tensor read in place copies it; the loaded bytes are untouched.
    let mut b2 = b.clone();
    drop(b);
    b2.set(&[0], 7).unwrap();
    assert_eq!(loaded.tensor::<u8>("b").unwrap().to_vec(), vec![42]);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn loaded_tensors_are_not_64_byte_aligned_until_to_aligned() {
    let w = Tensor::arange(0.0f32, 8.0, 1.0).unwrap();
    let ids = Tensor::from_vec(vec![1i64, 2], &[2]).unwrap();
    let f = parse(saved(&[("w", &w), ("ids", &ids)])).unwrap();
    let w2 = f.tensor::<f32>("w").unwrap();
    let a = w2.to_aligned().unwrap();
    assert!(a.storage().is_aligned() && a.storage().is_writable());
    assert_eq!(a.to_vec(), w.to_vec());
}

#[test]
fn names_metadata_and_errors_for_missing_tensors() {
    let h =
        r#"{"__metadata__":{"format":"pt"},"b":{"dtype":"I32","shape":[],"data_offsets":[0,4]}}"#;
    let f = parse(file(h, &bits(&[-3i32]))).unwrap();
    assert_eq!(f.names().collect::<Vec<_>>(), ["b"]);
    assert_eq!(f.metadata().get("format").map(String::as_str), Some("pt"));
    assert_eq!(f.tensor::<i32>("b").unwrap().get(&[]).unwrap(), -3);
    let e = f.tensor::<i32>("c").unwrap_err();
    assert!(
        e.to_string()
            .contains("no tensor named \"c\"; it has [\"b\"]"),
        "{e}"
    );
    // The dtype error names the method called, not the DynTensor accessor behind it.
    let e = f.tensor::<u32>("b").unwrap_err();
    assert!(matches!(e, Error::DTypeMismatch { .. }), "{e:?}");
    assert!(
        e.to_string().starts_with(
            "SafeTensorsFile::tensor: the tensor holds i32 elements, not u32; ask for i32"
        ),
        "{e}"
    );
    assert!(!e.to_string().contains("DynTensor"), "{e}");
    let missing = scratch("missing.safetensors");
    assert!(matches!(load_safetensors(&missing), Err(Error::Io { .. })));
}

#[test]
fn empty_tensors_and_empty_files() {
    let z = Tensor::<f64>::zeros(&[0, 3]).unwrap();
    let s = Tensor::from_vec(vec![5u16], &[]).unwrap();
    let f = parse(saved(&[("z", &z), ("s", &s)])).unwrap();
    assert_eq!(f.tensor::<f64>("z").unwrap().shape(), &[0, 3]);
    assert_eq!(f.tensor::<u16>("s").unwrap().get(&[]).unwrap(), 5);
    let f = parse(saved(&[])).unwrap();
    assert!(f.is_empty());
}

#[test]
fn a_tensor_named_metadata_is_refused_and_nothing_is_written() {
    let t = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
    let path = scratch("reserved.safetensors");
    let e = save_safetensors(&path, &[("__metadata__", &t)]).unwrap_err();
    let Error::InvalidArgument { op, message } = &e else {
        panic!("{e:?}");
    };
    assert_eq!(*op, "save_safetensors");
    // What was asked, why it cannot be, what to do.
    assert!(
        message.contains("a tensor is named \"__metadata__\""),
        "{e}"
    );
    assert!(message.contains("keeps the file's string metadata"), "{e}");
    assert!(message.contains("give the tensor another name"), "{e}");
    assert!(message.contains("save_safetensors_with_metadata"), "{e}");
    assert!(!path.exists());
    // Among other tensors, and through the metadata writer too.
    assert!(save_safetensors(&path, &[("w", &t), ("__metadata__", &t)]).is_err());
    let e = save_safetensors_with_metadata(&path, &[("__metadata__", &t)], [("k", "v")]);
    assert!(
        matches!(
            &e,
            Err(Error::InvalidArgument {
                op: "save_safetensors_with_metadata",
                ..
            })
        ),
        "{e:?}"
    );
    assert!(!path.exists());
    // Names that only look like it are ordinary names.
    save_safetensors(&path, &[("__metadata", &t), ("metadata", &t)]).unwrap();
    let f = load_safetensors(&path).unwrap();
    assert_eq!(f.names().collect::<Vec<_>>(), ["__metadata", "metadata"]);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn metadata_is_written_and_read_back() {
    use std::collections::{BTreeMap, HashMap};
    let w = Tensor::arange(0i32, 6, 1).unwrap().view(&[2, 3]).unwrap();
    let path = scratch("meta.safetensors");

    // An array of pairs.
    save_safetensors_with_metadata(
        &path,
        &[("w", &w.t().unwrap())],
        [("format", "pt"), ("", "")],
    )
    .unwrap();
    let f = load_safetensors(&path).unwrap();
    let want: BTreeMap<String, String> = [("format", "pt"), ("", "")]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .into();
    assert_eq!(f.metadata(), &want);
    assert_eq!(
        f.tensor::<i32>("w").unwrap().to_vec(),
        w.t().unwrap().to_vec()
    );

    // A HashMap, with JSON-special and non-ASCII strings.
    let meta: HashMap<String, String> = [
        ("quote\"key".to_string(), "line\nbreak \\ tab\t".to_string()),
        ("größe".to_string(), "{\"json\": [1, 2]}".to_string()),
    ]
    .into();
    save_safetensors_with_metadata(&path, &[("w", &w)], &meta).unwrap();
    let f = load_safetensors(&path).unwrap();
    let back: HashMap<String, String> = f.metadata().clone().into_iter().collect();
    assert_eq!(back, meta);

    // A loaded file's metadata (a BTreeMap) saves back unchanged, and the bytes parse in
    // memory the same way.
    let again = scratch("meta-again.safetensors");
    save_safetensors_with_metadata(&again, &[("w", &w)], f.metadata()).unwrap();
    let bytes = std::fs::read(&again).unwrap();
    assert_eq!(parse(bytes).unwrap().metadata(), f.metadata());

    // Empty metadata writes the very file save_safetensors writes.
    save_safetensors_with_metadata(&again, &[("w", &w)], BTreeMap::<String, String>::new())
        .unwrap();
    assert_eq!(std::fs::read(&again).unwrap(), saved(&[("w", &w)]));
    assert!(load_safetensors(&again).unwrap().metadata().is_empty());

    // A key given twice is refused, naming it.
    let e =
        save_safetensors_with_metadata(&again, &[("w", &w)], [("a", "1"), ("a", "2")]).unwrap_err();
    assert!(
        e.to_string()
            .contains("the metadata key \"a\" is given twice"),
        "{e}"
    );
    std::fs::remove_file(&path).unwrap();
    std::fs::remove_file(&again).unwrap();
}
