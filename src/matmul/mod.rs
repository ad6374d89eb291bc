//! Matrix products of strided tensors: [`Tensor::matmul`](crate::Tensor::matmul) and
//! [`Tensor::matmul_into`](crate::Tensor::matmul_into).
//!
//! This module holds the shape rules (which dims are contracted, how batch dims broadcast,
//! what the result's shape is) and reduces a product of two layouts to a list of plain matrix
//! products on storage offsets. It has no `unsafe`; the arithmetic lives in its kernel
//! submodules:
//!
//! - `gemm`: the one internal GEMM entry point and the executors that run a plan,
//! - `core`: packing and the blocked loops,
//! - `kernel`: the register-tile micro-kernels,
//! - `int`: the blocked integer kernel for `i32` and `i64` (wrapping, exact).
//!
//! # Shape rules (PyTorch's `matmul`)
//!
//! | `a`          | `b`          | result                         |
//! |--------------|--------------|--------------------------------|
//! | `[k]`        | `[k]`        | `[]` (dot product)             |
//! | `[m, k]`     | `[k, n]`     | `[m, n]`                       |
//! | `[k]`        | `[k, n]`     | `[n]` (`a` as a row, dropped)  |
//! | `[m, k]`     | `[k]`        | `[m]` (`b` as a column, dropped)|
//! | `[.., m, k]` | `[.., k, n]` | `[broadcast(..), m, n]`        |
//!
//! A 1-dim operand in a batched product is a row (`a`) or column (`b`) as above. Batch dims
//! broadcast by NumPy's rules; a broadcast batch dim gets stride 0, so every product of the
//! batch reads the same matrix: nothing is materialised.
//!
//! # Note on strides
//!
//! Operands are never copied: each product of the batch is handed to the GEMM core as a
//! pointer with a row and a column stride, exactly as the layout has them (transposed,
//! narrowed, stepped, flipped or `as_strided`). The core packs small blocks of the operands
//! into cache-sized panels as it goes, the way every strided GEMM works; how it reads strided
//! blocks is noted in the `core` module. When `b` is shared by the whole batch (broadcast or
//! 2-dim) and the batch dims of `a` and of the result are evenly spaced rows, the batch is
//! folded into the rows of one large product, so `b` is packed once.
//!
//! # Note [canonical order]
//!
//! Element `(i, j)` of a product is one chain of fused multiply-adds over `p = 0..k` in
//! order, `acc = fma(a[i, p], b[p, j], acc)`, started at C's old value when accumulating
//! ([`matmul_into`](crate::Tensor::matmul_into) with `accumulate`) and at `+0.0` otherwise,
//! in the accumulator type (`f32` for `f16` and `bf16`, rounded once at the end). Every path
//! computes exactly that: the small direct tiles, the packed kernels (which continue the
//! chain across `k` blocks by loading C into their accumulators, never by adding a block's
//! sum to C), the vector product (`m = 1` or `n = 1`), batches folded into rows, the
//! portable, AVX2 and AVX-512 kernels (the portable one calls `mul_add`: a library call
//! where the CPU has no FMA, slower, the same bits), and any thread count (threads split
//! rows and columns of C, never `k`). So a row of a product does not depend on how many
//! rows are computed with it (batch-invariant inference), nor a column on the columns
//! beside it, nor either on the operands' strides. The same contract for reductions is the
//! Note [canonical order] of the reduction kernels (`kernels/reduce.rs`).
//!
//! # Note on the GEMM core
//!
//! Three candidates were measured on the same operands, in one run, round-robin (best of 25
//! rounds, 1024³ `f32`, one thread, a 2-core AMD EPYC (Zen 3) with AVX2 + FMA and no AVX-512;
//! `RUSTFLAGS="--cfg stridex_compare" cargo bench --bench matmul -- ratios`):
//!
//! | core                                   | contiguous A | transposed A | narrowed A |
//! |----------------------------------------|--------------|--------------|------------|
//! | own packing + 6 × 16 FMA micro-kernel   | 1.00         | 0.99         | 1.02       |
//! | `gemm` crate (candle's core)            | 0.89         | 0.91         | –          |
//! | `matrixmultiply` (ndarray's `dot`)      | 0.91         | –            | –          |
//!
//! (times relative to the own core on contiguous operands, higher is faster; the own core
//! ran at 83 GFLOP/s, about 90% of the FMA peak measured on that machine, and OpenBLAS
//! through NumPy at 71–73.) All three accept signed strides. The own core was chosen
//! because it was the fastest of the three, because one packing routine serves `f32`, `f64`,
//! `f16` *and* `bf16` (the `gemm` crate lacks `bf16`, `matrixmultiply` both half types) and
//! accumulates the half types in `f32` over the full depth, because it threads through the
//! caller's rayon pool, and because it adds no dependency. It sits behind the one function
//! `gemm::gemm`, so it can be swapped for either crate by reimplementing that function.
//!
//! # Output and aliasing
//!
//! [`matmul`](crate::Tensor::matmul) writes a fresh row-major tensor.
//! [`matmul_into`](crate::Tensor::matmul_into) writes through the output's own strides and
//! refuses (with an `Err`) an output whose layout may address one element twice or whose
//! storage is shared with any other tensor, which includes the inputs: an in-place write
//! into a storage someone else reads is never done silently.

mod core;
mod gemm;
mod int;
mod kernel;
mod small;
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod small_avx2;
mod types;

use crate::error::{Error, Result};
use crate::layout::{Dims, Layout, broadcast_shapes, coalesce_joint};
use crate::storage::Storage;

/// Element types [`Tensor::matmul`](crate::Tensor::matmul) supports: `f32`, `f64`,
/// [`half::f16`] and [`half::bf16`] (the two half types accumulate in `f32`), and `i32` and
/// `i64`, whose products are exact modulo `2^bits`: every multiply and add wraps, as the
/// other integer ops do, so the result equals the naive wrapping triple loop whatever the
/// blocking or thread count.
///
/// The trait is sealed.
///
/// ```
/// fn square<T: stridex::matmul::MatmulElement>(
///     x: &stridex::Tensor<T>,
/// ) -> stridex::Result<stridex::Tensor<T>> {
///     x.matmul(x)
/// }
/// let x = stridex::Tensor::from_vec(vec![1.0f32, 1.0, 0.0, 1.0], &[2, 2])?;
/// assert_eq!(square(&x)?.to_vec(), vec![1.0, 2.0, 0.0, 1.0]);
/// let big = stridex::Tensor::from_vec(vec![i32::MAX, 0, 0, 1], &[2, 2])?;
/// assert_eq!(square(&big)?.to_vec(), vec![1, 0, 0, 1]); // MAX * MAX wraps to 1
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait MatmulElement: gemm::GemmElement {}

impl MatmulElement for f32 {}
impl MatmulElement for f64 {}
impl MatmulElement for half::f16 {}
impl MatmulElement for half::bf16 {}
impl MatmulElement for i32 {}
impl MatmulElement for i64 {}

/// Row and column strides of one matrix, in elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MatStrides {
    pub rs: isize,
    pub cs: isize,
}

/// A matmul reduced to matrix products of one size: `m × k` times `k × n` into `m × n`, one
/// per index of the batch shape `batch`. The storage offsets `[a, b, c]` of a product's first
/// elements are computed from its index on demand ([`Batched::offsets`]), so a batch of
/// millions of tiny products needs no list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Batched {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: MatStrides,
    pub b: MatStrides,
    pub c: MatStrides,
    /// The batch shape (empty for a single product).
    batch: Vec<usize>,
    /// Per operand (a, b, c): the batch strides (0 where broadcast).
    batch_strides: [Vec<isize>; 3],
    /// Per operand: the offset of product 0.
    base: [usize; 3],
    /// Number of products (0 when the result is empty).
    count: usize,
}

impl Batched {
    /// Number of products.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// The one product of two 2-dim layouts with the same depth into a fresh row-major
    /// result, or `None` for any other pair (batched, 1-dim, or mismatched: the general path
    /// handles those and words the errors). Equal to what [`MatmulShape::gemms`] plans for
    /// such a pair, without its allocations.
    pub(crate) fn matrices(a: &Layout, b: &Layout) -> Option<Batched> {
        let (&[m, k], &[kb, n]) = (a.shape(), b.shape()) else {
            return None;
        };
        if k != kb {
            return None;
        }
        let (sa, sb) = (a.strides(), b.strides());
        Some(Batched {
            m,
            n,
            k,
            a: MatStrides {
                rs: sa[0],
                cs: sa[1],
            },
            b: MatStrides {
                rs: sb[0],
                cs: sb[1],
            },
            // Row-major, as `Layout::contiguous(&[m, n])` (a size-0 n counts as 1).
            c: MatStrides {
                rs: n.max(1) as isize,
                cs: 1,
            },
            batch: Vec::new(),
            batch_strides: [Vec::new(), Vec::new(), Vec::new()],
            base: [a.offset(), b.offset(), 0],
            count: usize::from(m != 0 && n != 0),
        })
    }

    /// Storage offsets `[a, b, c]` of product `q` (row-major over the batch shape).
    ///
    /// Formed with wrapping arithmetic: an operand with no elements (`k == 0`) may have
    /// meaningless strides, and its offsets are then never used; the others are addressed
    /// offsets of valid layouts, so they do not wrap.
    pub(crate) fn offsets(&self, q: usize) -> [usize; 3] {
        let mut off = self.base.map(|o| o as isize);
        let mut rest = q;
        for d in (0..self.batch.len()).rev() {
            let i = (rest % self.batch[d]) as isize;
            rest /= self.batch[d];
            for (o, s) in off.iter_mut().zip(&self.batch_strides) {
                *o = o.wrapping_add(i.wrapping_mul(s[d]));
            }
        }
        off.map(|o| o as usize)
    }
}

/// One operand seen as a batch of matrices.
#[derive(Clone, Debug)]
struct Operand {
    /// Strides of the batch dims, aligned to the broadcast batch shape (0 where broadcast).
    batch: Vec<isize>,
    mat: MatStrides,
    offset: usize,
}

/// The shape analysis of `a.matmul(b)`: result shape, matrix sizes and batch strides.
#[derive(Clone, Debug)]
pub(crate) struct MatmulShape {
    /// Inline up to rank 4: a 2-dim product allocates nothing for its shape analysis.
    out: Dims<usize>,
    batch: Vec<usize>,
    m: usize,
    n: usize,
    k: usize,
    /// `a` was 1-dim (the result has no row dim), `b` was 1-dim (no column dim).
    a_vec: bool,
    b_vec: bool,
    a: Operand,
    b: Operand,
}

/// Batch strides of `shape`/`strides` (the dims before the last `mat_dims`) aligned to the
/// broadcast batch shape `batch`: missing leading dims and broadcast size-1 dims get stride 0.
fn aligned_batch(batch: &[usize], shape: &[usize], strides: &[isize]) -> Vec<isize> {
    let pad = batch.len() - shape.len();
    (0..batch.len())
        .map(|i| match i.checked_sub(pad) {
            Some(j) if shape[j] == batch[i] => strides[j],
            _ => 0,
        })
        .collect()
}

impl MatmulShape {
    /// Applies the [shape rules](self) to `a.matmul(b)`.
    pub(crate) fn new(a: &Layout, b: &Layout) -> Result<MatmulShape> {
        let (sa, sb) = (a.shape(), b.shape());
        for l in [a, b] {
            if l.ndim() == 0 {
                return Err(Error::RankMismatch {
                    op: "matmul",
                    what: "dims (at least)",
                    expected: 1,
                    got: 0,
                });
            }
        }
        let (a_vec, b_vec) = (a.ndim() == 1, b.ndim() == 1);
        let (na, nb) = (a.ndim(), b.ndim());
        // Matrix dims: a 1-dim `a` is one row, a 1-dim `b` one column.
        let (m, ka, a_mat) = if a_vec {
            (
                1,
                sa[0],
                MatStrides {
                    rs: 0,
                    cs: a.strides()[0],
                },
            )
        } else {
            let st = a.strides();
            (
                sa[na - 2],
                sa[na - 1],
                MatStrides {
                    rs: st[na - 2],
                    cs: st[na - 1],
                },
            )
        };
        let (kb, n, b_mat) = if b_vec {
            (
                sb[0],
                1,
                MatStrides {
                    rs: b.strides()[0],
                    cs: 0,
                },
            )
        } else {
            let st = b.strides();
            (
                sb[nb - 2],
                sb[nb - 1],
                MatStrides {
                    rs: st[nb - 2],
                    cs: st[nb - 1],
                },
            )
        };
        if ka != kb {
            return Err(Error::MatmulMismatch {
                a: sa.to_vec(),
                b: sb.to_vec(),
                a_dim: na - 1,
                b_dim: if b_vec { 0 } else { nb - 2 },
            });
        }
        let (a_batch, b_batch) = (&sa[..na.saturating_sub(2)], &sb[..nb.saturating_sub(2)]);
        let batch = broadcast_shapes(a_batch, b_batch).map_err(|_| Error::MatmulBatchMismatch {
            a: sa.to_vec(),
            b: sb.to_vec(),
            a_batch: a_batch.to_vec(),
            b_batch: b_batch.to_vec(),
        })?;
        let mut out = Dims::from(&batch[..]);
        if !a_vec {
            out.push(m);
        }
        if !b_vec {
            out.push(n);
        }
        let operand = |l: &Layout, dims: &[usize], mat| Operand {
            batch: aligned_batch(&batch, dims, &l.strides()[..dims.len()]),
            mat,
            offset: l.offset(),
        };
        Ok(MatmulShape {
            a: operand(a, a_batch, a_mat),
            b: operand(b, b_batch, b_mat),
            out,
            batch,
            m,
            n,
            k: ka,
            a_vec,
            b_vec,
        })
    }

    /// The shape of the result.
    pub(crate) fn out_shape(&self) -> &[usize] {
        &self.out
    }

    /// The matrix products that compute the result into `c`, a layout of [`Self::out_shape`].
    pub(crate) fn gemms(&self, c: &Layout) -> Batched {
        debug_assert_eq!(c.shape(), self.out_shape());
        let nb = self.batch.len();
        let cs = c.strides();
        let c_mat = MatStrides {
            rs: if self.a_vec { 0 } else { cs[nb] },
            cs: if self.b_vec { 0 } else { cs[cs.len() - 1] },
        };
        let mut plan = Batched {
            m: self.m,
            n: self.n,
            k: self.k,
            a: self.a.mat,
            b: self.b.mat,
            c: c_mat,
            batch: self.batch.clone(),
            batch_strides: [
                self.a.batch.clone(),
                self.b.batch.clone(),
                cs[..nb].to_vec(),
            ],
            base: [self.a.offset, self.b.offset, c.offset()],
            count: if c.numel() == 0 {
                0
            } else {
                self.batch.iter().product()
            },
        };
        // Fold the batch into the rows when `b` is the same matrix for every product and the
        // batch dims and rows of `a` and `c` merge into one evenly spaced run of rows.
        let b_shared = self
            .batch
            .iter()
            .zip(&self.b.batch)
            .all(|(&d, &s)| d == 1 || s == 0);
        if b_shared && nb > 0 && plan.count > 0 {
            let mut shape = self.batch.clone();
            shape.push(self.m);
            let mut strides = [self.a.batch.clone(), cs[..nb].to_vec()];
            strides[0].push(self.a.mat.rs);
            strides[1].push(c_mat.rs);
            coalesce_joint(&mut shape, &mut strides);
            if shape.len() <= 1 {
                plan.m = shape.first().copied().unwrap_or(1);
                plan.a.rs = strides[0].first().copied().unwrap_or(self.a.mat.rs);
                plan.c.rs = strides[1].first().copied().unwrap_or(c_mat.rs);
                plan.batch.clear();
                plan.batch_strides = [vec![], vec![], vec![]];
                plan.count = 1;
            }
        }
        plan
    }
}

/// `a · b` into a fresh row-major storage; returns it with its layout.
pub(crate) fn matmul<T: MatmulElement>(
    a: &Storage<T>,
    al: &Layout,
    b: &Storage<T>,
    bl: &Layout,
) -> Result<(Storage<T>, Layout)> {
    if let Some(plan) = Batched::matrices(al, bl) {
        // Two matrices of matching depth: the common case skips the batch analysis. (Its own
        // tail, repeated below: joining the two paths in one `(plan, layout)` value moves
        // both once more, 3% of a 4x4 product's instructions.)
        let out = Layout::contiguous(&[plan.m, plan.n]).map_err(|e| e.with_op("matmul"))?;
        crate::error::checked_bytes("matmul", out.shape(), out.numel(), size_of::<T>())?;
        let storage = gemm::run_fresh(&plan, a, b, out.numel())?;
        return Ok((storage, out));
    }
    let shape = MatmulShape::new(al, bl)?;
    let out = Layout::contiguous(shape.out_shape()).map_err(|e| e.with_op("matmul"))?;
    crate::error::checked_bytes("matmul", out.shape(), out.numel(), size_of::<T>())?;
    let plan = shape.gemms(&out);
    let storage = gemm::run_fresh(&plan, a, b, out.numel())?;
    Ok((storage, out))
}

/// `a · b` written (or, with `accumulate`, added) into `c` viewed through `cl`.
pub(crate) fn matmul_into<T: MatmulElement>(
    a: (&Storage<T>, &Layout),
    b: (&Storage<T>, &Layout),
    c: (&mut Storage<T>, &Layout),
    accumulate: bool,
) -> Result<()> {
    const OP: &str = "matmul_into";
    let shape = MatmulShape::new(a.1, b.1)?;
    let cl = c.1;
    if cl.shape() != shape.out_shape() {
        return Err(Error::ShapeMismatch {
            op: OP,
            expected: shape.out_shape().to_vec(),
            got: cl.shape().to_vec(),
        });
    }
    if !cl.is_non_overlapping() {
        return Err(Error::OverlappingDestination {
            op: OP,
            shape: cl.shape().to_vec(),
            strides: cl.strides().to_vec(),
        });
    }
    let plan = shape.gemms(cl);
    gemm::run_into(&plan, a.0, b.0, c.0, accumulate);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(a: &Layout, b: &Layout) -> (Vec<usize>, Batched) {
        let s = MatmulShape::new(a, b).unwrap();
        let out = Layout::contiguous(s.out_shape()).unwrap();
        let p = s.gemms(&out);
        (s.out_shape().to_vec(), p)
    }

    /// The two-matrix fast path plans exactly what the general path plans, for every pair of
    /// 2-dim layouts (row-major, transposed, stepped, flipped, broadcast, offset, empty), and
    /// declines every pair it must not take (other ranks, mismatched depths).
    #[test]
    fn the_matrix_fast_path_plans_what_the_general_path_plans() {
        let mut layouts = Vec::new();
        for (r, c) in [(0, 3), (3, 0), (1, 1), (2, 3), (3, 2), (4, 4), (5, 3)] {
            let l = Layout::contiguous(&[r, c]).unwrap();
            layouts.push(l.clone());
            layouts.push(Layout::contiguous(&[c, r]).unwrap().t().unwrap());
            layouts.push(Layout::new(&[r, c], &[-(c as isize), -1], r * c + 7).unwrap());
            layouts.push(Layout::new(&[r, c], &[0, 2], 1).unwrap());
            layouts.push(Layout::new(&[r, c], &[3 * c as isize, 3], 5).unwrap());
        }
        let mut taken = 0;
        for a in &layouts {
            for b in &layouts {
                let fast = Batched::matrices(a, b);
                match MatmulShape::new(a, b) {
                    Ok(_) => {
                        let (_, general) = plan(a, b);
                        assert_eq!(fast.as_ref(), Some(&general), "{a:?} x {b:?}");
                        taken += 1;
                    }
                    Err(_) => assert!(fast.is_none(), "{a:?} x {b:?}"),
                }
            }
        }
        assert!(taken > 50, "only {taken} pairs matched");
        let v = Layout::contiguous(&[3]).unwrap();
        let m = Layout::contiguous(&[3, 3]).unwrap();
        let batch = Layout::contiguous(&[2, 3, 3]).unwrap();
        for (a, b) in [(&v, &m), (&m, &v), (&v, &v), (&batch, &m), (&m, &batch)] {
            assert!(Batched::matrices(a, b).is_none(), "{a:?} x {b:?}");
        }
    }

    #[test]
    fn shape_rules_table() {
        let c = |s: &[usize]| Layout::contiguous(s).unwrap();
        // (a, b, result, (m, n, k) of each product, number of products)
        type Case<'a> = (
            &'a [usize],
            &'a [usize],
            &'a [usize],
            (usize, usize, usize),
            usize,
        );
        let cases: &[Case] = &[
            (&[3], &[3], &[], (1, 1, 3), 1),
            (&[2, 3], &[3, 4], &[2, 4], (2, 4, 3), 1),
            (&[3], &[3, 4], &[4], (1, 4, 3), 1),
            (&[2, 3], &[3], &[2], (2, 1, 3), 1),
            // b shared by the batch: folded into 5 * 2 rows.
            (&[5, 2, 3], &[3, 4], &[5, 2, 4], (10, 4, 3), 1),
            (&[5, 2, 3], &[3], &[5, 2], (10, 1, 3), 1),
            (&[3], &[5, 3, 4], &[5, 4], (1, 4, 3), 5),
            (&[5, 1, 2, 3], &[6, 3, 4], &[5, 6, 2, 4], (2, 4, 3), 30),
            (&[0, 2, 3], &[3, 4], &[0, 2, 4], (2, 4, 3), 0),
        ];
        for &(a, b, out, (m, n, k), count) in cases {
            let (o, p) = plan(&c(a), &c(b));
            assert_eq!(o, out, "{a:?} x {b:?}");
            assert_eq!(
                (p.m, p.n, p.k, p.count()),
                (m, n, k, count),
                "{a:?} x {b:?}"
            );
        }
    }

    #[test]
    fn broadcast_batches_reuse_offsets() {
        let a = Layout::contiguous(&[2, 1, 2, 3]).unwrap();
        let b = Layout::contiguous(&[3, 3, 4]).unwrap();
        let (_, p) = plan(&a, &b);
        let all: Vec<[usize; 3]> = (0..p.count()).map(|q| p.offsets(q)).collect();
        let a_offs: Vec<usize> = all.iter().map(|o| o[0]).collect();
        let b_offs: Vec<usize> = all.iter().map(|o| o[1]).collect();
        let c_offs: Vec<usize> = all.iter().map(|o| o[2]).collect();
        assert_eq!(a_offs, vec![0, 0, 0, 6, 6, 6]);
        assert_eq!(b_offs, vec![0, 12, 24, 0, 12, 24]);
        assert_eq!(c_offs, vec![0, 8, 16, 24, 32, 40]);
    }

    #[test]
    fn shape_errors_name_both_shapes_and_dims() {
        let c = |s: &[usize]| Layout::contiguous(s).unwrap();
        let e = MatmulShape::new(&c(&[2, 3]), &c(&[4, 5])).unwrap_err();
        assert_eq!(
            e,
            Error::MatmulMismatch {
                a: vec![2, 3],
                b: vec![4, 5],
                a_dim: 1,
                b_dim: 0
            }
        );
        let e = MatmulShape::new(&c(&[2, 2, 3]), &c(&[3, 3, 5])).unwrap_err();
        assert!(matches!(e, Error::MatmulBatchMismatch { .. }), "{e}");
        assert!(MatmulShape::new(&c(&[]), &c(&[3])).is_err());
    }
}
