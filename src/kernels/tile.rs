//! The 2-D transposing copy inside a plane of a tiled copy plan (`CopyKind::Tiled`).
//!
//! A transpose reads one side across rows: with the power-of-two row strides of typical
//! shapes (4096 f32, 8192 u8), the rows a block touches fall into the same few cache sets, and
//! a block of 16 one-byte rows already needs more lines of one set than the L1 has ways. So
//! when the source is unit-stride along the destination's rows, the plane is copied in
//! line-square tiles (one cache line of words on each side: 64 x 64 bytes, 16 x 16 `f32`)
//! through two small buffers: each source line is read whole into the first buffer, the
//! buffer is transposed into the second with the in-register blocks (conflict-free: the
//! buffers are contiguous), and each destination line is written whole from it, streaming
//! when the copy is larger than the last-level cache. Every line on either side is then
//! touched exactly once. Tiles go in groups side by side along the destination rows
//! (`CopyTuning::group_lines`: 8 on AMD, 2 on Intel, whose prefetchers follow fewer source
//! rows), so each destination row gets several lines back to back: a memory controller
//! writes runs of lines far faster than lines scattered one per row. Where the tiled part of
//! each source row is only 2 to 8 lines long (`permute([0, 2, 1])` and `permute([2, 0, 1])`
//! of 256 x 512 x 128 `f32`, NHWC to NCHW), a group reads those rows whole: a whole-row
//! block (`steps` tiles down each column of the group, see
//! [`block_steps`]) reads the group's source region front
//! to back instead of in `steps` strided passes. Planes too small for one tile, and strided
//! sources, take square tiles of blocks directly, and so do planes small enough to stay in
//! the L2 cache in a copy
//! that does not stream, where the buffers cost more than the conflicts.

use super::cpu::CopyTuning;
use super::hint::prefetch;
pub(super) use super::plane::{Packing, Tile2d};
use super::seams::Chain;
use super::tile_group::{
    BLOCK_BYTES, Buffers, GROUP_BYTES, LINE, block_steps, group_tiles, line, rows_alias_in_l2,
};
use super::transpose::{BlockFn, Word, write_line};

/// Side of a square tile in words: `tile_bytes` (256 on a 32 KiB L1d) of each row, so a
/// 4-byte tile is 64 x 64 (16 KiB read + 16 KiB written, inside L1/L2 while it is transposed
/// block by block); see [Note [copy parameters]](super::cpu::CopyTuning).
pub(super) fn tile<W: Word>() -> usize {
    tile_side::<W>(CopyTuning::get())
}

/// [`tile`] under the parameters `tuning`.
fn tile_side<W: Word>(tuning: &CopyTuning) -> usize {
    (tuning.tile_bytes / std::mem::size_of::<W>()).next_multiple_of(W::MK)
}

impl Tile2d {
    /// Copies the plane: through packed line-square tiles ([`Tile2d::run_packed`]) when
    /// [`Tile2d::packs`], else in square tiles of blocks ([`Tile2d::run_tiled`]). `block` is
    /// `W::block_fn(stream)`.
    ///
    /// # Safety
    /// Every `src[r * src_row + c * src_col]` must be readable and every `dst[r * dst_row + c]`
    /// writable for `r < rows`, `c < cols`, and the two must not overlap.
    pub(super) unsafe fn run<W: Word>(
        &self,
        src: *const W,
        dst: *mut W,
        block: BlockFn<W>,
        stream: bool,
    ) {
        // SAFETY: forwarded.
        unsafe {
            if self.packs::<W>(CopyTuning::get(), stream) {
                self.run_packed(src, dst, stream);
            } else if stream {
                // Square tiles write each destination line in pieces of one block row, far
                // apart in time: non-temporal stores of partial lines flush partial
                // write-combining buffers (measured 3x slower on an Intel Xeon), so the tiles
                // store normally.
                self.run_tiled(src, dst, W::block_fn(false));
            } else {
                self.run_tiled(src, dst, block);
            }
        }
    }

    /// Whether the plane is copied through packed tiles: the source is unit-stride along rows,
    /// the plane holds at least one packed tile, and either the copy `stream`s (it exceeds the
    /// last-level cache, so only the packed tiles write whole lines with non-temporal stores),
    /// or the plane is at least `tuning.packed_min_bytes`, or the source columns or
    /// destination rows of a square tile would evict each other from the L2 cache
    /// ([`rows_alias_in_l2`]), as the outer dim of a permute often does. (Below the size, with
    /// lines that spread over the L2 sets, a plane of a copy that stays cached is in the L2
    /// while it is copied, and the square tiles skip the buffers' cost.)
    pub(super) fn packs<W: Word>(&self, tuning: &CopyTuning, stream: bool) -> bool {
        let (l, size) = (line::<W>(), std::mem::size_of::<W>());
        if self.src_row != 1 || self.rows < l || self.cols < l {
            return false;
        }
        let bytes = self.rows.saturating_mul(self.cols).saturating_mul(size);
        let stride = |s: isize| s.unsigned_abs().saturating_mul(size);
        let side = tile_side::<W>(tuning);
        stream
            || bytes >= tuning.packed_min_bytes
            || rows_alias_in_l2(stride(self.src_col), side.min(self.cols), tuning)
            || rows_alias_in_l2(stride(self.dst_row), side.min(self.rows), tuning)
    }

    /// Walks the `rows x cols` plane in square tiles; inside a tile, `MK x MK` blocks go
    /// through the in-register transpose `block` when the source is unit-stride along rows,
    /// and the ragged edges element by element.
    ///
    /// # Safety
    /// As [`Tile2d::run`].
    pub(super) unsafe fn run_tiled<W: Word>(&self, src: *const W, dst: *mut W, block: BlockFn<W>) {
        let (tb, mk) = (tile::<W>(), W::MK);
        let line = (64 / std::mem::size_of::<W>()).max(mk);
        let simd = self.src_row == 1;
        for r0 in (0..self.rows).step_by(tb) {
            let r1 = (r0 + tb).min(self.rows);
            for c0 in (0..self.cols).step_by(tb) {
                let c1 = (c0 + tb).min(self.cols);
                // Whole blocks, then the ragged right and bottom edges.
                let (rb, cb) = if simd {
                    (r0 + (r1 - r0) / mk * mk, c0 + (c1 - c0) / mk * mk)
                } else {
                    (r0, c0)
                };
                // Column panels one destination cache line wide: each pass down the rows
                // writes whole lines (good for streaming stores) while the source rows of the
                // panel are read sequentially.
                for cl in (c0..cb).step_by(line) {
                    let ce = (cl + line).min(cb);
                    for r in (r0..rb).step_by(mk) {
                        for c in (cl..ce).step_by(mk) {
                            let (r, c) = (r as isize, c as isize);
                            // SAFETY: the block covers rows r..r + MK <= rb and columns
                            // c..c + MK <= cb, inside the plane; src_row == 1 makes each of its
                            // source rows (fixed c) MK contiguous words.
                            unsafe {
                                block(
                                    src.offset(r + c * self.src_col),
                                    self.src_col,
                                    dst.offset(r * self.dst_row + c),
                                    self.dst_row,
                                )
                            }
                        }
                    }
                }
                // SAFETY: the edges are inside the plane.
                unsafe {
                    self.scalar(src, dst, (r0, rb), (cb, c1));
                    self.scalar(src, dst, (rb, r1), (c0, c1));
                }
            }
        }
    }

    /// How a packed plane splits (see [`Packing`]), for a destination starting at `dst`.
    pub(super) fn packing<W: Word>(&self, dst: *const W) -> Packing {
        let (l, size) = (line::<W>(), std::mem::size_of::<W>());
        // Start the tiles at the first column whose destination address is on a cache-line
        // boundary (when every destination row has the same alignment), so each written line
        // is one whole line, which streaming stores need to skip reading it first.
        let phase = dst as usize % LINE;
        let same_phase = (self.dst_row.unsigned_abs() * size) % LINE == 0;
        let cs = if phase != 0 && same_phase {
            ((LINE - phase) / size).min(self.cols)
        } else {
            0
        };
        Packing {
            cs,
            rt: self.rows / l * l,
            ct: (self.cols - cs) / l * l,
        }
    }

    /// The packed copy; see the [module docs](self). Full line-square tiles go through the
    /// buffers, column strip by column strip, the ragged edges through [`Tile2d::edges`].
    ///
    /// # Safety
    /// As [`Tile2d::run`], with `src_row == 1` and `rows, cols >= line::<W>()`.
    unsafe fn run_packed<W: Word>(&self, src: *const W, dst: *mut W, stream: bool) {
        let l = line::<W>();
        debug_assert!(self.src_row == 1 && self.rows >= l && self.cols >= l);
        let p = self.packing(dst);
        let mut bufs = Buffers::new();
        let li = l as isize;
        let tuning = CopyTuning::get();
        let ahead = tuning.prefetch_tiles as isize * li;
        let g = group_tiles::<W>(tuning, self.src_col);
        let tiles = p.ct / l;
        let steps = block_steps::<W>(p.rt, g, self.src_col, tuning);
        let ahead = if steps > 1 {
            (g * l) as isize * self.src_col
        } else {
            ahead
        };
        for t0 in (0..tiles).step_by(g) {
            let c0 = (p.cs + t0 * l) as isize;
            for r0 in (0..p.rt as isize).step_by(l * steps) {
                // SAFETY: rows r0..r0 + l * steps <= rt <= rows (steps divides rt / l or is
                // 1) and the group's columns c0..c0 + l * min(g, tiles - t0) <= cs + ct <=
                // cols lie in the plane (contract).
                unsafe {
                    self.packed_group(
                        &mut bufs,
                        src.offset(r0 + c0 * self.src_col),
                        dst.offset(r0 * self.dst_row + c0),
                        (g.min(tiles - t0), steps, ahead),
                        stream,
                    )
                };
            }
        }
        // SAFETY: forwarded.
        unsafe { self.edges(&p, (src, dst), stream, None) };
    }

    /// Copies the group of `tiles x steps` packed `l x l` tiles (`l = line::<W>()`): `tiles`
    /// side by side along the destination's rows, `steps` down its columns, whose first
    /// element is at `src` and `dst`, through the buffers: each source column's `steps`
    /// lines read whole into `a` and transposed in registers into `b`, `steps` tiles a column
    /// of the group; then each of the `steps * l` destination rows' `tiles` lines written
    /// whole, back to back. Prefetches the `steps` lines `ahead` words further along each
    /// source column (a hint: any address is harmless).
    ///
    /// The group exists for the writes: one line per destination row and then a jump (a
    /// single tile's pattern, when the rows are far apart) streamed at 0.53-0.62x a memcpy on
    /// a Zen 3 core, four to eight lines per row at 0.9-1.3x. More than one step (a whole-row
    /// block, [`block_steps`]) is for the reads: the group's source rows read front to back.
    ///
    /// # Safety
    /// For one step, `tiles <= group_tiles::<W>(CopyTuning::get(), self.src_col)`, or any
    /// count whose tiles fit [`GROUP_BYTES`]; for more, `tiles * steps` tiles fit
    /// [`BLOCK_BYTES`] (as [`block_steps`] ensures). The group's `tiles * l` source columns
    /// (`steps * l` words each, `src_col` apart) are readable, its `steps * l` destination
    /// rows (`tiles * l` words each, `dst_row` apart) writable, not overlapping;
    /// `src_row == 1`.
    #[inline]
    pub(super) unsafe fn packed_group<W: Word>(
        &self,
        bufs: &mut Buffers,
        src: *const W,
        dst: *mut W,
        (tiles, steps, ahead): (usize, usize, isize),
        stream: bool,
    ) {
        // SAFETY: forwarded.
        unsafe {
            if steps <= 1 {
                self.packed_steps::<W, 1>(bufs, src, dst, (tiles, 1, ahead), stream)
            } else {
                self.packed_steps::<W, 0>(bufs, src, dst, (tiles, steps, ahead), stream)
            }
        }
    }

    /// [`Tile2d::packed_group`] with `S` steps, or `steps` when `S` is 0: with the one step
    /// of a group known when compiled, its line copies and offsets fold to constants (a
    /// 4096 x 4096 `f32` transpose ran 20% slower with the count read at run time).
    ///
    /// # Safety
    /// As [`Tile2d::packed_group`], with `steps == S` when `S > 0`.
    #[inline(always)]
    unsafe fn packed_steps<W: Word, const S: usize>(
        &self,
        bufs: &mut Buffers,
        src: *const W,
        dst: *mut W,
        (tiles, steps, ahead): (usize, usize, isize),
        stream: bool,
    ) {
        let steps = if S > 0 { S } else { steps };
        let (l, mk) = (line::<W>(), W::MK);
        let (li, si) = (l as isize, steps as isize);
        let (tile, run) = (li * li, si * li);
        let tile_bytes = l * LINE;
        debug_assert!(if steps <= 1 {
            tiles * tile_bytes <= GROUP_BYTES
        } else {
            tiles * steps * tile_bytes <= BLOCK_BYTES
        });
        let block = W::block_fn(false);
        // A tile is `l * l` words, `l * LINE` bytes (at most TILE_BYTES). For one step `a`
        // holds one tile and `b` the group's (at most GROUP_BYTES, contract); for more, `a`
        // holds `steps` tiles and `b` the block's `tiles * steps` (at most BLOCK_BYTES,
        // contract; `a`'s are fewer). Both are aligned to 64 >= align_of::<W>().
        let (pa, pb) = bufs.split(steps);
        let (pa, pb) = (pa.cast::<W>(), pb.cast::<W>());
        // SAFETY: source column j * l + k holds `run` contiguous words (src_row == 1); buffer
        // row k (`run` words) is inside `a`, tile (st, j) of `b` inside `b` (tiles fit,
        // contract). Every word of `a` is written before the blocks read it, and every word
        // of the group's tiles of `b` before the lines are written out; the buffers are local,
        // so nothing overlaps.
        unsafe {
            for j in 0..tiles as isize {
                let s0 = src.offset(j * li * self.src_col);
                for k in 0..li {
                    let s = s0.offset(k * self.src_col);
                    if ahead != 0 {
                        for st in 0..si {
                            prefetch(s.wrapping_offset(ahead + st * li).cast());
                        }
                    }
                    // Line by line: a copy of constant length compiles to vector moves.
                    for st in 0..si {
                        let at = st * li;
                        std::ptr::copy_nonoverlapping(s.offset(at), pa.offset(k * run + at), l);
                    }
                }
                // Tile (st, j) of `b`: b[i][k] = a[k][st * l + i], MK x MK blocks at a time.
                for st in 0..si {
                    let bt = pb.offset((st * tiles as isize + j) * tile);
                    for kb in (0..li).step_by(mk) {
                        for ib in (0..li).step_by(mk) {
                            let a = pa.offset(kb * run + st * li + ib);
                            block(a, run, bt.offset(ib * li + kb), li);
                        }
                    }
                }
            }
            for st in 0..si {
                let bs = pb.offset(st * tiles as isize * tile);
                for i in 0..li {
                    let d = dst.offset((st * li + i) * self.dst_row);
                    for j in 0..tiles as isize {
                        write_line(bs.offset(j * tile + i * li), d.offset(j * li), l, stream);
                    }
                }
            }
        }
    }

    /// Copies the parts of the plane outside [`Packing`]'s full tiles: columns `0..cs` and
    /// `cs + ct..cols` of rows `0..rt` (as seam lines where [`Tile2d::seams`] and the rows
    /// or the planes continue one another, see `kernels/seams.rs`; the right edge left to
    /// the next plane of a `chain`), and rows `rt..rows` of every column, through the block
    /// transposes for `stream`.
    ///
    /// # Safety
    /// As [`Tile2d::run`]; `p` is `self.packing(dst)`; a `chain` describes the planes around
    /// this one, each as [`Tile2d::run`] requires.
    pub(super) unsafe fn edges<W: Word>(
        &self,
        p: &Packing,
        (src, dst): (*const W, *mut W),
        stream: bool,
        chain: Option<Chain>,
    ) {
        let block = W::block_fn(stream);
        let strip = |rows: usize, cols: usize| Tile2d {
            rows,
            cols,
            ..*self
        };
        let (left, right, bottom) = (
            strip(p.rt, p.cs),
            strip(p.rt, self.cols - p.cs - p.ct),
            strip(self.rows - p.rt, self.cols),
        );
        let end = (p.cs + p.ct) as isize;
        let seams = self.seams::<W>(p, stream);
        let chain = chain.filter(|_| seams && self.dst_row != self.cols as isize);
        // SAFETY: each non-empty strip is a part of the plane, given by its first element (an
        // element of the plane, so the offsets stay inside the allocation). An empty strip is
        // skipped: its first element may lie past the plane, where even forming the pointer
        // with `offset` would be undefined. The seams hold their writers' conditions (the
        // chain's from the contract).
        unsafe {
            if seams && self.dst_row == self.cols as isize {
                self.write_seams(p, src, dst, W::block_fn(false));
            } else {
                match chain {
                    Some(c) if !c.first => {
                        self.write_chained_seams(p, src, dst, (W::block_fn(false), c.pred))
                    }
                    _ if left.rows > 0 && left.cols > 0 => left.run_tiled(src, dst, block),
                    _ => {}
                }
                if right.rows > 0 && right.cols > 0 && chain.is_none_or(|c| c.last) {
                    right.run_tiled(src.offset(end * self.src_col), dst.offset(end), block);
                }
            }
            if bottom.rows > 0 && bottom.cols > 0 {
                bottom.run_tiled(
                    src.add(p.rt),
                    dst.offset(p.rt as isize * self.dst_row),
                    block,
                );
            }
        }
    }

    /// Element-by-element copy of rows `r0..r1`, columns `c0..c1`.
    ///
    /// # Safety
    /// The ranges lie inside the plane of [`Tile2d::run`]'s contract.
    unsafe fn scalar<W: Copy>(
        &self,
        src: *const W,
        dst: *mut W,
        (r0, r1): (usize, usize),
        (c0, c1): (usize, usize),
    ) {
        for r in r0 as isize..r1 as isize {
            // SAFETY: r < rows and c < cols, as the contract requires.
            unsafe {
                let s = src.offset(r * self.src_row);
                let d = dst.offset(r * self.dst_row);
                for c in c0 as isize..c1 as isize {
                    d.offset(c).write(s.offset(c * self.src_col).read());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tile_group::tests::zen4;
    use super::*;

    /// Runs `Tile2d::run_packed` (or `run`, for planes narrower than a tile) on a `rows x cols` plane of `W` with the given source column
    /// stride, destination row stride and destination start (in words past a 64-byte aligned
    /// base), and checks every destination word, and that no word outside the plane changed.
    fn check<W: Word + PartialEq + std::fmt::Debug + From<u8>>(
        rows: usize,
        cols: usize,
        src_col: usize,
        dst_row: usize,
        dst_start: usize,
        stream: bool,
    ) {
        let word = |i: usize| W::from((i * 131 % 251) as u8);
        let src: Vec<W> = (0..src_col * cols).map(word).collect();
        // A 64-byte aligned destination buffer with a sentinel everywhere.
        let sentinel = W::from(255);
        let len = dst_start + dst_row * rows + LINE;
        let mut buf = vec![sentinel; len + LINE];
        let skip = buf.as_ptr().align_offset(LINE).min(LINE);
        let t = Tile2d {
            rows,
            cols,
            src_row: 1,
            src_col: src_col as isize,
            dst_row: dst_row as isize,
        };
        // SAFETY: the source holds `src_col * cols` words, so element (r, c) at r + c * src_col
        // is inside it; the destination (r, c) at start + r * dst_row + c is inside `buf`.
        unsafe {
            let dst = buf.as_mut_ptr().add(skip + dst_start);
            // The packed path directly (`run` takes it only for planes beyond the L2 size).
            if rows >= line::<W>() && cols >= line::<W>() {
                t.run_packed(src.as_ptr(), dst, stream);
            } else {
                t.run(src.as_ptr(), dst, W::block_fn(stream), stream);
            }
        }
        super::super::transpose::store_fence();
        for (i, got) in buf[skip..].iter().enumerate() {
            let want = match i.checked_sub(dst_start) {
                Some(o) if o / dst_row < rows && o % dst_row < cols => {
                    let (r, c) = (o / dst_row, o % dst_row);
                    word(r + c * src_col)
                }
                _ => sentinel,
            };
            assert_eq!(
                *got, want,
                "word {i}: {rows}x{cols} src_col {src_col} dst_row {dst_row} start {dst_start}"
            );
        }
    }

    fn cases<W: Word + PartialEq + std::fmt::Debug + From<u8>>() {
        let l = line::<W>();
        // Under Miri, which interprets every word move, one ragged shape with a start off a
        // line boundary (so every strip and the alignment shift run), two tiles in a group.
        // And a whole-row block of two steps (rows of two tiles).
        if cfg!(miri) {
            let (rows, cols) = (l + 3, 2 * l + 5);
            check::<W>(rows, cols, rows + 2, cols.next_multiple_of(l), 1, false);
            check::<W>(2 * l, l + 1, 2 * l, l + 1, 0, true);
            // Seam lines: adjacent rows of two lines, starting off a line, and a bottom strip.
            check::<W>(l + 3, 2 * l, 2 * l, 2 * l, 1, true);
            return;
        }
        // The shapes with 11 column tiles have full groups of `group_tiles` and a shorter
        // rest; those of 2, 3 and 8 tiles down (rows of as many lines) are whole-row blocks
        // where their tiles fit the block buffer, and 9 tiles down never are.
        let shapes = [
            (l, l),
            (l + 3, 2 * l + 5),
            (3 * l, l + 1),
            (l - 1, 4 * l),
            (l + 2, 11 * l + 3),
            (2 * l + 5, 11 * l + 3),
            (8 * l, 3 * l + 2),
            (9 * l, l + 7),
            (3 * l + 5, 4 * l),
            (2 * l, 2 * l),
        ];
        let (tuning, g) = (CopyTuning::get(), group_tiles::<W>(CopyTuning::get(), 1));
        assert_eq!(block_steps::<W>(2 * l, g, 2 * l as isize, tuning), 2);
        assert_eq!(block_steps::<W>(9 * l, g, 9 * l as isize, tuning), 1);
        assert!(group_tiles::<W>(CopyTuning::get(), 1) < 11);
        for (rows, cols) in shapes {
            for stream in [false, true] {
                // Row strides whose rows share one alignment phase (a multiple of a line) and
                // ones that do not; starts on and off a line boundary (rows of whole lines,
                // adjacent and off a line, stream their edges as seam lines).
                for dst_row in [cols.next_multiple_of(l), cols + 1] {
                    for dst_start in [0, 1, l / 2, l - 1] {
                        check::<W>(rows, cols, rows + 2, dst_row, dst_start, stream);
                    }
                }
            }
        }
    }

    /// The packed tiles are taken for large planes, for any plane of a streaming copy, and for
    /// small ones whose source columns or destination rows alias in the L2 cache, and not for
    /// small planes of a cached copy whose lines spread over its sets.
    #[test]
    fn packed_tiles_are_chosen_for_large_planes_and_aliasing_rows() {
        let z = zen4();
        let plane = |rows: usize, cols: usize, src_col: isize| Tile2d {
            rows,
            cols,
            src_row: 1,
            src_col,
            dst_row: cols as isize,
        };
        // 256 x 256 f32 transposed: 256 KiB, rows 1 KiB apart over 128 sets.
        assert!(!plane(256, 256, 256).packs::<u32>(&z, false));
        // The same plane in a copy larger than the LLC: only the packed tiles stream whole
        // lines, so it packs; a plane smaller than one tile still does not.
        assert!(plane(256, 256, 256).packs::<u32>(&z, true));
        assert!(!plane(15, 64, 64).packs::<u32>(&z, true));
        // 4096 x 4096 f32 transposed: large.
        assert!(plane(4096, 4096, 4096).packs::<u32>(&z, false));
        // A plane of permute [2, 1, 0] of 256 x 512 x 128 f32: 128 KiB, rows 256 KiB apart,
        // all in one set; so are its reversed rows.
        assert!(plane(128, 256, 65536).packs::<u32>(&z, false));
        assert!(plane(128, 256, -65536).packs::<u32>(&z, false));
        // 32 KiB apart: 4 sets of a 128 KiB way for 64 rows, 16 lines a set.
        assert!(plane(64, 64, 8192).packs::<u32>(&z, false));
        // 4 KiB apart: 32 sets, 2 lines a set.
        assert!(!plane(64, 64, 1024).packs::<u32>(&z, false));
        // Destination rows 512 KiB apart alias too (permute [2, 0, 1]).
        let p201 = Tile2d {
            dst_row: 131_072,
            ..plane(128, 512, 128)
        };
        assert!(p201.packs::<u32>(&z, false));
        // As many source rows as the L2 has ways fit whatever the stride; planes below a
        // packed tile and strided sources never pack.
        assert!(!plane(64, 8, 65536).packs::<u64>(&z, false));
        assert!(plane(64, 9, 65536).packs::<u64>(&z, false));
        assert!(!plane(15, 64, 65536).packs::<u32>(&z, false));
        assert!(
            !Tile2d {
                src_row: 2,
                ..plane(128, 256, 65536)
            }
            .packs::<u32>(&z, false)
        );
        assert!(!rows_alias_in_l2(1 << 17, z.l2_ways, &z));
        assert!(rows_alias_in_l2(1 << 17, z.l2_ways + 1, &z));
        assert!(!rows_alias_in_l2(0, 64, &z));
    }

    #[test]
    fn packed_tiles_copy_every_word_and_nothing_else() {
        cases::<u8>();
        cases::<u16>();
        cases::<u32>();
        cases::<u64>();
    }
}
