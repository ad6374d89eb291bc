//! The elementwise iteration plan: loop order, coalescing, tiling and the parallel split.

use std::cmp::Ordering;

use crate::layout::coalesce_joint;

/// Bytes of a staged operand read along its unit-stride dim per tile row: four cache lines.
/// Reading 256 contiguous bytes per row, rather than one line, keeps DRAM pages open and lets
/// the prefetches in the kernel run ahead (measured: about twice as fast at a 16 KiB row
/// stride as one line per row).
const TILE_J_BYTES: usize = 256;
/// Length of a tile along the output's inner dim, in elements: the other operands are read
/// and the output written in runs of this many elements (8 KiB of f32), long enough for the
/// hardware prefetchers to follow. A tile buffer is then `TILE_J_BYTES * TILE_L` = 512 KiB,
/// which stays in L2.
pub(crate) const TILE_L: usize = 2048;

/// How to walk one output and its inputs, all viewed as layouts of one shape.
///
/// Built by [`Plan::new`] from the broadcast strides of every operand (operand 0 is the
/// output). The loops run over `shape`, outermost dim first; element `i` of the loop nest lives
/// at `offsets[k] + Σ i_d * strides[k][d]` in operand `k`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Loop sizes, outermost first. Never empty: a 0-dim op is one loop of length 1.
    pub(crate) shape: Vec<usize>,
    /// `strides[k][d]`: stride of operand `k` along loop dim `d`, in elements.
    pub(crate) strides: Vec<Vec<isize>>,
    /// Storage offset of each operand's first element.
    pub(crate) offsets: Vec<usize>,
    /// Whether some inputs are read through a transposing tile buffer (see [`Tile`]).
    pub(crate) tile: Option<Tile>,
}

/// A blocked traversal for inputs whose inner stride is large but which are unit-stride (or
/// close) along another loop dim `dim`, e.g. `b.t()` in `a + b.t()`.
///
/// The loop dims `dim` and the innermost one are walked in tiles of `rows` x `cols`. For
/// each tile, every `staged` input is first copied into a small buffer, reading it along `dim`
/// (whole cache lines) and writing it transposed, so that the op itself then runs on unit-stride
/// rows of every operand. Each cache line of a staged input is read once, whatever its stride:
/// no reliance on the line surviving in cache while the loop crosses thousands of rows (at
/// power-of-two strides all those lines fall into the same few cache sets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tile {
    /// The loop dim along which the staged inputs are read.
    pub(crate) dim: usize,
    /// Tile length along `dim`, in elements.
    pub(crate) rows: usize,
    /// Tile length along the inner dim, in elements ([`TILE_L`] as planned; the executor may
    /// widen the tile, see `kernels::staged::widen`).
    pub(crate) cols: usize,
    /// `staged[k]`: whether operand `k` goes through a tile buffer.
    pub(crate) staged: Vec<bool>,
}

impl Plan {
    /// Plans an op over `shape` whose operand `k` has `strides[k]` and `offsets[k]`; operand 0
    /// is the output. `elem_sizes[k]` is operand `k`'s element size in bytes (it sizes tiles).
    ///
    /// 1. Dims are ordered so that the output's strides decrease (ties broken by the inputs'),
    ///    putting the smallest output stride innermost.
    /// 2. Dims contiguous with each other in every operand are merged ([`coalesce_joint`]),
    ///    size-1 dims dropped.
    /// 3. If the output is unit-stride inside but an input is not, and that input is closer to
    ///    unit-stride along another dim, the plan tiles those two dims ([`Tile`]).
    ///
    /// # Panics
    /// If the lists disagree in length (an internal caller error).
    pub(crate) fn new(
        shape: &[usize],
        strides: Vec<Vec<isize>>,
        offsets: Vec<usize>,
        elem_sizes: &[usize],
    ) -> Plan {
        assert!(!strides.is_empty() && strides.len() == offsets.len());
        assert_eq!(strides.len(), elem_sizes.len());
        let mut order: Vec<usize> = (0..shape.len()).collect();
        order.sort_by(|&x, &y| outer_first(&strides, x, y));
        let mut loop_shape: Vec<usize> = order.iter().map(|&d| shape[d]).collect();
        let mut loop_strides: Vec<Vec<isize>> = strides
            .iter()
            .map(|s| order.iter().map(|&d| s[d]).collect())
            .collect();
        coalesce_joint(&mut loop_shape, &mut loop_strides);
        if loop_shape.is_empty() {
            loop_shape.push(1);
            for s in &mut loop_strides {
                s.push(0);
            }
        }
        let tile = choose_tile(&loop_shape, &loop_strides, elem_sizes);
        Plan {
            shape: loop_shape,
            strides: loop_strides,
            offsets,
            tile,
        }
    }

    /// Number of loop iterations (elements of the output).
    pub(crate) fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The innermost loop dim.
    pub(crate) fn inner(&self) -> usize {
        self.shape.len() - 1
    }

    /// Number of work items the plan splits into for threads: output elements for a plain
    /// plan, tile rows (all dims but the two tiled ones, times the row blocks of `dim`) for a
    /// tiled one. Work items are independent and cover the loop nest exactly once.
    pub(crate) fn work_items(&self) -> usize {
        match &self.tile {
            None => self.numel(),
            Some(t) => {
                let outer: usize = (0..self.inner())
                    .filter(|&d| d != t.dim)
                    .map(|d| self.shape[d])
                    .product();
                outer * self.shape[t.dim].div_ceil(t.rows)
            }
        }
    }
}

/// Loop order: `x` before `y` when it has the larger |stride| in the first operand (output
/// first) where they differ.
fn outer_first(strides: &[Vec<isize>], x: usize, y: usize) -> Ordering {
    for s in strides {
        match s[y].unsigned_abs().cmp(&s[x].unsigned_abs()) {
            Ordering::Equal => continue,
            other => return other,
        }
    }
    Ordering::Equal
}

/// Picks a [`Tile`] for a coalesced loop nest, if one helps.
fn choose_tile(shape: &[usize], strides: &[Vec<isize>], elem_sizes: &[usize]) -> Option<Tile> {
    let inner = shape.len() - 1;
    if strides[0][inner].unsigned_abs() != 1 || inner == 0 || shape[inner] < 8 {
        return None;
    }
    // For each input, the dim along which it is closest to unit stride, if that beats its
    // inner stride.
    let best_dim = |s: &Vec<isize>| -> Option<usize> {
        let inner_abs = s[inner].unsigned_abs();
        if inner_abs <= 1 {
            return None;
        }
        (0..inner)
            .filter(|&d| s[d] != 0 && shape[d] >= 8)
            .min_by_key(|&d| s[d].unsigned_abs())
            .filter(|&d| s[d].unsigned_abs() < inner_abs)
    };
    let dims: Vec<Option<usize>> = strides.iter().map(best_dim).collect();
    let dim = dims.iter().skip(1).flatten().next().copied()?;
    let staged: Vec<bool> = dims
        .iter()
        .enumerate()
        .map(|(k, d)| k > 0 && *d == Some(dim))
        .collect();
    let narrowest = (0..strides.len())
        .filter(|&k| staged[k])
        .map(|k| elem_sizes[k])
        .min()
        .unwrap_or(1);
    Some(Tile {
        dim,
        rows: (TILE_J_BYTES / narrowest.max(1)).max(1),
        cols: TILE_L,
        staged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(shape: &[usize], strides: &[&[isize]]) -> Plan {
        let strides: Vec<Vec<isize>> = strides.iter().map(|s| s.to_vec()).collect();
        let n = strides.len();
        Plan::new(shape, strides, vec![0; n], &vec![4; n])
    }

    #[test]
    fn contiguous_operands_become_one_loop() {
        let p = plan(&[4, 5, 6], &[&[30, 6, 1], &[30, 6, 1], &[30, 6, 1]]);
        assert_eq!(
            (p.shape.clone(), p.strides.clone()),
            (vec![120], vec![vec![1]; 3])
        );
        assert_eq!(p.tile, None);
        // A transposed output with transposed inputs: still one loop.
        let p = plan(&[4, 6], &[&[1, 4], &[1, 4]]);
        assert_eq!(p.shape, vec![24]);
    }

    #[test]
    fn broadcast_row_keeps_two_loops() {
        let p = plan(&[4, 6], &[&[6, 1], &[6, 1], &[0, 1]]);
        assert_eq!(p.shape, vec![4, 6]);
        assert_eq!(p.strides[2], vec![0, 1]);
        assert_eq!(p.tile, None);
    }

    #[test]
    fn transposed_input_is_tiled() {
        let p = plan(&[200, 32], &[&[32, 1], &[32, 1], &[1, 200]]);
        assert_eq!(p.shape, vec![200, 32]);
        let t = p.tile.clone().unwrap();
        // 256 bytes of 4-byte elements per tile row.
        assert_eq!((t.dim, t.rows, t.staged), (0, 64, vec![false, false, true]));
        assert_eq!(p.work_items(), 4);
        // A short inner dim is not worth tiling.
        assert_eq!(plan(&[64, 4], &[&[4, 1], &[1, 64]]).tile, None);
    }

    #[test]
    fn zero_dim_and_empty() {
        let p = plan(&[], &[&[], &[]]);
        assert_eq!(
            (p.shape.clone(), p.strides.clone()),
            (vec![1], vec![vec![0], vec![0]])
        );
        let p = plan(&[3, 0], &[&[1, 3], &[0, 1]]);
        assert_eq!(p.numel(), 0);
    }
}
