//! Aligned element buffers shared by views.
//!
//! A [`Storage<T>`] owns one heap buffer of `len` elements. Tensors hold it behind an `Arc`, so
//! any number of views share it; each view is a [`Layout`](crate::Layout) saying which elements
//! it sees:
//!
//! ```text
//!            Arc<Storage<f32>>  (len 12, first element 64-byte aligned)
//!            +----+----+----+----+----+----+----+----+----+----+----+----+
//!            |  0 |  1 |  2 |  3 |  4 |  5 |  6 |  7 |  8 |  9 | 10 | 11 |
//!            +----+----+----+----+----+----+----+----+----+----+----+----+
//!  a          shape [3, 4]  strides [4, 1]   offset 0   (rows of 4)
//!  a.t()      shape [4, 3]  strides [1, 4]   offset 0   (same bytes, columns first)
//!  a.narrow(1, 1, 2)
//!             shape [3, 2]  strides [4, 1]   offset 1   (elements 1,2 / 5,6 / 9,10)
//!  a.flip(0)  shape [3, 4]  strides [-4, 1]  offset 8   (rows 8.., 4.., 0..)
//! ```
//!
//! # Backings
//!
//! A storage's memory comes from one of three places (its `Backing`):
//!
//! - **aligned**: stridex's own allocation (`allocate`): 64-byte aligned, 2 MiB aligned on
//!   huge pages when large. Every storage a kernel creates (every copy, every op's output,
//!   [`Storage::from_slice`], [`Storage::full`]) is of this kind.
//! - **adopted `Vec`**: [`Storage::from_vec`] takes over a `Vec<T>`'s buffer without copying
//!   it; the storage frees it as that `Vec` would. Its alignment is whatever the allocator gave
//!   the `Vec` (at least `align_of::<T>()`; [`Storage::is_aligned`] tells).
//! - **foreign bytes**: [`Storage::from_byte_owner`] reads elements straight out of bytes owned
//!   by another value (a memory map, a `Vec<u8>`, a `bytes::Bytes`), which it keeps alive.
//!   Those bytes are never written: a write to such a tensor copies first.
//!
//! # Invariants
//!
//! 1. `ptr` is aligned to `align_of::<T>()`, also when `len == 0` (then it may dangle and is
//!    never dereferenced); for the aligned backing, to [`Storage::ALIGN`] (64 bytes).
//! 2. `ptr` points to `len` elements that stay valid while the `Storage` lives: an allocation
//!    of at least `len * size_of::<T>()` bytes made by `allocate` and freed only by `Drop`
//!    with the same byte count (aligned); the buffer of a `Vec<T>` of the recorded capacity,
//!    freed only by `Drop` as that `Vec` (adopted); or bytes inside the owner the storage holds
//!    an `Arc` of (foreign).
//! 3. Every one of the `len` elements is initialized once the `Storage` exists. Fresh memory is
//!    handed out as an `UninitStorage`, which only becomes a `Storage` through the `unsafe`
//!    `UninitStorage::assume_init` once a kernel has written every element; nothing zero-fills
//!    it first.
//! 4. The contents are never mutated while shared: writes go through `&mut Storage` (unique),
//!    obtained only through `Storage::exclusive`, which refuses foreign bytes (they belong to
//!    their owner, which may be a read-only memory map).
//!
//! # Allocation policy
//!
//! All memory comes from one function, `allocate`. Buffers of at least 2 MiB are aligned to
//! 2 MiB, rounded up to whole 2 MiB pages and, on Linux, advised for transparent huge pages
//! (`madvise(MADV_HUGEPAGE)`): a fresh 64 MiB buffer then costs 32 page faults instead of
//! 16384, which is most of the time of a fresh copy. Smaller buffers are 64-byte aligned: they
//! are plain (16-byte aligned) allocations 64 bytes longer than asked, handed out from their
//! first 64-byte boundary past the word that records the distance back to their start, since
//! asking the system allocator for 64-byte alignment costs several times a plain allocation.
//!
//! Freed large buffers go to a small cache (256 MiB by default, see
//! [`set_buffer_cache_limit`]) and the next allocation of the same size reuses them, so a loop
//! that makes a same-sized fresh tensor each iteration pays for touching new pages only once,
//! as it would with a reused buffer. The memory is handed out uninitialized either way
//! (invariant 3), so reuse never exposes old contents.

use std::any::Any;
use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::element::Element;
use crate::error::{Error, Result};

mod alloc;

use alloc::{allocate, bytes_for, deallocate};
pub use alloc::{buffer_cache_bytes, set_buffer_cache_limit};

/// An owned buffer of `len` elements whose first element is 64-byte aligned.
///
/// Tensors share it through an `Arc`; see the [module docs](self) for the picture and the
/// invariants.
///
/// ```
/// use stridex::Storage;
/// let s = Storage::from_slice(&[1u8, 2, 3])?;
/// assert_eq!(s.as_ptr() as usize % Storage::<u8>::ALIGN, 0);
/// assert_eq!(s.as_slice(), &[1, 2, 3]);
/// # Ok::<(), stridex::Error>(())
/// ```
pub struct Storage<T: Element> {
    ptr: NonNull<T>,
    len: usize,
    backing: Backing,
    _owns: PhantomData<T>,
}

/// Where a storage's memory comes from, and so how it is freed (see the [module docs](self)).
enum Backing {
    /// From [`allocate`] for `len * size_of::<T>()` bytes; freed by [`deallocate`].
    Aligned,
    /// The buffer of a `Vec<T>` with this capacity; freed as that `Vec`.
    Vec { capacity: usize },
    /// Bytes inside an owner, kept alive by this `Arc` (held only for its drop) and never
    /// written.
    Foreign {
        // Never used, only dropped, so no broken state of the owner can be observed after a
        // panic: asserting unwind safety keeps tensors `UnwindSafe` as before.
        _owner: AssertUnwindSafe<Arc<dyn Any + Send + Sync>>,
    },
}

// SAFETY: a Storage owns its buffer exclusively, or holds a Send + Sync owner of foreign bytes
// it never writes (no interior mutability, invariant 4), and T is Send + Sync (Element
// requires it), so moving or sharing it across threads is as safe as for a Vec<T>.
unsafe impl<T: Element> Send for Storage<T> {}
// SAFETY: see `Send`; shared access is read-only.
unsafe impl<T: Element> Sync for Storage<T> {}

impl<T: Element> Storage<T> {
    /// Alignment of the first element, in bytes: one cache line.
    pub const ALIGN: usize = 64;

    /// Fresh, uninitialized memory for `len` elements, to be filled by a kernel.
    pub(crate) fn uninit(len: usize) -> Result<UninitStorage<T>> {
        let bytes = bytes_for::<T>(len)?;
        let ptr = allocate(bytes)?.cast::<T>();
        Ok(UninitStorage {
            ptr,
            len,
            _owns: PhantomData,
        })
    }

    /// A storage holding a copy of `data`.
    ///
    /// # Errors
    /// [`Error::Alloc`] if the memory cannot be allocated.
    ///
    /// ```
    /// let s = stridex::Storage::from_slice(&[1.0f32, 2.0])?;
    /// assert_eq!(s.len(), 2);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn from_slice(data: &[T]) -> Result<Self> {
        let mut fresh = Self::uninit(data.len())?;
        // SAFETY: `fresh` has room for `data.len()` elements (invariant 2) and is a new
        // allocation, so it cannot overlap `data`.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), fresh.as_mut_ptr(), data.len());
        }
        // SAFETY: all `len` elements were just written.
        Ok(unsafe { fresh.assume_init() })
    }

    /// A storage of `len` copies of `value`.
    ///
    /// # Errors
    /// [`Error::Alloc`] if the memory cannot be allocated or `len` elements overflow `isize`.
    ///
    /// ```
    /// let s = stridex::Storage::full(3, 7i32)?;
    /// assert_eq!(s.as_slice(), &[7, 7, 7]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn full(len: usize, value: T) -> Result<Self> {
        Self::from_fn(len, |_| value)
    }

    /// A storage whose element `i` is `f(i)`, written straight into fresh memory.
    pub(crate) fn from_fn(len: usize, mut f: impl FnMut(usize) -> T) -> Result<Self> {
        let mut fresh = Self::uninit(len)?;
        let p = fresh.as_mut_ptr();
        for i in 0..len {
            // SAFETY: i < len, inside the allocation (invariant 2); T is Copy (Pod), so a plain
            // write into uninitialized memory is fine. If `f` panics, `fresh` is freed without
            // ever being read.
            unsafe { p.add(i).write(f(i)) };
        }
        // SAFETY: all `len` elements were just written.
        Ok(unsafe { fresh.assume_init() })
    }

    /// Takes over `data`'s buffer without copying it (an adopted `Vec`, see the
    /// [module docs](self)): the storage frees it as the `Vec` would. The buffer keeps the
    /// alignment the allocator gave it, at least `align_of::<T>()` but not necessarily 64
    /// bytes ([`Storage::is_aligned`]); a copy ([`Storage::from_slice`], or
    /// `Tensor::to_aligned`) is 64-byte aligned.
    ///
    /// ```
    /// let v = vec![1.0f32, 2.0, 3.0];
    /// let at = v.as_ptr();
    /// let s = stridex::Storage::from_vec(v);
    /// assert_eq!(s.as_ptr(), at); // the same buffer, no copy
    /// assert_eq!(s.as_slice(), &[1.0, 2.0, 3.0]);
    /// ```
    #[must_use]
    pub fn from_vec(data: Vec<T>) -> Self {
        let mut data = std::mem::ManuallyDrop::new(data);
        let (len, capacity) = (data.len(), data.capacity());
        Storage {
            ptr: NonNull::from(&mut data[..]).cast::<T>(),
            len,
            backing: Backing::Vec { capacity },
            _owns: PhantomData,
        }
    }

    /// `len` elements read in place from `owner`'s bytes, starting `byte_offset` bytes in: no
    /// copy (foreign bytes, see the [module docs](self)). The storage keeps `owner` alive and
    /// never writes the bytes; writing to a tensor on it copies first. The elements are in the
    /// machine's byte order.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if the range `byte_offset .. byte_offset + len *
    /// size_of::<T>()` is not inside the owner's bytes, or its start is not aligned to
    /// `align_of::<T>()` (copy with [`Storage::from_slice`] and `bytemuck` instead).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use stridex::Storage;
    /// let bytes: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
    /// let owner = Arc::new(bytes);
    /// let s = Storage::<f32>::from_byte_owner(owner.clone(), 0, 2)?;
    /// assert_eq!(s.as_slice(), &[1.5, -2.0]);
    /// assert_eq!(s.as_ptr().cast::<u8>(), owner.as_ptr()); // read in place
    /// assert!(Storage::<f32>::from_byte_owner(owner, 4, 2).is_err()); // past the end
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn from_byte_owner<O>(owner: Arc<O>, byte_offset: usize, len: usize) -> Result<Self>
    where
        O: AsRef<[u8]> + Send + Sync + 'static,
    {
        let bytes: &[u8] = (*owner).as_ref();
        let size = len.checked_mul(std::mem::size_of::<T>());
        let end = size.and_then(|size| byte_offset.checked_add(size));
        if end.is_none_or(|end| end > bytes.len()) {
            return Err(Error::InvalidArgument {
                op: "from_byte_owner",
                message: format!(
                    "{len} elements of {} ({} bytes each) from byte {byte_offset} do not fit in \
                     the owner's {} bytes; pass a range inside them",
                    T::DTYPE,
                    std::mem::size_of::<T>(),
                    bytes.len()
                ),
            });
        }
        // In bounds (checked just above), so the pointer stays inside the owner's bytes.
        let start = bytes[byte_offset..].as_ptr();
        if start as usize % std::mem::align_of::<T>() != 0 {
            return Err(Error::InvalidArgument {
                op: "from_byte_owner",
                message: format!(
                    "byte {byte_offset} of the owner is at address {start:p}, not aligned to \
                     {} bytes as {} needs; copy the bytes instead (Storage::from_slice)",
                    std::mem::align_of::<T>(),
                    T::DTYPE
                ),
            });
        }
        Ok(Storage {
            ptr: NonNull::from(&bytes[byte_offset..]).cast::<T>(),
            len,
            backing: Backing::Foreign {
                _owner: AssertUnwindSafe(owner),
            },
            _owns: PhantomData,
        })
    }

    /// Whether the first element is 64-byte aligned ([`Storage::ALIGN`]): always for storage
    /// stridex allocated, by chance for an adopted `Vec` or foreign bytes.
    ///
    /// ```
    /// assert!(stridex::Storage::full(3, 0u16)?.is_aligned());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn is_aligned(&self) -> bool {
        self.ptr.as_ptr() as usize % Self::ALIGN == 0
    }

    /// Whether the elements may be written when the storage is held alone: false for foreign
    /// bytes, which belong to their owner.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use stridex::Storage;
    /// assert!(Storage::from_vec(vec![1u8]).is_writable());
    /// assert!(!Storage::<u8>::from_byte_owner(Arc::new(vec![1u8]), 0, 1)?.is_writable());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn is_writable(&self) -> bool {
        !matches!(self.backing, Backing::Foreign { .. })
    }

    /// The storage behind `arc` for writing, if `arc` is its only holder (no other `Arc`, no
    /// `Weak`) and it is writable ([`Storage::is_writable`]); the one way to `&mut Storage`
    /// (invariant 4).
    pub(crate) fn exclusive(arc: &mut Arc<Storage<T>>) -> Option<&mut Storage<T>> {
        Arc::get_mut(arc).filter(|s| s.is_writable())
    }

    /// A storage of the first `len` items of `items`, written straight into fresh aligned
    /// memory; `Ok(Err(count))` if `items` does not yield exactly `len` items (`count` is how
    /// many it gave, or `len + 1` if it gave more), in which case nothing is kept.
    pub(crate) fn from_exact_iter(
        len: usize,
        items: impl IntoIterator<Item = T>,
    ) -> Result<std::result::Result<Self, usize>> {
        let mut fresh = Self::uninit(len)?;
        let p = fresh.as_mut_ptr();
        let mut items = items.into_iter();
        for i in 0..len {
            match items.next() {
                // SAFETY: i < len, inside the allocation (invariant 2); T is Copy (Pod), so a
                // plain write into uninitialized memory is fine. On an early return, `fresh`
                // is freed without ever being read.
                Some(x) => unsafe { p.add(i).write(x) },
                None => return Ok(Err(i)),
            }
        }
        if items.next().is_some() {
            return Ok(Err(len + 1));
        }
        // SAFETY: all `len` elements were just written.
        Ok(Ok(unsafe { fresh.assume_init() }))
    }

    /// Number of elements.
    ///
    /// ```
    /// assert_eq!(stridex::Storage::full(4, 0u8)?.len(), 4);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the storage holds no elements.
    ///
    /// ```
    /// assert!(stridex::Storage::<f32>::from_slice(&[])?.is_empty());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Pointer to the first element (64-byte aligned unless adopted or foreign: see
    /// [`Storage::is_aligned`]).
    ///
    /// ```
    /// let s = stridex::Storage::full(3, 1.5f64)?;
    /// assert_eq!(s.as_ptr() as usize % 64, 0);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    /// Mutable pointer to the first element; `&mut self` proves no view reads concurrently.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut T {
        debug_assert!(self.is_writable(), "foreign bytes are never written");
        self.ptr.as_ptr()
    }

    /// All elements, in storage order, for writing; `&mut self` proves no view reads them
    /// concurrently (invariant 4: the one way here is [`Storage::exclusive`]).
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        debug_assert!(self.is_writable(), "foreign bytes are never written");
        // SAFETY: invariants 1-3: aligned, allocated for `len` elements, all initialized;
        // invariant 4: `&mut self` is the only access while this borrow lives.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// All elements, in storage order.
    ///
    /// ```
    /// let s = stridex::Storage::from_slice(&[3u16, 4])?;
    /// assert_eq!(s.as_slice()[1], 4);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: invariants 1-3: aligned, allocated for `len` elements, all initialized;
        // invariant 4: no one writes while this shared borrow lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Element> Drop for Storage<T> {
    fn drop(&mut self) {
        match self.backing {
            // SAFETY: invariant 2: allocated by `allocate` for this byte count (which cannot
            // overflow: it was computed the same way at allocation), freed only here.
            Backing::Aligned => unsafe {
                deallocate(self.ptr.cast(), self.len * std::mem::size_of::<T>())
            },
            // SAFETY: invariant 2: the buffer, length and capacity of a `Vec<T>` taken apart by
            // `from_vec`, put back together once, here; its `len` elements are initialized.
            Backing::Vec { capacity } => unsafe {
                drop(Vec::from_raw_parts(self.ptr.as_ptr(), self.len, capacity))
            },
            // The owner's `Arc` is dropped with the field.
            Backing::Foreign { .. } => {}
        }
    }
}

impl<T: Element> std::fmt::Debug for Storage<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let backing = match self.backing {
            Backing::Aligned => "aligned",
            Backing::Vec { .. } => "adopted Vec",
            Backing::Foreign { .. } => "foreign bytes",
        };
        f.debug_struct("Storage")
            .field("dtype", &T::DTYPE)
            .field("len", &self.len)
            .field("ptr", &self.ptr)
            .field("backing", &backing)
            .finish()
    }
}

/// A storage borrowed for writing for `'a`: the raw core of
/// [`TensorMut`](crate::TensorMut).
///
/// It is made from `&'a mut Storage<T>` (so no `Arc` holder can read while it lives) and hands
/// out only a raw pointer; dereferencing it is the kernels' business. It may be duplicated
/// ([`StorageMut::share`]) so that `TensorMut::split_at` can give two views of one storage: the
/// rule that each element is reached through at most one of the copies is the invariant of
/// `TensorMut` (see `src/tensor_mut/mod.rs`), which every kernel writing through it relies on.
pub(crate) struct StorageMut<'a, T: Element> {
    ptr: NonNull<T>,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a StorageMut is an exclusive borrow of initialized elements (like `&mut [T]`, which is
// Send and Sync for T: Send + Sync, as Element requires); copies made by `share` reach disjoint
// elements (the TensorMut invariant), so moving them to other threads races on nothing.
unsafe impl<T: Element> Send for StorageMut<'_, T> {}
// SAFETY: shared access to a StorageMut only reads its pointer and length.
unsafe impl<T: Element> Sync for StorageMut<'_, T> {}

impl<'a, T: Element> StorageMut<'a, T> {
    /// Borrows every element of `storage` for writing.
    pub(crate) fn new(storage: &'a mut Storage<T>) -> StorageMut<'a, T> {
        debug_assert!(storage.is_writable(), "foreign bytes are never written");
        StorageMut {
            ptr: storage.ptr,
            len: storage.len,
            _borrow: PhantomData,
        }
    }

    /// Another handle on the same elements, for a view that reaches a disjoint part of them.
    pub(crate) fn share(&self) -> StorageMut<'a, T> {
        StorageMut {
            ptr: self.ptr,
            len: self.len,
            _borrow: PhantomData,
        }
    }

    /// A handle living no longer than `self`'s borrow (for `TensorMut::reborrow`).
    pub(crate) fn reborrow(&mut self) -> StorageMut<'_, T> {
        self.share()
    }

    /// Element 0 of the storage; valid for `len` initialized elements.
    pub(crate) fn as_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Number of elements of the storage.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

/// Fresh memory for `len` elements that a kernel must fill before it becomes a [`Storage`].
pub(crate) struct UninitStorage<T: Element> {
    ptr: NonNull<T>,
    len: usize,
    _owns: PhantomData<T>,
}

impl<T: Element> UninitStorage<T> {
    /// Where to write element 0; elements `0..len` may be written.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// The storage, now that it is filled.
    ///
    /// # Safety
    /// Every one of the `len` elements must have been written.
    pub(crate) unsafe fn assume_init(self) -> Storage<T> {
        let this = std::mem::ManuallyDrop::new(self);
        Storage {
            ptr: this.ptr,
            len: this.len,
            backing: Backing::Aligned,
            _owns: PhantomData,
        }
    }
}

impl<T: Element> Drop for UninitStorage<T> {
    fn drop(&mut self) {
        // SAFETY: allocated by `allocate` for this byte count in `Storage::uninit`; dropped
        // only when `assume_init` did not take ownership.
        unsafe { deallocate(self.ptr.cast(), self.len * std::mem::size_of::<T>()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aligned<T: Element>(len: usize) {
        let s = Storage::<T>::full(len, T::zeroed()).unwrap();
        assert_eq!(
            s.as_ptr() as usize % Storage::<T>::ALIGN,
            0,
            "{} x {len}",
            T::DTYPE
        );
        assert_eq!(s.len(), len);
    }

    #[test]
    #[cfg_attr(miri, ignore = "minutes under Miri even at small sizes")]
    fn every_fresh_storage_is_64_aligned() {
        // Under Miri, which interprets every element write, the small sizes only.
        let large: &[usize] = if cfg!(miri) {
            &[4095]
        } else {
            &[4095, 4096, 1 << 20, (1 << 21) + 3]
        };
        for len in (0..=130)
            .step_by(if cfg!(miri) { 13 } else { 1 })
            .chain(large.iter().copied())
        {
            aligned::<u8>(len);
            aligned::<i16>(len);
            aligned::<half::f16>(len);
            aligned::<half::bf16>(len);
            aligned::<f32>(len);
            aligned::<u32>(len);
            aligned::<f64>(len);
            aligned::<i64>(len);
        }
    }

    #[test]
    fn adopted_vecs_keep_their_buffer_and_capacity() {
        for cap in [0usize, 1, 7, 1000] {
            let mut v = Vec::<f64>::with_capacity(cap);
            v.extend((0..cap / 2).map(|i| i as f64));
            let (at, len) = (v.as_ptr(), v.len());
            let s = Storage::from_vec(v);
            assert_eq!((s.as_ptr(), s.len()), (at, len));
            assert!(s.as_slice().iter().enumerate().all(|(i, &x)| x == i as f64));
            assert!(s.is_writable());
            // Dropped as the Vec: valgrind and Miri check the free matches the allocation.
        }
    }

    #[test]
    fn foreign_bytes_are_read_in_place_and_checked() {
        /// Bytes with `u32` alignment: a `Vec<u8>` may start at any address (Miri picks odd
        /// ones), which would make byte 4 misaligned by chance.
        struct Words(Vec<u32>);
        impl AsRef<[u8]> for Words {
            fn as_ref(&self) -> &[u8] {
                bytemuck::cast_slice(&self.0)
            }
        }
        let owner = Arc::new(Words(vec![1, 2, 3, 4]));
        let s = Storage::<u32>::from_byte_owner(owner.clone(), 4, 3).unwrap();
        assert_eq!(s.as_slice(), &[2, 3, 4]);
        assert!(!s.is_writable());
        assert_eq!(
            Arc::strong_count(&owner),
            2,
            "the storage keeps the owner alive"
        );
        let mut shared = Arc::new(s);
        assert!(
            Storage::exclusive(&mut shared).is_none(),
            "held alone but foreign"
        );
        drop(shared);
        assert_eq!(Arc::strong_count(&owner), 1);
        // Out of range, overflowing and misaligned ranges are errors.
        for (off, len) in [(0, 5), (16, 1), (usize::MAX, 1), (0, usize::MAX / 2)] {
            assert!(matches!(
                Storage::<u32>::from_byte_owner(owner.clone(), off, len),
                Err(Error::InvalidArgument { .. })
            ));
        }
        // The bytes start on a u32 boundary, so offsets 1..4 are misaligned.
        for odd in 1..4 {
            assert!(Storage::<u32>::from_byte_owner(owner.clone(), odd, 1).is_err());
        }
        // An empty range at the end is fine.
        assert!(
            Storage::<u32>::from_byte_owner(owner, 16, 0)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn size_overflow_is_an_error() {
        assert!(matches!(
            Storage::<f64>::uninit(usize::MAX / 4),
            Err(Error::Alloc { .. })
        ));
        assert!(matches!(
            Storage::<u8>::uninit(usize::MAX),
            Err(Error::Alloc { .. })
        ));
    }
}
