//! DLPack exchange: random views (transposed, narrowed, flipped, strided, expanded, selected,
//! channels-last) of every element type go out and come back without a copy (same pointer,
//! same strides, same bits), the read-only flag follows sharing, every deleter runs exactly
//! once (counted), and every malformed tensor, built by hand, is an error.
#![cfg(feature = "dlpack")]

use crate::interop_common;

use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use half::{bf16, f16};
use interop_common::{Recipe, Sample, arb_recipe, bits, config};
use proptest::prelude::*;
use stridex::audit::{self, CopyReason};
use stridex::interop::DynTensor;
use stridex::interop::dlpack::{
    DLDataType, DLDevice, DLManagedTensor, DLManagedTensorVersioned, DLPACK_FLAG_BITMASK_IS_COPIED,
    DLPACK_FLAG_BITMASK_READ_ONLY, DLPackTensor, DLTensor, ManagedTensor, device_type, type_code,
};
use stridex::{DType, Element, Error, MemoryFormat, Tensor};

/// Export `t` shared (read-only) and alone (writable), import both back, and compare.
fn check<T: Sample>(t: &Tensor<T>) -> Result<(), TestCaseError> {
    let (d, report) = audit::record(|| t.clone().to_dlpack());
    prop_assert_eq!(report.count(), 0);
    prop_assert!(d.is_read_only(), "`t` still holds the storage");
    prop_assert_eq!(d.dl_tensor().dtype, DLDataType::from_dtype(T::DTYPE));
    prop_assert_eq!(d.dl_tensor().byte_offset, 0);
    let shape: Vec<i64> = t.shape().iter().map(|&n| n as i64).collect();
    let strides: Vec<i64> = t.strides().iter().map(|&s| s as i64).collect();
    prop_assert_eq!(d.shape(), &shape[..]);
    prop_assert_eq!(d.strides(), Some(&strides[..]));
    if t.numel() > 0 {
        prop_assert_eq!(d.dl_tensor().data as *const T, t.data_ptr());
    }
    let (back, report) = audit::record(|| Tensor::<T>::try_from(d));
    let back = back.unwrap();
    prop_assert_eq!(report.count(), 0);
    prop_assert_eq!(back.shape(), t.shape());
    prop_assert_eq!(back.strides(), t.strides());
    prop_assert_eq!(bits(&back.to_vec()), bits(&t.to_vec()));
    if t.numel() > 0 {
        prop_assert_eq!(back.data_ptr(), t.data_ptr());
        prop_assert!(!back.storage().is_writable(), "imports are foreign storage");
    }
    // A private copy (the only holder) goes out writable; through the legacy struct and
    // DynTensor it comes back in place.
    let alone = Tensor::from_vec(t.to_vec(), t.shape()).unwrap();
    prop_assert_eq!(
        alone.clone().to_dlpack().flags(),
        DLPACK_FLAG_BITMASK_READ_ONLY
    );
    let at = alone.data_ptr();
    let legacy = alone.to_dlpack_legacy().unwrap();
    prop_assert_eq!(legacy.version(), None);
    let dynamic = DynTensor::try_from(legacy).unwrap();
    prop_assert_eq!(dynamic.dtype(), T::DTYPE);
    let typed = dynamic.into_tensor::<T>().unwrap();
    if t.numel() > 0 {
        prop_assert_eq!(typed.data_ptr(), at);
    }
    prop_assert_eq!(bits(&typed.to_vec()), bits(&t.to_vec()));
    Ok(())
}

fn check_all(r: &Recipe) -> Result<(), TestCaseError> {
    check::<f32>(&r.random())?;
    check::<f64>(&r.random())?;
    check::<f16>(&r.random())?;
    check::<bf16>(&r.random())?;
    check::<i8>(&r.random())?;
    check::<i16>(&r.random())?;
    check::<i32>(&r.random())?;
    check::<i64>(&r.random())?;
    check::<u8>(&r.random())?;
    check::<u16>(&r.random())?;
    check::<u32>(&r.random())?;
    check::<u64>(&r.random())
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn random_views_of_every_dtype_round_trip_in_place(r in arb_recipe()) {
        check_all(&r)?;
    }

    #[test]
    fn channels_last_views_keep_their_strides(
        n in 1usize..3, c in 1usize..4, h in 1usize..4, w in 1usize..4, seed in any::<u64>(),
    ) {
        let r = Recipe { shape: vec![n, c, h, w], ops: vec![], seed };
        let t = r.random::<f32>().contiguous_in(MemoryFormat::ChannelsLast).unwrap();
        check::<f32>(&t)?;
        check::<bf16>(&r.random::<bf16>().contiguous_in(MemoryFormat::ChannelsLast).unwrap())?;
    }
}

#[test]
fn the_last_holder_exports_writable_and_a_copy_is_audited() {
    let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    let (c, report) = audit::record(|| t.t().unwrap().to_dlpack_copy());
    let c = c.unwrap();
    assert_eq!(report.count(), 1);
    assert_eq!(report.events()[0].reason, CopyReason::DLPackExport);
    assert!(c.is_copied() && !c.is_read_only());
    assert_eq!(c.flags(), DLPACK_FLAG_BITMASK_IS_COPIED);
    let at = t.data_ptr();
    let d = t.to_dlpack();
    assert_eq!(d.flags(), 0, "held alone, stridex's own memory");
    assert_eq!(d.dl_tensor().data as *const i32, at);
    // An imported tensor is foreign: a write copies first (copy-on-write, audited) and the
    // producer's memory is left as it was.
    let mut back = Tensor::<i32>::try_from(d).unwrap();
    let (w, report) = audit::record(|| back.fill(7));
    w.unwrap();
    assert_eq!(report.events()[0].reason, CopyReason::CopyOnWrite);
    assert_ne!(back.data_ptr(), at);
    assert_eq!(back.to_vec(), vec![7; 6]);
}

/// A producer's block made by hand: the managed struct, what it points to, and a counter its
/// deleter bumps.
#[repr(C)]
struct Hand<H> {
    managed: H,
    _data: Vec<u64>,
    _shape: Vec<i64>,
    _strides: Vec<i64>,
    deletions: Arc<AtomicUsize>,
}

unsafe extern "C" fn delete_versioned(managed: *mut DLManagedTensorVersioned) {
    // SAFETY: made by `hand` through `Box::into_raw`; the tests check it is freed once.
    let block = unsafe { Box::from_raw(managed.cast::<Hand<DLManagedTensorVersioned>>()) };
    block.deletions.fetch_add(1, Ordering::SeqCst);
}

unsafe extern "C" fn delete_legacy(managed: *mut DLManagedTensor) {
    // SAFETY: as `delete_versioned`.
    let block = unsafe { Box::from_raw(managed.cast::<Hand<DLManagedTensor>>()) };
    block.deletions.fetch_add(1, Ordering::SeqCst);
}

/// The pieces of a hand-made tensor over `data` (8-byte words), edited by `edit`.
fn parts(
    data: &mut Vec<u64>,
    dtype: DType,
    shape: &mut Vec<i64>,
    strides: &mut Option<Vec<i64>>,
    edit: impl FnOnce(&mut DLTensor),
) -> DLTensor {
    let mut dl = DLTensor {
        data: data.as_mut_ptr().cast::<c_void>(),
        device: DLDevice::CPU,
        ndim: shape.len() as i32,
        dtype: DLDataType::from_dtype(dtype),
        shape: shape.as_mut_ptr(),
        strides: strides
            .as_mut()
            .map_or(std::ptr::null_mut(), |s| s.as_mut_ptr()),
        byte_offset: 0,
    };
    edit(&mut dl);
    dl
}

type Made<H> = (*mut H, Arc<AtomicUsize>);

fn versioned(
    mut data: Vec<u64>,
    dtype: DType,
    mut shape: Vec<i64>,
    mut strides: Option<Vec<i64>>,
    edit: impl FnOnce(&mut DLTensor),
) -> Made<DLManagedTensorVersioned> {
    let dl_tensor = parts(&mut data, dtype, &mut shape, &mut strides, edit);
    let deletions = Arc::new(AtomicUsize::new(0));
    let block = Box::new(Hand {
        managed: DLManagedTensorVersioned {
            version: stridex::interop::dlpack::DLPACK_VERSION,
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete_versioned),
            flags: 0,
            dl_tensor,
        },
        _data: data,
        _shape: shape,
        _strides: strides.unwrap_or_default(),
        deletions: deletions.clone(),
    });
    (Box::into_raw(block).cast(), deletions)
}

fn legacy(
    mut data: Vec<u64>,
    dtype: DType,
    mut shape: Vec<i64>,
    mut strides: Option<Vec<i64>>,
) -> Made<DLManagedTensor> {
    let dl_tensor = parts(&mut data, dtype, &mut shape, &mut strides, |_| {});
    let deletions = Arc::new(AtomicUsize::new(0));
    let block = Box::new(Hand {
        managed: DLManagedTensor {
            dl_tensor,
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete_legacy),
        },
        _data: data,
        _shape: shape,
        _strides: strides.unwrap_or_default(),
        deletions: deletions.clone(),
    });
    (Box::into_raw(block).cast(), deletions)
}

fn count(n: &AtomicUsize) -> usize {
    n.load(Ordering::SeqCst)
}

#[test]
fn a_producers_deleter_runs_once_when_the_last_view_drops() {
    let data: Vec<u64> = (0..12).collect();
    let at = data.as_ptr();
    // Row-major u64 [3, 4] read from its last element with both strides negated.
    let (p, n) = versioned(data, DType::U64, vec![3, 4], Some(vec![-4, -1]), |t| {
        t.byte_offset = 11 * 8;
    });
    // SAFETY: a valid hand-made tensor, owned by nothing else.
    let t = unsafe { Tensor::<u64>::from_dlpack(p) }.unwrap();
    assert_eq!(t.to_vec(), (0..12).rev().collect::<Vec<u64>>());
    assert_eq!(
        t.storage().as_ptr(),
        at,
        "the span starts at the lowest element"
    );
    assert_eq!((t.offset(), t.storage().len()), (11, 12));
    let views = [
        t.t().unwrap(),
        t.narrow(0, 1, 1).unwrap(),
        t.flip(1).unwrap(),
    ];
    let exported = t.clone().to_dlpack();
    drop(t);
    drop(views);
    assert_eq!(count(&n), 0, "the export still holds the storage");
    drop(exported);
    assert_eq!(count(&n), 1);

    // Legacy, null strides, dropped on another thread.
    let (p, n) = legacy(vec![1, 2, 3], DType::I64, vec![3], None);
    // SAFETY: as above.
    let t = unsafe { DynTensor::from_dlpack_legacy(p) }.unwrap();
    assert_eq!(t.as_tensor::<i64>().unwrap().to_vec(), vec![1, 2, 3]);
    std::thread::spawn(move || drop(t)).join().unwrap();
    assert_eq!(count(&n), 1);

    // A consumer calling an export's deleter by hand (as C code does) drops the storage once.
    let t = Tensor::from_vec(vec![1.5f32; 4], &[4]).unwrap();
    let weak = Arc::downgrade(t.storage());
    let raw = t.to_dlpack().into_raw();
    assert!(weak.upgrade().is_some());
    // SAFETY: an export's pointer, deleted once.
    unsafe { ManagedTensor::delete(raw.as_ptr()) };
    assert!(weak.upgrade().is_none());
}

/// A hand-made f32 tensor of `shape` over 16 words with `edit` applied: the import's error,
/// after checking the deleter ran exactly once.
fn refused(shape: Vec<i64>, strides: Option<Vec<i64>>, edit: impl FnOnce(&mut DLTensor)) -> Error {
    let (p, n) = versioned(vec![0; 16], DType::F32, shape, strides, edit);
    // SAFETY: pointers valid (only the described values are wrong), owned by nothing else.
    let err = unsafe { Tensor::<f32>::from_dlpack(p) }.unwrap_err();
    assert_eq!(count(&n), 1, "deleted once after: {err}");
    err
}

#[test]
fn every_malformed_tensor_is_an_error_and_still_deleted() {
    let cases: Vec<(&str, Error)> = vec![
        (
            "kDLCUDA",
            refused(vec![2], None, |t| t.device.device_type = device_type::CUDA),
        ),
        (
            "kDLROCM",
            refused(vec![2], None, |t| t.device.device_type = device_type::ROCM),
        ),
        ("x 4 lanes", refused(vec![2], None, |t| t.dtype.lanes = 4)),
        (
            "bool8",
            refused(vec![2], None, |t| {
                t.dtype = DLDataType {
                    code: type_code::BOOL,
                    bits: 8,
                    lanes: 1,
                }
            }),
        ),
        (
            "complex64",
            refused(vec![2], None, |t| {
                t.dtype = DLDataType {
                    code: type_code::COMPLEX,
                    bits: 64,
                    lanes: 1,
                }
            }),
        ),
        ("float24", refused(vec![2], None, |t| t.dtype.bits = 24)),
        ("ndim is -2", refused(vec![2], None, |t| t.ndim = -2)),
        (
            "shape is null",
            refused(vec![2], None, |t| t.shape = std::ptr::null_mut()),
        ),
        ("size -1", refused(vec![3, -1], None, |_| {})),
        (
            "data is null",
            refused(vec![2], None, |t| t.data = std::ptr::null_mut()),
        ),
        ("not aligned", refused(vec![2], None, |t| t.byte_offset = 1)),
        ("overflows", refused(vec![1 << 32, 1 << 32], None, |_| {})),
        ("overflows", refused(vec![2], Some(vec![i64::MAX]), |_| {})),
        (
            "overflows",
            refused(vec![2, 2], Some(vec![i64::MIN, 1]), |_| {}),
        ),
        (
            "overflows",
            refused(vec![2], None, |t| t.byte_offset = u64::MAX - 3),
        ),
        // Negative strides reaching below address 0.
        (
            "overflows",
            refused(vec![2], Some(vec![-(1 << 60)]), |_| {}),
        ),
        ("not f32", {
            let (p, n) = versioned(vec![0; 2], DType::I32, vec![2], None, |_| {});
            // SAFETY: as in `refused`.
            let e = unsafe { Tensor::<f32>::from_dlpack(p) }.unwrap_err();
            assert_eq!(count(&n), 1);
            e
        }),
        ("version is 3.7", {
            let (p, n) = versioned(vec![0; 2], DType::F32, vec![2], None, |_| {});
            // SAFETY: valid and owned here; only the version changes.
            unsafe {
                (*p).version = stridex::interop::dlpack::DLPackVersion { major: 3, minor: 7 }
            };
            // SAFETY: as in `refused`.
            let e = unsafe { DynTensor::from_dlpack(p) }.unwrap_err();
            assert_eq!(count(&n), 1);
            e
        }),
    ];
    for (needle, err) in cases {
        let msg = err.to_string();
        assert!(msg.contains(needle), "expected {needle:?} in: {msg}");
        assert!(msg.starts_with("from_dlpack"), "names the op: {msg}");
    }
    // SAFETY: null is allowed and owns nothing.
    assert!(unsafe { Tensor::<f32>::from_dlpack(std::ptr::null_mut()) }.is_err());
}

#[test]
fn a_wrapped_pointer_round_trips_through_into_raw_and_from_raw() {
    let t = Tensor::from_vec(vec![1u8, 2, 3, 4], &[2, 2]).unwrap();
    let at = t.data_ptr();
    let raw = t.t().unwrap().to_dlpack().into_raw();
    // SAFETY: `into_raw` gave it up; owned by nothing else.
    let d: DLPackTensor = unsafe { DLPackTensor::from_raw(raw) };
    let back = Tensor::<u8>::try_from(d).unwrap();
    assert_eq!((back.data_ptr(), back.to_vec()), (at, vec![1, 3, 2, 4]));
}

#[test]
fn sizes_match_the_c_header() {
    assert_eq!(std::mem::size_of::<DLTensor>(), 48);
    assert_eq!(std::mem::size_of::<DLManagedTensor>(), 64);
    assert_eq!(std::mem::size_of::<DLManagedTensorVersioned>(), 80);
    let _ = <u8 as Element>::DTYPE;
}
