//! Property tests of writes through `TensorMut`: random view chains followed by random writes,
//! `split_at` and `reborrow`, failing writes (which must write nothing), every element size,
//! and fixed cases for checked `as_strided` and integer division by zero.
//!
//! Expectations come from the reference model in `common`: a view is the explicit list of its
//! elements' storage offsets, and a write is applied to a plain `Vec` copy of the storage by
//! index. The code under test is never used to compute an expectation. Copy-on-write and
//! refused overlapping destinations are in `cow_props.rs`.
//!
//! Case counts default to small numbers; set `PROPTEST_CASES` to run more.

use crate::common;
use crate::writes_common;

use common::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use stridex::audit::{self, CopyReason};
use stridex::{Error, Tensor, TensorMut};
use writes_common::*;

// ---------------------------------------------------------------------------------------------
// Property 1: TensorMut chains and writes
// ---------------------------------------------------------------------------------------------

/// A parent tensor with a random layout (holding its storage alone), a random `TensorMut`
/// chain on it, then a random write; the whole storage and the parent's elements must match
/// the model, and nothing may be copied.
fn mut_chain_write<T: Num>(
    shape: &[usize],
    recipe: &Recipe,
    ops: &[OpGen],
    w: &WriteGen,
) -> TestResult {
    let Built {
        t: mut parent,
        m: pm,
        storage,
    } = build::<T>(shape, recipe, T::from_index, false);
    let len = storage.len();
    let ptr = parent.storage().as_ptr();
    let layout0 = parent.layout().clone();
    let mut buf = storage.clone();
    let (res, report) = audit::record(|| -> TestResult {
        let v = okay(parent.view_mut(), "view_mut")?;
        let (mut v, m) = run_mut_chain(v, pm.clone(), ops, len, false)?;
        let p = prepare::<T>(w, v.shape());
        let what = format!("{:?} on {:?}", p.kind, v.layout());
        check_outcome(&p, mut_write(&p, &mut v), &what)?;
        model_write(&p, &mut buf, &m.offs, &m.shape);
        let want = values(&m, &buf);
        prop_assert_eq!(v.to_vec(), want.clone(), "{}: to_vec of the view", what);
        for (k, idx) in all_indices(&m.shape).iter().enumerate().take(8) {
            prop_assert_eq!(v.get(idx).ok(), Some(want[k]), "{}: get {:?}", what, idx);
        }
        Ok(())
    });
    res?;
    prop_assert!(
        report
            .events()
            .iter()
            .all(|e| e.reason != CopyReason::CopyOnWrite),
        "a tensor holding its storage alone was copied: {}",
        report
    );
    prop_assert_eq!(parent.storage().as_ptr(), ptr, "the parent's storage moved");
    prop_assert_eq!(parent.layout(), &layout0, "the parent's layout changed");
    prop_assert_eq!(
        parent.storage().as_slice(),
        &buf[..],
        "storage after the write"
    );
    prop_assert_eq!(parent.to_vec(), values(&pm, &buf), "parent after the write");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Property 4: split_at and reborrow
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct SplitGen {
    dim: usize,
    index: usize,
    /// Split the right half again along the next dim at this index.
    nested: Option<usize>,
    threaded: bool,
    /// An `as_strided` tried on the left half.
    probe: Option<Op>,
    /// View ops (as_strided included) on the left half before the probe.
    half_ops: Vec<OpGen>,
}

fn arb_split() -> impl Strategy<Value = SplitGen> {
    (
        0usize..8,
        0usize..8,
        prop::option::of(0usize..8),
        any::<bool>(),
        prop::option::weighted(0.4, as_strided_args()),
        prop_oneof![2 => Just(vec![]), 1 => arb_mut_chain()],
    )
        .prop_map(|(dim, index, nested, threaded, probe, half_ops)| SplitGen {
            dim,
            index,
            nested,
            threaded,
            probe,
            half_ops,
        })
}

/// Writes `pa` and `pb` through `a` and `b`, on two threads or one after the other.
fn write_two<T: Num>(
    a: &mut TensorMut<'_, T>,
    pa: &Prepared<T>,
    b: &mut TensorMut<'_, T>,
    pb: &Prepared<T>,
    threaded: bool,
) -> (stridex::Result<()>, stridex::Result<()>) {
    if threaded {
        std::thread::scope(|s| {
            let ha = s.spawn(|| mut_write(pa, a));
            let hb = s.spawn(|| mut_write(pb, b));
            (ha.join().unwrap(), hb.join().unwrap())
        })
    } else {
        (mut_write(pa, a), mut_write(pb, b))
    }
}

fn split_case<T: Num>(
    shape: &[usize],
    recipe: &Recipe,
    ops: &[OpGen],
    g: &SplitGen,
    w: &[WriteGen; 3],
) -> TestResult {
    let Built {
        t: mut parent,
        m: pm,
        storage,
    } = build::<T>(shape, recipe, T::from_index, false);
    let len = storage.len();
    let mut buf = storage.clone();
    {
        let v = okay(parent.view_mut(), "view_mut")?;
        let (mut v, m) = run_mut_chain(v, pm.clone(), ops, len, false)?;
        let n = v.ndim();
        if n == 0 {
            let r = v.reborrow().split_at(0, 0).map(|_| ());
            prop_assert!(
                matches!(r, Err(Error::DimOutOfRange { op: "split_at", .. })),
                "split_at of a 0-dim view: {:?}",
                r
            );
            return Ok(());
        }
        let d = g.dim % n;
        let size = v.shape()[d];
        let r = v.reborrow().split_at(d, size + 1 + g.index).map(|_| ());
        prop_assert!(
            matches!(r, Err(Error::RangeOutOfBounds { op: "split_at", .. })),
            "split_at past the end: {:?}",
            r
        );
        let r = v.reborrow().split_at(n + g.dim, 0).map(|_| ());
        prop_assert!(
            matches!(r, Err(Error::DimOutOfRange { op: "split_at", .. })),
            "split_at of a missing dim: {:?}",
            r
        );
        let i = g.index % (size + 1);
        let (l, r) = okay(v.split_at(d, i), "split_at")?;
        let lm = m.apply(&Op::Narrow(d, 0, i)).unwrap();
        let rm = m.apply(&Op::Narrow(d, i, size - i)).unwrap();
        check_layout(l.layout(), &lm)?;
        check_layout(r.layout(), &rm)?;
        let (mut l, lm) = run_mut_chain(l, lm, &g.half_ops, len, true)?;
        // as_strided on a half: allowed only inside it (when it is dense).
        if let Some(op @ Op::AsStrided(s, st, o)) = &g.probe {
            let got = l
                .reborrow()
                .as_strided(s, st, *o)
                .map(|x| x.layout().clone());
            let want = model_as_strided(s, st, *o, len, Some(&lm));
            let what = format!("{op:?} on the half {:?}", l.layout());
            if let Some(pm2) = compare_mut(&what, op, &got, &want)? {
                let value = T::from_index(3000);
                let mut x = okay(l.reborrow().as_strided(s, st, *o), &what)?;
                okay(x.fill(value), "fill")?;
                for &off in &pm2.offs {
                    buf[off as usize] = value;
                }
            }
        }
        // The right half, maybe split again along another dim.
        let (mut r, r2) = match g.nested {
            Some(j) if n >= 2 => {
                let d2 = (d + 1) % n;
                let j = j % (r.shape()[d2] + 1);
                let size2 = r.shape()[d2];
                let (r1, r2) = okay(r.split_at(d2, j), "nested split_at")?;
                let m1 = rm.apply(&Op::Narrow(d2, 0, j)).unwrap();
                let m2 = rm.apply(&Op::Narrow(d2, j, size2 - j)).unwrap();
                check_layout(r1.layout(), &m1)?;
                check_layout(r2.layout(), &m2)?;
                ((r1, m1), Some((r2, m2)))
            }
            _ => ((r, rm), None),
        };
        let pl = prepare::<T>(&w[0], l.shape());
        let pr = prepare::<T>(&w[1], r.0.shape());
        let threaded = g.threaded && l.numel() > 0;
        let (el, er) = write_two(&mut l, &pl, &mut r.0, &pr, threaded);
        check_outcome(&pl, el, "left half")?;
        check_outcome(&pr, er, "right half")?;
        model_write(&pl, &mut buf, &lm.offs, &lm.shape);
        model_write(&pr, &mut buf, &r.1.offs, &r.1.shape);
        if let Some((mut r2, m2)) = r2 {
            let p2 = prepare::<T>(&w[2], r2.shape());
            check_outcome(&p2, mut_write(&p2, &mut r2), "second right piece")?;
            model_write(&p2, &mut buf, &m2.offs, &m2.shape);
            prop_assert_eq!(r2.to_vec(), values(&m2, &buf));
        }
        prop_assert_eq!(l.to_vec(), values(&lm, &buf), "left half");
        prop_assert_eq!(r.0.to_vec(), values(&r.1, &buf), "right half");
    }
    prop_assert_eq!(parent.storage().as_slice(), &buf[..]);
    prop_assert_eq!(parent.to_vec(), values(&pm, &buf));
    Ok(())
}

/// Two writes through reborrowed views (each after its own view chain), then one through the
/// original view.
fn reborrow_case<T: Num>(
    shape: &[usize],
    recipe: &Recipe,
    chains: &[Vec<OpGen>; 2],
    w: &[WriteGen; 3],
) -> TestResult {
    let Built {
        t: mut parent,
        m: pm,
        storage,
    } = build::<T>(shape, recipe, T::from_index, false);
    let len = storage.len();
    let mut buf = storage.clone();
    {
        let mut v = okay(parent.view_mut(), "view_mut")?;
        let layout0 = v.layout().clone();
        for (ops, w) in chains.iter().zip(w) {
            let (mut x, m) = run_mut_chain(v.reborrow(), pm.clone(), ops, len, false)?;
            let p = prepare::<T>(w, x.shape());
            check_outcome(&p, mut_write(&p, &mut x), "reborrowed write")?;
            model_write(&p, &mut buf, &m.offs, &m.shape);
        }
        prop_assert_eq!(v.layout(), &layout0, "the original view after reborrows");
        let p = prepare::<T>(&w[2], v.shape());
        check_outcome(&p, mut_write(&p, &mut v), "write through the original")?;
        model_write(&p, &mut buf, &pm.offs, &pm.shape);
        prop_assert_eq!(v.to_vec(), values(&pm, &buf));
    }
    prop_assert_eq!(parent.storage().as_slice(), &buf[..]);
    prop_assert_eq!(parent.to_vec(), values(&pm, &buf));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Property 5: failing calls write nothing
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Failing {
    /// A source that does not broadcast: an extra leading dim of 2, or one dim one too long.
    Mismatch { extra_dim: bool, which: WKind },
    /// `set` at an index with one entry out of range, or with the wrong rank.
    SetOutOfRange { dim: usize, wrong_rank: bool },
    /// Integer `div_assign` by a source with a zero at `at`, or `div_assign_scalar(0)`.
    DivByZero { at: usize, scalar: bool },
}

fn arb_failing() -> impl Strategy<Value = Failing> {
    use WKind::*;
    prop_oneof![
        (
            any::<bool>(),
            prop_oneof![
                Just(Copy),
                Just(Add),
                Just(Sub),
                Just(Mul),
                Just(Div),
                Just(ZipMap)
            ]
        )
            .prop_map(|(extra_dim, which)| Failing::Mismatch { extra_dim, which }),
        (0usize..8, prop::bool::weighted(0.3))
            .prop_map(|(dim, wrong_rank)| Failing::SetOutOfRange { dim, wrong_rank }),
        (0usize..1000, prop::bool::weighted(0.3))
            .prop_map(|(at, scalar)| Failing::DivByZero { at, scalar }),
    ]
}

/// A failing write made concrete for a destination shape: the write, the expected error kind
/// (`None`: the write succeeds and writes nothing, an integer division of an empty tensor).
fn prepare_failing<T: Num>(
    f: &Failing,
    shape: &[usize],
) -> Option<(Prepared<T>, Option<&'static str>)> {
    let numel = true_numel(shape).unwrap();
    let blank = |kind| Prepared {
        kind,
        value: T::from_index(9),
        index: vec![],
        expect_err: false,
        src: None,
        src_vals: vec![],
        operator: false,
    };
    match f {
        Failing::Mismatch { extra_dim, which } => {
            let mut s = shape.to_vec();
            match s.iter().position(|&d| d != 1) {
                // A size-1 source dim would broadcast: make it 2 (over 0) or one longer.
                Some(d) if !extra_dim => s[d] = if s[d] == 0 { 2 } else { s[d] + 1 },
                _ => s.insert(0, 2),
            }
            let n = true_numel(&s).unwrap();
            let mut p = blank(*which);
            p.src = Some(Tensor::from_vec((0..n).map(T::small).collect(), &s).unwrap());
            Some((p, Some("SourceMismatch")))
        }
        Failing::SetOutOfRange { dim, wrong_rank } => {
            let mut p = blank(WKind::Set);
            let mut idx = vec![0; shape.len()];
            if *wrong_rank || shape.is_empty() {
                idx.push(0);
                p.index = idx;
                Some((p, Some("IndexRank")))
            } else {
                let d = dim % shape.len();
                idx[d] = shape[d] + dim;
                p.index = idx;
                Some((p, Some("IndexOutOfRange")))
            }
        }
        Failing::DivByZero { at, scalar } => {
            if !T::INTEGER {
                return None;
            }
            let want = (numel > 0).then_some("DivisionByZero");
            if *scalar {
                let mut p = blank(WKind::DivScalar);
                p.value = T::m_zero();
                return Some((p, want));
            }
            // A source of the destination's shape read flipped (or, if the destination is
            // empty, of one element), with one zero.
            let s = if numel == 0 { vec![1] } else { shape.to_vec() };
            let n = true_numel(&s).unwrap();
            let vals: Vec<T> = (0..n)
                .map(|i| {
                    if i == at % n {
                        T::m_zero()
                    } else {
                        T::small(i)
                    }
                })
                .collect();
            let src = Tensor::from_vec(vals, &s).unwrap();
            let mut p = blank(WKind::Div);
            p.src = Some(if s.is_empty() {
                src
            } else {
                src.flip(0).unwrap()
            });
            Some((p, want))
        }
    }
}

fn check_failed(r: stridex::Result<()>, want: Option<&'static str>, what: &str) -> TestResult {
    match (want, r) {
        (None, Ok(())) => Ok(()),
        (Some(k), Err(e)) => {
            prop_assert_eq!(kind2(&e), k, "{}: {:?}", what, e);
            Ok(())
        }
        (want, r) => Err(TestCaseError::fail(format!(
            "{what}: expected {want:?}, got {r:?}"
        ))),
    }
}

/// A failing write through a `TensorMut` (after a random chain) and through the `Tensor`
/// methods on a shared view: `Err` of the right kind, and no element changes.
fn failing_case<T: Num>(
    shape: &[usize],
    recipe: &Recipe,
    ops: &[OpGen],
    f: &Failing,
) -> TestResult {
    let Built {
        t: mut parent,
        m: pm,
        storage,
    } = build::<T>(shape, recipe, T::from_index, false);
    let len = storage.len();
    {
        let v = okay(parent.view_mut(), "view_mut")?;
        let (mut v, m) = run_mut_chain(v, pm.clone(), ops, len, false)?;
        let Some((p, want)) = prepare_failing::<T>(f, v.shape()) else {
            return Ok(());
        };
        let what = format!("TensorMut {:?} on {:?}", f, v.layout());
        check_failed(mut_write(&p, &mut v), want, &what)?;
        prop_assert_eq!(v.to_vec(), values(&m, &storage), "{}", what);
    }
    prop_assert_eq!(parent.storage().as_slice(), &storage[..]);
    // Through the Tensor methods on a view sharing the storage.
    let a = parent;
    let (v, bm) = run_tensor_chain(a.clone(), pm.clone(), ops, len)?;
    // A value of its own with the view's layout (a write to the view itself is refused
    // outright, Note [writes to views]; cow_props checks that).
    let mut b = Tensor::from_storage(v.storage().clone(), v.layout().clone()).unwrap();
    drop(v);
    if !distinct(&bm.offs) {
        return Ok(());
    }
    let Some((p, want)) = prepare_failing::<T>(f, b.shape()) else {
        return Ok(());
    };
    let what = format!("Tensor {:?} on {:?}", f, b.layout());
    let before = b.layout().clone();
    let (r, report) = audit::record(|| tensor_write(&p, &mut b, false));
    check_failed(r, want, &what)?;
    prop_assert_eq!(b.to_vec(), values(&bm, &storage), "{}", what);
    prop_assert_eq!(a.to_vec(), values(&pm, &storage), "{}", what);
    prop_assert_eq!(a.storage().as_slice(), &storage[..]);
    // Argument errors are found before the copy-on-write.
    // (`tensor_write` reaches zip_map_inplace and the scalar forms through `view_mut`.)
    let via_view_mut = matches!(p.kind, WKind::ZipMap | WKind::DivScalar);
    if !matches!(f, Failing::DivByZero { .. }) && !via_view_mut {
        prop_assert_eq!(report.count(), 0, "{}: {}", what, report);
        prop_assert!(b.shares_storage(&a));
        prop_assert_eq!(b.layout(), &before);
    }
    Ok(())
}

fn arb_split_writes() -> impl Strategy<Value = [WriteGen; 3]> {
    (arb_write(), arb_write(), arb_write()).prop_map(|(a, b, c)| [a, b, c])
}

proptest! {
    #![proptest_config(config(128))]


    /// Property 1: TensorMut view chains, then a write, match the model (i32).
    #[test]
    fn mut_chain_writes_match_the_model_i32(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
    ) {
        mut_chain_write::<i32>(&shape, &recipe, &ops, &w)?;
    }


    /// Property 1 for f64.
    #[test]
    fn mut_chain_writes_match_the_model_f64(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
    ) {
        mut_chain_write::<f64>(&shape, &recipe, &ops, &w)?;
    }


    /// Property 4: split_at (maybe twice, maybe on two threads) writes each half, and
    /// as_strided on a half cannot escape it.
    #[test]
    fn split_halves_write_their_own_elements(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), g in arb_split(),
        w in arb_split_writes(),
    ) {
        split_case::<i32>(&shape, &recipe, &ops, &g, &w)?;
    }


    /// Property 4: reborrowed views write, then the original is used again.
    #[test]
    fn reborrow_then_use_the_original(
        shape in arb_shape(), recipe in arb_recipe(), c0 in arb_mut_chain(), c1 in arb_mut_chain(),
        w in arb_split_writes(),
    ) {
        reborrow_case::<f32>(&shape, &recipe, &[c0, c1], &w)?;
    }


    /// Property 5: failing writes return the right error and change nothing (i32, f32).
    #[test]
    fn failing_writes_write_nothing(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), f in arb_failing(),
    ) {
        failing_case::<i32>(&shape, &recipe, &ops, &f)?;
        failing_case::<f32>(&shape, &recipe, &ops, &f)?;
    }
}

proptest! {
    #![proptest_config(config(32))]

    /// Property 6: every write path on every element size (1, 2, 4 and 8 bytes); copy-on-write
    /// on every size is in `cow_props.rs`.
    #[test]
    fn all_paths_u8(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
        g in arb_split(), ws in arb_split_writes(),
        f in arb_failing(),
    ) {
        all_paths::<u8>(&shape, &recipe, &ops, &w, &g, &ws, &f)?;
    }

    #[test]
    fn all_paths_i16(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
        g in arb_split(), ws in arb_split_writes(),
        f in arb_failing(),
    ) {
        all_paths::<i16>(&shape, &recipe, &ops, &w, &g, &ws, &f)?;
    }

    #[test]
    fn all_paths_f16(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
        g in arb_split(), ws in arb_split_writes(),
        f in arb_failing(),
    ) {
        all_paths::<half::f16>(&shape, &recipe, &ops, &w, &g, &ws, &f)?;
    }

    #[test]
    fn all_paths_f32(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
        g in arb_split(), ws in arb_split_writes(),
        f in arb_failing(),
    ) {
        all_paths::<f32>(&shape, &recipe, &ops, &w, &g, &ws, &f)?;
    }

    #[test]
    fn all_paths_f64(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
        g in arb_split(), ws in arb_split_writes(),
        f in arb_failing(),
    ) {
        all_paths::<f64>(&shape, &recipe, &ops, &w, &g, &ws, &f)?;
    }

    #[test]
    fn all_paths_i64(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
        g in arb_split(), ws in arb_split_writes(),
        f in arb_failing(),
    ) {
        all_paths::<i64>(&shape, &recipe, &ops, &w, &g, &ws, &f)?;
    }
}

#[allow(clippy::too_many_arguments)]
fn all_paths<T: Num>(
    shape: &[usize],
    recipe: &Recipe,
    ops: &[OpGen],
    w: &WriteGen,
    g: &SplitGen,
    ws: &[WriteGen; 3],
    f: &Failing,
) -> TestResult {
    mut_chain_write::<T>(shape, recipe, ops, w)?;
    split_case::<T>(shape, recipe, ops, g, ws)?;
    failing_case::<T>(shape, recipe, ops, f)?;
    Ok(())
}

/// Every write kind at least once on every element size, on a fixed transposed, flipped view
/// (so that no kind depends on the random generator to be reached).
#[test]
fn every_write_kind_on_every_element_size() {
    fn run<T: Num>() {
        use WKind::*;
        let kinds = [
            Fill, Set, Copy, Map, Add, Sub, Mul, Div, ZipMap, AddScalar, SubScalar, MulScalar,
            DivScalar,
        ];
        let recipe = Recipe {
            perm: vec![0, 1, 2],
            modes: vec![4, 6, 0],
        };
        for (i, &kind) in kinds.iter().enumerate() {
            for operator in [false, true] {
                let w = WriteGen {
                    kind,
                    value: i,
                    index: vec![i as u8, 3],
                    src: SrcGen {
                        drop: i % 2,
                        ones: (i % 3) as u8,
                        recipe: Recipe {
                            perm: vec![i as u8, 1],
                            modes: vec![i as u8, 9, 4],
                        },
                    },
                    operator,
                };
                // Through TensorMut on a transposed, flipped parent.
                let mut_chain = [OpGen::Fixed(Op::Transpose(0, 2)), OpGen::Fixed(Op::Flip(1))];
                mut_chain_write::<T>(&[3, 4, 5], &recipe, &mut_chain, &w).unwrap();
                // Through the Tensor methods and operators on a shared transposed view.
                let chain = [OpGen::Fixed(Op::Transpose(0, 2))];
                cow_write::<T>(&[3, 4, 5], &recipe, &chain, &w, Holders::Shared).unwrap();
                cow_write::<T>(&[3, 4, 5], &recipe, &chain, &w, Holders::Alone).unwrap();
            }
        }
    }
    run::<u8>();
    run::<i16>();
    run::<half::f16>();
    run::<f32>();
    run::<i32>();
    run::<f64>();
    run::<i64>();
}

#[test]
fn overlapping_as_strided_on_a_mut_view_is_refused() {
    let mut x = Tensor::from_vec((0..8).collect::<Vec<u8>>(), &[8]).unwrap();
    let mut v = x.view_mut().unwrap();
    for (shape, strides) in [
        (&[3, 3][..], &[1, 1][..]),
        (&[2, 4], &[0, 1]),
        (&[3, 2], &[2, 2]),
    ] {
        let r = v.reborrow().as_strided(shape, strides, 0);
        assert!(
            matches!(
                r,
                Err(Error::OverlappingDestination {
                    op: "as_strided",
                    ..
                })
            ),
            "{shape:?} {strides:?}: {r:?}"
        );
    }
    assert!(matches!(
        v.reborrow().as_strided(&[3, 3], &[3, 1], 0),
        Err(Error::OutOfBounds { .. })
    ));
    assert_eq!(v.to_vec(), (0..8).collect::<Vec<u8>>());
    drop(v);
    let w = x.unfold(0, 3, 2).unwrap();
    let mut w2 = w.clone();
    let (r, report) = audit::record(|| w2.fill(1));
    assert!(matches!(r, Err(Error::OverlappingDestination { .. })));
    assert_eq!(report.count(), 0);
    assert_eq!(x.to_vec(), (0..8).collect::<Vec<u8>>());
    // unfold with step == size does not overlap: writable (copy-on-write, x holds it too,
    // for a value of its own with that layout; the view itself is refused while x lives).
    let v = x.unfold(0, 2, 2).unwrap();
    let mut v2 = v.clone();
    assert!(matches!(v2.fill(9), Err(Error::WriteToSharedView { .. })));
    let mut u = Tensor::from_storage(v.storage().clone(), v.layout().clone()).unwrap();
    drop((v, v2));
    u.fill(9).unwrap();
    assert_eq!(u.to_vec(), vec![9; 8]);
    assert_eq!(x.to_vec(), (0..8).collect::<Vec<u8>>());
}

#[test]
fn as_strided_cannot_escape_a_split_half() {
    let mut x = Tensor::from_vec((0..16).collect::<Vec<i32>>(), &[4, 4]).unwrap();
    {
        let (mut top, mut bottom) = x.view_mut().unwrap().split_at(0, 2).unwrap();
        // The top half is dense over offsets 0..8: inside is allowed, outside is not.
        let escapes = |r: stridex::Result<TensorMut<'_, i32>>| {
            matches!(
                r,
                Err(Error::EscapesView {
                    op: "as_strided",
                    ..
                })
            )
        };
        assert!(escapes(top.reborrow().as_strided(&[2, 4], &[4, 1], 8)));
        assert!(escapes(top.reborrow().as_strided(&[9], &[1], 0)));
        assert!(escapes(bottom.reborrow().as_strided(&[8], &[1], 0)));
        top.reborrow()
            .as_strided(&[4], &[2], 1)
            .unwrap()
            .fill(-1)
            .unwrap();
        bottom
            .reborrow()
            .as_strided(&[2], &[1], 14)
            .unwrap()
            .fill(-2)
            .unwrap();
    }
    assert_eq!(
        x.to_vec(),
        vec![0, -1, 2, -1, 4, -1, 6, -1, 8, 9, 10, 11, 12, 13, -2, -2]
    );
    {
        // Halves of a split along dim 1 are not dense: any non-empty as_strided is refused,
        // even one inside the half; an empty one is fine.
        let (mut left, _right) = x.view_mut().unwrap().split_at(1, 2).unwrap();
        let r = left.reborrow().as_strided(&[1], &[1], 0);
        assert!(matches!(r, Err(Error::EscapesView { .. })), "{r:?}");
        assert!(left.reborrow().as_strided(&[0], &[1], 15).is_ok());
        left.fill(0).unwrap();
    }
    assert_eq!(
        x.to_vec(),
        vec![0, 0, 2, -1, 0, 0, 6, -1, 0, 0, 10, 11, 0, 0, -2, -2]
    );
}

#[test]
fn integer_division_by_zero_writes_nothing() {
    let mut x = Tensor::from_vec(vec![10i16, 20, 30, 40], &[2, 2]).unwrap();
    let zero_in = Tensor::from_vec(vec![1i16, 2, 0, 4], &[2, 2])
        .unwrap()
        .t()
        .unwrap();
    assert!(matches!(
        x.div_assign(&zero_in),
        Err(Error::DivisionByZero { op: "div_assign" })
    ));
    assert!(matches!(
        x.view_mut()
            .unwrap()
            .narrow(0, 0, 1)
            .unwrap()
            .div_assign(&zero_in.select(0, 0).unwrap()),
        Err(Error::DivisionByZero { .. })
    ));
    assert!(matches!(
        x.view_mut().unwrap().div_assign_scalar(0),
        Err(Error::DivisionByZero {
            op: "div_assign_scalar"
        })
    ));
    assert_eq!(x.to_vec(), vec![10, 20, 30, 40]);
    // A zero in the source but an empty destination: nothing to divide.
    let mut e = Tensor::<i16>::zeros(&[0, 2]).unwrap();
    e.div_assign(&Tensor::from_vec(vec![0i16, 1], &[2]).unwrap())
        .unwrap();
    // Floats divide by zero.
    let mut f = Tensor::from_vec(vec![1.0f32, -1.0], &[2]).unwrap();
    f.div_assign(&Tensor::from_vec(vec![0.0f32, 0.0], &[2]).unwrap())
        .unwrap();
    assert_eq!(f.to_vec(), vec![f32::INFINITY, f32::NEG_INFINITY]);
}

#[test]
#[should_panic(expected = "div_assign")]
fn integer_division_operator_by_zero_panics() {
    let mut x = Tensor::from_vec(vec![1u8, 2], &[2]).unwrap();
    x /= 0;
}
