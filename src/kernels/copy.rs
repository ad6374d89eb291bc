//! The strided copy kernel: every materialising copy in stridex goes through [`copy_strided`].
//!
//! A copy is planned before it runs (the idea of HPTT's plans and candle's `StridedBlocks`):
//!
//! 1. Order the dims by the destination's strides (outermost first) and coalesce dims that are
//!    contiguous with each other in *both* layouts ([`coalesce_joint`]).
//! 2. Classify the innermost loop:
//!    - [`CopyKind::Runs`]: source and destination both have unit stride inside, so the copy
//!      is a sequence of `memcpy`s of whole runs (a contiguous source is one run);
//!    - [`CopyKind::Tiled`]: the destination is unit-stride inside but the source is unit-stride
//!      (or smallest-stride) along some other dim `j`, a transpose: walk `j` and the inner dim
//!      in square tiles small enough for L1, so both sides read and write whole cache lines;
//!    - [`CopyKind::Gather`]: anything else (broadcast stride-0 sources, large strides on
//!      every dim): a strided loop along the destination's inner dim.
//! 3. Move elements as unsigned integers of the element's size (`u8`/`u16`/`u32`/`u64`), so
//!    every element type of the same size shares one instantiation.

use crate::element::Element;
use crate::error::Result;
use crate::layout::{Layout, coalesce_joint};
use crate::storage::Storage;

use super::cpu::CopyTuning;
use super::runs::copy_runs;
use super::tile::{Tile2d, tile};
use super::transpose::{Word, store_fence};
use super::walk::for_each_offset2;

/// How the innermost loops of a copy run; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CopyKind {
    /// Nothing to copy.
    Empty,
    /// Unit stride on both sides: whole runs are `memcpy`'d.
    Runs,
    /// A transpose between the inner dim and dim `j`, walked in tiles.
    Tiled {
        /// The dim (index into the plan's dims) along which the source is closest to
        /// unit-stride.
        j: usize,
    },
    /// A strided element loop along the inner dim.
    Gather,
}

/// A copy reduced to its essentials: dims ordered by destination stride, coalesced.
#[derive(Debug, Clone)]
pub(crate) struct CopyPlan {
    shape: Vec<usize>,
    src: Vec<isize>,
    dst: Vec<isize>,
    src_offset: usize,
    dst_offset: usize,
    kind: CopyKind,
}

impl CopyPlan {
    /// Plans copying the elements of `src` into the same indices of `dst`.
    ///
    /// # Panics
    /// If the shapes differ (an internal caller error).
    pub(crate) fn new(src: &Layout, dst: &Layout) -> CopyPlan {
        assert_eq!(
            src.shape(),
            dst.shape(),
            "copy: source and destination shapes differ"
        );
        let order = dst.iteration_order();
        let mut shape: Vec<usize> = order.iter().map(|&d| src.shape()[d]).collect();
        let mut strides = [
            order.iter().map(|&d| src.strides()[d]).collect::<Vec<_>>(),
            order.iter().map(|&d| dst.strides()[d]).collect::<Vec<_>>(),
        ];
        coalesce_joint(&mut shape, &mut strides);
        let [src_strides, dst_strides] = strides;
        let kind = classify(&shape, &src_strides, &dst_strides);
        CopyPlan {
            shape,
            src: src_strides,
            dst: dst_strides,
            src_offset: src.offset(),
            dst_offset: dst.offset(),
            kind,
        }
    }

    /// The kind of inner loop this copy runs.
    #[cfg(test)]
    pub(crate) fn kind(&self) -> CopyKind {
        self.kind
    }
}

fn classify(shape: &[usize], src: &[isize], dst: &[isize]) -> CopyKind {
    if shape.contains(&0) {
        return CopyKind::Empty;
    }
    let Some(last) = shape.len().checked_sub(1) else {
        return CopyKind::Runs; // 0-dim: one element, a run of length 1.
    };
    if src[last] == 1 && dst[last] == 1 {
        return CopyKind::Runs;
    }
    let inner = src[last].unsigned_abs();
    let best = (0..last)
        .filter(|&d| src[d] != 0)
        .min_by_key(|&d| src[d].unsigned_abs());
    match best {
        Some(j) if dst[last] == 1 && inner != 0 && src[j].unsigned_abs() < inner => {
            CopyKind::Tiled { j }
        }
        _ => CopyKind::Gather,
    }
}

/// Copies every element of the layout `src` over `src_base` to the same index of the layout
/// `dst` over `dst_base`.
///
/// Copies of at least `parallel_bytes` (see [Note [copy parameters]](super::cpu::CopyTuning))
/// split their outermost dim across the current rayon
/// pool (each thread writes its own destination elements, so the result is the same for any
/// thread count); smaller ones run on the calling thread.
///
/// # Safety
/// - `src` and `dst` have the same shape (checked; a mismatch panics before any access);
/// - `src` fits the allocation at `src_base` (every offset it addresses is in bounds and
///   initialized) and `dst` fits the allocation at `dst_base` (every offset writable);
/// - `dst` addresses each element at most once (non-overlapping), and the memory `dst`
///   addresses does not overlap the memory `src` reads;
/// - nothing else reads or writes `dst`'s elements during the call.
pub(crate) unsafe fn copy_strided<T: Element>(
    src_base: *const T,
    src: &Layout,
    dst_base: *mut T,
    dst: &Layout,
) {
    let plan = CopyPlan::new(src, dst);
    let stream = should_stream(src, dst, std::mem::size_of::<T>());
    let tuning = CopyTuning::get();
    // SAFETY: forwarded from this function's contract; `T` has the size and alignment of the
    // word type chosen (Element's documented contract, tested in element.rs), so its elements
    // may be read and written as those words.
    unsafe {
        match std::mem::size_of::<T>() {
            1 => execute::<u8>(&plan, src_base.cast(), dst_base.cast(), stream, tuning),
            2 => execute::<u16>(&plan, src_base.cast(), dst_base.cast(), stream, tuning),
            4 => execute::<u32>(&plan, src_base.cast(), dst_base.cast(), stream, tuning),
            8 => execute::<u64>(&plan, src_base.cast(), dst_base.cast(), stream, tuning),
            n => unreachable!("Element types are 1, 2, 4 or 8 bytes, not {n}"),
        }
    }
}

/// Largest fresh copy (in elements) made by a plain odometer walk instead of the planned,
/// tiled kernel: below it, planning costs more than the copy.
const SMALL_COPY: usize = 256;

/// Copies the elements `layout` addresses in `src` into a fresh storage laid out as `dst`,
/// which must be dense (non-overlapping and dense, offset 0, same shape), e.g. row-major or
/// channels-last. Copies of at most [`SMALL_COPY`] elements take a plain walk.
///
/// # Panics
/// If `layout` does not fit `src` (the tensor invariant) or `dst` is not such a layout; both
/// are asserted before any access.
pub(crate) fn to_fresh_storage<T: Element>(
    src: &Storage<T>,
    layout: &Layout,
    dst: &Layout,
) -> Result<Storage<T>> {
    assert!(
        layout.fits_in(src.len()),
        "copy: layout does not fit its storage"
    );
    assert!(
        dst.shape() == layout.shape()
            && dst.offset() == 0
            && (dst.is_contiguous() || dst.is_non_overlapping_and_dense()),
        "copy: a fresh destination must be dense"
    );
    let mut fresh = Storage::<T>::uninit(dst.numel()).map_err(|e| e.with_op("copy"))?;
    if dst.numel() <= SMALL_COPY {
        // Too small for planning to pay: one odometer walk, element by element.
        let (from, to) = (src.as_ptr(), fresh.as_mut_ptr());
        let (s0, d0) = (layout.offset() as isize, dst.offset() as isize);
        super::walk::for_each_offset2(
            layout.shape(),
            layout.strides(),
            dst.strides(),
            move |a, b| {
                // SAFETY: `s0 + a` is an offset `layout` addresses, inside `src` (asserted fit);
                // `d0 + b` one `dst` addresses, inside the fresh allocation (dense from offset 0
                // over exactly its `numel` elements, asserted), each written once; the two
                // allocations are distinct.
                unsafe { to.offset(d0 + b).write(from.offset(s0 + a).read()) }
            },
        );
    } else {
        // SAFETY: `layout` fits `src` (asserted); `dst` is dense from offset 0 over exactly
        // `numel` fresh elements (asserted), so it fits, writes each element once, and cannot
        // overlap `src`'s allocation, which nothing writes while it is shared.
        unsafe { copy_strided(src.as_ptr(), layout, fresh.as_mut_ptr(), dst) };
    }
    // SAFETY: a dense layout over `numel` elements from offset 0 addresses every one of them,
    // and the copy wrote each addressed element.
    Ok(unsafe { fresh.assume_init() })
}

/// The elements `layout` addresses in `src`, in row-major order, as a `Vec` allocated through
/// `try_reserve_exact`: a size that overflows is [`Error::Overflow`](crate::Error::Overflow)
/// naming `op` and the shape, an allocation the allocator refuses is
/// [`Error::Alloc`](crate::Error::Alloc), never a panic or an abort.
///
/// # Panics
/// As [`to_fresh_storage`], if `layout` does not fit `src` (the tensor invariant).
pub(crate) fn try_to_vec<T: Element>(
    op: &'static str,
    src: &Storage<T>,
    layout: &Layout,
) -> Result<Vec<T>> {
    let n = layout.numel();
    let bytes = crate::error::checked_bytes(op, layout.shape(), n, std::mem::size_of::<T>())?;
    let mut out = Vec::new();
    out.try_reserve_exact(n)
        .map_err(|_| crate::error::Error::Alloc { op, bytes })?;
    // SAFETY: `out` has capacity for the `n` elements written, each once.
    unsafe {
        into_raw(src, layout, out.as_mut_ptr(), n);
        out.set_len(n);
    }
    Ok(out)
}

/// Writes the elements `layout` addresses in `src`, in row-major order, to `dst`.
///
/// # Panics
/// As [`to_fresh_storage`], or if `dst.len() != layout.numel()` (callers check and return an
/// `Err` first).
pub(crate) fn to_slice<T: Element>(src: &Storage<T>, layout: &Layout, dst: &mut [T]) {
    assert_eq!(dst.len(), layout.numel(), "copy: destination length");
    // SAFETY: `dst` is a unique borrow of exactly `numel` elements; it cannot overlap `src`,
    // which is borrowed shared at the same time.
    unsafe { into_raw(src, layout, dst.as_mut_ptr(), dst.len()) }
}

/// # Safety
/// `dst` is writable for `n == layout.numel()` elements, does not overlap `src`, and nothing
/// else accesses it during the call.
unsafe fn into_raw<T: Element>(src: &Storage<T>, layout: &Layout, dst: *mut T, n: usize) {
    assert!(
        layout.fits_in(src.len()),
        "copy: layout does not fit its storage"
    );
    debug_assert_eq!(n, layout.numel());
    if n == 0 {
        // Nothing to copy; an empty shape may not even have row-major strides that fit.
        return;
    }
    let dst_layout = Layout::contiguous(layout.shape()).expect("the shape of a valid layout");
    // SAFETY: `layout` fits `src` (asserted); the row-major `dst_layout` addresses exactly the
    // `n` writable elements, each once; no overlap by the caller's contract.
    unsafe { copy_strided(src.as_ptr(), layout, dst, &dst_layout) }
}

/// Copies the elements of `src` (under `src_layout`) to the same indices of `dst` (under
/// `dst_layout`).
///
/// # Panics
/// If either layout does not fit its storage, the shapes differ, or `dst_layout` may address an
/// element twice (callers check all of these and return an `Err` first).
pub(crate) fn to_storage<T: Element>(
    src: &Storage<T>,
    src_layout: &Layout,
    dst: &mut Storage<T>,
    dst_layout: &Layout,
) {
    assert!(
        src_layout.fits_in(src.len()),
        "copy: source layout does not fit its storage"
    );
    assert!(
        dst_layout.fits_in(dst.len()),
        "copy: destination layout does not fit its storage"
    );
    assert!(
        dst_layout.is_non_overlapping(),
        "copy: destination layout overlaps itself"
    );
    // SAFETY: both layouts fit (asserted), shapes are checked inside, the destination writes
    // each element once (asserted), and `&mut Storage` is a different allocation from the
    // shared `&Storage` `src`, accessed by no one else.
    unsafe { copy_strided(src.as_ptr(), src_layout, dst.as_mut_ptr(), dst_layout) }
}

/// Whether to write the destination with streaming (non-temporal) stores: when the copy's
/// working set, the destination plus the source elements it reads, exceeds
/// `stream_min_bytes` (the last-level cache; see
/// [Note [copy parameters]](super::cpu::CopyTuning)). The source counts as the elements it
/// holds or, when it repeats elements (stride 0), the span it reads.
fn should_stream(src: &Layout, dst: &Layout, elem: usize) -> bool {
    let n = dst.numel();
    let src_span = src.offset_range().map_or(0, |(lo, hi)| hi - lo + 1);
    (n + src_span.min(n)).saturating_mul(elem) > CopyTuning::get().stream_min_bytes
}

/// A raw pointer that may cross to rayon workers.
#[derive(Clone, Copy)]
struct SendPtr<P>(P);
// SAFETY: used only inside `execute`, whose contract guarantees that the chunks handed to
// different workers write disjoint destination elements and only read the source.
unsafe impl<P> Send for SendPtr<P> {}
// SAFETY: as for Send.
unsafe impl<P> Sync for SendPtr<P> {}

/// Runs `plan` on words of type `W` under the parameters `tuning`, in parallel when it moves
/// at least `tuning.parallel_bytes`.
///
/// # Safety
/// As [`copy_strided`], for the plan's layouts.
unsafe fn execute<W: Word>(
    plan: &CopyPlan,
    src_base: *const W,
    dst_base: *mut W,
    stream: bool,
    tuning: &CopyTuning,
) {
    let parallel_bytes = tuning.parallel_bytes;
    if plan.kind == CopyKind::Empty {
        return;
    }
    // SAFETY: the layouts' offsets are in bounds (caller's contract, Layout invariant 3).
    let src0 = SendPtr(unsafe { src_base.add(plan.src_offset) });
    let dst0 = SendPtr(unsafe { dst_base.add(plan.dst_offset) });
    if let CopyKind::Tiled { j } = plan.kind {
        let dims = (&plan.shape[..], &plan.src[..], &plan.dst[..]);
        // SAFETY: forwarded; the plan is tiled along `j`, unit-stride on the destination's
        // last dim.
        let ptrs = (src0.0, dst0.0);
        if unsafe { super::tile_nest::try_run(dims, j, ptrs, (stream, parallel_bytes), tuning) } {
            return;
        }
    }
    let numel: usize = plan.shape.iter().product();
    let threads = super::parallel::pool_threads();
    let outer = plan.shape.first().copied().unwrap_or(1);
    if threads == 1 || numel * std::mem::size_of::<W>() < parallel_bytes || outer < 2 {
        // SAFETY: the whole plan, as the caller vouches.
        unsafe { run_range(plan, src0.0, dst0.0, 0, outer, stream) };
        return;
    }
    // Split dim 0 into about 4 chunks per thread and let rayon balance them; when dim 0 is the
    // tiled row dim, in multiples of the tile side so tiles stay whole.
    let mut step = outer.div_ceil(threads * 4);
    if plan.kind == (CopyKind::Tiled { j: 0 }) {
        step = step.next_multiple_of(tile::<W>()).min(outer);
    }
    let chunks = outer.div_ceil(step);
    super::parallel::par_for(chunks, |c| {
        let (s, d) = (src0, dst0);
        let (lo, hi) = (c * step, ((c + 1) * step).min(outer));
        // SAFETY: chunk c covers indices lo..hi of dim 0 only; distinct chunks write distinct
        // destination elements (dst is non-overlapping by the caller's contract).
        unsafe { run_range(plan, s.0, d.0, lo, hi, stream) };
    });
}

/// Runs `plan` restricted to indices `lo..hi` of its dim 0 (a 0-dim plan ignores the range).
///
/// # Safety
/// As [`copy_strided`]; `lo <= hi <= shape[0]`.
unsafe fn run_range<W: Word>(
    plan: &CopyPlan,
    src0: *const W,
    dst0: *mut W,
    lo: usize,
    hi: usize,
    stream: bool,
) {
    let n = plan.shape.len();
    if n == 0 {
        // SAFETY: a 0-dim plan copies exactly the one element at the offsets.
        unsafe { dst0.write(src0.read()) };
        return;
    }
    let mut shape = plan.shape.clone();
    shape[0] = hi - lo;
    // SAFETY (for every pointer formed below): the plan's offsets and strides are those of the
    // two layouts (reordered and coalesced, which keeps the set of (index, offset) pairs), so
    // each `offset + Σ i_k * stride_k` formed here, for in-range indices, is an offset the
    // layout addresses, in bounds by the caller's contract; partial sums are addressed offsets
    // too (Layout invariant 3).
    let (src0, dst0) = unsafe {
        (
            src0.offset(lo as isize * plan.src[0]),
            dst0.offset(lo as isize * plan.dst[0]),
        )
    };
    match plan.kind {
        CopyKind::Empty => {}
        CopyKind::Runs => {
            let len = shape[n - 1];
            let outer = &shape[..n - 1];
            // Runs of a large copy stream their whole destination lines, unless the source
            // repeats (a broadcast row, which stays cached: plain stores measured faster) or
            // the copy is one run (libc's `memcpy` streams those itself).
            let stream = stream && n > 1 && plan.src[..n - 1].iter().all(|&s| s != 0);
            let strides = (&plan.src[..n - 1], &plan.dst[..n - 1]);
            // SAFETY: the runs of the plan's index space, addressed by the layouts on both
            // sides (caller's contract).
            unsafe { copy_runs(src0, dst0, (outer, strides, len), stream, CopyTuning::get()) };
        }
        CopyKind::Tiled { j } => {
            let keep: Vec<usize> = (0..n).filter(|&d| d != j && d != n - 1).collect();
            let pick = |v: &[isize]| keep.iter().map(|&d| v[d]).collect::<Vec<_>>();
            let outer: Vec<usize> = keep.iter().map(|&d| shape[d]).collect();
            let t = Tile2d {
                rows: shape[j],
                cols: shape[n - 1],
                src_row: plan.src[j],
                src_col: plan.src[n - 1],
                dst_row: plan.dst[j],
            };
            let block = W::block_fn(stream);
            for_each_offset2(&outer, &pick(&plan.src), &pick(&plan.dst), |a, b| {
                // SAFETY: the tile's indices are the plan's indices along dims j and n - 1.
                unsafe { t.run(src0.offset(a), dst0.offset(b), block, stream) }
            });
        }
        CopyKind::Gather => {
            let (len, ss, ds) = (shape[n - 1], plan.src[n - 1], plan.dst[n - 1]);
            let outer = &shape[..n - 1];
            let strides = (&plan.src[..n - 1], &plan.dst[..n - 1]);
            if stream && super::reversed::takes::<W>(ss, ds, len, strides.0) {
                // SAFETY: each row is `len` addressed words on both sides, the source's read
                // downwards from the row start (stride -1); non-overlapping by contract.
                let dims = (outer, strides, len);
                unsafe { super::reversed::copy_reversed_runs(src0, dst0, dims, CopyTuning::get()) };
                return store_fence();
            }
            for_each_offset2(outer, strides.0, strides.1, |a, b| {
                // SAFETY: the row starts at addressed offsets on both sides.
                let (s, d) = unsafe { (src0.offset(a), dst0.offset(b)) };
                // SAFETY: index i < len along the inner dim of both layouts.
                unsafe { gather(s, ss, d, ds, len) }
            });
        }
    }
    if stream {
        store_fence();
    }
}

/// `dst[i * ds] = src[i * ss]` for `i < len`, with the common destination-contiguous cases
/// (broadcast fill, reversed run) as separate loops the compiler can vectorise.
///
/// # Safety
/// Every `src[i * ss]` readable and `dst[i * ds]` writable for `i < len`, not overlapping.
#[inline]
unsafe fn gather<W: Copy>(src: *const W, ss: isize, dst: *mut W, ds: isize, len: usize) {
    // SAFETY: every index below is i < len, as the contract requires.
    unsafe {
        if ds == 1 && ss == 0 {
            std::slice::from_raw_parts_mut(dst, len).fill(src.read());
        } else if ds == 1 && ss == -1 {
            let d = std::slice::from_raw_parts_mut(dst, len);
            let s = std::slice::from_raw_parts(src.offset(1 - len as isize), len);
            for (o, i) in d.iter_mut().zip(s.iter().rev()) {
                *o = *i;
            }
        } else {
            for i in 0..len as isize {
                dst.offset(i * ds).write(src.offset(i * ss).read());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The small-copy walk of `to_fresh_storage` against the planned kernel, on views below
    /// and above `SMALL_COPY` elements (the latter must take the planned path, and do).
    #[test]
    fn the_small_walk_matches_the_planned_copy() {
        // 315 elements: the base and its transpose take the planned path, the rest the walk.
        let data: Vec<u16> = (0..5 * 9 * 7).map(|i| i as u16 * 3 + 1).collect();
        let s = Storage::from_slice(&data).unwrap();
        let base = Layout::contiguous(&[5, 9, 7]).unwrap();
        assert!(base.numel() > SMALL_COPY);
        let views = [
            base.narrow(1, 2, 3).unwrap(),
            base.transpose(0, 2).unwrap(),
            base.permute(&[1, 2, 0]).unwrap().narrow(0, 1, 2).unwrap(),
            base.flip(1).unwrap().slice(2, 6, isize::MIN, -3).unwrap(),
            base.select(0, 3).unwrap().unsqueeze(0).unwrap(),
            // Two dims (the walk's two-loop case): transposed and flipped, offset.
            base.select(0, 1).unwrap().t().unwrap().flip(0).unwrap(),
            base.select(2, 4).unwrap().flip(1).unwrap(),
            Layout::contiguous(&[1, 7])
                .unwrap()
                .expand(&[5, 7])
                .unwrap(),
            base.clone(),
            base.narrow(0, 0, 0).unwrap(),
        ];
        for v in views {
            for dst in [
                Layout::contiguous(v.shape()).unwrap(),
                v.dense_like().unwrap(),
            ] {
                let fast = to_fresh_storage(&s, &v, &dst).unwrap();
                let mut slow = Storage::<u16>::uninit(dst.numel()).unwrap();
                // SAFETY: `v` fits `s` (a view of `base`, which `s` holds); `dst` is dense
                // over exactly the fresh `numel` elements.
                unsafe { copy_strided(s.as_ptr(), &v, slow.as_mut_ptr(), &dst) };
                // SAFETY: the copy wrote every element of the dense `dst`.
                let slow = unsafe { slow.assume_init() };
                assert_eq!(fast.as_slice(), slow.as_slice(), "{v:?} into {dst:?}");
            }
        }
    }

    fn kind(l: &Layout) -> CopyKind {
        CopyPlan::new(l, &Layout::contiguous(l.shape()).unwrap()).kind()
    }

    #[test]
    fn classifies_copies() {
        let c = Layout::contiguous(&[8, 6, 4]).unwrap();
        assert_eq!(kind(&c), CopyKind::Runs);
        assert_eq!(kind(&c.narrow(2, 1, 2).unwrap()), CopyKind::Runs);
        assert_eq!(kind(&c.transpose(1, 2).unwrap()), CopyKind::Tiled { j: 1 });
        assert_eq!(
            kind(&c.permute(&[2, 0, 1]).unwrap()),
            CopyKind::Tiled { j: 0 }
        );
        assert_eq!(kind(&c.flip(2).unwrap()), CopyKind::Gather);
        assert_eq!(kind(&c.narrow(0, 0, 0).unwrap()), CopyKind::Empty);
        let row = Layout::contiguous(&[1, 4])
            .unwrap()
            .expand(&[5, 4])
            .unwrap();
        assert_eq!(kind(&row), CopyKind::Runs);
        let col = Layout::contiguous(&[5, 1])
            .unwrap()
            .expand(&[5, 4])
            .unwrap();
        assert_eq!(kind(&col), CopyKind::Gather);
        assert_eq!(kind(&Layout::contiguous(&[]).unwrap()), CopyKind::Runs);
    }

    /// Runs every path (serial and parallel, streaming or not, every word size) on views of a
    /// `[b, r, c]` base whose sizes are not multiples of the tile or block sides, against
    /// index-by-index copies; `narrow` and `expand` are the lengths of the narrowed and the
    /// broadcast view.
    fn check_paths<W: Word + PartialEq + std::fmt::Debug>(
        [b, r, c]: [usize; 3],
        (narrow, expand): (usize, usize),
        from: impl Fn(usize) -> W,
    ) {
        // As tuned for this machine, and with every plane of a line-square tile or more packed
        // (so the loop nests of `tile_nest` run on these small planes too); always parallel.
        let tuned = CopyTuning {
            parallel_bytes: 0,
            ..CopyTuning::get().clone()
        };
        let packed = CopyTuning {
            packed_min_bytes: 0,
            ..tuned.clone()
        };
        // Streamed runs of 256 bytes or more that prefetch along themselves into the next.
        let near = CopyTuning {
            run_prefetch_bytes: 256,
            ..tuned.clone()
        };
        let base = Layout::contiguous(&[b, r, c]).unwrap();
        let views = [
            base.transpose(1, 2).unwrap(),
            base.permute(&[2, 0, 1]).unwrap(),
            base.permute(&[1, 2, 0]).unwrap(),
            base.flip(2).unwrap().transpose(0, 1).unwrap(),
            base.slice(1, 1, r as isize - 1, 2)
                .unwrap()
                .transpose(1, 2)
                .unwrap(),
            base.permute(&[2, 1, 0]).unwrap(),
            base.flip(1).unwrap().permute(&[1, 2, 0]).unwrap(),
            base.narrow(1, 1, r - 2)
                .unwrap()
                .narrow(2, 2, c - 3)
                .unwrap()
                .permute(&[2, 0, 1])
                .unwrap(),
            base.select(0, b - 1)
                .unwrap()
                .unsqueeze(1)
                .unwrap()
                .transpose(0, 2)
                .unwrap(),
            base.narrow(2, 5, narrow).unwrap(),
            // Row runs whose source jumps along the next dim out (the blocked runs order),
            // also reversed and with a step.
            base.permute(&[1, 0, 2]).unwrap(),
            base.flip(1).unwrap().permute(&[1, 0, 2]).unwrap(),
            // A [17, 2, 5] block permuted [1, 0, 2] (17 rows: more than one block of the
            // blocked order, and a rest), and the same rows reversed.
            Layout::new(&[2, 17, 5], &[5, 10, 1], 3).unwrap(),
            Layout::new(&[2, 17, 5], &[5, -10, 1], 163).unwrap(),
            base.unsqueeze(0)
                .unwrap()
                .expand(&[2, b, r, c])
                .unwrap()
                .slice(2, 0, r as isize, 2)
                .unwrap()
                .permute(&[0, 2, 1, 3])
                .unwrap(),
            base.select(1, 7)
                .unwrap()
                .unsqueeze(1)
                .unwrap()
                .expand(&[b, expand, c])
                .unwrap(),
        ];
        let src: Vec<W> = (0..base.numel()).map(&from).collect();
        // Under Miri the copy runs on the calling thread (kernels/parallel.rs): no pool.
        let pool = (!cfg!(miri)).then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap()
        });
        for (k, view) in views.iter().enumerate() {
            let dst_l = Layout::contiguous(view.shape()).unwrap();
            // Destinations 0-2 words past the allocation's start, so streamed copies also
            // write lines they share with bytes outside the copy (a user's `Vec`).
            let (off, n) = (k % 3, dst_l.numel());
            let want: Vec<W> = {
                let mut w = vec![];
                let (shape, strides) = (view.shape(), view.strides());
                super::for_each_offset2(shape, strides, strides, |a, _| {
                    w.push(src[(view.offset() as isize + a) as usize])
                });
                w
            };
            for (stream, tuning) in [false, true]
                .into_iter()
                .flat_map(|s| [(s, &tuned), (s, &packed)])
                // The prefetch distance matters only to streamed copies (and, under Miri, to
                // the order `runs::tests` checks on its own).
                .chain((!cfg!(miri)).then_some((true, &near)))
            {
                for threads in [1, 3] {
                    let plan = CopyPlan::new(view, &dst_l);
                    let mut dst = vec![from(0); off + n + 2];
                    let (sp, dp) = (SendPtr(src.as_ptr()), SendPtr(dst[off..].as_mut_ptr()));
                    let plan = &plan;
                    let run = move || {
                        let (s, d) = (sp, dp);
                        // SAFETY: `view` fits `src` (a view of `base`), `dst_l` is row-major
                        // over `dst[off..off + n]`, which is a separate allocation.
                        unsafe { execute::<W>(plan, s.0, d.0, stream, tuning) }
                    };
                    match &pool {
                        Some(pool) if threads > 1 => pool.install(run),
                        _ => run(),
                    }
                    let packs = tuning.packed_min_bytes;
                    assert!(
                        dst[off..off + n] == want[..],
                        "{view:?} stream {stream} threads {threads} packed from {packs}"
                    );
                    let outside = dst[..off].iter().chain(&dst[off + n..]);
                    assert!(
                        outside.into_iter().all(|w| *w == from(0)),
                        "{view:?} wrote outside"
                    );
                }
            }
        }
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "140K-element views, 16 copies each: minutes under Miri"
    )]
    fn every_path_matches_an_index_by_index_copy() {
        let (base, lens) = ([3, 301, 157], (100, 64));
        check_paths::<u8>(base, lens, |i| (i % 251) as u8);
        check_paths::<u16>(base, lens, |i| (i % 65521) as u16);
        check_paths::<u32>(base, lens, |i| i as u32);
        check_paths::<u64>(base, lens, |i| (i as u64) << 20 | 7);
        // Source rows of 61 words: 3 lines of `u32` and 7 of `u64` in tiles, read as
        // whole-row blocks (`tile::block_steps`).
        let (base, lens) = ([3, 301, 61], (50, 64));
        check_paths::<u32>(base, lens, |i| i as u32);
        check_paths::<u64>(base, lens, |i| (i as u64) << 20 | 7);
        // Destination rows of 16 words, whole lines of `u32` and `u64`, starting off a line:
        // the strided slice transposed (rows adjacent) and `permute([2, 1, 0])` (planes
        // continuing one another) stream their edges as seam lines (`kernels/seams.rs`).
        let (base, lens) = ([16, 34, 20], (10, 3));
        check_paths::<u32>(base, lens, |i| i as u32);
        check_paths::<u64>(base, lens, |i| (i as u64) << 20 | 7);
    }

    /// The same paths at the sizes Miri can afford (seconds, not hours): partial tiles whose
    /// 8x8 and 4x4 blocks have edges in both dims, every view serially and (not under Miri)
    /// on three threads.
    #[test]
    fn every_path_matches_an_index_by_index_copy_at_small_sizes() {
        // Under Miri (SIMD compiled out, every access checked) the 1- and 4-byte words here
        // and the 8-byte ones on the tiles below; every word size otherwise.
        let (base, lens) = ([2, 11, 9], (3, 5));
        check_paths::<u8>(base, lens, |i| (i % 251) as u8);
        check_paths::<u32>(base, lens, |i| i as u32);
        if cfg!(not(miri)) {
            check_paths::<u16>(base, lens, |i| (i % 65521) as u16);
            check_paths::<u64>(base, lens, |i| (i as u64) << 20 | 7);
        }
        // Planes of one or two line-square tiles of 8- and 4-byte words, with ragged edges:
        // the packed loop nests and their edges.
        let (base, lens) = ([2, 17, 19], (5, 3));
        if cfg!(not(miri)) {
            check_paths::<u32>(base, lens, |i| i as u32);
        }
        check_paths::<u64>(base, lens, |i| (i as u64) << 20 | 7);
    }
}
