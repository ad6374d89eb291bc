//! Property tests of `Layout` (view semantics) against the reference model in `common`.
//!
//! Case counts default to small numbers so the suite is fast in debug builds; set
//! `PROPTEST_CASES` to run more.

use crate::common;

use common::*;
use proptest::prelude::*;
use stridex::{Error, Layout, broadcast_shapes};

// ---------------------------------------------------------------------------------------------
// Strategies for extreme inputs
// ---------------------------------------------------------------------------------------------

fn extreme_dim() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0usize..4, 1 => huge_usize()]
}

fn extreme_stride() -> impl Strategy<Value = isize> {
    prop_oneof![3 => -3isize..=3, 1 => huge_isize()]
}

fn extreme_offset() -> impl Strategy<Value = usize> {
    prop_oneof![2 => 0usize..8, 1 => huge_usize()]
}

/// Shape, strides and offset with extreme values; `mode` steers towards valid layouts: 0 raw,
/// 1 forced empty, 2 offset raised to keep negative strides in range, 3 all dims size 1.
fn arb_extreme_parts() -> impl Strategy<Value = (Vec<usize>, Vec<isize>, usize)> {
    (
        prop::collection::vec((extreme_dim(), extreme_stride()), 0..=4),
        extreme_offset(),
        0u8..4,
        any::<u8>(),
    )
        .prop_map(|(dims, offset, mode, pick)| {
            let mut shape: Vec<usize> = dims.iter().map(|p| p.0).collect();
            let strides: Vec<isize> = dims.iter().map(|p| p.1).collect();
            let mut offset = offset;
            match mode {
                1 if !shape.is_empty() => {
                    let d = pick as usize % shape.len();
                    shape[d] = 0;
                }
                2 => {
                    let need = shape.iter().zip(&strides).fold(0u128, |acc, (&d, &s)| {
                        if s < 0 && d > 0 {
                            acc.saturating_add(
                                (d as u128 - 1).saturating_mul(s.unsigned_abs() as u128),
                            )
                        } else {
                            acc
                        }
                    });
                    offset = need.min(usize::MAX as u128) as usize;
                }
                3 => shape.iter_mut().for_each(|d| *d = 1),
                _ => {}
            }
            (shape, strides, offset)
        })
}

/// View ops with extreme arguments (and the ordinary random ones).
fn arb_extreme_op() -> impl Strategy<Value = OpGen> {
    use OpGen::Fixed;
    let shape = || prop::collection::vec(extreme_dim(), 0..=5);
    prop_oneof![
        4 => arb_op(),
        1 => (dim_arg(), huge_usize(), huge_usize()).prop_map(|(d, s, n)| Fixed(Op::Narrow(d, s, n))),
        1 => (dim_arg(), huge_usize(), size_arg()).prop_map(|(d, s, n)| Fixed(Op::Narrow(d, s, n))),
        1 => (dim_arg(), huge_isize(), huge_isize(), huge_isize())
            .prop_map(|(d, s, e, st)| Fixed(Op::Slice(d, s, e, st))),
        1 => (dim_arg(), bound_arg(), huge_isize(), step_arg())
            .prop_map(|(d, s, e, st)| Fixed(Op::Slice(d, s, e, st))),
        1 => (dim_arg(), huge_usize()).prop_map(|(d, i)| Fixed(Op::Select(d, i))),
        1 => (dim_arg(), size_arg(), huge_usize()).prop_map(|(d, s, st)| Fixed(Op::Unfold(d, s, st))),
        1 => (dim_arg(), huge_usize(), prop_oneof![Just(1usize), huge_usize()])
            .prop_map(|(d, s, st)| Fixed(Op::Unfold(d, s, st))),
        1 => shape().prop_map(|s| Fixed(Op::Expand(s))),
        1 => shape().prop_map(|s| Fixed(Op::View(s))),
        1 => (huge_isize(), dim_arg(), dim_arg()).prop_map(|(k, a, b)| Fixed(Op::DiagonalWith(k, a, b))),
        1 => arb_extreme_parts().prop_map(|(s, st, o)| Fixed(Op::AsStrided(s, st, o))),
    ]
}

/// Small enough to run the model on.
fn small(shape: &[usize]) -> bool {
    shape.iter().all(|&d| d <= 64) && true_numel(shape).is_some_and(|n| n <= 4096)
}

/// The shape an op asks for, for ops that take one.
fn target_shape(op: &Op) -> Option<&[usize]> {
    match op {
        Op::Expand(s) | Op::View(s) | Op::AsStrided(s, _, _) => Some(s),
        _ => None,
    }
}

/// NumPy broadcasting, written from its definition: align on the right, pad with 1s; each pair
/// must be equal or contain a 1, and the result takes the other size. Returns the first
/// conflicting result dim from the left on failure.
fn numpy_broadcast(a: &[usize], b: &[usize]) -> Result<Vec<usize>, usize> {
    let n = a.len().max(b.len());
    let pad = |s: &[usize]| {
        let mut v = vec![1; n - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (a, b) = (pad(a), pad(b));
    let mut out = vec![];
    for i in 0..n {
        out.push(match (a[i], b[i]) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return Err(i),
        });
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(512))]

    /// Property 1: random chains of view ops (with often-invalid arguments) agree with the
    /// reference model at every step: same success/failure (and a justified error kind), same
    /// offset for every index, same offset range and element count.
    #[test]
    fn view_op_chains_match_the_model(
        (shape, strides, offset) in arb_start_mixed(),
        ops in arb_chain(),
    ) {
        run_chain((&shape, &strides, offset), &ops, |_, _| Ok(()))?;
    }

    /// Property 2: `view(shape)` succeeds exactly when brute force finds strides reproducing the
    /// row-major list of storage offsets, and then has exactly those offsets.
    #[test]
    fn view_succeeds_exactly_when_brute_force_finds_strides(
        (shape, strides, offset) in arb_start_mixed(),
        ops in prop::collection::vec(arb_op(), 0..=3),
        seeds in prop::collection::vec(seed(), 1..8),
    ) {
        run_chain((&shape, &strides, offset), &ops, |l, m| {
            for s in &seeds {
                let new = shape_from_seed(l.shape(), l.numel(), s);
                let op = Op::View(new.clone());
                let got = l.view(&new);
                let want = m.view(&new);
                let what = format!("view {new:?} of {l:?}");
                if let Some(vm) = compare(&what, &op, &got, &want)? {
                    let v = got.unwrap();
                    check_layout(&v, &vm)?;
                    prop_assert_eq!(v.offset(), l.offset(), "view keeps the offset");
                }
            }
            Ok(())
        })?;
    }

    /// Property 5: `is_contiguous` and `is_non_overlapping_and_dense` agree with their
    /// definitions computed on the model (contiguous: numel == 0 or offsets o, o+1, ... in
    /// row-major order; non-overlapping and dense: numel == 0 or the offsets are distinct
    /// consecutive integers and every dim of size > 1 steps forwards).
    #[test]
    fn contiguity_predicates_match_their_definitions(
        (shape, strides, offset) in arb_start_mixed(),
        ops in prop::collection::vec(arb_op(), 0..=4),
    ) {
        run_chain((&shape, &strides, offset), &ops, |l, m| {
            prop_assert_eq!(l.is_contiguous(), m.is_contiguous(), "is_contiguous of {:?}", l);
            prop_assert_eq!(
                l.is_non_overlapping_and_dense(),
                m.is_non_overlapping_and_dense(),
                "is_non_overlapping_and_dense of {:?}",
                l
            );
            if l.is_contiguous() {
                prop_assert!(l.is_non_overlapping_and_dense());
            }
            Ok(())
        })?;
    }

    /// Property 6: `coalesced()` keeps the row-major offset list, never adds dims, drops every
    /// size-1 dim, leaves no mergeable neighbours and is idempotent; `iteration_order()` is a
    /// permutation with size-1 dims first, then non-increasing |stride|, ties in dim order.
    #[test]
    fn coalesced_and_iteration_order(
        (shape, strides, offset) in arb_start_mixed(),
        ops in prop::collection::vec(arb_op(), 0..=4),
    ) {
        run_chain((&shape, &strides, offset), &ops, |l, m| {
            let c = l.coalesced();
            prop_assert!(c.ndim() <= l.ndim(), "{:?} -> {:?}", l, c);
            prop_assert_eq!(c.numel(), l.numel());
            prop_assert!(rebuilds(&c), "coalesced {:?} is not a valid layout", c);
            let cm = Model::strided(c.shape(), c.strides(), c.offset());
            prop_assert_eq!(&cm.offs, &m.offs, "coalesced {:?} of {:?}", c, l);
            if m.numel() > 0 {
                prop_assert!(!c.shape().contains(&1), "{:?}", c);
                for d in 1..c.ndim() {
                    prop_assert!(
                        c.strides()[d - 1] as i128 != c.shape()[d] as i128 * c.strides()[d] as i128,
                        "dims {} and {} of {:?} could merge", d - 1, d, c
                    );
                }
            } else {
                prop_assert_eq!(c.shape(), &[0][..]);
            }
            prop_assert_eq!(&c.coalesced(), &c);

            let order = l.iteration_order();
            let mut sorted = order.clone();
            sorted.sort_unstable();
            prop_assert_eq!(sorted, (0..l.ndim()).collect::<Vec<_>>());
            let key = |d: usize| (l.shape()[d] != 1, std::cmp::Reverse(l.strides()[d].unsigned_abs()));
            for w in order.windows(2) {
                prop_assert!(key(w[0]) < key(w[1]) || (key(w[0]) == key(w[1]) && w[0] < w[1]),
                    "iteration_order {:?} of {:?}", order, l);
            }
            Ok(())
        })?;
    }

    /// Property 4a: `Layout::new` accepts exactly the parts satisfying the documented
    /// invariants (on the true element count), never panics, and reports the right range.
    #[test]
    fn layout_new_matches_the_invariants_on_extreme_inputs(
        (shape, strides, offset) in arb_extreme_parts(),
        extra_stride in prop::option::weighted(0.05, extreme_stride()),
    ) {
        let mut strides = strides;
        strides.extend(extra_stride);
        let got = Layout::new(&shape, &strides, offset);
        let want = layout_new_model(&shape, &strides, offset);
        match (&got, &want) {
            (Ok(l), Ok(())) => {
                prop_assert_eq!(l.shape(), &shape[..]);
                prop_assert_eq!(l.strides(), &strides[..]);
                prop_assert_eq!(l.offset(), offset);
                prop_assert_eq!(Some(l.numel()), true_numel(&shape));
                let ext = extent(&shape, &strides, offset);
                prop_assert_eq!(l.offset_range(), ext.map(|(lo, hi)| (lo as usize, hi as usize)));
                // Contiguous layouts of the same shape exist when the count is small enough.
                let _ = Layout::contiguous(&shape);
                let _ = (l.is_contiguous(), l.is_non_overlapping_and_dense(), l.coalesced());
                let _ = l.iteration_order();
            }
            (Err(e), Err(why)) => prop_assert!(why.contains(&kind(e)), "{:?} not in {:?}", e, why),
            _ => prop_assert!(false, "Layout::new({:?}, {:?}, {}) = {:?}, model {:?}",
                shape, strides, offset, got, want),
        }
    }

    /// Property 4b: no view op panics, whatever the layout (empty layouts with huge dims,
    /// huge or extreme strides, huge offsets) and whatever the arguments. Every result is a
    /// valid layout addressing a subset of its input's offsets; where the sizes allow it, the
    /// result is also compared with the model.
    #[test]
    fn view_ops_never_panic_on_extreme_inputs(
        (shape, strides, offset) in arb_extreme_parts(),
        ops in prop::collection::vec(arb_extreme_op(), 1..=4),
    ) {
        let Ok(mut l) = Layout::new(&shape, &strides, offset) else { return Ok(()) };
        for r#gen in &ops {
            let op = r#gen.resolve(l.shape());
            let got = apply_layout(&l, &op);
            if let Ok(r) = &got {
                prop_assert!(rebuilds(r), "{:?} on {:?} gave an invalid {:?}", op, l, r);
                if !matches!(op, Op::AsStrided(..)) {
                    if let (Some((lo, hi)), Some((rlo, rhi))) = (l.offset_range(), r.offset_range()) {
                        prop_assert!(lo <= rlo && rhi <= hi, "{:?} on {:?} gave {:?}", op, l, r);
                    }
                    prop_assert!(r.numel() == 0 || l.numel() > 0);
                }
                let _ = (r.is_contiguous(), r.is_non_overlapping_and_dense(), r.coalesced());
                let _ = r.offset_of(&vec![usize::MAX; r.ndim()]);
                let _ = r.offset_of(&vec![0; r.ndim()]);
            }
            let model_ok = small(l.shape())
                && target_shape(&op).is_none_or(small);
            if model_ok {
                let m = Model::strided(l.shape(), l.strides(), l.offset());
                let want = m.apply(&op);
                let what = format!("{op:?} on {l:?}");
                if let Some(next) = compare(&what, &op, &got, &want)? {
                    check_layout(got.as_ref().unwrap(), &next)?;
                }
            }
            if let Ok(r) = got {
                l = r;
            }
        }
    }

    /// Property 4c: `view` to a shape whose element count overflows is a `NumelMismatch` with
    /// `need: None`; to a shape with a different count, `need: Some(count)`.
    #[test]
    fn view_to_overflowing_shapes_is_an_error(
        (shape, strides, offset) in arb_start(),
        new in prop::collection::vec(prop_oneof![1 => 2usize..5, 1 => huge_usize()], 1..=5),
    ) {
        let (l, _) = start_layout(&shape, &strides, offset);
        let got = l.view(&new);
        match true_numel(&new) {
            None => prop_assert!(
                matches!(&got, Err(Error::NumelMismatch { need: None, .. })),
                "view {:?} of {:?}: {:?}", new, l, got
            ),
            Some(n) if n != l.numel() => prop_assert!(
                matches!(&got, Err(Error::NumelMismatch { need: Some(k), .. }) if *k == n),
                "view {:?} of {:?}: {:?}", new, l, got
            ),
            Some(_) => {}
        }
    }

    /// Property 4d: `broadcast_shapes` agrees with a model of NumPy broadcasting (result and
    /// conflicting dim), is symmetric, and never panics on huge sizes.
    #[test]
    fn broadcast_shapes_matches_numpy(
        a in prop::collection::vec(prop_oneof![8 => 0usize..4, 1 => huge_usize()], 0..=5),
        b in prop::collection::vec(prop_oneof![8 => 0usize..4, 1 => huge_usize()], 0..=5),
    ) {
        let got = broadcast_shapes(&a, &b);
        let swapped = broadcast_shapes(&b, &a);
        match numpy_broadcast(&a, &b) {
            Ok(s) => {
                prop_assert_eq!(got.as_ref().ok(), Some(&s));
                prop_assert_eq!(swapped.as_ref().ok(), Some(&s));
                // Both inputs expand to the result.
                for x in [&a, &b] {
                    if let Ok(l) = Layout::new(x, &vec![0; x.len()], 0) {
                        if true_numel(&s).is_some() {
                            prop_assert!(l.expand(&s).is_ok(), "{:?} -> {:?}", x, s);
                        }
                    }
                }
            }
            Err(dim) => {
                prop_assert_eq!(got, Err(Error::BroadcastMismatch { op: "broadcast", a: a.clone(), b: b.clone(), dim }));
                prop_assert_eq!(swapped, Err(Error::BroadcastMismatch { op: "broadcast", a: b.clone(), b: a.clone(), dim }));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Unit tests and known bugs
// ---------------------------------------------------------------------------------------------

/// Sanity check of the view-shape generator itself: it must produce plenty of both outcomes,
/// or property 2 would be vacuous.
#[test]
fn view_shape_generator_hits_views_and_non_views() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strat = (arb_start_mixed(), seed());
    let (mut views, mut non_views, mut mismatches) = (0, 0, 0);
    for _ in 0..2000 {
        let ((shape, strides, offset), s) = strat.new_tree(&mut runner).unwrap().current();
        let (l, m) = start_layout(&shape, &strides, offset);
        if l.numel() < 2 {
            continue;
        }
        let new = shape_from_seed(l.shape(), l.numel(), &s);
        match m.view(&new) {
            Ok(_) => views += 1,
            Err(why) if why == ["ViewNotPossible"] => non_views += 1,
            Err(_) => mismatches += 1,
        }
    }
    let total = views + non_views + mismatches;
    assert!(views * 5 > total, "views {views} of {total}");
    assert!(non_views * 8 > total, "non-views {non_views} of {total}");
    assert!(
        mismatches * 20 > total,
        "mismatches {mismatches} of {total}"
    );
}

#[test]
fn documented_stride_choices() {
    let c = |s: &[usize]| Layout::contiguous(s).unwrap();
    assert_eq!(c(&[2, 0, 3]).strides(), &[3, 3, 1]);
    assert_eq!(c(&[4, 1, 5]).strides(), &[5, 5, 1]);
    assert_eq!(c(&[3, 2]).unsqueeze(1).unwrap().strides(), &[2, 2, 1]);
    assert_eq!(c(&[3, 2]).unsqueeze(2).unwrap().strides(), &[2, 1, 1]);
    assert!(c(&[3, 2]).unsqueeze(0).unwrap().is_contiguous());
    // Empty layouts are contiguous and dense whatever their strides.
    let e = Layout::new(&[2, 0, 3], &[-7, 0, 99], 5).unwrap();
    assert!(e.is_contiguous() && e.is_non_overlapping_and_dense());
    assert_eq!(e.offset_range(), None);
    // A 0-dim layout has one element at its offset.
    let z = Layout::new(&[], &[], 9).unwrap();
    assert_eq!(
        (z.numel(), z.offset_of(&[]).unwrap(), z.offset_range()),
        (1, 9, Some((9, 9)))
    );
    assert_eq!(z.coalesced(), z);
    assert_eq!(z.view(&[1, 1]).unwrap().offset_of(&[0, 0]).unwrap(), 9);
}

/// Regression: the element count of a zero-sized shape must not depend on the order of its
/// dims (it was computed left to right with overflow checks). Every size must fit in `isize`
/// (invariant 2), whatever the count.
#[test]
fn zero_sized_shapes_are_accepted_in_any_dim_order() {
    let big = isize::MAX as usize;
    let ok = Layout::new(&[0, big, 2], &[1, 1, 1], 0);
    assert!(ok.is_ok());
    assert!(Layout::new(&[big, 2, 0], &[1, 1, 1], 0).is_ok());
    assert!(ok.unwrap().transpose(0, 2).is_ok());
    assert!(matches!(
        Layout::new(&[0, usize::MAX], &[1, 1], 0),
        Err(Error::Overflow { .. })
    ));
}

/// Regression: `slice` on the largest dim an (empty) layout may have clamps correctly.
#[test]
fn slice_of_the_largest_dim_clamps() {
    let l = Layout::new(&[0, isize::MAX as usize], &[1, 1], 0).unwrap();
    // NumPy keeps 5 of them: expected shape [0, 5]; got [0, 0].
    assert_eq!(l.slice(1, 0, 5, 1).unwrap().shape(), &[0, 5]);
    // Expected shape [0, 2]; got a panic "attempt to add with overflow" in debug builds.
    let r = std::panic::catch_unwind(|| l.slice(1, isize::MIN, 2, 1));
    assert!(r.is_ok(), "slice panicked");
    assert_eq!(r.unwrap().unwrap().shape(), &[0, 2]);
}

/// Regression: `unfold` on the largest dim with `size == 0` (one more window than the dim has
/// elements) is an overflow error, not a panic.
#[test]
fn unfold_of_the_largest_dim_is_an_overflow_error() {
    let l = Layout::new(&[0, isize::MAX as usize], &[1, 1], 0).unwrap();
    let r = std::panic::catch_unwind(|| l.unfold(1, 0, 1));
    // Expected Err(Overflow) (usize::MAX + 1 windows); got a panic.
    assert!(
        matches!(r, Ok(Err(Error::Overflow { .. }))),
        "unfold panicked or succeeded"
    );
}

/// Regression: `view` of an empty layout to an empty shape whose row-major strides overflow
/// (or whose sizes exceed `isize::MAX`) is an error, not a panic.
#[test]
fn view_of_empty_layout_to_huge_empty_shape_is_an_error() {
    let l = Layout::contiguous(&[0]).unwrap();
    let r = std::panic::catch_unwind(|| l.view(&[0, usize::MAX]));
    // Expected Ok (doc: "An empty layout can be viewed as any shape with zero elements") or at
    // least an Err; got a panic "row-major strides of a checked shape".
    assert!(r.is_ok(), "view panicked");
    let big = isize::MAX as usize;
    assert!(matches!(l.view(&[0, big, 4]), Err(Error::Overflow { .. })));
    assert_eq!(l.view(&[0, big]).unwrap().shape(), &[0, big]);
}
