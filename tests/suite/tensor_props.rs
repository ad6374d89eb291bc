//! Property tests of `Tensor` views and copies against the reference model in `common`, plus
//! unit tests for empty, 0-dim and size-1 tensors.
//!
//! Case counts default to small numbers so the suite is fast in debug builds; set
//! `PROPTEST_CASES` to run more.

use crate::common;

use common::*;
use proptest::prelude::*;
use stridex::{Error, Layout, Storage, Tensor};

/// Builds the storage `0, 1, 2, ..` (as `T`) large enough for the start layout plus `slack`, a
/// 1-dim base tensor over it, and the start view via `Tensor::as_strided`.
fn start_tensor<T: Val>(
    start: &(Vec<usize>, Vec<isize>, usize),
    slack: usize,
) -> (Tensor<T>, Tensor<T>, Model, Vec<T>) {
    let (shape, strides, offset) = start;
    let m = Model::strided(shape, strides, *offset);
    let len = m.range().map_or(*offset, |(_, hi)| hi as usize + 1) + slack;
    let vals: Vec<T> = (0..len).map(T::from_index).collect();
    let base = Tensor::from_vec(vals.clone(), &[len]).unwrap();
    let t = base.as_strided(shape, strides, *offset).unwrap();
    (base, t, m, vals)
}

/// Everything a tensor view must agree with its model on: its layout, shared storage, element
/// access (`get`, `iter`, `to_vec`), `contiguous` and `reshape`.
fn check_tensor<T: Val>(
    base: &Tensor<T>,
    t: &Tensor<T>,
    m: &Model,
    vals: &[T],
    reshape_seeds: &[Vec<u8>],
) -> TestResult {
    check_layout(t.layout(), m)?;
    prop_assert!(t.shares_storage(base), "a view op copied");
    prop_assert_eq!(t.storage().len(), vals.len());
    let want: Vec<T> = m.offs.iter().map(|&o| vals[o as usize]).collect();
    for (k, idx) in all_indices(&m.shape).iter().enumerate() {
        prop_assert_eq!(t.get(idx).ok(), Some(want[k]), "get({:?})", idx);
    }
    for d in 0..t.ndim() {
        let mut idx = vec![0; t.ndim()];
        idx[d] = t.shape()[d];
        prop_assert!(t.get(&idx).is_err(), "get({:?}) out of range", idx);
    }
    prop_assert!(
        t.get(&vec![0; t.ndim() + 1]).is_err(),
        "get with a wrong rank"
    );
    let it = t.iter();
    prop_assert_eq!(it.len(), want.len());
    prop_assert_eq!(&it.collect::<Vec<T>>(), &want, "iter() of {:?}", t.layout());
    prop_assert_eq!(&t.to_vec(), &want, "to_vec() of {:?}", t.layout());
    check_contiguous(t, &want)?;
    for s in reshape_seeds {
        let shape = shape_from_seed(t.shape(), t.numel(), s);
        let r = t.reshape(&shape);
        let v = t.view(&shape);
        if true_numel(&shape) == Some(t.numel()) {
            let r = r.map_err(|e| TestCaseError::fail(format!("reshape {shape:?}: {e}")))?;
            prop_assert_eq!(r.shape(), &shape[..]);
            prop_assert_eq!(
                &r.to_vec(),
                &want,
                "reshape {:?} of {:?}",
                shape,
                t.layout()
            );
            prop_assert_eq!(
                r.shares_storage(t),
                v.is_ok(),
                "reshape {:?} of {:?}",
                shape,
                t.layout()
            );
            prop_assert_eq!(
                v.is_ok(),
                m.view(&shape).is_ok(),
                "view {:?} of {:?}",
                shape,
                t.layout()
            );
            if !r.shares_storage(t) {
                prop_assert!(r.is_contiguous() && r.offset() == 0);
            }
        } else {
            prop_assert!(
                matches!(r, Err(Error::NumelMismatch { .. })),
                "reshape {:?}",
                shape
            );
            prop_assert!(
                matches!(v, Err(Error::NumelMismatch { .. })),
                "view {:?}",
                shape
            );
        }
    }
    Ok(())
}

/// `contiguous()` (and `try_contiguous()`): row-major values, contiguous, shares storage iff the
/// input is contiguous, and a copy is a fresh, 64-byte aligned, row-major storage at offset 0.
fn check_contiguous<T: Val>(t: &Tensor<T>, want: &[T]) -> TestResult {
    let c = t.contiguous();
    prop_assert!(c.is_contiguous());
    prop_assert_eq!(c.shape(), t.shape());
    prop_assert_eq!(
        c.shares_storage(t),
        t.is_contiguous(),
        "contiguous() of {:?}",
        t.layout()
    );
    prop_assert_eq!(&c.to_vec(), want);
    prop_assert_eq!(&c.iter().collect::<Vec<T>>(), want);
    prop_assert_eq!(&(&c).into_iter().collect::<Vec<T>>(), want);
    if c.numel() > 0 {
        // Contiguous: the storage holds exactly the row-major values from the offset on.
        let s = &c.storage().as_slice()[c.offset()..c.offset() + c.numel()];
        prop_assert_eq!(s, want);
    }
    if !c.shares_storage(t) {
        prop_assert_eq!(c.offset(), 0);
        let row_major = Layout::contiguous(t.shape()).unwrap();
        prop_assert_eq!(c.strides(), row_major.strides());
        prop_assert_eq!(c.storage().len(), t.numel());
        if c.numel() > 0 {
            prop_assert_eq!(c.data_ptr() as usize % 64, 0, "copy not 64-byte aligned");
        }
    }
    prop_assert!(
        c.contiguous().shares_storage(&c),
        "contiguous() of a contiguous tensor copied"
    );
    let tc = t.try_contiguous().unwrap();
    prop_assert_eq!(tc.shares_storage(t), t.is_contiguous());
    prop_assert_eq!(&tc.to_vec(), want);
    Ok(())
}

/// Runs a chain of ops through the `Tensor` methods and the model side by side.
fn tensor_chain<T: Val>(
    start: &(Vec<usize>, Vec<isize>, usize),
    slack: usize,
    ops: &[OpGen],
    reshape_seeds: &[Vec<u8>],
) -> TestResult {
    let (base, mut t, mut m, vals) = start_tensor::<T>(start, slack);
    check_tensor(&base, &t, &m, &vals, reshape_seeds)?;
    for r#gen in ops {
        let op = r#gen.resolve(t.shape());
        let got = apply_tensor(&t, &op);
        let want = m.apply(&op);
        let what = format!("{op:?} on {:?}", t.layout());
        // At tensor level `as_strided` must also fit the storage.
        if let (Op::AsStrided(..), Ok(w)) = (&op, &want) {
            if let Some((_, hi)) = w.range().filter(|&(_, hi)| hi as usize >= vals.len()) {
                match &got {
                    Err(Error::OutOfBounds {
                        op: "as_strided",
                        offset,
                        storage_len,
                        ..
                    }) => {
                        prop_assert_eq!(*offset, hi as usize, "{}", what);
                        prop_assert_eq!(*storage_len, vals.len(), "{}", what);
                    }
                    other => prop_assert!(false, "{}: expected OutOfBounds, got {:?}", what, other),
                }
                continue;
            }
        }
        if let Some(next) = compare(&what, &op, &got, &want)? {
            t = got.unwrap();
            m = next;
            check_tensor(&base, &t, &m, &vals, reshape_seeds)?;
        }
    }
    Ok(())
}

fn arb_reshape_seeds() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(seed(), 0..3)
}

/// Starting views with large strides and offsets (a sparse walk over a larger storage).
fn arb_wide_start() -> impl Strategy<Value = (Vec<usize>, Vec<isize>, usize)> {
    arb_start_with(
        prop_oneof![2 => -300isize..=300, 1 => -6isize..=6, 1 => Just(0isize)],
        0usize..1000,
    )
}

/// Ops for larger copies: no shape changes that would blow up the element count.
fn arb_copy_op() -> impl Strategy<Value = OpGen> {
    use OpGen::Fixed;
    prop_oneof![
        3 => seed().prop_map(OpGen::Permute),
        2 => (0usize..3, 0usize..3).prop_map(|(a, b)| Fixed(Op::Transpose(a, b))),
        2 => (0usize..3).prop_map(|d| Fixed(Op::Flip(d))),
        2 => (0usize..3, -80isize..80, -80isize..80, prop_oneof![-3isize..=-1, 1isize..=3])
            .prop_map(|(d, s, e, st)| Fixed(Op::Slice(d, s, e, st))),
        1 => (0usize..3, 0usize..20, 0usize..80).prop_map(|(d, s, n)| Fixed(Op::Narrow(d, s, n))),
        1 => seed().prop_map(OpGen::Expand),
        1 => (0usize..3).prop_map(|d| Fixed(Op::Unsqueeze(d))),
    ]
}

/// 2- or 3-dim shapes large enough for several copy tiles (tiles are 128 bytes a side).
fn arb_big_shape() -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![
        (1usize..=80, 1usize..=80).prop_map(|(a, b)| vec![a, b]),
        (1usize..=4, 1usize..=40, 1usize..=40).prop_map(|(a, b, c)| vec![a, b, c]),
        (1usize..=70, 1usize..=3, 1usize..=70).prop_map(|(a, b, c)| vec![a, b, c]),
    ]
}

fn big_copy<T: Val>(shape: &[usize], ops: &[OpGen]) -> TestResult {
    let strides = Layout::contiguous(shape).unwrap().strides().to_vec();
    tensor_chain::<T>(&(shape.to_vec(), strides, 0), 0, ops, &[])
}

proptest! {
    #![proptest_config(config(256))]

    /// Property 3: random view-op chains through the `Tensor` methods never copy, and element
    /// access, iteration, `to_vec`, `contiguous` and `reshape` agree with the model (f32).
    #[test]
    fn tensor_chains_match_the_model_f32(
        start in arb_start_mixed(), slack in 0usize..3, ops in arb_chain(), seeds in arb_reshape_seeds(),
    ) {
        tensor_chain::<f32>(&start, slack, &ops, &seeds)?;
    }

    /// Property 3 for u8 (1-byte elements).
    #[test]
    fn tensor_chains_match_the_model_u8(
        start in arb_start_mixed(), slack in 0usize..3, ops in arb_chain(), seeds in arb_reshape_seeds(),
    ) {
        tensor_chain::<u8>(&start, slack, &ops, &seeds)?;
    }

    /// Property 3 for half::f16 (2-byte elements).
    #[test]
    fn tensor_chains_match_the_model_f16(
        start in arb_start_mixed(), slack in 0usize..3, ops in arb_chain(), seeds in arb_reshape_seeds(),
    ) {
        tensor_chain::<half::f16>(&start, slack, &ops, &seeds)?;
    }

    /// Property 3 for f64 (8-byte elements).
    #[test]
    fn tensor_chains_match_the_model_f64(
        start in arb_start_mixed(), slack in 0usize..3, ops in arb_chain(), seeds in arb_reshape_seeds(),
    ) {
        tensor_chain::<f64>(&start, slack, &ops, &seeds)?;
    }

    /// Property 7: copies of views with large (either sign, zero) strides and offsets over a
    /// larger storage: `contiguous()` is contiguous, a fresh aligned row-major storage at offset
    /// 0 when it copies, with the model's values (i64 and bf16).
    #[test]
    fn contiguous_copies_of_sparse_views(
        start in arb_wide_start(),
        slack in 0usize..5,
        ops in prop::collection::vec(arb_op(), 0..=4),
    ) {
        tensor_chain::<i64>(&start, slack, &ops, &[])?;
        tensor_chain::<half::bf16>(&start, slack, &ops, &[])?;
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// Property 7 at sizes spanning several copy tiles (transposes, flips, stepped slices,
    /// broadcasts), for every element size.
    #[test]
    fn contiguous_copies_of_large_views(
        shape in arb_big_shape(),
        ops in prop::collection::vec(arb_copy_op(), 1..=4),
    ) {
        big_copy::<u8>(&shape, &ops)?;
        big_copy::<half::f16>(&shape, &ops)?;
        big_copy::<f32>(&shape, &ops)?;
        big_copy::<f64>(&shape, &ops)?;
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Property 4: `Tensor::as_strided` never panics; it accepts exactly the valid layouts that
    /// fit the storage, and names the highest needed offset and the storage length otherwise.
    #[test]
    fn tensor_as_strided_checks_bounds(
        len in 0usize..40,
        dims in prop::collection::vec(
            (prop_oneof![6 => 0usize..5, 1 => huge_usize()], prop_oneof![6 => -4isize..=4, 1 => huge_isize()]),
            0..=4,
        ),
        offset in prop_oneof![6 => 0usize..40, 1 => huge_usize()],
        bad_rank in prop::bool::weighted(0.05),
    ) {
        let vals: Vec<f32> = (0..len).map(|i| i as f32).collect();
        let base = Tensor::from_vec(vals.clone(), &[len]).unwrap();
        let shape: Vec<usize> = dims.iter().map(|p| p.0).collect();
        let mut strides: Vec<isize> = dims.iter().map(|p| p.1).collect();
        if bad_rank {
            strides.push(1);
        }
        let got = base.as_strided(&shape, &strides, offset);
        match layout_new_model(&shape, &strides, offset) {
            Err(why) => {
                let e = got.err();
                prop_assert!(e.as_ref().is_some_and(|e| why.contains(&kind(e))), "{:?} not in {:?}", e, why);
            }
            Ok(()) => {
                let hi = extent(&shape, &strides, offset).map(|r| r.1 as usize);
                match hi {
                    Some(hi) if hi >= len => prop_assert_eq!(
                        got.err(),
                        Some(Error::OutOfBounds {
                            op: "as_strided",
                            offset: hi,
                            storage_len: len,
                            shape: shape.clone(),
                            strides: strides.clone(),
                        })
                    ),
                    _ => {
                        let t = got.map_err(|e| TestCaseError::fail(format!("{e}")))?;
                        prop_assert!(t.shares_storage(&base));
                        if t.numel() > 4096 {
                            return Ok(());
                        }
                        prop_assert_eq!(t.iter().count(), t.numel());
                        let m = Model::strided(&shape, &strides, offset);
                        let want: Vec<f32> = m.offs.iter().map(|&o| vals[o as usize]).collect();
                        prop_assert_eq!(t.to_vec(), want);
                    }
                }
            }
        }
    }

    /// Property 4: tensor view ops on extreme views (huge empty shapes, huge broadcasts, extreme
    /// strides) never panic, never copy, and element access stays consistent where it is cheap.
    #[test]
    fn tensor_ops_never_panic_on_extreme_views(
        shape in prop::collection::vec(prop_oneof![4 => 0usize..4, 1 => huge_usize()], 0..=4),
        strides_seed in prop::collection::vec(prop_oneof![3 => -3isize..=3, 1 => huge_isize()], 4),
        ops in prop::collection::vec(arb_op(), 1..=4),
    ) {
        let base = Tensor::from_vec((0..16).map(|i| i as f32).collect::<Vec<_>>(), &[16]).unwrap();
        let strides: Vec<isize> = strides_seed[..shape.len()].to_vec();
        // Zero strides on huge dims, anything on empty ones: valid views of a 16-element storage.
        let strides: Vec<isize> = if shape.contains(&0) {
            strides
        } else {
            shape.iter().zip(&strides).map(|(&d, &s)| if d > 3 { 0 } else { s.clamp(0, 1) }).collect()
        };
        let Ok(mut t) = base.as_strided(&shape, &strides, 0) else { return Ok(()) };
        for r#gen in &ops {
            let op = r#gen.resolve(t.shape());
            if let Ok(r) = apply_tensor(&t, &op) {
                prop_assert!(r.shares_storage(&base));
                prop_assert!(r.layout().fits_in(16));
                if r.numel() > 0 {
                    let first = r.get(&vec![0; r.ndim()]).unwrap();
                    prop_assert_eq!(first, r.offset() as f32);
                }
                let _ = r.get(&vec![usize::MAX; r.ndim()]);
                if r.numel() <= 4096 {
                    let v = r.to_vec();
                    prop_assert_eq!(&r.iter().collect::<Vec<_>>(), &v);
                    prop_assert_eq!(&r.contiguous().to_vec(), &v);
                    prop_assert_eq!(&r.reshape(&[r.numel()]).unwrap().to_vec(), &v);
                }
                t = r;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Unit tests: empty, 0-dim and size-1 tensors
// ---------------------------------------------------------------------------------------------

#[test]
#[allow(clippy::reversed_empty_ranges)] // Python's 5:-5:-1, a backward walk
fn empty_tensors() {
    for shape in [&[0][..], &[2, 0, 3], &[0, 0], &[1, 0]] {
        let t = Tensor::<f32>::zeros(shape).unwrap();
        assert_eq!((t.numel(), t.shape()), (0, shape));
        assert!(t.is_contiguous() && t.layout().is_non_overlapping_and_dense());
        assert_eq!(t.to_vec(), Vec::<f32>::new());
        assert_eq!(t.iter().count(), 0);
        assert_eq!(t.storage().len(), 0);
        assert!(t.contiguous().shares_storage(&t));
        assert!(t.get(&vec![0; shape.len()]).is_err());
        // Any zero-element shape is a view; others are not.
        assert!(t.view(&[0]).unwrap().shares_storage(&t));
        assert!(t.view(&[5, 0, 7]).unwrap().shares_storage(&t));
        assert!(t.reshape(&[3, 0]).unwrap().shares_storage(&t));
        assert!(matches!(t.view(&[1]), Err(Error::NumelMismatch { .. })));
        assert!(matches!(
            t.reshape(&[0usize; 0]),
            Err(Error::NumelMismatch { .. })
        ));
        // View ops on empty tensors stay empty and share storage.
        let f = t.flip(0).unwrap();
        assert!(f.shares_storage(&t) && f.numel() == 0);
        assert_eq!(t.unsqueeze(0).unwrap().shape()[0], 1);
    }
    let t = Tensor::<u8>::zeros(&[2, 0, 3]).unwrap();
    assert_eq!(t.strides(), &[3, 3, 1]);
    assert_eq!(t.transpose(0, 2).unwrap().to_vec(), Vec::<u8>::new());
    assert_eq!(t.select(2, 1).unwrap().shape(), &[2, 0]);
    assert_eq!(t.narrow(0, 2, 0).unwrap().shape(), &[0, 0, 3]);
    assert_eq!(t.slice_step(2, 5..-5, -1).unwrap().shape(), &[2, 0, 3]);
    assert_eq!(t.unfold(1, 0, 1).unwrap().shape(), &[2, 1, 3, 0]);
    assert_eq!(t.diagonal_with(0, 0, 2).unwrap().shape(), &[0, 2]);
    assert_eq!(t.expand(&[4, 2, 0, 3]).unwrap().numel(), 0);
    assert!(t.expand(&[2, 1, 3]).is_err());
    // An empty view may sit anywhere, even past the end of the storage.
    let base = Tensor::from_vec(vec![1i32, 2, 3], &[3]).unwrap();
    let e = base.as_strided(&[0, 4], &[100, -100], 50).unwrap();
    assert_eq!((e.numel(), e.to_vec()), (0, vec![]));
    assert_eq!(e.contiguous().numel(), 0);
    assert!(base.slice(0, 3..10).unwrap().to_vec().is_empty());
    // Empty copies of non-empty tensors.
    let s = base.narrow(0, 1, 0).unwrap();
    assert_eq!(s.shape(), &[0]);
    assert!(s.is_contiguous());
    assert!(
        Tensor::<f64>::from_vec(vec![], &[0, 5])
            .unwrap()
            .to_vec()
            .is_empty()
    );
    assert!(Tensor::arange(3i64, 3, 1).unwrap().to_vec().is_empty());
}

#[test]
fn zero_dim_tensors() {
    let t = Tensor::from_vec(vec![7.5f32], &[]).unwrap();
    assert_eq!((t.ndim(), t.numel(), t.shape()), (0, 1, &[][..]));
    assert_eq!(t.get(&[]).unwrap(), 7.5);
    assert!(t.get(&[0]).is_err());
    assert_eq!(t.to_vec(), vec![7.5]);
    assert_eq!(t.iter().collect::<Vec<_>>(), vec![7.5]);
    assert!(t.is_contiguous() && t.contiguous().shares_storage(&t));
    assert_eq!(t.t().unwrap().shape(), &[] as &[usize]);
    assert!(t.permute(&[0usize; 0]).is_ok());
    assert!(t.transpose(0, 0).is_err() && t.flip(1).is_err() && t.select(0, 0).is_err());
    // PyTorch's rule for a scalar: dim 0 (or -1) is a dim of one element.
    assert_eq!(t.flip(0).unwrap().layout(), t.layout());
    assert_eq!(t.unfold(-1, 1, 1).unwrap().shape(), &[1]);
    assert!(t.squeeze(0).is_err() && t.diagonal().is_err());
    let u = t.unsqueeze(0).unwrap();
    assert_eq!((u.shape(), u.to_vec()), (&[1][..], vec![7.5]));
    assert!(t.unsqueeze(1).is_err());
    let e = t.expand(&[3, 2]).unwrap();
    assert_eq!((e.strides(), e.to_vec()), (&[0, 0][..], vec![7.5; 6]));
    assert!(!e.is_contiguous() && e.shares_storage(&t));
    let c = e.contiguous();
    assert!(c.is_contiguous() && !c.shares_storage(&t) && c.to_vec() == vec![7.5; 6]);
    assert!(t.view(&[1, 1, 1]).unwrap().shares_storage(&t));
    assert_eq!(t.reshape(&[1]).unwrap().to_vec(), vec![7.5]);
    assert!(t.view(&[2]).is_err());
    // A 0-dim view in the middle of a storage, and back.
    let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    let s = a.select(0, 1).unwrap().select(0, 2).unwrap();
    assert_eq!((s.ndim(), s.offset(), s.get(&[]).unwrap()), (0, 5, 5));
    assert_eq!(s.contiguous().to_vec(), vec![5]);
    assert!(s.is_contiguous() && s.contiguous().shares_storage(&a));
    assert_eq!(s.view(&[1, 1]).unwrap().get(&[0, 0]).unwrap(), 5);
    let z = Tensor::<u8>::zeros(&[]).unwrap();
    assert_eq!((z.numel(), z.storage().len(), z.to_vec()), (1, 1, vec![0]));
}

#[test]
fn size_one_dims() {
    let a = Tensor::from_vec((0..6).collect::<Vec<i64>>(), &[2, 1, 3]).unwrap();
    assert_eq!(a.strides(), &[3, 3, 1]);
    assert_eq!(a.squeeze(1).unwrap().strides(), &[3, 1]);
    assert!(matches!(
        a.squeeze(0),
        Err(Error::SqueezeNonUnit {
            dim: 0,
            size: 2,
            ..
        })
    ));
    // Strides of size-1 dims are ignored by contiguity and by view.
    let odd = a.as_strided(&[2, 1, 3], &[3, -99, 1], 0).unwrap();
    assert!(odd.is_contiguous());
    assert_eq!(odd.to_vec(), a.to_vec());
    assert!(odd.view(&[6]).unwrap().shares_storage(&a));
    assert!(odd.contiguous().shares_storage(&a));
    // Expanding size-1 dims gives stride 0 and repeats values.
    let e = a.narrow(2, 0, 1).unwrap().expand(&[2, 2, 2, 1]).unwrap();
    assert_eq!(e.strides(), &[0, 3, 0, 1]);
    assert_eq!(e.to_vec(), vec![0, 0, 3, 3, 0, 0, 3, 3]);
    assert!(!e.is_contiguous() && !e.layout().is_non_overlapping_and_dense());
    // A view of an expanded tensor is possible only along the stride-0 run.
    assert!(e.view(&[4, 2]).is_err());
    assert!(e.view(&[2, 2, 2]).is_ok());
    assert!(!e.reshape(&[8]).unwrap().shares_storage(&a));
    // Select / narrow / slice / flip on a size-1 dim.
    assert_eq!(a.select(1, 0).unwrap().to_vec(), a.to_vec());
    assert!(a.select(1, 1).is_err());
    assert_eq!(a.flip(1).unwrap().to_vec(), a.to_vec());
    assert_eq!(a.slice_step(1, .., -1).unwrap().to_vec(), a.to_vec());
    assert_eq!(a.unfold(1, 1, 5).unwrap().shape(), &[2, 1, 3, 1]);
    // Coalescing drops size-1 dims.
    assert_eq!(a.layout().coalesced().shape(), &[6]);
    let ones = Tensor::from_vec(vec![4u8], &[1, 1, 1]).unwrap();
    assert_eq!(ones.layout().coalesced().ndim(), 0);
    assert_eq!(ones.diagonal().unwrap().to_vec(), vec![4]);
    assert_eq!(ones.diagonal_with(1, 0, 2).unwrap().numel(), 0);
}

#[test]
fn from_storage_and_contiguous_of_shared_storage() {
    let s = Storage::from_slice(&[10u16, 11, 12, 13, 14, 15]).unwrap();
    let t = Tensor::from_storage(s, Layout::new(&[3, 2], &[-2, 1], 4).unwrap()).unwrap();
    assert_eq!(t.to_vec(), vec![14, 15, 12, 13, 10, 11]);
    let c = t.contiguous();
    assert!(!c.shares_storage(&t) && c.offset() == 0 && c.data_ptr() as usize % 64 == 0);
    assert_eq!(c.storage().as_slice(), &[14, 15, 12, 13, 10, 11]);
}

// ---------------------------------------------------------------------------------------------
// Known bugs
// ---------------------------------------------------------------------------------------------

/// Regression: `to_vec` (and `Display`/`Debug`) of an empty tensor whose row-major strides
/// overflow returns an empty result instead of panicking.
#[test]
fn to_vec_of_huge_empty_tensor_is_empty() {
    let big = isize::MAX as usize;
    let t = Tensor::<f32>::zeros(&[0, 1, 1])
        .unwrap()
        .expand(&[0, big, 4])
        .unwrap();
    let mut none: [f32; 0] = [];
    assert!(t.contiguous_into(&mut none).is_ok());
    assert!(format!("{t:?}").contains("[]"));
    assert_eq!(t.numel(), 0);
    let r = std::panic::catch_unwind(|| t.to_vec());
    // Expected an empty Vec; got a panic "the shape of a valid layout".
    assert_eq!(r.ok(), Some(vec![]), "to_vec panicked");
}

/// Regression: `reshape` of an empty tensor to an empty shape with a dim above `isize::MAX`
/// is an error, not a panic.
#[test]
fn reshape_of_empty_tensor_to_huge_empty_shape_is_an_error() {
    let t = Tensor::<f32>::zeros(&[0]).unwrap();
    let r = std::panic::catch_unwind(|| t.reshape(&[0, usize::MAX]).map(|r| r.numel()));
    // Expected Ok(0) (or an Err); got a panic "row-major strides of a checked shape".
    assert!(r.is_ok(), "reshape panicked");
}

/// Regression: `Display` of an empty tensor with a huge leading dim prints `[]` instead of
/// walking the dim.
#[test]
fn display_of_huge_empty_tensor_is_bounded() {
    let t = Tensor::<f32>::zeros(&[1, 0])
        .unwrap()
        .expand(&[isize::MAX as usize, 0])
        .unwrap();
    let r = std::panic::catch_unwind(|| t.to_string());
    // Expected some bounded text like "tensor([], shape=[18446744073709551615, 0], ..)";
    // got a panic.
    assert!(r.is_ok(), "Display panicked");
}

/// Regression: `Tensor::iter` must not add the stride of a size-1 dim (which may legally be
/// huge) to its running offset.
#[test]
fn iter_ignores_huge_strides_of_size_one_dims() {
    let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    // shape [2, 1, 2], strides [3, isize::MAX, 1], offset 1: elements 1, 2, 4, 5.
    let w = a
        .narrow(1, 1, 2)
        .unwrap()
        .unfold(1, 2, usize::MAX / 2)
        .unwrap();
    assert_eq!(
        (w.shape(), w.strides()),
        (&[2, 1, 2][..], &[3, isize::MAX, 1][..])
    );
    assert_eq!(w.to_vec(), vec![1, 2, 4, 5]);
    let r = std::panic::catch_unwind(|| w.iter().collect::<Vec<_>>());
    // Expected [1, 2, 4, 5]; got a panic.
    assert_eq!(r.ok(), Some(vec![1, 2, 4, 5]), "iter() panicked");
}
