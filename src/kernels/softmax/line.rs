//! The line kernel: one slice along the dim is one line in memory (softmax over the last dim
//! of a row-major matrix): its max, its sum of `e^(x - max)` in the canonical order, then its
//! output (see the [parent module](super)).

use super::*;

/// One slice along the dim: `len` elements from `x` (step `step[0]`) into `y` (step
/// `step[1]`).
///
/// # Safety
/// The `len` elements from `x` are initialized input elements; those from `y` writable,
/// distinct output elements not overlapping the input. If `AVX2`, the CPU has AVX2 and FMA.
#[inline(always)]
pub(super) unsafe fn line<T, C, const AVX2: bool>(plan: &DimPlan, x: *const T, y: *mut T, log: bool)
where
    T: Element + Float,
    C: Float,
{
    let (len, [sx, sy]) = (plan.len, plan.step);
    #[cfg(target_arch = "x86_64")]
    if AVX2 && sx == 1 && sy == 1 && T::DTYPE == DType::F32 {
        // SAFETY: `T` is `f32` (same layout); contract: `len` contiguous elements each side,
        // not overlapping; `AVX2` is true only in `line_fast`, which runs where AVX2 and FMA
        // were detected.
        return unsafe {
            avx2::row_f32(
                std::slice::from_raw_parts(x.cast::<f32>(), len),
                std::slice::from_raw_parts_mut(y.cast::<MaybeUninit<f32>>(), len),
                log,
            )
        };
    }
    // SAFETY (for `get` and `put`): position `i < len` of the slice, each side (contract).
    let raw = |i: usize| unsafe { x.offset(i as isize * sx).read() };
    let get = |i: usize| up::<T, C>(raw(i));
    let put = |i: usize, v: T| unsafe { y.offset(i as isize * sy).write(v) };
    let mut m = C::neg_infinity();
    for i in 0..len {
        let v = get(i);
        m = if v > m { v } else { m };
    }
    // Softmax in the element type stores each `e^(x - m)` of the sum in the output, and
    // scales it afterwards (one exponential per element).
    let store = !log && T::DTYPE.size() == std::mem::size_of::<C>();
    let s = if sx == 1 && (sy == 1 || !store) {
        // SAFETY: contract: `len` contiguous initialized elements.
        let xs = unsafe { std::slice::from_raw_parts(x, len) };
        let leaf = |lo: usize, hi: usize| {
            let out = store.then_some(y.wrapping_add(lo));
            // SAFETY: when storing, `y` holds `len` contiguous writable elements (contract),
            // `lo..hi` among them.
            unsafe { leaf_contiguous::<T, C>(&xs[lo..hi], out, m) }
        };
        canonical::tree(len, leaf, |a, b, _, _| a + b)
    } else {
        let leaf = |lo: usize, hi: usize| {
            let mut l = [C::zero(); LANES];
            for i in lo..hi {
                let e = exp_acc_nonpos::<C, true>(get(i) - m);
                l[i % LANES] = l[i % LANES] + e;
                if store {
                    put(i, down::<C, T>(e));
                }
            }
            canonical::combine_lanes(l, |a, b| a + b)
        };
        canonical::tree(len, leaf, |a, b, _, _| a + b)
    };
    let f = finish(m, s, log);
    if store {
        for i in 0..len as isize {
            // SAFETY: position `i < len` of the output, written by the sum above.
            unsafe {
                let o = y.offset(i * sy);
                o.write(down::<C, T>(up::<T, C>(o.read()) * f));
            }
        }
    } else if sx == 1 && sy == 1 {
        // SAFETY: contract: `len` contiguous elements each side, not overlapping.
        let (xs, ys) = unsafe {
            (
                std::slice::from_raw_parts(x, len),
                std::slice::from_raw_parts_mut(y.cast::<MaybeUninit<T>>(), len),
            )
        };
        for (o, &v) in ys.iter_mut().zip(xs) {
            o.write(output::<T, C>(v, m, f, log));
        }
    } else {
        for i in 0..len {
            put(i, output::<T, C>(raw(i), m, f, log));
        }
    }
}

/// One leaf of a contiguous slice (`xs`, starting at a multiple of [`LANES`]): the sum of
/// `e^(x - m)`, position `i` in lane `i % LANES`, the lanes then combined; each `e^(x - m)`
/// also written to `out` when given.
///
/// # Safety
/// `out`, when given, is valid for `xs.len()` contiguous writes.
#[inline(always)]
unsafe fn leaf_contiguous<T, C>(xs: &[T], out: Option<*mut T>, m: C) -> C
where
    T: Element + Float,
    C: Float,
{
    let mut l = [C::zero(); LANES];
    let full = xs.len() - xs.len() % LANES;
    let e = |v: T| exp_acc_nonpos::<C, true>(up::<T, C>(v) - m);
    match out {
        Some(o) => {
            // SAFETY: contract.
            let ys =
                unsafe { std::slice::from_raw_parts_mut(o.cast::<MaybeUninit<T>>(), xs.len()) };
            for (c, o) in xs.chunks_exact(LANES).zip(ys.chunks_exact_mut(LANES)) {
                for k in 0..LANES {
                    let ek = e(c[k]);
                    l[k] = l[k] + ek;
                    o[k].write(down::<C, T>(ek));
                }
            }
            for (k, (&v, o)) in xs[full..].iter().zip(&mut ys[full..]).enumerate() {
                let ek = e(v);
                l[k] = l[k] + ek;
                o.write(down::<C, T>(ek));
            }
        }
        None => {
            for c in xs.chunks_exact(LANES) {
                for k in 0..LANES {
                    l[k] = l[k] + e(c[k]);
                }
            }
            for (k, &v) in xs[full..].iter().enumerate() {
                l[k] = l[k] + e(v);
            }
        }
    }
    canonical::combine_lanes(l, |a, b| a + b)
}
