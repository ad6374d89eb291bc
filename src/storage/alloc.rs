//! Where a storage's aligned memory comes from: the one allocation function ([`allocate`]),
//! 64-byte aligned small buffers, 2 MiB aligned huge-page buffers, and the bounded cache of
//! freed large buffers. The policy is described in the [parent module](super#allocation-policy);
//! `Storage` (the parent) is the only caller.

use std::alloc::Layout as AllocLayout;
use std::ptr::NonNull;

use crate::error::{Error, Result};

/// Size and alignment from which buffers are placed on 2 MiB (huge page) boundaries.
pub(crate) const HUGE_PAGE: usize = 2 << 20;

/// The allocation layout for a large buffer (`bytes >= HUGE_PAGE`): whole huge pages, 2 MiB
/// aligned; `None` if it overflows.
fn huge_layout(bytes: usize) -> Option<AllocLayout> {
    let size = bytes.checked_next_multiple_of(HUGE_PAGE)?;
    AllocLayout::from_size_align(size, HUGE_PAGE).ok()
}

/// Bytes allocated in front of a small buffer: room to move its start up to a 64-byte
/// boundary and to record, in the word just before that start, how far it moved.
///
/// A known cost: glibc serves requests up to 1032 bytes from a per-thread cache and larger
/// ones from its bins, about 12 ns more per allocation and free on a 2-core Xeon VM, so a
/// buffer of 969 to 1032 bytes (a 16x16 `f32` result) pays that step where an unpadded one
/// would not. Asking for 64-byte alignment instead costs about 75 ns at every size.
const SMALL_PAD: usize = 64;

/// The allocation layout for a small buffer (`0 < bytes < HUGE_PAGE`): the bytes plus
/// [`SMALL_PAD`], at the allocator's ordinary 16-byte alignment. Asking the allocator for
/// 64-byte alignment instead costs several times a plain allocation (glibc's `memalign` splits
/// and consolidates chunks), which dominated the cost of small tensor ops.
fn small_layout(bytes: usize) -> Option<AllocLayout> {
    AllocLayout::from_size_align(bytes.checked_add(SMALL_PAD)?, 16).ok()
}

/// The one place stridex allocates element memory. Returns uninitialized memory of at least
/// `bytes` bytes, aligned to 64 (2 MiB for large buffers); a dangling, 64-aligned pointer for 0.
pub(super) fn allocate(bytes: usize) -> Result<NonNull<u8>> {
    if bytes == 0 {
        return Ok(dangling());
    }
    if bytes < HUGE_PAGE {
        return allocate_small(bytes);
    }
    // (let-else rather than `ok_or`: an error built eagerly is dropped on every success.)
    let Some(layout) = huge_layout(bytes) else {
        return Err(Error::Alloc {
            op: "allocate",
            bytes,
        });
    };
    if let Some(ptr) = cache().take(layout.size()) {
        return Ok(ptr.0);
    }
    // SAFETY: `layout` has non-zero size (bytes > 0), as `alloc` requires.
    let Some(ptr) = NonNull::new(unsafe { std::alloc::alloc(layout) }) else {
        return Err(Error::Alloc {
            op: "allocate",
            bytes,
        });
    };
    // Not under Miri, which cannot call madvise (the advice changes no contents).
    #[cfg(all(target_os = "linux", not(miri)))]
    // SAFETY: the range is the allocation just made, page aligned (2 MiB) and of its full
    // size. madvise only changes how the kernel backs the pages, never their contents; its
    // failure (THP disabled or unsupported) is harmless, so the result is ignored.
    unsafe {
        libc::madvise(ptr.as_ptr().cast(), layout.size(), libc::MADV_HUGEPAGE);
    }
    Ok(ptr)
}

/// [`allocate`] for `0 < bytes < HUGE_PAGE`: a plain allocation of `bytes + SMALL_PAD`,
/// returned from its first 64-byte boundary at least 16 bytes in; the word before the
/// returned pointer records that distance for [`deallocate_small`].
fn allocate_small(bytes: usize) -> Result<NonNull<u8>> {
    let Some(layout) = small_layout(bytes) else {
        return Err(Error::Alloc {
            op: "allocate",
            bytes,
        });
    };
    // SAFETY: `layout` has non-zero size (at least SMALL_PAD), as `alloc` requires.
    let Some(base) = NonNull::new(unsafe { std::alloc::alloc(layout) }) else {
        return Err(Error::Alloc {
            op: "allocate",
            bytes,
        });
    };
    // `base` is 16-byte aligned (the layout's alignment), so the distance to the next 64-byte
    // boundary is 0, 16, 32 or 48; a distance of 0 moves a whole SMALL_PAD instead, leaving
    // room for the recorded word. So `shift` is 16, 32, 48 or 64.
    let shift = match base.as_ptr().align_offset(64) {
        0 => SMALL_PAD,
        d => d,
    };
    debug_assert!((16..=SMALL_PAD).contains(&shift) && shift % 16 == 0);
    // SAFETY: `shift <= SMALL_PAD`, so `base + shift` and the `bytes` after it lie inside the
    // allocation of `bytes + SMALL_PAD` bytes. The word before it starts at `base + shift - 8
    // >= base + 8`, inside the allocation too, and is 8-byte aligned (the pointer is 64-byte
    // aligned), so writing a `usize` there is sound; nothing else uses those bytes.
    unsafe {
        let ptr = base.add(shift);
        ptr.sub(8).cast::<usize>().write(shift);
        Ok(ptr)
    }
}

/// Frees memory from [`allocate_small`].
///
/// # Safety
/// `ptr` must come from `allocate_small(bytes)` with the same `bytes`, and not be freed before.
unsafe fn deallocate_small(ptr: NonNull<u8>, bytes: usize) {
    let layout = small_layout(bytes).expect("the same layout was valid at allocation");
    // SAFETY: by the contract, `allocate_small` wrote the shift into the word before `ptr`
    // (inside the allocation, aligned) and nothing has written there since (it is outside the
    // `bytes` handed out). `ptr - shift` is then the allocation's start, allocated with
    // exactly `layout` (a pure function of `bytes`), and freed once.
    unsafe {
        let shift = ptr.sub(8).cast::<usize>().read();
        std::alloc::dealloc(ptr.sub(shift).as_ptr(), layout);
    }
}

/// A freed large buffer, owned by the cache.
struct CachedBuffer(NonNull<u8>);
// SAFETY: the cache owns the buffer exclusively (nobody else holds its pointer), so handing it
// to another thread is like moving a Vec.
unsafe impl Send for CachedBuffer {}

/// Large buffers freed recently, kept (up to a byte limit) for the next allocation of the same
/// size, so a loop that makes a fresh tensor of the same size every iteration touches fresh
/// pages only once. See "Allocation policy" in the module docs.
struct BufferCache {
    /// (allocation size, buffer), oldest first.
    free: Vec<(usize, CachedBuffer)>,
    bytes: usize,
    limit: usize,
}

/// Default limit of the large-buffer cache.
const DEFAULT_CACHE_BYTES: usize = 256 << 20;

static CACHE: std::sync::Mutex<BufferCache> = std::sync::Mutex::new(BufferCache {
    free: Vec::new(),
    bytes: 0,
    limit: DEFAULT_CACHE_BYTES,
});

fn cache() -> std::sync::MutexGuard<'static, BufferCache> {
    // The cache's state is consistent between statements, so a panic elsewhere cannot
    // leave it half-updated: recover from poisoning.
    CACHE.lock().unwrap_or_else(|e| e.into_inner())
}

impl BufferCache {
    fn take(&mut self, size: usize) -> Option<CachedBuffer> {
        let i = self.free.iter().position(|(s, _)| *s == size)?;
        self.bytes -= size;
        Some(self.free.remove(i).1)
    }

    /// Keeps `buf` (of allocation size `size`) if it fits under the limit, evicting the oldest
    /// buffers; returns the buffers the caller must free.
    fn put(&mut self, size: usize, buf: CachedBuffer) -> Vec<(usize, CachedBuffer)> {
        if size > self.limit {
            return vec![(size, buf)];
        }
        let evicted = self.evict_to(self.limit - size);
        self.bytes += size;
        self.free.push((size, buf));
        evicted
    }

    /// Removes the oldest buffers until at most `bytes` are held; returns them for freeing.
    fn evict_to(&mut self, bytes: usize) -> Vec<(usize, CachedBuffer)> {
        let mut evicted = Vec::new();
        while self.bytes > bytes {
            let (s, b) = self.free.remove(0);
            self.bytes -= s;
            evicted.push((s, b));
        }
        evicted
    }
}

/// Sets how many bytes of freed large (>= 2 MiB) buffers stridex keeps for reuse (256 MiB by
/// default; 0 turns the cache off). Reusing a buffer skips the page faults (and the kernel's
/// zeroing of fresh pages) that a new one costs, which is most of the time of a fresh copy.
/// Lowering the limit frees cached buffers at once.
///
/// ```
/// stridex::storage::set_buffer_cache_limit(0);
/// assert_eq!(stridex::storage::buffer_cache_bytes(), 0);
/// stridex::storage::set_buffer_cache_limit(256 << 20);
/// ```
pub fn set_buffer_cache_limit(bytes: usize) {
    let evicted = {
        let mut c = cache();
        c.limit = bytes;
        c.evict_to(bytes)
    };
    free_evicted(evicted);
}

/// Bytes of freed buffers the cache holds now.
///
/// ```
/// assert!(stridex::storage::buffer_cache_bytes() <= 256 << 20);
/// ```
#[must_use]
pub fn buffer_cache_bytes() -> usize {
    cache().bytes
}

fn free_evicted(buffers: Vec<(usize, CachedBuffer)>) {
    for (size, buf) in buffers {
        let layout = AllocLayout::from_size_align(size, HUGE_PAGE).expect("a cached layout");
        // SAFETY: cached buffers were allocated by `allocate` with exactly this layout (size
        // and 2 MiB alignment) and are owned by the cache alone, so freeing once is sound.
        unsafe { std::alloc::dealloc(buf.0.as_ptr(), layout) }
    }
}

/// A non-null pointer aligned to 64 bytes that points to no allocation.
pub(super) fn dangling() -> NonNull<u8> {
    NonNull::new(std::ptr::without_provenance_mut(64)).expect("64 is not null")
}

/// Frees memory from [`allocate`].
///
/// # Safety
/// `ptr` must come from `allocate(bytes)` with the same `bytes`, and not be freed before.
pub(super) unsafe fn deallocate(ptr: NonNull<u8>, bytes: usize) {
    if bytes == 0 {
        return;
    }
    if bytes < HUGE_PAGE {
        // SAFETY: by the caller's contract, `allocate(bytes)` for `bytes < HUGE_PAGE` is
        // `allocate_small(bytes)`, and this is the one free.
        unsafe { deallocate_small(ptr, bytes) };
        return;
    }
    let layout = huge_layout(bytes).expect("the same layout was valid at allocation");
    let evicted = cache().put(layout.size(), CachedBuffer(ptr));
    free_evicted(evicted);
}

pub(super) fn bytes_for<T>(len: usize) -> Result<usize> {
    match len.checked_mul(std::mem::size_of::<T>()) {
        Some(b) if b <= isize::MAX as usize => Ok(b),
        _ => Err(Error::Alloc {
            op: "allocate",
            bytes: usize::MAX,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Storage;

    #[test]
    #[cfg_attr(miri, ignore = "multi-MiB buffers: slow under Miri")]
    fn freed_large_buffers_are_reused_up_to_the_limit() {
        // An unusual size, so that other tests running in parallel do not take the buffer.
        let len = 37 * HUGE_PAGE + 5;
        let a = Storage::<u8>::full(len, 1).unwrap();
        let addr = a.as_ptr() as usize;
        drop(a);
        let b = Storage::<u8>::full(len, 2).unwrap();
        assert_eq!(b.as_ptr() as usize, addr, "the cached buffer is reused");
        assert!(b.as_slice().iter().all(|&x| x == 2));
        // A buffer larger than the limit is never cached.
        let mut c = BufferCache {
            free: Vec::new(),
            bytes: 0,
            limit: 4 * HUGE_PAGE,
        };
        let big = allocate(8 * HUGE_PAGE).unwrap();
        assert_eq!(c.put(8 * HUGE_PAGE, CachedBuffer(big)).len(), 1);
        // Filling past the limit evicts the oldest.
        let (x, y) = (
            allocate(3 * HUGE_PAGE).unwrap(),
            allocate(3 * HUGE_PAGE).unwrap(),
        );
        assert!(c.put(3 * HUGE_PAGE, CachedBuffer(x)).is_empty());
        let evicted = c.put(3 * HUGE_PAGE, CachedBuffer(y));
        assert_eq!(evicted.len(), 1);
        assert_eq!(evicted[0].1.0, x);
        assert_eq!(c.bytes, 3 * HUGE_PAGE);
        free_evicted(evicted);
        free_evicted(vec![(8 * HUGE_PAGE, CachedBuffer(big))]);
        free_evicted(std::mem::take(&mut c.free));
    }

    #[test]
    #[cfg_attr(miri, ignore = "huge pages: Miri has no madvise")]
    fn large_buffers_sit_on_huge_page_boundaries() {
        let s = Storage::<f32>::full(HUGE_PAGE, 1.0).unwrap();
        assert_eq!(s.as_ptr() as usize % HUGE_PAGE, 0);
        assert!(s.as_slice().iter().all(|&x| x == 1.0));
    }
}
