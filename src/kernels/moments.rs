//! Variance and standard deviation along one dim.
//!
//! # Algorithm
//!
//! Elements are taken in runs of at most [`SHIFT_RUN`] along the dim. Within a run every
//! element is shifted by the run's first element `c` and the kernel sums `d = x - c` and `d^2`
//! in `f64` (whatever the element type, as PyTorch does); the run's count, mean and sum of
//! squared deviations (`m2 = sum(d^2) - sum(d)^2 / k`) are then merged into the slice's with
//! Chan's parallel formula. Because `c` is one of the run's elements, `sum(d^2)` is at most
//! `k + 1` times `m2` for a run of `k`, so the cancellation costs at most a factor `k + 1` of
//! `f64` rounding: data with mean `1e6` and spread 1 come out correct to about `1e-12`
//! relative. Unlike Welford's update there is no division per element, so the loops
//! vectorise.
//!
//! The loops follow the *input's* memory order ([`DimPlan`] ordered by input strides):
//!
//! - **Line kernel** (the dim is innermost, e.g. variance over dim 1 of a row-major matrix):
//!   each slice is a line, its runs folded into [`LANES`] lanes; [`GROUP_LINES`] lines are
//!   read side by side, which keeps more memory requests in flight than one stream does.
//! - **Block kernel** (e.g. over dim 0): a chunk of slices side by side, each with its shift
//!   and sums, so step `i` along the dim reads a whole row of input.
//!
//! As in the softmax kernel, an AVX2 + FMA compilation of the same code is chosen at run time
//! where the CPU has it. Each output element is computed by one thread in an order fixed by
//! the plan: results do not depend on the number of threads.
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

use super::exp::has_avx2_fma;
use super::parallel::{SharedPtr, for_each_chunk, threads_for};
use super::scan::DimPlan;

/// Most elements shifted by one run's first element before merging (see the module docs).
const SHIFT_RUN: usize = 512;
/// Independent lanes per slice of the line kernel (element `i` of a run goes to lane
/// `i % LANES`): four vectors of `f64` for each sum, enough to hide the latency of the adds.
const LANES: usize = 16;
/// Slices the line kernel reduces side by side (more memory streams in flight).
const GROUP_LINES: usize = 4;
/// Most and fewest slices per chunk of the block kernel (six `f64` arrays of that length
/// stay in L2).
const MAX_CHUNK: usize = 4096;
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

/// `a * b + c`, fused when `FMA`.
#[inline(always)]
fn mul_add<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

/// Merges a run of `k` elements with shift `c` and sums `s`, `q` (of `x - c` and its square)
/// into a slice's `(mean, m2)` over `n` earlier elements (Chan's formula; `n = 0` works).
#[inline(always)]
fn merge(mean: &mut f64, m2: &mut f64, n: f64, k: f64, c: f64, s: f64, q: f64) {
    let d = s / k;
    let run_m2 = q - s * d;
    let run_m2 = if run_m2 < 0.0 { 0.0 } else { run_m2 };
    let total = n + k;
    let delta = (c + d) - *mean;
    *mean += delta * (k / total);
    *m2 += run_m2 + delta * delta * (n * (k / total));
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
                        chunk_of::<T, false>(plan, xl, yl, j, &mut state, spec)
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
    unsafe { chunk_of::<T, { cfg!(target_arch = "x86_64") }>(plan, x, y, j, state, spec) }
}

/// The value of element `x` in `f64`.
#[inline(always)]
fn wide<T: Float>(x: T) -> f64 {
    x.to_f64().unwrap_or(f64::NAN)
}

/// The results for `M` slices along the dim: `len` elements from each of `xs` (step
/// `step[0]`), walked side by side, one run of [`SHIFT_RUN`] elements of each in turn. Each
/// slice's result depends only on its own elements (not on `M`).
///
/// # Safety
/// The `len` elements from each of `xs` are initialized input elements.
#[inline(always)]
unsafe fn lines_of<T: Numeric + Float, const FMA: bool, const M: usize>(
    plan: &DimPlan,
    xs: [*const T; M],
    spec: VarSpec,
) -> [T; M] {
    let (len, sx) = (plan.len, plan.step[0]);
    let (mut mean, mut m2, mut n) = ([0.0; M], [0.0; M], 0.0);
    let mut start = 0;
    while start < len {
        let k = SHIFT_RUN.min(len - start);
        // SAFETY: elements `start..start + k` of each slice (contract).
        let first = xs.map(|x| unsafe { x.offset(start as isize * sx) });
        // SAFETY: as above (`k >= 1`).
        let c = first.map(|p| wide(unsafe { p.read() }));
        let mut sums = [(0.0, 0.0); M];
        for r in 0..M {
            sums[r] = if sx == 1 {
                // SAFETY: as above; contiguous.
                let row = unsafe { std::slice::from_raw_parts(first[r], k) };
                #[cfg(target_arch = "x86_64")]
                if FMA && T::DTYPE == crate::element::DType::F32 {
                    // SAFETY: `T` is `f32`; `FMA` is true only in `lines_fast`, which runs
                    // where AVX2 and FMA were detected.
                    sums[r] = unsafe {
                        avx2::shifted_sums(
                            std::slice::from_raw_parts(row.as_ptr().cast::<f32>(), k),
                            c[r],
                        )
                    };
                    continue;
                }
                shifted_sums::<T, FMA>(row, c[r])
            } else {
                let (mut s, mut q) = ([0.0f64; LANES], [0.0f64; LANES]);
                for i in 0..k {
                    // SAFETY: element `i < k` of the run.
                    let d = wide(unsafe { first[r].offset(i as isize * sx).read() }) - c[r];
                    s[i % LANES] += d;
                    q[i % LANES] = mul_add::<FMA>(d, d, q[i % LANES]);
                }
                (pairwise(s), pairwise(q))
            };
        }
        for r in 0..M {
            let (sr, qr) = sums[r];
            merge(&mut mean[r], &mut m2[r], n, k as f64, c[r], sr, qr);
        }
        n += k as f64;
        start += k;
    }
    m2.map(|m2| spec.finish(n, m2))
}

/// The sums of `d = x - c` and of `d^2` over a contiguous run, in [`LANES`] lanes summed
/// [`pairwise`].
#[inline(always)]
fn shifted_sums<T: Float, const FMA: bool>(xs: &[T], c: f64) -> (f64, f64) {
    let (mut s, mut q) = ([0.0f64; LANES], [0.0f64; LANES]);
    let mut chunks = xs.chunks_exact(LANES);
    for ch in &mut chunks {
        for l in 0..LANES {
            let d = wide(ch[l]) - c;
            s[l] += d;
            q[l] = mul_add::<FMA>(d, d, q[l]);
        }
    }
    for (l, &v) in chunks.remainder().iter().enumerate() {
        let d = wide(v) - c;
        s[l] += d;
        q[l] = mul_add::<FMA>(d, d, q[l]);
    }
    (pairwise(s), pairwise(q))
}

/// [`shifted_sums`] of `f32` runs with AVX2 and FMA intrinsics: the same lanes and the same
/// operations in the same order (so the same results), certain to run four `f64` wide.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{LANES, pairwise};

    /// See the [module docs](self).
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn shifted_sums(xs: &[f32], c: f64) -> (f64, f64) {
        let vc = _mm256_set1_pd(c);
        let mut s = [_mm256_setzero_pd(); 4];
        let mut q = [_mm256_setzero_pd(); 4];
        let full = xs.len() - xs.len() % LANES;
        for i in (0..full).step_by(LANES) {
            // SAFETY: `i + 16 <= full <= len`: inside the slice.
            let (v0, v1) = unsafe {
                (
                    _mm256_loadu_ps(xs.as_ptr().add(i)),
                    _mm256_loadu_ps(xs.as_ptr().add(i + 8)),
                )
            };
            let d = [
                _mm256_cvtps_pd(_mm256_castps256_ps128(v0)),
                _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(v0)),
                _mm256_cvtps_pd(_mm256_castps256_ps128(v1)),
                _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(v1)),
            ]
            .map(|x| _mm256_sub_pd(x, vc));
            for k in 0..4 {
                s[k] = _mm256_add_pd(s[k], d[k]);
                q[k] = _mm256_fmadd_pd(d[k], d[k], q[k]);
            }
        }
        let (mut sl, mut ql) = ([0.0f64; LANES], [0.0f64; LANES]);
        for k in 0..4 {
            // SAFETY: four doubles each, inside the arrays.
            unsafe {
                _mm256_storeu_pd(sl.as_mut_ptr().add(4 * k), s[k]);
                _mm256_storeu_pd(ql.as_mut_ptr().add(4 * k), q[k]);
            }
        }
        for (l, &v) in xs[full..].iter().enumerate() {
            let d = v as f64 - c;
            sl[l] += d;
            ql[l] = d.mul_add(d, ql[l]);
        }
        (pairwise(sl), pairwise(ql))
    }
}

/// The lanes summed pairwise.
#[inline(always)]
fn pairwise(mut l: [f64; LANES]) -> f64 {
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            l[k] += l[k + width];
        }
    }
    l[0]
}

/// Per-slice state of a chunk of the block kernel, reused across units.
#[derive(Default)]
struct Chunk {
    mean: Vec<f64>,
    m2: Vec<f64>,
    shift: Vec<f64>,
    s: Vec<f64>,
    q: Vec<f64>,
}

/// Slices `j` of the block of one line, side by side.
///
/// # Safety
/// Every offset the plan's dim and block loops form from `x` for block elements `j` is an
/// initialized input element; the output offsets they form from `y` (0 along the dim) are
/// writable, distinct for distinct block elements, and not overlapping the input.
#[inline(always)]
unsafe fn chunk_of<T: Numeric + Float, const FMA: bool>(
    plan: &DimPlan,
    x: *const T,
    y: *mut T,
    j: std::ops::Range<usize>,
    st: &mut Chunk,
    spec: VarSpec,
) {
    let (runs, [rx, ry]) = plan.runs(j.clone());
    let w = j.len();
    for v in [
        &mut st.mean,
        &mut st.m2,
        &mut st.shift,
        &mut st.s,
        &mut st.q,
    ] {
        v.clear();
        v.resize(w, 0.0);
    }
    let (len, sx) = (plan.len, plan.step[0]);
    let mut n = 0.0;
    let mut start = 0;
    while start < len {
        let k = SHIFT_RUN.min(len - start);
        // The run's first row sets the shifts; the others are taken four at a time, so each
        // state is loaded and stored once per four rows (the same additions in the same order
        // as row by row).
        let mut i = start;
        while i < start + k {
            let g = if i == start { 1 } else { 4.min(start + k - i) };
            let mut at = 0;
            for &(ox, _, r) in &runs {
                let (c, s, q) = (
                    &mut st.shift[at..at + r],
                    &mut st.s[at..at + r],
                    &mut st.q[at..at + r],
                );
                at += r;
                // SAFETY: steps `i..i + g` of the run's `r` input elements (contract).
                let xr: [*const T; 4] = std::array::from_fn(|t| unsafe {
                    x.offset((i + t.min(g - 1)) as isize * sx + ox)
                });
                if rx == 1 {
                    // SAFETY: as above; contiguous.
                    let xs = xr.map(|p| unsafe { std::slice::from_raw_parts(p, r) });
                    if i == start {
                        c.iter_mut().zip(xs[0]).for_each(|(c, &v)| *c = wide(v));
                    }
                    if g == 4 {
                        let rows = xs[0].iter().zip(xs[1]).zip(xs[2]).zip(xs[3]);
                        let states = s.iter_mut().zip(q.iter_mut()).zip(&*c);
                        for (((s, q), &c), (((&a, &b), &e), &f)) in states.zip(rows) {
                            let (mut sv, mut qv) = (*s, *q);
                            for v in [a, b, e, f] {
                                let d = wide(v) - c;
                                sv += d;
                                qv = mul_add::<FMA>(d, d, qv);
                            }
                            (*s, *q) = (sv, qv);
                        }
                    } else {
                        for row in &xs[..g] {
                            let states = s.iter_mut().zip(q.iter_mut()).zip(&*c);
                            for (((s, q), &c), &v) in states.zip(*row) {
                                let d = wide(v) - c;
                                *s += d;
                                *q = mul_add::<FMA>(d, d, *q);
                            }
                        }
                    }
                } else {
                    for (t, &p) in xr[..g].iter().enumerate() {
                        let states = s.iter_mut().zip(q.iter_mut()).zip(c.iter_mut());
                        for (l, ((s, q), c)) in states.enumerate() {
                            // SAFETY: element `l < r` of the run.
                            let v = wide(unsafe { p.offset(l as isize * rx).read() });
                            if i == start && t == 0 {
                                *c = v;
                            }
                            let d = v - *c;
                            *s += d;
                            *q = mul_add::<FMA>(d, d, *q);
                        }
                    }
                }
            }
            i += g;
        }
        for l in 0..w {
            merge(
                &mut st.mean[l],
                &mut st.m2[l],
                n,
                k as f64,
                st.shift[l],
                st.s[l],
                st.q[l],
            );
            (st.s[l], st.q[l]) = (0.0, 0.0);
        }
        n += k as f64;
        start += k;
    }
    let mut at = 0;
    for &(_, oy, r) in &runs {
        for l in 0..r {
            // SAFETY: the output element of block element `at + l` (contract).
            unsafe {
                y.offset(oy + l as isize * ry)
                    .write(spec.finish(n, st.m2[at + l]))
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
            for (a, b) in slow.as_slice().iter().zip(fast.as_slice()) {
                assert!((a - b).abs() <= 1e-6 * b.abs(), "{a} vs {b}");
            }
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
