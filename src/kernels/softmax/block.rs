//! The block kernel: a chunk of slices side by side, each with its running `(m, s)`, the rows
//! along the dim taken in groups of [`GROUP`] (see the [parent module](super)).

use super::*;

/// Running statistics of a chunk of slices: max, sum, and a scratch row (each group's max,
/// then its base).
pub(super) struct ChunkState<A> {
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
pub(super) const GROUP: usize = 8;

/// Calls `f(k, x)` for every element of the `n`-element run at `xr` (stride `rx`), with a
/// slice loop the compiler vectorises when the run is contiguous.
///
/// # Safety
/// The run's `n` elements are initialized input elements.
#[inline(always)]
pub(super) unsafe fn for_run<T: Copy>(
    xr: *const T,
    rx: isize,
    n: usize,
    mut f: impl FnMut(usize, T),
) {
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
pub(super) unsafe fn chunk_of<T, C, const FMA: bool>(
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
