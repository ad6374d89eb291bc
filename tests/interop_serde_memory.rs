//! serde: serializing streams the elements, so a huge view costs no memory. This binary counts
//! every allocation (its own global allocator) and holds one test, so nothing else allocates
//! while it measures.
#![cfg(feature = "serde")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use stridex::Tensor;

/// The system allocator, counting the bytes asked for.
struct Counting;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Counts the bytes written; fails after `limit`.
struct Sink {
    written: usize,
    limit: usize,
}

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.written + buf.len() > self.limit {
            return Err(std::io::Error::other("the sink is full"));
        }
        self.written += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn serializing_a_huge_expanded_view_allocates_almost_nothing() {
    // 2^30 elements over one stored f32 (4 GiB if collected): 1 MiB of JSON is written
    // (about 260K elements walked), then the sink fails.
    let huge = Tensor::<f32>::zeros(&[1])
        .unwrap()
        .expand(&[1usize << 30])
        .unwrap();
    let mut sink = Sink {
        written: 0,
        limit: 1 << 20,
    };
    let before = ALLOCATED.load(Ordering::Relaxed);
    let e = serde_json::to_writer(&mut sink, &huge).unwrap_err();
    let allocated = ALLOCATED.load(Ordering::Relaxed) - before;
    assert!(e.is_io(), "{e}");
    assert!(sink.written > (1 << 20) - 16, "{}", sink.written);
    // The walk's index (one word per dim) and serde_json's error; not the elements.
    assert!(allocated < 4096, "serializing allocated {allocated} bytes");
}
