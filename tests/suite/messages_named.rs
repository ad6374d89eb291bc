//! Error messages that named the wrong thing (an inner helper, the input instead of the
//! argument, an internal type, a temporary file), each with the exact input that showed it;
//! the spellings the CHANGELOG's "Source breaks" gives; and `sum()` of `u8`.

use stridex::{Error, Tensor};

/// Zero-size shapes pass the element count check whatever their other sizes, but their
/// strides overflow: the constructor is named, not the `contiguous` inside it.
#[test]
fn zero_size_huge_shapes_name_the_constructor() {
    let e = Tensor::<f32>::from_vec(vec![], &[0, 1 << 62, 1 << 62]).unwrap_err();
    let msg = e.to_string();
    assert!(msg.starts_with("from_vec: "), "{msg}");
    assert!(!msg.contains("contiguous"), "{msg}");
    // A constructor's overflow carries no note about stride-0 views.
    assert!(!msg.contains("stride-0"), "{msg}");
    let msg = Tensor::<f32>::zeros(&[1 << 40, 1 << 40])
        .unwrap_err()
        .to_string();
    assert!(
        msg.starts_with("zeros: ") && !msg.contains("stride-0"),
        "{msg}"
    );
    // An op's result of a huge expanded view keeps it: that is where it applies.
    let huge = Tensor::<f32>::zeros(&[1, 1])
        .unwrap()
        .expand(&[1usize << 31, 1 << 31])
        .unwrap();
    let msg = huge.try_contiguous().unwrap_err().to_string();
    assert!(msg.contains("stride-0"), "{msg}");
}

#[cfg(feature = "npy")]
fn npy(header: &str) -> Vec<u8> {
    let mut h = header.to_string();
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(h.len() as u16).to_le_bytes());
    bytes.extend_from_slice(h.as_bytes());
    bytes
}

#[cfg(feature = "npy")]
#[test]
fn npy_errors_name_the_reader_and_the_field() {
    use stridex::interop::read_npy;
    let bytes = npy(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4611686018427387904), }",
    );
    let msg = read_npy(&bytes[..]).unwrap_err().to_string();
    assert!(
        msg.starts_with("read_npy: ") && !msg.contains("contiguous"),
        "{msg}"
    );
    let bytes = npy("{'descr': '<f4', 'fortran_order': false, 'shape': (2,), }");
    let msg = read_npy(&bytes[..]).unwrap_err().to_string();
    assert!(msg.contains("'fortran_order'"), "{msg}");
    let bytes = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}");
    let msg = read_npy(&bytes[..]).unwrap_err().to_string();
    assert!(msg.contains("key 'extra'"), "{msg}");
}

#[cfg(feature = "serde")]
#[test]
fn deserializing_a_zero_size_huge_shape_names_deserialize() {
    let json = r#"{"shape":[0,4611686018427387904,4611686018427387904],"data":[]}"#;
    let msg = serde_json::from_str::<Tensor<f32>>(json)
        .unwrap_err()
        .to_string();
    assert!(
        msg.starts_with("deserialize: ") && !msg.contains("contiguous"),
        "{msg}"
    );
}

#[test]
fn split_at_diagonal_and_arange_say_what_was_wrong() {
    let mut x = Tensor::<f32>::zeros(&[2, 3]).unwrap();
    let msg = match x.view_mut().unwrap().split_at(1, 5) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("split_at past the end"),
    };
    assert!(
        msg.starts_with("split_at: index 5 is past the end of dim 1 of size 3"),
        "{msg}"
    );
    assert!(!msg.contains("range start"), "{msg}");

    let msg = Tensor::<f32>::zeros(&[3])
        .unwrap()
        .diagonal()
        .unwrap_err()
        .to_string();
    assert!(msg.contains("1-dim tensor has no diagonal"), "{msg}");
    assert!(!msg.contains("dim 1 is out of range"), "{msg}");

    let msg = Tensor::arange(0.0f32, 1.0, 0.0).unwrap_err().to_string();
    assert!(msg.starts_with("arange: the step is 0"), "{msg}");
    assert!(!msg.contains("dim 0"), "{msg}");
}

/// An allocation no machine can satisfy (2^47 bytes, the whole user address space of x86-64)
/// through a panicking shorthand: the panic names the method.
#[test]
#[should_panic(expected = "contiguous: allocation of")]
fn an_allocation_failure_in_a_shorthand_names_it() {
    let huge = Tensor::<u8>::zeros(&[1])
        .unwrap()
        .expand(&[1usize << 47])
        .unwrap();
    assert!(matches!(huge.try_contiguous(), Err(Error::Alloc { .. })));
    let _ = huge.contiguous();
}

#[cfg(feature = "safetensors")]
#[test]
fn safetensors_errors_keep_internal_names_and_temporary_paths_out() {
    use std::sync::Arc;
    use stridex::interop::{SafeTensorsFile, save_safetensors};
    let header = b"[1, 2]";
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header);
    let msg = SafeTensorsFile::from_bytes(Arc::new(bytes))
        .unwrap_err()
        .to_string();
    assert!(!msg.contains("HashMetadata"), "{msg}");
    assert!(msg.contains("JSON"), "{msg}");

    let path = std::env::temp_dir()
        .join(format!("stridex-no-such-dir-{}", std::process::id()))
        .join("m.safetensors");
    let t = Tensor::<f32>::zeros(&[2]).unwrap();
    let msg = save_safetensors(&path, &[("t", &t)])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("m.safetensors"), "{msg}");
    assert!(!msg.contains(".tmp") && !msg.contains("at path"), "{msg}");
}

/// The CHANGELOG's "Source breaks": the spellings it gives compile and behave as before.
#[test]
fn the_documented_spellings_of_the_source_breaks_compile() {
    let e = Tensor::<f32>::cat(&[] as &[&Tensor<f32>], 0).unwrap_err();
    assert!(matches!(e, Error::NoInputs { op: "cat" }));
    let e = Tensor::<f32>::stack(&[] as &[&Tensor<f32>], 0).unwrap_err();
    assert!(matches!(e, Error::NoInputs { op: "stack" }));
    assert!(Tensor::cat(Vec::<Tensor<f32>>::new(), 0).is_err());
    let a = Tensor::<f32>::zeros(&[2, 3]).unwrap();
    assert!(a.view(&[1usize << 40, 1 << 40]).is_err());
    assert!(a.reshape(&[1usize << 40, 1 << 40]).is_err());
    assert!(a.view(&[1i64 << 40, -1]).is_err());
}

/// `sum()` of `u8` wraps in `u8` (its doc says so); PyTorch's widened sum is `sum_all_as`.
#[test]
fn sum_of_300_u8_ones_wraps_and_the_widening_form_does_not() {
    let ones = Tensor::full(&[300], 1u8).unwrap();
    assert_eq!(ones.sum(), 44);
    assert_eq!(ones.sum_all_as::<i64>(), 300);
    assert_eq!(ones.to_dtype::<i64>().sum(), 300);
}

/// Allocation failures name the op that allocated, through each road to the allocator: a
/// constructor, a copy, an elementwise op's fresh output.
#[test]
fn allocation_failures_name_the_op() {
    let huge = Tensor::<u8>::zeros(&[1])
        .unwrap()
        .expand(&[1usize << 47])
        .unwrap();
    let cases: Vec<(&str, Error)> = vec![
        ("zeros", Tensor::<u8>::zeros(&[1usize << 47]).unwrap_err()),
        ("contiguous", huge.try_contiguous().unwrap_err()),
        ("to_owned", huge.try_to_owned().unwrap_err()),
        ("add", huge.add(&huge).unwrap_err()),
    ];
    for (op, e) in cases {
        assert!(matches!(e, Error::Alloc { .. }), "{op}: {e:?}");
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!("{op}: allocation of")),
            "{op}: {msg}"
        );
    }
}
