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

/// Hints the CPU to fetch the cache line at `p` into L1 for writing (`prefetchw`, a no-op on
/// cores without it), so a later plain store to part of the line does not wait for the
/// line's read-for-ownership. Never faults, whatever `p` is.
#[inline(always)]
pub(super) fn prefetch_write(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `prefetchw` is a hint: it never faults or changes memory, for any address; on
    // x86_64 cores without it the encoding executes as a no-op.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_ET0 }>(p.cast())
    };
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    let _ = p;
}

/// Which way a prefetched stream reads memory.
/// (Forward runs prefetch only on the x86_64 streaming path.)
#[cfg_attr(any(miri, not(target_arch = "x86_64")), allow(dead_code))]
#[derive(Clone, Copy)]
pub(super) enum Dir {
    /// Up from each run's pointer (forward runs).
    Up,
    /// Down from each run's pointer (reversed runs, `flip`).
    Down,
}

/// While a copy reads byte `at` of a run of `run` bytes, prefetches the byte `ahead` bytes
/// further on in its read order: along this run (`this`), then on into the next one (`next`,
/// as long), nothing past that or when `ahead` is 0. Both runs are read in direction `dir`
/// from their pointers; the addresses are formed with wrapping arithmetic, never read.
#[inline(always)]
pub(super) fn prefetch_ahead(
    (at, ahead, run): (usize, usize, usize),
    (this, next): (*const u8, *const u8),
    dir: Dir,
) {
    let t = at + ahead;
    if ahead == 0 || t >= 2 * run {
        return;
    }
    let (base, k) = if t < run { (this, t) } else { (next, t - run) };
    prefetch(match dir {
        Dir::Up => base.wrapping_add(k),
        Dir::Down => base.wrapping_sub(k),
    });
}
