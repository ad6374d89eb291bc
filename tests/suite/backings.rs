//! Tensors on adopted `Vec`s and on foreign bytes: no copy to build them, reads in place, and
//! writes that never touch foreign bytes (copy-on-write, or an error for the `_into` forms).

use std::sync::Arc;

use stridex::{Error, Storage, Tensor, audit};

fn foreign(values: &[f32], shape: &[usize]) -> (Arc<Vec<u8>>, Tensor<f32>) {
    let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_ne_bytes()).collect();
    let owner = Arc::new(bytes);
    let storage = Storage::<f32>::from_byte_owner(owner.clone(), 0, values.len()).unwrap();
    let layout = stridex::Layout::contiguous(shape).unwrap();
    (owner, Tensor::from_storage(storage, layout).unwrap())
}

#[test]
fn from_vec_adopts_the_buffer_without_a_copy() {
    let v: Vec<i32> = (0..12).collect();
    let at = v.as_ptr();
    let (t, report) = audit::record(|| Tensor::from_vec(v, &[3, 4]));
    let t = t.unwrap();
    assert_eq!(report.count(), 0);
    assert_eq!(t.data_ptr(), at);
    assert_eq!(t.t().unwrap().contiguous().get(&[1, 0]).unwrap(), 1);
    // A wrong length is refused and names from_vec.
    let e = Tensor::from_vec(vec![1u8; 5], &[2, 3]).unwrap_err();
    assert!(
        matches!(e, Error::NumelMismatch { op: "from_vec", .. }),
        "{e}"
    );
}

#[test]
fn adopted_vec_tensors_are_written_in_place_when_held_alone() {
    let v = vec![1.0f64; 6];
    let at = v.as_ptr();
    let mut t = Tensor::from_vec(v, &[2, 3]).unwrap();
    let (r, report) = audit::record(|| t.fill(2.0));
    r.unwrap();
    assert_eq!(report.count(), 0);
    assert_eq!(t.data_ptr(), at);
    assert_eq!(t.to_vec(), vec![2.0; 6]);
}

#[test]
fn foreign_bytes_are_read_in_place_and_copied_before_a_write() {
    let values: Vec<f32> = (0..6).map(|i| i as f32).collect();
    let (owner, mut t) = foreign(&values, &[2, 3]);
    assert_eq!(t.data_ptr().cast::<u8>(), owner.as_ptr());
    assert_eq!(t.t().unwrap().to_vec(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    assert_eq!((&t + &t).unwrap().sum_all(), 30.0);

    // Held alone, but the bytes are the owner's: the write copies first.
    let (r, report) = audit::record(|| t.set(&[0, 0], 9.0));
    r.unwrap();
    assert_eq!(report.count(), 1);
    assert_eq!(t.get(&[0, 0]).unwrap(), 9.0);
    assert!(t.storage().is_writable());
    let untouched: Vec<f32> = owner
        .chunks_exact(4)
        .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(untouched, values, "the owner's bytes never change");

    // Inside forbid_implicit_copies that copy is an error.
    let (_owner, mut t) = foreign(&values, &[2, 3]);
    assert!(matches!(
        audit::forbid_implicit_copies(|| t.fill(1.0)),
        Err(Error::ImplicitCopy { .. })
    ));
}

#[test]
fn writes_into_foreign_bytes_without_copy_on_write_are_refused() {
    let values = [1.0f32, 2.0, 3.0, 4.0];
    let (_owner, mut dst) = foreign(&values, &[2, 2]);
    let src = Tensor::<f32>::zeros(&[2, 2]).unwrap();
    let e = src.copy_into(&mut dst).unwrap_err();
    assert!(
        matches!(e, Error::ReadOnlyStorage { op: "copy_into" }),
        "{e}"
    );
    assert!(e.to_string().contains("to_aligned"), "{e}");
    let e = src.matmul_into(&src, &mut dst, false).unwrap_err();
    assert!(
        matches!(e, Error::ReadOnlyStorage { op: "matmul_into" }),
        "{e}"
    );
    assert_eq!(dst.to_vec(), values);
    // to_aligned gives a writable, 64-byte aligned copy.
    let mut a = dst.to_aligned().unwrap();
    assert!(!a.shares_storage(&dst) && a.data_ptr() as usize % 64 == 0);
    src.copy_into(&mut a).unwrap();
    assert_eq!(a.to_vec(), vec![0.0; 4]);
}

#[test]
fn to_aligned_copies_foreign_bytes_even_when_they_happen_to_be_aligned() {
    // Place four f32 at a 64-byte aligned address inside the owner's bytes.
    let values = [1.0f32, 2.0, 3.0, 4.0];
    let mut bytes = vec![0u8; 64 + 16];
    let skip = bytes.as_ptr().align_offset(64);
    for (i, x) in values.iter().enumerate() {
        bytes[skip + 4 * i..skip + 4 * i + 4].copy_from_slice(&x.to_ne_bytes());
    }
    let owner = Arc::new(bytes);
    let storage = Storage::<f32>::from_byte_owner(owner.clone(), skip, 4).unwrap();
    assert!(storage.is_aligned() && !storage.is_writable());
    let dst = Tensor::from_storage(storage, stridex::Layout::contiguous(&[2, 2]).unwrap()).unwrap();
    let (a, report) = audit::record(|| dst.to_aligned());
    let mut a = a.unwrap();
    assert_eq!(
        report.count(),
        1,
        "foreign bytes are copied, aligned or not"
    );
    assert!(!a.shares_storage(&dst) && a.data_ptr() as usize % 64 == 0);
    Tensor::<f32>::zeros(&[2, 2])
        .unwrap()
        .copy_into(&mut a)
        .unwrap();
    assert_eq!(a.to_vec(), vec![0.0; 4]);
    assert_eq!(dst.to_vec(), values, "the owner's bytes never change");
}
