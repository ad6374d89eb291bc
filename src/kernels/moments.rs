//! Variance and standard deviation along one dim.
//!
//! # Algorithm and order (Note [canonical order], `src/kernels/reduce.rs`)
//!
//! Each slice's result depends only on its logical values, never on the layout, the kernel
//! path, the thread count or the SIMD level. Its positions `0..n` along the dim are cut into
//! the canonical leaves of 512 ([`canonical`](super::canonical)). In a leaf of `k` elements
//! every element is shifted by the leaf's first element `c`, and the kernel sums `d = x - c`
//! and `d * d` (a product, then an addition: no fused multiply-add, on any path) in `f64`,
//! whatever the element type (as PyTorch does), position `i` in lane `i % 8`, the lanes then
//! combined by the canonical tree. The leaf's mean is `c + S / k` and its sum of squared
//! deviations `m2 = Q - S * (S / k)`; leaves are combined pairwise along the canonical tree
//! with Chan's parallel formula. Because `c` is one of the leaf's elements, `Q` is at most
//! `k + 1` times `m2`, so the cancellation costs at most a factor 513 of `f64` rounding: data
//! with mean `1e6` and spread 1 come out correct to about `1e-12` relative. Unlike Welford's
//! update there is no division per element, so the loops vectorise.
//!
//! The loops follow the *input's* memory order ([`DimPlan`] ordered by input strides):
//!
//! - **Line kernel** (the dim is innermost, e.g. variance over dim 1 of a row-major matrix):
//!   each slice is a line; [`GROUP_LINES`] lines are read side by side, which keeps more
//!   memory requests (and more independent additions) in flight than one line does.
//! - **Block kernel** (e.g. over dim 0): a chunk of slices side by side, so step `i` along
//!   the dim reads a whole row of input, folded into accumulator row `i % 8` of the leaf.
//!
//! As in the softmax kernel, an AVX2 + FMA compilation of the same code is chosen at run time
//! where the CPU has it (the same operations, so the same bits). Each output element is
//! computed by one thread.
//!
//! # Result
//!
//! With `n` elements the variance is `m2 / max(n - correction, 0)`: NaN when `n <=
//! correction` and `m2 == 0` (always for `n <= 1`, and over no elements), `+inf` when
//! `n < correction` with some spread (PyTorch's rule). NaN or infinite elements give NaN.

use num_traits::Float;

use crate::error::Result;
use crate::layout::Layout;
use crate::scalar::Numeric;
use crate::storage::Storage;

use super::canonical::{self, LANES};
use super::exp::has_avx2_fma;
use super::parallel::{SharedPtr, for_each_chunk, threads_for};
use super::scan::DimPlan;
use super::walk::for_run;

/// Slices the line kernel reduces side by side (more memory streams in flight).
const GROUP_LINES: usize = 4;
/// Most and fewest slices per chunk of the block kernel (its 16 accumulator rows of `f64`
/// stay in L2).
const MAX_CHUNK: usize = 2048;
const MIN_CHUNK: usize = 256;

/// What to compute from the moments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VarSpec {
    /// Subtracted from the count in the divisor (1: Bessel's correction).
    pub(crate) correction: usize,
    /// Standard deviation (the square root) rather than variance.
    pub(crate) sqrt: bool,
}

impl VarSpec {
    /// The result for `n` elements with sum of squared deviations `m2`.
    fn finish<T: Float>(self, n: f64, m2: f64) -> T {
        let var = m2 / (n - self.correction as f64).max(0.0);
        T::from(if self.sqrt { var.sqrt() } else { var }).unwrap_or_else(T::nan)
    }
}

/// A part of a slice: `(mean, sum of squared deviations)`; its count is its range's length.
type Part = (f64, f64);

/// A leaf of `k` elements shifted by `c`, with sums `s` of `x - c` and `q` of its square.
#[inline(always)]
fn leaf_part(k: usize, c: f64, s: f64, q: f64) -> Part {
    let d = s / k as f64;
    let m2 = q - s * d;
    (c + d, if m2 < 0.0 { 0.0 } else { m2 })
}

/// Two adjacent parts of `na` and `nb` elements combined (Chan's formula), `a` the earlier.
#[inline(always)]
fn chan(a: Part, b: Part, na: usize, nb: usize) -> Part {
    let (na, nb) = (na as f64, nb as f64);
    let f = nb / (na + nb);
    let delta = b.0 - a.0;
    (a.0 + delta * f, a.1 + b.1 + delta * delta * (na * f))
}

/// Variance (or standard deviation) of the elements `layout` addresses in `storage` along
/// `dim`, into a fresh storage for `out`: the keepdim result layout (dense, offset 0, the
/// shape of `layout` with `dim` of size 1).
///
/// # Errors
/// [`Error::Alloc`](crate::Error::Alloc) if the output cannot be allocated.
///
/// # Panics
/// If `layout` does not fit `storage` (the tensor invariant), `dim >= layout.ndim()`, or
/// `out` does not have the keepdim shape.
pub(crate) fn moments<T>(
    storage: &Storage<T>,
    layout: &Layout,
    dim: usize,
    out: &Layout,
    spec: VarSpec,
) -> Result<Storage<T>>
where
    T: Numeric + Float,
{
    moments_on(storage, layout, dim, out, spec, has_avx2_fma())
}

/// [`moments`] with the AVX2 + FMA variants if `fast` (which must then have been detected),
/// the portable code otherwise.
fn moments_on<T>(
    storage: &Storage<T>,
    layout: &Layout,
    dim: usize,
    out: &Layout,
    spec: VarSpec,
    fast: bool,
) -> Result<Storage<T>>
where
    T: Numeric + Float,
{
    assert!(
        layout.fits_in(storage.len()),
        "var: layout does not fit its storage"
    );
    assert!(dim < layout.ndim(), "var: dim out of range");
    let shape = layout.shape();
    let keep: Vec<usize> = (0..shape.len())
        .map(|d| if d == dim { 1 } else { shape[d] })
        .collect();
    assert_eq!(out.shape(), &keep[..], "var: output shape");
    let n_out = out.numel();
    let mut fresh = super::fresh::<T>("var", out.shape(), n_out)?;
    let y = fresh.as_mut_ptr();
    if layout.numel() == 0 {
        // Over no elements (the other dims being non-empty) every result is 0 / 0.
        let value = spec.finish::<T>(0.0, 0.0);
        for i in 0..n_out {
            // SAFETY: i < n_out, the fresh allocation's length (Storage invariant 2).
            unsafe { y.add(i).write(value) };
        }
    } else {
        let mut so = out.strides().to_vec();
        so[dim] = 0;
        let plan = DimPlan::new(shape, dim, layout.strides(), &so, layout.strides());
        // SAFETY: the layout has elements, so its offset is an addressed element, in bounds by
        // the fit checked above (the Tensor invariant).
        let x = unsafe { storage.as_ptr().add(layout.offset()) };
        // SAFETY: the plan's input strides are `layout`'s, regrouped and coalesced, so every
        // offset it forms from `x` is addressed by `layout` (in bounds, initialized by Storage
        // invariant 3, no overflow by Layout invariant 3); its output strides are the dense
        // `out`'s with 0 along `dim`, so each line and block index (a kept index) names one
        // of the `n_out` fresh elements (Storage invariant 2), each exactly once.
        unsafe { run(&plan, x, y, spec, fast) };
    }
    // SAFETY: Storage invariant 3 holds: every output element was written (once per kept
    // index, which covers the dense output, or by the fill loop).
    Ok(unsafe { fresh.assume_init() })
}

/// Runs a plan with at least one element.
///
/// # Safety
/// As in [`moments`]: every offset the plan forms from `x` is an addressed, initialized input
/// element; the output offsets of distinct kept indices are distinct elements of one fresh
/// allocation. If `fast`, the CPU has AVX2 and FMA.
unsafe fn run<T: Numeric + Float>(
    plan: &DimPlan,
    x: *const T,
    y: *mut T,
    spec: VarSpec,
    fast: bool,
) {
    let (lines, block) = (plan.lines(), plan.block());
    let threads = threads_for(lines * block * plan.len);
    let (x, y) = (SharedPtr(x), SharedPtr(y));
    if block == 1 {
        for_each_chunk(lines, threads, |range| {
            let mut o = range.start;
            while o < range.end {
                // Lines in groups of `GROUP_LINES` (their inputs stream in side by side); a
                // line's result is the same in a group or alone.
                let m = if range.end - o >= GROUP_LINES {
                    GROUP_LINES
                } else {
                    1
                };
                let offs: [[isize; 2]; GROUP_LINES] =
                    std::array::from_fn(|k| plan.line_base(o + k.min(m - 1)));
                let xs = offs.map(|b| x.get().wrapping_offset(b[0]));
                // SAFETY: lines `o..o + m` are below `lines`: their `len` elements are the
                // plan's (contract), and each output element is written by its line only;
                // `fast` was detected.
                unsafe {
                    if m == GROUP_LINES {
                        let v: [T; GROUP_LINES] = if fast {
                            lines_fast(plan, xs, spec)
                        } else {
                            lines_of::<T, false, GROUP_LINES>(plan, xs, spec)
                        };
                        for (b, v) in offs.iter().zip(v) {
                            y.get().offset(b[1]).write(v);
                        }
                    } else {
                        let [v] = if fast {
                            lines_fast(plan, [xs[0]], spec)
                        } else {
                            lines_of::<T, false, 1>(plan, [xs[0]], spec)
                        };
                        y.get().offset(offs[0][1]).write(v);
                    }
                }
                o += m;
            }
        });
    } else {
        let chunk = plan.chunk_len(MAX_CHUNK, MIN_CHUNK, threads);
        let per_line = block.div_ceil(chunk);
        for_each_chunk(lines * per_line, threads, |range| {
            let mut state = Chunk::default();
            for u in range {
                let (o, c) = (u / per_line, u % per_line);
                let j = c * chunk..((c + 1) * chunk).min(block);
                let b = plan.line_base(o);
                let (xl, yl) = (x.get().wrapping_offset(b[0]), y.get().wrapping_offset(b[1]));
                // SAFETY: line `o < lines` and block elements `j` are in the plan's ranges
                // (contract); units write disjoint outputs; `fast` was detected.
                unsafe {
                    if fast {
                        chunk_fast(plan, xl, yl, j, &mut state, spec)
                    } else {
                        chunk_of::<T>(plan, xl, yl, j, &mut state, spec)
                    }
                }
            }
        });
    }
}

/// [`lines_of`] compiled with AVX2 and FMA (without x86_64: the plain one, never chosen).
///
/// # Safety
/// As [`lines_of`]; on x86_64 the CPU must have AVX2 and FMA.
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2,fma"))]
unsafe fn lines_fast<T: Numeric + Float, const M: usize>(
    plan: &DimPlan,
    xs: [*const T; M],
    spec: VarSpec,
) -> [T; M] {
    // SAFETY: forwarded.
    unsafe { lines_of::<T, { cfg!(target_arch = "x86_64") }, M>(plan, xs, spec) }
}

/// [`chunk_of`] compiled with AVX2 and FMA (without x86_64: the plain one, never chosen).
///
/// # Safety
/// As [`chunk_of`]; on x86_64 the CPU must have AVX2 and FMA.
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2,fma"))]
unsafe fn chunk_fast<T: Numeric + Float>(
    plan: &DimPlan,
    x: *const T,
    y: *mut T,
    j: std::ops::Range<usize>,
    state: &mut Chunk,
    spec: VarSpec,
) {
    // SAFETY: forwarded.
    unsafe { chunk_of::<T>(plan, x, y, j, state, spec) }
}

/// The value of element `x` in `f64`.
#[inline(always)]
fn wide<T: Float>(x: T) -> f64 {
    x.to_f64().unwrap_or(f64::NAN)
}

/// The results for `M` slices along the dim: `len` elements from each of `xs` (step
/// `step[0]`), walked side by side, one leaf of each in turn. Each slice's result depends only
/// on its own elements (not on `M`).
///
/// # Safety
/// The `len` elements from each of `xs` are initialized input elements. If `AVX2`, the CPU
/// has AVX2 and FMA.
#[inline(always)]
unsafe fn lines_of<T: Numeric + Float, const AVX2: bool, const M: usize>(
    plan: &DimPlan,
    xs: [*const T; M],
    spec: VarSpec,
) -> [T; M] {
    let (len, sx) = (plan.len, plan.step[0]);
    let leaf = |lo: usize, hi: usize| -> [Part; M] {
        let k = hi - lo;
        // SAFETY: elements `lo..hi` of each slice (contract).
        let first = xs.map(|x| unsafe { x.offset(lo as isize * sx) });
        // SAFETY: as above (`k >= 1`).
        let c = first.map(|p| wide(unsafe { p.read() }));
        let sums: [(f64, f64); M] = if sx == 1 {
            // SAFETY: as above; contiguous.
            let rows = first.map(|p| unsafe { std::slice::from_raw_parts(p, k) });
            #[cfg(target_arch = "x86_64")]
            if AVX2 && T::DTYPE == crate::element::DType::F32 {
                // SAFETY: `T` is `f32`; `AVX2` is true only in `lines_fast`, which runs where
                // AVX2 and FMA were detected.
                let sums = unsafe {
                    avx2::shifted_sums(
                        rows.map(|r| std::slice::from_raw_parts(r.as_ptr().cast::<f32>(), k)),
                        c,
                    )
                };
                return std::array::from_fn(|r| leaf_part(k, c[r], sums[r].0, sums[r].1));
            }
            std::array::from_fn(|r| shifted_sums(rows[r], c[r]))
        } else {
            std::array::from_fn(|r| {
                let (mut s, mut q) = ([0.0f64; LANES], [0.0f64; LANES]);
                for i in 0..k {
                    // SAFETY: element `i < k` of the leaf.
                    let d = wide(unsafe { first[r].offset(i as isize * sx).read() }) - c[r];
                    s[i % LANES] += d;
                    q[i % LANES] += d * d;
                }
                (sum_lanes(s), sum_lanes(q))
            })
        };
        std::array::from_fn(|r| leaf_part(k, c[r], sums[r].0, sums[r].1))
    };
    let parts = canonical::tree(len, leaf, |a: [Part; M], b: [Part; M], na, nb| {
        std::array::from_fn(|r| chan(a[r], b[r], na, nb))
    });
    parts.map(|(_, m2)| spec.finish(len as f64, m2))
}

/// The canonical tree over a leaf's lanes, for sums.
#[inline(always)]
fn sum_lanes(l: [f64; LANES]) -> f64 {
    canonical::combine_lanes(l, |a, b| a + b)
}

/// The sums of `d = x - c` and of `d * d` over a contiguous leaf, position `i` in lane
/// `i % LANES`, the lanes then combined ([`sum_lanes`]).
#[inline(always)]
fn shifted_sums<T: Float>(xs: &[T], c: f64) -> (f64, f64) {
    let (mut s, mut q) = ([0.0f64; LANES], [0.0f64; LANES]);
    let mut chunks = xs.chunks_exact(LANES);
    for ch in &mut chunks {
        for l in 0..LANES {
            let d = wide(ch[l]) - c;
            s[l] += d;
            q[l] += d * d;
        }
    }
    for (l, &v) in chunks.remainder().iter().enumerate() {
        let d = wide(v) - c;
        s[l] += d;
        q[l] += d * d;
    }
    (sum_lanes(s), sum_lanes(q))
}

/// [`shifted_sums`] of `M` `f32` leaves of one length side by side, with AVX2 intrinsics: the
/// same lanes and the same operations in the same order (so the same bits), certain to run
/// four `f64` wide, with `4 * M` independent chains of additions.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{LANES, sum_lanes};

    /// See the [module docs](self).
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA; the rows have one length.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn shifted_sums<const M: usize>(
        rows: [&[f32]; M],
        c: [f64; M],
    ) -> [(f64, f64); M] {
        let k = rows[0].len();
        let full = k - k % LANES;
        let mut vc = [_mm256_setzero_pd(); M];
        for r in 0..M {
            vc[r] = _mm256_set1_pd(c[r]);
        }
        let mut s = [[_mm256_setzero_pd(); 2]; M];
        let mut q = [[_mm256_setzero_pd(); 2]; M];
        for i in (0..full).step_by(LANES) {
            for r in 0..M {
                debug_assert_eq!(rows[r].len(), k);
                // SAFETY: `i + LANES <= full <= k`: inside the row.
                let v = unsafe { _mm256_loadu_ps(rows[r].as_ptr().add(i)) };
                let d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), vc[r]);
                let d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps::<1>(v)), vc[r]);
                s[r][0] = _mm256_add_pd(s[r][0], d0);
                s[r][1] = _mm256_add_pd(s[r][1], d1);
                q[r][0] = _mm256_add_pd(q[r][0], _mm256_mul_pd(d0, d0));
                q[r][1] = _mm256_add_pd(q[r][1], _mm256_mul_pd(d1, d1));
            }
        }
        let mut out = [(0.0, 0.0); M];
        for r in 0..M {
            let (mut sl, mut ql) = ([0.0f64; LANES], [0.0f64; LANES]);
            for h in 0..2 {
                // SAFETY: four doubles each, inside the arrays.
                unsafe {
                    _mm256_storeu_pd(sl.as_mut_ptr().add(4 * h), s[r][h]);
                    _mm256_storeu_pd(ql.as_mut_ptr().add(4 * h), q[r][h]);
                }
            }
            for (l, &v) in rows[r][full..].iter().enumerate() {
                let d = v as f64 - c[r];
                sl[l] += d;
                ql[l] += d * d;
            }
            out[r] = (sum_lanes(sl), sum_lanes(ql));
        }
        out
    }
}

/// Per-slice buffers of a chunk of the block kernel, reused across units.
#[derive(Default)]
struct Chunk {
    /// Each slice's value of the current tree node.
    acc: Vec<Part>,
    /// The leaf's shifts.
    shift: Vec<f64>,
    /// The leaf's [`LANES`] accumulator rows of the sums of `d` and of `d * d`.
    s: Vec<f64>,
    q: Vec<f64>,
    /// The tree's right halves.
    stack: Vec<Vec<Part>>,
}

/// Slices `j` of the block of one line, side by side.
///
/// # Safety
/// Every offset the plan's dim and block loops form from `x` for block elements `j` is an
/// initialized input element; the output offsets they form from `y` (0 along the dim) are
/// writable, distinct for distinct block elements, and not overlapping the input.
#[inline(always)]
unsafe fn chunk_of<T: Numeric + Float>(
    plan: &DimPlan,
    x: *const T,
    y: *mut T,
    j: std::ops::Range<usize>,
    st: &mut Chunk,
    spec: VarSpec,
) {
    let (runs, [rx, ry]) = plan.runs(j.clone());
    let w = j.len();
    let (len, sx) = (plan.len, plan.step[0]);
    let Chunk {
        acc,
        shift,
        s,
        q,
        stack,
    } = st;
    acc.clear();
    acc.resize(w, (0.0, 0.0));
    shift.resize(w, 0.0);
    // SAFETY (for `row`): row `i < len` of a run of the chunk (contract).
    let row = |i: usize, ox: isize| unsafe { x.offset(i as isize * sx + ox) };
    let leaf = |lo: usize, hi: usize, part: &mut [Part]| {
        let mut at = 0;
        for &(ox, _, r) in &runs {
            // SAFETY: the leaf's first row of the run (contract).
            unsafe { for_run(row(lo, ox), rx, r, |l, v| shift[at + l] = wide(v)) };
            at += r;
        }
        for v in [&mut *s, &mut *q] {
            v.clear();
            v.resize(LANES * w, 0.0);
        }
        // Row `i` of the leaf into accumulator row `i % LANES`; each accumulator row takes
        // its rows of a block of `4 * LANES` in one pass (one load and store per four rows).
        let mut b = lo;
        while b < hi {
            let n_rows = (hi - b).min(4 * LANES);
            for (k, (sl, ql)) in s.chunks_exact_mut(w).zip(q.chunks_exact_mut(w)).enumerate() {
                let cnt = (0..4).filter(|&t| k + t * LANES < n_rows).count();
                let mine: [usize; 4] = std::array::from_fn(|t| b + k + t * LANES);
                let mut at = 0;
                for &(ox, _, r) in &runs {
                    let (c, sr, qr) =
                        (&shift[at..at + r], &mut sl[at..at + r], &mut ql[at..at + r]);
                    at += r;
                    if rx == 1 && cnt == 4 {
                        // SAFETY: four rows of `r` contiguous input elements (contract).
                        let [a0, a1, a2, a3] =
                            mine.map(|i| unsafe { std::slice::from_raw_parts(row(i, ox), r) });
                        for l in 0..r {
                            let (mut sv, mut qv) = (sr[l], qr[l]);
                            for v in [a0[l], a1[l], a2[l], a3[l]] {
                                let d = wide(v) - c[l];
                                sv += d;
                                qv += d * d;
                            }
                            (sr[l], qr[l]) = (sv, qv);
                        }
                    } else {
                        for &i in &mine[..cnt] {
                            // SAFETY: a row of the run (contract).
                            unsafe {
                                for_run(row(i, ox), rx, r, |l, v| {
                                    let d = wide(v) - c[l];
                                    sr[l] += d;
                                    qr[l] += d * d;
                                })
                            };
                        }
                    }
                }
            }
            b += n_rows;
        }
        // Accumulator row `k + width` into row `k` for width 4, 2, 1.
        for v in [&mut *s, &mut *q] {
            let mut width = LANES;
            while width > 1 {
                width /= 2;
                let (low, high) = v.split_at_mut(width * w);
                for (a, &b) in low.iter_mut().zip(&high[..width * w]) {
                    *a += b;
                }
            }
        }
        for (l, p) in part.iter_mut().enumerate() {
            *p = leaf_part(hi - lo, shift[l], s[l], q[l]);
        }
    };
    canonical::row_tree(
        len,
        acc,
        (0.0, 0.0),
        stack,
        leaf,
        |a: &mut [Part], b: &[Part], na, nb| {
            a.iter_mut()
                .zip(b)
                .for_each(|(a, &b)| *a = chan(*a, b, na, nb))
        },
    );
    let mut at = 0;
    for &(_, oy, r) in &runs {
        for l in 0..r {
            // SAFETY: the output element of block element `at + l` (contract).
            unsafe {
                y.offset(oy + l as isize * ry)
                    .write(spec.finish(len as f64, acc[at + l].1))
            };
        }
        at += r;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(data: &[f64], layout: &Layout, dim: usize, correction: usize) -> Vec<f64> {
        let s = Storage::from_slice(data).unwrap();
        let mut keep = layout.shape().to_vec();
        keep[dim] = 1;
        let out = Layout::contiguous(&keep).unwrap();
        let spec = VarSpec {
            correction,
            sqrt: false,
        };
        moments(&s, layout, dim, &out, spec)
            .unwrap()
            .as_slice()
            .to_vec()
    }

    fn naive(xs: &[f64], correction: usize) -> f64 {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - correction as f64)
    }

    #[test]
    #[cfg_attr(miri, ignore = "14K-element variances: minutes under Miri")]
    fn lines_and_blocks_match_the_definition_far_from_zero() {
        let (r, c) = (1100, 13); // more than one shift run along dim 0
        let data: Vec<f64> = (0..r * c)
            .map(|i| 1e6 + ((i * 7919) % 1009) as f64 / 500.0)
            .collect();
        let m = Layout::contiguous(&[r, c]).unwrap();
        let cols = var(&data, &m, 0, 1);
        for j in 0..c {
            let col: Vec<f64> = (0..r).map(|i| data[i * c + j]).collect();
            let want = naive(&col, 1);
            assert!(
                ((cols[j] - want) / want).abs() < 1e-11,
                "{} vs {want}",
                cols[j]
            );
        }
        let t = m.t().unwrap(); // [13, 1100]: dim 1 is the contiguous one
        let rows = var(&data, &t, 1, 0);
        for j in 0..c {
            let col: Vec<f64> = (0..r).map(|i| data[i * c + j]).collect();
            let want = naive(&col, 0);
            assert!(((rows[j] - want) / want).abs() < 1e-11);
        }
        // Strided lines: a stepped view.
        let s = m.slice(1, 0, 13, 3).unwrap().t().unwrap(); // [5, 1100], strides [3, 13]
        let v = var(&data, &s, 1, 1);
        assert!(((v[1] - cols[3]) / cols[3]).abs() < 1e-11);
    }

    #[test]
    #[cfg_attr(miri, ignore = "10K-element variances: minutes under Miri")]
    fn portable_code_matches_the_fast_variants() {
        let (r, c) = (9, 1111);
        let data: Vec<f32> = (0..r * c)
            .map(|i| 1e4 + ((i * 7919) % 1013) as f32 * 0.1)
            .collect();
        let s = Storage::from_slice(&data).unwrap();
        let m = Layout::contiguous(&[r, c]).unwrap();
        for (l, dim) in [(m.clone(), 1), (m.clone(), 0), (m.t().unwrap(), 0)] {
            let mut keep = l.shape().to_vec();
            keep[dim] = 1;
            let out = Layout::contiguous(&keep).unwrap();
            let spec = VarSpec {
                correction: 1,
                sqrt: false,
            };
            let slow = moments_on(&s, &l, dim, &out, spec, false).unwrap();
            let fast = moments(&s, &l, dim, &out, spec).unwrap();
            // The same bits (Note [canonical order]).
            let bits =
                |s: &Storage<f32>| s.as_slice().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&slow), bits(&fast));
        }
    }

    #[test]
    fn counts_at_or_below_the_correction() {
        let m = Layout::contiguous(&[2, 1]).unwrap();
        let v = var(&[1.0, 2.0], &m, 1, 1);
        assert!(v.iter().all(|x| x.is_nan()));
        let v = var(&[1.0, 2.0], &Layout::contiguous(&[2]).unwrap(), 0, 3);
        assert_eq!(v, vec![f64::INFINITY]);
        let e = Layout::contiguous(&[3, 0]).unwrap();
        assert!(var(&[], &e, 1, 0).iter().all(|x| x.is_nan()));
    }
}
