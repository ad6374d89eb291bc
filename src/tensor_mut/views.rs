//! View ops on `TensorMut`: each consumes the view, applies the `Layout` op of the same name and
//! returns a `TensorMut` over the same memory. Only ops that cannot make two indices address
//! one element are offered (no `expand`, no `unfold`); see the module invariant.

use super::{check_writable, TensorMut};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::Layout;

impl<'a, T: Element> TensorMut<'a, T> {
    /// Swaps two dims ([`Layout::transpose`]).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::<f32>::zeros(&[2, 3, 4])?;
    /// assert_eq!(x.view_mut()?.transpose(0, 2)?.shape(), &[4, 3, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn transpose(self, d0: usize, d1: usize) -> Result<TensorMut<'a, T>> {
        let l = self.layout.transpose(d0, d1)?;
        Ok(self.derive(l))
    }

    /// Transpose of a 2-dim view ([`Layout::t`]).
    ///
    /// # Errors
    /// [`Error::RankMismatch`] unless the view has 2 dims (or fewer).
    ///
    /// ```
    /// let mut x = stridex::Tensor::<i32>::zeros(&[2, 3])?;
    /// x.view_mut()?.t()?.set(&[2, 0], 5)?;
    /// assert_eq!(x.get(&[0, 2])?, 5);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn t(self) -> Result<TensorMut<'a, T>> {
        let l = self.layout.t()?;
        Ok(self.derive(l))
    }

    /// Reorders the dims ([`Layout::permute`]).
    ///
    /// # Errors
    /// [`Error::NotAPermutation`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::<f32>::zeros(&[2, 3, 4])?;
    /// assert_eq!(x.view_mut()?.permute(&[2, 0, 1])?.shape(), &[4, 2, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn permute(self, dims: &[usize]) -> Result<TensorMut<'a, T>> {
        let l = self.layout.permute(dims)?;
        Ok(self.derive(l))
    }

    /// Elements `start..start + len` of `dim` ([`Layout::narrow`]).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::RangeOutOfBounds`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::<u8>::zeros(&[4])?;
    /// x.view_mut()?.narrow(0, 1, 2)?.fill(9)?;
    /// assert_eq!(x.to_vec(), vec![0, 9, 9, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn narrow(self, dim: usize, start: usize, len: usize) -> Result<TensorMut<'a, T>> {
        let l = self.layout.narrow(dim, start, len)?;
        Ok(self.derive(l))
    }

    /// NumPy-style `start:end:step` of `dim` ([`Layout::slice`]).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::ZeroStep`], [`Error::Overflow`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::<u8>::zeros(&[6])?;
    /// x.view_mut()?.slice(0, 0, 6, 2)?.fill(1)?;
    /// assert_eq!(x.to_vec(), vec![1, 0, 1, 0, 1, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn slice(
        self,
        dim: usize,
        start: isize,
        end: isize,
        step: isize,
    ) -> Result<TensorMut<'a, T>> {
        let l = self.layout.slice(dim, start, end, step)?;
        Ok(self.derive(l))
    }

    /// Index `index` of `dim`, removing the dim ([`Layout::select`]).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::IndexOutOfRange`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::<i64>::zeros(&[2, 2])?;
    /// x.view_mut()?.select(0, 1)?.fill(3)?;
    /// assert_eq!(x.to_vec(), vec![0, 0, 3, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn select(self, dim: usize, index: usize) -> Result<TensorMut<'a, T>> {
        let l = self.layout.select(dim, index)?;
        Ok(self.derive(l))
    }

    /// Removes a size-1 dim ([`Layout::squeeze`]).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::SqueezeNonUnit`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::<f32>::zeros(&[2, 1])?;
    /// assert_eq!(x.view_mut()?.squeeze(1)?.shape(), &[2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn squeeze(self, dim: usize) -> Result<TensorMut<'a, T>> {
        let l = self.layout.squeeze(dim)?;
        Ok(self.derive(l))
    }

    /// Inserts a size-1 dim ([`Layout::unsqueeze`]).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::<f32>::zeros(&[2])?;
    /// assert_eq!(x.view_mut()?.unsqueeze(0)?.shape(), &[1, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn unsqueeze(self, dim: usize) -> Result<TensorMut<'a, T>> {
        let l = self.layout.unsqueeze(dim)?;
        Ok(self.derive(l))
    }

    /// Reverses `dim` ([`Layout::flip`]).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::from_vec(vec![1, 2, 3], &[3])?;
    /// let src = stridex::Tensor::from_vec(vec![7, 8, 9], &[3])?;
    /// x.view_mut()?.flip(0)?.copy_from(&src)?;
    /// assert_eq!(x.to_vec(), vec![9, 8, 7]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn flip(self, dim: usize) -> Result<TensorMut<'a, T>> {
        let l = self.layout.flip(dim)?;
        Ok(self.derive(l))
    }

    /// The same elements under a new shape, without copying ([`Layout::view`]).
    ///
    /// # Errors
    /// [`Error::NumelMismatch`], [`Error::ViewNotPossible`] (a mutable view can never copy).
    ///
    /// ```
    /// let mut x = stridex::Tensor::<u8>::zeros(&[2, 3])?;
    /// x.view_mut()?.view(&[6])?.set(&[4], 1)?;
    /// assert_eq!(x.get(&[1, 1])?, 1);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn view(self, shape: &[usize]) -> Result<TensorMut<'a, T>> {
        let l = self.layout.view(shape)?;
        Ok(self.derive(l))
    }

    /// The main diagonal of the first two dims ([`Layout::diagonal`]).
    ///
    /// # Errors
    /// As [`Layout::diagonal`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::<f32>::zeros(&[3, 3])?;
    /// x.view_mut()?.diagonal()?.fill(1.0)?; // an identity matrix
    /// assert_eq!(x.to_vec(), vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn diagonal(self) -> Result<TensorMut<'a, T>> {
        let l = self.layout.diagonal()?;
        Ok(self.derive(l))
    }

    /// Diagonal `k` of dims `dim1` and `dim2` ([`Layout::diagonal_with`]).
    ///
    /// # Errors
    /// As [`Layout::diagonal_with`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::<i32>::zeros(&[3, 3])?;
    /// x.view_mut()?.diagonal_with(1, 0, 1)?.fill(2)?;
    /// assert_eq!(x.to_vec(), vec![0, 2, 0, 0, 0, 2, 0, 0, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn diagonal_with(self, k: isize, dim1: usize, dim2: usize) -> Result<TensorMut<'a, T>> {
        let l = self.layout.diagonal_with(k, dim1, dim2)?;
        Ok(self.derive(l))
    }

    /// Any layout over the storage (absolute `offset`, as [`Tensor::as_strided`](crate::Tensor::as_strided)),
    /// checked against the storage and for overlap. A view from [`TensorMut::split_at`] shares
    /// its storage with its sibling, so there the new layout must also stay inside this view's
    /// elements; that is checked when this view is dense and refused otherwise.
    ///
    /// # Errors
    /// As [`Layout::new`]; [`Error::OutOfBounds`]; [`Error::OverlappingDestination`] if the
    /// layout may address an element twice; [`Error::EscapesView`] as above.
    ///
    /// ```
    /// let mut x = stridex::Tensor::<u8>::zeros(&[6])?;
    /// x.view_mut()?.as_strided(&[3, 2], &[2, 1], 0)?.narrow(1, 0, 1)?.fill(1)?;
    /// assert_eq!(x.to_vec(), vec![1, 0, 1, 0, 1, 0]);
    /// assert!(x.view_mut()?.as_strided(&[3, 2], &[1, 1], 0).is_err()); // overlapping
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn as_strided(
        self,
        shape: &[usize],
        strides: &[isize],
        offset: usize,
    ) -> Result<TensorMut<'a, T>> {
        let l = self.layout.as_strided(shape, strides, offset)?;
        check_writable("as_strided", &l, self.mem.len())?;
        if !self.whole && !inside_dense(&self.layout, &l) {
            return Err(Error::EscapesView {
                op: "as_strided",
                shape: shape.to_vec(),
                strides: strides.to_vec(),
                offset,
            });
        }
        Ok(self.derive(l))
    }

    /// The two views `[..index)` and `[index..)` of `dim`, usable at the same time (like
    /// `slice::split_at_mut`): they address disjoint elements.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::RangeOutOfBounds`] if `index > shape[dim]`.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mut x = Tensor::<i32>::zeros(&[2, 4])?;
    /// let (mut left, mut right) = x.view_mut()?.split_at(1, 2)?;
    /// left.fill(1)?;
    /// right.copy_from(&Tensor::from_vec(vec![5, 6], &[2])?)?; // broadcast over rows
    /// assert_eq!(x.to_vec(), vec![1, 1, 5, 6, 1, 1, 5, 6]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn split_at(
        self,
        dim: usize,
        index: usize,
    ) -> Result<(TensorMut<'a, T>, TensorMut<'a, T>)> {
        let (a, b) = self.layout.split_at(dim, index)?;
        // Disjoint index ranges of a non-overlapping layout address disjoint elements
        // (invariant 2), so each half may write its own; neither may reach the whole storage.
        let left = TensorMut {
            mem: self.mem.share(),
            layout: a,
            whole: false,
        };
        let right = TensorMut {
            mem: self.mem,
            layout: b,
            whole: false,
        };
        Ok((left, right))
    }
}

/// Whether every offset `inner` addresses is one `outer` addresses, decided when `outer` is
/// dense (it addresses every offset of its range): then it is range inclusion.
fn inside_dense(outer: &Layout, inner: &Layout) -> bool {
    match (inner.offset_range(), outer.offset_range()) {
        (None, _) => true,
        (Some((lo, hi)), Some((olo, ohi))) => {
            outer.is_non_overlapping_and_dense() && olo <= lo && hi <= ohi
        }
        (Some(_), None) => false,
    }
}
