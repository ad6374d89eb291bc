//! Import: a managed DLPack tensor as a [`Tensor`] reading the producer's memory in place.
//!
//! The managed tensor becomes the owner of a foreign-bytes storage
//! ([`Storage::from_byte_owner`]) spanning exactly the elements the view addresses, from the
//! lowest address (which precedes `data` when a stride is negative) to the highest; the layout's
//! offset is the distance from that start to element `[0, 0, ..]`. Dropping the last tensor on
//! the storage drops the owner, which calls the producer's deleter once. Every check happens
//! before the storage is made; a failed import calls the deleter before returning.

use std::ptr::NonNull;
use std::sync::Arc;

use half::{bf16, f16};

use super::ffi::{
    DLManagedTensor, DLManagedTensorVersioned, DLPACK_VERSION, DLTensor, device_type,
};
use super::owned::{DLPackTensor, ManagedTensor, dims};
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::interop::DynTensor;
use crate::layout::{Layout, checked_numel};
use crate::storage::Storage;
use crate::tensor::Tensor;

/// A managed tensor owned by stridex: the bytes of its span, and the deleter call on drop.
struct Imported<H: ManagedTensor> {
    managed: NonNull<H>,
    /// The lowest byte the view addresses (dangling and aligned when the span is empty).
    start: NonNull<u8>,
    /// Bytes from `start` past the highest element the view addresses.
    len: usize,
}

// SAFETY: the bytes are only read (foreign storage is never written), and a DLPack deleter may
// be called from any thread (`from_dlpack`'s contract; NumPy's takes the GIL itself, PyTorch's
// frees a C++ tensor), so the owner may move to, and be shared with, other threads.
unsafe impl<H: ManagedTensor> Send for Imported<H> {}
// SAFETY: see `Send`: shared access only reads the bytes.
unsafe impl<H: ManagedTensor> Sync for Imported<H> {}

impl<H: ManagedTensor> AsRef<[u8]> for Imported<H> {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `start .. start + len` is the span `parse` checked (inside the address space,
        // at most isize::MAX bytes); `from_dlpack`'s contract makes it readable, and not
        // written meanwhile, until the deleter runs, which happens only when `self` drops.
        unsafe { std::slice::from_raw_parts(self.start.as_ptr(), self.len) }
    }
}

impl<H: ManagedTensor> Drop for Imported<H> {
    fn drop(&mut self) {
        // SAFETY: owned (handed over to `from_dlpack`), and this is its one drop.
        unsafe { H::delete(self.managed.as_ptr()) }
    }
}

/// A DLPack tensor checked against everything stridex needs.
struct Parsed {
    dtype: DType,
    shape: Vec<usize>,
    strides: Vec<isize>,
    /// Elements from the span's start to element `[0, 0, ..]`.
    offset: usize,
    /// Elements in the span.
    span: usize,
    /// The span's first byte.
    start: NonNull<u8>,
}

fn invalid(message: String) -> Error {
    Error::InvalidArgument {
        op: "from_dlpack",
        message,
    }
}

/// Checks the tensor of `managed` and finds the span it addresses.
fn parse<H: ManagedTensor>(managed: &H) -> Result<Parsed> {
    if let Some(v) = managed.version() {
        if v.major != DLPACK_VERSION.major {
            return Err(invalid(format!(
                "the producer's DLPack version is {}.{}, stridex reads major version {}; ask \
                 the producer for version {}.x (max_version=({}, {}) in Python)",
                v.major,
                v.minor,
                DLPACK_VERSION.major,
                DLPACK_VERSION.major,
                DLPACK_VERSION.major,
                DLPACK_VERSION.minor
            )));
        }
    }
    let t: &DLTensor = managed.dl_tensor();
    let device = t.device.device_type;
    if device != device_type::CPU && device != device_type::CUDA_HOST {
        return Err(invalid(format!(
            "the tensor lives on device type {device} ({}), id {}; stridex reads CPU memory \
             (kDLCPU, or kDLCUDAHost pinned memory) only; move it to the CPU first (e.g. \
             .cpu() in PyTorch)",
            device_type::name(device),
            t.device.device_id
        )));
    }
    let dtype = t.dtype.to_dtype()?;
    let ndim = usize::try_from(t.ndim)
        .map_err(|_| invalid(format!("ndim is {}; give a non-negative ndim", t.ndim)))?;
    if ndim > 0 && t.shape.is_null() {
        return Err(invalid(format!(
            "shape is null for a tensor of {ndim} dims; a DLPack producer must give ndim sizes"
        )));
    }
    // SAFETY: `from_dlpack`'s contract: `shape` holds `ndim` entries (non-null: checked).
    let raw_shape = unsafe { dims(t.shape, t.ndim) };
    let shape = raw_shape
        .iter()
        .enumerate()
        .map(|(d, &n)| {
            usize::try_from(n).map_err(|_| {
                invalid(format!(
                    "shape {raw_shape:?} has size {n} at dim {d}; sizes must be non-negative"
                ))
            })
        })
        .collect::<Result<Vec<usize>>>()?;
    let overflow = |shape: &[usize], strides: &[isize]| Error::Overflow {
        op: "from_dlpack",
        shape: shape.to_vec(),
        strides: strides.to_vec(),
    };
    let numel = checked_numel(&shape).ok_or_else(|| overflow(&shape, &[]))?;
    let strides = if t.strides.is_null() {
        // Compact row-major.
        let mut strides = vec![0isize; ndim];
        let mut step = 1isize;
        for d in (0..ndim).rev() {
            strides[d] = step;
            // Cannot overflow: the product of all sizes fits isize (checked_numel), and an
            // empty tensor's strides are never used to address anything.
            step = step.saturating_mul(shape[d].max(1) as isize);
        }
        strides
    } else {
        // SAFETY: `from_dlpack`'s contract: non-null `strides` hold `ndim` entries.
        let raw = unsafe { dims(t.strides, t.ndim) };
        raw.iter()
            .map(|&s| isize::try_from(s).map_err(|_| overflow(&shape, &[])))
            .collect::<Result<Vec<isize>>>()?
    };
    if numel == 0 {
        // Nothing is read: an empty span at an aligned dangling address, whatever `data` is.
        let start = NonNull::<u64>::dangling().cast::<u8>();
        return Ok(Parsed {
            dtype,
            shape,
            strides,
            offset: 0,
            span: 0,
            start,
        });
    }
    if t.data.is_null() {
        return Err(invalid(format!(
            "data is null for a tensor of shape {shape:?} ({numel} elements); a non-empty \
             tensor needs its memory"
        )));
    }
    // The lowest and highest element offsets from element [0, 0, ..], exactly (i128 cannot
    // overflow: at most 2^31 dims of products of two 64-bit numbers).
    let (mut lo, mut hi) = (0i128, 0i128);
    for (&n, &s) in shape.iter().zip(&strides) {
        let reach = (n as i128 - 1) * s as i128;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    let size = dtype.size() as i128;
    let first = t.data as usize as i128 + i128::from(t.byte_offset);
    let start_addr = first + lo * size;
    let span = hi - lo + 1;
    let end_addr = start_addr + span * size;
    if start_addr <= 0 || end_addr > usize::MAX as i128 || span * size > isize::MAX as i128 {
        return Err(overflow(&shape, &strides));
    }
    if start_addr % dtype.size() as i128 != 0 {
        return Err(invalid(format!(
            "the lowest element it addresses is at address {start_addr:#x} (data {:p} + \
             byte_offset {} + {lo} elements), not aligned to {} bytes as {dtype} needs; \
             stridex reads elements in place only at their alignment: copy the array first \
             (e.g. np.array(a, copy=True))",
            t.data,
            t.byte_offset,
            dtype.size()
        )));
    }
    // Keeps the provenance of `data`; the integer checks above make the address valid.
    let start = t
        .data
        .cast::<u8>()
        .wrapping_add(t.byte_offset as usize)
        .wrapping_offset((lo * size) as isize);
    // Non-null: its address was checked to be positive.
    let start = NonNull::new(start).ok_or_else(|| overflow(&shape, &strides))?;
    Ok(Parsed {
        dtype,
        shape,
        strides,
        offset: (-lo) as usize,
        span: span as usize,
        start,
    })
}

/// The tensor of `parsed` over `owner`'s span (which takes over the deleter).
fn build<T: Element, H: ManagedTensor>(
    mut owner: Imported<H>,
    parsed: Parsed,
) -> Result<Tensor<T>> {
    debug_assert_eq!(parsed.dtype, T::DTYPE);
    let layout = Layout::checked("from_dlpack", &parsed.shape, &parsed.strides, parsed.offset)?;
    owner.start = parsed.start;
    owner.len = parsed.span * std::mem::size_of::<T>();
    let storage = Storage::<T>::from_byte_owner(Arc::new(owner), 0, parsed.span)?;
    Tensor::from_storage(storage, layout)
}

/// Takes ownership of `managed` (null: nothing to own) and parses it; on error the deleter has
/// run when this returns.
///
/// # Safety
/// As [`Tensor::from_dlpack`].
unsafe fn take<H: ManagedTensor>(managed: *mut H) -> Result<(Imported<H>, Parsed)> {
    let managed = NonNull::new(managed)
        .ok_or_else(|| invalid("the managed tensor pointer is null".to_string()))?;
    let owner = Imported {
        managed,
        start: NonNull::dangling(),
        len: 0,
    };
    // SAFETY: the caller's contract: a valid managed tensor, not written while stridex owns it.
    // On error `owner` drops here and calls the deleter.
    let parsed = parse(unsafe { managed.as_ref() })?;
    Ok((owner, parsed))
}

/// [`Tensor::from_dlpack`] for either struct.
///
/// # Safety
/// As [`Tensor::from_dlpack`].
unsafe fn import<T: Element, H: ManagedTensor>(managed: *mut H) -> Result<Tensor<T>> {
    // SAFETY: passed on from the caller.
    let (owner, parsed) = unsafe { take(managed) }?;
    if parsed.dtype != T::DTYPE {
        return Err(Error::DTypeMismatch {
            op: "from_dlpack",
            expected: T::DTYPE,
            got: parsed.dtype,
        });
    }
    build(owner, parsed)
}

/// [`DynTensor::from_dlpack`] for either struct.
///
/// # Safety
/// As [`Tensor::from_dlpack`].
unsafe fn import_dyn<H: ManagedTensor>(managed: *mut H) -> Result<DynTensor> {
    // SAFETY: passed on from the caller.
    let (owner, parsed) = unsafe { take(managed) }?;
    Ok(match parsed.dtype {
        DType::F16 => build::<f16, H>(owner, parsed)?.into(),
        DType::BF16 => build::<bf16, H>(owner, parsed)?.into(),
        DType::F32 => build::<f32, H>(owner, parsed)?.into(),
        DType::F64 => build::<f64, H>(owner, parsed)?.into(),
        DType::I8 => build::<i8, H>(owner, parsed)?.into(),
        DType::I16 => build::<i16, H>(owner, parsed)?.into(),
        DType::I32 => build::<i32, H>(owner, parsed)?.into(),
        DType::I64 => build::<i64, H>(owner, parsed)?.into(),
        DType::U8 => build::<u8, H>(owner, parsed)?.into(),
        DType::U16 => build::<u16, H>(owner, parsed)?.into(),
        DType::U32 => build::<u32, H>(owner, parsed)?.into(),
        DType::U64 => build::<u64, H>(owner, parsed)?.into(),
    })
}

impl<T: Element> Tensor<T> {
    /// A tensor reading a DLPack 1.x managed tensor's memory in place (no copy; the copy
    /// audit records nothing).
    ///
    /// Accepted: CPU memory (`kDLCPU`, and `kDLCUDAHost`: pinned host memory, read like any
    /// CPU memory), DLPack major version 1, one-lane elements of type `T`, any strides
    /// (negative, zero, or null for compact row-major), any `byte_offset`. The storage spans
    /// exactly the elements the view addresses. It is foreign memory: stridex never writes
    /// it, whatever the `READ_ONLY` flag says; a write to the tensor copies first
    /// (copy-on-write, audited). The producer's own writes stay visible to the tensor.
    ///
    /// Ownership of `managed` passes to this call in every case: on success the deleter runs
    /// once, when the last tensor sharing the storage drops (on whatever thread that is); on
    /// error it has run before this returns.
    ///
    /// # Safety
    /// `managed` is null, or points to a managed tensor that is valid as DLPack describes:
    /// `shape` (and `strides`, unless null) hold `ndim` aligned `i64`s; every element the
    /// tensor addresses is readable memory from `data + byte_offset` until the deleter runs,
    /// and is not written while stridex reads it (the producer's writes between reads are
    /// fine: stridex holds no reference across calls); the deleter, if any, may be called
    /// from any thread, once. No one else calls the deleter.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (saying what was found and what to do) for a null pointer,
    /// another major version, a device other than the CPU, an element type stridex lacks or
    /// with lanes != 1, a negative `ndim` or size, null `shape` with `ndim > 0`, null `data`
    /// for a non-empty tensor, or a first element not aligned for `T`;
    /// [`Error::DTypeMismatch`] if the elements are not `T`s ([`DynTensor::from_dlpack`]
    /// takes any); [`Error::Overflow`] if the element count, a stride or the span's address
    /// range overflows.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let t = Tensor::from_vec((0..6).collect::<Vec<u32>>(), &[2, 3])?;
    /// let raw = t.t()?.to_dlpack().into_raw().as_ptr();
    /// // SAFETY: a managed tensor an export made and no one else owns.
    /// let back = unsafe { Tensor::<u32>::from_dlpack(raw) }?;
    /// assert_eq!(back.data_ptr(), t.data_ptr()); // read in place
    /// assert_eq!(back.to_vec(), vec![0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub unsafe fn from_dlpack(managed: *mut DLManagedTensorVersioned) -> Result<Tensor<T>> {
        // SAFETY: the caller's contract is the one `import` needs.
        unsafe { import(managed) }
    }

    /// [`Tensor::from_dlpack`] for the legacy (pre-1.0) managed tensor, which has no version
    /// and no flags.
    ///
    /// # Safety
    /// As [`Tensor::from_dlpack`].
    ///
    /// # Errors
    /// As [`Tensor::from_dlpack`], without the version check.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let raw = Tensor::from_vec(vec![1i8, -2], &[2])?.to_dlpack_legacy()?.into_raw();
    /// // SAFETY: a managed tensor an export made and no one else owns.
    /// let back = unsafe { Tensor::<i8>::from_dlpack_legacy(raw.as_ptr()) }?;
    /// assert_eq!(back.to_vec(), vec![1, -2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub unsafe fn from_dlpack_legacy(managed: *mut DLManagedTensor) -> Result<Tensor<T>> {
        // SAFETY: the caller's contract is the one `import` needs.
        unsafe { import(managed) }
    }
}

impl DynTensor {
    /// [`Tensor::from_dlpack`] for any element type: the variant follows the DLPack dtype.
    ///
    /// # Safety
    /// As [`Tensor::from_dlpack`].
    ///
    /// # Errors
    /// As [`Tensor::from_dlpack`], never [`Error::DTypeMismatch`].
    ///
    /// ```
    /// use stridex::{interop::DynTensor, DType, Tensor};
    /// let raw = Tensor::from_vec(vec![1.5f64], &[1])?.to_dlpack().into_raw();
    /// // SAFETY: a managed tensor an export made and no one else owns.
    /// let d = unsafe { DynTensor::from_dlpack(raw.as_ptr()) }?;
    /// assert_eq!(d.dtype(), DType::F64);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub unsafe fn from_dlpack(managed: *mut DLManagedTensorVersioned) -> Result<DynTensor> {
        // SAFETY: the caller's contract is the one `import_dyn` needs.
        unsafe { import_dyn(managed) }
    }

    /// [`DynTensor::from_dlpack`] for the legacy managed tensor.
    ///
    /// # Safety
    /// As [`Tensor::from_dlpack`].
    ///
    /// # Errors
    /// As [`Tensor::from_dlpack_legacy`], never [`Error::DTypeMismatch`].
    ///
    /// ```
    /// use stridex::{interop::DynTensor, DType, Tensor};
    /// let raw = Tensor::from_vec(vec![7u64], &[1])?.to_dlpack_legacy()?.into_raw();
    /// // SAFETY: a managed tensor an export made and no one else owns.
    /// let d = unsafe { DynTensor::from_dlpack_legacy(raw.as_ptr()) }?;
    /// assert_eq!(d.dtype(), DType::U64);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub unsafe fn from_dlpack_legacy(managed: *mut DLManagedTensor) -> Result<DynTensor> {
        // SAFETY: the caller's contract is the one `import_dyn` needs.
        unsafe { import_dyn(managed) }
    }
}

impl<T: Element, H: ManagedTensor> TryFrom<DLPackTensor<H>> for Tensor<T> {
    type Error = Error;

    /// Imports an owned managed tensor ([`Tensor::from_dlpack`] without `unsafe`: the
    /// wrapper's own contract made it valid).
    fn try_from(managed: DLPackTensor<H>) -> Result<Tensor<T>> {
        // SAFETY: a `DLPackTensor` owns a valid managed tensor (its constructors' contract,
        // which is `from_dlpack`'s); `into_raw` gives that ownership up to the import.
        unsafe { import(managed.into_raw().as_ptr()) }
    }
}

impl<H: ManagedTensor> TryFrom<DLPackTensor<H>> for DynTensor {
    type Error = Error;

    /// Imports an owned managed tensor of any element type.
    fn try_from(managed: DLPackTensor<H>) -> Result<DynTensor> {
        // SAFETY: as for `Tensor::try_from`.
        unsafe { import_dyn(managed.into_raw().as_ptr()) }
    }
}
