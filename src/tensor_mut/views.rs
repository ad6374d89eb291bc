//! View ops on `TensorMut`: each consumes the view, applies the `Layout` op of the same name and
//! returns a `TensorMut` over the same memory (the common ones generated once for the three
//! tensor types, `src/view_api.rs`). Only ops that cannot make two indices address one element
//! are offered (no `expand`, no `unfold`); `as_strided` is checked for overlap and `split_at`
//! is this type's own; see the module invariant.

use super::{TensorMut, check_writable};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::Layout;

impl<'a, T: Element> TensorMut<'a, T> {
    view_ops!(recv: [self] self, out: TensorMut<'a, T>, make: "a.view_mut()?", mut: "mut ");

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
        Ok(self.view_rewrap(l))
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
        dim: impl crate::layout::Dim,
        index: usize,
    ) -> Result<(TensorMut<'a, T>, TensorMut<'a, T>)> {
        let dim = dim.index("split_at", self.layout.ndim())?;
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
