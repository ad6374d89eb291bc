//! `TensorMut<'a, T>`: a mutable, strided view of a tensor's elements, borrowed for `'a`.
//!
//! A [`Tensor`](crate::Tensor) is read-only and cheap to share; to write, borrow it mutably with
//! [`Tensor::view_mut`](crate::Tensor::view_mut), which gives a `TensorMut` over the whole tensor. If the storage is
//! shared with other tensors, `view_mut` first gives this tensor its own copy (copy-on-write,
//! reported to the copy audit), so no other tensor ever sees the write. Rust's borrow rules do
//! the rest: while a `TensorMut` lives, the tensor it came from cannot be read, cloned or
//! borrowed again.
//!
//! ```text
//!   Tensor x  (sole holder of its storage)
//!     |
//!     | x.view_mut()?            (&mut x: x is frozen while any TensorMut from it lives)
//!     v
//!   TensorMut  ---- narrow / t / slice / select / flip / view ... ---->  TensorMut
//!     |                        (consume the view, return one over a subset of its elements)
//!     | split_at(dim, i)
//!     v
//!   (TensorMut [..i), TensorMut [i..))     two views, disjoint elements, usable at once
//! ```
//!
//! The view ops offered are exactly those that cannot make two indices address one element:
//! there is no `expand` or `unfold`, and `as_strided` is checked for overlap.
//!
//! # Invariant (what the write kernels rely on)
//!
//! For every `TensorMut { mem, layout, whole }` alive during `'a`:
//!
//! 1. `layout.fits_in(mem.len())`: every element the layout addresses is in the storage.
//! 2. The layout addresses each element at most once ([`Layout::is_non_overlapping`] is true).
//! 3. The elements the layout addresses are read and written only through this view (or a
//!    view reborrowed from it, while that one lives); if `whole`, that holds for every element
//!    of the storage. No `&Storage` to the storage exists.
//!
//! `Tensor::view_mut` establishes it: it refuses overlapping layouts, takes `&mut Storage` from
//! an `Arc` with no other holder (after a copy if needed) and borrows the tensor for `'a`, so
//! nothing else can reach the storage (`whole` is true). View ops keep it because their result
//! addresses a subset of the input's elements with distinct indices going to distinct elements,
//! and they consume the input. `split_at` gives two narrows of disjoint index ranges, hence of
//! disjoint elements (by 2), and clears `whole`. `as_strided` checks 1 and 2 and, unless
//! `whole`, that it stays inside the view. The kernels in `kernels::inplace` state which part
//! they rely on.

mod assign_ops;
mod owned;
mod views;
mod writes;

pub(crate) use writes::check_divisor;

use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels::inplace;
use crate::layout::Layout;
use crate::storage::{Storage, StorageMut};

/// A mutable strided view: writes through it change the tensor it was borrowed from; see the
/// [module docs](self) for the borrow rules and the invariant.
///
/// Made by [`Tensor::view_mut`](crate::Tensor::view_mut). View ops consume it and return
/// another `TensorMut` over the same memory; [`TensorMut::reborrow`] gives a shorter-lived one
/// so the original can be used again afterwards.
///
/// ```
/// use stridex::Tensor;
/// let mut x = Tensor::<i32>::zeros(&[3, 4])?;
/// x.view_mut()?.narrow(1, 1, 1)?.fill(7)?; // set column 1 to 7
/// assert_eq!(x.to_vec(), vec![0, 7, 0, 0, 0, 7, 0, 0, 0, 7, 0, 0]);
/// # Ok::<(), stridex::Error>(())
/// ```
pub struct TensorMut<'a, T: Element> {
    mem: StorageMut<'a, T>,
    layout: Layout,
    /// Whether this view may reach every element of the storage (invariant 3).
    whole: bool,
}

impl<'a, T: Element> TensorMut<'a, T> {
    /// A view of `layout` over all of `storage`, which the caller borrowed exclusively.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if the layout does not fit, [`Error::OverlappingDestination`] if it
    /// may address an element twice.
    pub(crate) fn new(storage: &'a mut Storage<T>, layout: Layout) -> Result<TensorMut<'a, T>> {
        check_writable("view_mut", &layout, storage.len())?;
        Ok(TensorMut {
            mem: StorageMut::new(storage),
            layout,
            whole: true,
        })
    }

    /// The same memory under a layout derived by a view op that addresses a subset of this
    /// layout's elements, distinct indices to distinct elements (invariant, module docs).
    #[inline(always)]
    fn view_rewrap(self, layout: Layout) -> TensorMut<'a, T> {
        debug_assert!(layout.fits_in(self.mem.len()) && layout.is_non_overlapping());
        TensorMut { layout, ..self }
    }

    /// This view with its layout edited in place by a view op's in-place form (which keeps
    /// the invariant as [`TensorMut::view_rewrap`]'s layouts do).
    #[inline(always)]
    fn view_edit(
        mut self,
        edit: impl FnOnce(&mut Layout) -> Result<()>,
    ) -> Result<TensorMut<'a, T>> {
        edit(&mut self.layout)?;
        debug_assert!(self.layout.fits_in(self.mem.len()) && self.layout.is_non_overlapping());
        Ok(self)
    }

    /// The storage length, for `explain`.
    #[inline(always)]
    fn storage_len(&self) -> usize {
        self.mem.len()
    }

    /// A `TensorMut` of the same elements that borrows this one, so this one can be used again
    /// once it is gone (like reborrowing `&mut *r`).
    ///
    /// ```
    /// let mut x = stridex::Tensor::<f32>::zeros(&[2, 2])?;
    /// let mut v = x.view_mut()?;
    /// v.reborrow().select(0, 0)?.fill(1.0)?;
    /// v.reborrow().select(0, 1)?.fill(2.0)?;
    /// assert_eq!(v.to_vec(), vec![1.0, 1.0, 2.0, 2.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn reborrow(&mut self) -> TensorMut<'_, T> {
        TensorMut {
            mem: self.mem.reborrow(),
            layout: self.layout.clone(),
            whole: self.whole,
        }
    }

    /// Element 0 of the storage and the storage's length, for code that hands this view's
    /// elements to another library (`interop`). Only the elements this view's layout
    /// addresses may be touched through the pointer (invariant, module docs), and only while
    /// the `&mut self` borrow lasts.
    #[cfg(feature = "ndarray")]
    pub(crate) fn storage_raw(&mut self) -> (*mut T, usize) {
        (self.mem.as_ptr(), self.mem.len())
    }

    layout_accessors!(name: "TensorMut", make: "a.view_mut()?", mut: "mut ");

    /// The element at multi-index `index`.
    ///
    /// # Errors
    /// [`Error::IndexRank`] or [`Error::IndexOutOfRange`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(x.view_mut()?.t()?.get(&[2, 1])?, 5);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn get(&self, index: &[usize]) -> Result<T> {
        let off = self.layout.offset_of_for("get", index)?;
        Ok(inplace::read_at(&self.mem, &self.layout, off))
    }

    /// The elements in logical row-major order, copied by the copy kernel.
    ///
    /// ```
    /// let mut x = stridex::Tensor::from_vec((0..4).collect::<Vec<u8>>(), &[2, 2])?;
    /// assert_eq!(x.view_mut()?.flip(0)?.to_vec(), vec![2, 3, 0, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    #[must_use]
    pub fn to_vec(&self) -> Vec<T> {
        if let Ok(dst) = Layout::contiguous(self.shape()) {
            crate::audit::note_explicit_copy(
                crate::audit::CopyReason::ToVec,
                T::DTYPE,
                &self.layout,
                &dst,
            );
        }
        inplace::to_vec(&self.mem, &self.layout)
    }
}

impl<T: Element + std::fmt::Debug> std::fmt::Debug for TensorMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TensorMut")
            .field("dtype", &T::DTYPE)
            .field("layout", &self.layout)
            .finish()
    }
}

/// Checks invariants 1 and 2 for a layout about to be written through.
pub(crate) fn check_writable(op: &'static str, layout: &Layout, storage_len: usize) -> Result<()> {
    layout.check_fits(op, storage_len)?;
    if !layout.is_non_overlapping() {
        return Err(Error::OverlappingDestination {
            op,
            shape: layout.shape().to_vec(),
            strides: layout.strides().to_vec(),
        });
    }
    Ok(())
}
