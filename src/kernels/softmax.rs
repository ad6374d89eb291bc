//! Softmax and log-softmax along one dim: per slice, the statistics, then the output.
//!
//! A slice's statistics are `(m, s)`: its max and the sum of `e^(x - m)`. They combine
//! associatively ([`lse_combine`]: the smaller max's sum is rescaled by `e^(small - large)`),
//! so they can be accumulated online, in one read. The output is then `e^(x - m) / s` (or
//! `(x - m) - ln s`), read and written in a second loop over the slice. Both loops run back to
//! back on one slice (or on a chunk of slices side by side): the op reads its input twice and
//! writes once, and for slices that fit in cache the second read hits it. Elements compute in
//! `f32` (`f32`, `f16`, `bf16`) or `f64` (`f64`), with the vectorisable exponential of
//! [`super::exp`].
//!
//! The loops follow the output's memory order ([`DimPlan`]), the output being laid out by the
//! elementwise output layout rule (`src/iter/output.rs`):
//!
//! - **Line kernel** (the dim is innermost in memory, e.g. softmax over the last dim of a
//!   row-major matrix): each slice is one line. Its statistics come from [`LANES`]
//!   independent lanes; per block of `LANES * BLOCK_STEPS` elements each lane first takes the
//!   block's max, rescales its sum once, then adds `e^(x - max)` for its elements: one
//!   exponential per element and no per-element comparison.
//! - **Block kernel** (e.g. softmax over dim 0 of a row-major matrix): a chunk of slices side
//!   by side, each with its running `(m, s)`. The rows along the dim are taken in groups of
//!   [`GROUP`]: the group's max per slice first (one rescale per slice and group), then its
//!   exponentials, the group's rows read again from cache; every loop runs along a row of
//!   slices (four rows per pass), which the compiler vectorises. A second walk writes the
//!   output rows. Chunks are wide (whole rows of a matrix, up to [`MAX_CHUNK`] slices) so both
//!   walks read long sequential runs: measured, that beats narrow chunks whose input would stay
//!   in cache between the walks but is read in short strided pieces.
//!
//! **One exponential per element.** For softmax of `f32` or `f64` with contiguous slices,
//! each `e^(x - base)` computed for the sum (`base` being the lane's block max, or the
//! group's max) is also stored in the output, and the output loop multiplies it by
//! `e^(base - m) / s`, one factor per lane and block (per slice and group): half the
//! exponentials of computing `e^(x - m)` again. Log-softmax needs none in its output loop.
//!
//! On x86_64 CPUs with AVX2 and FMA the same code is compiled a second time with those
//! features and chosen at run time ([`has_avx2_fma`]), and the `f32` line kernel is written
//! with intrinsics (`mod avx2`), because the compiler's vectorisation of its lanes proved
//! fragile. Each output element is computed by one thread in an order fixed by the plan, so
//! results do not depend on the number of threads.
//!
//! # Special values
//!
//! A slice containing NaN or `+inf` gives NaN throughout; one of only `-inf` gives NaN too
//! (`-inf - -inf`); `-inf` elements of other slices give 0 (`-inf` for log-softmax). These
//! are PyTorch's answers.

use std::mem::MaybeUninit;

use num_traits::Float;

use crate::element::{DType, Element};
use crate::error::Result;
use crate::iter::output::output_strides;
use crate::layout::Layout;
use crate::storage::Storage;

use super::exp::{exp_acc_nonpos, has_avx2_fma};
use super::parallel::{for_each_chunk, threads_for, SharedPtr};
use super::scan::DimPlan;

/// Independent lanes of the line kernel's statistics.
const LANES: usize = 8;
/// Chunks of [`LANES`] elements per block of the line kernel (one max, one rescale per lane).
const BLOCK_STEPS: usize = 16;
/// Most slices per chunk of the block kernel: long rows of input per step (sequential
/// reads), with the chunk's states (two accumulators per slice) still in L2.
const MAX_CHUNK: usize = 8192;
/// Fewest slices per chunk when chunks are narrowed to give threads work.
const MIN_CHUNK: usize = 256;

/// Combines two states `(max, sum of e^(x - max))`, `a` covering earlier elements than `b`:
/// the smaller max's sum is rescaled by `e^(smaller - larger)`. One exponential, no branch.
/// Equal maxima (including two infinities of one sign) rescale by 1, which keeps `-inf`
/// slices finite; a NaN element makes the sum NaN (and stays out of the max).
#[inline(always)]
pub(crate) fn lse_combine<A: Float, const FMA: bool>(a: (A, A), b: (A, A)) -> (A, A) {
    let b_wins = b.0 > a.0;
    // The larger max, NaN dropped (`maxnum`; a NaN is carried by the sum instead). Written
    // as a select of `a.0`, a loop updating states in place would compile it to a masked
    // store, which is slow on AMD CPUs.
    let hi_m = a.0.max(b.0);
    let lo_m = if b_wins { a.0 } else { b.0 };
    let hi_s = if b_wins { b.1 } else { a.1 };
    let lo_s = if b_wins { a.1 } else { b.1 };
    let e = exp_acc_nonpos::<A, FMA>(lo_m - hi_m);
    let e = if lo_m == hi_m { A::one() } else { e };
    (hi_m, hi_s + lo_s * e)
}

/// Softmax (or, with `log`, log-softmax) of the elements `layout` addresses in `storage`
/// along `dim`, into a fresh storage laid out by the elementwise output layout rule.
///
/// # Errors
/// [`Error::Alloc`](crate::Error::Alloc) if the output cannot be allocated;
/// [`Error::Overflow`](crate::Error::Overflow) only for an empty layout too large for
/// row-major strides.
///
/// # Panics
/// If `layout` does not fit `storage` (the tensor invariant) or `dim >= layout.ndim()`.
pub(crate) fn softmax<T>(
    storage: &Storage<T>,
    layout: &Layout,
    dim: usize,
    log: bool,
) -> Result<(Storage<T>, Layout)>
where
    T: Element + Float,
{
    softmax_on(storage, layout, dim, log, has_avx2_fma())
}

/// [`softmax`] with the AVX2 + FMA variants if `fast` (which must then have been detected),
/// the portable code otherwise.
fn softmax_on<T>(
    storage: &Storage<T>,
    layout: &Layout,
    dim: usize,
    log: bool,
    fast: bool,
) -> Result<(Storage<T>, Layout)>
where
    T: Element + Float,
{
    assert!(
        layout.fits_in(storage.len()),
        "softmax: layout does not fit its storage"
    );
    assert!(dim < layout.ndim(), "softmax: dim out of range");
    let shape = layout.shape();
    let out_layout = Layout::new(
        shape,
        &output_strides(shape, &[layout.strides().to_vec()]),
        0,
    )?;
    let n = out_layout.numel();
    let mut fresh = super::fresh::<T>("softmax", shape, n)?;
    if n > 0 {
        let so = out_layout.strides();
        let plan = DimPlan::new(shape, dim, layout.strides(), so, so);
        // SAFETY: the layout has elements, so its offset is an addressed element, in bounds by
        // the fit checked above (the Tensor invariant).
        let input = unsafe { storage.as_ptr().add(layout.offset()) };
        // SAFETY: the plan's input strides are `layout`'s, regrouped and coalesced, so every
        // offset it forms from `input` is addressed by `layout` (in bounds, initialized by
        // Storage invariant 3, no overflow by Layout invariant 3); its output strides are the
        // dense `out_layout`'s (positive, offset 0: Note [output layout]), which address each
        // of the `n` fresh elements (Storage invariant 2) exactly once.
        unsafe {
            match T::DTYPE {
                DType::F64 => run::<T, f64>(&plan, input, fresh.as_mut_ptr(), log, fast),
                _ => run::<T, f32>(&plan, input, fresh.as_mut_ptr(), log, fast),
            }
        };
    }
    // SAFETY: Storage invariant 3 holds: every output element was written once by the
    // kernels (a dense layout's indices cover its storage), or there are none.
    Ok((unsafe { fresh.assume_init() }, out_layout))
}

/// Runs a plan with at least one element.
///
/// # Safety
/// As in [`softmax`]: every offset the plan forms from `input` is an addressed, initialized
/// input element; those it forms from `out` are distinct elements of one fresh allocation.
/// If `fast`, the CPU has AVX2 and FMA.
unsafe fn run<T, C>(plan: &DimPlan, input: *const T, out: *mut T, log: bool, fast: bool)
where
    T: Element + Float,
    C: Float,
{
    let (lines, block) = (plan.lines(), plan.block());
    let threads = threads_for(lines * block * plan.len);
    let (input, out) = (SharedPtr(input), SharedPtr(out));
    if block == 1 {
        // Distinct lines write distinct output elements, so threads never share one.
        for_each_chunk(lines, threads, |range| {
            for o in range {
                let b = plan.line_base(o);
                let (x, y) = (
                    input.get().wrapping_offset(b[0]),
                    out.get().wrapping_offset(b[1]),
                );
                // SAFETY: line `o < lines`: its first elements are addressed, and its `len`
                // elements along the dim are the plan's (contract); `fast` was detected.
                unsafe {
                    if fast {
                        line_fast::<T, C>(plan, x, y, log)
                    } else {
                        line::<T, C, false>(plan, x, y, log)
                    }
                }
            }
        });
    } else {
        let chunk = plan.chunk_len(MAX_CHUNK, MIN_CHUNK, threads);
        let per_line = block.div_ceil(chunk);
        // Units (line, chunk) write disjoint output elements.
        for_each_chunk(lines * per_line, threads, |range| {
            let mut state = ChunkState::default();
            for u in range {
                let (o, c) = (u / per_line, u % per_line);
                let j = c * chunk..((c + 1) * chunk).min(block);
                let b = plan.line_base(o);
                let (x, y) = (
                    input.get().wrapping_offset(b[0]),
                    out.get().wrapping_offset(b[1]),
                );
                // SAFETY: line `o < lines` and block elements `j` (within the block) are in
                // the plan's ranges (contract); `fast` was detected.
                unsafe {
                    if fast {
                        chunk_fast::<T, C>(plan, x, y, j, &mut state, log)
                    } else {
                        chunk_of::<T, C, false>(plan, x, y, j, &mut state, log)
                    }
                }
            }
        });
    }
}

/// [`line()`] compiled with AVX2 and FMA (without x86_64: the plain one, never chosen).
///
/// # Safety
/// As [`line()`]; on x86_64 the CPU must have AVX2 and FMA.
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2,fma"))]
unsafe fn line_fast<T, C>(plan: &DimPlan, x: *const T, y: *mut T, log: bool)
where
    T: Element + Float,
    C: Float,
{
    // SAFETY: forwarded.
    unsafe { line::<T, C, { cfg!(target_arch = "x86_64") }>(plan, x, y, log) }
}

/// [`chunk_of`] compiled with AVX2 and FMA (without x86_64: the plain one, never chosen).
///
/// # Safety
/// As [`chunk_of`]; on x86_64 the CPU must have AVX2 and FMA.
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2,fma"))]
unsafe fn chunk_fast<T, C>(
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
    // SAFETY: forwarded.
    unsafe { chunk_of::<T, C, { cfg!(target_arch = "x86_64") }>(plan, x, y, j, state, log) }
}

/// What the output loop multiplies or subtracts: `1 / s` for softmax, `ln s` for
/// log-softmax; NaN for a slice whose max is infinite (see the [module docs](self)).
#[inline(always)]
fn finish<A: Float>(m: A, s: A, log: bool) -> A {
    let s = if m.is_infinite() { A::nan() } else { s };
    if log {
        s.ln()
    } else {
        A::one() / s
    }
}

/// `x` in the compute type `C` (`f32` for `f32`, `f16`, `bf16`; `f64` for `f64`).
#[inline(always)]
fn up<T: Float, C: Float>(x: T) -> C {
    C::from(x).unwrap_or_else(C::nan)
}

/// `c` rounded to the element type.
#[inline(always)]
fn down<C: Float, T: Float>(c: C) -> T {
    T::from(c).unwrap_or_else(T::nan)
}

/// One output element from its input `x`, the slice's max `m` and [`finish`]'s `f`.
#[inline(always)]
fn output<T: Float, C: Float, const FMA: bool>(x: T, m: C, f: C, log: bool) -> T {
    let d = up::<T, C>(x) - m;
    down::<C, T>(if log {
        d - f
    } else {
        exp_acc_nonpos::<_, FMA>(d) * f
    })
}

/// One slice along the dim: `len` elements from `x` (step `step[0]`) into `y` (step
/// `step[1]`).
///
/// # Safety
/// The `len` elements from `x` are initialized input elements; those from `y` writable,
/// distinct output elements not overlapping the input.
#[inline(always)]
unsafe fn line<T, C, const FMA: bool>(plan: &DimPlan, x: *const T, y: *mut T, log: bool)
where
    T: Element + Float,
    C: Float,
{
    let (len, [sx, sy]) = (plan.len, plan.step);
    if sx == 1 && sy == 1 {
        // SAFETY: contract: `len` contiguous elements each side, not overlapping.
        let (xs, ys) = unsafe {
            (
                std::slice::from_raw_parts(x, len),
                std::slice::from_raw_parts_mut(y.cast::<MaybeUninit<T>>(), len),
            )
        };
        #[cfg(target_arch = "x86_64")]
        if FMA && T::DTYPE == DType::F32 {
            // SAFETY: `T` is `f32` (same layout), and `FMA` is true only in `line_fast`, which
            // runs where AVX2 and FMA were detected.
            return unsafe {
                avx2::row_f32(
                    std::slice::from_raw_parts(xs.as_ptr().cast::<f32>(), len),
                    std::slice::from_raw_parts_mut(ys.as_mut_ptr().cast(), len),
                    log,
                )
            };
        }
        if !log && T::DTYPE.size() == std::mem::size_of::<C>() {
            return line_stored::<T, C, FMA>(xs, ys);
        }
    }
    let (m, s) = if sx == 1 {
        // SAFETY: contract: `len` contiguous initialized elements.
        line_stats::<T, C, FMA>(unsafe { std::slice::from_raw_parts(x, len) })
    } else {
        let mut acc = (C::neg_infinity(), C::zero());
        for i in 0..len as isize {
            // SAFETY: element `i < len` of the slice (contract).
            let v = unsafe { x.offset(i * sx).read() };
            acc = lse_combine::<_, FMA>(acc, (up::<T, C>(v), C::one()));
        }
        acc
    };
    let f = finish(m, s, log);
    if sx == 1 && sy == 1 {
        // SAFETY: contract: `len` contiguous elements each side, not overlapping.
        let (xs, ys) = unsafe {
            (
                std::slice::from_raw_parts(x, len),
                std::slice::from_raw_parts_mut(y.cast::<MaybeUninit<T>>(), len),
            )
        };
        for (o, &v) in ys.iter_mut().zip(xs) {
            o.write(output::<T, C, FMA>(v, m, f, log));
        }
    } else {
        for i in 0..len as isize {
            // SAFETY: element `i < len` on each side (contract).
            unsafe {
                let v = x.offset(i * sx).read();
                y.offset(i * sy).write(output::<T, C, FMA>(v, m, f, log));
            }
        }
    }
}

/// `(max, sum of e^(x - max))` of a contiguous slice; see the [module docs](self).
#[inline(always)]
fn line_stats<T, C, const FMA: bool>(xs: &[T]) -> (C, C)
where
    T: Element + Float,
    C: Float,
{
    let ninf = C::neg_infinity();
    let (mut m, mut s) = ([ninf; LANES], [C::zero(); LANES]);
    let mut blocks = xs.chunks_exact(LANES * BLOCK_STEPS);
    for b in &mut blocks {
        let mut bm = [ninf; LANES];
        for c in b.chunks_exact(LANES) {
            for k in 0..LANES {
                let v = up::<T, C>(c[k]);
                bm[k] = if v > bm[k] { v } else { bm[k] };
            }
        }
        // The block max (NaN elements are skipped here; they make the sum NaN below).
        let mut base = [C::zero(); LANES];
        for k in 0..LANES {
            let new = if bm[k] > m[k] { bm[k] } else { m[k] };
            let rescale = exp_acc_nonpos::<_, FMA>(m[k] - new);
            s[k] = s[k] * if new == m[k] { C::one() } else { rescale };
            m[k] = new;
            // While a lane has seen only `-inf`, its sum is 0 relative to any base.
            base[k] = if new == ninf { C::zero() } else { new };
        }
        for c in b.chunks_exact(LANES) {
            for k in 0..LANES {
                s[k] = s[k] + exp_acc_nonpos::<_, FMA>(up::<T, C>(c[k]) - base[k]);
            }
        }
    }
    let mut acc = (m[0], s[0]);
    for k in 1..LANES {
        acc = lse_combine::<_, FMA>(acc, (m[k], s[k]));
    }
    for &v in blocks.remainder() {
        acc = lse_combine::<_, FMA>(acc, (up::<T, C>(v), C::one()));
    }
    acc
}

/// Softmax of a contiguous slice whose element type is its accumulator type (`f32`, `f64`):
/// [`line_stats`]' lanes and blocks, but each `e^(x - base)` it computes is also stored in
/// the output, and a second loop multiplies it by `e^(base - max) / sum`, one factor per
/// lane and block: one exponential per element instead of two.
#[inline(always)]
fn line_stored<T, C, const FMA: bool>(xs: &[T], ys: &mut [MaybeUninit<T>])
where
    T: Element + Float,
    C: Float,
{
    const BLOCK: usize = LANES * BLOCK_STEPS;
    let ninf = C::neg_infinity();
    let (mut m, mut s) = ([ninf; LANES], [C::zero(); LANES]);
    // Each block's per-lane max (the base of its stored exponentials), `-inf` for lanes that
    // had seen only `-inf` (their stored values are 0).
    let mut bases: Vec<[C; LANES]> = Vec::with_capacity(xs.len() / BLOCK);
    let full = xs.len() - xs.len() % BLOCK;
    for (b, o) in xs[..full]
        .chunks_exact(BLOCK)
        .zip(ys.chunks_exact_mut(BLOCK))
    {
        let mut bm = [ninf; LANES];
        for c in b.chunks_exact(LANES) {
            for k in 0..LANES {
                let v = up::<T, C>(c[k]);
                bm[k] = if v > bm[k] { v } else { bm[k] };
            }
        }
        let mut base = [C::zero(); LANES];
        for k in 0..LANES {
            let new = if bm[k] > m[k] { bm[k] } else { m[k] };
            let rescale = exp_acc_nonpos::<_, FMA>(m[k] - new);
            s[k] = s[k] * if new == m[k] { C::one() } else { rescale };
            m[k] = new;
            base[k] = if new == ninf { C::zero() } else { new };
        }
        for (c, o) in b.chunks_exact(LANES).zip(o.chunks_exact_mut(LANES)) {
            let mut e = [C::zero(); LANES];
            for k in 0..LANES {
                e[k] = exp_acc_nonpos::<_, FMA>(up::<T, C>(c[k]) - base[k]);
                s[k] = s[k] + e[k];
            }
            for (o, &e) in o.iter_mut().zip(&e) {
                o.write(down::<C, T>(e));
            }
        }
        bases.push(m);
    }
    let mut acc = (m[0], s[0]);
    for k in 1..LANES {
        acc = lse_combine::<_, FMA>(acc, (m[k], s[k]));
    }
    for &v in &xs[full..] {
        acc = lse_combine::<_, FMA>(acc, (up::<T, C>(v), C::one()));
    }
    let (max, f) = (acc.0, finish(acc.0, acc.1, false));
    // SAFETY: the first `full` outputs were all written above; `MaybeUninit<T>` has `T`'s
    // layout.
    let done = unsafe { std::slice::from_raw_parts_mut(ys.as_mut_ptr().cast::<T>(), full) };
    for (o, base) in done.chunks_exact_mut(BLOCK).zip(&bases) {
        let mut factor = [C::zero(); LANES];
        for k in 0..LANES {
            let e = exp_acc_nonpos::<_, FMA>(base[k] - max);
            // A lane that had seen only `-inf` stored zeros; `f` carries a NaN result.
            factor[k] = if base[k] == ninf { C::zero() } else { e } * f;
        }
        for c in o.chunks_exact_mut(LANES) {
            for k in 0..LANES {
                c[k] = down::<C, T>(up::<T, C>(c[k]) * factor[k]);
            }
        }
    }
    for (o, &v) in ys[full..].iter_mut().zip(&xs[full..]) {
        o.write(output::<T, C, FMA>(v, max, f, false));
    }
}

/// Running statistics of a chunk of slices: max, sum, and a scratch row (each group's max,
/// then its base).
struct ChunkState<A> {
    m: Vec<A>,
    s: Vec<A>,
    g: Vec<A>,
    /// Each group's maxima, when the exponentials are stored (see [`chunk_of`]).
    bases: Vec<A>,
}

impl<A> Default for ChunkState<A> {
    fn default() -> Self {
        ChunkState {
            m: Vec::new(),
            s: Vec::new(),
            g: Vec::new(),
            bases: Vec::new(),
        }
    }
}

/// Rows per group of the block kernel's statistics: each group's max is taken first (one
/// rescale per slice per group), then its exponentials summed, reading the group's rows a
/// second time from cache.
const GROUP: usize = 8;

/// Calls `f(k, x)` for every element of the `n`-element run at `xr` (stride `rx`), with a
/// slice loop the compiler vectorises when the run is contiguous.
///
/// # Safety
/// The run's `n` elements are initialized input elements.
#[inline(always)]
unsafe fn for_run<T: Copy>(xr: *const T, rx: isize, n: usize, mut f: impl FnMut(usize, T)) {
    if rx == 1 {
        // SAFETY: contract; `n` contiguous elements.
        let xs = unsafe { std::slice::from_raw_parts(xr, n) };
        for (k, &v) in xs.iter().enumerate() {
            f(k, v);
        }
    } else {
        for k in 0..n {
            // SAFETY: element `k < n` of the run (contract).
            f(k, unsafe { xr.offset(k as isize * rx).read() });
        }
    }
}

/// Slices `j` of the block of one line, side by side: `state` holds their running maxima and
/// sums.
///
/// # Safety
/// Every offset the plan's dim and block loops form from `x` (from `y`) for block elements
/// `j` is an initialized input element (a writable output element, each formed once, not
/// overlapping the input).
#[inline(always)]
unsafe fn chunk_of<T, C, const FMA: bool>(
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
    let ninf = C::neg_infinity();
    let ChunkState {
        m: ms,
        s: ss,
        g: gs,
        bases,
    } = state;
    // Softmax of contiguous runs whose element type is the compute type stores each
    // `e^(x - base)` of the sum pass in the output and later multiplies it by its group's
    // `e^(base - max) / sum`: one exponential per element instead of two (as `line_stored`).
    let stored = !log && rx == 1 && ry == 1 && T::DTYPE.size() == std::mem::size_of::<C>();
    bases.clear();
    for (v, init) in [(&mut *ms, ninf), (&mut *ss, C::zero()), (&mut *gs, ninf)] {
        v.clear();
        v.resize(j.len(), init);
    }
    let [sx, sy] = plan.step;
    // Rows are taken four at a time within each pass, so each state is loaded and stored
    // once per four rows (the same operations in the same order as row by row).
    let quads = |lo: usize, hi: usize| (lo..hi).step_by(4).map(move |i| (i, 4.min(hi - i)));
    // SAFETY (for every `at` below): row `i + t < plan.len` of a run of the chunk, so the
    // pointer is one of the plan's input (output) elements (contract).
    let at = |p: *const T, i: usize, t: usize, g: usize, step: isize, off: isize| unsafe {
        p.offset((i + t.min(g - 1)) as isize * step + off)
    };
    let mut i0 = 0;
    while i0 < plan.len {
        let i1 = (i0 + GROUP).min(plan.len);
        gs.fill(ninf);
        for (i, g) in quads(i0, i1) {
            let mut k0 = 0;
            for &(ox, _, n) in &runs {
                let gr = &mut gs[k0..k0 + n];
                k0 += n;
                let p: [*const T; 4] = std::array::from_fn(|t| at(x, i, t, g, sx, ox));
                if rx == 1 && g == 4 {
                    // SAFETY: four rows of `n` contiguous input elements (contract).
                    let [a, b, c, d] = p.map(|p| unsafe { std::slice::from_raw_parts(p, n) });
                    for ((((g, &a), &b), &c), &d) in gr.iter_mut().zip(a).zip(b).zip(c).zip(d) {
                        // `maxnum` (a select of `*g` would become a masked store).
                        *g = g.max(up(a)).max(up(b)).max(up(c)).max(up(d));
                    }
                } else {
                    for &p in &p[..g] {
                        // SAFETY: a row of the run (contract).
                        unsafe { for_run(p, rx, n, |k, v| gr[k] = gr[k].max(up::<T, C>(v))) };
                    }
                }
            }
        }
        for ((m, s), g) in ms.iter_mut().zip(ss.iter_mut()).zip(gs.iter_mut()) {
            let new = m.max(*g);
            let rescale = exp_acc_nonpos::<_, FMA>(*m - new);
            *s = *s * if new == *m { C::one() } else { rescale };
            *m = new;
            // The group's base: while a slice has seen only `-inf`, its sum is 0 relative
            // to any base.
            *g = if new == ninf { C::zero() } else { new };
        }
        if stored {
            bases.extend_from_slice(ms);
        }
        for (i, g) in quads(i0, i1) {
            let mut k0 = 0;
            for &(ox, oy, n) in &runs {
                let (sr, gr) = (&mut ss[k0..k0 + n], &gs[k0..k0 + n]);
                k0 += n;
                let e = |v: T, base: C| exp_acc_nonpos::<_, FMA>(up::<T, C>(v) - base);
                let p: [*const T; 4] = std::array::from_fn(|t| at(x, i, t, g, sx, ox));
                if stored {
                    for (t, &p) in p[..g].iter().enumerate() {
                        let q = at(y.cast_const(), i, t, g, sy, oy).cast_mut();
                        // SAFETY: a row of `n` contiguous elements each side (contract).
                        let (xs, ys) = unsafe {
                            (
                                std::slice::from_raw_parts(p, n),
                                std::slice::from_raw_parts_mut(q.cast::<MaybeUninit<T>>(), n),
                            )
                        };
                        for (((s, &g), &v), o) in sr.iter_mut().zip(gr).zip(xs).zip(ys) {
                            let ev = e(v, g);
                            *s = *s + ev;
                            o.write(down(ev));
                        }
                    }
                } else if rx == 1 && g == 4 {
                    // SAFETY: four rows of `n` contiguous input elements (contract).
                    let [a, b, c, d] = p.map(|p| unsafe { std::slice::from_raw_parts(p, n) });
                    let states = sr.iter_mut().zip(gr);
                    for (((((s, &g), &a), &b), &c), &d) in states.zip(a).zip(b).zip(c).zip(d) {
                        *s = *s + e(a, g) + e(b, g) + e(c, g) + e(d, g);
                    }
                } else {
                    for &p in &p[..g] {
                        // SAFETY: a row of the run (contract).
                        unsafe { for_run(p, rx, n, |k, v| sr[k] = sr[k] + e(v, gr[k])) };
                    }
                }
            }
        }
        i0 = i1;
    }
    for (m, s) in ms.iter().zip(ss.iter_mut()) {
        *s = finish(*m, *s, log);
    }
    if stored {
        for (gi, base) in bases.chunks_exact(ms.len()).enumerate() {
            for (((factor, &b), &m), &f) in gs.iter_mut().zip(base).zip(&*ms).zip(&*ss) {
                // A slice that had seen only `-inf` stored zeros; `f` carries NaN results.
                let e = exp_acc_nonpos::<_, FMA>(b - m);
                *factor = if b == ninf { C::zero() } else { e } * f;
            }
            let (i0, i1) = (gi * GROUP, ((gi + 1) * GROUP).min(plan.len));
            for i in i0..i1 {
                let mut k0 = 0;
                for &(_, oy, n) in &runs {
                    let fr = &gs[k0..k0 + n];
                    k0 += n;
                    // SAFETY: a row of `n` contiguous output elements, all written by the sum
                    // pass (contract).
                    let ys = unsafe {
                        std::slice::from_raw_parts_mut(y.offset(i as isize * sy + oy), n)
                    };
                    for (o, &f) in ys.iter_mut().zip(fr) {
                        *o = down(up::<T, C>(*o) * f);
                    }
                }
            }
        }
        return;
    }
    for (i, g) in quads(0, plan.len) {
        let mut k0 = 0;
        for &(ox, oy, n) in &runs {
            let (m, f) = (&ms[k0..k0 + n], &ss[k0..k0 + n]);
            k0 += n;
            let p: [*const T; 4] = std::array::from_fn(|t| at(x, i, t, g, sx, ox));
            let q: [*mut T; 4] =
                std::array::from_fn(|t| at(y.cast_const(), i, t, g, sy, oy).cast_mut());
            if rx == 1 && ry == 1 && g == 4 {
                // SAFETY: four rows of `n` contiguous elements each side, not overlapping
                // (distinct rows of the fresh output).
                let [a, b, c, d] = p.map(|p| unsafe { std::slice::from_raw_parts(p, n) });
                let [oa, ob, oc, od] = q.map(|q| unsafe {
                    std::slice::from_raw_parts_mut(q.cast::<MaybeUninit<T>>(), n)
                });
                let outs = oa.iter_mut().zip(ob).zip(oc).zip(od);
                let ins = a.iter().zip(b).zip(c).zip(d).zip(m).zip(f);
                for ((((oa, ob), oc), od), (((((&a, &b), &c), &d), &m), &f)) in outs.zip(ins) {
                    oa.write(output::<T, C, FMA>(a, m, f, log));
                    ob.write(output::<T, C, FMA>(b, m, f, log));
                    oc.write(output::<T, C, FMA>(c, m, f, log));
                    od.write(output::<T, C, FMA>(d, m, f, log));
                }
            } else {
                for t in 0..g {
                    for k in 0..n {
                        let d = k as isize;
                        // SAFETY: element `k < n` of a row of the run, each side.
                        unsafe {
                            let v = p[t].offset(d * rx).read();
                            q[t].offset(d * ry)
                                .write(output::<T, C, FMA>(v, m[k], f[k], log));
                        }
                    }
                }
            }
        }
    }
}

/// The line kernel's softmax of a contiguous `f32` slice written with AVX2 and FMA
/// intrinsics: the same operations as [`line_stored`]`::<f32, true>` in the same order (so
/// the same results), but certain to run eight lanes wide, which the compiler's
/// auto-vectorisation of the generic code does not always manage.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    use super::{finish, lse_combine, output, BLOCK_STEPS, LANES};

    /// [`exp_nonpos_f32`](super::super::exp::exp_nonpos_f32)`::<true>` on eight lanes.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn exp8(x: __m256) -> __m256 {
        let c = |v: f32| _mm256_set1_ps(v);
        let xc = _mm256_blendv_ps(x, c(-104.0), _mm256_cmp_ps::<_CMP_LT_OQ>(x, c(-104.0)));
        let round = c(12_582_912.0);
        let t = _mm256_fmadd_ps(xc, c(std::f32::consts::LOG2_E), round);
        let n = _mm256_sub_ps(t, round);
        let r = _mm256_fnmadd_ps(n, c(0.693_359_4), xc);
        let r = _mm256_fnmadd_ps(n, c(-2.121_944_4e-4), r);
        let z = _mm256_mul_ps(r, r);
        let mut p = c(1.987_569_2e-4);
        for k in [
            1.398_2e-3,
            8.333_452e-3,
            4.166_579_6e-2,
            1.666_666_5e-1,
            0.5,
        ] {
            p = _mm256_fmadd_ps(p, r, c(k));
        }
        let p = _mm256_add_ps(_mm256_fmadd_ps(p, z, r), c(1.0));
        let ni = _mm256_sub_epi32(
            _mm256_castps_si256(t),
            _mm256_set1_epi32(12_582_912.0f32.to_bits() as i32),
        );
        let n1 = _mm256_srai_epi32::<1>(ni);
        let n2 = _mm256_sub_epi32(ni, n1);
        let bias = _mm256_set1_epi32(127);
        let s1 = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(n1, bias)));
        let s2 = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(n2, bias)));
        // NaN lanes stayed NaN through the clamp and every float step.
        _mm256_mul_ps(_mm256_mul_ps(p, s1), s2)
    }

    /// `if mask { a } else { b }` per lane.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn select(mask: __m256, a: __m256, b: __m256) -> __m256 {
        _mm256_blendv_ps(b, a, mask)
    }

    /// Softmax (or, with `log`, log-softmax) of `xs` into `ys` (same length); see
    /// [`line_stored`](super::line_stored). Log-softmax does not store the exponentials: its
    /// output loop is a subtraction.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn row_f32(xs: &[f32], ys: &mut [MaybeUninit<f32>], log: bool) {
        const BLOCK: usize = LANES * BLOCK_STEPS;
        debug_assert_eq!(xs.len(), ys.len());
        let full = xs.len() - xs.len() % BLOCK;
        let (ninf, zero, one) = (
            _mm256_set1_ps(f32::NEG_INFINITY),
            _mm256_setzero_ps(),
            _mm256_set1_ps(1.0),
        );
        let (mut m, mut s) = (ninf, zero);
        let mut bases: Vec<__m256> = Vec::with_capacity(full / BLOCK);
        let (x, y) = (xs.as_ptr(), ys.as_mut_ptr().cast::<f32>());
        for b in (0..full).step_by(BLOCK) {
            // SAFETY (loads and stores below): `b + i * LANES + LANES <= full <= len` for
            // `i < BLOCK_STEPS`: inside both slices.
            let mut bm = ninf;
            for i in 0..BLOCK_STEPS {
                let v = unsafe { _mm256_loadu_ps(x.add(b + i * LANES)) };
                // `v > bm ? v : bm`, as the generic code writes it.
                bm = select(_mm256_cmp_ps::<_CMP_GT_OQ>(v, bm), v, bm);
            }
            let new = select(_mm256_cmp_ps::<_CMP_GT_OQ>(bm, m), bm, m);
            let rescale = exp8(_mm256_sub_ps(m, new));
            s = _mm256_mul_ps(s, select(_mm256_cmp_ps::<_CMP_EQ_OQ>(new, m), one, rescale));
            m = new;
            let base = select(_mm256_cmp_ps::<_CMP_EQ_OQ>(new, ninf), zero, new);
            for i in 0..BLOCK_STEPS {
                let at = b + i * LANES;
                // SAFETY: `i < BLOCK_STEPS`, so lanes `at .. at + LANES` are inside the block,
                // inside both slices (as for the max loop above).
                let e = exp8(_mm256_sub_ps(unsafe { _mm256_loadu_ps(x.add(at)) }, base));
                s = _mm256_add_ps(s, e);
                if !log {
                    // SAFETY: the same lanes of the output slice, written by this line only.
                    unsafe { _mm256_storeu_ps(y.add(at), e) };
                }
            }
            bases.push(m);
        }
        let (mut ml, mut sl) = ([0.0f32; LANES], [0.0f32; LANES]);
        // SAFETY: eight floats each.
        unsafe {
            _mm256_storeu_ps(ml.as_mut_ptr(), m);
            _mm256_storeu_ps(sl.as_mut_ptr(), s);
        }
        let mut acc = (ml[0], sl[0]);
        for k in 1..LANES {
            acc = lse_combine::<f32, true>(acc, (ml[k], sl[k]));
        }
        for &v in &xs[full..] {
            acc = lse_combine::<f32, true>(acc, (v, 1.0));
        }
        let (max, f) = (acc.0, finish(acc.0, acc.1, log));
        let (vmax, vf) = (_mm256_set1_ps(max), _mm256_set1_ps(f));
        if log {
            for at in (0..full).step_by(LANES) {
                // SAFETY: `at + LANES <= full`: inside both slices.
                unsafe {
                    let d = _mm256_sub_ps(_mm256_loadu_ps(x.add(at)), vmax);
                    _mm256_storeu_ps(y.add(at), _mm256_sub_ps(d, vf));
                }
            }
            bases.clear();
        }
        for (bi, &base) in bases.iter().enumerate() {
            let e = exp8(_mm256_sub_ps(base, vmax));
            let factor =
                _mm256_mul_ps(select(_mm256_cmp_ps::<_CMP_EQ_OQ>(base, ninf), zero, e), vf);
            for i in 0..BLOCK_STEPS {
                let at = bi * BLOCK + i * LANES;
                // SAFETY: inside the first `full` outputs, all written above.
                unsafe {
                    _mm256_storeu_ps(y.add(at), _mm256_mul_ps(_mm256_loadu_ps(y.add(at)), factor))
                };
            }
        }
        for (o, &v) in ys[full..].iter_mut().zip(&xs[full..]) {
            o.write(output::<f32, f32, true>(v, max, f, log));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_softmax(data: &[f32], layout: &Layout, dim: usize, log: bool) -> (Vec<f32>, Layout) {
        let s = Storage::from_slice(data).unwrap();
        let (out, l) = softmax(&s, layout, dim, log).unwrap();
        (out.as_slice().to_vec(), l)
    }

    /// Softmax of each slice by the definition, in f64.
    fn naive(xs: &[f32]) -> Vec<f32> {
        let m = xs.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x as f64));
        let s: f64 = xs.iter().map(|&x| (x as f64 - m).exp()).sum();
        xs.iter()
            .map(|&x| ((x as f64 - m).exp() / s) as f32)
            .collect()
    }

    #[test]
    #[cfg_attr(miri, ignore = "11K-element softmaxes: minutes under Miri")]
    fn lines_and_blocks_agree_with_the_definition() {
        let (r, c) = (37, 300); // rows longer than a block, with a remainder
        let data: Vec<f32> = (0..r * c)
            .map(|i| ((i * 7919) % 1009) as f32 * 0.05 - 20.0)
            .collect();
        let m = Layout::contiguous(&[r, c]).unwrap();
        let (rows, _) = run_softmax(&data, &m, 1, false);
        let (cols, _) = run_softmax(&data, &m, 0, false);
        for i in 0..r {
            let want = naive(&data[i * c..(i + 1) * c]);
            for j in 0..c {
                assert!(
                    (rows[i * c + j] - want[j]).abs() <= 1e-6 + 2e-6 * want[j],
                    "row {i}"
                );
            }
        }
        for j in 0..c {
            let col: Vec<f32> = (0..r).map(|i| data[i * c + j]).collect();
            let want = naive(&col);
            for i in 0..r {
                assert!(
                    (cols[i * c + j] - want[i]).abs() <= 1e-6 + 2e-6 * want[i],
                    "col {j}"
                );
            }
        }
        // The transposed view takes the block kernel for dim 1 and follows the input.
        let (t, l) = run_softmax(&data, &m.t().unwrap(), 1, false);
        assert_eq!(l.strides(), &[1, c as isize]);
        assert_eq!(t, cols);
    }

    #[test]
    #[cfg_attr(miri, ignore = "1800 elements x 4 variants: minutes under Miri")]
    fn special_values() {
        // Rows longer than a block of the line kernel, special values at varied positions:
        // row 0 holds +inf, row 1 only -inf, row 2 a NaN, row 3 a few -inf, row 4 one NaN
        // late, row 5 -inf in its first block only.
        let (r, c) = (6, 300);
        let (inf, nan) = (f32::INFINITY, f32::NAN);
        let mut data: Vec<f32> = (0..r * c).map(|i| ((i * 37) % 101) as f32 * 0.1).collect();
        data[7] = inf;
        data[c..2 * c].fill(-inf);
        data[2 * c + 200] = nan;
        for k in [0, 5, 130, 299] {
            data[3 * c + k] = -inf;
        }
        data[4 * c + 290] = nan;
        data[5 * c..5 * c + 128].fill(-inf);
        let m = Layout::contiguous(&[r, c]).unwrap();
        let t = Layout::new(&[c, r], &[1, c as isize], 0).unwrap(); // the same rows as columns
        let s = Storage::from_slice(&data).unwrap();
        let fast = [false, has_avx2_fma()];
        for (l, dim) in [(&m, 1), (&t, 0)] {
            for (f, log) in fast.iter().flat_map(|&f| [(f, false), (f, true)]) {
                let out = softmax_on(&s, l, dim, log, f).unwrap().0;
                // Both layouts store row `i` of `data` at `i * c..`.
                let row = |i: usize| &out.as_slice()[i * c..(i + 1) * c];
                for i in [0, 1, 2, 4] {
                    assert!(
                        row(i).iter().all(|v| v.is_nan()),
                        "row {i} log {log} fast {f}"
                    );
                }
                for i in [3, 5] {
                    let finite: Vec<usize> =
                        (0..c).filter(|&k| data[i * c + k].is_finite()).collect();
                    let want = naive(&finite.iter().map(|&k| data[i * c + k]).collect::<Vec<_>>());
                    for (k, &v) in row(i).iter().enumerate() {
                        match finite.iter().position(|&p| p == k) {
                            None if log => assert_eq!(v, f32::NEG_INFINITY),
                            None => assert_eq!(v, 0.0),
                            Some(p) if log => assert!((v.exp() - want[p]).abs() < 1e-6),
                            Some(p) => assert!((v - want[p]).abs() < 1e-6, "{v} vs {}", want[p]),
                        }
                    }
                }
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "12K-element softmaxes: minutes under Miri")]
    fn portable_code_matches_the_fast_variants() {
        let (r, c) = (23, 517);
        let data: Vec<f64> = (0..r * c)
            .map(|i| ((i * 7919) % 1013) as f64 * 0.02 - 10.0)
            .collect();
        let m = Layout::contiguous(&[r, c]).unwrap();
        let t = m.t().unwrap();
        macro_rules! both {
            ($ty:ty, $conv:expr, $tol:expr) => {{
                let vals: Vec<$ty> = data.iter().map(|&v| $conv(v)).collect();
                let s = Storage::from_slice(&vals).unwrap();
                for (l, dim) in [(&m, 1), (&m, 0), (&t, 0), (&t, 1)] {
                    for log in [false, true] {
                        let slow = softmax_on(&s, l, dim, log, false).unwrap().0;
                        let got = match has_avx2_fma() {
                            true => softmax_on(&s, l, dim, log, true).unwrap().0,
                            false => softmax(&s, l, dim, log).unwrap().0,
                        };
                        for (a, b) in slow.as_slice().iter().zip(got.as_slice()) {
                            let (a, b) = (up::<_, f64>(*a), up::<_, f64>(*b));
                            assert!((a - b).abs() <= $tol * (1.0 + b.abs()), "{a} vs {b}");
                        }
                    }
                }
            }};
        }
        both!(f32, |v| v as f32, 1e-6);
        both!(f64, |v| v, 1e-14);
        both!(half::f16, half::f16::from_f64, 2e-3);
    }

    #[test]
    #[cfg_attr(miri, ignore = "132K elements and thread pools: too slow")]
    fn threads_do_not_change_results() {
        let pool = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        };
        // Above the parallel threshold (2^17 elements).
        let data: Vec<f32> = (0..440 * 301).map(|i| (i % 23) as f32 * 0.3).collect();
        let s = Storage::from_slice(&data).unwrap();
        let m = Layout::contiguous(&[440, 301]).unwrap();
        for dim in [0, 1] {
            let one = pool(1).install(|| softmax(&s, &m, dim, false).unwrap().0);
            let four = pool(4).install(|| softmax(&s, &m, dim, false).unwrap().0);
            assert_eq!(one.as_slice(), four.as_slice());
        }
    }
}
