//! The line kernel: one slice along the dim is one line in memory (softmax over the last dim
//! of a row-major matrix); its statistics come from [`LANES`] independent lanes (see the
//! [parent module](super)).

use super::*;

/// One slice along the dim: `len` elements from `x` (step `step[0]`) into `y` (step
/// `step[1]`).
///
/// # Safety
/// The `len` elements from `x` are initialized input elements; those from `y` writable,
/// distinct output elements not overlapping the input.
#[inline(always)]
pub(super) unsafe fn line<T, C, const FMA: bool>(plan: &DimPlan, x: *const T, y: *mut T, log: bool)
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
pub(super) fn line_stats<T, C, const FMA: bool>(xs: &[T]) -> (C, C)
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
pub(super) fn line_stored<T, C, const FMA: bool>(xs: &[T], ys: &mut [MaybeUninit<T>])
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
