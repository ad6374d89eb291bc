//! The order of the runs of a `CopyKind::Runs` copy (unit stride on both sides of the inner
//! dim, so each run is one `memcpy`).
//!
//! In destination order, a permute that keeps the inner dim but swaps two outer ones reads
//! one run from each of many source rows far apart before it comes back to the first:
//! `permute([1, 0, 2])` of a 256 x 512 x 128 `f32` reads 512-byte runs from 256 source rows
//! 256 KiB apart, 256 streams at once, far more than a core's hardware prefetchers follow,
//! so most runs wait on DRAM. [`for_each_run`] blocks the dim just outside the runs (the one
//! the source jumps along) in `b` rows and walks the dim outside it inside each block: the
//! source is then read as `b` streams, each sequential along the outer dim, and the
//! destination still gets `b` runs back to back, `b * run` bytes, about a page
//! (`CopyTuning::page_bytes`), at most `CopyTuning::run_streams` runs.

use super::carry::{LineCarry, RaggedEnds};
use super::cpu::CopyTuning;
use super::hint::prefetch;
use super::transpose::{Word, copy_run};
use super::walk::for_each_offset2;

/// The most runs [`copy_runs`] prefetches ahead of the one it copies.
const MAX_AHEAD_RUNS: usize = 32;

/// Copies every run of a runs copy: `len` unit-stride words at each pair of offsets
/// [`for_each_run`] visits for `outer` and `strides`, from `src0` to `dst0`, whole
/// destination lines non-temporally when `stream`, lines split between consecutive runs
/// included ([`LineCarry`]).
///
/// A streamed copy also prefetches its source `run_prefetch_bytes` ahead in the order the
/// runs are read (see [Note [copy parameters]](super::cpu::CopyTuning)): every run restarts
/// a stream, and a core's hardware prefetchers ramp up on each one anew. Runs at least half
/// that long prefetch along themselves and on into the next run; shorter ones are copied
/// the number of runs that distance spans after they are prefetched whole.
///
/// # Safety
/// Every run, `len` words at `src0 + a` and `dst0 + b` for each visited `(a, b)`, readable on
/// the source and writable on the destination, not overlapping.
pub(super) unsafe fn copy_runs<W: Word>(
    src0: *const W,
    dst0: *mut W,
    (outer, strides, len): (&[usize], (&[isize], &[isize]), usize),
    stream: bool,
    tuning: &CopyTuning,
) {
    let run_bytes = len * std::mem::size_of::<W>();
    let ahead = if stream { tuning.run_prefetch_bytes } else { 0 };
    let mut carry = LineCarry::new();
    // SAFETY: `(a, b)` is a visited run, which the caller vouches for, and the carried line
    // is part of an earlier run's destination; `next` is only prefetched.
    let mut copy = |(a, b): (isize, isize), next: *const W, ahead: usize| unsafe {
        let (s, d) = (src0.offset(a), dst0.offset(b));
        if stream {
            carry.put(s.cast(), d.cast(), run_bytes, (next.cast(), ahead))
        } else {
            copy_run(s, d, len, false, (next, ahead))
        }
    };
    visit_runs(
        (outer, strides, run_bytes),
        (ahead, tuning),
        &mut copy,
        (src0, dst0),
    );
    // SAFETY: the carried bytes are the end of a visited run's destination.
    unsafe { carry.finish() };
}

/// Calls `copy(run, next, ahead)` for every run [`for_each_run`] visits, prefetching `ahead`
/// bytes ahead from `src0` as [`copy_runs`] describes: `next` and `ahead` for `copy` to pass
/// on to its run's prefetch (null and 0 where the run was prefetched here). Where it
/// prefetches, it also prefetches for writing the destination lines that runs starting
/// elsewhere than the previous one ended will store plainly ([`RaggedEnds`]).
fn visit_runs<W>(
    (outer, strides, run_bytes): (&[usize], (&[isize], &[isize]), usize),
    (ahead, tuning): (usize, &CopyTuning),
    copy: &mut impl FnMut((isize, isize), *const W, usize),
    (src0, dst0): (*const W, *mut W),
) {
    if ahead == 0 || run_bytes == 0 {
        return for_each_run(outer, strides, run_bytes, tuning, |a, b| {
            copy((a, b), std::ptr::null(), 0)
        });
    }
    if 2 * run_bytes >= ahead {
        // Long runs: each is copied once the next one's start is known.
        let mut ends = RaggedEnds::new();
        return with_next(
            |f| {
                for_each_run(outer, strides, run_bytes, tuning, |a, b| {
                    ends.visit(dst0.wrapping_offset(b).cast(), run_bytes);
                    f(a, b)
                })
            },
            |run, next| match next {
                Some(a) => copy(run, src0.wrapping_offset(a), ahead),
                None => copy(run, std::ptr::null(), 0),
            },
        );
    }
    // Short runs: a ring of the `depth` runs prefetched but not yet copied.
    let depth = (ahead / run_bytes).clamp(1, MAX_AHEAD_RUNS);
    let mut ring = [(0isize, 0isize); MAX_AHEAD_RUNS];
    let mut seen = 0usize;
    let mut ends = RaggedEnds::new();
    for_each_run(outer, strides, run_bytes, tuning, |a, b| {
        let first = src0.wrapping_offset(a).cast::<u8>();
        for line in (0..run_bytes).step_by(64) {
            prefetch(first.wrapping_add(line));
        }
        ends.visit(dst0.wrapping_offset(b).cast(), run_bytes);
        if seen >= depth {
            copy(ring[seen % depth], std::ptr::null(), 0);
        }
        ring[seen % depth] = (a, b);
        seen += 1;
    });
    for k in seen.saturating_sub(depth)..seen {
        copy(ring[k % depth], std::ptr::null(), 0);
    }
}

/// Calls `f(run, next)` for every `(source, destination)` offset pair `visit` yields, in its
/// order, one pair late: `next` is the source offset of the pair after `run` (`None` for the
/// last), so a run's copy can prefetch into the next one.
pub(super) fn with_next(
    visit: impl FnOnce(&mut dyn FnMut(isize, isize)),
    mut f: impl FnMut((isize, isize), Option<isize>),
) {
    let mut pending: Option<(isize, isize)> = None;
    visit(&mut |a, b| {
        if let Some(prev) = pending.replace((a, b)) {
            f(prev, Some(a));
        }
    });
    if let Some(last) = pending {
        f(last, None);
    }
}

/// Rows of the dim just outside the runs that [`for_each_run`] walks as one block, or 0 when
/// the destination order is kept: the runs are at least a page, the source is not faster
/// along the next dim out than along this one (or either is a broadcast), or a block would
/// hold the whole dim.
fn block_rows(outer: &[usize], src: &[isize], run_bytes: usize, tuning: &CopyTuning) -> usize {
    let m = outer.len();
    if m < 2 || run_bytes == 0 || run_bytes >= tuning.page_bytes {
        return 0;
    }
    let (near, far) = (src[m - 2].unsigned_abs(), src[m - 1].unsigned_abs());
    if near == 0 || near >= far {
        return 0;
    }
    let b = (tuning.page_bytes / run_bytes).clamp(2, tuning.run_streams.max(2));
    if b >= outer[m - 1] { 0 } else { b }
}

/// Calls `f(src_offset, dst_offset)` once for the start of every run of a runs copy whose
/// outer dims (every dim but the runs') are `outer`, with strides `src` and `dst` (in the
/// destination's order, outermost first) and runs of `run_bytes` bytes; in the blocked order
/// of the [module docs](self) where [`block_rows`] says so, else in the destination's order.
pub(super) fn for_each_run(
    outer: &[usize],
    (src, dst): (&[isize], &[isize]),
    run_bytes: usize,
    tuning: &CopyTuning,
    mut f: impl FnMut(isize, isize),
) {
    let b = block_rows(outer, src, run_bytes, tuning);
    if b == 0 {
        return for_each_offset2(outer, src, dst, f);
    }
    let m = outer.len();
    let (d, i) = (m - 2, m - 1);
    let (full, rest) = (outer[i] / b, outer[i] % b);
    let bi = b as isize;
    // Full blocks: the dims outside `d`, then the blocks of `i`, then `d`, then a block's rows.
    let with = |v: &[isize], last: [isize; 3]| [&v[..d], &last[..]].concat();
    let shape = [&outer[..d], &[full, outer[d], b][..]].concat();
    let (s, t) = (
        with(src, [bi * src[i], src[d], src[i]]),
        with(dst, [bi * dst[i], dst[d], dst[i]]),
    );
    for_each_offset2(&shape, &s, &t, &mut f);
    if rest > 0 {
        // The last `rest` rows of `i`, after the full blocks, in the same order.
        let first = (full * b) as isize;
        let shape = [&outer[..d], &[outer[d], rest][..]].concat();
        for_each_offset2(&shape, src, dst, |a, c| {
            f(a + first * src[i], c + first * dst[i])
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every run start, as (source, destination) offsets, in the order `for_each_run` visits.
    fn starts(outer: &[usize], src: &[isize], dst: &[isize], run: usize) -> Vec<(isize, isize)> {
        let mut v = vec![];
        for_each_run(outer, (src, dst), run, CopyTuning::get(), |a, b| {
            v.push((a, b))
        });
        v
    }

    /// The blocked order visits every run of the destination order exactly once, for full
    /// and partial blocks, negative strides and a dim outside the two it reorders.
    #[test]
    fn blocked_runs_visit_every_run_once() {
        let page = CopyTuning::get().page_bytes;
        let cases: [(&[usize], &[isize], &[isize]); 4] = [
            // permute [1, 0, 2] of 32 x 16 x 128 (runs of 128 words).
            (&[16, 32], &[128, 2048], &[4096, 128]),
            // 37 rows: full blocks and a rest; a reversed outer dim.
            (&[5, 37], &[-128, 640], &[4736, 128]),
            // A third dim outside the pair.
            (&[3, 4, 21], &[10_000, 8, 400], &[672, 168, 8]),
            (&[2, 3], &[1, 64], &[48, 16]),
        ];
        for (outer, src, dst) in cases {
            for run in [64, 512, page] {
                let mut want = vec![];
                for_each_offset2(outer, src, dst, |a, b| want.push((a, b)));
                let mut got = starts(outer, src, dst, run);
                assert_eq!(got.len(), want.len(), "{outer:?} run {run}");
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "{outer:?} run {run}");
            }
        }
    }

    /// Which copies are blocked, and into how many rows.
    #[test]
    fn blocks_follow_the_run_length_and_the_source_order() {
        let t = CopyTuning::get();
        let (page, most) = (t.page_bytes, t.run_streams.max(2));
        // 512-byte runs from rows 256 KiB apart: a page of runs (at most `run_streams`).
        assert_eq!(
            block_rows(&[512, 256], &[128, 65536], 512, t),
            (page / 512).clamp(2, most)
        );
        // Runs of a page or more, or a source already in order, keep the destination order.
        assert_eq!(block_rows(&[512, 256], &[128, 65536], page, t), 0);
        assert_eq!(block_rows(&[512, 256], &[65536, 128], 512, t), 0);
        // A broadcast dim, a dim shorter than a block, a single outer dim.
        assert_eq!(block_rows(&[512, 256], &[0, 65536], 512, t), 0);
        assert_eq!(block_rows(&[512, 2], &[128, 65536], 512, t), 0);
        assert_eq!(block_rows(&[512], &[128], 512, t), 0);
        // Tiny runs: never more streams than `run_streams`.
        assert_eq!(block_rows(&[512, 4096], &[1, 4096], 4, t), most);
    }

    /// `copy_runs` writes every run, in every prefetch regime (none, long runs that
    /// prefetch into the next one, short runs through rings shallower and deeper than the
    /// number of runs), streamed or not, with a reversed outer dim.
    #[test]
    fn prefetched_runs_copy_every_run() {
        let cases: [(&[usize], [isize; 2], usize); 5] = [
            (&[3, 5], [2, -1], 64),
            (&[1, 1], [1, 1], 300),
            (&[40, 2], [1, 40], 100),
            (&[0, 3], [1, 1], 64),
            (&[2, 7], [7, 1], 1),
        ];
        for (outer, [sa, sb], len) in cases {
            // Source rows `len + 3` words apart (gaps between runs), in units of rows.
            let row = (len + 3) as isize;
            let src_strides = [sa * row, sb * row];
            let dst_strides = [outer[1] as isize * len as isize, len as isize];
            let rows = outer[0] * outer[1];
            // The most negative offset the source strides reach, so offsets start at 0.
            let lo: isize = outer
                .iter()
                .zip(src_strides)
                .map(|(&n, s)| (n.max(1) as isize - 1) * s.min(0))
                .sum();
            let src: Vec<u32> = (0..(rows + 1) * (len + 3)).map(|i| i as u32 + 1).collect();
            let mut want = vec![0u32; rows * len];
            for_each_offset2(outer, &src_strides, &dst_strides, |a, b| {
                for k in 0..len as isize {
                    want[(b + k) as usize] = src[(a - lo + k) as usize];
                }
            });
            for ahead in [0, 64, 256, 1024, 8192, 1 << 20] {
                for stream in [false, true] {
                    let tuning = CopyTuning {
                        run_prefetch_bytes: ahead,
                        ..CopyTuning::get().clone()
                    };
                    let mut dst = vec![0u32; rows * len];
                    // SAFETY: every run lies inside `src` (offsets shifted by `-lo`) and
                    // `dst`, two separate vectors.
                    unsafe {
                        copy_runs(
                            src.as_ptr().offset(-lo),
                            dst.as_mut_ptr(),
                            (outer, (&src_strides, &dst_strides), len),
                            stream,
                            &tuning,
                        );
                    }
                    super::super::transpose::store_fence();
                    assert_eq!(dst, want, "{outer:?} len {len} ahead {ahead} {stream}");
                }
            }
        }
    }
}
