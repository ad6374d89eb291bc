//! Softmax and log-softmax along one dim: per slice, its max, its sum, then the output.
//!
//! # Order (Note [canonical order], `src/kernels/reduce.rs`)
//!
//! Each slice's result depends only on its logical values, never on the layout, the kernel
//! path, the thread count or the SIMD level:
//!
//! 1. `m`, the slice's max (NaN elements skipped; the order of a max does not matter).
//! 2. `s`, the sum of `e^(x - m)` over the slice in the canonical order
//!    ([`canonical`](super::canonical)): position `i` along the dim in lane `i % 8`, leaves
//!    of 512 positions, each leaf's lanes combined by the fixed tree, leaves combined
//!    pairwise. Accumulated in `f32` (`f32`, `f16`, `bf16`) or `f64` (`f64`).
//! 3. The output: `e^(x - m) * (1 / s)`, or `(x - m) - ln s` for log-softmax, rounded once to
//!    the element type.
//!
//! A max computed first, then the sum, is what makes the order canonical: an online
//! `(max, sum)` pair rescaled block by block (the usual one-read softmax) depends on where
//! the blocks fall, which differs between a slice that is a line in memory and one read
//! across rows. `e^x` is [`super::exp`]'s polynomial with fused multiply-adds on every path:
//! one instruction where the CPU has FMA (the AVX2 paths), the C library's `fmaf` on the
//! portable path, which is therefore slower on x86_64 CPUs without FMA (pre-2013) but gives
//! the same bits. `f64` uses the C library's `exp` everywhere.
//!
//! # Kernels
//!
//! The loops follow the output's memory order ([`DimPlan`]), the output being laid out by the
//! elementwise output layout rule (`src/iter/output.rs`):
//!
//! - **Line kernel** (the dim is innermost in memory, e.g. softmax over the last dim of a
//!   row-major matrix): each slice is one line, read once for its max, once for its sum, and
//!   (for log-softmax, `f16`, `bf16`) once for its output; a line that fits in cache is read
//!   from memory once. The 8 lanes are a vector register.
//! - **Block kernel** (e.g. softmax over dim 0 of a row-major matrix): a chunk of slices side
//!   by side, each row along the dim read as runs across the chunk: a walk for the maxima,
//!   one for the sums (8 accumulator rows, row `i` of a leaf into row `i % 8`, as the generic
//!   reduction's outer kernel), one for the output rows. Chunks are wide (whole rows of a
//!   matrix, up to [`MAX_CHUNK`] slices) so every walk reads long sequential runs.
//!
//! **One exponential per element.** For softmax of `f32` or `f64` with contiguous slices,
//! each `e^(x - m)` computed for the sum is also stored in the output, and the output loop
//! multiplies it by `1 / s`: the same bits as computing `e^(x - m)` again, for half the
//! exponentials. Log-softmax needs none in its output loop.
//!
//! On x86_64 CPUs with AVX2 and FMA the same code is compiled a second time with those
//! features and chosen at run time ([`has_avx2_fma`], which [`crate::simd`] can lower), and
//! the `f32` line kernel is written with intrinsics (`mod avx2`), because the compiler's
//! vectorisation of its lanes proved fragile. Each output element is computed by one thread.
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

use super::canonical::{self, LANES};
use super::exp::{exp_acc_nonpos, has_avx2_fma};
use super::parallel::{SharedPtr, for_each_chunk, threads_for};
use super::scan::DimPlan;

#[cfg(target_arch = "x86_64")]
mod avx2;
mod block;
mod line;

use block::{ChunkState, chunk_of};
use line::line;

/// Most slices per chunk of the block kernel: long rows of input per step (sequential
/// reads), with the chunk's [`LANES`] accumulator rows still in L2.
const MAX_CHUNK: usize = 8192;
/// Fewest slices per chunk when chunks are narrowed to give threads work.
const MIN_CHUNK: usize = 256;

/// Combines two states `(max, sum of e^(x - max))`, `a` covering earlier elements than `b`:
/// the smaller max's sum is rescaled by `e^(smaller - larger)`. One exponential, no branch.
/// (Logsumexp's reducer folds with it; softmax takes its max first instead, see the [module
/// docs](self).)
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
                        chunk_of::<T, C>(plan, x, y, j, &mut state, log)
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

/// [`chunk_of`] compiled with AVX2 and FMA (without x86_64: the plain one, never chosen):
/// the same operations, vectorised eight wide.
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
    unsafe { chunk_of::<T, C>(plan, x, y, j, state, log) }
}

/// What the output loop multiplies or subtracts: `1 / s` for softmax, `ln s` for
/// log-softmax; NaN for a slice whose max is infinite (see the [module docs](self)).
#[inline(always)]
fn finish<A: Float>(m: A, s: A, log: bool) -> A {
    let s = if m.is_infinite() { A::nan() } else { s };
    if log { s.ln() } else { A::one() / s }
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
fn output<T: Float, C: Float>(x: T, m: C, f: C, log: bool) -> T {
    let d = up::<T, C>(x) - m;
    down::<C, T>(if log {
        d - f
    } else {
        exp_acc_nonpos::<_, true>(d) * f
    })
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
            ($ty:ty, $conv:expr) => {{
                let vals: Vec<$ty> = data.iter().map(|&v| $conv(v)).collect();
                let s = Storage::from_slice(&vals).unwrap();
                for (l, dim) in [(&m, 1), (&m, 0), (&t, 0), (&t, 1)] {
                    for log in [false, true] {
                        let slow = softmax_on(&s, l, dim, log, false).unwrap().0;
                        let got = match has_avx2_fma() {
                            true => softmax_on(&s, l, dim, log, true).unwrap().0,
                            false => softmax(&s, l, dim, log).unwrap().0,
                        };
                        // The same bits (Note [canonical order]).
                        for (a, b) in slow.as_slice().iter().zip(got.as_slice()) {
                            let (a, b) = (up::<_, f64>(*a), up::<_, f64>(*b));
                            assert!(
                                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                                "{a} vs {b}"
                            );
                        }
                    }
                }
            }};
        }
        both!(f32, |v| v as f32);
        both!(f64, |v| v);
        both!(half::f16, half::f16::from_f64);
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
