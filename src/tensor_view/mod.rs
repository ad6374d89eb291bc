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
    /// This view with its layout edited in place by a view op.
    #[inline]
    fn edit(mut self, op: impl FnOnce(&mut Layout) -> Result<()>) -> Result<TensorView<'a, T>> {
        op(&mut self.layout)?;
        debug_assert!(self.layout.fits_in(self.storage.len()));
        Ok(self)
    }

    /// This view's storage under a layout a view op derived from this view's.
    #[inline]
    fn with(self, layout: Layout) -> TensorView<'a, T> {
        debug_assert!(layout.fits_in(self.storage.len()));
        TensorView { layout, ..self }
    }

    /// An owned tensor of the same elements: shares the storage (one reference-count
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
        Tensor::from_parts(Arc::clone(self.storage), self.layout.clone())
    }

    /// The size of each dim.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.as_view().shape(), &[2, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }

    /// The stride of each dim, in elements.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.as_view().strides(), &[3, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn strides(&self) -> &[isize] {
        self.layout.strides()
    }

    /// The storage index of element `[0, 0, ...]`.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.as_view().select(0, 1)?.offset(), 3);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn offset(&self) -> usize {
        self.layout.offset()
    }

    /// The layout (shape, strides, offset).
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.as_view().layout(), a.layout());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The number of elements.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.as_view().narrow(1, 0, 2)?.numel(), 4);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn numel(&self) -> usize {
        self.layout.numel()
    }

    /// Whether the view is row-major contiguous ([`Layout::is_contiguous`]).
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert!(a.as_view().is_contiguous());
    /// assert!(!a.as_view().t()?.is_contiguous());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }

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
    pub fn contiguous(&self) -> Tensor<T> {
        self.to_tensor().contiguous()
    }

    /// The same elements under a new shape, without copying ([`Layout::view`]).
    ///
    /// # Errors
    /// As [`Tensor::view`].
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[4, 6])?;
    /// assert_eq!(a.as_view().view(&[2, 12])?.strides(), &[12, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn view(self, shape: &[usize]) -> Result<TensorView<'a, T>> {
        let l = self.layout.view(shape)?;
        Ok(self.with(l))
    }

    /// Swaps two dims ([`Layout::transpose`]).
    ///
    /// # Errors
    /// As [`Tensor::transpose`].
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3, 4])?;
    /// assert_eq!(a.as_view().transpose(0, 2)?.shape(), &[4, 3, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn transpose(self, d0: usize, d1: usize) -> Result<TensorView<'a, T>> {
        self.edit(|l| l.transpose_in_place(d0, d1))
    }

    /// Transpose of a 2-dim view ([`Layout::t`]).
    ///
    /// # Errors
    /// As [`Tensor::t`].
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.as_view().t()?.shape(), &[3, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn t(self) -> Result<TensorView<'a, T>> {
        self.edit(Layout::t_in_place)
    }

    /// Reorders the dims ([`Layout::permute`]).
    ///
    /// # Errors
    /// As [`Tensor::permute`].
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3, 4])?;
    /// assert_eq!(a.as_view().permute(&[2, 0, 1])?.shape(), &[4, 2, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn permute(self, dims: &[usize]) -> Result<TensorView<'a, T>> {
        let l = self.layout.permute(dims)?;
        Ok(self.with(l))
    }

    /// Elements `start..start + len` of dim `dim` ([`Layout::narrow`]).
    ///
    /// # Errors
    /// As [`Tensor::narrow`].
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[4, 4])?;
    /// assert_eq!(a.as_view().narrow(0, 1, 3)?.offset(), 4);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn narrow(self, dim: usize, start: usize, len: usize) -> Result<TensorView<'a, T>> {
        self.edit(|l| l.narrow_in_place(dim, start, len))
    }

    /// Python-style slice `start..end` by `step` of dim `dim` ([`Layout::slice`]).
    ///
    /// # Errors
    /// As [`Tensor::slice`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[6])?;
    /// assert_eq!(a.as_view().slice(0, -1, -7, -2)?.to_vec(), vec![5, 3, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn slice(
        self,
        dim: usize,
        start: isize,
        end: isize,
        step: isize,
    ) -> Result<TensorView<'a, T>> {
        let l = self.layout.slice(dim, start, end, step)?;
        Ok(self.with(l))
    }

    /// Index `index` of dim `dim`, dropping the dim ([`Layout::select`]).
    ///
    /// # Errors
    /// As [`Tensor::select`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.as_view().select(1, 2)?.to_vec(), vec![2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn select(self, dim: usize, index: usize) -> Result<TensorView<'a, T>> {
        let l = self.layout.select(dim, index)?;
        Ok(self.with(l))
    }

    /// Drops dim `dim` of size 1 ([`Layout::squeeze`]).
    ///
    /// # Errors
    /// As [`Tensor::squeeze`].
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 1, 3])?;
    /// assert_eq!(a.as_view().squeeze(1)?.shape(), &[2, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn squeeze(self, dim: usize) -> Result<TensorView<'a, T>> {
        let l = self.layout.squeeze(dim)?;
        Ok(self.with(l))
    }

    /// Inserts a dim of size 1 at `dim` ([`Layout::unsqueeze`]).
    ///
    /// # Errors
    /// As [`Tensor::unsqueeze`].
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.as_view().unsqueeze(0)?.shape(), &[1, 2, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn unsqueeze(self, dim: usize) -> Result<TensorView<'a, T>> {
        let l = self.layout.unsqueeze(dim)?;
        Ok(self.with(l))
    }

    /// Broadcasts size-1 dims to `shape` with stride 0 ([`Layout::expand`]).
    ///
    /// # Errors
    /// As [`Tensor::expand`].
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[1, 3])?;
    /// assert_eq!(a.as_view().expand(&[4, 3])?.strides(), &[0, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn expand(self, shape: &[usize]) -> Result<TensorView<'a, T>> {
        let l = self.layout.expand(shape)?;
        Ok(self.with(l))
    }

    /// Reverses dim `dim` (a negative stride; [`Layout::flip`]).
    ///
    /// # Errors
    /// As [`Tensor::flip`].
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.as_view().flip(1)?.strides(), &[3, -1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn flip(self, dim: usize) -> Result<TensorView<'a, T>> {
        let l = self.layout.flip(dim)?;
        Ok(self.with(l))
    }

    /// Sliding windows of `size` elements every `step` along `dim` ([`Layout::unfold`]).
    ///
    /// # Errors
    /// As [`Tensor::unfold`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..5).collect::<Vec<i32>>(), &[5])?;
    /// assert_eq!(a.as_view().unfold(0, 3, 2)?.to_vec(), vec![0, 1, 2, 2, 3, 4]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn unfold(self, dim: usize, size: usize, step: usize) -> Result<TensorView<'a, T>> {
        let l = self.layout.unfold(dim, size, step)?;
        Ok(self.with(l))
    }

    /// The main diagonal of a 2-dim view ([`Layout::diagonal`]).
    ///
    /// # Errors
    /// As [`Tensor::diagonal`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..9).collect::<Vec<i32>>(), &[3, 3])?;
    /// assert_eq!(a.as_view().diagonal()?.to_vec(), vec![0, 4, 8]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn diagonal(self) -> Result<TensorView<'a, T>> {
        let l = self.layout.diagonal()?;
        Ok(self.with(l))
    }

    /// Diagonal `k` of dims `dim1` and `dim2` ([`Layout::diagonal_with`]).
    ///
    /// # Errors
    /// As [`Tensor::diagonal_with`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..9).collect::<Vec<i32>>(), &[3, 3])?;
    /// assert_eq!(a.as_view().diagonal_with(1, 0, 1)?.to_vec(), vec![1, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn diagonal_with(self, k: isize, dim1: usize, dim2: usize) -> Result<TensorView<'a, T>> {
        let l = self.layout.diagonal_with(k, dim1, dim2)?;
        Ok(self.with(l))
    }

    /// Any shape and strides over the same storage, checked against it
    /// ([`Layout::as_strided`]).
    ///
    /// # Errors
    /// As [`Tensor::as_strided`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..4).collect::<Vec<i32>>(), &[4])?;
    /// assert_eq!(a.as_view().as_strided(&[2, 2], &[1, 1], 0)?.to_vec(), vec![0, 1, 1, 2]);
    /// assert!(a.as_view().as_strided(&[2], &[4], 0).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn as_strided(
        self,
        shape: &[usize],
        strides: &[isize],
        offset: usize,
    ) -> Result<TensorView<'a, T>> {
        let l = self.layout.as_strided(shape, strides, offset)?;
        l.check_fits("as_strided", self.storage.len())?;
        Ok(self.with(l))
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
        Tensor::from_parts(Arc::clone(v.storage), v.layout)
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
