//! Interop with the rest of the ecosystem: ndarray, `.npy`, `.safetensors` and serde, each
//! behind the cargo feature of the same name (features are additive; any combination builds).
//!
//! | feature | what you get | copies |
//! |---|---|---|
//! | `ndarray` | [`Tensor::to_ndarray_view`] (any view, negative and zero strides included), [`Tensor::from_ndarray`], [`Tensor::from_ndarray_owned`] | none for the view and for an owned array; one from a borrowed array |
//! | `npy` | [`load_npy`] / [`save_npy`], [`read_npy`] / [`write_npy`] for any `Read` / `Write` | one read into the tensor's buffer; writes stream a contiguous or column-major tensor's memory as it is |
//! | `safetensors` | [`load_safetensors`] (reads the file), [`map_safetensors`] (memory-maps it, `unsafe`), [`save_safetensors`], [`save_safetensors_with_metadata`] (with the file's `__metadata__` strings, read back by [`SafeTensorsFile::metadata`]) | none per tensor when its bytes are aligned to its element type |
//! | `serde` | `Serialize` / `Deserialize` for [`Tensor`] (shape and elements in logical order, validated) | - |
//! | `dlpack` | [`Tensor::to_dlpack`] / [`Tensor::from_dlpack`]: DLPack 1.x managed tensors for NumPy, PyTorch, ... ([`dlpack`] module) | none (exports may copy on request) |
//!
//! Each has its module here (`ndarray`, `npy`, `safetensors`, `serde`, `dlpack`, present
//! with their feature) whose docs say what is accepted and why; the file functions are also
//! re-exported here.
//!
//! Files hold tensors of any element type, so loading gives a [`DynTensor`] (an enum with
//! one variant per element type; [`DynTensor::into_tensor`] gives the typed tensor), and the
//! savers take anything that is [`AsDynTensor`] (every `Tensor<T>`, and `DynTensor`).
//!
//! Tensors loaded from a file borrow its bytes where they can, so they are aligned to their
//! element type but not necessarily to 64 bytes like the storage stridex allocates
//! ([`Storage::is_aligned`](crate::Storage::is_aligned) tells); [`Tensor::to_aligned`] copies
//! into aligned storage. Writing to such a tensor copies first (the file is never written).
//!
//! [`Tensor`]: crate::Tensor
//! [`Tensor::to_aligned`]: crate::Tensor::to_aligned
//! [`Tensor::to_ndarray_view`]: crate::Tensor::to_ndarray_view
//! [`Tensor::from_ndarray`]: crate::Tensor::from_ndarray
//! [`Tensor::from_ndarray_owned`]: crate::Tensor::from_ndarray_owned
//! [`Tensor::to_dlpack`]: crate::Tensor::to_dlpack
//! [`Tensor::from_dlpack`]: crate::Tensor::from_dlpack
//! [`dlpack`]: crate::interop::dlpack

#[cfg(feature = "dlpack")]
pub mod dlpack;
#[cfg(any(feature = "npy", feature = "safetensors", feature = "dlpack"))]
mod dynamic;
#[cfg(feature = "ndarray")]
pub mod ndarray;
#[cfg(feature = "npy")]
pub mod npy;
#[cfg(feature = "npy")]
mod npy_header;
#[cfg(feature = "safetensors")]
pub mod safetensors;
#[cfg(feature = "serde")]
pub mod serde;

#[cfg(any(feature = "npy", feature = "safetensors", feature = "dlpack"))]
pub use dynamic::{AsDynTensor, DynTensor};
#[cfg(feature = "npy")]
pub use npy::{load_npy, read_npy, save_npy, write_npy};
#[cfg(feature = "safetensors")]
pub use safetensors::{
    SafeTensorsFile, load_safetensors, map_safetensors, save_safetensors,
    save_safetensors_with_metadata,
};

#[cfg(any(feature = "npy", feature = "safetensors"))]
pub(crate) use files::*;

/// What the file formats share: I/O errors, and element bytes in little-endian order.
#[cfg(any(feature = "npy", feature = "safetensors"))]
mod files {
    use crate::element::Element;
    use crate::error::{Error, Result};
    use crate::tensor::Tensor;

    /// An I/O failure of `op` on `path`, as an [`Error::Io`].
    pub(crate) fn io_error(op: &'static str, path: &str, e: &std::io::Error) -> Error {
        Error::Io {
            op,
            path: path.to_string(),
            kind: e.kind(),
            message: e.to_string(),
        }
    }

    /// Reverses the bytes of every `size`-byte element of `bytes` (a byte-order swap).
    pub(crate) fn swap_byte_order(bytes: &mut [u8], size: usize) {
        if size > 1 {
            bytes.chunks_exact_mut(size).for_each(<[u8]>::reverse);
        }
    }

    /// A tensor's elements in logical (row-major) order as little-endian bytes: the tensor's
    /// own memory when it is contiguous on a little-endian machine, one copy otherwise.
    pub(crate) struct LeBytes<T: Element> {
        dense: Tensor<T>,
        swapped: Option<Vec<u8>>,
    }

    impl<T: Element> LeBytes<T> {
        pub(crate) fn new(t: &Tensor<T>) -> Result<LeBytes<T>> {
            let dense = t.try_contiguous()?;
            let swapped = cfg!(target_endian = "big").then(|| {
                let mut b = dense_bytes(&dense).to_vec();
                swap_byte_order(&mut b, std::mem::size_of::<T>());
                b
            });
            Ok(LeBytes { dense, swapped })
        }

        pub(crate) fn as_bytes(&self) -> &[u8] {
            match &self.swapped {
                Some(b) => b,
                None => dense_bytes(&self.dense),
            }
        }
    }

    /// The bytes of a contiguous tensor's elements, in place.
    fn dense_bytes<T: Element>(t: &Tensor<T>) -> &[u8] {
        debug_assert!(t.is_contiguous());
        let start = t.offset().min(t.storage().len());
        let end = start.saturating_add(t.numel()).min(t.storage().len());
        bytemuck::cast_slice(&t.storage().as_slice()[start..end])
    }
}
