//! The integer GEMM: `C (+)= A · B` for `i32` and `i64`, exact modulo `2^bits` (every
//! product and sum wraps, as the other integer ops do; see [`crate::scalar`]).
//!
//! A simple blocked kernel, not tuned like the float core:
//!
//! ```text
//! for rows i0 in 0..m step MC            (parallel over row blocks when the product is large)
//!   for jc in 0..n step NC
//!     for pc in 0..k step KC
//!       pack B[pc.., jc..] (KC × NC) row-major        reads B through its strides
//!       for i in i0.. step 4                           4 rows of C share each B row
//!         acc[4][NC] = Σ_p A[i.., pc + p] · B̃[p, ..]   inner loop over NC: vectorised
//!         C[i.., jc..] = (pc == 0 && !accumulate ? 0 : C) + acc
//! ```
//!
//! A is read element by element through its strides (one value per row and step of `k`,
//! broadcast across the `NC` lane loop); B is read through its strides while packing; C is
//! written through its strides. Wrapping arithmetic is associative and commutative, so the
//! result is exactly the naive triple loop's, whatever the blocking or thread split.

use num_traits::{WrappingAdd, WrappingMul, Zero};

use super::types::{MatMut, MatRef, SendPtr};
use crate::element::Element;

/// Depth of a packed block of B.
const KC: usize = 256;
/// Width of a packed block of B (and of the accumulator rows).
const NC: usize = 256;
/// Rows of C per parallel task.
const MC: usize = 64;
/// Rows of C computed together (sharing each packed row of B).
const MR: usize = 4;

/// An integer type the kernel multiplies.
pub(crate) trait Int: Element + Zero + WrappingAdd + WrappingMul {}
impl Int for i32 {}
impl Int for i64 {}

/// `C = A · B` or, with `accumulate`, `C += A · B`, wrapping; up to `threads` threads of the
/// current rayon pool.
///
/// # Safety
/// As [`super::gemm::gemm`]: every `(i, p)` of `a` and `(p, j)` of `b` readable, every
/// `(i, j)` of `c` writable (and initialized if `accumulate`), distinct indices of `c`
/// distinct elements, `c` overlapping neither input, nothing else touching `c`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm_int<T: Int>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    accumulate: bool,
    threads: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    let blocks = m.div_ceil(MC);
    let job = SendPtr((a, b, c));
    let rows = |blk: usize| {
        let (a, b, c) = job.get();
        let i0 = blk * MC;
        // SAFETY: rows i0..i0 + MC of C are this task's alone; the reads are in range by the
        // caller's contract.
        unsafe { row_block(i0, MC.min(m - i0), n, k, a, b, c, accumulate) }
    };
    if threads > 1 && blocks > 1 {
        crate::kernels::parallel::par_for(blocks, rows);
    } else {
        (0..blocks).for_each(rows);
    }
}

/// Rows `i0..i0 + mm` of C.
///
/// # Safety
/// As [`gemm_int`], for those rows; no other thread touches them.
#[allow(clippy::too_many_arguments)]
unsafe fn row_block<T: Int>(
    i0: usize,
    mm: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    accumulate: bool,
) {
    // On the heap: the packed block is up to 512 KiB.
    #[allow(clippy::useless_vec)]
    let (mut packed, mut acc) = (vec![T::zero(); KC * NC], vec![T::zero(); MR * NC]);
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        if k == 0 && !accumulate {
            for i in i0..i0 + mm {
                for j in jc..jc + nc {
                    // SAFETY: (i, j) is an element of C.
                    unsafe { c.at(i, j).write(T::zero()) };
                }
            }
        }
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            for p in 0..kc {
                for j in 0..nc {
                    // SAFETY: (pc + p, jc + j) is an element of B.
                    packed[p * nc + j] = unsafe { b.at(pc + p, jc + j).read() };
                }
            }
            let overwrite = pc == 0 && !accumulate;
            for ir in (0..mm).step_by(MR) {
                let mr = MR.min(mm - ir);
                let acc = &mut acc[..MR * nc];
                acc.fill(T::zero());
                for p in 0..kc {
                    let brow = &packed[p * nc..(p + 1) * nc];
                    for r in 0..mr {
                        // SAFETY: (i0 + ir + r, pc + p) is an element of A.
                        let x = unsafe { a.at(i0 + ir + r, pc + p).read() };
                        let row = &mut acc[r * nc..(r + 1) * nc];
                        for (s, &y) in row.iter_mut().zip(brow) {
                            *s = s.wrapping_add(&x.wrapping_mul(&y));
                        }
                    }
                }
                for r in 0..mr {
                    for (j, &s) in acc[r * nc..(r + 1) * nc].iter().enumerate() {
                        let p = c.at(i0 + ir + r, jc + j);
                        // SAFETY: an element of C in this task's rows; read only when it
                        // holds a value (accumulating, or after the first depth block).
                        unsafe {
                            let v = if overwrite {
                                s
                            } else {
                                p.read().wrapping_add(&s)
                            };
                            p.write(v);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive wrapping triple loop.
    fn naive(m: usize, n: usize, k: usize, a: &[i32], b: &[i32]) -> Vec<i32> {
        let mut c = vec![0i32; m * n];
        for i in 0..m {
            for j in 0..n {
                for p in 0..k {
                    c[i * n + j] =
                        c[i * n + j].wrapping_add(a[i * k + p].wrapping_mul(b[p * n + j]));
                }
            }
        }
        c
    }

    #[test]
    #[cfg_attr(miri, ignore = "70x260x300 product: hours under Miri")]
    fn blocked_matches_naive_across_block_edges() {
        let (m, n, k) = (70, 260, 300);
        let a: Vec<i32> = (0..m * k)
            .map(|i| (i as i32).wrapping_mul(-1_640_531_535))
            .collect();
        let b: Vec<i32> = (0..k * n)
            .map(|i| (i as i32).wrapping_mul(40_503) - 7)
            .collect();
        let want = naive(m, n, k, &a, &b);
        for threads in [1, 3] {
            // C column-major, B read transposed from a column-major copy.
            let bt: Vec<i32> = (0..n * k).map(|q| b[(q % k) * n + q / k]).collect();
            let mut c = vec![0i32; m * n];
            let am = MatRef {
                ptr: a.as_ptr(),
                rs: k as isize,
                cs: 1,
            };
            let bm = MatRef {
                ptr: bt.as_ptr(),
                rs: 1,
                cs: k as isize,
            };
            let cm = MatMut {
                ptr: c.as_mut_ptr(),
                rs: 1,
                cs: m as isize,
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            // SAFETY: every matrix lies inside its Vec; C is a separate allocation.
            let job = SendPtr((am, bm, cm));
            pool.install(|| {
                let (am, bm, cm) = job.get();
                unsafe { gemm_int(m, n, k, am, bm, cm, false, threads) }
            });
            let got: Vec<i32> = (0..m * n).map(|q| c[(q % n) * m + q / n]).collect();
            assert_eq!(got, want, "threads {threads}");
            // Accumulating adds the same product again.
            // SAFETY: as above.
            unsafe { gemm_int(m, n, k, am, bm, cm, true, 1) };
            let twice: Vec<i32> = (0..m * n).map(|q| c[(q % n) * m + q / n]).collect();
            let want2: Vec<i32> = want.iter().map(|&x| x.wrapping_mul(2)).collect();
            assert_eq!(twice, want2);
        }
    }
}
