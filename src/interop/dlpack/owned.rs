//! [`DLPackTensor`]: an owned pointer to a managed DLPack tensor, whose drop calls the
//! producer's deleter once, and the [`ManagedTensor`] trait the two managed structs share.

use std::ffi::CStr;
use std::ptr::NonNull;

use super::ffi::{
    DLManagedTensor, DLManagedTensorVersioned, DLPACK_FLAG_BITMASK_IS_COPIED,
    DLPACK_FLAG_BITMASK_READ_ONLY, DLPackVersion, DLTensor,
};

pub(crate) mod sealed {
    use super::super::ffi::DLTensor;

    /// Seals [`ManagedTensor`](super::ManagedTensor) to the two DLPack structs, and builds
    /// one for an export.
    pub trait Sealed: Sized {
        /// A header around `dl_tensor` whose deleter is `deleter` (`flags` are dropped by the
        /// legacy struct, which has none).
        fn header(
            dl_tensor: DLTensor,
            flags: u64,
            deleter: unsafe extern "C" fn(*mut Self),
        ) -> Self;
    }
}

/// What the two managed DLPack structs ([`DLManagedTensorVersioned`] and the legacy
/// [`DLManagedTensor`]) have in common: a tensor, a deleter, and (versioned only) a version
/// and flags. Sealed: implemented for those two structs only.
///
/// ```
/// use stridex::interop::dlpack::{DLManagedTensorVersioned, ManagedTensor};
/// let raw = stridex::Tensor::from_vec(vec![1u8, 2], &[2])?.to_dlpack().into_raw().as_ptr();
/// // SAFETY: an export's pointer, live until its deleter runs below.
/// let managed: &DLManagedTensorVersioned = unsafe { &*raw };
/// assert_eq!((managed.dl_tensor().ndim, managed.flags()), (1, 0));
/// assert_eq!(DLManagedTensorVersioned::CAPSULE_NAME, c"dltensor_versioned");
/// // SAFETY: owned (given up by `into_raw`), deleted once, not used afterwards.
/// unsafe { ManagedTensor::delete(raw) };
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait ManagedTensor: sealed::Sealed + 'static {
    /// The capsule name of the Python protocol: `"dltensor_versioned"` or `"dltensor"`.
    const CAPSULE_NAME: &'static CStr;
    /// The name a consumer gives the capsule once it owns the tensor:
    /// `"used_dltensor_versioned"` or `"used_dltensor"`.
    const USED_CAPSULE_NAME: &'static CStr;

    /// The tensor.
    fn dl_tensor(&self) -> &DLTensor;

    /// The producer's DLPack version; `None` for the legacy struct, which has none.
    fn version(&self) -> Option<DLPackVersion>;

    /// The flags; 0 for the legacy struct, which has none.
    fn flags(&self) -> u64;

    /// Calls `managed`'s deleter, if it has one.
    ///
    /// # Safety
    /// `managed` points to a live managed tensor that nothing uses afterwards (the deleter
    /// frees it); called at most once per tensor.
    unsafe fn delete(managed: *mut Self);
}

impl sealed::Sealed for DLManagedTensorVersioned {
    fn header(dl_tensor: DLTensor, flags: u64, deleter: unsafe extern "C" fn(*mut Self)) -> Self {
        DLManagedTensorVersioned {
            version: super::ffi::DLPACK_VERSION,
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(deleter),
            flags,
            dl_tensor,
        }
    }
}

impl ManagedTensor for DLManagedTensorVersioned {
    const CAPSULE_NAME: &'static CStr = c"dltensor_versioned";
    const USED_CAPSULE_NAME: &'static CStr = c"used_dltensor_versioned";

    fn dl_tensor(&self) -> &DLTensor {
        &self.dl_tensor
    }

    fn version(&self) -> Option<DLPackVersion> {
        Some(self.version)
    }

    fn flags(&self) -> u64 {
        self.flags
    }

    unsafe fn delete(managed: *mut Self) {
        // SAFETY: the caller guarantees `managed` is live; reading the field is a copy of a
        // function pointer.
        if let Some(deleter) = unsafe { (*managed).deleter } {
            // SAFETY: the DLPack contract: the owner calls the deleter once with the struct
            // it was given (the caller guarantees once).
            unsafe { deleter(managed) }
        }
    }
}

impl sealed::Sealed for DLManagedTensor {
    fn header(dl_tensor: DLTensor, _: u64, deleter: unsafe extern "C" fn(*mut Self)) -> Self {
        DLManagedTensor {
            dl_tensor,
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(deleter),
        }
    }
}

impl ManagedTensor for DLManagedTensor {
    const CAPSULE_NAME: &'static CStr = c"dltensor";
    const USED_CAPSULE_NAME: &'static CStr = c"used_dltensor";

    fn dl_tensor(&self) -> &DLTensor {
        &self.dl_tensor
    }

    fn version(&self) -> Option<DLPackVersion> {
        None
    }

    fn flags(&self) -> u64 {
        0
    }

    unsafe fn delete(managed: *mut Self) {
        // SAFETY: as for the versioned struct.
        if let Some(deleter) = unsafe { (*managed).deleter } {
            // SAFETY: as for the versioned struct.
            unsafe { deleter(managed) }
        }
    }
}

/// An owned managed DLPack tensor: [`DLManagedTensorVersioned`] by default, or the legacy
/// [`DLManagedTensor`] (`DLPackTensor<DLManagedTensor>`, alias [`LegacyDLPackTensor`]).
///
/// It is what [`Tensor::to_dlpack`](crate::Tensor::to_dlpack) returns: dropping it calls the
/// deleter (once), [`DLPackTensor::into_raw`] hands the pointer to a consumer (who then must
/// call the deleter once), and `Tensor::try_from` imports it back without a copy.
///
/// ```
/// use stridex::Tensor;
/// let t = Tensor::from_vec(vec![1i32, 2, 3, 4, 5, 6], &[2, 3])?;
/// let p = t.data_ptr();
/// let d = t.t()?.to_dlpack();
/// assert_eq!((d.shape(), d.strides()), (&[3i64, 2][..], Some(&[1i64, 3][..])));
/// assert!(d.is_read_only()); // `t` still shares the storage
/// let back = Tensor::<i32>::try_from(d)?;
/// assert_eq!(back.data_ptr(), p);
/// assert_eq!(back.to_vec(), vec![1, 4, 2, 5, 3, 6]);
/// # Ok::<(), stridex::Error>(())
/// ```
#[derive(Debug)]
pub struct DLPackTensor<H: ManagedTensor = DLManagedTensorVersioned> {
    managed: NonNull<H>,
}

/// The pre-1.0 form, for consumers that do not know [`DLManagedTensorVersioned`].
pub type LegacyDLPackTensor = DLPackTensor<DLManagedTensor>;

impl<H: ManagedTensor> DLPackTensor<H> {
    /// Takes ownership of a managed tensor: dropping the result calls its deleter.
    ///
    /// # Safety
    /// `managed` points to a managed tensor that is valid as the DLPack header describes
    /// (`shape` and, unless null, `strides` hold `ndim` entries; `data` is readable at every
    /// element the tensor addresses until the deleter runs; the deleter, if any, may be called
    /// from any thread), and ownership passes to the result: no one else calls its deleter.
    ///
    /// ```
    /// use stridex::interop::dlpack::DLPackTensor;
    /// let raw = stridex::Tensor::from_vec(vec![1u8, 2], &[2])?.to_dlpack().into_raw();
    /// // SAFETY: a pointer `into_raw` gave up, owned by nothing else.
    /// let again = unsafe { DLPackTensor::from_raw(raw) };
    /// assert_eq!(again.shape(), &[2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub unsafe fn from_raw(managed: NonNull<H>) -> DLPackTensor<H> {
        DLPackTensor { managed }
    }

    /// Gives up ownership: the caller (a consumer) must call the deleter exactly once.
    ///
    /// ```
    /// use stridex::interop::dlpack::DLPackTensor;
    /// let raw = stridex::Tensor::<f32>::zeros(&[3])?.to_dlpack().into_raw();
    /// // SAFETY: owned by nothing else; the wrapper's drop calls the deleter once.
    /// drop(unsafe { DLPackTensor::from_raw(raw) });
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use = "the deleter must be called, or the tensor leaks"]
    pub fn into_raw(self) -> NonNull<H> {
        std::mem::ManuallyDrop::new(self).managed
    }

    /// The managed struct, to read.
    ///
    /// ```
    /// let d = stridex::Tensor::<f32>::zeros(&[3])?.to_dlpack();
    /// assert_eq!(d.as_ptr().is_null(), false);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn as_ptr(&self) -> *mut H {
        self.managed.as_ptr()
    }

    fn header(&self) -> &H {
        // SAFETY: owned and valid (`from_raw`'s contract, or made by an export); nothing
        // writes it while `self` is borrowed.
        unsafe { self.managed.as_ref() }
    }

    /// The tensor description.
    ///
    /// ```
    /// let d = stridex::Tensor::<f64>::zeros(&[2, 2])?.to_dlpack();
    /// assert_eq!(d.dl_tensor().ndim, 2);
    /// assert_eq!(d.dl_tensor().byte_offset, 0);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn dl_tensor(&self) -> &DLTensor {
        self.header().dl_tensor()
    }

    /// The producer's version (`None` for the legacy struct).
    ///
    /// ```
    /// let d = stridex::Tensor::<f64>::zeros(&[2])?.to_dlpack();
    /// assert_eq!(d.version(), Some(stridex::interop::dlpack::DLPACK_VERSION));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn version(&self) -> Option<DLPackVersion> {
        self.header().version()
    }

    /// The flags (0 for the legacy struct).
    ///
    /// ```
    /// let d = stridex::Tensor::<f64>::zeros(&[2])?.to_dlpack();
    /// assert_eq!(d.flags(), 0); // held alone, writable, not a copy
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn flags(&self) -> u64 {
        self.header().flags()
    }

    /// Whether the consumer must not write the memory (`READ_ONLY` flag).
    ///
    /// ```
    /// let t = stridex::Tensor::<f64>::zeros(&[2])?;
    /// assert!(t.clone().to_dlpack().is_read_only()); // `t` shares the storage
    /// assert!(!t.to_dlpack().is_read_only()); // the last holder
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn is_read_only(&self) -> bool {
        self.flags() & DLPACK_FLAG_BITMASK_READ_ONLY != 0
    }

    /// Whether the producer copied the data for this export (`IS_COPIED` flag).
    ///
    /// ```
    /// let t = stridex::Tensor::<f64>::zeros(&[2])?;
    /// assert!(t.to_dlpack_copy()?.is_copied());
    /// assert!(!t.to_dlpack().is_copied());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn is_copied(&self) -> bool {
        self.flags() & DLPACK_FLAG_BITMASK_IS_COPIED != 0
    }

    /// The sizes, `ndim` of them.
    ///
    /// ```
    /// let d = stridex::Tensor::<u8>::zeros(&[2, 5])?.to_dlpack();
    /// assert_eq!(d.shape(), &[2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn shape(&self) -> &[i64] {
        let t = self.dl_tensor();
        // SAFETY: a valid DLTensor's shape holds `ndim` entries (checked non-null and
        // non-negative here); they live as long as the managed tensor, which `self` owns.
        unsafe { dims(t.shape, t.ndim) }
    }

    /// The strides in elements, `ndim` of them, or `None` when the producer left them null
    /// (compact row-major; stridex always writes them).
    ///
    /// ```
    /// let d = stridex::Tensor::<u8>::zeros(&[2, 5])?.flip(1)?.to_dlpack();
    /// assert_eq!(d.strides(), Some(&[5i64, -1][..]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn strides(&self) -> Option<&[i64]> {
        let t = self.dl_tensor();
        // SAFETY: as for `shape`.
        (!t.strides.is_null()).then(|| unsafe { dims(t.strides, t.ndim) })
    }
}

/// `ndim` entries at `p`, or none if `p` is null or `ndim` is not positive.
///
/// # Safety
/// If `p` is non-null and `ndim > 0`, `p` points to `ndim` aligned `i64`s that stay valid and
/// unwritten for `'a`.
pub(crate) unsafe fn dims<'a>(p: *const i64, ndim: i32) -> &'a [i64] {
    match usize::try_from(ndim) {
        // SAFETY: the caller's guarantee.
        Ok(n) if n > 0 && !p.is_null() => unsafe { std::slice::from_raw_parts(p, n) },
        _ => &[],
    }
}

impl<H: ManagedTensor> Drop for DLPackTensor<H> {
    fn drop(&mut self) {
        // SAFETY: owned (no one else calls the deleter), and this is its one drop.
        unsafe { H::delete(self.managed.as_ptr()) }
    }
}
