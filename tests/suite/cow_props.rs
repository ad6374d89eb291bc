//! Property tests of copy-on-write and of refused destinations: writes through `Tensor` to
//! views that share their storage (the writer gets its own copy, nobody else sees the write, the
//! copy keeps the memory order and is audited), overlapping destinations refused before any
//! copy, forbidden implicit copies, and large writes through the parallel, tiled and streaming
//! kernels.
//!
//! Expectations come from the reference model in `common` (see `writes_props.rs`).
//!
//! Case counts default to small numbers; set `PROPTEST_CASES` to run more.

use crate::common;
use crate::writes_common;

use common::*;
use proptest::prelude::*;
use stridex::audit::{self, CopyReason};
use stridex::{Error, Layout, Tensor};
use writes_common::*;

// ---------------------------------------------------------------------------------------------
// Property 3: overlapping destinations are refused before any copy
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Overlapping {
    /// Expand size-1 dim `dim` of `shape` to `to` (>= 2).
    Expand {
        shape: Vec<usize>,
        dim: usize,
        to: usize,
    },
    /// Unfold a dim of size `n` into windows of `size` with `step < size`, at least two.
    Unfold {
        n: usize,
        size: usize,
        step: usize,
        rows: usize,
    },
    /// `as_strided([k, m], [m - 1 or 1 or 0, 1])` over a 1-dim storage.
    AsStrided { k: usize, m: usize, inner: isize },
}

fn arb_overlapping() -> impl Strategy<Value = Overlapping> {
    prop_oneof![
        (
            prop::collection::vec(1usize..=4, 1..=3),
            any::<usize>(),
            2usize..=4
        )
            .prop_map(|(mut shape, dim, to)| {
                let dim = dim % shape.len();
                shape[dim] = 1;
                Overlapping::Expand { shape, dim, to }
            }),
        (3usize..=7, any::<usize>(), any::<usize>(), 1usize..=3).prop_map(|(n, s, st, rows)| {
            let size = 2 + s % (n - 2); // 2..n
            let step = 1 + st % (size - 1).min(n - size); // < size, and two windows fit
            Overlapping::Unfold {
                n,
                size,
                step,
                rows,
            }
        }),
        (2usize..=4, 2usize..=5, 0usize..3).prop_map(|(k, m, i)| Overlapping::AsStrided {
            k,
            m,
            inner: [0, 1, m as isize - 1][i],
        }),
    ]
}

/// The overlapping view, its base (which holds the storage too) and the model of the view.
fn overlapping_view<T: Val>(o: &Overlapping) -> (Tensor<T>, Tensor<T>, Model) {
    match o {
        Overlapping::Expand { shape, dim, to } => {
            let n = true_numel(shape).unwrap();
            let base = Tensor::from_vec((0..n).map(T::from_index).collect(), shape).unwrap();
            let mut target = shape.clone();
            target[*dim] = *to;
            let m = Model::strided(shape, Layout::contiguous(shape).unwrap().strides(), 0)
                .apply(&Op::Expand(target.clone()))
                .unwrap();
            (base.expand(&target).unwrap(), base, m)
        }
        Overlapping::Unfold {
            n,
            size,
            step,
            rows,
        } => {
            let shape = [*rows, *n];
            let base =
                Tensor::from_vec((0..rows * n).map(T::from_index).collect(), &shape).unwrap();
            let op = Op::Unfold(1, *size, *step);
            let m = Model::strided(&shape, &[*n as isize, 1], 0)
                .apply(&op)
                .unwrap();
            (apply_tensor(&base, &op).unwrap(), base, m)
        }
        Overlapping::AsStrided { k, m, inner } => {
            let len = (k - 1) * inner.unsigned_abs() + m;
            let base = Tensor::from_vec((0..len).map(T::from_index).collect(), &[len]).unwrap();
            let v = base.as_strided(&[*k, *m], &[*inner, 1], 0).unwrap();
            (v, base, Model::strided(&[*k, *m], &[*inner, 1], 0))
        }
    }
}

fn overlap_refused<T: Num>(o: &Overlapping, w: &WriteGen, shared: bool) -> TestResult {
    let (mut v, base, m) = overlapping_view::<T>(o);
    prop_assert!(
        !distinct(&m.offs),
        "the generator must give an overlapping view"
    );
    let base_vals = base.to_vec();
    let v_vals = base.storage().as_slice().to_vec();
    let v_vals: Vec<T> = values(&m, &v_vals);
    let base = shared.then_some(base);
    let layout = v.layout().clone();
    let ptr = v.storage().as_ptr();
    let p = prepare::<T>(w, v.shape());
    let (r, report) = audit::record(|| {
        let mv = v.view_mut().map(|_| ());
        (mv, tensor_write(&p, &mut v, false))
    });
    prop_assert!(
        matches!(
            r.0,
            Err(Error::OverlappingDestination { op: "view_mut", .. })
        ),
        "view_mut of {:?}: {:?}",
        layout,
        r.0
    );
    if !p.expect_err {
        prop_assert!(
            matches!(r.1, Err(Error::OverlappingDestination { .. })),
            "{:?} on {:?}: {:?}",
            p.kind,
            layout,
            r.1
        );
    }
    prop_assert_eq!(report.count(), 0, "copied before refusing: {}", report);
    prop_assert_eq!(v.layout(), &layout);
    prop_assert_eq!(v.storage().as_ptr(), ptr);
    prop_assert_eq!(v.to_vec(), v_vals);
    if let Some(base) = &base {
        prop_assert_eq!(base.to_vec(), base_vals);
        prop_assert!(v.shares_storage(base));
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(128))]


    /// Property 2: copy-on-write of shared views (f32), and in-place writes of sole holders.
    #[test]
    fn copy_on_write_matches_the_model_f32(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_chain(), w in arb_write(),
        holders in arb_holders(),
    ) {
        cow_write::<f32>(&shape, &recipe, &ops, &w, holders)?;
    }


    /// Property 2 for i64.
    #[test]
    fn copy_on_write_matches_the_model_i64(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_chain(), w in arb_write(),
        holders in arb_holders(),
    ) {
        cow_write::<i64>(&shape, &recipe, &ops, &w, holders)?;
    }


    /// Property 3: expanded, unfolded and overlapping as_strided destinations are refused
    /// before any copy, shared or not.
    #[test]
    fn overlapping_destinations_are_refused(
        o in arb_overlapping(), w in arb_write(), shared in any::<bool>(),
    ) {
        overlap_refused::<f32>(&o, &w, shared)?;
        overlap_refused::<u8>(&o, &w, shared)?;
    }


    /// Property 3: inside `forbid_implicit_copies` a write to a shared tensor is an
    /// `ImplicitCopy` error and changes nothing; a sole holder is written.
    #[test]
    fn forbidden_copy_on_write_changes_nothing(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_chain(), w in arb_write(),
    ) {
        let Built { t: a, m: am, storage } = build::<f32>(&shape, &recipe, f32::from_index, false);
        let (v, bm) = run_tensor_chain(a.clone(), am.clone(), &ops, storage.len())?;
        // A value of its own over the shared storage (a view would be refused outright).
        let mut b = Tensor::from_storage(v.storage().clone(), v.layout().clone()).unwrap();
        drop(v);
        let p = prepare::<f32>(&w, b.shape());
        if !distinct(&bm.offs) {
            // Overlap is refused first, forbidden or not.
            let r = audit::forbid_implicit_copies(|| tensor_write(&p, &mut b, false));
            prop_assert!(matches!(r, Err(Error::OverlappingDestination { .. })), "{:?}", r);
            prop_assert_eq!(b.to_vec(), values(&bm, &storage));
            return Ok(());
        }
        let before = b.layout().clone();
        let (r, report) = audit::record(|| audit::forbid_implicit_copies(|| tensor_write(&p, &mut b, false)));
        if p.expect_err {
            prop_assert!(matches!(r, Err(Error::IndexOutOfRange { .. })), "set: {:?}", r);
        } else {
            match r {
                Err(Error::ImplicitCopy { reason, bytes, .. }) => {
                    prop_assert_eq!(reason, CopyReason::CopyOnWrite);
                    prop_assert_eq!(bytes, b.numel() * 4);
                }
                other => prop_assert!(false, "{:?}: expected ImplicitCopy, got {:?}", p.kind, other),
            }
        }
        prop_assert_eq!(report.count(), 0, "{}", report);
        prop_assert!(b.shares_storage(&a));
        prop_assert_eq!(b.layout(), &before);
        prop_assert_eq!(b.to_vec(), values(&bm, &storage));
        prop_assert_eq!(a.storage().as_slice(), &storage[..]);
        // Once b holds its storage alone, the same write is allowed and made in place.
        drop(a);
        let ptr = b.storage().as_ptr();
        let r = audit::forbid_implicit_copies(|| tensor_write(&p, &mut b, false));
        check_outcome(&p, r, "sole holder inside forbid_implicit_copies")?;
        prop_assert_eq!(b.storage().as_ptr(), ptr);
        let mut buf = storage.clone();
        model_write(&p, &mut buf, &bm.offs, &bm.shape);
        prop_assert_eq!(b.to_vec(), values(&bm, &buf));
    }
}

proptest! {
    #![proptest_config(config(32))]

    /// Copy-on-write on every element size (1, 2, 4 and 8 bytes).
    #[test]
    fn copy_on_write_on_every_element_size(
        shape in arb_shape(), recipe in arb_recipe(), chain in arb_chain(), w in arb_write(),
        holders in arb_holders(),
    ) {
        cow_write::<u8>(&shape, &recipe, &chain, &w, holders)?;
        cow_write::<i16>(&shape, &recipe, &chain, &w, holders)?;
        cow_write::<half::f16>(&shape, &recipe, &chain, &w, holders)?;
        cow_write::<f64>(&shape, &recipe, &chain, &w, holders)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Unit tests
// ---------------------------------------------------------------------------------------------

#[test]
fn copy_on_write_of_a_transpose_stays_transposed() {
    let a = Tensor::from_vec((0..15).collect::<Vec<i32>>(), &[3, 5]).unwrap();
    let v = a.narrow(1, 1, 4).unwrap().t().unwrap();
    // A value of its own with the view's layout over the shared storage.
    let mut b = Tensor::from_storage(v.storage().clone(), v.layout().clone()).unwrap();
    drop(v);
    assert_eq!(
        (b.shape(), b.strides(), b.offset()),
        (&[4, 3][..], &[1, 5][..], 1)
    );
    let (r, report) = audit::record(|| b.set(&[3, 2], -1));
    r.unwrap();
    assert_eq!(report.count(), 1);
    assert_eq!(report.events()[0].reason, CopyReason::CopyOnWrite);
    assert_eq!(report.bytes(), 12 * 4);
    assert_eq!(
        b.strides(),
        &[1, 4],
        "the copy keeps the transposed order, without gaps"
    );
    assert_eq!(b.offset(), 0);
    assert_eq!(b.storage().len(), 12);
    assert!(!b.shares_storage(&a));
    assert_eq!(a.to_vec(), (0..15).collect::<Vec<i32>>());
    assert_eq!(b.to_vec(), vec![1, 6, 11, 2, 7, 12, 3, 8, 13, 4, 9, -1]);
    // A narrowed, flipped channels-last-like view loses its gaps and signs, not its order.
    let x = Tensor::from_vec((0..60).collect::<Vec<i32>>(), &[3, 4, 5]).unwrap();
    let v = x
        .permute(&[2, 0, 1])
        .unwrap()
        .flip(1)
        .unwrap()
        .narrow(2, 1, 2)
        .unwrap();
    let mut y = Tensor::from_storage(v.storage().clone(), v.layout().clone()).unwrap();
    drop(v);
    y.fill(0).unwrap();
    assert_eq!(y.shape(), &[5, 3, 2]);
    assert_eq!(y.strides(), &[1, 10, 5]);
    assert_eq!(y.offset(), 0);
    assert_eq!(x.to_vec(), (0..60).collect::<Vec<i32>>());
}

#[test]
#[allow(clippy::reversed_empty_ranges)] // Python's 3:-5:-2, a backward walk
fn a_sole_holder_is_never_copied() {
    let base = Tensor::from_vec((0..24).collect::<Vec<i64>>(), &[2, 3, 4]).unwrap();
    let mut v = base
        .permute(&[2, 0, 1])
        .unwrap()
        .slice_step(0, 3..-5, -2)
        .unwrap();
    drop(base);
    let ptr = v.storage().as_ptr();
    let layout = v.layout().clone();
    let bias = Tensor::from_vec(vec![1, 2], &[2, 1, 1]).unwrap();
    let (r, report) = audit::record(|| {
        v.fill(-1)?;
        v.add_assign(&bias)?;
        v += 10;
        v.view_mut()?.flip(2)?.set(&[0, 0, 0], 100)
    });
    r.unwrap();
    assert_eq!(report.count(), 0, "{report}");
    assert_eq!(v.storage().as_ptr(), ptr);
    assert_eq!(v.layout(), &layout);
    // v is dims (k, i, j) -> offset 12 i + 4 j + k for k in [3, 1].
    assert_eq!(v.shape(), &[2, 2, 3]);
    assert_eq!(
        v.to_vec(),
        vec![10, 10, 100, 10, 10, 10, 11, 11, 11, 11, 11, 11]
    );
    let s = v.storage().as_slice();
    for (off, &x) in s.iter().enumerate() {
        if off % 4 == 1 || off % 4 == 3 {
            assert!(x >= 10, "offset {off}: {x}");
        } else {
            assert_eq!(x, off as i64, "offset {off} is outside the view");
        }
    }
}

#[test]
fn copy_from_a_view_of_the_own_storage() {
    // The source shares the destination's storage: the destination is copied first, the
    // source keeps reading the old elements.
    let mut x = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    let src = x.flip(1).unwrap();
    x.copy_from(&src).unwrap();
    assert_eq!(x.to_vec(), vec![2, 1, 0, 5, 4, 3]);
    assert_eq!(src.to_vec(), vec![2, 1, 0, 5, 4, 3]);
    let mut m = Tensor::from_vec((0..9).map(f64::from).collect::<Vec<f64>>(), &[3, 3]).unwrap();
    let mt = m.t().unwrap();
    m += &mt;
    assert_eq!(
        m.to_vec(),
        vec![0.0, 4.0, 8.0, 4.0, 8.0, 12.0, 8.0, 12.0, 16.0]
    );
}

// ---------------------------------------------------------------------------------------------
// Property 7: large writes (parallel, tiled and streaming kernels)
// ---------------------------------------------------------------------------------------------

/// The source element at `[i, j]`, by the model.
type SrcAt<'a, T> = Box<dyn Fn(usize, usize) -> T + 'a>;

/// `dst` ([rows, cols], row-major) written through its transpose from a [cols, rows] source
/// laid out as `src_kind` says, compared with the model by index.
fn large_transposed_copy<T: Num>(rows: usize, cols: usize, src_kind: usize) {
    let n = rows * cols;
    let mut dst = Tensor::from_vec((0..n).map(T::from_index).collect(), &[rows, cols]).unwrap();
    let sv: Vec<T> = (0..n).map(|i| T::from_index(i + 7)).collect();
    // src_at(i, j): the source element at [i, j] of its [cols, rows] shape.
    let (src, src_at): (Tensor<T>, SrcAt<'_, T>) = match src_kind {
        0 => (
            Tensor::from_vec(sv.clone(), &[cols, rows]).unwrap(),
            Box::new(|i, j| sv[i * rows + j]),
        ),
        1 => (
            // Stored [rows, cols], read transposed.
            Tensor::from_vec(sv.clone(), &[rows, cols])
                .unwrap()
                .t()
                .unwrap(),
            Box::new(|i, j| sv[j * cols + i]),
        ),
        _ => (
            // Stored [cols, rows], read with dim 1 flipped.
            Tensor::from_vec(sv.clone(), &[cols, rows])
                .unwrap()
                .flip(1)
                .unwrap(),
            Box::new(|i, j| sv[i * rows + (rows - 1 - j)]),
        ),
    };
    let (r, report) = audit::record(|| dst.view_mut()?.t()?.copy_from(&src));
    r.unwrap();
    assert_eq!(report.count(), 0);
    let got = dst.to_vec();
    // dst[r, c] = dst.t()[c, r] = src[c, r].
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(
                got[r * cols + c],
                src_at(c, r),
                "dst[{r}, {c}] (source kind {src_kind})"
            );
        }
    }
}

#[test]
fn large_transposed_copy_from_f32() {
    for kind in 0..3 {
        large_transposed_copy::<f32>(300, 700, kind);
    }
    // 300 x 900 f32 (over 1 MiB): the copy runs in parallel.
    large_transposed_copy::<f32>(300, 900, 1);
}

#[test]
fn large_transposed_copy_from_other_sizes() {
    large_transposed_copy::<f64>(300, 700, 0);
    large_transposed_copy::<i16>(700, 800, 2);
    large_transposed_copy::<u8>(1100, 1000, 0);
}

#[test]
fn very_large_transposed_copy_streams() {
    // Destination plus source over 32 MiB: beyond a typical last-level cache.
    large_transposed_copy::<f32>(2048, 2200, 0);
}

#[test]
fn large_add_assign_of_a_transposed_operand() {
    let (rows, cols) = (300, 700);
    let n = rows * cols;
    let dv: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let sv: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 0.5).collect();
    // src is [cols, rows] stored, read as [rows, cols] through its transpose.
    let src = Tensor::from_vec(sv.clone(), &[cols, rows])
        .unwrap()
        .t()
        .unwrap();
    let mut dst = Tensor::from_vec(dv.clone(), &[rows, cols]).unwrap();
    dst.view_mut().unwrap().add_assign(&src).unwrap();
    let got = dst.to_vec();
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(
                got[r * cols + c],
                dv[r * cols + c] + sv[c * rows + r],
                "[{r}, {c}]"
            );
        }
    }
    // A transposed destination and a contiguous operand, then a broadcast column.
    let src2 = Tensor::from_vec(sv.clone(), &[cols, rows]).unwrap();
    let mut dst2 = Tensor::from_vec(dv.clone(), &[rows, cols]).unwrap();
    dst2.view_mut()
        .unwrap()
        .t()
        .unwrap()
        .add_assign(&src2)
        .unwrap();
    let col: Vec<f32> = (0..rows).map(|r| r as f32 + 1.0).collect();
    dst2.mul_assign(&Tensor::from_vec(col.clone(), &[rows, 1]).unwrap())
        .unwrap();
    let got = dst2.to_vec();
    for r in 0..rows {
        for c in 0..cols {
            let want = (dv[r * cols + c] + sv[c * rows + r]) * col[r];
            assert_eq!(got[r * cols + c], want, "[{r}, {c}]");
        }
    }
    // map_inplace and fill on a large strided view.
    let mut x = Tensor::from_vec(dv.clone(), &[rows, cols]).unwrap();
    {
        let v = x.view_mut().unwrap().slice_step(1, 1..700, 3).unwrap();
        let (mut a, b) = v.split_at(0, 150).unwrap();
        std::thread::scope(|s| {
            s.spawn(|| a.map_inplace(|y| y * 2.0 + 1.0).unwrap());
            s.spawn(|| b.t().unwrap().fill(-3.0).unwrap());
        });
    }
    let got = x.to_vec();
    for r in 0..rows {
        for c in 0..cols {
            let v = dv[r * cols + c];
            let want = if c % 3 != 1 {
                v
            } else if r < 150 {
                v * 2.0 + 1.0
            } else {
                -3.0
            };
            assert_eq!(got[r * cols + c], want, "[{r}, {c}]");
        }
    }
}

#[test]
fn large_copy_on_write_keeps_the_order() {
    let (rows, cols) = (400, 900);
    let n = rows * cols;
    let a = Tensor::from_vec((0..n).map(|i| i as f32).collect(), &[rows, cols]).unwrap();
    let t = a.t().unwrap();
    let one = Tensor::full(&[], 1.0f32).unwrap();
    let mut view = t.clone();
    assert!(matches!(
        view.add_assign(&one),
        Err(Error::WriteToSharedView {
            op: "add_assign",
            ..
        })
    ));
    let mut b = Tensor::from_storage(t.storage().clone(), t.layout().clone()).unwrap();
    drop((t, view));
    let (r, report) = audit::record(|| b.add_assign(&one));
    r.unwrap();
    assert_eq!(report.count(), 1);
    assert_eq!(report.bytes(), n * 4);
    assert_eq!(b.strides(), &[1, cols as isize]);
    assert!(!b.shares_storage(&a));
    let got = b.to_vec();
    for i in 0..cols {
        for j in 0..rows {
            assert_eq!(got[i * rows + j], (j * cols + i) as f32 + 1.0);
        }
    }
    assert_eq!(a.get(&[rows - 1, cols - 1]).unwrap(), (n - 1) as f32);
}

#[test]
fn zip_map_inplace_with_another_element_type() {
    let mut acc = Tensor::from_vec((0..6).map(|i| i as f32).collect(), &[2, 3]).unwrap();
    // A u8 mask stored [3, 2], read transposed.
    let mask = Tensor::from_vec(vec![1u8, 0, 0, 1, 1, 1], &[3, 2])
        .unwrap()
        .t()
        .unwrap();
    acc.view_mut()
        .unwrap()
        .zip_map_inplace(&mask, |a, m| if m == 1 { -a } else { a })
        .unwrap();
    // mask.t() row-major: [1, 0, 1, 0, 1, 1].
    assert_eq!(acc.to_vec(), vec![-0.0, 1.0, -2.0, 3.0, -4.0, -5.0]);
    let bad = Tensor::<u8>::zeros(&[2, 2]).unwrap();
    let r = acc.view_mut().unwrap().zip_map_inplace(&bad, |a, _| a);
    assert!(
        matches!(
            r,
            Err(Error::SourceMismatch {
                op: "zip_map_inplace",
                ..
            })
        ),
        "{r:?}"
    );
    assert_eq!(acc.to_vec(), vec![-0.0, 1.0, -2.0, 3.0, -4.0, -5.0]);
}
