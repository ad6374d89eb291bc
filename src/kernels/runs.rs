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

use super::cpu::CopyTuning;
use super::walk::for_each_offset2;

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
}
