//! The edge columns of a streamed packed plane whose destination rows are adjacent and start
//! off a cache line, written as whole lines ("seams").
//!
//! A packed plane ([`Tile2d::packing`]) shifts its tiles so their
//! destination lines are whole, leaving `cs` columns on the left of every row and `l - cs`
//! on the right (`l` words a line, rows a whole number of lines long). When the rows are
//! adjacent in the destination (`dst_row == cols`: the last dim of an NHWC output, a
//! `contiguous_into` a buffer that starts off a line), the right edge of each row and the
//! left edge of the next are one line: its first `l - cs` words belong to row `r - 1`, the
//! rest to row `r`.
//! Written as two strips of square tiles, each such line took two plain partial stores, long
//! after the tiles around it had streamed past, each waiting for the line to be read from
//! DRAM first (a read for ownership). On the 2-core Xeon VM of Note [copy parameters],
//! NCHW -> NHWC of 32 x 64 x 56 x 56 `f32` (rows of 256 bytes) into a buffer 32 bytes past a
//! line took 5.7-6.3 ms against 2.2-2.6 ms for an aligned one, about 4 of them in the edges;
//! with seam lines, 2.6-2.8 ms.
//!
//! The same holds across planes when an outer dim's destination stride is the rows' length
//! (`permute([2, 1, 0])` of 256 x 512 x 128 `f32`: row `r` of plane `o` follows row `r` of
//! plane `o - 1`), a [`Chain`]: there the seam line before row `r` of plane `o` holds the
//! right edge of the same row of plane `o - 1`, which plane `o` writes (plane `o - 1` leaves
//! it), and only the first plane's left edges and the last plane's right edges are plain.
//! Into a buffer 16 bytes past a line that permute took 10.0-12.5 ms (8.1-8.7 ms with its
//! edges not written at all), and 8.1-9.2 ms with seam lines (same VM, 1 thread).
//!
//! Here the edge columns go through one `l x l` tile a block of `l` rows: the `l` source
//! runs of the edge columns (right edge first, then left) are read into one buffer,
//! transposed into a second with the block transposes, and each seam line assembled from
//! two adjacent rows of it and streamed whole. Only the left edge of the first row and the
//! right edge of the last, which share their lines with whatever lies outside the rows, are
//! stored plainly.

use std::mem::MaybeUninit;

use super::carry::Line;
use super::plane::{Packing, Tile2d};
use super::tile_group::{LINE, line};
use super::transpose::{BlockFn, Word, write_line};

/// One `l x l` tile of words: a line of lines (4 KiB), aligned to a cache line.
#[repr(C, align(64))]
struct Square([MaybeUninit<u8>; LINE * LINE]);

impl Square {
    fn new() -> Square {
        Square([MaybeUninit::uninit(); LINE * LINE])
    }
}

/// A plane's place among planes whose destination rows continue one another's (an outer dim
/// whose destination stride is the rows' length; see the [module docs](self)).
#[derive(Debug, Clone, Copy)]
pub(super) struct Chain {
    /// Source offset from an element of the plane to the one the destination holds `cols`
    /// words before it (the same element of the previous plane).
    pub(super) pred: isize,
    /// The plane has no previous plane: its left edges are stored plainly.
    pub(super) first: bool,
    /// The plane has no next plane: its right edges are stored plainly.
    pub(super) last: bool,
}

impl Tile2d {
    /// Whether the edge columns of the full tiles' rows (`0..p.rt`) can go as seam lines (see
    /// the [module docs](self)): a streamed copy, the source unit-stride along rows, the
    /// destination rows a whole number of lines long, the tiles shifted (`cs > 0`) and at
    /// least one row of tiles. The rows must also continue one another (`dst_row == cols`,
    /// [`Tile2d::write_seams`]) or the planes ([`Tile2d::write_chained_seams`]).
    pub(super) fn seams<W: Word>(&self, p: &Packing, stream: bool) -> bool {
        let l = line::<W>();
        stream && self.src_row == 1 && p.cs > 0 && p.rt >= l && self.cols % l == 0
    }

    /// Writes the left edges of rows `0..p.rt` of a plane that follows another in a
    /// [`Chain`] as seam lines, each with the previous plane's right edge of the same row,
    /// whose source is `pred` words from this plane's (see the [module docs](self)).
    ///
    /// # Safety
    /// The plane's words and the previous plane's (`pred` words away in the source, `cols`
    /// words before in the destination) are readable at `src` and writable at `dst`, not
    /// overlapping; `p` is `self.packing(dst)` and [`Tile2d::seams`] holds for a streamed
    /// copy, so every seam line (`l` words from `dst + r * dst_row - (l - cs)`, `r < rt`)
    /// starts on a cache line and lies in the right edge of row `r` of the previous plane
    /// and the left edge of row `r` of this one.
    pub(super) unsafe fn write_chained_seams<W: Word>(
        &self,
        p: &Packing,
        src: *const W,
        dst: *mut W,
        (block, pred): (BlockFn<W>, isize),
    ) {
        let l = line::<W>();
        let rw = l - p.cs;
        // Slot k of a tile row: the previous plane's right edge, then this plane's left edge.
        let right = (p.cs + p.ct) as isize;
        let from = |k: usize| match k < rw {
            true => pred + (right + k as isize) * self.src_col,
            false => (k - rw) as isize * self.src_col,
        };
        let mut tiles = Tiles::new();
        // SAFETY: rows r0..r0 + l <= rt <= rows of the edge columns are in this plane or the
        // previous one (contract). Tile row i of `b` is the seam line of row r0 + i, 64-byte
        // aligned, and its destination starts on a line inside the two planes' edges
        // (contract).
        unsafe {
            for r0 in (0..p.rt as isize).step_by(l) {
                let b = tiles.load_transposed(src.offset(r0), from, block);
                for i in 0..l {
                    let r = r0 + i as isize;
                    let at = dst.offset(r * self.dst_row - rw as isize);
                    write_line(b.add(i * l), at, l, true);
                }
            }
        }
    }

    /// Writes the edge columns of rows `0..p.rt` (columns `0..cs` and `cs + ct..cols`) as
    /// seam lines (see the [module docs](self)), through the block transpose `block`.
    ///
    /// # Safety
    /// The plane's words are readable at `src` and writable at `dst`, not overlapping; `p` is
    /// `self.packing(dst)`, [`Tile2d::seams`] holds for a streamed copy and
    /// `dst_row == cols`, so every seam line (`l` words from `dst + r * cols - (l - cs)`,
    /// `1 <= r < rt`) starts on a cache line and lies inside rows `r - 1` and `r`.
    pub(super) unsafe fn write_seams<W: Word>(
        &self,
        p: &Packing,
        src: *const W,
        dst: *mut W,
        block: BlockFn<W>,
    ) {
        let l = line::<W>();
        let cols = self.cols as isize;
        let rw = l - p.cs;
        // Slot k of a tile row: the right edge's columns, then the left edge's.
        let right = (p.cs + p.ct) as isize;
        let from = |k: usize| match k < rw {
            true => (right + k as isize) * self.src_col,
            false => (k - rw) as isize * self.src_col,
        };
        let (mut tiles, mut seam) = (Tiles::new(), Line([0; LINE]));
        let ps = seam.0.as_mut_ptr().cast::<W>();
        // SAFETY: `seam` holds one line of `l` words, aligned to 64 >= align_of::<W>();
        // between tile rows it keeps the last row's right edge. Rows r0..r0 + l <= rt <= rows
        // of the edge columns (< cols) are in the plane (contract). Seam line r starts on a
        // cache line (contract) and lies inside rows r - 1 and r, which the plane owns; the
        // first row's left edge (cs words from `dst`) and the last row's right edge (`rw`
        // words from column `right` of row rt - 1) do too.
        unsafe {
            for r0 in (0..p.rt as isize).step_by(l) {
                let b = tiles.load_transposed(src.offset(r0), from, block);
                for i in 0..l {
                    let (r, row) = (r0 + i as isize, b.add(i * l));
                    if r == 0 {
                        std::ptr::copy_nonoverlapping(row.add(rw), dst, p.cs);
                    } else {
                        // Slots < rw from row r - 1 (kept in `ps` or the row above), the
                        // rest from row r.
                        if i > 0 {
                            std::ptr::copy_nonoverlapping(row.sub(l), ps, rw);
                        }
                        std::ptr::copy_nonoverlapping(row.add(rw), ps.add(rw), p.cs);
                        let at = dst.offset(r * cols - rw as isize);
                        write_line(ps, at, l, true);
                    }
                }
                std::ptr::copy_nonoverlapping(b.add((l - 1) * l), ps, rw);
            }
            let last = dst.offset((p.rt as isize - 1) * cols + right);
            std::ptr::copy_nonoverlapping(ps, last, rw);
        }
    }
}

/// The two `l x l` tiles a block of seam rows passes through.
struct Tiles {
    a: Square,
    b: Square,
}

impl Tiles {
    fn new() -> Tiles {
        Tiles {
            a: Square::new(),
            b: Square::new(),
        }
    }

    /// Reads the `l` runs of `l` words at `src + from(k)` into tile `a` (run `k` as row `k`),
    /// transposes them into `b` with `block` (`b[i][k] = a[k][i]`) and returns `b`'s first
    /// word: row `i` of `b` holds word `i` of every run, 64-byte aligned.
    ///
    /// # Safety
    /// Each run's `l` words at `src + from(k)` (`k < l`) are readable.
    unsafe fn load_transposed<W: Word>(
        &mut self,
        src: *const W,
        from: impl Fn(usize) -> isize,
        block: BlockFn<W>,
    ) -> *const W {
        let (l, mk) = (line::<W>(), W::MK);
        let (pa, pb) = (
            self.a.0.as_mut_ptr().cast::<W>(),
            self.b.0.as_mut_ptr().cast::<W>(),
        );
        // SAFETY: `a` and `b` hold `l * l` words (`LINE * LINE` bytes), aligned to 64 >=
        // align_of::<W>(); the runs are readable (contract); every word of `a` is written
        // before the blocks read it, and the blocks write every word of `b`.
        unsafe {
            for k in 0..l {
                std::ptr::copy_nonoverlapping(src.offset(from(k)), pa.add(k * l), l);
            }
            for kb in (0..l).step_by(mk) {
                for ib in (0..l).step_by(mk) {
                    block(
                        pa.add(kb * l + ib),
                        l as isize,
                        pb.add(ib * l + kb),
                        l as isize,
                    );
                }
            }
        }
        pb
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The edges of `planes` planes of `rows x cols` words whose destination rows continue
    /// one another's (plane `o`'s row `r` at `start + r * planes * cols + o * cols`), written
    /// plane by plane through [`Tile2d::edges`] with their [`Chain`]s: every edge word holds
    /// its source word, and nothing else (the full tiles, the words outside) is written.
    fn check_chain<W: Word + PartialEq + std::fmt::Debug + From<u8>>(
        (planes, rows, cols): (usize, usize, usize),
        start: usize,
    ) {
        let word = |i: usize| W::from((i * 131 % 251) as u8);
        let src_col = rows + 1;
        let plane_src = cols * src_col;
        let src: Vec<W> = (0..planes * plane_src).map(word).collect();
        let sentinel = W::from(255);
        let dst_row = planes * cols;
        let mut buf = vec![sentinel; start + rows * dst_row + 2 * LINE];
        let skip = buf.as_ptr().align_offset(LINE).min(LINE);
        let t = Tile2d {
            rows,
            cols,
            src_row: 1,
            src_col: src_col as isize,
            dst_row: dst_row as isize,
        };
        let dst = buf[skip + start..].as_mut_ptr();
        let p = t.packing(dst);
        assert!(
            t.seams::<W>(&p, true),
            "{rows}x{cols} from {start} has seams"
        );
        for o in 0..planes {
            let chain = Chain {
                pred: -(plane_src as isize),
                first: o == 0,
                last: o + 1 == planes,
            };
            // SAFETY: plane o's words (r, c) are at o * plane_src + r + c * src_col < src.len()
            // and at start + r * dst_row + o * cols + c inside `buf`; the planes before and
            // after are such planes too, `plane_src` words away in the source.
            unsafe {
                let (s, d) = (src.as_ptr().add(o * plane_src), dst.add(o * cols));
                t.edges(&p, (s, d), true, Some(chain));
            }
        }
        super::super::transpose::store_fence();
        for (i, got) in buf[skip..].iter().enumerate() {
            let want = match i.checked_sub(start) {
                Some(at) if at / dst_row < rows => {
                    let (r, o, c) = (at / dst_row, at % dst_row / cols, at % cols);
                    let edge = c < p.cs || c >= p.cs + p.ct || r >= p.rt;
                    match edge {
                        true => word(o * plane_src + r + c * src_col),
                        false => sentinel,
                    }
                }
                _ => sentinel,
            };
            assert_eq!(
                *got, want,
                "word {i}: {planes} planes of {rows}x{cols} from {start}"
            );
        }
    }

    #[test]
    fn chained_planes_write_every_edge_word_once_and_nothing_else() {
        // Rows of two lines, a bottom strip of 3 rows, starts 1 word and half a line off a
        // line; one plane (first and last at once) and three.
        let l = line::<u32>();
        for planes in [1, 3] {
            for start in [1, l / 2] {
                check_chain::<u32>((planes, l + 3, 2 * l), start);
            }
        }
        if cfg!(not(miri)) {
            let l = line::<u8>();
            check_chain::<u8>((3, 2 * l, l), 5);
            let l = line::<u64>();
            check_chain::<u64>((4, 3 * l + 1, 3 * l), l - 1);
        }
    }
}
