//! Splitting work across threads: the one place that calls rayon.
//!
//! Small iterations stay on the calling thread; large ones are cut into one contiguous range of
//! work items per thread of the current rayon pool (so `ThreadPool::install` controls it). The
//! split only decides *who* computes an item, never *how*, so results do not depend on it.
//!
//! Without the `rayon` feature the pool has one thread: [`pool_threads`] is 1 and the
//! parallel helpers below run their items in order on the calling thread, so every kernel
//! takes its serial path. Under Miri too: Miri runs rayon (Tree Borrows accepts
//! crossbeam-epoch), but a test that merely starts a pool then takes minutes instead of
//! seconds, so the unit tests that Miri runs take the serial paths, as without the feature.

#[cfg(all(feature = "rayon", not(miri)))]
use rayon::prelude::*;

/// Fewest elements an op must touch before it is split across threads, when it is called
/// from a thread of the pool (inside `ThreadPool::install`, or from rayon tasks).
///
/// A split pays only if the other workers are awake. Rayon's idle workers sleep after a few
/// microseconds, and waking one costs tens of them on a VM. On a 2-core AMD EPYC (Zen 4), in
/// a two-thread pool, `&a + &a`, `sum_dim(1)` and `sum_dim(0)` of `f32` timed in a loop that
/// does 50 µs of other work between calls took 2.3-3.1x their one-thread time at 192² and 256²
/// and 1.8-2.3x at 384². Called back to back they took 0.9-1.4x at 192² and 256² (the spread
/// is between runs) and 0.66-0.88x at 384². Below 2^17 elements (362²) the split is a loss or
/// a wash however the op is called, so it stays on the calling thread.
pub(crate) const PAR_MIN_ELEMS: usize = 1 << 17;

/// Fewest elements an op called from outside the pool (say, from `main`) must touch before it
/// is split across threads.
///
/// Such a call hands the work to a sleeping worker and then sleeps until it is done, which
/// costs far more than a fork inside the pool. On a 2-core AMD EPYC VM, `&a + &a` and
/// `sum_dim(1)` of 256² `f32` called from `main` took 9.3 and 6.8 µs on one thread but 37
/// and 31 µs on the default two-thread pool; 512² still lost (36 against 50 µs); 1024²
/// gained (123 against 104 µs, 156 against 90 µs).
pub(crate) const PAR_MIN_ELEMS_OUTSIDE: usize = 1 << 19;

/// Whether the calling thread is not one of the current pool's workers (then a parallel
/// call must wake one and wait for it; see [`PAR_MIN_ELEMS_OUTSIDE`]).
pub(crate) fn outside_pool() -> bool {
    #[cfg(all(feature = "rayon", not(miri)))]
    {
        rayon::current_thread_index().is_none()
    }
    #[cfg(any(not(feature = "rayon"), miri))]
    {
        true
    }
}

/// Threads of the current pool (rayon's current pool, or 1 without the `rayon` feature).
pub(crate) fn pool_threads() -> usize {
    #[cfg(all(feature = "rayon", not(miri)))]
    {
        rayon::current_num_threads().max(1)
    }
    #[cfg(any(not(feature = "rayon"), miri))]
    {
        1
    }
}

/// Threads worth using for `work` units of work that pays to split from `inside` units when
/// called from a thread of the pool and from `outside` units otherwise: the pool's size, or 1.
#[inline]
pub(crate) fn split_from(work: usize, inside: usize, outside: usize) -> usize {
    if work < inside || (work < outside && outside_pool()) {
        1
    } else {
        pool_threads()
    }
}

/// Number of threads worth using for `elems` elements of work.
#[inline]
pub(crate) fn threads_for(elems: usize) -> usize {
    split_from(elems, PAR_MIN_ELEMS, PAR_MIN_ELEMS_OUTSIDE)
}

/// `f(i)` for every `i` in `0..n`, spread over the pool's threads.
pub(crate) fn par_for(n: usize, f: impl Fn(usize) + Sync + Send) {
    #[cfg(all(feature = "rayon", not(miri)))]
    (0..n).into_par_iter().for_each(f);
    #[cfg(any(not(feature = "rayon"), miri))]
    (0..n).for_each(f);
}

/// `f(&mut state, i)` for every `i` in `0..n`, spread over the pool's threads, each thread's
/// items sharing states made by `init`.
pub(crate) fn par_for_init<S>(
    n: usize,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, usize) + Sync + Send,
) {
    #[cfg(all(feature = "rayon", not(miri)))]
    (0..n).into_par_iter().for_each_init(init, f);
    #[cfg(any(not(feature = "rayon"), miri))]
    {
        let mut state = init();
        (0..n).for_each(|i| f(&mut state, i));
    }
}

/// `f(c, chunk)` for the `c`-th `size`-element chunk of `data` (the last may be shorter),
/// spread over the pool's threads.
pub(crate) fn par_chunks_mut<X: Send>(
    data: &mut [X],
    size: usize,
    f: impl Fn(usize, &mut [X]) + Sync + Send,
) {
    #[cfg(all(feature = "rayon", not(miri)))]
    data.par_chunks_mut(size)
        .enumerate()
        .for_each(|(c, chunk)| f(c, chunk));
    #[cfg(any(not(feature = "rayon"), miri))]
    data.chunks_mut(size)
        .enumerate()
        .for_each(|(c, chunk)| f(c, chunk));
}

/// `data` sorted (unstably) on the pool's threads. Only for values whose order is total and
/// which are all distinct, so the result does not depend on the split (see the Note [sort
/// keys] in `sort.rs`).
pub(crate) fn par_sort_unstable<X: Ord + Send>(data: &mut [X]) {
    #[cfg(all(feature = "rayon", not(miri)))]
    data.par_sort_unstable();
    #[cfg(any(not(feature = "rayon"), miri))]
    data.sort_unstable();
}

/// `(a(), b())`, possibly on two threads.
pub(crate) fn join<RA: Send, RB: Send>(
    a: impl FnOnce() -> RA + Send,
    b: impl FnOnce() -> RB + Send,
) -> (RA, RB) {
    #[cfg(all(feature = "rayon", not(miri)))]
    {
        rayon::join(a, b)
    }
    #[cfg(any(not(feature = "rayon"), miri))]
    {
        (a(), b())
    }
}

/// The `c`-th of `chunks` near-equal contiguous pieces of `0..n`.
pub(crate) fn chunk(n: usize, chunks: usize, c: usize) -> std::ops::Range<usize> {
    let (q, r) = (n / chunks, n % chunks);
    let start = c * q + c.min(r);
    start..start + q + usize::from(c < r)
}

/// Pieces of work per thread: a few, so that a thread slowed down (by other processes on its
/// core) leaves its remaining pieces to the others, without making pieces tiny.
const CHUNKS_PER_THREAD: usize = 4;

/// Calls `f` on contiguous pieces of `0..n` covering it exactly: one piece if `threads` is 1,
/// otherwise a few per thread, run in parallel on the current rayon pool.
pub(crate) fn for_each_chunk(n: usize, threads: usize, f: impl Fn(std::ops::Range<usize>) + Sync) {
    let chunks = match threads {
        0 | 1 => 1,
        t => (t * CHUNKS_PER_THREAD).min(n.max(1)),
    };
    if chunks == 1 {
        f(0..n);
    } else {
        par_for(chunks, |c| f(chunk(n, chunks, c)));
    }
}

/// A raw pointer that may cross threads. The code sharing it guarantees that threads touch
/// disjoint elements (or only read).
#[derive(Clone, Copy)]
pub(crate) struct SharedPtr<P>(pub(crate) P);

impl<P: Copy> SharedPtr<P> {
    /// The pointer. (A method, so that closures capture the whole `SharedPtr`, which is
    /// `Sync`, rather than the raw pointer field.)
    pub(crate) fn get(&self) -> P {
        self.0
    }
}

// SAFETY: a `SharedPtr` is only a number; every dereference through it happens in a kernel that
// documents why the elements touched by different threads are disjoint or read-only.
unsafe impl<P> Send for SharedPtr<P> {}
// SAFETY: as for `Send`.
unsafe impl<P> Sync for SharedPtr<P> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_range_exactly() {
        for n in [0, 1, 5, 7, 100] {
            for chunks in 1..5 {
                let pieces: Vec<_> = (0..chunks).map(|c| chunk(n, chunks, c)).collect();
                assert_eq!(pieces[0].start, 0);
                assert_eq!(pieces[chunks - 1].end, n);
                for w in pieces.windows(2) {
                    assert_eq!(w[0].end, w[1].start);
                }
            }
        }
    }

    /// Work between the two thresholds is split inside a pool but not from outside it.
    #[cfg(all(feature = "rayon", not(miri)))]
    #[test]
    fn calls_from_outside_the_pool_split_only_larger_work() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        assert!(outside_pool());
        assert!(!pool.install(outside_pool));
        // From this test thread, outside every pool, the global pool is the one that counts.
        let global = rayon::current_num_threads();
        for (elems, inside, outside) in [
            (PAR_MIN_ELEMS - 1, 1, 1),
            (PAR_MIN_ELEMS, 2, 1),
            (PAR_MIN_ELEMS_OUTSIDE - 1, 2, 1),
            (PAR_MIN_ELEMS_OUTSIDE, 2, global),
        ] {
            assert_eq!(
                pool.install(|| threads_for(elems)),
                inside,
                "{elems} inside"
            );
            assert_eq!(threads_for(elems), outside, "{elems} outside");
        }
    }
}
