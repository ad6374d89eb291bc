//! Elementwise ops over a transposed operand (`a + b.t()`): the tiled walk of a plan with a
//! [`Tile`], its staged operands gathered through buffers.
//!
//! Each tile is `rows` x `ld` elements of the output (`ld` along its unit-stride dim). Every
//! staged operand is first gathered into a buffer, read along the dim it is unit-stride on
//! (whole cache lines, through the copy kernel's in-register block transposes) and written
//! transposed; the op then runs on unit-stride rows of every operand.
//!
//! An op whose output streams (larger than the last-level cache) stages through a tile
//! shaped for the CPU ([`widen`], Note [copy parameters], `stage_row_bytes`): on AMD a page
//! of each staged row by a page of each output row, so the gather reads the operand in
//! page-long runs, with the buffer in the LLC; on Intel two lines of each staged row by
//! whole output rows, with the buffer in the L2 and the staged rows prefetched into it.
//!
//! The gather and the op run one after the other, tile by tile, into one buffer per staged
//! operand. Overlapping them was measured slower on both Xeon VMs of Note [copy
//! parameters] (`a + b.t()`, 4096 x 4096 `f32`, one thread): gathering the next tile into a
//! second buffer a few source rows at a time between the op's rows took 1.24-1.27x the time
//! of the sequential walk with page-square tiles, and about 1.1x with Intel's two-line
//! tiles; so did prefetching the next tile during the op.

use std::mem::MaybeUninit;

use super::hint::{prefetch, prefetch_l2};
use super::run_kernel::{Runs, byte_strides};
use super::stream_out::run_one;
use super::transpose::Word;
use super::unravel::unravel_offsets;
use crate::iter::Plan;
use crate::iter::plan::Tile;

/// The tile of `plan` (planned L2-sized) reshaped for an op whose output streams:
/// `row_bytes` (`CopyTuning::stage_row_bytes`) of the narrowest staged operand along the tile
/// dim (`rows`), and along the inner dim as many elements as `budget`
/// (`CopyTuning::stage_buffer_bytes`) holds for `rows` of every staged operand (at most
/// 4096): 1024 x 1024 for one `f32` operand at a page and 4 MiB, 32 x 4096 at 128 bytes and
/// 512 KiB. `None`, keeping the planned tile, when that is fewer than 512 elements, the
/// planned tile itself, or fewer work items than `threads`. `sizes` are the operands'
/// element sizes.
pub(super) fn widen(
    plan: &Plan,
    sizes: &[usize],
    (budget, row_bytes): (usize, usize),
    threads: usize,
) -> Option<Tile> {
    let tile = plan.tile.as_ref()?;
    let staged = || {
        (0..sizes.len())
            .filter(|&k| tile.staged[k])
            .map(|k| sizes[k])
    };
    let narrowest = staged().min()?;
    let per_elem: usize = staged().sum();
    let rows = (row_bytes / narrowest).max(1);
    let cols = (budget / rows.checked_mul(per_elem)?.max(1)).min(4096);
    let len_j = plan.shape[tile.dim];
    let outer: usize = (0..plan.inner())
        .filter(|&d| d != tile.dim)
        .map(|d| plan.shape[d])
        .product();
    let items = outer.saturating_mul(len_j.div_ceil(rows));
    let planned = (rows, cols) == (tile.rows, tile.cols);
    (!planned && cols >= 512 && items >= threads).then(|| Tile {
        rows,
        cols,
        ..tile.clone()
    })
}

/// Runs work items `lo..hi` of a tiled plan (see [`Tile`] and the [module docs](self)),
/// writing the output through non-temporal stores when `stream`.
///
/// # Safety
/// As `elementwise::execute`, with `origin` the operands' first elements.
pub(super) unsafe fn run_tiles<const N: usize, K: Runs<N>>(
    plan: &Plan,
    tile: &Tile,
    origin: [*mut u8; N],
    (lo, hi): (usize, usize),
    kernel: &K,
    stream: bool,
) {
    let inner = plan.inner();
    let (j, len_j, len_l) = (tile.dim, plan.shape[tile.dim], plan.shape[inner]);
    let rows = tile.rows.min(len_j);
    // A tile row is `tl <= ld` elements: a full tile row, or the whole inner dim if shorter.
    // Buffer rows are `pitch` elements apart, 16 more than `ld` (a line of f32): at `ld` alone
    // (8 KiB of f32 in an L2-sized tile) every row would start in the same L1 set, and the
    // block transposes, which write 32 bytes into each of the tile's 64 rows in turn, would
    // evict each row's line before its second half was written (on the Xeon VM of Note [copy parameters], `a + b.t()` at 4096^2
    // f32 spent a third of its time on those stores).
    let ld = tile.cols.min(len_l);
    let pitch = ld + 16;
    let bstr = byte_strides(plan, &K::SIZES);
    let outer_dims: Vec<usize> = (0..inner).filter(|&d| d != j).collect();
    let outer_shape: Vec<usize> = outer_dims.iter().map(|&d| plan.shape[d]).collect();
    let outer_bstr: Vec<[isize; N]> = outer_dims.iter().map(|&d| bstr[d]).collect();
    let blocks = len_j.div_ceil(tile.rows);
    let page_bytes = super::cpu::CopyTuning::get().page_bytes;
    // One `rows x pitch` buffer per staged operand, in u64 words (aligned for every element
    // type). Left uninitialized: each tile's kernel reads only the `tj x tl` elements its gather
    // wrote just before (filling it with zeros cost as much as staging a small op's tiles).
    let mut buffers: Vec<Vec<MaybeUninit<u64>>> = (0..N)
        .map(|k| {
            let mut buffer = Vec::new();
            if tile.staged[k] {
                buffer.resize_with(
                    (rows * pitch * K::SIZES[k]).div_ceil(8),
                    MaybeUninit::uninit,
                );
            }
            buffer
        })
        .collect();
    let strides: [isize; N] = std::array::from_fn(|k| match tile.staged[k] {
        true => 1,
        false => plan.strides[k][inner],
    });
    for item in lo..hi {
        let (o, block) = (item / blocks, item % blocks);
        let (_, base) = unravel_offsets(o, &outer_shape, &outer_bstr);
        let j0 = block * tile.rows;
        let tj = rows.min(len_j - j0);
        for l0 in (0..len_l).step_by(ld) {
            let tl = ld.min(len_l - l0);
            let corner: [isize; N] = std::array::from_fn(|k| {
                base[k] + j0 as isize * bstr[j][k] + l0 as isize * bstr[inner][k]
            });
            for k in (0..N).filter(|&k| tile.staged[k]) {
                let g = Gather {
                    sj: plan.strides[k][j],
                    sl: plan.strides[k][inner],
                    tj,
                    tl,
                    ld: pitch,
                    prefetch: tj * K::SIZES[k] < page_bytes,
                };
                // SAFETY: the tile's elements `(j0 + jj, l0 + l)` for `jj < tj <= rows`,
                // `l < tl <= ld` are addressed by the plan (in bounds, initialized inputs);
                // the buffer holds `rows x pitch` elements.
                unsafe {
                    g.run(
                        K::SIZES[k],
                        origin[k].offset(corner[k]),
                        buffers[k].as_mut_ptr().cast(),
                    )
                };
            }
            for jj in 0..tj {
                let ptrs: [*mut u8; N] = std::array::from_fn(|k| {
                    if tile.staged[k] {
                        // SAFETY: row `jj < rows` of the buffer, `tl <= pitch` elements, all
                        // written by this tile's gather above (the kernel reads nothing else
                        // of the uninitialized buffer).
                        unsafe {
                            buffers[k]
                                .as_mut_ptr()
                                .cast::<u8>()
                                .add(jj * pitch * K::SIZES[k])
                        }
                    } else {
                        // SAFETY: index `(j0 + jj, l0)` is addressed by the plan.
                        unsafe { origin[k].offset(corner[k] + jj as isize * bstr[j][k]) }
                    }
                });
                // SAFETY: row `j0 + jj`, elements `l0..l0 + tl`: addressed by the plan or
                // staged (a private buffer, which never overlaps the output).
                unsafe { run_one(kernel, ptrs, strides, tl, stream) };
            }
        }
    }
}

/// Copies a `tj x tl` tile whose element `(jj, l)` is at `src + jj * sj + l * sl` (strides in
/// elements) into a buffer at `jj * ld + l`: the tile transposed into rows of the buffer,
/// prefetching the source rows ahead when `prefetch` (runs shorter than a page, which the
/// hardware prefetchers do not follow far enough), into the L2 where
/// `CopyTuning::stage_prefetch_l2`.
struct Gather {
    sj: isize,
    sl: isize,
    tj: usize,
    tl: usize,
    ld: usize,
    prefetch: bool,
}

impl Gather {
    /// Runs the copy on elements of `size` bytes.
    ///
    /// # Safety
    /// Every tile element must be readable and the buffer `dst` must hold `tj * ld` elements
    /// (`tl <= ld`), not overlapping the source.
    unsafe fn run(&self, size: usize, src: *const u8, dst: *mut u8) {
        // SAFETY: forwarded; elements are moved as plain words of their size (Element types
        // are 1, 2, 4 or 8 bytes with alignment equal to size).
        unsafe {
            match size {
                1 => self.words::<u8>(src.cast(), dst.cast()),
                2 => self.words::<u16>(src.cast(), dst.cast()),
                4 => self.words::<u32>(src.cast(), dst.cast()),
                8 => self.words::<u64>(src.cast(), dst.cast()),
                n => unreachable!("Element types are 1, 2, 4 or 8 bytes, not {n}"),
            }
        }
    }

    /// [`Gather::run`] for one word type. When the tile is contiguous along `jj` (`sj == 1`,
    /// the transposed-operand case), whole `MK x MK` blocks go through the copy kernel's
    /// in-register block transposes, with the source rows `stage_prefetch_rows` ahead prefetched
    /// ([Note [copy parameters]](super::cpu::CopyTuning)).
    ///
    /// # Safety
    /// As [`Gather::run`].
    unsafe fn words<W: Word>(&self, src: *const W, dst: *mut W) {
        let Gather {
            sj,
            sl,
            tj,
            tl,
            ld,
            prefetch: prefetching,
        } = *self;
        let tuning = super::cpu::CopyTuning::get();
        let ahead_rows = tuning.stage_prefetch_rows;
        let fetch = match tuning.stage_prefetch_l2 {
            true => prefetch_l2,
            false => prefetch,
        };
        let mk = W::MK;
        let (full_j, full_l) = match sj {
            1 => (tj - tj % mk, tl - tl % mk),
            _ => (0, 0),
        };
        if full_j > 0 && full_l > 0 {
            let block = W::block_fn(false);
            let line = (64 / std::mem::size_of::<W>()).max(1);
            // Rows of the source (`l`) outermost: the blocks along `jj` of the same `MK` rows
            // consume each cache line of those rows while it is hot. (At a power-of-two row
            // stride all rows fall into the same few cache sets, so a line left for later
            // would be evicted long before the walk came back to it.)
            for l0 in (0..full_l).step_by(mk) {
                for r in (0..mk).filter(|_| prefetching) {
                    let ahead = src.wrapping_offset((l0 + ahead_rows + r) as isize * sl);
                    for j0 in (0..tj).step_by(line) {
                        fetch(ahead.wrapping_add(j0).cast());
                    }
                }
                for j0 in (0..full_j).step_by(mk) {
                    // SAFETY: source rows `l0 + c` (c < MK) hold the MK contiguous elements
                    // `j0..j0 + MK` (sj == 1), inside the tile; destination rows `j0 + r` hold
                    // `l0..l0 + MK`, inside the buffer. The block writes
                    // `dst[(j0 + r) * ld + l0 + c] = src[(l0 + c) * sl + j0 + r]`.
                    unsafe {
                        block(
                            src.offset(l0 as isize * sl + j0 as isize),
                            sl,
                            dst.add(j0 * ld + l0),
                            ld as isize,
                        )
                    };
                }
            }
        }
        // The rest of the tile (all of it when not blockable): an element loop.
        for l in 0..tl {
            let jj_start = if l < full_l { full_j } else { 0 };
            if jj_start == tj {
                continue;
            }
            if prefetching {
                fetch(src.wrapping_offset((l + ahead_rows) as isize * sl).cast());
            }
            // SAFETY: `l < tl` and `jj < tj`: a tile element and a buffer slot (contract).
            unsafe {
                let s = src.offset(l as isize * sl);
                for jj in jj_start..tj {
                    dst.add(jj * ld + l)
                        .write(s.offset(jj as isize * sj).read());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `a + b.t()` over `rows x cols` of `size`-byte elements, planned.
    fn plan(rows: usize, cols: usize, size: usize) -> Plan {
        let (a, bt) = (vec![cols as isize, 1], vec![1, rows as isize]);
        Plan::new(
            &[rows, cols],
            vec![a.clone(), a, bt],
            vec![0; 3],
            &[size; 3],
        )
    }

    #[test]
    fn widened_tiles_run_a_page_each_way_when_the_budget_allows() {
        // f32 4096^2 at 4 MiB: 1024 x 1024 (a page of the staged rows, 4 KiB of the output's).
        let p = plan(4096, 4096, 4);
        let t = widen(&p, &[4; 3], (4 << 20, 4096), 2).unwrap();
        assert_eq!(
            (t.dim, t.rows, t.cols, &t.staged),
            (0, 1024, 1024, &p.tile.unwrap().staged)
        );
        // f16 and u8 runs are a page too; the columns stay at most 4096.
        let t = widen(&plan(8192, 8192, 1), &[1; 3], (32 << 20, 4096), 1).unwrap();
        assert_eq!((t.rows, t.cols), (4096, 4096));
        let t = widen(&plan(4096, 4096, 2), &[2; 3], (4 << 20, 4096), 1).unwrap();
        assert_eq!((t.rows, t.cols), (2048, 1024));
    }

    #[test]
    fn intel_tiles_stage_two_lines_of_whole_output_rows() {
        // 128 bytes of each staged row at a 512 KiB budget: 32 x 4096 f32, 16 x 4096 f64,
        // 128 x 4096 u8; a budget too small for whole rows takes as many columns as fit.
        for (size, rows) in [(4, 32), (8, 16), (1, 128)] {
            let t = widen(&plan(4096, 4096, size), &[size; 3], (512 << 10, 128), 2).unwrap();
            assert_eq!(
                (t.dim, t.rows, t.cols),
                (0, rows, 4096),
                "{size}-byte words"
            );
        }
        let t = widen(&plan(4096, 4096, 4), &[4; 3], (256 << 10, 128), 1).unwrap();
        assert_eq!((t.rows, t.cols), (32, 2048));
        // Two staged operands (`a.t() + b.t()`) share the budget.
        let both = Plan::new(
            &[4096, 4096],
            vec![vec![4096, 1], vec![1, 4096], vec![1, 4096]],
            vec![0; 3],
            &[4; 3],
        );
        let t = widen(&both, &[4; 3], (512 << 10, 128), 1).unwrap();
        assert_eq!(
            (t.rows, t.cols, &t.staged[..]),
            (32, 2048, &[false, true, true][..])
        );
    }

    #[test]
    fn widening_is_refused_without_room_or_work_for_every_thread() {
        let p = plan(4096, 4096, 4);
        // No budget, or too small a one for 512 columns.
        assert_eq!(widen(&p, &[4; 3], (0, 4096), 1), None);
        assert_eq!(widen(&p, &[4; 3], (1 << 20, 4096), 1), None);
        // 4 tiles of 1024 rows for 8 threads.
        assert_eq!(widen(&p, &[4; 3], (4 << 20, 4096), 8), None);
        // The planned tile itself (64 rows of f32 by TILE_L).
        let planned = p.tile.clone().unwrap();
        let per_row = planned.rows * 4;
        let budget = per_row * planned.cols;
        assert_eq!(widen(&p, &[4; 3], (budget, per_row), 1), None);
        // Not tiled at all.
        let plain = Plan::new(&[64, 64], vec![vec![64, 1]; 3], vec![0; 3], &[4; 3]);
        assert_eq!(widen(&plain, &[4; 3], (4 << 20, 4096), 1), None);
    }
}
