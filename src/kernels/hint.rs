//! Software prefetch: the one hint the copy kernels give the memory system.

/// Hints the CPU to fetch the cache line at `p` into L1. Never faults, whatever `p` is.
#[inline(always)]
pub(super) fn prefetch(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    fetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p);
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    let _ = p;
}

/// Hints the CPU to fetch the cache line at `p` into L2 (not L1). Never faults, whatever `p`
/// is.
#[inline(always)]
pub(super) fn prefetch_l2(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    fetch::<{ std::arch::x86_64::_MM_HINT_T1 }>(p);
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    let _ = p;
}

/// Hints the CPU to fetch the cache line at `p` into L1 for writing (`prefetchw`, a no-op on
/// cores without it), so a later plain store to part of the line does not wait for the
/// line's read-for-ownership. Never faults, whatever `p` is.
#[inline(always)]
pub(super) fn prefetch_write(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    fetch::<{ std::arch::x86_64::_MM_HINT_ET0 }>(p);
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    let _ = p;
}

/// `_mm_prefetch` with hint `H` (T0, T1: read into L1, L2; ET0: write).
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
fn fetch<const H: i32>(p: *const u8) {
    // SAFETY: `prefetcht0`, `prefetcht1` and `prefetchw` are hints: they never fault or change memory, for
    // any address. SSE is part of the x86_64 baseline; on cores without `prefetchw` its
    // encoding executes as a no-op.
    unsafe { std::arch::x86_64::_mm_prefetch::<H>(p.cast()) }
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
