//! Export: a [`Tensor`] as a managed DLPack tensor that owns the tensor's storage `Arc`.
//!
//! One heap block holds the managed struct (first, so a pointer to the block is a pointer to
//! it), the storage `Arc` and the shape and strides arrays the struct points into. The
//! deleter frees that block, dropping the `Arc`; it catches any panic (dropping a storage
//! whose bytes belong to another owner runs that owner's drop), so it never unwinds into the
//! consumer's C code.

use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::NonNull;
use std::sync::Arc;

use super::ffi::{
    DLDataType, DLDevice, DLPACK_FLAG_BITMASK_IS_COPIED, DLPACK_FLAG_BITMASK_READ_ONLY, DLTensor,
};
use super::owned::{DLPackTensor, LegacyDLPackTensor, ManagedTensor};
use crate::audit::CopyReason;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::storage::Storage;
use crate::tensor::Tensor;

/// The block a managed pointer of an export points to.
#[repr(C)]
struct Exported<H, T: Element> {
    /// First: the block's address is the managed struct's.
    managed: H,
    /// Keeps the elements alive; dropped by the deleter.
    _storage: Arc<Storage<T>>,
    /// `ndim` sizes then `ndim` strides; `managed.dl_tensor` points into it.
    _dims: Vec<i64>,
}

/// The deleter of every export: frees the block, dropping the storage `Arc`, and never
/// unwinds.
///
/// # Safety
/// `managed` is null or a pointer an export made (through `Box::into_raw` of an
/// `Exported<H, T>`), passed here once.
unsafe extern "C" fn delete_exported<H, T: Element>(managed: *mut H) {
    if managed.is_null() {
        return;
    }
    let freed = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the caller's guarantee: the block came from `Box::into_raw` of this type
        // (`managed` is its first field, `repr(C)`), and is freed only here, once.
        drop(unsafe { Box::from_raw(managed.cast::<Exported<H, T>>()) });
    }));
    if let Err(payload) = freed {
        // Dropping the payload could panic again; leaking it cannot.
        std::mem::forget(payload);
    }
}

/// Whether a consumer of `t`'s memory must not write it: the storage is shared (another
/// `Arc` or a `Weak`), foreign (bytes stridex does not own), or the layout addresses an
/// element twice (a broadcast view).
fn needs_read_only<T: Element>(t: &Tensor<T>) -> bool {
    let s = t.storage();
    Arc::strong_count(s) > 1
        || Arc::weak_count(s) > 0
        || !s.is_writable()
        || !t.layout().is_non_overlapping()
}

/// Moves `t` into a fresh export block with these extra flags (`READ_ONLY` is added here).
fn export<H: ManagedTensor, T: Element>(t: Tensor<T>, extra_flags: u64) -> DLPackTensor<H> {
    let flags = extra_flags
        | if needs_read_only(&t) {
            DLPACK_FLAG_BITMASK_READ_ONLY
        } else {
            0
        };
    let ndim = t.ndim();
    // A `Vec`, not a `Box<[i64]>`: moving it into the block below moves only its pointer
    // (a `Box` move would re-assert unique ownership of the elements and, for Miri, invalidate
    // the raw pointers taken here).
    let mut dims: Vec<i64> = t
        .shape()
        .iter()
        // A shape entry is at most isize::MAX (layout invariant), so it fits an i64.
        .map(|&n| n as i64)
        .chain(t.strides().iter().map(|&s| s as i64))
        .collect();
    let shape = dims.as_mut_ptr();
    // In bounds or one past the end (`2 * ndim` entries).
    let strides = shape.wrapping_add(ndim);
    // The element at the view's offset, where DLPack's `data` points (byte_offset 0). An empty
    // view's offset may lie past the storage; its data is never read, so the storage's start
    // (non-null, aligned) is given instead.
    let data = if t.numel() == 0 {
        t.storage().as_ptr()
    } else {
        t.data_ptr()
    };
    let dl_tensor = DLTensor {
        data: data.cast_mut().cast::<c_void>(),
        device: DLDevice::CPU,
        // Layouts have far fewer than 2^31 dims (each of size >= 1 multiplies the count).
        ndim: ndim as i32,
        dtype: DLDataType::from_dtype(T::DTYPE),
        shape,
        strides,
        byte_offset: 0,
    };
    let storage = Arc::clone(t.storage());
    drop(t);
    let block = Box::into_raw(Box::new(Exported {
        managed: H::header(dl_tensor, flags, delete_exported::<H, T>),
        _storage: storage,
        _dims: dims,
    }));
    // SAFETY: made here (`Box::into_raw` is never null), owned by nothing else; its deleter
    // frees it.
    unsafe { DLPackTensor::from_raw(NonNull::new_unchecked(block.cast::<H>())) }
}

impl<T: Element> Tensor<T> {
    /// This tensor as a DLPack 1.x managed tensor, without a copy: `data` is the address of
    /// element `[0, 0, ..]` (the view's offset is baked in, `byte_offset` is 0), `strides` are
    /// the view's own in elements (negative and zero ones included), the device is the CPU.
    ///
    /// The tensor is moved into the export, which keeps its storage alive until the
    /// consumer calls the deleter (or the [`DLPackTensor`] is dropped). The `READ_ONLY` flag
    /// is set unless the export is the storage's only holder, the storage is stridex's own
    /// memory and no element is addressed twice: export a clone (`t.clone().to_dlpack()`) to
    /// keep using `t`, and the consumer gets read-only memory. No copy is made, so the copy
    /// audit records nothing.
    ///
    /// Consumers that refuse negative strides (PyTorch tensors cannot have them; depending on
    /// its version `torch.from_dlpack` refuses or copies such a view) need `flip`ped views
    /// made contiguous first.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let t = Tensor::from_vec((0..6).collect::<Vec<i64>>(), &[2, 3])?;
    /// let at = t.data_ptr();
    /// let (d, report) = stridex::audit::record(|| t.flip(1).map(|f| f.to_dlpack()));
    /// let d = d?;
    /// assert_eq!(report.count(), 0);
    /// assert_eq!(d.dl_tensor().data as *const i64, at.wrapping_add(2));
    /// assert_eq!(d.strides(), Some(&[3i64, -1][..]));
    /// assert!(d.is_read_only()); // `t` holds the storage too
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn to_dlpack(self) -> DLPackTensor {
        export(self, 0)
    }

    /// [`Tensor::to_dlpack`] in the legacy (pre-1.0) form, for consumers that do not know
    /// the versioned one. It has no flags, so it cannot say "read-only": it is refused for a
    /// tensor whose export would be read-only.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if the storage is shared, foreign or addressed twice by the
    /// layout (the cases [`Tensor::to_dlpack`] marks read-only); export with
    /// [`Tensor::to_dlpack`], or a copy with [`Tensor::to_dlpack_legacy_copy`] (a copy is
    /// never shared).
    ///
    /// ```
    /// use stridex::Tensor;
    /// let t = Tensor::from_vec(vec![1.0f32, 2.0], &[2])?;
    /// assert!(t.clone().to_dlpack_legacy().is_err()); // `t` shares it
    /// let d = t.to_dlpack_legacy()?;
    /// assert_eq!(d.version(), None);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn to_dlpack_legacy(self) -> Result<LegacyDLPackTensor> {
        if needs_read_only(&self) {
            return Err(legacy_read_only());
        }
        Ok(export(self, 0))
    }

    /// A dense copy of this tensor in its own memory order
    /// ([`Layout::dense_like`](crate::Layout::dense_like): a channels-last or transposed
    /// tensor stays so, as NumPy's and PyTorch's copies keep theirs; gaps and negative strides
    /// go), exported with the `IS_COPIED` flag: the consumer owns the memory alone and may
    /// write it. Reported to the copy audit as [`CopyReason::DLPackExport`].
    ///
    /// # Errors
    /// As [`Tensor::try_contiguous`]: [`Error::Alloc`] or [`Error::Overflow`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let t = Tensor::from_vec(vec![1u16, 2, 3, 4], &[2, 2])?;
    /// let (d, report) = stridex::audit::record(|| t.t()?.to_dlpack_copy());
    /// let d = d?;
    /// assert_eq!(report.count(), 1);
    /// assert!(d.is_copied() && !d.is_read_only());
    /// assert_eq!(d.strides(), Some(&[1i64, 2][..])); // still transposed
    /// let nhwc = Tensor::<f32>::zeros(&[1, 4, 4, 3])?.permute(&[0, 3, 1, 2])?;
    /// assert_eq!(nhwc.to_dlpack_copy()?.strides(), Some(&[48i64, 1, 12, 3][..]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn to_dlpack_copy(&self) -> Result<DLPackTensor> {
        Ok(export(self.dlpack_copy()?, DLPACK_FLAG_BITMASK_IS_COPIED))
    }

    /// [`Tensor::to_dlpack_copy`] in the legacy form (which has no `IS_COPIED` flag): a
    /// copy is never shared, so the consumer may write it.
    ///
    /// # Errors
    /// As [`Tensor::to_dlpack_copy`].
    ///
    /// ```
    /// let t = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// let legacy = t.to_dlpack_legacy_copy()?; // `t` stays usable
    /// assert_eq!((legacy.shape(), legacy.version()), (&[2i64, 3][..], None));
    /// assert_ne!(legacy.dl_tensor().data as *const f32, t.data_ptr());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn to_dlpack_legacy_copy(&self) -> Result<LegacyDLPackTensor> {
        Ok(export(self.dlpack_copy()?, 0))
    }

    /// A fresh dense copy in this tensor's memory order for an export, reported to the audit.
    #[track_caller]
    fn dlpack_copy(&self) -> Result<Tensor<T>> {
        let dense = self.layout().dense_like()?;
        self.copy_to_fresh(dense, CopyReason::DLPackExport)
    }
}

fn legacy_read_only() -> Error {
    Error::InvalidArgument {
        op: "to_dlpack_legacy",
        message: "this export must be read-only (its storage is shared with other tensors, \
                  is not stridex's own memory, or its layout addresses an element twice), \
                  and a legacy DLPack tensor has no read-only flag; export the versioned \
                  form (to_dlpack, max_version >= (1, 0) in Python), or a copy \
                  (to_dlpack_legacy_copy, copy=True)"
            .to_string(),
    }
}
