//! The loop order of a packed tiled copy: HPTT's idea of scoring several candidate loop nests
//! with a cost model and running the cheapest, instead of one fixed order.
//!
//! A tiled copy (`CopyKind::Tiled`) whose planes are packed ([`Tile2d::packs`]) is a nest of
//! loops around one `l x l` packed tile (`l` words = one cache line on each side): the row
//! tiles `R` (along the source's unit-stride dim), the column tiles `C` (along the
//! destination's unit-stride dim) and every other dim of the copy. Any order of those loops
//! copies the same elements; they differ in how long each side's accesses stay sequential.
//!
//! The cost model ([`cost`]) counts, for each side, the bytes one stream runs through before
//! the walk jumps elsewhere: a tile reads `l` source lines and writes `l` destination lines,
//! and a loop around it extends those runs when its step continues them exactly (`R` on the
//! source, `C` on the destination, an outer dim whose stride equals the run so far). Runs
//! are capped at a page: beyond it the prefetchers restart anyway. The cost of a nest is
//! `read_weight * page / source run + write_weight * page / destination run` (weights in
//! [Note [copy parameters]](super::cpu::CopyTuning): reads weigh more, since a read waits for
//! DRAM while a streamed whole-line write does not). The plane-by-plane order (outer dims,
//! then `C`, then `R`) is scored first and kept on ties.
//!
//! For `permute([2, 1, 0])` of 256 x 512 x 128 `f32`, plane by plane reads each source row
//! 512 bytes at a time and then jumps 256 KiB; the chosen order `C, 512, R` reads each of the
//! 16 source rows of a column strip straight through.
//!
//! The unit the loops run around is a group of `g` tiles side by side, or, where the source
//! rows are short, a whole-row block (`block_steps`): the group with all of its `R` steps,
//! so the nest has no `R` loop left and a source run starts at a whole row (at the whole
//! block, when its rows are adjacent in memory).

use super::cpu::CopyTuning;
use super::seams::Chain;
use super::tile::{Packing, Tile2d};
use super::tile_group::{Buffers, block_steps, group_tiles, line};
use super::transpose::Word;

/// One loop of a nest: `count` iterations, each moving the source and destination pointers
/// by `src` and `dst` words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Loop {
    pub(super) count: usize,
    pub(super) src: isize,
    pub(super) dst: isize,
    /// For the loop over groups of column tiles, the number of column tiles it covers (its
    /// last iteration holds the rest, fewer than a group); 0 for every other loop.
    pub(super) tiles: usize,
}

/// The words one stream of each side runs through inside the unit the loops run around: a
/// group of `g` tiles of `l` words side by side along the destination rows reads `l` words
/// of each source row and writes `g * l` of each destination row; a whole-row block of
/// `steps` tiles down reads `steps * l` of each source row, or its whole `g * l` rows as one
/// run when they are adjacent in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Unit {
    pub(super) src: usize,
    pub(super) dst: usize,
}

/// Bytes one stream of each side (source, destination) runs through before `loops`
/// (outermost first) jump elsewhere, capped at `cap` bytes, around `unit`; see the
/// [module docs](self).
fn runs(loops: &[Loop], unit: Unit, size: usize, cap: usize) -> (usize, usize) {
    let run = |step: fn(&Loop) -> isize, start: usize| {
        let mut words = start;
        for lp in loops.iter().rev().filter(|lp| lp.count > 1) {
            if words * size >= cap || step(lp) != words as isize {
                break;
            }
            words *= lp.count;
        }
        (words * size).min(cap)
    };
    (run(|lp| lp.src, unit.src), run(|lp| lp.dst, unit.dst))
}

/// The cost of running `loops` (outermost first) around `unit` of `size`-byte words; see the
/// [module docs](self).
pub(super) fn cost(loops: &[Loop], unit: Unit, size: usize, tuning: &CopyTuning) -> usize {
    let cap = tuning.page_bytes;
    let (src, dst) = runs(loops, unit, size, cap);
    tuning.read_weight * cap / src + tuning.write_weight * cap / dst
}

/// Most loops whose every order is scored (5! = 120 nests); deeper copies keep their outer
/// dims in the plan's order and only place `R` and `C`.
const MAX_PERMUTED: usize = 5;

/// The cheapest nest of the candidates: every order of `outer` plus the tile loops `c` (over
/// groups of column tiles) and `r` (over the units down the columns; the plane-by-plane
/// order `outer, c, r` first, kept on ties), or, for more than [`MAX_PERMUTED`] loops,
/// `outer` in order with `c` and `r` placed anywhere; all around `unit`.
pub(super) fn choose(
    outer: &[Loop],
    c: Loop,
    r: Loop,
    unit: Unit,
    size: usize,
    tuning: &CopyTuning,
) -> Vec<Loop> {
    let mut best: Vec<Loop> = outer.iter().copied().chain([c, r]).collect();
    let mut best_cost = cost(&best, unit, size, tuning);
    let mut consider = |nest: Vec<Loop>| {
        let k = cost(&nest, unit, size, tuning);
        if k < best_cost {
            (best, best_cost) = (nest, k);
        }
    };
    if outer.len() + 2 <= MAX_PERMUTED {
        let all: Vec<Loop> = outer.iter().copied().chain([c, r]).collect();
        permutations(all.len(), &mut |order| {
            consider(order.iter().map(|&i| all[i]).collect());
        });
    } else {
        let n = outer.len();
        for pc in 0..=n {
            for pr in 0..=n + 1 {
                let mut nest = outer.to_vec();
                nest.insert(pc, c);
                nest.insert(pr, r);
                consider(nest);
            }
        }
    }
    best
}

/// Calls `f` with every permutation of `0..n` (Heap's algorithm).
fn permutations(n: usize, f: &mut dyn FnMut(&[usize])) {
    fn go(k: usize, a: &mut [usize], f: &mut dyn FnMut(&[usize])) {
        if k <= 1 {
            f(a);
            return;
        }
        for i in 0..k {
            go(k - 1, a, f);
            a.swap(if k % 2 == 0 { i } else { 0 }, k - 1);
        }
    }
    let mut a: Vec<usize> = (0..n).collect();
    go(n, &mut a, f);
}

/// The nest of packed tiles of one tiled copy: the plane `t`, its split `p` into full tiles
/// and edges, and the loops (outermost first) around the tiles.
pub(super) struct Nest {
    pub(super) t: Tile2d,
    pub(super) p: Packing,
    pub(super) loops: Vec<Loop>,
    /// Column tiles per group ([`group_tiles`]): the unit the loops run around.
    pub(super) g: usize,
    /// Tiles down each column of the unit ([`block_steps`]): 1 for a group, all of the
    /// plane's for a whole-row block.
    pub(super) steps: usize,
    /// Words from a unit's source lines to those of the unit `prefetch_tiles` iterations of
    /// the innermost loop that moves later, which it prefetches.
    pub(super) ahead: isize,
}

impl Nest {
    /// Plans the packed tiles of planes `t` repeated over the `outer` dims (count, source and
    /// destination stride), for a destination starting at `dst`.
    pub(super) fn new<W: Word>(
        t: Tile2d,
        outer: &[Loop],
        dst: *const W,
        tuning: &CopyTuning,
    ) -> Nest {
        let (l, size) = (line::<W>(), std::mem::size_of::<W>());
        let mut p = t.packing(dst);
        // The alignment shift holds for every plane only if they all share the phase.
        if outer
            .iter()
            .any(|o| (o.dst.unsigned_abs() * size) % 64 != 0)
        {
            p.ct = (p.ct + p.cs) / l * l;
            p.cs = 0;
        }
        let li = l as isize;
        let tiles = p.ct / l;
        let g = group_tiles::<W>(tuning, t.src_col).min(tiles.max(1));
        let gl = (g * l) as isize;
        let c = Loop {
            count: tiles.div_ceil(g),
            src: gl * t.src_col,
            dst: gl,
            tiles,
        };
        let steps = block_steps::<W>(p.rt, g, t.src_col, tuning);
        let si = steps as isize;
        let r = Loop {
            count: p.rt / l / steps,
            src: li * si,
            dst: li * si * t.dst_row,
            tiles: 0,
        };
        // A block whose rows are adjacent (each a whole source row, `src_col` words long)
        // reads one run; any other unit one run a row.
        let adjacent = steps > 1 && p.rt == t.rows && t.src_col == p.rt as isize;
        let unit = Unit {
            src: if adjacent { g * l * p.rt } else { steps * l },
            dst: g * l,
        };
        let loops = choose(outer, c, r, unit, size, tuning);
        let ahead = loops
            .iter()
            .rev()
            .find(|lp| lp.count > 1)
            .map_or(0, |lp| lp.src * tuning.prefetch_tiles as isize);
        Nest {
            t,
            p,
            loops,
            g,
            steps,
            ahead,
        }
    }

    /// Work items for a parallel split: the iterations of the two outermost loops.
    pub(super) fn items(&self) -> usize {
        self.loops.iter().take(2).map(|lp| lp.count).product()
    }

    /// Copies the full tiles of work items `lo..hi` (see [`Nest::items`]).
    ///
    /// # Safety
    /// The planes at every outer index are planes as [`Tile2d::run`] requires (the plan's
    /// layouts, in bounds), from `src` and `dst`; `hi <= self.items()`.
    pub(super) unsafe fn run<W: Word>(
        &self,
        src: *const W,
        dst: *mut W,
        (lo, hi): (usize, usize),
        stream: bool,
    ) {
        let mut bufs = Buffers::new();
        let (head, rest) = self.loops.split_at(self.loops.len().min(2));
        let inner_count = head.get(1).map_or(1, |lp| lp.count);
        let ahead = self.ahead;
        let start = self.p.cs as isize;
        let (src, dst) = (
            src.wrapping_offset(start * self.t.src_col),
            dst.wrapping_offset(start),
        );
        for item in lo..hi {
            let (i0, i1) = (item / inner_count, item % inner_count);
            let (mut so, mut d_o, mut tiles) = (0isize, 0isize, self.g);
            for (lp, i) in head.iter().zip([i0, i1]) {
                so += i as isize * lp.src;
                d_o += i as isize * lp.dst;
                tiles = self.group_at(lp, i, tiles);
            }
            // SAFETY: item < items() indexes the two outer loops in range; forwarded.
            unsafe {
                self.walk(
                    rest,
                    src.wrapping_offset(so),
                    dst.wrapping_offset(d_o),
                    (&mut bufs, ahead, tiles),
                    stream,
                )
            };
        }
    }

    /// Runs `loops` (outermost first) around the packed tiles from `src` and `dst`.
    ///
    /// # Safety
    /// Every tile the loops reach is a full tile of one plane, as [`Nest::run`] vouches.
    unsafe fn walk<W: Word>(
        &self,
        loops: &[Loop],
        src: *const W,
        dst: *mut W,
        (bufs, ahead, tiles): (&mut Buffers, isize, usize),
        stream: bool,
    ) {
        match loops {
            // SAFETY: a group of `tiles <= g` full tiles of one plane (contract, group_at).
            [] => unsafe {
                self.t
                    .packed_group(bufs, src, dst, (tiles, self.steps, ahead), stream)
            },
            [lp, rest @ ..] => {
                for i in 0..lp.count {
                    let (s, d) = (
                        src.wrapping_offset(i as isize * lp.src),
                        dst.wrapping_offset(i as isize * lp.dst),
                    );
                    let tiles = self.group_at(lp, i, tiles);
                    // SAFETY: i < count: inside the loop's range.
                    unsafe { self.walk(rest, s, d, (&mut *bufs, ahead, tiles), stream) };
                }
            }
        }
    }

    /// The tiles of the group at iteration `i` of `lp`: for the loop over column groups, a
    /// whole group but for the last iteration, which holds the rest; for any other loop,
    /// `tiles` unchanged.
    fn group_at(&self, lp: &Loop, i: usize, tiles: usize) -> usize {
        if lp.tiles == 0 {
            tiles
        } else {
            (lp.tiles - i * self.g).min(self.g)
        }
    }
}

/// A raw pointer that may cross to rayon workers.
#[derive(Clone, Copy)]
struct SendPtr<P>(P);
// SAFETY: used only in `try_run`, whose work items write disjoint destination elements and
// only read the source.
unsafe impl<P> Send for SendPtr<P> {}
// SAFETY: as for Send.
unsafe impl<P> Sync for SendPtr<P> {}

/// Runs a tiled copy (`CopyKind::Tiled { j }` over the coalesced `shape` with the source and
/// destination strides `src`, `dst`, from `src0` and `dst0`) as a [`Nest`] of packed tiles if
/// its planes pack ([`Tile2d::packs`]), in parallel when it moves at least `parallel_bytes`;
/// returns whether it did (else nothing was written).
///
/// # Safety
/// As `copy_strided` for the plan's layouts; `j` is not the last dim, along which `dst` is
/// unit-stride.
pub(super) unsafe fn try_run<W: Word>(
    (shape, src, dst): (&[usize], &[isize], &[isize]),
    j: usize,
    (src0, dst0): (*const W, *mut W),
    (stream, parallel_bytes): (bool, usize),
    tuning: &CopyTuning,
) -> bool {
    let n = shape.len();
    let t = Tile2d {
        rows: shape[j],
        cols: shape[n - 1],
        src_row: src[j],
        src_col: src[n - 1],
        dst_row: dst[j],
    };
    if !t.packs::<W>(tuning, stream) {
        return false;
    }
    let keep: Vec<usize> = (0..n - 1).filter(|&d| d != j).collect();
    let outer: Vec<Loop> = keep
        .iter()
        .map(|&d| Loop {
            count: shape[d],
            src: src[d],
            dst: dst[d],
            tiles: 0,
        })
        .collect();
    let nest = Nest::new::<W>(t, &outer, dst0, tuning);
    let (sp, dp) = (SendPtr(src0), SendPtr(dst0));
    let planes: usize = outer.iter().map(|o| o.count).product();
    let shape_o: Vec<usize> = outer.iter().map(|o| o.count).collect();
    let strides_o: Vec<[isize; 2]> = outer.iter().map(|o| [o.src, o.dst]).collect();
    let p = nest.p;
    let has_edges = p.cs != 0 || p.ct != t.cols || p.rt != t.rows;
    // An outer dim along which each plane's destination rows continue the previous plane's
    // (its destination stride is the rows' length): the planes' edges meet in seam lines.
    let chained = outer
        .iter()
        .position(|o| o.count > 1 && o.dst == t.cols as isize);
    // The edges of planes lo..hi (flat indices over the outer dims).
    let edges = |lo: usize, hi: usize| {
        let (s0, d0) = (sp, dp);
        for plane in lo..hi {
            let (index, offs) = super::unravel::unravel_offsets(plane, &shape_o, &strides_o);
            let chain = chained.map(|d| Chain {
                pred: -outer[d].src,
                first: index[d] == 0,
                last: index[d] + 1 == outer[d].count,
            });
            // SAFETY: plane `plane` is one of the plan's planes (in bounds by the contract),
            // and so are the ones before and after it along the chained dim, where it has
            // them.
            unsafe {
                let (s, d) = (s0.0.offset(offs[0]), d0.0.offset(offs[1]));
                t.edges(&p, (s, d), stream, chain)
            };
        }
        if stream {
            super::transpose::store_fence();
        }
    };
    let tiles = |lo: usize, hi: usize| {
        let (s0, d0) = (sp, dp);
        // SAFETY: items lo..hi of the nest, whose planes the contract vouches for.
        unsafe { nest.run(s0.0, d0.0, (lo, hi), stream) };
        if stream {
            super::transpose::store_fence();
        }
    };
    let numel: usize = shape.iter().product();
    let threads = super::parallel::pool_threads();
    let items = nest.items();
    if threads == 1 || numel * std::mem::size_of::<W>() < parallel_bytes || items < 2 {
        tiles(0, items);
        if has_edges {
            edges(0, planes);
        }
        return true;
    }
    let chunks = items.min(threads * 4);
    super::parallel::par_for(chunks, |c| {
        tiles(c * items / chunks, (c + 1) * items / chunks)
    });
    if has_edges {
        let chunks = planes.min(threads * 4);
        super::parallel::par_for(chunks, |c| {
            edges(c * planes / chunks, (c + 1) * planes / chunks)
        });
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuning() -> CopyTuning {
        CopyTuning {
            read_weight: 2,
            write_weight: 1,
            page_bytes: 4096,
            ..CopyTuning::get().clone()
        }
    }

    const fn lp(count: usize, src: isize, dst: isize) -> Loop {
        Loop {
            count,
            src,
            dst,
            tiles: 0,
        }
    }

    #[test]
    fn runs_extend_only_through_loops_that_continue_them() {
        // f32, l = 16: R continues the source lines, C the destination lines.
        let (c, r) = (lp(16, 16 * 65536, 16), lp(8, 16, 16 * 131072));
        let one = Unit { src: 16, dst: 16 };
        assert_eq!(runs(&[c, r], one, 4, 4096), (512, 64));
        assert_eq!(runs(&[r, c], one, 4, 4096), (64, 1024));
        // An outer dim whose source stride is the run so far (128 words) extends it to the
        // page cap; size-1 loops are skipped.
        let m = lp(512, 128, 256);
        assert_eq!(runs(&[c, m, lp(1, 7, 7), r], one, 4, 4096), (4096, 64));
        assert_eq!(runs(&[lp(3, -16, 16)], one, 4, 4096), (64, 192));
        // Groups of 8 tiles: a destination run starts at 8 lines (512 bytes), and the loop
        // over groups (8 * 16 words along the destination) continues it.
        let cg = lp(32, 8 * 16 * 4096, 128);
        let r = lp(256, 16, 16 * 4096);
        let group = Unit { src: 16, dst: 128 };
        assert_eq!(runs(&[cg, r], group, 4, 4096), (4096, 512));
        assert_eq!(runs(&[r, cg], group, 4, 4096), (64, 4096));
        // A whole-row block of permute [2, 0, 1] (8 tiles of 128-word rows, adjacent): the
        // block is one 64 KiB source run, capped at the page; the loop over groups (128 rows
        // of 128 words on) continues it, but the page cap ends it there.
        let block = Unit {
            src: 128 * 128,
            dst: 128,
        };
        assert_eq!(
            runs(&[lp(1024, 128 * 128, 128)], block, 4, 4096),
            (4096, 4096)
        );
    }

    #[test]
    fn the_cheapest_order_is_chosen_and_ties_keep_plane_order() {
        let t = tuning();
        // permute [2, 1, 0] of 256 x 512 x 128 f32: the middle dim continues the source rows.
        let (m, c, r) = (
            lp(512, 128, 256),
            lp(16, 16 * 65536, 16),
            lp(8, 16, 16 * 131072),
        );
        let one = Unit { src: 16, dst: 16 };
        assert_eq!(choose(&[m], c, r, one, 4, &t), vec![c, m, r]);
        // A 2-D transpose: plane order (C, R) already reads long source runs.
        let (c2, r2) = (lp(256, 16 * 4096, 16), lp(256, 16, 16 * 4096));
        assert_eq!(choose(&[], c2, r2, one, 4, &t), vec![c2, r2]);
        // Many outer dims: only C and R move.
        let outer = [lp(2, 1 << 20, 1 << 20); 5];
        let nest = choose(&outer, c2, r2, one, 4, &t);
        assert_eq!(nest.len(), 7);
        assert_eq!(
            cost(&nest, one, 4, &t),
            cost(&[outer[0], c2, r2], one, 4, &t)
        );
    }

    #[test]
    fn permutations_are_all_distinct() {
        let mut seen = std::collections::BTreeSet::new();
        permutations(4, &mut |p| {
            seen.insert(p.to_vec());
        });
        assert_eq!(seen.len(), 24);
    }
}
