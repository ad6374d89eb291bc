//! Software prefetch: the one hint the copy kernels give the memory system.

/// Hints the CPU to fetch the cache line at `p` into L1. Never faults, whatever `p` is.
#[inline(always)]
pub(super) fn prefetch(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `prefetcht0` is a hint: it never faults or changes memory, for any address. SSE
    // is part of the x86_64 baseline.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    };
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    let _ = p;
}
