//! Materialising copies: `contiguous()` and the copies into existing memory. All of them run
//! the one strided copy kernel (`kernels::copy`), which plans, tiles and parallelises.

use std::sync::Arc;

use super::Tensor;
use crate::audit::{self, CopyReason};
use crate::element::Element;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::kernels::copy;
use crate::layout::Layout;
use crate::storage::Storage;

impl<T: Element> Tensor<T> {
    /// This tensor's data in row-major order: the tensor itself (same storage, no copy) if it
    /// is already contiguous, otherwise one blocked copy into a fresh, 64-byte aligned storage
    /// with row-major strides and offset 0.
    ///
    /// # Panics
    /// Only if the allocator cannot provide memory for the copy (as `Vec` does); use
    /// [`Tensor::try_contiguous`] to get an `Err` instead.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<u8>>(), &[2, 3])?;
    /// assert!(a.contiguous().shares_storage(&a));
    /// let c = a.t()?.contiguous();
    /// assert!(c.is_contiguous() && !c.shares_storage(&a));
    /// assert_eq!(c.storage().as_slice(), &[0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    #[must_use]
    pub fn contiguous(&self) -> Tensor<T> {
        // The error already names `contiguous`.
        self.try_contiguous().or_panic("contiguous")
    }

    /// [`Tensor::contiguous`] returning allocation failure as an `Err`.
    ///
    /// # Errors
    /// [`Error::Alloc`] if the copy's memory cannot be allocated.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[3, 2])?;
    /// assert!(a.t()?.try_contiguous()?.is_contiguous());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn try_contiguous(&self) -> Result<Tensor<T>> {
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        self.copy_to_fresh(Layout::contiguous(self.shape())?, CopyReason::Contiguous)
    }

    /// A private row-major copy of this tensor's elements in a fresh storage, always made
    /// (even when this tensor is contiguous): the tensor to write when this one is a view
    /// whose storage others still share (ndarray's `to_owned`, PyTorch's `clone`). The result
    /// is not a view ([`Tensor::is_view`]) and holds its storage alone, so writes to it happen
    /// in place. Reported to the audit as an explicit `to_owned` copy, so it is allowed inside
    /// [`forbid_implicit_copies`](crate::audit::forbid_implicit_copies).
    ///
    /// (`Clone` stays cheap: a clone shares the storage, as every `Tensor` view does.)
    ///
    /// # Panics
    /// Only if the allocator cannot provide memory for the copy (as `Vec` does), or if the
    /// copy would exceed `isize::MAX` bytes (a huge expanded view); use
    /// [`Tensor::try_to_owned`] to get an `Err` instead.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let base = Tensor::<f32>::zeros(&[2, 3])?;
    /// let col = base.narrow(1, 1, 1)?;
    /// let mut mine = col.to_owned();
    /// mine.fill(7.0)?; // writes the copy in place
    /// assert_eq!(mine.to_vec(), vec![7.0, 7.0]);
    /// assert_eq!(base.to_vec(), vec![0.0; 6]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    #[must_use]
    pub fn to_owned(&self) -> Tensor<T> {
        self.try_to_owned().or_panic("to_owned")
    }

    /// [`Tensor::to_owned`] returning a failure as an `Err`.
    ///
    /// # Errors
    /// [`Error::Overflow`] naming `to_owned` if the copy would exceed `isize::MAX` bytes;
    /// [`Error::Alloc`].
    ///
    /// ```
    /// let a = stridex::Tensor::<u8>::zeros(&[1])?.expand(&[3])?;
    /// assert_eq!(a.try_to_owned()?.strides(), &[1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn try_to_owned(&self) -> Result<Tensor<T>> {
        self.copy_to_fresh(Layout::contiguous(self.shape())?, CopyReason::ToOwned)
    }

    /// This tensor in fresh or existing 64-byte aligned, writable, row-major storage: the tensor
    /// itself (no copy) if it is contiguous, its first element is 64-byte aligned and its storage
    /// is writable (not foreign bytes such as a loaded file), otherwise one
    /// copy (reported to the audit as a `contiguous` copy). For tensors on an adopted `Vec` or
    /// on foreign bytes ([`Tensor::from_vec`], memory-mapped files), whose alignment is the
    /// allocator's or the file's; the result can also be written without copy-on-write when
    /// held alone.
    ///
    /// # Errors
    /// [`Error::Alloc`] if the copy cannot be allocated.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let t = Tensor::from_vec(vec![1u8, 2, 3], &[3])?;
    /// let a = t.to_aligned()?;
    /// assert_eq!(a.data_ptr() as usize % 64, 0);
    /// assert_eq!(a.to_vec(), vec![1, 2, 3]);
    /// let again = a.to_aligned()?;
    /// assert!(again.shares_storage(&a)); // already aligned and contiguous
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn to_aligned(&self) -> Result<Tensor<T>> {
        if self.is_contiguous()
            && self.data_ptr() as usize % Storage::<T>::ALIGN == 0
            && self.storage.is_writable()
        {
            return Ok(self.clone());
        }
        self.copy_to_fresh(Layout::contiguous(self.shape())?, CopyReason::Contiguous)
    }

    /// One copy, reported to the audit as `reason`, into a fresh storage laid out as `dst`, a
    /// dense layout of this shape.
    ///
    /// The copy is reported only once made, so a copy that fails is not counted.
    ///
    /// # Errors
    /// [`Error::ImplicitCopy`] for an implicit `reason` inside a forbidding scope;
    /// [`Error::Overflow`] naming the reason and the shape if the copy would exceed
    /// `isize::MAX` bytes (a huge expanded view); [`Error::Alloc`].
    #[track_caller]
    pub(crate) fn copy_to_fresh(&self, dst: Layout, reason: CopyReason) -> Result<Tensor<T>> {
        audit::check_copy_allowed(reason, T::DTYPE, &self.layout)?;
        crate::error::checked_bytes(reason.name(), self.shape(), self.numel(), T::DTYPE.size())?;
        let storage = copy::to_fresh_storage(&self.storage, &self.layout, &dst)
            .map_err(|e| e.with_op(reason.name()))?;
        audit::note_copy_made(reason, T::DTYPE, &self.layout, &dst);
        Ok(Self::from_parts(Arc::new(storage), dst))
    }

    /// Writes this tensor's elements in row-major order into `dst`, which must hold exactly
    /// `numel` elements: `contiguous()` without an allocation, for buffers reused in hot loops.
    ///
    /// # Errors
    /// [`Error::NumelMismatch`] if `dst.len() != self.numel()`.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// let mut buf = vec![0; 6];
    /// a.t()?.contiguous_into(&mut buf)?;
    /// assert_eq!(buf, vec![0, 3, 1, 4, 2, 5]);
    /// assert!(a.contiguous_into(&mut buf[..5]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn contiguous_into(&self, dst: &mut [T]) -> Result<()> {
        if dst.len() != self.numel() {
            return Err(Error::NumelMismatch {
                op: "contiguous_into",
                have: dst.len(),
                shape: self.shape().to_vec(),
                need: Some(self.numel()),
            });
        }
        if dst.is_empty() {
            return Ok(());
        }
        let dst_layout = Layout::contiguous(self.shape())?;
        audit::note_explicit_copy(
            CopyReason::ContiguousInto,
            T::DTYPE,
            &self.layout,
            &dst_layout,
        );
        copy::to_slice(&self.storage, &self.layout, dst);
        Ok(())
    }

    /// Copies this tensor's elements to the same indices of `dst`, honouring `dst`'s strides
    /// (no allocation). `dst` must own its storage alone, since writing through a shared
    /// storage would change the other tensors viewing it; [`Tensor::copy_from`] (the same copy
    /// seen from the destination, with broadcasting) copies on write instead.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if the shapes differ, [`Error::SharedStorage`] if another tensor
    /// (including `self`) holds `dst`'s storage, [`Error::OverlappingDestination`] if `dst`
    /// addresses an element twice (e.g. it is expanded).
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// // A destination stored column-major: same indices, different strides.
    /// let mut dst = Tensor::<i32>::empty_strided(&[2, 3], &[1, 2])?;
    /// a.copy_into(&mut dst)?;
    /// assert_eq!(dst.to_vec(), a.to_vec());
    /// assert_eq!(dst.storage().as_slice(), &[0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn copy_into(&self, dst: &mut Tensor<T>) -> Result<()> {
        if self.shape() != dst.shape() {
            return Err(Error::ShapeMismatch {
                op: "copy_into",
                expected: dst.shape().to_vec(),
                got: self.shape().to_vec(),
            });
        }
        if !dst.layout.is_non_overlapping() {
            return Err(Error::OverlappingDestination {
                op: "copy_into",
                shape: dst.shape().to_vec(),
                strides: dst.strides().to_vec(),
            });
        }
        let holders = Arc::strong_count(&dst.storage);
        let writable = dst.storage.is_writable();
        let storage = Storage::exclusive(&mut dst.storage).ok_or(if writable {
            Error::SharedStorage {
                op: "copy_into",
                holders,
            }
        } else {
            Error::ReadOnlyStorage { op: "copy_into" }
        })?;
        audit::note_explicit_copy(CopyReason::CopyInto, T::DTYPE, &self.layout, &dst.layout);
        copy::to_storage(&self.storage, &self.layout, storage, &dst.layout);
        Ok(())
    }
}
