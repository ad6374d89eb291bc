//! The block kernel: a chunk of slices side by side (softmax over dim 0 of a row-major
//! matrix), each row along the dim read as runs of the chunk's slices: the maxima, the sums of
//! `e^(x - max)` in the canonical order ([`LANES`] accumulator rows, leaves of
//! [`LEAF`](canonical::LEAF) rows combined pairwise), then the output rows (see the [parent
//! module](super)).

use super::*;
use crate::kernels::walk::for_run;

/// Per-chunk buffers, reused across units: each slice's max and sum, the leaf's accumulator
/// rows, and the tree's right halves.
pub(super) struct ChunkState<A> {
    m: Vec<A>,
    s: Vec<A>,
    lanes: Vec<A>,
    stack: Vec<Vec<A>>,
}

impl<A> Default for ChunkState<A> {
    fn default() -> Self {
        ChunkState {
            m: Vec::new(),
            s: Vec::new(),
            lanes: Vec::new(),
            stack: Vec::new(),
        }
    }
}

/// Slices `j` of the block of one line, side by side.
///
/// # Safety
/// Every offset the plan's dim and block loops form from `x` (from `y`) for block elements
/// `j` is an initialized input element (a writable output element, each formed once, not
/// overlapping the input).
#[inline(always)]
pub(super) unsafe fn chunk_of<T, C>(
    plan: &DimPlan,
    x: *const T,
    y: *mut T,
    j: std::ops::Range<usize>,
    state: &mut ChunkState<C>,
    log: bool,
) where
    T: Element + Float,
    C: Float,
{
    let (runs, [rx, ry]) = plan.runs(j.clone());
    let w = j.len();
    let ChunkState {
        m: ms,
        s: ss,
        lanes,
        stack,
    } = state;
    ms.clear();
    ms.resize(w, C::neg_infinity());
    ss.clear();
    ss.resize(w, C::zero());
    let [sx, sy] = plan.step;
    // Softmax of contiguous runs in the element type stores each `e^(x - m)` of the sum in
    // the output and scales it afterwards (one exponential per element).
    let store = !log && rx == 1 && ry == 1 && T::DTYPE.size() == std::mem::size_of::<C>();
    // SAFETY (for `row_x`, `row_y`): row `i < plan.len` of a run of the chunk, so the pointer
    // is one of the plan's input (output) elements (contract).
    let row_x = |i: usize, ox: isize| unsafe { x.offset(i as isize * sx + ox) };
    let row_y = |i: usize, oy: isize| unsafe { y.offset(i as isize * sy + oy) };
    // The maxima, NaN skipped (`v > m ? v : m`).
    for i in 0..plan.len {
        let mut k0 = 0;
        for &(ox, _, n) in &runs {
            let mr = &mut ms[k0..k0 + n];
            k0 += n;
            // SAFETY: a row of the run (contract).
            unsafe {
                for_run(row_x(i, ox), rx, n, |k, v| {
                    let v = up::<T, C>(v);
                    mr[k] = if v > mr[k] { v } else { mr[k] };
                })
            };
        }
    }
    // The sums: row `i` of a leaf into accumulator row `i % LANES`. Each accumulator row takes
    // its rows of a block of `4 * LANES` in one pass (one load and store per four rows).
    let leaf = |lo: usize, hi: usize, acc: &mut [C]| {
        lanes.clear();
        lanes.resize(LANES * w, C::zero());
        let mut b = lo;
        while b < hi {
            let n_rows = (hi - b).min(4 * LANES);
            for (k, lane) in lanes.chunks_exact_mut(w).enumerate() {
                // Rows `k`, `k + LANES`, ... of the block, the first `cnt` of them present.
                let cnt = (0..4).filter(|&t| k + t * LANES < n_rows).count();
                let mine: [usize; 4] = std::array::from_fn(|t| b + k + t * LANES);
                let mut k0 = 0;
                for &(ox, oy, n) in &runs {
                    let (lr, mr) = (&mut lane[k0..k0 + n], &ms[k0..k0 + n]);
                    k0 += n;
                    let e = |v: T, m: C| exp_acc_nonpos::<C, true>(up::<T, C>(v) - m);
                    if rx == 1 && cnt == 4 {
                        // SAFETY: four rows of `n` contiguous input elements (contract).
                        let [a0, a1, a2, a3] = [0, 1, 2, 3]
                            .map(|t| unsafe { std::slice::from_raw_parts(row_x(mine[t], ox), n) });
                        if store {
                            // SAFETY: four distinct rows of `n` contiguous output elements.
                            let [o0, o1, o2, o3] = [0, 1, 2, 3].map(|t| unsafe {
                                std::slice::from_raw_parts_mut(
                                    row_y(mine[t], oy).cast::<MaybeUninit<T>>(),
                                    n,
                                )
                            });
                            for c in 0..n {
                                let m = mr[c];
                                let (e0, e1, e2, e3) =
                                    (e(a0[c], m), e(a1[c], m), e(a2[c], m), e(a3[c], m));
                                lr[c] = lr[c] + e0 + e1 + e2 + e3;
                                o0[c].write(down(e0));
                                o1[c].write(down(e1));
                                o2[c].write(down(e2));
                                o3[c].write(down(e3));
                            }
                        } else {
                            for c in 0..n {
                                let m = mr[c];
                                lr[c] =
                                    lr[c] + e(a0[c], m) + e(a1[c], m) + e(a2[c], m) + e(a3[c], m);
                            }
                        }
                    } else {
                        for &i in &mine[..cnt] {
                            // SAFETY: a row of the run each side (contract).
                            unsafe {
                                let q = row_y(i, oy);
                                for_run(row_x(i, ox), rx, n, |c, v| {
                                    let ev = e(v, mr[c]);
                                    lr[c] = lr[c] + ev;
                                    if store {
                                        q.add(c).write(down(ev));
                                    }
                                })
                            };
                        }
                    }
                }
            }
            b += n_rows;
        }
        // Accumulator row `k + width` into row `k` for width 4, 2, 1.
        let mut width = LANES;
        while width > 1 {
            width /= 2;
            let (low, high) = lanes.split_at_mut(width * w);
            for (a, &b) in low.iter_mut().zip(&high[..width * w]) {
                *a = *a + b;
            }
        }
        acc.copy_from_slice(&lanes[..w]);
    };
    canonical::row_tree(
        plan.len,
        ss,
        C::zero(),
        stack,
        leaf,
        |a: &mut [C], b: &[C], _, _| a.iter_mut().zip(b).for_each(|(a, &b)| *a = *a + b),
    );
    for (m, s) in ms.iter().zip(ss.iter_mut()) {
        *s = finish(*m, *s, log);
    }
    for i in 0..plan.len {
        let mut k0 = 0;
        for &(ox, oy, n) in &runs {
            let (m, f) = (&ms[k0..k0 + n], &ss[k0..k0 + n]);
            k0 += n;
            if store {
                // SAFETY: a row of `n` contiguous output elements, all written by the sums.
                let ys = unsafe { std::slice::from_raw_parts_mut(row_y(i, oy), n) };
                for (o, &f) in ys.iter_mut().zip(f) {
                    *o = down(up::<T, C>(*o) * f);
                }
            } else if rx == 1 && ry == 1 {
                // SAFETY: a row of `n` contiguous elements each side, not overlapping.
                let (xs, ys) = unsafe {
                    (
                        std::slice::from_raw_parts(row_x(i, ox), n),
                        std::slice::from_raw_parts_mut(row_y(i, oy).cast::<MaybeUninit<T>>(), n),
                    )
                };
                for (((o, &v), &m), &f) in ys.iter_mut().zip(xs).zip(m).zip(f) {
                    o.write(output::<T, C>(v, m, f, log));
                }
            } else {
                let q = row_y(i, oy);
                // SAFETY: a row of the run each side (contract).
                unsafe {
                    for_run(row_x(i, ox), rx, n, |c, v| {
                        q.offset(c as isize * ry)
                            .write(output::<T, C>(v, m[c], f[c], log))
                    })
                };
            }
        }
    }
}
