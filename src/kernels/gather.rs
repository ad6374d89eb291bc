//! Index-driven reads and writes: the kernels behind `index_select`, `gather`, `scatter`,
//! `scatter_add`, `masked_select` and `nonzero`.
//!
//! Every operand is read through its own layout (any strides, negative or zero); nothing is
//! made contiguous first. Results are fresh storages: row-major, except `scatter`'s, which
//! starts as a dense copy of its input in the input's memory order.
//!
//! Index values come from the caller already validated (the tensor layer checks every index
//! before any work, so an `Err` never leaves a partial result), but the kernels check each
//! index again where they turn it into an offset: a bad index is then a panic, never an
//! out-of-bounds access. The check is one compare per index, next to a memory access.
//!
//! `index_select` moves whole rows: when the dims after the selected one coalesce into one
//! unit-stride run (e.g. rows of a row-major matrix), each selected row is one `memcpy`, and
//! the source lines of a row a few rows ahead are prefetched while the current one is copied,
//! so the memory latencies of random rows overlap.

use std::mem::size_of;

use crate::element::Element;
use crate::error::Result;
use crate::iter::broadcast::{broadcast_all, broadcast_strides};
use crate::layout::{Layout, coalesce_joint};
use crate::scalar::IntElement;
use crate::storage::Storage;

use super::copy::to_fresh_storage;
use super::elementwise::Src;
use super::hint::prefetch;
use super::parallel::{SharedPtr, for_each_chunk, threads_for};
use super::unravel::{advance_offsets, unravel_offsets};

/// Asserts the tensor invariant of an input (its layout fits its storage) and returns its
/// storage's first element.
fn base<T: Element>(src: &Src<'_, T>) -> *const T {
    assert!(
        src.layout.fits_in(src.storage.len()),
        "gather: layout does not fit its storage"
    );
    src.storage.as_ptr()
}

/// Calls `f(pos, offsets)` for the row-major positions `lo..hi` of `shape`, where
/// `offsets[k] = Σ index[d] * strides[d][k]` (relative to each operand's first element).
///
/// The last dim is walked as a plain loop and the others by the shared odometer. A 0-dim
/// `shape` has the one position 0.
fn walk<const N: usize>(
    shape: &[usize],
    strides: &[[isize; N]],
    lo: usize,
    hi: usize,
    mut f: impl FnMut(usize, [isize; N]),
) {
    if lo >= hi {
        return;
    }
    let Some(last) = shape.len().checked_sub(1) else {
        f(0, [0; N]);
        return;
    };
    let (len, inner) = (shape[last], strides[last]);
    let (outer, outer_strides) = (&shape[..last], &strides[..last]);
    let (mut index, mut row) = unravel_offsets(lo / len, outer, outer_strides);
    let (mut col, mut pos) = (lo % len, lo);
    while pos < hi {
        let end = len.min(col + hi - pos);
        for c in col..end {
            f(
                pos + c - col,
                std::array::from_fn(|k| row[k] + c as isize * inner[k]),
            );
        }
        pos += end - col;
        col = 0;
        advance_offsets(&mut index, outer, outer_strides, &mut row);
    }
}

/// Per-dim strides of `N` layouts of one shape, as `[dim][operand]`.
fn zip_strides<const N: usize>(strides: [&[isize]; N]) -> Vec<[isize; N]> {
    let ndim = strides[0].len();
    (0..ndim)
        .map(|d| std::array::from_fn(|k| strides[k][d]))
        .collect()
}

/// Reads index `b` (relative to the index tensor's first element) and checks it against
/// `size` (for `i64` the one unsigned compare this always was; see
/// [`IntElement::checked_index`]).
///
/// # Safety
/// `idx.offset(b)` must be an element the index layout addresses.
#[inline(always)]
unsafe fn read_index<I: IntElement>(idx: *const I, b: isize, size: usize) -> usize {
    // SAFETY: the caller's contract.
    let i = unsafe { idx.offset(b).read() };
    match i.checked_index(size) {
        Some(j) => j,
        None => panic!("gather: index {i} escaped validation (size {size})"),
    }
}

/// How one selected slab (the dims after the selected one) is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slab {
    /// One element.
    One,
    /// `len` contiguous elements: one `memcpy`.
    Run(usize),
    /// `len` elements `stride` apart.
    Strided(usize, isize),
    /// Anything else: the coalesced dims walked by the odometer.
    General,
}

/// While a row is copied, the source lines of the row about this many bytes ahead are
/// prefetched (8 KiB: 8 rows of 1 KiB), so that several rows' memory latencies overlap.
/// Measured on 1024 random 1 KiB rows of a 64 MiB matrix: 25% faster than relying on the
/// hardware prefetcher alone, which only starts after a few misses in each row; distances of
/// 2 to 8 rows measured alike.
const PREFETCH_BYTES: usize = 8 << 10;
/// At most this many bytes of each row are prefetched; the hardware prefetcher follows the
/// rest of a longer row.
const PREFETCH_MAX_ROW: usize = 4 << 10;

/// `src.index_select(dim, indices)` into a fresh row-major storage; returns it and its layout.
///
/// # Panics
/// If an index is not below the size of `dim` (callers validate first) or `dim` is out of
/// range.
pub(crate) fn index_select<T: Element>(
    src: Src<'_, T>,
    dim: usize,
    indices: &[usize],
) -> Result<(Storage<T>, Layout)> {
    let s0 = base(&src);
    let (shape, strides) = (src.layout.shape(), src.layout.strides());
    let mut out_shape = shape.to_vec();
    out_shape[dim] = indices.len();
    let out = Layout::contiguous(&out_shape).map_err(|e| e.with_op("index_select"))?;
    let n = out.numel();
    let mut fresh = super::fresh::<T>("index_select", &out_shape, n)?;
    if n > 0 {
        let offs: Vec<isize> = indices
            .iter()
            .map(|&i| {
                assert!(i < shape[dim], "index_select: index {i} escaped validation");
                i as isize * strides[dim]
            })
            .collect();
        let mut outer = shape[..dim].to_vec();
        let mut outer_st = [strides[..dim].to_vec()];
        coalesce_joint(&mut outer, &mut outer_st);
        let mut inner = shape[dim + 1..].to_vec();
        let mut inner_st = [strides[dim + 1..].to_vec()];
        coalesce_joint(&mut inner, &mut inner_st);
        let plan = SelectPlan {
            outer_st: zip_strides([&outer_st[0]]),
            outer,
            slab: match (inner.as_slice(), inner_st[0].as_slice()) {
                ([], _) => Slab::One,
                ([len], [1]) => Slab::Run(*len),
                ([len], [s]) => Slab::Strided(*len, *s),
                _ => Slab::General,
            },
            inner_st: zip_strides([&inner_st[0]]),
            inner,
            offs,
        };
        // SAFETY: the layout fits its storage (asserted in `base`), so its offset is in bounds.
        let first = SharedPtr(unsafe { s0.add(src.layout.offset()) });
        let dst = SharedPtr(fresh.as_mut_ptr());
        let rows = n / plan.slab_len();
        for_each_chunk(rows, threads_for(n), |range| {
            // SAFETY: every source offset the plan forms is `Σ i_d * stride_d` over in-range
            // indices of the source layout (the selected indices are checked above), so it is
            // addressed by a layout that fits its storage; rows `range` of the fresh storage
            // hold `range.len() * slab_len` elements, written by this chunk only.
            unsafe { plan.run(first.get(), dst.get(), range.start, range.end) };
        });
    }
    // SAFETY: the rows `0..rows` of `slab_len` elements each cover the `n` elements of the
    // fresh row-major storage, and every row was written (by exactly one chunk).
    Ok((unsafe { fresh.assume_init() }, out))
}

/// An `index_select` reduced to rows: row `r = o * k + p` of the output (`o` over the
/// coalesced outer dims, `p` over the `k` selected indices) is the slab at
/// `outer(o) + offs[p]` of the source.
struct SelectPlan {
    outer: Vec<usize>,
    outer_st: Vec<[isize; 1]>,
    offs: Vec<isize>,
    inner: Vec<usize>,
    inner_st: Vec<[isize; 1]>,
    slab: Slab,
}

impl SelectPlan {
    /// Elements per output row.
    fn slab_len(&self) -> usize {
        self.inner.iter().product()
    }

    /// Writes output rows `lo..hi`.
    ///
    /// # Safety
    /// `src` is the source layout's first element; every offset the plan forms from it is
    /// in bounds; `dst` holds the output rows `lo..hi`, which nothing else accesses.
    unsafe fn run<T: Element>(&self, src: *const T, dst: *mut T, lo: usize, hi: usize) {
        let k = self.offs.len();
        let len = self.slab_len();
        let (mut index, [mut outer]) = unravel_offsets(lo / k, &self.outer, &self.outer_st);
        let mut p = lo % k;
        let mut inner_index = vec![0usize; self.inner.len()];
        let row_bytes = len * size_of::<T>();
        let ahead = (PREFETCH_BYTES / row_bytes.max(1)).clamp(1, 64);
        let prefetch_bytes = row_bytes.min(PREFETCH_MAX_ROW);
        for r in lo..hi {
            // SAFETY (for the whole body): offsets of the plan are in bounds (contract);
            // output row r is `dst + r * len .. + len`, inside the chunk's rows.
            unsafe {
                let s = src.offset(outer + self.offs[p]);
                let d = dst.add(r * len);
                match self.slab {
                    Slab::One => d.write(s.read()),
                    Slab::Run(len) => {
                        if p + ahead < k {
                            let next = src.offset(outer + self.offs[p + ahead]).cast::<u8>();
                            for line in (0..prefetch_bytes).step_by(64) {
                                prefetch(next.wrapping_add(line));
                            }
                        }
                        std::ptr::copy_nonoverlapping(s, d, len)
                    }
                    Slab::Strided(len, st) => {
                        for i in 0..len {
                            d.add(i).write(s.offset(i as isize * st).read());
                        }
                    }
                    Slab::General => {
                        inner_index.fill(0);
                        let mut off = [0isize];
                        for i in 0..len {
                            d.add(i).write(s.offset(off[0]).read());
                            advance_offsets(
                                &mut inner_index,
                                &self.inner,
                                &self.inner_st,
                                &mut off,
                            );
                        }
                    }
                }
            }
            p += 1;
            if p == k {
                p = 0;
                let mut o = [outer];
                advance_offsets(&mut index, &self.outer, &self.outer_st, &mut o);
                outer = o[0];
            }
        }
    }
}

/// `src.gather(dim, index)` into a fresh row-major storage of the index's shape.
///
/// # Panics
/// If the ranks differ, `index` is larger than `src` in a dim other than `dim`, or an index
/// is out of range (callers check all of these first).
pub(crate) fn gather<T: Element, I: IntElement>(
    src: Src<'_, T>,
    dim: usize,
    index: Src<'_, I>,
) -> Result<(Storage<T>, Layout)> {
    let (s0, i0) = (base(&src), base(&index));
    let shape = index.layout.shape();
    check_within(shape, src.layout.shape(), Some(dim));
    let out = Layout::contiguous(shape).map_err(|e| e.with_op("gather"))?;
    let n = out.numel();
    let mut fresh = super::fresh::<T>("gather", shape, n)?;
    if n > 0 {
        let size = src.layout.shape()[dim];
        let sd = src.layout.strides()[dim];
        let mut along = src.layout.strides().to_vec();
        along[dim] = 0;
        let strides = zip_strides([&along, index.layout.strides()]);
        // SAFETY: both layouts fit their storages (asserted in `base`).
        let (s, i) = unsafe {
            (
                SharedPtr(s0.add(src.layout.offset())),
                SharedPtr(i0.add(index.layout.offset())),
            )
        };
        let dst = SharedPtr(fresh.as_mut_ptr());
        for_each_chunk(n, threads_for(n), |range| {
            let (s, i, dst) = (s.get(), i.get(), dst.get());
            walk(shape, &strides, range.start, range.end, |pos, [a, b]| {
                // SAFETY: `b` is an offset of the index layout (position in its shape); `a`
                // is the source offset of the same multi-index with `dim` zeroed, which is
                // in range because the index is no larger than the source off `dim`
                // (asserted), and the checked index keeps `dim` in range; output `pos` is
                // in this chunk.
                unsafe {
                    let j = read_index(i, b, size);
                    dst.add(pos).write(s.offset(a + j as isize * sd).read());
                }
            });
        });
    }
    // SAFETY: the chunks cover positions 0..n, each written once.
    Ok((unsafe { fresh.assume_init() }, out))
}

/// Asserts that `inner` has the rank of `outer` and is no larger in any dim but `except`.
fn check_within(inner: &[usize], outer: &[usize], except: Option<usize>) {
    assert_eq!(inner.len(), outer.len(), "gather: ranks differ");
    for d in 0..inner.len() {
        assert!(
            Some(d) == except || inner[d] <= outer[d],
            "gather: index larger than an operand in dim {d}"
        );
    }
}

/// A fresh copy of `dst` (dense, in `dst`'s memory order) with, for every position of
/// `index` in row-major order, the element at that position with `dim` replaced by the index
/// value set to `combine(old, src[position])`. Positions are visited in order on one thread,
/// so with repeated indices the last one wins (`scatter`) or the sums are formed in index
/// order (`scatter_add`): results are deterministic.
///
/// # Panics
/// As [`gather`], for `index` against `dst` (off `dim`) and `src` (every dim).
pub(crate) fn scatter<T: Element, I: IntElement>(
    dst: Src<'_, T>,
    dim: usize,
    index: Src<'_, I>,
    src: Src<'_, T>,
    combine: impl Fn(T, T) -> T,
) -> Result<(Storage<T>, Layout)> {
    let (i0, s0) = (base(&index), base(&src));
    base(&dst);
    let shape = index.layout.shape();
    check_within(shape, dst.layout.shape(), Some(dim));
    check_within(shape, src.layout.shape(), None);
    let out = dst.layout.dense_like()?;
    let mut fresh = to_fresh_storage(dst.storage, dst.layout, &out)?;
    if index.layout.numel() > 0 {
        let size = out.shape()[dim];
        let od = out.strides()[dim];
        let mut along = out.strides().to_vec();
        along[dim] = 0;
        let strides = zip_strides([&along, index.layout.strides(), src.layout.strides()]);
        let o = fresh.as_mut_ptr();
        // SAFETY: the layouts fit their storages (asserted in `base`).
        let (i, s) = unsafe { (i0.add(index.layout.offset()), s0.add(src.layout.offset())) };
        walk(shape, &strides, 0, index.layout.numel(), |_, [a, b, c]| {
            // SAFETY: `b` and `c` are offsets of the same multi-index in the index and source
            // layouts (the index is no larger than the source); `a + j * od` is the output's
            // offset of that multi-index with `dim` set to the checked index `j`, inside the
            // dense output (offset 0) because the index is no larger than it off `dim`. The
            // output is a fresh storage owned here.
            unsafe {
                let j = read_index(i, b, size);
                let p = o.offset(a + j as isize * od);
                p.write(combine(p.read(), s.offset(c).read()));
            }
        });
    }
    Ok((fresh, out))
}

/// The elements of `src` where `mask` (of any integer type) is non-zero, the two broadcast
/// together, in row-major order of the broadcast shape: a fresh 1-dim storage.
///
/// Two passes on the calling thread: count, then copy.
pub(crate) fn masked_select<T: Element, M: IntElement>(
    src: Src<'_, T>,
    mask: Src<'_, M>,
) -> Result<(Storage<T>, Layout)> {
    let zero = M::zero();
    let (s0, m0) = (base(&src), base(&mask));
    let shape = broadcast_all(&[src.layout, mask.layout])?;
    let (ss, ms) = (
        broadcast_strides(src.layout, &shape),
        broadcast_strides(mask.layout, &shape),
    );
    let strides = zip_strides([&ss, &ms]);
    let numel = crate::iter::element_count(&shape);
    // SAFETY: both layouts fit their storages (asserted in `base`); broadcasting only adds
    // stride-0 dims, so every broadcast offset is one the layout addresses.
    let (s, m) = unsafe { (s0.add(src.layout.offset()), m0.add(mask.layout.offset())) };
    let mut count = 0usize;
    walk(&shape, &strides, 0, numel, |_, [_, b]| {
        // SAFETY: `b` is a broadcast offset of the mask.
        count += usize::from(unsafe { m.offset(b).read() } != zero);
    });
    let mut fresh = Storage::<T>::uninit(count).map_err(|e| e.with_op("masked_select"))?;
    let out = fresh.as_mut_ptr();
    let mut written = 0usize;
    walk(&shape, &strides, 0, numel, |_, [a, b]| {
        // SAFETY: `b` is a broadcast offset of the mask.
        if unsafe { m.offset(b).read() } != zero {
            assert!(written < count, "masked_select: the mask changed");
            // SAFETY: `a` is a broadcast offset of the source; `written < count` is inside
            // the fresh storage.
            unsafe { out.add(written).write(s.offset(a).read()) };
            written += 1;
        }
    });
    assert_eq!(written, count, "masked_select: the mask changed");
    // SAFETY: all `count` elements were written (asserted).
    Ok((
        unsafe { fresh.assume_init() },
        Layout::contiguous(&[count])?,
    ))
}

/// The multi-indices of the elements of `src` that are not zero (`x != 0`: NaN counts, `-0.0`
/// does not), in row-major order: a fresh `[count, ndim]` storage of `i64`.
pub(crate) fn nonzero<T: Element>(src: Src<'_, T>) -> Result<(Storage<i64>, Layout)> {
    let s0 = base(&src);
    let shape = src.layout.shape();
    let strides = zip_strides([src.layout.strides()]);
    let numel = src.layout.numel();
    let zero = T::zeroed();
    // SAFETY: the layout fits its storage (asserted in `base`).
    let s = unsafe { s0.add(src.layout.offset()) };
    let mut count = 0usize;
    walk(shape, &strides, 0, numel, |_, [a]| {
        // SAFETY: `a` is an offset the layout addresses.
        count += usize::from(unsafe { s.offset(a).read() } != zero);
    });
    let ndim = shape.len();
    let out = Layout::contiguous(&[count, ndim])?;
    let mut fresh = Storage::<i64>::uninit(count * ndim)?;
    let o = fresh.as_mut_ptr();
    let mut row = 0usize;
    walk(shape, &strides, 0, numel, |pos, [a]| {
        // SAFETY: `a` is an offset the layout addresses.
        if unsafe { s.offset(a).read() } != zero {
            assert!(row < count, "nonzero: the input changed");
            let mut rest = pos;
            for d in (0..ndim).rev() {
                // SAFETY: row < count and d < ndim: inside the fresh [count, ndim] storage.
                unsafe { o.add(row * ndim + d).write((rest % shape[d]) as i64) };
                rest /= shape[d];
            }
            row += 1;
        }
    });
    assert_eq!(row, count, "nonzero: the input changed");
    // SAFETY: rows 0..count of ndim elements each were written (asserted).
    Ok((unsafe { fresh.assume_init() }, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_visits_positions_in_row_major_order() {
        let shape = [2, 3];
        let strides = zip_strides([&[3isize, 1][..], &[1, 2][..]]);
        let mut seen = vec![];
        walk(&shape, &strides, 1, 5, |pos, offs| seen.push((pos, offs)));
        assert_eq!(
            seen,
            vec![(1, [1, 2]), (2, [2, 4]), (3, [3, 1]), (4, [4, 3])]
        );
        let mut count = 0;
        walk(&[], &[] as &[[isize; 1]], 0, 1, |_, _| count += 1);
        assert_eq!(count, 1);
    }

    fn select(l: &Layout, dim: usize, idx: &[usize]) -> Vec<u32> {
        let data: Vec<u32> = (0..l.storage_len_needed() as u32).collect();
        let s = Storage::from_slice(&data).unwrap();
        let (out, layout) = index_select(
            Src {
                storage: &s,
                layout: l,
            },
            dim,
            idx,
        )
        .unwrap();
        assert!(layout.is_contiguous());
        out.as_slice().to_vec()
    }

    #[test]
    fn index_select_takes_every_slab_kind() {
        let c = Layout::contiguous(&[3, 4, 5]).unwrap();
        // Rows of a row-major tensor: runs.
        assert_eq!(select(&c, 0, &[2, 0])[..3], [40, 41, 42]);
        // Last dim: single elements.
        assert_eq!(select(&c, 2, &[4, 0]), {
            (0..12)
                .flat_map(|r| [r * 5 + 4, r * 5])
                .collect::<Vec<u32>>()
        });
        // Strided slabs (transposed) and general ones (permuted, narrowed).
        let t = c.permute(&[2, 1, 0]).unwrap();
        assert_eq!(select(&t, 1, &[3])[..4], [15, 35, 55, 16]);
        let g = c.narrow(2, 1, 3).unwrap().permute(&[1, 0, 2]).unwrap();
        assert_eq!(select(&g, 0, &[1])[..7], [6, 7, 8, 26, 27, 28, 46]);
        // Nothing selected, or an empty dim elsewhere.
        assert!(select(&c, 1, &[]).is_empty());
        assert!(select(&c.narrow(0, 0, 0).unwrap(), 1, &[1]).is_empty());
    }

    #[test]
    #[cfg_attr(miri, ignore = "134K elements and thread pools: too slow")]
    fn index_select_is_the_same_on_many_threads() {
        let l = Layout::contiguous(&[64, 300, 7])
            .unwrap()
            .transpose(1, 2)
            .unwrap();
        let idx: Vec<usize> = (0..500).map(|i| (i * 37) % 300).collect();
        let one = select(&l, 2, &idx);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        assert_eq!(pool.install(|| select(&l, 2, &idx)), one);
    }
}
