//! Memory formats on tensors: checks, conversions and constructors; the stride rules live in
//! `layout/format.rs`.

use std::sync::Arc;

use super::Tensor;
use crate::audit::CopyReason;
use crate::element::Element;
use crate::error::Result;
use crate::layout::{Layout, MemoryFormat};
use crate::storage::Storage;

impl<T: Element> Tensor<T> {
    /// Whether the tensor is dense in `format` ([`Layout::is_contiguous_in`]).
    ///
    /// ```
    /// use stridex::{MemoryFormat, Tensor};
    /// let x = Tensor::<f32>::zeros_in(&[2, 3, 4, 4], MemoryFormat::ChannelsLast)?;
    /// assert!(x.is_contiguous_in(MemoryFormat::ChannelsLast));
    /// assert!(!x.is_contiguous_in(MemoryFormat::Contiguous));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn is_contiguous_in(&self, format: MemoryFormat) -> bool {
        self.layout.is_contiguous_in(format)
    }

    /// The tensor in `format`: itself (same storage, no copy) when already dense in it,
    /// otherwise one copy through the blocked copy kernel into a fresh storage with
    /// [`Layout::contiguous_in`] strides. The logical shape never changes.
    ///
    /// # Errors
    /// [`Error::FormatRank`](crate::Error::FormatRank) for the wrong number of dims;
    /// [`Error::Alloc`](crate::Error::Alloc).
    ///
    /// ```
    /// use stridex::{MemoryFormat::ChannelsLast, Tensor};
    /// let x = Tensor::arange(0.0f32, 24.0, 1.0)?.view(&[1, 2, 3, 4])?; // NCHW
    /// let y = x.contiguous_in(ChannelsLast)?;
    /// assert_eq!((y.shape(), y.strides()), (&[1, 2, 3, 4][..], &[24, 1, 8, 2][..]));
    /// assert_eq!(y.to_vec(), x.to_vec()); // same values at the same indices
    /// assert!(y.contiguous_in(ChannelsLast)?.shares_storage(&y));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn contiguous_in(&self, format: MemoryFormat) -> Result<Tensor<T>> {
        format.check_ndim("contiguous_in", self.ndim())?;
        if self.is_contiguous_in(format) {
            return Ok(self.clone());
        }
        self.copy_to_fresh(
            Layout::contiguous_in(self.shape(), format)?,
            CopyReason::ContiguousIn,
        )
    }

    /// The format the strides follow ([`Layout::suggest_memory_format`], PyTorch's rules).
    ///
    /// ```
    /// use stridex::{MemoryFormat, Tensor};
    /// let x = Tensor::<f32>::zeros(&[2, 3, 4, 4])?;
    /// assert_eq!(x.suggest_memory_format(), MemoryFormat::Contiguous);
    /// let y = x.contiguous_in(MemoryFormat::ChannelsLast)?;
    /// assert_eq!(y.suggest_memory_format(), MemoryFormat::ChannelsLast);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn suggest_memory_format(&self) -> MemoryFormat {
        self.layout.suggest_memory_format()
    }

    /// A tensor of `shape` in `format` filled with `value`.
    ///
    /// # Errors
    /// [`Error::FormatRank`](crate::Error::FormatRank), [`Error::Overflow`](crate::Error::Overflow),
    /// [`Error::Alloc`](crate::Error::Alloc).
    ///
    /// ```
    /// use stridex::{MemoryFormat, Tensor};
    /// let x = Tensor::full_in(&[1, 2, 2, 2], 3u8, MemoryFormat::ChannelsLast)?;
    /// assert_eq!(x.strides(), &[8, 1, 4, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn full_in(shape: &[usize], value: T, format: MemoryFormat) -> Result<Tensor<T>> {
        let layout = Layout::contiguous_in(shape, format).map_err(|e| e.with_op("full_in"))?;
        crate::error::checked_bytes("full_in", shape, layout.numel(), T::DTYPE.size())?;
        let storage = Storage::full(layout.numel(), value)?;
        Ok(Self::from_parts(Arc::new(storage), layout))
    }

    /// A zero-filled tensor of `shape` in `format`.
    ///
    /// # Errors
    /// As [`Tensor::full_in`].
    ///
    /// ```
    /// use stridex::{MemoryFormat, Tensor};
    /// let x = Tensor::<f32>::zeros_in(&[1, 2, 3, 4, 5], MemoryFormat::ChannelsLast3d)?;
    /// assert_eq!(x.strides(), &[120, 1, 40, 10, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn zeros_in(shape: &[usize], format: MemoryFormat) -> Result<Tensor<T>> {
        Self::full_in(shape, T::zeroed(), format).map_err(|e| e.with_op("zeros_in"))
    }
}
