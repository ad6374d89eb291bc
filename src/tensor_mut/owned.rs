//! Writing to an owned [`Tensor`]: `view_mut` (copy-on-write) and the write methods that
//! forward to [`TensorMut`], plus the `std::ops` assignment operators. They live with
//! `TensorMut`, which they create, so that `tensor/` never imports `tensor_mut/` (as
//! `tensor_view/` adds `Tensor::as_view`): the dependency runs one way.
//!
//! # Note [copy-on-write]
//!
//! A tensor's storage may be shared with other tensors (views, clones). A write must not be
//! seen by them, so `view_mut` follows `Arc::make_mut`: a tensor that holds its storage alone
//! (no other `Arc`, no `Weak`) is written in place, whatever its layout; otherwise it first
//! gets its own copy and is rebound to it. Storage on foreign bytes (a memory-mapped file) is
//! never written, so it counts as shared: the first write copies. The copy holds only this tensor's elements, laid out
//! densely in the tensor's memory order ([`Layout::dense_like`]: a transposed view stays
//! transposed, a channels-last one channels-last, a narrowed one loses its gaps, a flipped one
//! its negative strides). It is reported to the copy audit as [`CopyReason::CopyOnWrite`], an
//! implicit copy, so inside [`forbid_implicit_copies`](crate::audit::forbid_implicit_copies) it
//! is an `Err` instead. A layout that may address an element twice is refused first, shared or
//! not, since no copy could say which of the aliased writes wins.
//!
//! # Note [writes to views]
//!
//! Copy-on-write is right for values: `let mut b = a.clone(); b.fill(0.0)?` must leave `a`
//! alone. But a tensor made by a view op (`let mut col = base.narrow(1, 1, 1)?`) is, to a
//! user coming from PyTorch or NumPy, a window into `base`, and `col.fill(7.0)` means "set
//! that column of `base`". A copy-on-write there would succeed and change nothing anyone
//! looks at. The rule, decided at the time of the write from who holds the storage *then*
//! (never from how the tensor was made):
//!
//! | the write is to | who else holds the storage                                  | outcome |
//! |-----------------|-------------------------------------------------------------|---------|
//! | anything        | nobody                                                      | in place |
//! | a value         | anyone                                                      | copy-on-write |
//! | a view          | only its own clones                                         | copy-on-write |
//! | a view          | its base, a clone of the base, another view, a view of it, a `Weak` | refused |
//!
//! (A view is a tensor with [`Tensor::is_view`]; foreign bytes, such as a memory-mapped file,
//! are never written, so their first write copies even when nobody else holds them: Note
//! [copy-on-write].)
//!
//! So a view whose base is gone is a value like any other: `arange(..)?.view(..)?`, a
//! `reshape` that happened to be a view, `.t()` of an op's result, alone or with a snapshot
//! clone, behaves as `zeros()` does. A refusal is
//! [`Error::WriteToSharedView`](crate::Error::WriteToSharedView), which names both ways out:
//! write through the base (`base.view_mut()?.narrow(1, 1, 1)?.fill(7.0)?`, which the borrow
//! checker makes safe), or ask for a private copy ([`Tensor::to_owned`]) and write that.
//!
//! How "its own clones" is known cheaply: a view op allocates nothing, it only marks the
//! result a view. The first clone of a view gives the view and the clone a shared token (an
//! `Arc<()>`, in a `OnceLock` since `clone` takes `&self`), and every later clone shares it
//! too, so the token's strong count is the number of live tensors that are this view or its
//! clones. The write compares it with the storage's strong count plus its `Weak`s: equal
//! means nobody else holds the storage. Both counts are read while this tensor is borrowed
//! mutably, so no clone of *it* can appear meanwhile; a clone made or dropped concurrently
//! on another thread can only move the decision between "refused" and "copy-on-write",
//! never make a write reach another tensor, since whether to copy is decided afterwards by
//! [`Storage::exclusive`] alone. A view's copy-on-write result is a value of its own
//! (not a view). The cost: 16 bytes per tensor (the `OnceLock`), one small allocation at a
//! view's first clone and one more reference-count increment per clone of a view; view ops
//! and clones of values pay nothing more. Every write on `Tensor` goes through
//! [`Tensor::view_mut`] (`writable` below), so the rule has one home.

use super::{TensorMut, check_divisor, check_writable};
use crate::audit::CopyReason;
use crate::element::Element;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::scalar::Numeric;
use crate::storage::Storage;
use crate::tensor::Tensor;
use std::sync::Arc;

impl<T: Element> Tensor<T> {
    /// A mutable view of the whole tensor; see the Notes [copy-on-write] and [writes to views]
    /// in this module's source (`src/tensor_mut/owned.rs`) and [`TensorMut`].
    ///
    /// If other tensors share this tensor's storage and this tensor is a value of its own (a
    /// clone, a loaded file, an op's result), or a view whose only co-owners are its own
    /// clones (its base is gone), it first gets its own dense copy in its own memory order (an
    /// implicit copy, [`CopyReason::CopyOnWrite`]); the others keep the old storage and never
    /// see a write. If it is a view ([`Tensor::is_view`]) and any other tensor still holds the
    /// storage (the tensor it was viewed from, another view), the write is refused: it would
    /// not reach that tensor. A tensor that holds its storage alone is never copied.
    ///
    /// # Errors
    /// [`Error::OverlappingDestination`](crate::Error::OverlappingDestination) if the layout may
    /// address an element twice (an expanded or unfolded view), decided before any copy;
    /// [`Error::WriteToSharedView`](crate::Error::WriteToSharedView) for a view of a shared
    /// storage; [`Error::ImplicitCopy`](crate::Error::ImplicitCopy) if a copy is needed inside
    /// `forbid_implicit_copies`; [`Error::Alloc`](crate::Error::Alloc).
    ///
    /// # Panics
    /// Only if the crate's own invariant broke: after the copy-on-write this tensor holds its
    /// fresh, writable storage alone, which the code then relies on (an `expect`).
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], &[2, 2])?;
    /// let mut b = a.clone(); // shares a's storage, but is a value of its own
    /// b.view_mut()?.set(&[0, 1], 9)?; // b gets its own copy first
    /// assert_eq!(a.to_vec(), vec![1, 2, 3, 4]);
    /// assert_eq!(b.to_vec(), vec![1, 9, 3, 4]);
    /// let mut t = b.t()?; // a view of b
    /// assert!(t.view_mut().is_err()); // refused: the write would not reach b
    /// drop(t);
    /// b.view_mut()?.t()?.set(&[0, 1], 7)?; // writes into b through its transpose
    /// assert_eq!(b.to_vec(), vec![1, 9, 7, 4]);
    /// assert!(Tensor::<f32>::zeros(&[1, 3])?.expand(&[2, 3])?.view_mut().is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn view_mut(&mut self) -> Result<TensorMut<'_, T>> {
        self.writable("view_mut")
    }

    /// [`Tensor::view_mut`] for the write `op` the user called (named in its errors): refuses
    /// an overlapping layout and a write to a shared view (Note [writes to views]), copies on
    /// write otherwise.
    #[track_caller]
    fn writable(&mut self, op: &'static str) -> Result<TensorMut<'_, T>> {
        check_writable(op, self.layout(), self.storage().len())?;
        if let Some(family) = self.view_and_clones() {
            // Note [writes to views]: refused if anything but this view and its clones holds
            // the storage.
            let holders = Arc::strong_count(self.storage()) + Arc::weak_count(self.storage());
            if holders > family {
                return Err(Error::WriteToSharedView {
                    op,
                    shape: self.shape().to_vec(),
                    holders,
                });
            }
        }
        if Storage::exclusive(self.storage_and_layout_mut().0).is_none() {
            let dst = self.layout().dense_like()?;
            *self = self.copy_to_fresh(dst, CopyReason::CopyOnWrite)?;
        }
        let (storage, layout) = self.storage_and_layout_mut();
        let storage = Storage::exclusive(storage)
            .expect("a fresh copy-on-write storage has no other holder and is writable");
        TensorMut::new(storage, layout.clone())
    }

    /// The elements as one row-major slice for writing, if the layout is contiguous and this
    /// tensor holds its storage alone (no other tensor, no `Weak`, not foreign bytes): a
    /// write then reaches no one else, view or not, so neither copy-on-write nor the refusal
    /// of Note [writes to views] applies. `None` otherwise. The operators' in-place fast path.
    pub(crate) fn unique_slice_mut(&mut self) -> Option<&mut [T]> {
        let n = self.numel();
        if !self.is_contiguous() {
            return None;
        }
        let start = self.offset();
        let storage = Storage::exclusive(self.storage_and_layout_mut().0)?;
        // In bounds by the tensor invariant (a contiguous layout addresses `start..start + n`);
        // an empty view's offset may lie past the end, hence `get_mut`.
        storage.as_mut_slice().get_mut(start..start.checked_add(n)?)
    }

    /// Sets every element to `value` (copy-on-write as [`Tensor::view_mut`]).
    ///
    /// # Errors
    /// As [`Tensor::view_mut`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::<i16>::zeros(&[2, 2])?;
    /// x.fill(3)?;
    /// assert_eq!(x.to_vec(), vec![3; 4]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn fill(&mut self, value: T) -> Result<()> {
        self.writable("fill")?.fill(value)
    }

    /// Copies `src`, broadcast to this tensor's shape, into it ([`TensorMut::copy_from`];
    /// copy-on-write as [`Tensor::view_mut`]).
    ///
    /// # Errors
    /// [`Error::SourceMismatch`](crate::Error::SourceMismatch), checked before any copy-on-write;
    /// as [`Tensor::view_mut`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mut x = Tensor::<f32>::zeros(&[2, 3])?;
    /// x.copy_from(&Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3])?)?;
    /// assert_eq!(x.to_vec(), vec![1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn copy_from(&mut self, src: &Tensor<T>) -> Result<()> {
        self.check_source("copy_from", src.layout())?;
        self.writable("copy_from")?.copy_from(src)
    }

    /// Sets the element at `index` (copy-on-write as [`Tensor::view_mut`]).
    ///
    /// # Errors
    /// [`Error::IndexRank`](crate::Error::IndexRank),
    /// [`Error::IndexOutOfRange`](crate::Error::IndexOutOfRange) (checked before any
    /// copy-on-write); as [`Tensor::view_mut`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::<u8>::zeros(&[2, 2])?;
    /// x.set(&[1, 0], 5)?;
    /// assert_eq!(x.to_vec(), vec![0, 0, 5, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn set(&mut self, index: &[usize], value: T) -> Result<()> {
        self.layout().offset_of_for("set", index)?;
        self.writable("set")?.set(index, value)
    }

    /// Replaces every element `x` by `f(x)` (copy-on-write as [`Tensor::view_mut`]).
    ///
    /// # Errors
    /// As [`Tensor::view_mut`].
    ///
    /// ```
    /// let mut x = stridex::Tensor::from_vec(vec![1i32, -2], &[2])?;
    /// x.map_inplace(|v| v * 10)?;
    /// assert_eq!(x.to_vec(), vec![10, -20]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn map_inplace<F: Fn(T) -> T + Sync>(&mut self, f: F) -> Result<()> {
        self.writable("map_inplace")?.map_inplace(f)
    }

    /// `Err` naming `op` if `src` does not broadcast to this tensor's shape.
    fn check_source(&self, op: &'static str, src: &Layout) -> Result<()> {
        src.expand(self.shape())
            .map(|_| ())
            .map_err(|_| crate::Error::SourceMismatch {
                op,
                dst: self.shape().to_vec(),
                src: src.shape().to_vec(),
            })
    }
}

impl<T: Numeric> Tensor<T> {
    /// `self += src` elementwise, `src` broadcast to this tensor's shape
    /// ([`TensorMut::add_assign`]; copy-on-write as [`Tensor::view_mut`]).
    ///
    /// # Errors
    /// [`Error::SourceMismatch`](crate::Error::SourceMismatch) (before any copy-on-write); as
    /// [`Tensor::view_mut`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mut x = Tensor::from_vec(vec![1.0f32, 2.0], &[2])?;
    /// x.add_assign(&Tensor::from_vec(vec![0.5, 0.5], &[2])?)?;
    /// assert_eq!(x.to_vec(), vec![1.5, 2.5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn add_assign(&mut self, src: &Tensor<T>) -> Result<()> {
        self.check_source("add_assign", src.layout())?;
        self.writable("add_assign")?.add_assign(src)
    }

    /// `self -= src` elementwise ([`TensorMut::sub_assign`]).
    ///
    /// # Errors
    /// As [`Tensor::add_assign`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mut x = Tensor::from_vec(vec![3i64, 4], &[2])?;
    /// x.sub_assign(&Tensor::from_vec(vec![1, 1], &[2])?)?;
    /// assert_eq!(x.to_vec(), vec![2, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn sub_assign(&mut self, src: &Tensor<T>) -> Result<()> {
        self.check_source("sub_assign", src.layout())?;
        self.writable("sub_assign")?.sub_assign(src)
    }

    /// `self *= src` elementwise ([`TensorMut::mul_assign`]).
    ///
    /// # Errors
    /// As [`Tensor::add_assign`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mut x = Tensor::from_vec(vec![3u16, 4], &[2])?;
    /// x.mul_assign(&Tensor::full(&[1], 2)?)?;
    /// assert_eq!(x.to_vec(), vec![6, 8]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn mul_assign(&mut self, src: &Tensor<T>) -> Result<()> {
        self.check_source("mul_assign", src.layout())?;
        self.writable("mul_assign")?.mul_assign(src)
    }

    /// `self /= src` elementwise ([`TensorMut::div_assign`]).
    ///
    /// # Errors
    /// As [`Tensor::add_assign`]; [`Error::DivisionByZero`](crate::Error::DivisionByZero) for
    /// an integer zero divisor (checked before any copy-on-write: nothing is copied or written).
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mut x = Tensor::from_vec(vec![3.0f64, 4.0], &[2])?;
    /// x.div_assign(&Tensor::full(&[], 2.0)?)?;
    /// assert_eq!(x.to_vec(), vec![1.5, 2.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn div_assign(&mut self, src: &Tensor<T>) -> Result<()> {
        self.check_source("div_assign", src.layout())?;
        check_divisor("div_assign", self.numel(), src)?;
        self.writable("div_assign")?.div_assign(src)
    }
}

/// Implements `std::ops::XAssign<&Tensor<T>>` and `XAssign<T>` (scalar) for `Tensor<T>`.
macro_rules! assign_ops {
    ($($trait:ident $method:ident $fallible:ident $scalar:ident;)*) => {$(
        /// The operator form of the method of the same name.
        ///
        /// # Panics
        /// If the method returns `Err`: the source does not broadcast to this tensor's shape,
        /// the layout may address an element twice, a copy-on-write is forbidden or cannot be
        /// allocated, or an integer divisor is 0 (as ndarray's operators panic on a shape
        /// mismatch). Call the method for a `Result`.
        impl<T: Numeric> std::ops::$trait<&Tensor<T>> for Tensor<T> {
            #[track_caller]
            fn $method(&mut self, rhs: &Tensor<T>) {
                self.$fallible(rhs).or_panic(stringify!($method));
            }
        }

        /// The operator form with a scalar right-hand side.
        ///
        /// # Panics
        /// As the tensor form.
        impl<T: Numeric> std::ops::$trait<T> for Tensor<T> {
            #[track_caller]
            fn $method(&mut self, rhs: T) {
                self.writable(stringify!($method))
                    .and_then(|mut v| v.$scalar(rhs))
                    .or_panic(stringify!($method));
            }
        }
    )*};
}

assign_ops! {
    AddAssign add_assign add_assign add_assign_scalar;
    SubAssign sub_assign sub_assign sub_assign_scalar;
    MulAssign mul_assign mul_assign mul_assign_scalar;
    DivAssign div_assign div_assign div_assign_scalar;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit;

    #[test]
    fn operators_forward_to_the_methods() {
        let mut x = Tensor::from_vec(vec![1i32, 2, 3, 4], &[2, 2]).unwrap();
        let y = Tensor::from_vec(vec![10i32, 20], &[2]).unwrap();
        x += &y;
        x *= 2;
        x -= 1;
        x /= &Tensor::full(&[], 3).unwrap();
        // ((v + row) * 2 - 1) / 3, truncating.
        assert_eq!(x.to_vec(), vec![7, 14, 8, 15]);
    }

    #[test]
    #[should_panic(expected = "add_assign")]
    fn operator_panics_on_a_mismatch() {
        let mut x = Tensor::<f32>::zeros(&[2, 2]).unwrap();
        x += &Tensor::<f32>::zeros(&[3]).unwrap();
    }

    #[test]
    fn copy_on_write_is_audited_and_can_be_forbidden() {
        let a = Tensor::<f32>::zeros(&[4, 4]).unwrap();
        // A tensor of its own (not a view) over two rows of a's shared storage.
        let rows = a.layout().narrow(0, 1, 2).unwrap();
        let mut b = Tensor::from_storage(a.storage().clone(), rows).unwrap();
        assert!(!b.is_view());
        let (r, report) = audit::record(|| b.fill(1.0));
        r.unwrap();
        assert_eq!(report.count(), 1);
        assert_eq!(report.events()[0].reason, CopyReason::CopyOnWrite);
        assert_eq!(report.bytes(), 8 * 4);
        // b now holds its own storage of exactly its 8 elements: no further copy.
        assert_eq!(b.storage().len(), 8);
        let (_, again) = audit::record(|| b.fill(2.0));
        assert_eq!(again.count(), 0);
        let mut c = a.clone();
        let err = audit::forbid_implicit_copies(|| c.fill(1.0)).unwrap_err();
        assert!(matches!(err, crate::Error::ImplicitCopy { .. }));
        assert!(a.to_vec().iter().all(|&v| v == 0.0));
    }

    #[test]
    fn writes_to_a_shared_view_are_refused_before_any_copy() {
        let a = Tensor::<f32>::zeros(&[4, 4]).unwrap();
        let mut v = a.narrow(0, 1, 2).unwrap();
        let (r, report) = audit::record(|| v.fill(1.0));
        assert!(matches!(
            r,
            Err(crate::Error::WriteToSharedView {
                op: "fill",
                holders: 2,
                ..
            })
        ));
        assert_eq!(report.count(), 0);
        // Once the base is gone the view holds the storage alone and is written in place.
        let at = v.data_ptr();
        drop(a);
        v.fill(1.0).unwrap();
        assert_eq!(v.data_ptr(), at);
        assert_eq!(v.storage().as_slice()[4..12], [1.0; 8]);
    }
}
