//! `tril` / `triu`, `repeat` / `tile`, `roll` / `roll_flat`, `diff` and `one_hot` on random
//! views (permuted, flipped, stepped, narrowed, expanded; empty and size-1 dims) against
//! naive index arithmetic over the reference model's row-major values; the audit must see no
//! copy of the input. Then the errors.

use crate::common;

use common::*;
use proptest::prelude::*;
use stridex::{Error, Tensor, audit};

fn value(i: usize) -> i32 {
    (i as i32).wrapping_mul(7919) % 101 - 50
}

/// Runs `f` under `audit::record`; fails if it copied.
fn no_copy<R>(what: &str, f: impl FnOnce() -> R) -> Result<R, TestCaseError> {
    let (r, report) = audit::record(f);
    prop_assert_eq!(report.count(), 0, "{} copied: {}", what, report);
    Ok(r)
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn tril_and_triu_keep_their_triangle(
        shape in arb_shape(),
        r in arb_recipe(),
        k in -4i64..5,
    ) {
        prop_assume!(shape.len() >= 2);
        let b = build(&shape, &r, value, true);
        let vals = b.values();
        let n = shape.len();
        let lower = no_copy("tril", || b.t.tril(k).unwrap())?;
        let upper = no_copy("triu", || b.t.triu(k).unwrap())?;
        let idx = all_indices(&shape);
        let keep = |i: &Vec<usize>, up: bool| {
            let (row, col) = (i[n - 2] as i64, i[n - 1] as i64);
            if up { col >= row + k } else { col <= row + k }
        };
        let want = |up: bool| -> Vec<i32> {
            idx.iter().zip(&vals).map(|(i, &v)| if keep(i, up) { v } else { 0 }).collect()
        };
        prop_assert_eq!(lower.shape(), &shape[..]);
        prop_assert!(lower.is_contiguous());
        prop_assert_eq!(lower.to_vec(), want(false));
        prop_assert_eq!(upper.to_vec(), want(true));
    }

    #[test]
    fn repeat_and_tile_read_modulo_the_input_shape(
        shape in arb_shape(),
        r in arb_recipe(),
        reps in prop::collection::vec(0usize..3, 0..6),
    ) {
        let b = build(&shape, &r, value, true);
        let vals = b.values();
        // repeat: at least one entry per dim.
        let mut full = reps.clone();
        full.resize(full.len().max(shape.len()), 2);
        let got = no_copy("repeat", || b.t.repeat(&full).unwrap())?;
        let pad = full.len() - shape.len();
        let in_shape: Vec<usize> =
            std::iter::repeat_n(1, pad).chain(shape.iter().copied()).collect();
        let out_shape: Vec<usize> = in_shape.iter().zip(&full).map(|(a, b)| a * b).collect();
        let want: Vec<i32> = all_indices(&out_shape)
            .iter()
            .map(|i| {
                let src: Vec<usize> = i[pad..].iter().zip(&shape).map(|(j, n)| j % n).collect();
                vals[ravel(&src, &shape)]
            })
            .collect();
        prop_assert_eq!(got.shape(), &out_shape[..]);
        prop_assert_eq!(got.to_vec(), want);
        // tile: shorter entries apply to the last dims.
        let short = &reps[..reps.len().min(shape.len())];
        let tiled = no_copy("tile", || b.t.tile(short).unwrap())?;
        let mut as_repeat = vec![1; shape.len() - short.len()];
        as_repeat.extend_from_slice(short);
        prop_assert_eq!(tiled.to_vec(), b.t.repeat(&as_repeat).unwrap().to_vec());
    }

    #[test]
    fn roll_moves_each_index_by_its_shift(
        shape in arb_shape(),
        r in arb_recipe(),
        shifts in prop::collection::vec(-12i64..12, 1..4),
        dims_seed in prop::collection::vec(any::<usize>(), 3),
    ) {
        prop_assume!(!shape.is_empty());
        let b = build(&shape, &r, value, true);
        let vals = b.values();
        let n = shape.len();
        let dims: Vec<usize> = dims_seed[..shifts.len()].iter().map(|s| s % n).collect();
        let got = no_copy("roll", || b.t.roll(&shifts, &dims).unwrap())?;
        let mut total = vec![0i64; n];
        for (s, &d) in shifts.iter().zip(&dims) {
            total[d] += s; // a dim named twice rolls by the sum
        }
        let want: Vec<i32> = all_indices(&shape)
            .iter()
            .map(|i| {
                let src: Vec<usize> = (0..n)
                    .map(|d| (i[d] as i64 - total[d]).rem_euclid(shape[d] as i64) as usize)
                    .collect();
                vals[ravel(&src, &shape)]
            })
            .collect();
        prop_assert!(got.is_contiguous());
        prop_assert_eq!(got.to_vec(), want);

        let s = shifts[0];
        let flat = no_copy("roll_flat", || b.t.roll_flat(s).unwrap())?;
        let total = vals.len() as i64;
        let want: Vec<i32> = (0..vals.len())
            .map(|p| vals[(p as i64 - s).rem_euclid(total.max(1)) as usize])
            .collect();
        prop_assert_eq!(flat.shape(), &shape[..]);
        prop_assert_eq!(flat.to_vec(), want);
        let no_dims: &[usize] = &[];
        prop_assert_eq!(b.t.roll(&[s], no_dims).unwrap().to_vec(), flat.to_vec());
    }

    #[test]
    fn diff_is_repeated_differencing(
        shape in arb_shape(),
        r in arb_recipe(),
        dim_seed in any::<usize>(),
        n in 0usize..5,
    ) {
        prop_assume!(!shape.is_empty());
        // f64 values whose differences round: repeated differencing must be reproduced bit
        // for bit, in the same order.
        let b = build(&shape, &r, |i| (value(i) as f64) / 3.0 + 1e-3 * i as f64, true);
        let vals = b.values();
        let d = dim_seed % shape.len();
        let got = no_copy("diff", || b.t.diff(n, d).unwrap())?;
        let mut out_shape = shape.clone();
        out_shape[d] = shape[d].saturating_sub(n);
        let want: Vec<f64> = all_indices(&out_shape)
            .iter()
            .map(|i| {
                let mut line: Vec<f64> = (0..shape[d])
                    .map(|j| {
                        let mut src = i.clone();
                        src[d] = j;
                        vals[ravel(&src, &shape)]
                    })
                    .collect();
                for _ in 0..n {
                    line = line.windows(2).map(|w| w[1] - w[0]).collect();
                }
                line[i[d]]
            })
            .collect();
        prop_assert_eq!(got.shape(), &out_shape[..]);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&got.to_vec()), bits(&want));
    }

    #[test]
    fn one_hot_puts_a_one_at_each_class(
        shape in arb_shape(),
        r in arb_recipe(),
        classes in 1usize..6,
    ) {
        let b = build(&shape, &r, move |i| (value(i).unsigned_abs() as usize % classes) as u16, true);
        let vals = b.values();
        let got = no_copy("one_hot", || b.t.one_hot(classes).unwrap())?;
        let want: Vec<i64> = vals
            .iter()
            .flat_map(|&c| (0..classes).map(move |k| i64::from(k == c as usize)))
            .collect();
        let mut out_shape = shape.clone();
        out_shape.push(classes);
        prop_assert_eq!(got.shape(), &out_shape[..]);
        prop_assert_eq!(got.to_vec(), want);
    }
}

#[test]
fn large_inputs_give_the_same_result_on_any_number_of_threads() {
    let x = Tensor::from_vec((0..600 * 700).map(value).collect(), &[600, 700]).unwrap();
    let x = x.t().unwrap();
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            (
                x.tril(3).unwrap().to_vec(),
                x.roll(&[5, -7], &[0, 1]).unwrap().to_vec(),
                x.diff(2, 0).unwrap().to_vec(),
                x.repeat(&[2, 1]).unwrap().to_vec(),
            )
        })
    };
    let one = run(1);
    for threads in 2..=4 {
        assert!(run(threads) == one, "{threads} threads");
    }
}

#[test]
fn errors_name_the_op_and_the_argument() {
    let x = Tensor::<i32>::zeros(&[2, 3]).unwrap();
    let v = Tensor::<i32>::zeros(&[3]).unwrap();
    assert!(matches!(
        v.tril(0),
        Err(Error::InvalidArgument { op: "tril", .. })
    ));
    assert!(matches!(
        v.triu(0),
        Err(Error::InvalidArgument { op: "triu", .. })
    ));
    assert!(matches!(
        x.repeat(&[2]),
        Err(Error::RankMismatch {
            op: "repeat",
            expected: 2,
            got: 1,
            ..
        })
    ));
    assert!(matches!(
        x.roll(&[1, 2], &[0]),
        Err(Error::RankMismatch {
            op: "roll",
            expected: 1,
            got: 2,
            ..
        })
    ));
    let none: &[usize] = &[];
    assert!(matches!(
        x.roll(&[1, 2], none),
        Err(Error::RankMismatch { op: "roll", .. })
    ));
    assert!(matches!(
        x.roll(&[1], &[2]),
        Err(Error::DimOutOfRange {
            op: "roll",
            dim: 2,
            ndim: 2
        })
    ));
    assert!(matches!(
        x.roll(&[1], &[-3]),
        Err(Error::NegativeDimOutOfRange { op: "roll", .. })
    ));
    assert!(matches!(
        x.diff(1, 2),
        Err(Error::DimOutOfRange { op: "diff", .. })
    ));
    assert!(
        Tensor::from_vec(vec![1i32], &[])
            .unwrap()
            .diff(1, 0)
            .is_err()
    );
    assert!(matches!(
        x.repeat(&[usize::MAX, 2]),
        Err(Error::Overflow { op: "repeat", .. })
    ));
    let labels = Tensor::from_vec(vec![0i64, 3, -1], &[3]).unwrap();
    assert!(matches!(
        labels.one_hot(3),
        Err(Error::IndexOutOfBounds {
            op: "one_hot",
            index: 3,
            size: 3,
            ..
        })
    ));
    assert!(matches!(
        labels.narrow(0, 2, 1).unwrap().one_hot(3),
        Err(Error::IndexOutOfBounds {
            op: "one_hot",
            index: -1,
            ..
        })
    ));
    assert!(matches!(
        Tensor::from_vec(vec![u64::MAX], &[1]).unwrap().one_hot(3),
        Err(Error::IndexTooLarge { op: "one_hot", .. })
    ));
}

#[test]
fn zero_dim_and_empty_inputs() {
    let s = Tensor::from_vec(vec![4i32], &[]).unwrap();
    assert_eq!(s.repeat(&[]).unwrap().to_vec(), vec![4]);
    assert_eq!(s.repeat(&[3]).unwrap().to_vec(), vec![4, 4, 4]);
    assert_eq!(s.roll_flat(3).unwrap().to_vec(), vec![4]);
    assert_eq!(s.one_hot(5).unwrap().to_vec(), vec![0, 0, 0, 0, 1]);
    let e = Tensor::<i32>::zeros(&[0, 3]).unwrap();
    assert_eq!(e.tril(0).unwrap().shape(), &[0, 3]);
    assert_eq!(e.roll(&[1], &[1]).unwrap().shape(), &[0, 3]);
    assert_eq!(e.diff(1, 1).unwrap().shape(), &[0, 2]);
}
