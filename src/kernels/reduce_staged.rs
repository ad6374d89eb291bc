//! The inner kernel's path for reduced dims that run against the memory order, e.g.
//! `x.t()?.sum_all()` of a row-major `x`: the canonical order (Note [canonical order] in
//! `reduce.rs`) folds logical position `i = a * B + b` in increasing `i`, but in memory `b`
//! (the logical run) is the long stride and `a` the short one. Walking the run directly reads
//! one element per cache line, at a stride that, for power-of-two sizes, maps every access to
//! the same cache sets: about thirty times slower than a streaming read.
//!
//! Instead, windows of whole logical rows are staged into a buffer in logical order, reading
//! memory along `a` (a run of consecutive rows per step of `b`, whole cache lines), and the
//! tree's leaves are folded from the buffer. The folds are the canonical ones on the same
//! values: staging moves elements, never combines them, so the bits are those of every other
//! path.

use crate::element::Element;

use crate::layout::Layout;

use super::copy::copy_strided;
use super::dispatch::with_avx2;
use super::reduce_order::{LANES, LEAF, Reduced, combine_lanes, fold_runs, split_point};
use super::reducers::Reducer;

/// Elements staged per window (whole logical rows, at least a cache line's worth of them).
/// 4 MiB of `f32`: each step of `b` reads a run of 256 rows (1 KiB of a row-major
/// source's row), long enough that memory streams instead of seeking; the window sits in the
/// last-level cache while its leaves are folded. (Unit tests use small windows, so that
/// small inputs cross several.)
const WINDOW: usize = if cfg!(test) { 1 << 9 } else { 1 << 20 };

/// Whether the staged path serves `space`: two reduced loops, the run the longer stride.
pub(super) fn applies(space: &Reduced) -> bool {
    let (len, stride, index) = space.run;
    space.shape.len() == 1
        && stride.unsigned_abs() > 1
        && space.strides[0][0].unsigned_abs() < stride.unsigned_abs()
        && index == 1
        && space.strides[0][1] == len as isize
}

/// Logical rows `a` (stride `row_stride`), each `len` elements at stride `run_stride`, staged
/// a window at a time.
struct Stager<T> {
    base: *const T,
    rows: usize,
    row_stride: isize,
    len: usize,
    run_stride: isize,
    /// Rows per window.
    per: usize,
    /// Positions `start..end` in logical order.
    buf: Vec<T>,
    start: usize,
    end: usize,
    /// A leaf that straddles two windows, assembled.
    joined: Vec<T>,
}

impl<T: Element> Stager<T> {
    /// Stages rows `a0..` (as many as a window holds, up to the last row), through the copy
    /// kernel: its tiled transpose reads whole cache lines along `a` and writes whole lines of
    /// the buffer, so power-of-two strides cause no cache-set conflicts.
    ///
    /// # Safety
    /// Every element of the space from `base` is readable and initialized.
    unsafe fn stage(&mut self, a0: usize) {
        let rows = self.per.min(self.rows - a0);
        let len = self.len;
        self.buf.resize(rows * len, T::zeroed());
        // The window as a layout over its lowest addressed element.
        let lowest = (rows as isize - 1) * self.row_stride.min(0)
            + (len as isize - 1) * self.run_stride.min(0);
        let src = Layout::new(
            &[rows, len],
            &[self.row_stride, self.run_stride],
            (-lowest) as usize,
        )
        .expect("a window of an addressed space is a valid layout");
        let dst = Layout::contiguous(&[rows, len]).expect("a window fits in memory");
        // SAFETY: the window's elements are elements of the space (rows `a0..a0 + rows`, all
        // of `len`), readable and initialized (contract); `lowest` is the offset of the
        // lowest of them from row `a0`'s first, so `src` addresses exactly them from
        // `origin`; `dst` is the dense buffer of `rows * len` elements, separate memory.
        unsafe {
            let origin = self.base.offset(a0 as isize * self.row_stride + lowest);
            copy_strided(origin, &src, self.buf.as_mut_ptr(), &dst);
        }
        self.start = a0 * len;
        self.end = (a0 + rows) * len;
    }

    /// Positions `lo..hi` (`hi - lo <= LEAF`, `lo` at or after the previous call's `lo`) in
    /// logical order.
    ///
    /// # Safety
    /// As [`Stager::stage`].
    unsafe fn leaf(&mut self, lo: usize, hi: usize) -> &[T] {
        if lo >= self.end {
            // SAFETY: forwarded.
            unsafe { self.stage(lo / self.len) };
        }
        if hi <= self.end {
            return &self.buf[lo - self.start..hi - self.start];
        }
        // A window holds at least LEAF positions, so the next one finishes the leaf.
        self.joined.clear();
        self.joined.extend_from_slice(&self.buf[lo - self.start..]);
        let end = self.end;
        // SAFETY: forwarded.
        unsafe { self.stage(end / self.len) };
        self.joined.extend_from_slice(&self.buf[..hi - end]);
        &self.joined
    }
}

/// The canonical reduction of one output's elements of `space` from `base`, through staged
/// windows.
///
/// # Safety
/// [`applies`] holds for `space`; every element of the space from `base` is readable and
/// initialized.
pub(super) unsafe fn reduce_one<T: Element, R: Reducer<T>>(
    r: &R,
    space: &Reduced,
    base: *const T,
) -> R::Acc {
    let (len, run_stride, _) = space.run;
    let mut st = Stager {
        base,
        rows: space.shape[0],
        row_stride: space.strides[0][0],
        len,
        run_stride,
        // Whole cache lines along `a` per step of `b`: at least 64 bytes of rows.
        per: (WINDOW / len).max(64 / size_of::<T>()),
        buf: Vec::new(),
        start: 0,
        end: 0,
        joined: Vec::new(),
    };
    // SAFETY: forwarded.
    unsafe { tree(r, &mut st, 0, space.len) }
}

/// The tree of `reduce.rs`'s `tree` over positions `lo..hi`, leaves from the stager, left to
/// right.
///
/// # Safety
/// As [`reduce_one`].
unsafe fn tree<T: Element, R: Reducer<T>>(
    r: &R,
    st: &mut Stager<T>,
    lo: usize,
    hi: usize,
) -> R::Acc {
    if hi - lo <= LEAF {
        // SAFETY: forwarded.
        let xs = unsafe { st.leaf(lo, hi) };
        let mut lanes = [[r.identity(); LANES]; 1];
        // Compiled for AVX2 where the CPU has it (the same operations either way).
        with_avx2(|| {
            // SAFETY: `xs` holds `hi - lo` initialized elements, positions `lo..hi` (the
            // logical index of position `p` is `p`: the space is row-major over its two
            // loops, `applies` checked).
            unsafe { fold_runs(r, &mut lanes, [xs.as_ptr()], 1, xs.len(), lo, 1, lo % LANES) }
        });
        return combine_lanes(r, lanes[0]);
    }
    let mid = split_point(lo, hi);
    // SAFETY: forwarded; left before right, as the stager needs.
    let left = unsafe { tree(r, st, lo, mid) };
    // SAFETY: forwarded.
    let right = unsafe { tree(r, st, mid, hi) };
    r.combine(left, right)
}

#[cfg(test)]
mod tests {
    use crate::iter::ReducePlan;
    use crate::kernels::reduce::reduce;
    use crate::kernels::reducers::{ArgExtreme, Sum};
    use crate::layout::Layout;
    use crate::storage::Storage;

    /// Reductions whose reduced dims run against the memory order (the staged path) give the
    /// bits of the same values stored in logical order (the plain path), across windows and
    /// leaves that straddle them, with offsets and flips.
    #[test]
    fn staged_windows_give_the_plain_paths_bits() {
        let shapes: &[[usize; 2]] = if cfg!(miri) {
            &[[3, 40], [9, 7]]
        } else {
            &[[3, 40], [9, 7], [37, 100], [2, 700], [600, 3], [40, 64]]
        };
        for &[a, b] in shapes {
            let n = a * b;
            let data: Vec<f32> = (0..n + 5)
                .map(|i| ((i * 7919) % 1013) as f32 * 0.37 - 150.0)
                .collect();
            // The logical [a, b] values stored column-major (offset 5), and the same values
            // row-major.
            let col = Layout::new(&[a, b], &[1, a as isize], 5).unwrap();
            let logical: Vec<f32> = (0..a)
                .flat_map(|i| (0..b).map(move |j| (i, j)))
                .map(|(i, j)| data[5 + i + j * a])
                .collect();
            let (sc, sr) = (
                Storage::from_slice(&data).unwrap(),
                Storage::from_slice(&logical).unwrap(),
            );
            let row = Layout::contiguous(&[a, b]).unwrap();
            let flipped = col.flip(0).unwrap().flip(1).unwrap();
            let flipped_logical: Vec<f32> = (0..a)
                .flat_map(|i| (0..b).map(move |j| (a - 1 - i, b - 1 - j)))
                .map(|(i, j)| logical[i * b + j])
                .collect();
            let sf = Storage::from_slice(&flipped_logical).unwrap();
            for (storage, layout, plain) in [(&sc, &col, &sr), (&sc, &flipped, &sf)] {
                let p = ReducePlan::new("sum", layout, &[0, 1], false).unwrap();
                let q = ReducePlan::new("sum", &row, &[0, 1], false).unwrap();
                let got = reduce(storage, layout, &p, &Sum).unwrap();
                let want = reduce(plain, &row, &q, &Sum).unwrap();
                assert_eq!(
                    got.as_slice()[0].to_bits(),
                    want.as_slice()[0].to_bits(),
                    "[{a}, {b}]"
                );
                let got = reduce(storage, layout, &p, &ArgExtreme::<true>).unwrap();
                let want = reduce(plain, &row, &q, &ArgExtreme::<true>).unwrap();
                assert_eq!(got.as_slice(), want.as_slice(), "argmax [{a}, {b}]");
            }
        }
    }
}
