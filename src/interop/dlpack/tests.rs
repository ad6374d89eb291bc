//! Unit tests of the export block, the deleters and the import checks, small enough for
//! Miri (the CI's Miri run filters `interop::dlpack`): pointer equality both ways, flags,
//! every deleter called exactly once (also after a failed import), and malformed tensors
//! built by hand.

use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::audit;
use crate::element::DType;
use crate::error::Error;
use crate::interop::DynTensor;
use crate::tensor::Tensor;

/// A producer's block made by hand: the managed struct, then what it points to, and a
/// counter its deleter bumps.
#[repr(C)]
struct Hand<H> {
    managed: H,
    _data: Vec<u64>,
    _shape: Vec<i64>,
    _strides: Vec<i64>,
    deletions: Arc<AtomicUsize>,
}

unsafe extern "C" fn delete_hand<H>(managed: *mut H) {
    // SAFETY: made by `hand` with `Box::into_raw`, deleted once (the tests count it).
    let block = unsafe { Box::from_raw(managed.cast::<Hand<H>>()) };
    block.deletions.fetch_add(1, Ordering::SeqCst);
}

/// A managed tensor over `data` (8-byte aligned words), edited by `edit` before it is boxed.
fn hand<H: ManagedTensor>(
    mut data: Vec<u64>,
    dtype: DType,
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    edit: impl FnOnce(&mut DLTensor),
) -> (*mut H, Arc<AtomicUsize>) {
    let mut shape = shape;
    let mut strides_v = strides.clone().unwrap_or_default();
    let mut dl = DLTensor {
        data: data.as_mut_ptr().cast::<c_void>(),
        device: DLDevice::CPU,
        ndim: shape.len() as i32,
        dtype: DLDataType::from_dtype(dtype),
        shape: shape.as_mut_ptr(),
        strides: if strides.is_some() {
            strides_v.as_mut_ptr()
        } else {
            std::ptr::null_mut()
        },
        byte_offset: 0,
    };
    edit(&mut dl);
    let deletions = Arc::new(AtomicUsize::new(0));
    let block = Box::new(Hand {
        managed: H::header(dl, 0, delete_hand::<H>),
        _data: data,
        _shape: shape,
        _strides: strides_v,
        deletions: deletions.clone(),
    });
    (Box::into_raw(block).cast::<H>(), deletions)
}

fn words(values: &[f32]) -> Vec<u64> {
    let mut w = vec![0u64; values.len().div_ceil(2)];
    bytemuck::cast_slice_mut::<u64, f32>(&mut w)[..values.len()].copy_from_slice(values);
    w
}

#[test]
fn export_bakes_the_offset_and_owns_the_storage() {
    let t = Tensor::from_vec((0..12).map(|i| i as f32).collect(), &[3, 4]).unwrap();
    let v = t.narrow(1, 1, 2).unwrap().flip(0).unwrap();
    let weak = Arc::downgrade(t.storage());
    let ((d, legacy), report) =
        audit::record(|| (v.clone().to_dlpack(), v.clone().to_dlpack_legacy()));
    assert_eq!(report.count(), 0, "no copy: {report}");
    assert!(legacy.is_err(), "shared storage cannot go out as legacy");
    assert_eq!(d.dl_tensor().data as *const f32, v.data_ptr());
    assert_eq!(d.dl_tensor().byte_offset, 0);
    assert_eq!(
        (d.shape(), d.strides()),
        (&[3i64, 2][..], Some(&[-4i64, 1][..]))
    );
    assert!(d.is_read_only() && !d.is_copied());
    assert_eq!(d.dl_tensor().device, DLDevice::CPU);
    drop((t, v));
    assert!(weak.upgrade().is_some(), "the export keeps the storage");
    drop(d);
    assert!(
        weak.upgrade().is_none(),
        "the deleter dropped the last holder"
    );
}

#[test]
fn the_last_holder_exports_writable_and_copies_are_flagged() {
    let t = Tensor::from_vec(vec![1u16, 2, 3, 4], &[2, 2]).unwrap();
    let c = t.to_dlpack_copy().unwrap();
    assert!(c.is_copied() && !c.is_read_only());
    assert_ne!(c.dl_tensor().data as *const u16, t.data_ptr());
    let d = t.to_dlpack();
    assert_eq!(d.flags(), 0);
    // Expanded views address elements twice: read-only even when held alone.
    let e = Tensor::<u8>::zeros(&[1, 3])
        .unwrap()
        .expand(&[4, 3])
        .unwrap();
    assert!(e.to_dlpack().is_read_only());
    // Foreign storage (an import) is read-only on re-export.
    let back = Tensor::<u16>::try_from(d).unwrap();
    assert!(back.to_dlpack().is_read_only());
    let legacy = Tensor::from_vec(vec![5i64], &[])
        .unwrap()
        .to_dlpack_legacy()
        .unwrap();
    assert_eq!(
        (legacy.version(), legacy.flags(), legacy.shape()),
        (None, 0, &[][..])
    );
}

#[test]
fn round_trips_share_memory_for_both_structs() {
    let t = Tensor::from_vec((0..24).map(|i| i as f64).collect(), &[2, 3, 4]).unwrap();
    let v = t
        .permute(&[2, 0, 1])
        .unwrap()
        .slice_step(0, .., -2)
        .unwrap();
    let back = Tensor::<f64>::try_from(v.clone().to_dlpack()).unwrap();
    assert_eq!(back.data_ptr(), v.data_ptr());
    assert_eq!((back.shape(), back.strides()), (v.shape(), v.strides()));
    assert_eq!(back.to_vec(), v.to_vec());
    let alone = v.contiguous();
    let at = alone.data_ptr();
    let legacy = DynTensor::try_from(alone.to_dlpack_legacy().unwrap()).unwrap();
    let legacy = legacy.into_tensor::<f64>().unwrap();
    assert_eq!((legacy.data_ptr(), legacy.to_vec()), (at, v.to_vec()));
    // Empty and 0-dim tensors.
    let empty = Tensor::<i32>::zeros(&[0, 3]).unwrap();
    let e = Tensor::<i32>::try_from(empty.to_dlpack()).unwrap();
    assert_eq!(e.shape(), &[0, 3]);
    let scalar = Tensor::from_vec(vec![9u8], &[]).unwrap();
    assert_eq!(
        Tensor::<u8>::try_from(scalar.to_dlpack()).unwrap().to_vec(),
        vec![9]
    );
}

#[test]
fn hand_made_tensors_import_in_place_and_are_deleted_once() {
    let values: Vec<f32> = (0..6).map(|i| i as f32).collect();
    // Row-major with null strides, and a byte offset of one element.
    let (p, n) = hand::<DLManagedTensorVersioned>(words(&values), DType::F32, vec![5], None, |t| {
        t.byte_offset = 4;
    });
    // SAFETY: a valid hand-made tensor, owned by nothing else.
    let t = unsafe { Tensor::<f32>::from_dlpack(p) }.unwrap();
    assert_eq!(t.to_vec(), &values[1..]);
    assert_eq!(t.strides(), &[1]);
    let view = t.t().unwrap();
    drop(t);
    assert_eq!(n.load(Ordering::SeqCst), 0, "a view still reads it");
    drop(view);
    assert_eq!(n.load(Ordering::SeqCst), 1);
    // Negative strides from the middle: the span starts before `data`.
    let (p, n) = hand::<DLManagedTensor>(
        words(&values),
        DType::F32,
        vec![2, 3],
        Some(vec![-3, 1]),
        |t| t.byte_offset = 12,
    );
    // SAFETY: as above; rows 3.. and 0.. of the six values.
    let t = unsafe { Tensor::<f32>::from_dlpack_legacy(p) }.unwrap();
    assert_eq!(t.to_vec(), vec![3.0, 4.0, 5.0, 0.0, 1.0, 2.0]);
    assert_eq!((t.offset(), t.storage().len()), (3, 6));
    drop(t);
    assert_eq!(n.load(Ordering::SeqCst), 1);
    // Zero strides.
    let (p, n) = hand::<DLManagedTensorVersioned>(
        words(&values),
        DType::F32,
        vec![3, 2],
        Some(vec![0, 2]),
        |_| {},
    );
    // SAFETY: as above.
    let t = unsafe { Tensor::<f32>::from_dlpack(p) }.unwrap();
    assert_eq!(t.to_vec(), vec![0.0, 2.0, 0.0, 2.0, 0.0, 2.0]);
    assert_eq!(t.storage().len(), 3);
    drop(t);
    assert_eq!(n.load(Ordering::SeqCst), 1);
}

/// Imports a hand-made tensor edited by `edit` and returns the error, checking the deleter
/// ran exactly once.
fn refused(shape: Vec<i64>, strides: Option<Vec<i64>>, edit: impl FnOnce(&mut DLTensor)) -> Error {
    let (p, n) =
        hand::<DLManagedTensorVersioned>(words(&[1.0; 8]), DType::F32, shape, strides, edit);
    // SAFETY: a hand-made tensor whose pointers are valid (only their described values are
    // wrong), owned by nothing else.
    let err = unsafe { DynTensor::from_dlpack(p) }.unwrap_err();
    assert_eq!(n.load(Ordering::SeqCst), 1, "deleted once after {err}");
    err
}

#[test]
fn malformed_tensors_are_errors_and_still_deleted() {
    let msg = |e: Error| e.to_string();
    assert!(
        msg(refused(vec![2], None, |t| t.device.device_type = device_type::CUDA))
            .contains("kDLCUDA")
    );
    assert!(msg(refused(vec![2], None, |t| t.dtype.lanes = 2)).contains("2 lanes"));
    assert!(
        msg(refused(vec![2], None, |t| t.dtype = DLDataType {
            code: type_code::BOOL,
            bits: 8,
            lanes: 1
        }))
        .contains("bool8")
    );
    assert!(msg(refused(vec![2], None, |t| t.ndim = -1)).contains("ndim is -1"));
    assert!(
        msg(refused(vec![2], None, |t| t.shape = std::ptr::null_mut())).contains("shape is null")
    );
    assert!(msg(refused(vec![2, -3], None, |_| {})).contains("size -3"));
    assert!(
        msg(refused(vec![2], None, |t| t.data = std::ptr::null_mut())).contains("data is null")
    );
    assert!(msg(refused(vec![2], None, |t| t.byte_offset = 2)).contains("not aligned"));
    assert!(matches!(
        refused(vec![1 << 40, 1 << 40], None, |_| {}),
        Error::Overflow {
            op: "from_dlpack",
            ..
        }
    ));
    assert!(matches!(
        refused(vec![2, 2], Some(vec![i64::MAX, 1]), |_| {}),
        Error::Overflow { .. }
    ));
    assert!(matches!(
        refused(vec![3], Some(vec![i64::MIN / 2]), |_| {}),
        Error::Overflow { .. }
    ));
    // A major version from the future.
    let (p, n) = hand::<DLManagedTensorVersioned>(words(&[1.0]), DType::F32, vec![1], None, |_| {});
    // SAFETY: valid, owned by nothing else; only the version is edited, before the import.
    unsafe { (*p).version.major = 2 };
    // SAFETY: as above.
    let err = unsafe { Tensor::<f32>::from_dlpack(p) }.unwrap_err();
    assert!(err.to_string().contains("version is 2.0"), "{err}");
    assert_eq!(n.load(Ordering::SeqCst), 1);
    // The wrong element type for a typed import.
    let (p, n) = hand::<DLManagedTensorVersioned>(words(&[1.0]), DType::F32, vec![1], None, |_| {});
    // SAFETY: as above.
    let err = unsafe { Tensor::<i32>::from_dlpack(p) }.unwrap_err();
    assert_eq!(
        err,
        Error::DTypeMismatch {
            op: "from_dlpack",
            expected: DType::I32,
            got: DType::F32
        }
    );
    assert_eq!(n.load(Ordering::SeqCst), 1);
    // A null pointer owns nothing.
    // SAFETY: null is allowed.
    assert!(unsafe { Tensor::<f32>::from_dlpack(std::ptr::null_mut()) }.is_err());
    // Pinned host memory reads like the CPU's; an empty tensor may have null data.
    let (p, _) =
        hand::<DLManagedTensorVersioned>(words(&[1.0, 2.0]), DType::F32, vec![2], None, |t| {
            t.device.device_type = device_type::CUDA_HOST;
        });
    // SAFETY: as above.
    assert_eq!(
        unsafe { Tensor::<f32>::from_dlpack(p) }.unwrap().to_vec(),
        vec![1.0, 2.0]
    );
    let (p, _) = hand::<DLManagedTensorVersioned>(vec![], DType::F32, vec![0, 4], None, |t| {
        t.data = std::ptr::null_mut();
    });
    // SAFETY: as above.
    assert_eq!(
        unsafe { Tensor::<f32>::from_dlpack(p) }.unwrap().shape(),
        &[0, 4]
    );
}

#[test]
fn an_export_of_an_import_runs_both_deleters_once() {
    // The export's deleter drops the storage, whose owner (the import) calls the producer's
    // deleter: two deleters chained, each run once, as a C consumer would call them.
    let (p, n) =
        hand::<DLManagedTensorVersioned>(words(&[1.0, 2.0]), DType::F32, vec![2], None, |_| {});
    // SAFETY: valid, owned by nothing else.
    let t = unsafe { Tensor::<f32>::from_dlpack(p) }.unwrap();
    let raw = t.to_dlpack().into_raw();
    // SAFETY: an export's pointer, deleted once here, as a C consumer would.
    unsafe { ManagedTensor::delete(raw.as_ptr()) };
    assert_eq!(n.load(Ordering::SeqCst), 1);
}
