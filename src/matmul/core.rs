//! The GEMM core: `C (+)= A · B` for strided A, B (any element type) and a strided C of the
//! accumulator type, in the five-loop structure of BLIS.
//!
//! ```text
//! for jc in 0..n step nc            B block  kc × nc  -> packed once per (jc, pc), in L3
//!   for pc in 0..k step kc
//!     pack B[pc.., jc..] into nr-wide panels          (parallel over panels)
//!     for ic in 0..m step mc        A block  mc × kc  -> packed per task, in L2
//!       pack A[ic.., pc..] into mr-tall panels        (parallel over ic blocks)
//!       for jr in 0..nc step nr     B panel  kc × nr  -> stays in L1
//!         for ir in 0..mc step mr
//!           micro-kernel: C[ic+ir.., jc+jr..] (+)= Ã panel · B̃ panel
//! ```
//!
//! # Note on strides
//!
//! Packing is the only place that reads A and B, and it reads them through their strides:
//! whichever of an operand's two strides is smaller in magnitude becomes the direction of the
//! unit of work, a *run* (see [`pack`]), so a transposed operand is read as sequentially as a
//! row-major one. Negative strides are just pointer offsets; stride 0 (broadcast) rows or
//! columns read the same values again. Packing also converts to the accumulator type, which
//! is how `f16`/`bf16` reach the `f32` kernel. Nothing is copied outside these panels, which
//! are bounded by the blocking sizes, not by the operands.
//!
//! Products of one row or one column (`m == 1` or `n == 1`) skip packing: see [`gemv`].

use num_traits::Zero;

use super::kernel::{Accum, Kernel, Tile};
use super::types::{MatMut, MatRef, Scalar, SendPtr};

/// `a` rounded up to a multiple of `b`.
fn round_up(a: usize, b: usize) -> usize {
    a.div_ceil(b) * b
}

/// A zero-filled buffer whose usable part starts on a 64-byte boundary.
struct PackBuf<A> {
    buf: Vec<A>,
    start: usize,
    len: usize,
}

impl<A: Accum> PackBuf<A> {
    fn new(len: usize) -> PackBuf<A> {
        let pad = 64 / std::mem::size_of::<A>();
        let buf = vec![A::zero(); len + pad];
        // `align_offset` may decline to align (then alignment is only a speed matter: the
        // kernels use unaligned loads).
        let start = buf.as_ptr().align_offset(64).min(pad);
        PackBuf { buf, start, len }
    }

    fn as_mut_slice(&mut self) -> &mut [A] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

/// Packs the `xs × depth` block whose element `(x, d)` is at `src + x * sx + d * sd` into
/// panels of `w` values of `x` per `d`: element `(x, d)` goes to
/// `dst[(x / w) * w * depth + d * w + x % w]`; `x` is zero-padded up to a multiple of `w`.
///
/// For A, `x` is the row and `d` the column (`w = mr`); for B, `x` is the column and `d` the
/// row (`w = nr`). The reads go in *runs* along whichever of `x`, `d` has the smaller stride.
///
/// # Safety
/// For `x < xs`, `d < depth`, `src + x * sx + d * sd` must be readable (when both are
/// non-zero).
unsafe fn pack<T: Scalar>(
    src: *const T,
    sx: isize,
    sd: isize,
    xs: usize,
    depth: usize,
    w: usize,
    dst: &mut [T::Acc],
) {
    let panels = xs.div_ceil(w);
    let dst = &mut dst[..panels * w * depth];
    if let Some(src) = T::as_acc_src(src) {
        // SAFETY: the caller's contract, for the same elements read as the accumulator type,
        // which they are.
        return unsafe { pack_direct(src, sx, sd, xs, depth, w, dst) };
    }
    if sx.unsigned_abs() <= sd.unsigned_abs() {
        let mut run = vec![T::Acc::zero(); xs];
        for d in 0..depth {
            // SAFETY: row `d` of the block, `xs` elements at stride `sx`: readable by contract.
            unsafe { T::load_run(src.offset(d as isize * sd), sx, &mut run) };
            for (p, chunk) in run.chunks(w).enumerate() {
                let at = p * w * depth + d * w;
                dst[at..at + chunk.len()].copy_from_slice(chunk);
                dst[at + chunk.len()..at + w].fill(T::Acc::zero());
            }
        }
    } else {
        let mut run = vec![T::Acc::zero(); depth];
        for x in 0..xs {
            // SAFETY: column `x` of the block, `depth` elements at stride `sd`.
            unsafe { T::load_run(src.offset(x as isize * sx), sd, &mut run) };
            let base = (x / w) * w * depth + x % w;
            for (d, &v) in run.iter().enumerate() {
                dst[base + d * w] = v;
            }
        }
        for x in xs..panels * w {
            let base = (x / w) * w * depth + x % w;
            for d in 0..depth {
                dst[base + d * w] = T::Acc::zero();
            }
        }
    }
}

/// [`pack`] for element types that are their own accumulator type: no conversion, so the
/// panels are filled straight from the source. When `x` is the short-stride direction (a
/// transposed A, a row-major B) each line `d` is read across all panels at once, so every
/// cache line fetched is used whole; otherwise each panel reads its `w` lines side by side.
///
/// # Safety
/// As [`pack`]; `dst` holds the panels.
unsafe fn pack_direct<A: Accum>(
    src: *const A,
    sx: isize,
    sd: isize,
    xs: usize,
    depth: usize,
    w: usize,
    dst: &mut [A],
) {
    // SAFETY (every arm): the caller's contract, passed on.
    unsafe {
        match w {
            4 => pack_fixed::<A, 4>(src, sx, sd, xs, depth, dst),
            6 => pack_fixed::<A, 6>(src, sx, sd, xs, depth, dst),
            8 => pack_fixed::<A, 8>(src, sx, sd, xs, depth, dst),
            12 => pack_fixed::<A, 12>(src, sx, sd, xs, depth, dst),
            16 => pack_fixed::<A, 16>(src, sx, sd, xs, depth, dst),
            32 => pack_fixed::<A, 32>(src, sx, sd, xs, depth, dst),
            _ => pack_any(src, sx, sd, xs, depth, w, dst),
        }
    }
}

/// [`pack_direct`] for a panel width known at compile time: each whole panel line is one
/// fixed-size copy (a few vector moves) or `W` strided loads, with no per-line call or
/// length check; a trailing partial panel goes through [`pack_any`].
///
/// # Safety
/// As [`pack`].
unsafe fn pack_fixed<A: Accum, const W: usize>(
    src: *const A,
    sx: isize,
    sd: isize,
    xs: usize,
    depth: usize,
    dst: &mut [A],
) {
    let full = xs / W;
    let line = |x0: usize, d: usize| src.wrapping_offset(x0 as isize * sx + d as isize * sd);
    let copy = |o: &mut [A], at: *const A| {
        let o: &mut [A; W] = o.try_into().expect("a panel line holds W values");
        if sx == 1 {
            // SAFETY: W consecutive elements (x0 .. x0 + W, d) of the block: readable by the
            // caller's contract; `[A; W]` has the alignment of `A`.
            *o = unsafe { at.cast::<[A; W]>().read() };
        } else {
            for (i, v) in o.iter_mut().enumerate() {
                // SAFETY: element (x0 + i, d) of the block, i < W.
                *v = unsafe { *at.wrapping_offset(i as isize * sx) };
            }
        }
    };
    let (whole, rest) = dst.split_at_mut(full * W * depth);
    if sx.unsigned_abs() <= sd.unsigned_abs() {
        for d in 0..depth {
            for (p, panel) in whole.chunks_exact_mut(W * depth).enumerate() {
                copy(&mut panel[d * W..(d + 1) * W], line(p * W, d));
            }
        }
    } else if sd == 1 {
        // Rows of the block are contiguous (a row-major A): the panel is the transpose of its
        // `W` rows. Blocks of `STEP` columns are read as `W` short runs, transposed in
        // registers and stored as `STEP` whole panel lines (one contiguous stretch); the
        // columns past the last whole block go one by one.
        const STEP: usize = 8;
        let blocks = depth / STEP;
        for (p, panel) in whole.chunks_exact_mut(W * depth).enumerate() {
            // SAFETY: rows p * W + i of the block, `depth` contiguous elements each.
            let rows: [&[A]; W] = std::array::from_fn(|i| unsafe {
                std::slice::from_raw_parts(line(p * W + i, 0), depth)
            });
            let (head, tail) = panel.split_at_mut(blocks * STEP * W);
            for (b, out) in head.chunks_exact_mut(STEP * W).enumerate() {
                let mut t = [[A::zero(); W]; STEP];
                for (i, row) in rows.iter().enumerate() {
                    let run: &[A; STEP] = row[b * STEP..(b + 1) * STEP]
                        .try_into()
                        .expect("STEP columns");
                    for (q, &v) in run.iter().enumerate() {
                        t[q][i] = v;
                    }
                }
                for (o, line) in out.chunks_exact_mut(W).zip(&t) {
                    o.copy_from_slice(line);
                }
            }
            for (q, o) in tail.chunks_exact_mut(W).enumerate() {
                for (v, row) in o.iter_mut().zip(&rows) {
                    *v = row[blocks * STEP + q];
                }
            }
        }
    } else {
        for (p, panel) in whole.chunks_exact_mut(W * depth).enumerate() {
            for (d, o) in panel.chunks_exact_mut(W).enumerate() {
                copy(o, line(p * W, d));
            }
        }
    }
    if xs > full * W {
        // SAFETY: the remaining columns of the block.
        unsafe { pack_any(line(full * W, 0), sx, sd, xs - full * W, depth, W, rest) }
    }
}

/// [`pack_direct`] for any panel width.
///
/// # Safety
/// As [`pack`].
unsafe fn pack_any<A: Accum>(
    src: *const A,
    sx: isize,
    sd: isize,
    xs: usize,
    depth: usize,
    w: usize,
    dst: &mut [A],
) {
    // Copies elements (x0 .. x0 + o.len(), d) into `o`.
    let copy = |o: &mut [A], x0: usize, d: usize| {
        let line = src.wrapping_offset(x0 as isize * sx + d as isize * sd);
        if sx == 1 {
            // SAFETY: elements (x0 + i, d), i < o.len(), of the block: readable by contract.
            o.copy_from_slice(unsafe { std::slice::from_raw_parts(line, o.len()) });
        } else {
            for (i, v) in o.iter_mut().enumerate() {
                // SAFETY: element (x0 + i, d) of the block.
                *v = unsafe { *line.wrapping_offset(i as isize * sx) };
            }
        }
    };
    let panel_len = w * depth;
    if sx.unsigned_abs() <= sd.unsigned_abs() {
        for d in 0..depth {
            for (p, panel) in dst.chunks_exact_mut(panel_len).enumerate() {
                let valid = w.min(xs - p * w);
                let (o, pad) = panel[d * w..(d + 1) * w].split_at_mut(valid);
                copy(o, p * w, d);
                pad.fill(A::zero());
            }
        }
    } else {
        for (p, panel) in dst.chunks_exact_mut(panel_len).enumerate() {
            let valid = w.min(xs - p * w);
            for (d, o) in panel.chunks_exact_mut(w).enumerate() {
                let (o, pad) = o.split_at_mut(valid);
                copy(o, p * w, d);
                pad.fill(A::zero());
            }
        }
    }
}

/// Everything a task of the parallel loops needs; pointers are shared read-only (A, B) or
/// written in disjoint tiles (C).
#[derive(Clone, Copy)]
struct Job<T: Scalar> {
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T::Acc>,
    kern: Kernel<T::Acc>,
}

/// `C (+)= A · B` for an `m × k` A, `k × n` B and `m × n` C, with `threads` threads.
///
/// # Safety
/// Every element `(i, p)` of `a` (`i < m`, `p < k`) and `(p, j)` of `b` is readable; every
/// element `(i, j)` of `c` is writable (and readable if `accumulate`), distinct indices of `c`
/// address distinct elements, `c` overlaps neither `a` nor `b`, and nothing else accesses `c`
/// during the call. Memory of `c` need not be initialized when `!accumulate`: it is then
/// written before it is read.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm_core<T: Scalar>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T::Acc>,
    accumulate: bool,
    threads: usize,
    kern: Kernel<T::Acc>,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            for i in 0..m {
                for j in 0..n {
                    // SAFETY: (i, j) is an element of C.
                    unsafe { *c.at(i, j) = T::Acc::zero() };
                }
            }
        }
        return;
    }
    // The kernels store rows of C as vectors: make C's rows the short-stride direction by
    // computing Cᵀ = Bᵀ · Aᵀ instead when C is column-major.
    if c.cs.unsigned_abs() > c.rs.unsigned_abs() {
        // SAFETY: the same elements under swapped names.
        return unsafe { gemm_core(n, m, k, b.t(), a.t(), c.t(), accumulate, threads, kern) };
    }
    if m == 1 {
        // SAFETY: as above; the transposed problem has n == 1.
        return unsafe { gemv(n, k, b.t(), a.t(), c.t(), accumulate) };
    }
    if n == 1 {
        // SAFETY: the caller's contract.
        return unsafe { gemv(m, k, a, b, c, accumulate) };
    }
    let job = Job { a, b, c, kern };
    // SAFETY: the caller's contract.
    unsafe { blocked(m, n, k, job, accumulate, threads) }
}

/// The five loops; see the [module docs](self).
///
/// # Safety
/// As [`gemm_core`], with `m, n, k > 0`.
unsafe fn blocked<T: Scalar>(
    m: usize,
    n: usize,
    k: usize,
    job: Job<T>,
    accumulate: bool,
    threads: usize,
) {
    let Kernel {
        mr,
        nr,
        kc: kc_max,
        mut mc,
        nc: nc_max,
        ..
    } = job.kern;
    if threads > 1 {
        // A multiple of `threads` blocks of (nearly) equal height, so that the threads finish
        // together.
        let blocks = round_up(m.div_ceil(mc), threads);
        mc = round_up(m.div_ceil(blocks), mr);
    }
    let kc_cap = k.min(kc_max);
    let nc_cap = round_up(n.min(nc_max), nr);
    let mut bpack = PackBuf::<T::Acc>::new(kc_cap * nc_cap);
    let shared = SendPtr(job);
    for jc in (0..n).step_by(nc_max) {
        let nc = nc_max.min(n - jc);
        for pc in (0..k).step_by(kc_max) {
            let kc = kc_max.min(k - pc);
            let bdst = &mut bpack.as_mut_slice()[..round_up(nc, nr) * kc];
            let bsrc = SendPtr(job.b.at(pc, jc));
            let pack_b = |(panel0, chunk): (usize, &mut [T::Acc])| {
                let job = shared.get();
                let x0 = panel0 * nr;
                let xs = (chunk.len() / kc).min(nc - x0);
                // SAFETY: columns x0..x0+xs of the block, which lie inside it.
                unsafe {
                    let src = bsrc.get().offset(x0 as isize * job.b.cs);
                    pack::<T>(src, job.b.cs, job.b.rs, xs, kc, nr, chunk);
                }
            };
            let panels = nc.div_ceil(nr);
            if threads > 1 && panels >= 2 * threads {
                let per = panels.div_ceil(threads);
                crate::kernels::parallel::par_chunks_mut(bdst, per * nr * kc, |t, chunk| {
                    pack_b((t * per, chunk))
                });
            } else {
                pack_b((0, bdst));
            }
            let bpanels = SendPtr(bpack.as_mut_slice().as_ptr());
            let acc = accumulate || pc > 0;
            let block = |apack: &mut PackBuf<T::Acc>, ic: usize| {
                let job = shared.get();
                let mcur = mc.min(m - ic);
                let adst = apack.as_mut_slice();
                // SAFETY: rows ic..ic+mcur, columns pc..pc+kc of A; the tile writes go to
                // rows ic..ic+mcur of C, which no other block writes.
                unsafe {
                    pack::<T>(job.a.at(ic, pc), job.a.rs, job.a.cs, mcur, kc, mr, adst);
                    macro_kernel(
                        &job,
                        mcur,
                        nc,
                        kc,
                        adst.as_ptr(),
                        bpanels.get(),
                        ic,
                        jc,
                        acc,
                    );
                }
            };
            let blocks = m.div_ceil(mc);
            if threads > 1 && blocks > 1 {
                crate::kernels::parallel::par_for_init(
                    blocks,
                    || PackBuf::new(mc * kc),
                    |buf, blk| block(buf, blk * mc),
                );
            } else {
                let mut apack = PackBuf::new(mc.min(round_up(m, mr)) * kc);
                for ic in (0..m).step_by(mc) {
                    block(&mut apack, ic);
                }
            }
        }
    }
}

/// All register tiles of one `mc × nc` block of C at `(ic, jc)`.
///
/// # Safety
/// `apack` holds `round_up(mc, mr) * kc` and `bpack` `round_up(nc, nr) * kc` packed values;
/// the block lies inside C and no other thread writes it.
#[allow(clippy::too_many_arguments)]
unsafe fn macro_kernel<T: Scalar>(
    job: &Job<T>,
    mc: usize,
    nc: usize,
    kc: usize,
    apack: *const T::Acc,
    bpack: *const T::Acc,
    ic: usize,
    jc: usize,
    accumulate: bool,
) {
    let Kernel { mr, nr, run, .. } = job.kern;
    for jr in (0..nc).step_by(nr) {
        for ir in (0..mc).step_by(mr) {
            // SAFETY: panel ir / mr of A and jr / nr of B exist in the packs; the tile
            // (ic + ir, jc + jr) of size m × n lies in the block.
            unsafe {
                let tile = Tile {
                    kc,
                    a: apack.add(ir * kc),
                    b: bpack.add(jr * kc),
                    c: job.c.at(ic + ir, jc + jr),
                    rs_c: job.c.rs,
                    cs_c: job.c.cs,
                    m: mr.min(mc - ir),
                    n: nr.min(nc - jr),
                    accumulate,
                };
                run(&tile);
            }
        }
    }
}

/// Length of the chunks `gemv` converts at a time.
const RUN: usize = 256;
/// Rows of A whose sums `gemv` carries side by side when A's rows are its short-stride
/// direction (independent chains that hide the multiply-add's latency).
const GEMV_ROWS: usize = 8;

/// `y (+)= A · x` for an `m × k` A, a `k × 1` x and an `m × 1` y, without packing: each
/// `y[i]` is one chain of fused multiply-adds over `p` in order, started at `y[i]` when
/// accumulating and at zero otherwise, which is what every other path computes for the same
/// element (Note [canonical order] in `super`).
///
/// # Safety
/// As [`gemm_core`] with `n == 1`.
unsafe fn gemv<T: Scalar>(
    m: usize,
    k: usize,
    a: MatRef<T>,
    x: MatRef<T>,
    y: MatMut<T::Acc>,
    accumulate: bool,
) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if crate::kernels::dispatch::has_avx2_fma() {
        /// [`gemv_body`] compiled with AVX2 and FMA (a named function: the body is too large
        /// for a closure to be inlined into `with_avx2` reliably).
        ///
        /// # Safety
        /// As [`gemv`], and the CPU has AVX2 and FMA.
        #[target_feature(enable = "avx2,fma")]
        unsafe fn wide<T: Scalar>(
            m: usize,
            k: usize,
            a: MatRef<T>,
            x: MatRef<T>,
            y: MatMut<T::Acc>,
            accumulate: bool,
        ) {
            // SAFETY: forwarded.
            unsafe { gemv_body(m, k, a, x, y, accumulate) }
        }
        // SAFETY: the CPU has AVX2 and FMA (just detected); the rest is forwarded.
        return unsafe { wide(m, k, a, x, y, accumulate) };
    }
    // SAFETY: forwarded.
    unsafe { gemv_body(m, k, a, x, y, accumulate) }
}

/// The loops of [`gemv`].
///
/// # Safety
/// As [`gemv`].
#[inline(always)]
unsafe fn gemv_body<T: Scalar>(
    m: usize,
    k: usize,
    a: MatRef<T>,
    x: MatRef<T>,
    y: MatMut<T::Acc>,
    accumulate: bool,
) {
    let zero = T::Acc::zero();
    let mut sums: Vec<T::Acc> = (0..m)
        // SAFETY: element (i, 0) of y, readable when accumulating (the contract).
        .map(|i| {
            if accumulate {
                unsafe { *y.at(i, 0) }
            } else {
                zero
            }
        })
        .collect();
    let mut xs = [zero; RUN];
    let rows_short = a.cs.unsigned_abs() <= a.rs.unsigned_abs();
    let mut run = vec![zero; if rows_short { GEMV_ROWS * RUN } else { m }];
    for p0 in (0..k).step_by(RUN) {
        let len = RUN.min(k - p0);
        // SAFETY: entries p0..p0+len of x.
        unsafe { T::load_run(x.at(p0, 0), x.rs, &mut xs[..len]) };
        if rows_short {
            // Rows of A are the short-stride direction: GEMV_ROWS rows' chains side by side.
            for i0 in (0..m).step_by(GEMV_ROWS) {
                let rows = GEMV_ROWS.min(m - i0);
                for r in 0..rows {
                    // SAFETY: row i0 + r < m, columns p0..p0+len of A.
                    unsafe { T::load_run(a.at(i0 + r, p0), a.cs, &mut run[r * RUN..][..len]) };
                }
                let mut s = [zero; GEMV_ROWS];
                s[..rows].copy_from_slice(&sums[i0..i0 + rows]);
                for (p, &xp) in xs[..len].iter().enumerate() {
                    for (r, acc) in s.iter_mut().enumerate() {
                        *acc = num_traits::Float::mul_add(run[r * RUN + p], xp, *acc);
                    }
                }
                sums[i0..i0 + rows].copy_from_slice(&s[..rows]);
            }
        } else {
            // Columns are: add multiples of columns, each sum's chain in `p` order.
            for (p, &xp) in xs[..len].iter().enumerate() {
                // SAFETY: column p0 + p of A, all m rows.
                unsafe { T::load_run(a.at(0, p0 + p), a.rs, &mut run[..m]) };
                for (s, &v) in sums.iter_mut().zip(&run[..m]) {
                    *s = num_traits::Float::mul_add(v, xp, *s);
                }
            }
        }
    }
    for (i, &s) in sums.iter().enumerate() {
        // SAFETY: element (i, 0) of y.
        unsafe { *y.at(i, 0) = s };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel this CPU can run, through the blocked loops with tiny blocks (so that
    /// every loop runs several times and every edge case occurs), against a plain triple loop.
    #[test]
    fn every_kernel_matches_naive() {
        for kern in <f64 as Accum>::kernels() {
            check_kernel(Kernel {
                kc: 3,
                mc: 2 * kern.mr,
                nc: 2 * kern.nr,
                ..kern
            });
        }
        for kern in <f32 as Accum>::kernels() {
            check_kernel(Kernel {
                kc: 5,
                mc: 3 * kern.mr,
                nc: 2 * kern.nr,
                ..kern
            });
        }
    }

    fn check_kernel<A: Accum + Scalar<Acc = A>>(kern: Kernel<A>) {
        // Small integers: every sum is exact, so results compare with ==.
        let val = |v: usize, m: usize| A::from(v % m).unwrap() - A::from(m / 2).unwrap();
        let (mr, nr) = (kern.mr, kern.nr);
        let sizes = [
            (2 * mr + 1, 3 * nr + 2, 10),
            (1, 5, 4),
            (5, 1, 4),
            (mr, nr, 1),
            (4, 4, 0),
        ];
        for (m, n, k) in sizes {
            let a: Vec<A> = (0..m * k).map(|v| val(v, 7)).collect();
            let b: Vec<A> = (0..k * n).map(|v| val(v, 5)).collect();
            for threads in [1, 3] {
                for accumulate in [false, true] {
                    for c_row_major in [false, true] {
                        let mut c = vec![A::one(); m * n];
                        let (rs, cs) = if c_row_major { (n, 1) } else { (1, m) };
                        let c_mat = MatMut {
                            ptr: c.as_mut_ptr(),
                            rs: rs as isize,
                            cs: cs as isize,
                        };
                        // SAFETY: the three buffers are separate and sized for their strides.
                        unsafe {
                            gemm_core::<A>(
                                m,
                                n,
                                k,
                                MatRef {
                                    ptr: a.as_ptr(),
                                    rs: k as isize,
                                    cs: 1,
                                },
                                MatRef {
                                    ptr: b.as_ptr(),
                                    rs: 1,
                                    cs: k as isize,
                                },
                                c_mat,
                                accumulate,
                                threads,
                                kern,
                            );
                        }
                        for i in 0..m {
                            for j in 0..n {
                                let mut want = if accumulate { A::one() } else { A::zero() };
                                for p in 0..k {
                                    want = want + a[i * k + p] * b[j * k + p];
                                }
                                let got = c[i * rs + j * cs];
                                assert_eq!(got, want, "{} {m}x{n}x{k} ({i}, {j})", kern.name);
                            }
                        }
                    }
                }
            }
        }
    }
}
