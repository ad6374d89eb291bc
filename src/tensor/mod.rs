//! `Tensor<T>`: a shared [`Storage`] plus a [`Layout`].
//!
//! The tensor adds no layout logic of its own: view ops delegate to `Layout` and wrap the result
//! around the same storage ([`views`]), element access walks the layout ([`access`]), and copies
//! go through the copy kernel.
//!
//! # Invariant
//!
//! `layout.fits_in(storage.len())`: every element the layout addresses is inside the storage.
//! Constructors establish it; view ops keep it because they address a subset of the offsets
//! their input addressed (except `as_strided`, which checks it again). The kernels' `unsafe`
//! relies on it.

mod access;
mod activations;
mod build;
mod bytes;
mod cast;
mod chain;
mod compare;
mod construct;
mod copy;
mod copy_policy;
mod dense_order;
mod fmt;
mod format;
mod index;
mod math;
mod matmul;
mod names;
mod operand;
mod ops;
mod reduce;
mod scan;
mod shape;
mod shape_ops;
mod sort;
mod stats;
mod traits;
mod views;

pub use access::Iter;
pub use build::AsTensor;
pub use chain::TensorResult;
pub use copy_policy::{CopyPolicy, MaybeCopied};
pub use operand::TensorOrScalar;
pub use stats::{Norm, NormOrder};

use std::sync::{Arc, OnceLock};

use crate::audit::{self, CopyReason};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::{Layout, checked_numel};
use crate::storage::Storage;

/// A strided view of a shared, 64-byte aligned buffer of `T`.
///
/// Cloning a tensor is cheap: it clones an `Arc` and the small layout, never the data. Every
/// view op (`transpose`, `narrow`, `slice`, `expand`, `flip`, ...) returns a new tensor sharing
/// the same storage; only [`contiguous`](Tensor::contiguous) (when needed),
/// [`reshape`](Tensor::reshape) (when a view is impossible) and [`to_vec`](Tensor::to_vec) copy.
///
/// ```
/// use stridex::Tensor;
/// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
/// let t = a.t()?;
/// assert!(t.shares_storage(&a) && !t.is_contiguous());
/// assert_eq!(t.to_vec(), vec![0, 3, 1, 4, 2, 5]);
/// # Ok::<(), stridex::Error>(())
/// ```
// `repr(C)`: the storage pointer first, then the layout in its own field order (see
// `Layout`), so that moves of a tensor (which LLVM copies in 16-byte pieces from its start)
// and the word-sized edits of a view op cover the same bytes in the same pieces; with the
// fields reordered, a view op's one-word edit followed by a 16-byte copy of a piece that
// straddles it defeats store-to-load forwarding (`t()`: 38 against 28 ns on Zen 3).
#[repr(C)]
pub struct Tensor<T: Element> {
    storage: Arc<Storage<T>>,
    layout: Layout,
    /// For a view, the token its clones share (made at its first clone, so a view op
    /// allocates nothing): its strong count is the number of live tensors that are this view
    /// or its clones. Empty for a value. See the Note [writes to views] in
    /// `src/tensor_mut/owned.rs`.
    clones: OnceLock<Arc<()>>,
    /// Whether a view op made this tensor from another one (kept by clones): a write to a
    /// view whose storage is shared with a tensor other than its own clones is refused
    /// instead of copied, see the Note [writes to views] in `src/tensor_mut/owned.rs`.
    view: bool,
}

impl<T: Element> Clone for Tensor<T> {
    /// Another handle on the same elements: an `Arc` increment and a copy of the layout. A
    /// clone of a view joins the view's clones (Note [writes to views]).
    #[inline]
    fn clone(&self) -> Tensor<T> {
        let clones = if self.view {
            OnceLock::from(Arc::clone(self.clones.get_or_init(|| Arc::new(()))))
        } else {
            OnceLock::new()
        };
        Tensor {
            storage: Arc::clone(&self.storage),
            layout: self.layout.clone(),
            clones,
            view: self.view,
        }
    }
}

impl<T: Element> Tensor<T> {
    /// Wraps a layout that is known to fit `storage` (the tensor invariant): a tensor of its
    /// own, not a view of another.
    pub(crate) fn from_parts(storage: Arc<Storage<T>>, layout: Layout) -> Tensor<T> {
        debug_assert!(layout.fits_in(storage.len()));
        Tensor {
            storage,
            layout,
            clones: OnceLock::new(),
            view: false,
        }
    }

    /// Wraps a layout a view op derived from a tensor over `storage`: as
    /// [`Tensor::from_parts`], marked as a view ([`Tensor::is_view`]).
    #[inline(always)]
    pub(crate) fn view_of(storage: Arc<Storage<T>>, layout: Layout) -> Tensor<T> {
        debug_assert!(layout.fits_in(storage.len()));
        Tensor {
            storage,
            layout,
            clones: OnceLock::new(),
            view: true,
        }
    }

    /// Whether this tensor was made from another one by a view op (`narrow`, `t`, `view`,
    /// `select`, `split`, ..., or a clone of such a tensor) and so shares its storage. While
    /// a tensor other than its own clones (the tensor it was viewed from, another view) still
    /// holds that storage, writes to a view are refused (see [`Tensor::view_mut`]); fresh
    /// results, constructors and [`Tensor::to_owned`] are not views, and a view becomes a
    /// value of its own at its first copy-on-write.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert!(!a.is_view() && a.t()?.is_view());
    /// assert!(!a.t()?.to_owned().is_view());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn is_view(&self) -> bool {
        self.view
    }

    /// For a view, how many live tensors are this view or its clones (at least 1); `None`
    /// for a value. The write path compares it with the storage's holders (Note [writes to
    /// views] in `src/tensor_mut/owned.rs`).
    pub(crate) fn view_and_clones(&self) -> Option<usize> {
        self.view
            .then(|| self.clones.get().map_or(1, Arc::strong_count))
    }

    /// A row-major tensor owning `data`'s buffer: no copy, so the peak memory is the data's
    /// once ([`Storage::from_vec`]). The buffer keeps the alignment the allocator gave the
    /// `Vec` (at least the element's, not necessarily 64 bytes: [`Storage::is_aligned`]);
    /// [`Tensor::to_aligned`] and [`Tensor::from_slice`] copy into 64-byte aligned storage.
    ///
    /// # Errors
    /// [`Error::NumelMismatch`] if `data.len()` is not the product of `shape`.
    ///
    /// ```
    /// let v = vec![1.0f32, 2.0, 3.0, 4.0];
    /// let at = v.as_ptr();
    /// let t = stridex::Tensor::from_vec(v, &[2, 2])?;
    /// assert_eq!(t.get(&[1, 0])?, 3.0);
    /// assert_eq!(t.data_ptr(), at); // the Vec's own buffer
    /// assert!(stridex::Tensor::from_vec(vec![1.0f32; 3], &[2, 2]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn from_vec(data: Vec<T>, shape: &[usize]) -> Result<Tensor<T>> {
        let layout = Self::row_major("from_vec", shape, data.len())?;
        Ok(Self::from_parts(Arc::new(Storage::from_vec(data)), layout))
    }

    /// A row-major tensor holding a copy of `data`.
    ///
    /// # Errors
    /// [`Error::NumelMismatch`] if `data.len()` is not the product of `shape`.
    ///
    /// ```
    /// let t = stridex::Tensor::from_slice(&[1u8, 2, 3], &[3])?;
    /// assert_eq!(t.to_vec(), vec![1, 2, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn from_slice(data: &[T], shape: &[usize]) -> Result<Tensor<T>> {
        let layout = Self::row_major("from_slice", shape, data.len())?;
        audit::note_explicit_copy(CopyReason::FromSlice, T::DTYPE, &layout, &layout);
        Ok(Self::from_parts(
            Arc::new(Storage::from_slice(data)?),
            layout,
        ))
    }

    /// A row-major layout for `shape` after checking that it holds exactly `have` elements.
    fn row_major(op: &'static str, shape: &[usize], have: usize) -> Result<Layout> {
        let need = checked_numel(shape);
        if need != Some(have) {
            return Err(Error::NumelMismatch {
                op,
                have,
                shape: shape.to_vec(),
                need,
            });
        }
        // A zero-size shape passes the count check whatever its other sizes; their strides
        // may still overflow, which is this constructor's error, not `contiguous`'s.
        Layout::contiguous(shape).map_err(|e| e.with_op(op))
    }

    /// A row-major tensor of `shape` filled with `value`.
    ///
    /// # Errors
    /// [`Error::Overflow`] naming `full` and the shape if the element count or the byte size
    /// exceeds `isize::MAX`, [`Error::Alloc`] if the memory cannot be allocated.
    ///
    /// ```
    /// let t = stridex::Tensor::full(&[2, 3], 7i64)?;
    /// assert_eq!(t.to_vec(), vec![7; 6]);
    /// assert!(stridex::Tensor::full(&[1 << 40, 1 << 40], 0u8).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn full(shape: &[usize], value: T) -> Result<Tensor<T>> {
        let layout = Layout::contiguous(shape).map_err(|e| e.with_op("full"))?;
        crate::error::checked_bytes("full", shape, layout.numel(), T::DTYPE.size())?;
        let storage = Storage::full(layout.numel(), value)?;
        Ok(Self::from_parts(Arc::new(storage), layout))
    }

    /// A row-major tensor of `shape` filled with zeros (all-zero bytes).
    ///
    /// # Errors
    /// As [`Tensor::full`], naming `zeros`.
    ///
    /// ```
    /// let t = stridex::Tensor::<half::bf16>::zeros(&[2, 2])?;
    /// assert_eq!(t.get(&[1, 1])?, half::bf16::ZERO);
    /// let err = stridex::Tensor::<f32>::zeros(&[1 << 40, 1 << 40]).unwrap_err();
    /// assert!(err.to_string().starts_with("zeros: shape [1099511627776, 1099511627776]"));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn zeros(shape: &[usize]) -> Result<Tensor<T>> {
        Self::full(shape, T::zeroed()).map_err(|e| e.with_op("zeros"))
    }

    /// A zero-filled tensor with the given strides (offset 0), on a storage just large enough for
    /// them, like PyTorch's `empty_strided` (stridex never exposes uninitialized memory, so the
    /// storage is zeroed).
    ///
    /// # Errors
    /// As [`Layout::new`]; [`Error::Alloc`].
    ///
    /// ```
    /// let t = stridex::Tensor::<f32>::empty_strided(&[2, 3], &[1, 2])?;
    /// assert_eq!(t.storage().len(), 6);
    /// assert!(!t.is_contiguous());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn empty_strided(shape: &[usize], strides: &[isize]) -> Result<Tensor<T>> {
        let layout = Layout::checked("empty_strided", shape, strides, 0)?;
        let storage = Storage::full(layout.storage_len_needed(), T::zeroed())?;
        Ok(Self::from_parts(Arc::new(storage), layout))
    }

    /// A tensor viewing `storage` through `layout`, checked against the storage length. It is
    /// a value of its own, not a view ([`Tensor::is_view`]): while other holders share the
    /// storage, a write to it copies on write ([`Tensor::view_mut`]).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] naming the highest offset the layout needs and the storage length.
    ///
    /// ```
    /// use stridex::{Layout, Storage, Tensor};
    /// let s = Storage::from_slice(&[1, 2, 3, 4, 5, 6])?;
    /// let t = Tensor::from_storage(s, Layout::new(&[3, 2], &[1, 3], 0)?)?;
    /// assert_eq!(t.to_vec(), vec![1, 4, 2, 5, 3, 6]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn from_storage(storage: impl Into<Arc<Storage<T>>>, layout: Layout) -> Result<Tensor<T>> {
        let storage = storage.into();
        layout.check_fits("from_storage", storage.len())?;
        Ok(Self::from_parts(storage, layout))
    }

    /// The storage and the layout, for the write path (`tensor_mut::owned`), which takes the
    /// storage exclusively (or rebinds it to a copy) and lends the layout to a `TensorMut`.
    pub(crate) fn storage_and_layout_mut(&mut self) -> (&mut Arc<Storage<T>>, &Layout) {
        (&mut self.storage, &self.layout)
    }

    /// The shared storage.
    ///
    /// ```
    /// let t = stridex::Tensor::<f32>::zeros(&[2, 3])?.narrow(1, 0, 1)?;
    /// assert_eq!(t.storage().len(), 6);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn storage(&self) -> &Arc<Storage<T>> {
        &self.storage
    }

    /// Address of the element at the layout's offset (element `[0, 0, ..]` when non-empty).
    /// For an empty tensor the pointer may lie past the storage and must not be dereferenced.
    ///
    /// ```
    /// let t = stridex::Tensor::from_slice(&[1u16, 2, 3], &[3])?;
    /// let n = t.narrow(0, 1, 2)?;
    /// assert_eq!(n.data_ptr(), t.data_ptr().wrapping_add(1));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn data_ptr(&self) -> *const T {
        self.storage.as_ptr().wrapping_add(self.layout.offset())
    }

    /// Whether both tensors view the same storage allocation.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// let b = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert!(a.t()?.shares_storage(&a) && !a.shares_storage(&b));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn shares_storage(&self, other: &Tensor<T>) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }
}

impl<T: Element + num_traits::Num + num_traits::NumCast> Tensor<T> {
    /// The 1-dim tensor `start, start + step, ..` up to but excluding `end` (PyTorch/NumPy
    /// `arange`), with `ceil((end - start) / step)` elements (none if that is negative).
    ///
    /// Values are computed as `start + i * step` in `f64` and converted to `T`.
    ///
    /// # Errors
    /// [`Error::ZeroStep`] if `step` is zero; [`Error::InvalidArgument`] if `start`, `end` or
    /// `step` is NaN or infinite; [`Error::Overflow`] if the element count exceeds `isize::MAX`
    /// or a value does not fit in `T`; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// assert_eq!(Tensor::arange(0i32, 5, 2)?.to_vec(), vec![0, 2, 4]);
    /// assert_eq!(Tensor::arange(1.0f32, 0.0, -0.25)?.to_vec(), vec![1.0, 0.75, 0.5, 0.25]);
    /// assert_eq!(Tensor::arange(3u8, 3, 1)?.numel(), 0);
    /// assert!(Tensor::arange(0.0f32, f32::NAN, 1.0).unwrap_err().to_string().contains("NaN"));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn arange(start: T, end: T, step: T) -> Result<Tensor<T>> {
        if step.is_zero() {
            return Err(Error::ZeroStep {
                op: "arange",
                dim: 0,
            });
        }
        let overflow = |n: usize| Error::Overflow {
            op: "arange",
            shape: vec![n],
            strides: vec![],
        };
        let f = |name: &str, v: T| {
            // Integers always convert; a float that does not is NaN or infinite.
            match v.to_f64() {
                Some(x) if x.is_finite() => Ok(x),
                other => Err(Error::InvalidArgument {
                    op: "arange",
                    message: format!(
                        "{name} is {}, but start, end and step must be finite numbers; \
                         give finite bounds (the element count of an unbounded range is \
                         undefined)",
                        other.map_or("not a number".to_string(), |x| format!("{x}"))
                    ),
                }),
            }
        };
        let (s, e, st) = (f("start", start)?, f("end", end)?, f("step", step)?);
        let count = ((e - s) / st).ceil().max(0.0);
        if count > isize::MAX as f64 {
            return Err(overflow(usize::MAX));
        }
        let n = count as usize;
        crate::error::checked_bytes("arange", &[n], n, T::DTYPE.size())?;
        // Check every value converts before writing any, so the storage fill cannot fail.
        let value = |i: usize| T::from(s + i as f64 * st);
        if n > 0 && (value(0).is_none() || value(n - 1).is_none()) {
            return Err(overflow(n));
        }
        let storage = Storage::from_fn(n, |i| value(i).unwrap_or_else(T::zero))?;
        Ok(Self::from_parts(
            Arc::new(storage),
            Layout::contiguous(&[n])?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<X: Send + Sync>() {}

    #[test]
    fn tensors_are_send_and_sync() {
        assert_send_sync::<Tensor<f32>>();
        assert_send_sync::<Tensor<half::f16>>();
        assert_send_sync::<Tensor<u8>>();
    }

    #[test]
    fn from_storage_checks_bounds() {
        let s = Arc::new(Storage::from_slice(&[0i32; 6]).unwrap());
        let err = Tensor::from_storage(s.clone(), Layout::new(&[2, 3], &[3, 2], 1).unwrap());
        assert_eq!(
            err.unwrap_err(),
            Error::OutOfBounds {
                op: "from_storage",
                offset: 8,
                storage_len: 6,
                shape: vec![2, 3],
                strides: vec![3, 2],
            }
        );
        assert!(Tensor::from_storage(s, Layout::new(&[0], &[1], 100).unwrap()).is_ok());
    }
}
