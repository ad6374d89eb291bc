//! `.npy` files: NumPy's own files (built here from the bytes `np.save` writes) load with
//! their values, written files are byte-identical to NumPy's, random views of every element
//! type round-trip, and every malformed file is an error, never a panic.
#![cfg(feature = "npy")]

use crate::interop_common;

use half::{bf16, f16};
use interop_common::{Recipe, Sample, arb_recipe, bits, config, scratch};
use proptest::prelude::*;
use stridex::interop::{DynTensor, load_npy, read_npy, save_npy, write_npy};
use stridex::{DType, Element, Error, Tensor};

/// A file as NumPy 2.x's `np.save` writes it for these small arrays: magic, version 1.0,
/// header length 118 (`v\0`), the dict NumPy wrote, spaces and a newline up to byte 128, then
/// `data`.
fn numpy_file(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut f = b"\x93NUMPY\x01\x00v\x00".to_vec();
    f.extend_from_slice(dict.as_bytes());
    assert!(f.len() < 127);
    f.resize(127, b' ');
    f.push(b'\n');
    f.extend_from_slice(data);
    f
}

fn le<T: Element>(values: &[T]) -> Vec<u8> {
    bits(values)
}

fn be<T: Element>(values: &[T]) -> Vec<u8> {
    let mut b = bits(values);
    b.chunks_exact_mut(std::mem::size_of::<T>())
        .for_each(<[u8]>::reverse);
    b
}

fn load(bytes: &[u8]) -> Result<DynTensor, Error> {
    read_npy(bytes)
}

#[test]
fn numpy_files_load_with_their_values() {
    // np.save(f, np.arange(6, dtype='<f4').reshape(2, 3)): 152 bytes.
    let values: Vec<f32> = (0..6).map(|i| i as f32).collect();
    let f = numpy_file(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
        &le(&values),
    );
    assert_eq!(f.len(), 152);
    let t = load(&f).unwrap().into_tensor::<f32>().unwrap();
    assert_eq!((t.shape(), t.to_vec()), (&[2, 3][..], values.clone()));

    // np.save(f, np.asfortranarray(np.arange(6, dtype='>f8').reshape(2, 3))): 176 bytes,
    // big-endian, column-major. It loads as a column-major view, no reordering copy.
    let column_major: Vec<f64> = vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0];
    let f = numpy_file(
        "{'descr': '>f8', 'fortran_order': True, 'shape': (2, 3), }",
        &be(&column_major),
    );
    assert_eq!(f.len(), 176);
    let t = load(&f).unwrap().into_tensor::<f64>().unwrap();
    assert_eq!(t.shape(), &[2, 3]);
    assert_eq!(t.strides(), &[1, 2]);
    assert_eq!(t.to_vec(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);

    // np.save(f, np.array(-2, dtype='<i2')): a 0-dim array, 130 bytes.
    let f = numpy_file(
        "{'descr': '<i2', 'fortran_order': False, 'shape': (), }",
        &le(&[-2i16]),
    );
    assert_eq!(f.len(), 130);
    let t = load(&f).unwrap().into_tensor::<i16>().unwrap();
    assert_eq!((t.shape(), t.get(&[]).unwrap()), (&[][..], -2));

    // np.save(f, np.array([True, False, True])): bool loads as u8, 131 bytes.
    let f = numpy_file(
        "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
        &[1, 0, 1],
    );
    assert_eq!(f.len(), 131);
    assert_eq!(
        load(&f).unwrap().into_tensor::<u8>().unwrap().to_vec(),
        vec![1, 0, 1]
    );

    // np.save(f, np.zeros((0, 3), dtype='|u1')): 128 bytes, no data.
    let f = numpy_file(
        "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 3), }",
        &[],
    );
    assert_eq!(f.len(), 128);
    assert_eq!(load(&f).unwrap().shape(), &[0, 3]);

    // np.save(f, np.array([1.5, -2], dtype='<f2')): 132 bytes.
    let halves = [f16::from_f32(1.5), f16::from_f32(-2.0)];
    let f = numpy_file(
        "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }",
        &le(&halves),
    );
    assert_eq!(f.len(), 132);
    assert_eq!(
        load(&f).unwrap().into_tensor::<f16>().unwrap().to_vec(),
        halves
    );

    // np.save(f, np.array([1j], dtype='<c8')): complex has no stridex type.
    let f = numpy_file(
        "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
        &[0; 8],
    );
    let e = load(&f).unwrap_err();
    assert!(
        matches!(&e, Error::UnsupportedDType { dtype, .. } if dtype == "'<c8'"),
        "{e}"
    );
}

fn both_orders<T: Sample>(kind: char) {
    let values: Vec<T> = (0..5).map(T::from_index).collect();
    let size = std::mem::size_of::<T>();
    let orders: &[(char, bool)] = if size == 1 {
        &[('|', false), ('<', false), ('>', true)]
    } else {
        &[('<', false), ('>', true)]
    };
    for &(order, big) in orders {
        let dict =
            format!("{{'descr': '{order}{kind}{size}', 'fortran_order': False, 'shape': (5,), }}");
        let data = if big { be(&values) } else { le(&values) };
        let d = load(&numpy_file(&dict, &data)).unwrap();
        assert_eq!(d.dtype(), T::DTYPE, "{dict}");
        assert_eq!(
            bits(&d.into_tensor::<T>().unwrap().to_vec()),
            bits(&values),
            "{dict}"
        );
    }
}

#[test]
fn every_element_type_loads_in_both_byte_orders() {
    both_orders::<f16>('f');
    both_orders::<f32>('f');
    both_orders::<f64>('f');
    both_orders::<i8>('i');
    both_orders::<i16>('i');
    both_orders::<i32>('i');
    both_orders::<i64>('i');
    both_orders::<u8>('u');
    both_orders::<u16>('u');
    both_orders::<u32>('u');
    both_orders::<u64>('u');
}

#[test]
fn written_files_are_the_bytes_numpy_writes() {
    let values: Vec<f32> = (0..6).map(|i| i as f32).collect();
    let mut out = Vec::new();
    write_npy(
        &mut out,
        &Tensor::from_vec(values.clone(), &[2, 3]).unwrap(),
    )
    .unwrap();
    let numpy = numpy_file(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
        &le(&values),
    );
    assert_eq!(out, numpy);

    // A transposed matrix is column-major: written as it is, as NumPy writes a Fortran array.
    let memory = vec![0.0f64, 3.0, 1.0, 4.0, 2.0, 5.0];
    let t = Tensor::from_vec(memory.clone(), &[3, 2])
        .unwrap()
        .t()
        .unwrap();
    let mut out = Vec::new();
    write_npy(&mut out, &t).unwrap();
    let numpy = numpy_file(
        "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
        &le(&memory),
    );
    assert_eq!(out, numpy);
}

#[test]
fn bf16_is_written_as_f32_and_casts_back_exactly() {
    let values: Vec<bf16> = (0..7).map(bf16::from_index).collect();
    let t = Tensor::from_vec(values.clone(), &[7]).unwrap();
    let mut out = Vec::new();
    write_npy(&mut out, &t).unwrap();
    assert!(String::from_utf8_lossy(&out[..128]).contains("'descr': '<f4'"));
    let back = read_npy(&out[..]).unwrap().into_tensor::<f32>().unwrap();
    assert_eq!(back.cast::<bf16>().to_vec(), values);
}

/// The 4-byte little-endian words of `bytes`.
fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn bf16_is_widened_by_its_bits_signalling_nans_included() {
    // Signalling NaNs of both signs, the smallest subnormal, negative zero.
    let input = [0x7f81u16, 0xff81, 0x0001, 0x8000];
    let want = [0x7f81_0000u32, 0xff81_0000, 0x0001_0000, 0x8000_0000];
    let t = Tensor::from_vec(input.map(bf16::from_bits).to_vec(), &[4]).unwrap();
    let mut out = Vec::new();
    write_npy(&mut out, &t).unwrap();
    assert_eq!(out.len(), 128 + 4 * 4);
    assert_eq!(words(&out[128..]), want);
    // The same bytes through a file, and back through the reader.
    let path = scratch("bf16-bits.npy");
    save_npy(&path, &t).unwrap();
    let file = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(file, out);
    let back = read_npy(&file[..]).unwrap().into_tensor::<f32>().unwrap();
    assert_eq!(words(&bits(&back.to_vec())), want);
    // A strided view of them is widened the same way.
    let flipped = t.flip(0).unwrap();
    let mut out = Vec::new();
    write_npy(&mut out, &flipped).unwrap();
    let mut reversed = want;
    reversed.reverse();
    assert_eq!(words(&out[128..]), reversed);
}

#[test]
fn f16_is_written_with_its_bits_unchanged() {
    let input = [0x7c01u16, 0xfc01, 0x7e00, 0x0001, 0x8000, 0x7bff];
    let t = Tensor::from_vec(input.map(f16::from_bits).to_vec(), &[6]).unwrap();
    let mut out = Vec::new();
    write_npy(&mut out, &t).unwrap();
    assert!(String::from_utf8_lossy(&out[..128]).contains("'descr': '<f2'"));
    let written: Vec<u16> = out[128..]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(written, input);
    let back = read_npy(&out[..]).unwrap().into_tensor::<f16>().unwrap();
    let back: Vec<u16> = back.to_vec().iter().map(|x| x.to_bits()).collect();
    assert_eq!(back, input);
}

fn round_trip<T: Sample>(r: &Recipe) -> Result<(), TestCaseError> {
    let t = r.random::<T>();
    let mut out = Vec::new();
    write_npy(&mut out, &t).unwrap();
    // The header is padded to 64 bytes; bf16 is written as 4-byte f32.
    let written = if T::DTYPE == DType::BF16 {
        4
    } else {
        std::mem::size_of::<T>()
    };
    prop_assert_eq!(out.len(), 128 + t.numel() * written);
    let d = read_npy(&out[..]).unwrap();
    prop_assert_eq!(d.shape(), t.shape());
    if T::DTYPE == DType::BF16 {
        // Widened by bits: each f32 is the bf16's bits and 16 zero bits, NaNs included.
        let widened: Vec<u32> = bits(&d.into_tensor::<f32>().unwrap().to_vec())
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let original: Vec<u16> = bytemuck::cast_slice(&t.to_vec()).to_vec();
        for (w, b) in widened.iter().zip(&original) {
            prop_assert_eq!(*w, u32::from(*b) << 16, "{:#x} from {:#x}", w, b);
        }
    } else {
        prop_assert_eq!(
            bits(&d.into_tensor::<T>().unwrap().to_vec()),
            bits(&t.to_vec())
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn random_views_of_every_type_round_trip(r in arb_recipe()) {
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

    /// Headers built from the tokens a header is made of, in random order: the parser must
    /// answer every one with a value or an error.
    #[test]
    fn random_headers_never_panic(tokens in prop::collection::vec(0usize..TOKENS.len(), 0..40)) {
        let text: String = tokens.iter().map(|&i| TOKENS[i]).collect();
        let mut f = b"\x93NUMPY\x01\x00".to_vec();
        f.extend_from_slice(&(text.len() as u16).to_le_bytes());
        f.extend_from_slice(text.as_bytes());
        f.extend_from_slice(&[0u8; 64]);
        if let Ok(d) = read_npy(&f[..]) {
            prop_assert!(d.numel() * d.dtype().size() <= 64);
        }
    }

    /// Random bytes written over a valid file: an error or a tensor, never a panic, and never
    /// a tensor with more data than the file holds.
    #[test]
    fn corrupted_files_never_panic(
        edits in prop::collection::vec((0usize..200, any::<u8>()), 1..6),
        cut in 0usize..300,
    ) {
        let mut f = Vec::new();
        write_npy(&mut f, &Tensor::<u32>::zeros(&[2, 9]).unwrap()).unwrap();
        for (at, b) in edits {
            let n = f.len();
            f[at % n] = b;
        }
        f.truncate(cut.max(1));
        if let Ok(d) = read_npy(&f[..]) {
            prop_assert!(d.numel() * d.dtype().size() <= f.len());
        }
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "'descr'",
    "'shape'",
    "'fortran_order'",
    ":",
    ", ",
    "(",
    ")",
    "'<f4'",
    "'>i8'",
    "'|u1'",
    "True",
    "False",
    "3",
    "0",
    "18446744073709551616",
    "7L",
    " ",
    "[",
    "]",
    "'",
    "\"",
    "-1",
    "\n",
    "'<c8'",
    "'x'",
    "\\",
];

#[test]
fn truncated_files_are_errors_at_every_length() {
    let mut f = Vec::new();
    write_npy(&mut f, &Tensor::arange(0i64, 6, 1).unwrap()).unwrap();
    for len in 0..f.len() {
        match read_npy(&f[..len]) {
            Err(Error::MalformedFile { message, .. }) => {
                assert!(
                    message.contains("truncated") || message.contains("ends"),
                    "{len}: {message}"
                )
            }
            other => panic!("{len} bytes: {other:?}"),
        }
    }
    assert!(read_npy(&f[..]).is_ok());
}

#[test]
fn malformed_files_say_what_is_wrong() {
    let good = numpy_file(
        "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }",
        &[1, 0, 2, 0],
    );
    let mut cases: Vec<(Vec<u8>, &str)> = Vec::new();
    let mut bad_magic = good.clone();
    bad_magic[1] = b'X';
    cases.push((bad_magic, "not the magic"));
    let mut bad_version = good.clone();
    bad_version[6] = 4;
    cases.push((bad_version, "version 4.0"));
    let mut huge_header = good.clone();
    huge_header[6] = 2;
    huge_header[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    cases.push((huge_header, "header length"));
    let mut not_ascii = good.clone();
    not_ascii[20] = 0xFF;
    cases.push((not_ascii, "not ASCII"));
    cases.push((
        numpy_file(
            "{'descr': '<u2', 'fortran_order': False, 'shape': (2), }",
            &[0; 4],
        ),
        "written (2,)",
    ));
    cases.push((
        numpy_file("{'descr': '<u2', 'fortran_order': False}", &[0; 4]),
        "no 'shape'",
    ));
    // A descr that is no dtype at all is a damaged header, not a type to convert.
    for descr in ["<x9", ""] {
        let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (2,), }}");
        cases.push((
            numpy_file(&dict, &[0; 4]),
            if descr.is_empty() {
                "the header's 'descr' is '', which is not a NumPy dtype"
            } else {
                "the header's 'descr' is '<x9', which is not a NumPy dtype"
            },
        ));
    }
    for (f, want) in cases {
        let e = read_npy(&f[..]).unwrap_err();
        assert!(matches!(e, Error::MalformedFile { .. }), "{e}");
        assert!(!e.to_string().contains("convert the data"), "{e}");
        assert!(e.to_string().contains(want), "{want}: {e}");
    }
}

#[test]
fn a_header_promising_terabytes_fails_without_allocating_them() {
    let f = numpy_file(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }",
        &[0; 16],
    );
    // From a stream: read in bounded chunks until the data runs out.
    let e = read_npy(&f[..]).unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
    // From a file: the size is known, so nothing is allocated.
    let path = scratch("huge.npy");
    std::fs::write(&path, &f).unwrap();
    let e = load_npy(&path).unwrap_err();
    assert!(
        e.to_string().contains("needs 8796093022208 data bytes"),
        "{e}"
    );
    std::fs::remove_file(&path).unwrap();
    // A shape whose element count overflows.
    let f = numpy_file(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4), }",
        &[],
    );
    assert!(
        read_npy(&f[..])
            .unwrap_err()
            .to_string()
            .contains("isize::MAX")
    );
}

#[test]
fn files_round_trip_through_the_file_system() {
    let path = scratch("round.npy");
    let t = Tensor::arange(0u32, 24, 1)
        .unwrap()
        .view(&[2, 3, 4])
        .unwrap()
        .permute(&[2, 0, 1])
        .unwrap();
    save_npy(&path, &t).unwrap();
    let back = load_npy(&path).unwrap().into_tensor::<u32>().unwrap();
    assert_eq!((back.shape(), back.to_vec()), (t.shape(), t.to_vec()));
    std::fs::remove_file(&path).unwrap();
    let missing = scratch("missing.npy");
    assert!(matches!(
        load_npy(&missing),
        Err(Error::Io {
            kind: std::io::ErrorKind::NotFound,
            ..
        })
    ));
}

#[test]
fn a_dtype_mismatch_names_the_method_called() {
    let mut bytes = Vec::new();
    write_npy(&mut bytes, &Tensor::from_vec(vec![1.5f64], &[1]).unwrap()).unwrap();
    let d = read_npy(&bytes[..]).unwrap();
    let e = d.clone().into_tensor::<f32>().unwrap_err().to_string();
    assert!(
        e.starts_with("into_tensor: the tensor holds f64 elements, not f32; ask for f64"),
        "{e}"
    );
    let e = d.as_tensor::<i64>().unwrap_err().to_string();
    assert!(
        e.starts_with("as_tensor: the tensor holds f64 elements, not i64"),
        "{e}"
    );
    let e = Tensor::<u8>::try_from(d).unwrap_err().to_string();
    assert!(
        e.starts_with("try_from: the tensor holds f64 elements, not u8"),
        "{e}"
    );
    assert!(!e.contains("DynTensor"), "{e}");
}
