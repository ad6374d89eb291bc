//! `TensorView<'a, T>`: a read-only strided view of a tensor's elements, borrowed for `'a`.
//!
//! A [`Tensor`] view op returns another `Tensor`, which holds its own reference to the shared
//! storage: each view op pays an atomic increment, and each dropped view an atomic decrement.
//! A `TensorView` borrows the tensor instead (like ndarray's `ArrayView`), so a chain of view
//! ops on it is layout arithmetic only. [`Tensor::as_view`] makes one; its view ops consume it
//! and return another view of the same storage; [`TensorView::to_tensor`] turns it into an
//! owned `Tensor` (one reference-count increment, no copy) for everything else.
//!
//! ```text
//!   Tensor a ──as_view()──> TensorView ──narrow / t / permute / slice / ...──> TensorView
//!                               │                (layout arithmetic, no atomics)
//!                               └──to_tensor()──> Tensor (shares a's storage)
//! ```
//!
//! Every view op is the [`Layout`] op of the same name, as on `Tensor`, with the same errors;
//! the layouts of a view and of the same ops on a tensor are always equal (tested).

use std::fmt;
use std::sync::Arc;

use crate::element::Element;
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;

/// A read-only strided view that borrows a tensor's storage; see the [module docs](self).
///
/// ```
/// use stridex::Tensor;
/// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
/// let v = a.as_view().narrow(1, 1, 2)?.t()?;
/// assert_eq!(v.shape(), &[2, 2]);
/// assert_eq!(v.to_vec(), vec![1, 4, 2, 5]);
/// # Ok::<(), stridex::Error>(())
/// ```
#[derive(Clone)]
pub struct TensorView<'a, T: Element> {
    storage: &'a Arc<Storage<T>>,
    /// Fits `storage` (the tensor invariant, kept by every view op: each addresses a subset
    /// of the offsets its input addresses).
    layout: Layout,
}

impl<T: Element> Tensor<T> {
    /// A borrowed view of this tensor: view ops on it cost no reference counting
    /// ([`TensorView`]).
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[4, 4])?;
    /// assert_eq!(a.as_view().t()?.strides(), &[1, 4]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn as_view(&self) -> TensorView<'_, T> {
        TensorView {
            storage: self.storage(),
            layout: self.layout().clone(),
        }
    }
}

impl<'a, T: Element> TensorView<'a, T> {
    /// This view with its layout edited in place by a view op's in-place form.
    #[inline(always)]
    fn view_edit(
        mut self,
        edit: impl FnOnce(&mut Layout) -> Result<()>,
    ) -> Result<TensorView<'a, T>> {
        edit(&mut self.layout)?;
        debug_assert!(self.layout.fits_in(self.storage.len()));
        Ok(self)
    }

    /// This view's storage under a layout a view op derived from this view's.
    #[inline(always)]
    fn view_rewrap(self, layout: Layout) -> TensorView<'a, T> {
        debug_assert!(layout.fits_in(self.storage.len()));
        TensorView { layout, ..self }
    }

    /// The storage length, for `explain` and `as_strided`'s bounds check.
    #[inline(always)]
    fn storage_len(&self) -> usize {
        self.storage.len()
    }

    /// An owned tensor of the same elements, a view ([`Tensor::is_view`]) of the borrowed
    /// tensor: shares the storage (one reference-count
    /// increment), copies nothing.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// let t = a.as_view().t()?.to_tensor();
    /// assert!(t.shares_storage(&a));
    /// assert_eq!(t.shape(), &[3, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn to_tensor(&self) -> Tensor<T> {
        Tensor::view_of(Arc::clone(self.storage), self.layout.clone())
    }

    layout_accessors!(name: "TensorView", make: "a.as_view()", mut: "");
    view_ops!(recv: [self] self, out: TensorView<'a, T>, make: "a.as_view()", mut: "");
    shared_view_ops!(recv: [self] self, out: TensorView<'a, T>, make: "a.as_view()");

    /// The element at `index`.
    ///
    /// # Errors
    /// [`Error::IndexRank`](crate::Error::IndexRank) or
    /// [`Error::IndexOutOfRange`](crate::Error::IndexOutOfRange).
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.as_view().t()?.get(&[2, 1])?, 5);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn get(&self, index: &[usize]) -> Result<T> {
        let off = self.layout.offset_of_for("get", index)?;
        // In bounds: the layout fits the storage (the tensor invariant).
        Ok(self.storage.as_slice()[off])
    }

    /// The elements in logical row-major order, copied into a `Vec`.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..4).collect::<Vec<i32>>(), &[2, 2])?;
    /// assert_eq!(a.as_view().flip(1)?.to_vec(), vec![1, 0, 3, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn to_vec(&self) -> Vec<T> {
        self.to_tensor().to_vec()
    }

    /// A row-major tensor of the same elements: this view's storage if the view already is
    /// row-major contiguous, otherwise one copy ([`Tensor::contiguous`]).
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..4).collect::<Vec<i32>>(), &[2, 2])?;
    /// let c = a.as_view().t()?.contiguous();
    /// assert_eq!((c.strides(), c.to_vec()), (&[2, 1][..], vec![0, 2, 1, 3]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn contiguous(&self) -> Tensor<T> {
        self.to_tensor().contiguous()
    }
}

/// [`TensorView::to_tensor`], consuming the view.
///
/// ```
/// use stridex::{Tensor, TensorView};
/// let a = Tensor::<f32>::zeros(&[2, 3])?;
/// let v: TensorView<'_, f32> = a.as_view().t()?;
/// let t = Tensor::from(v);
/// assert!(t.shares_storage(&a) && t.shape() == [3, 2]);
/// # Ok::<(), stridex::Error>(())
/// ```
impl<T: Element> From<TensorView<'_, T>> for Tensor<T> {
    fn from(v: TensorView<'_, T>) -> Tensor<T> {
        Tensor::view_of(Arc::clone(v.storage), v.layout)
    }
}

impl<T: Element> fmt::Debug for TensorView<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TensorView")
            .field("dtype", &T::DTYPE)
            .field("shape", &self.shape())
            .field("strides", &self.strides())
            .field("offset", &self.offset())
            .finish()
    }
}

#[cfg(test)]
mod tests;
