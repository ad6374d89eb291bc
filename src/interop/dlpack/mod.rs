//! Zero-copy exchange with NumPy, PyTorch, JAX, CuPy, ... through DLPack 1.x (feature
//! `dlpack`; no Python and no new dependency: the C structs are declared here, [`ffi`]).
//!
//! DLPack describes a strided tensor as C structs: a data pointer, a device, a shape, strides
//! in elements (negative and zero allowed), an element type, and a deleter the consumer calls
//! once when it is done. A stridex tensor maps onto it directly:
//!
//! | direction | call | copies | memory |
//! |---|---|---|---|
//! | export | [`Tensor::to_dlpack`] (by value) | none | shared; `READ_ONLY` unless the export is the storage's last holder |
//! | export | [`Tensor::to_dlpack_copy`] | one (audited, [`CopyReason::DLPackExport`]) | the consumer's alone, `IS_COPIED` |
//! | export | [`Tensor::to_dlpack_legacy`], [`Tensor::to_dlpack_legacy_copy`] | as above | the legacy struct has no flags, so a read-only export is refused |
//! | import | [`Tensor::from_dlpack`] / [`DynTensor::from_dlpack`] (`unsafe`, raw pointers), `Tensor::try_from(DLPackTensor)` | none | read in place as foreign storage; stridex never writes it |
//!
//! # Export
//!
//! The managed tensor owns the tensor's storage `Arc`, and its shape and strides arrays, in
//! one heap block; `data` is the address of element `[0, 0, ..]` (the view's offset baked
//! in, `byte_offset` 0) and `strides` are always given explicitly. The deleter frees the
//! block, never unwinds (panics are caught), and must be called once: [`DLPackTensor`], the
//! owning wrapper every export returns, calls it on drop unless
//! [`into_raw`](DLPackTensor::into_raw) handed the pointer to a consumer.
//!
//! `READ_ONLY` is set whenever a write by the consumer could be seen by a stridex tensor or
//! would break a storage invariant: the storage has another holder (an `Arc` or a `Weak`),
//! is foreign (a loaded file, an import), or the layout addresses an element twice (an
//! `expand`ed view). The export takes the tensor by value so that a tensor's last view can
//! be handed over writable; `t.clone().to_dlpack()` shares read-only.
//!
//! # Import
//!
//! Imports accept the versioned and the legacy struct, CPU memory only (`kDLCPU`; also
//! `kDLCUDAHost`, pinned host memory, which the CPU reads like any other), DLPack major
//! version 1, one-lane elements of the twelve stridex types (`bool` is refused: stridex has
//! no boolean element), null strides (compact row-major), negative and zero strides and any
//! `byte_offset`. Anything else is an [`Error`](crate::Error) saying what was found and what
//! to do, and the deleter has run by then (an import always takes ownership).
//!
//! The storage spans exactly the elements the view addresses, which with negative strides
//! start before `data`; the span is computed in `i128` and checked against the address space
//! and `isize::MAX` bytes. It is foreign storage ([`Storage::from_byte_owner`]), so stridex
//! never writes it, even when the producer allows writes: a write to the tensor copies first
//! (copy-on-write, audited). The producer's own writes (a NumPy array written in Python) are
//! visible to the tensor, which reads in place.
//!
//! # Copy audit
//!
//! An exchange without a copy records nothing, as a view does: a [`record`] scope around
//! `to_dlpack` or `from_dlpack` reports zero copies. The copying exports report one
//! [`CopyReason::DLPackExport`] event.
//!
//! [`Tensor::to_dlpack`]: crate::Tensor::to_dlpack
//! [`Tensor::to_dlpack_copy`]: crate::Tensor::to_dlpack_copy
//! [`Tensor::to_dlpack_legacy`]: crate::Tensor::to_dlpack_legacy
//! [`Tensor::to_dlpack_legacy_copy`]: crate::Tensor::to_dlpack_legacy_copy
//! [`Tensor::from_dlpack`]: crate::Tensor::from_dlpack
//! [`DynTensor::from_dlpack`]: crate::interop::DynTensor::from_dlpack
//! [`CopyReason::DLPackExport`]: crate::audit::CopyReason::DLPackExport
//! [`record`]: crate::audit::record
//! [`Storage::from_byte_owner`]: crate::Storage::from_byte_owner

mod export;
pub mod ffi;
mod import;
mod owned;
#[cfg(test)]
mod tests;

pub use ffi::{
    DLDataType, DLDevice, DLManagedTensor, DLManagedTensorVersioned, DLPACK_FLAG_BITMASK_IS_COPIED,
    DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_VERSION, DLPackVersion, DLTensor, device_type, type_code,
};
pub use owned::{DLPackTensor, LegacyDLPackTensor, ManagedTensor};
