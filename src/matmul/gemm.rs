//! The GEMM interface: the one function, [`gemm`], through which the rest of the crate
//! multiplies matrices, and the executors that run a planned [`Batched`] product on storages.
//!
//! [`gemm`] takes each matrix as a pointer plus a row and a column stride (in elements, any
//! sign, zero allowed for reads) and either overwrites C or adds to it. Behind it sits this
//! crate's own core ([`super::core`], [`super::kernel`]); swapping in another GEMM library
//! means reimplementing this one function for each element type. See the
//! [module note](super#note-on-the-gemm-core) for why the core is our own.
//!
//! `f16` and `bf16` are packed into `f32` panels; their products are accumulated in an `f32`
//! workspace over the full `k` (from C's values when accumulating) and rounded once, when the
//! workspace is written to C.

use half::{bf16, f16};
use num_traits::Zero;

use super::Batched;
use super::core::gemm_core;
use super::int::gemm_int;
use super::kernel::{Accum, Kernel};
use super::types::{MatMut, MatRef, Scalar, SendPtr};
use crate::element::Element;
use crate::error::Result;
use crate::storage::Storage;

/// An element type [`gemm`] multiplies: the bound behind
/// [`MatmulElement`](super::MatmulElement). Floats go to the float core (through [`Scalar`]),
/// `i32` and `i64` to the wrapping integer kernel (`super::int`).
///
/// Public only in name (it sits in a private module).
pub trait GemmElement: Element {
    /// [`gemm`] for this type.
    ///
    /// # Safety
    /// As [`gemm`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm_for(
        m: usize,
        n: usize,
        k: usize,
        a: MatRef<Self>,
        b: MatRef<Self>,
        c: MatMut<Self>,
        accumulate: bool,
        threads: usize,
    );
}

macro_rules! gemm_element {
    ($core:ident: $($t:ty),*) => {$(
        impl GemmElement for $t {
            unsafe fn gemm_for(
                m: usize,
                n: usize,
                k: usize,
                a: MatRef<$t>,
                b: MatRef<$t>,
                c: MatMut<$t>,
                accumulate: bool,
                threads: usize,
            ) {
                // SAFETY: the caller's contract, forwarded.
                unsafe { $core(m, n, k, a, b, c, accumulate, threads) }
            }
        }
    )*};
}

gemm_element!(gemm_float: f32, f64, f16, bf16);
gemm_element!(gemm_int: i32, i64);

/// `C = A · B` (`accumulate == false`) or `C += A · B`, for an `m × k` A, a `k × n` B and an
/// `m × n` C, using up to `threads` threads of the current rayon pool: the one GEMM entry
/// point of the crate.
///
/// # Safety
/// Every element `(i, p)` of `a` (`i < m`, `p < k`) and `(p, j)` of `b` is readable; every
/// element `(i, j)` of `c` is writable (and, if `accumulate`, initialized); distinct indices
/// of `c` address distinct elements; `c` overlaps neither `a` nor `b`; nothing else accesses
/// `c` during the call. When `!accumulate`, `c` may be uninitialized memory: every element is
/// written, and none is read.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm<T: GemmElement>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    accumulate: bool,
    threads: usize,
) {
    // SAFETY: the caller's contract, forwarded.
    unsafe { T::gemm_for(m, n, k, a, b, c, accumulate, threads) }
}

/// [`gemm`] for the float types: the packed core with the register kernels.
///
/// # Safety
/// As [`gemm`].
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_float<T: Scalar>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    accumulate: bool,
    threads: usize,
) {
    if super::small::takes(m, n, k, b.cs) {
        // SAFETY: the caller's contract, forwarded.
        return unsafe { super::small::gemm_small(m, n, k, a, b, c, accumulate) };
    }
    let kern = T::Acc::best_kernel();
    match T::as_acc(c.ptr) {
        Some(ptr) => {
            let c = MatMut {
                ptr,
                rs: c.rs,
                cs: c.cs,
            };
            // SAFETY: the caller's contract; C has the accumulator type itself.
            unsafe { gemm_core(m, n, k, a, b, c, accumulate, threads, kern) }
        }
        // SAFETY: the caller's contract.
        None => unsafe { via_workspace(m, n, k, a, b, c, accumulate, threads, kern) },
    }
}

/// Rows and columns of C computed per workspace fill for narrow types.
const WORK_ROWS: usize = 512;
const WORK_COLS: usize = 2048;

/// [`gemm`] for element types narrower than their accumulator: each block of C is computed in
/// an accumulator-typed workspace over the whole `k`, then rounded into C once.
///
/// # Safety
/// As [`gemm`].
#[allow(clippy::too_many_arguments)]
unsafe fn via_workspace<T: Scalar>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: MatMut<T>,
    accumulate: bool,
    threads: usize,
    kern: Kernel<T::Acc>,
) {
    let (rows, cols) = (m.min(WORK_ROWS), n.min(WORK_COLS));
    let mut work = vec![T::Acc::zero(); rows * cols];
    for i0 in (0..m).step_by(WORK_ROWS) {
        for j0 in (0..n).step_by(WORK_COLS) {
            let (mm, nn) = (WORK_ROWS.min(m - i0), WORK_COLS.min(n - j0));
            let w = MatMut {
                ptr: work.as_mut_ptr(),
                rs: nn as isize,
                cs: 1,
            };
            let (ab, bb) = (
                MatRef {
                    ptr: a.at(i0, 0),
                    ..a
                },
                MatRef {
                    ptr: b.at(0, j0),
                    ..b
                },
            );
            if accumulate {
                // The chains start at C's values (Note [canonical order] in `super`).
                for i in 0..mm {
                    for (j, v) in work[i * nn..(i + 1) * nn].iter_mut().enumerate() {
                        // SAFETY: (i0 + i, j0 + j) is an element of C, initialized when
                        // accumulating (the contract).
                        *v = unsafe { *c.at(i0 + i, j0 + j) }.to_acc();
                    }
                }
            }
            // SAFETY: rows i0..i0+mm of A and columns j0..j0+nn of B are in range; the
            // workspace is a separate, row-major mm × nn buffer, initialized above when
            // accumulating.
            unsafe { gemm_core(mm, nn, k, ab, bb, w, accumulate, threads, kern) };
            for i in 0..mm {
                for (j, &v) in work[i * nn..(i + 1) * nn].iter().enumerate() {
                    // SAFETY: (i0 + i, j0 + j) is an element of C.
                    unsafe { *c.at(i0 + i, j0 + j) = T::from_acc(v) };
                }
            }
        }
    }
}

/// Below this many multiply-adds per product, one thread does the whole product (when called
/// from a thread of the pool).
const PARALLEL_MIN_MACS: usize = 1 << 18;

/// As [`PARALLEL_MIN_MACS`], for calls from outside the pool (see
/// `kernels::parallel::PAR_MIN_ELEMS_OUTSIDE`). Measured from `main` on a 2-core AMD EPYC VM:
/// waking the pool's second thread cost more than it saved up to 128³ (2M multiply-adds:
/// 62 µs on one thread, 127 µs on two), and paid from about 192³ (7M: 406 against 287 µs).
const PARALLEL_MIN_MACS_OUTSIDE: usize = 1 << 22;

/// Threads to use for `count` products of `m × n × k`: the current rayon pool's size, or one
/// for small work.
fn threads_for(count: usize, m: usize, n: usize, k: usize) -> usize {
    let macs = m.saturating_mul(n).saturating_mul(k).saturating_mul(count);
    crate::kernels::parallel::split_from(macs, PARALLEL_MIN_MACS, PARALLEL_MIN_MACS_OUTSIDE)
}

/// Panics unless the `rows × cols` matrix at `offset` with strides `s` lies inside a storage of
/// `len` elements (a broken internal invariant: the plan comes from checked layouts).
fn assert_inside(len: usize, offset: usize, rows: usize, cols: usize, s: super::MatStrides) {
    if rows == 0 || cols == 0 {
        return;
    }
    // In checked `isize`: a matrix of a valid layout addresses offsets in `0..=isize::MAX`
    // (layout invariant 3), so no step overflows unless the plan is broken.
    let span = |n: usize, st: isize| isize::try_from(n - 1).ok()?.checked_mul(st);
    let inside = || {
        let (r, c) = (span(rows, s.rs)?, span(cols, s.cs)?);
        let at = isize::try_from(offset).ok()?;
        let lo = at.checked_add(r.min(0))?.checked_add(c.min(0))?;
        let hi = at.checked_add(r.max(0))?.checked_add(c.max(0))?;
        Some(lo >= 0 && hi.unsigned_abs() < len)
    };
    assert!(
        inside() == Some(true),
        "matmul plan addresses outside its storage"
    );
}

/// Runs every product of `plan` reading `a` and `b` and writing through `c_ptr` (a storage of
/// `c_len` elements).
///
/// # Safety
/// `c_ptr` is valid for writes of `c_len` elements (reads too, and initialized, if
/// `accumulate`), is not accessed by anything else during the call, and overlaps neither
/// storage; `plan.c` addresses distinct elements for distinct (product, row, column) indices.
unsafe fn run<T: GemmElement>(
    plan: &Batched,
    a: &Storage<T>,
    b: &Storage<T>,
    c_ptr: *mut T,
    c_len: usize,
    accumulate: bool,
) {
    let Batched { m, n, k, .. } = *plan;
    let mat = |p: *const T, off: usize, s: super::MatStrides| MatRef {
        ptr: p.wrapping_add(off),
        rs: s.rs,
        cs: s.cs,
    };
    let one = |q: usize, threads: usize| {
        let [oa, ob, oc] = plan.offsets(q);
        if k > 0 {
            assert_inside(a.len(), oa, m, k, plan.a);
            assert_inside(b.len(), ob, k, n, plan.b);
        }
        assert_inside(c_len, oc, m, n, plan.c);
        let c = MatMut {
            ptr: c_ptr.wrapping_add(oc),
            rs: plan.c.rs,
            cs: plan.c.cs,
        };
        // SAFETY: the offsets and strides were just checked against the storages (A and B
        // only matter when k > 0); C's products are disjoint (the caller's contract).
        unsafe {
            gemm(
                m,
                n,
                k,
                mat(a.as_ptr(), oa, plan.a),
                mat(b.as_ptr(), ob, plan.b),
                c,
                accumulate,
                threads,
            )
        }
    };
    let count = plan.count();
    let threads = threads_for(count, m, n, k);
    if threads > 1 && count >= threads {
        let one = SendPtr(&one);
        crate::kernels::parallel::par_for(count, |q| (one.get())(q, 1));
    } else {
        let threads = threads_for(1, m, n, k);
        for q in 0..count {
            one(q, threads);
        }
    }
}

/// Runs `plan` into a fresh storage of `len` elements laid out as the plan's C.
///
/// `plan` must come from [`super::MatmulShape::gemms`] for a layout of `len` elements without
/// overlap, so its products write every element exactly once.
pub(crate) fn run_fresh<T: GemmElement>(
    plan: &Batched,
    a: &Storage<T>,
    b: &Storage<T>,
    len: usize,
) -> Result<Storage<T>> {
    let mut fresh = Storage::<T>::uninit(len).map_err(|e| e.with_op("matmul"))?;
    // SAFETY: a new allocation, overlapping nothing, not yet shared; not accumulating, so it
    // is only written.
    unsafe { run(plan, a, b, fresh.as_mut_ptr(), len, false) };
    // SAFETY: the plan's products cover every element of a non-overlapping layout with
    // `len` elements (its C is row-major, from `Layout::contiguous`), and `gemm` writes
    // every element of each product.
    Ok(unsafe { fresh.assume_init() })
}

/// Runs `plan` into `c`, overwriting or adding to the elements its C addresses.
///
/// `plan.c` must address distinct elements for distinct indices (the caller checks the
/// output layout for overlap).
pub(crate) fn run_into<T: GemmElement>(
    plan: &Batched,
    a: &Storage<T>,
    b: &Storage<T>,
    c: &mut Storage<T>,
    accumulate: bool,
) {
    let len = c.len();
    // SAFETY: `&mut Storage` is unique (no view reads it meanwhile) and a distinct allocation
    // from `a` and `b` (which are borrowed shared at the same time); its elements are
    // initialized (storage invariant 3); distinctness of C's elements is the caller's check.
    unsafe { run(plan, a, b, c.as_mut_ptr(), len, accumulate) }
}
