//! The geometry of one 2-D plane of a transposing copy, shared by the packed tiles
//! (`kernels/tile.rs`, which copies it) and the seam lines (`kernels/seams.rs`, which write
//! its edge columns): a leaf, so neither imports the other.

/// A 2-D transpose-like copy: `dst[r * dst_row + c] = src[r * src_row + c * src_col]`.
#[derive(Clone, Copy)]
pub(super) struct Tile2d {
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) src_row: isize,
    pub(super) src_col: isize,
    pub(super) dst_row: isize,
}

/// How a packed plane splits: full `l x l` tiles over rows `0..rt` and columns
/// `cs..cs + ct` (`cs` puts the destination's lines on cache-line boundaries), and the edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Packing {
    pub(super) cs: usize,
    pub(super) rt: usize,
    pub(super) ct: usize,
}
