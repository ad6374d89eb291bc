//! `sort`, `argsort` and `topk` on random views (permuted, flipped, stepped, narrowed,
//! expanded; empty and size-1 dims) against a naive stable sort of each line of the
//! reference model's row-major values; NaN and signed zeros in the `f32` inputs; the audit
//! must see no copy of the input. Then the errors and the 0-dim cases.

use crate::common;

use std::cmp::Ordering;

use common::*;
use proptest::prelude::*;
use stridex::{Error, Tensor, audit};

/// splitmix64.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Few distinct values (so ties are common), with NaNs (two payloads) and both zeros.
fn value(i: usize) -> f32 {
    match mix(i as u64) % 9 {
        0 => f32::NAN,
        1 => -f32::NAN,
        2 => -0.0,
        3 => 0.0,
        h => h as f32 - 6.0,
    }
}

/// PyTorch's order: NaN after everything (all NaNs equal), `-0.0 == 0.0`.
fn order(a: f32, b: f32) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

/// The lines of row-major `vals` of `shape` along `d`, in row-major order of the other dims.
fn lines_of<T: Copy>(vals: &[T], shape: &[usize], d: usize) -> Vec<Vec<T>> {
    let mut others = shape.to_vec();
    others[d] = 1;
    all_indices(&others)
        .into_iter()
        .map(|mut idx| {
            (0..shape[d])
                .map(|i| {
                    idx[d] = i;
                    vals[ravel(&idx, shape)]
                })
                .collect()
        })
        .collect()
}

/// Row-major values of `shape` whose lines along `d` are `lines` (as [`lines_of`] orders them).
fn from_lines<T: Copy>(lines: &[Vec<T>], shape: &[usize], d: usize) -> Vec<T> {
    let mut others = shape.to_vec();
    others[d] = 1;
    all_indices(shape)
        .iter()
        .map(|idx| {
            let mut o = idx.clone();
            o[d] = 0;
            lines[ravel(&o, &others)][idx[d]]
        })
        .collect()
}

/// The stable sort of a line's positions, ascending or descending.
fn stable_positions(line: &[f32], descending: bool) -> Vec<usize> {
    let mut pos: Vec<usize> = (0..line.len()).collect();
    pos.sort_by(|&a, &b| {
        let o = order(line[a], line[b]);
        if descending { o.reverse() } else { o }
    });
    pos
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn sort_and_argsort_match_a_stable_sort_of_each_line(
        shape in arb_shape(),
        r in arb_recipe(),
        dim_seed in any::<usize>(),
        descending in any::<bool>(),
        negative in any::<bool>(),
    ) {
        prop_assume!(!shape.is_empty());
        let b = build(&shape, &r, value, true);
        let d = dim_seed % shape.len();
        let dim = if negative { d as i64 - shape.len() as i64 } else { d as i64 };
        let ((values, indices), report) = audit::record(|| b.t.sort(dim, descending).unwrap());
        prop_assert_eq!(report.count(), 0, "sort copied: {}", report);
        let (argsorted, report) = audit::record(|| b.t.argsort(dim, descending).unwrap());
        prop_assert_eq!(report.count(), 0, "argsort copied: {}", report);

        let lines = lines_of(&b.values(), &shape, d);
        let pos: Vec<Vec<usize>> = lines.iter().map(|l| stable_positions(l, descending)).collect();
        let sorted: Vec<Vec<f32>> =
            lines.iter().zip(&pos).map(|(l, p)| p.iter().map(|&i| l[i]).collect()).collect();
        let pos_i64: Vec<Vec<i64>> =
            pos.iter().map(|p| p.iter().map(|&i| i as i64).collect()).collect();
        prop_assert_eq!(values.shape(), &shape[..]);
        prop_assert_eq!(bits(&values.to_vec()), bits(&from_lines(&sorted, &shape, d)));
        prop_assert_eq!(indices.to_vec(), from_lines(&pos_i64, &shape, d));
        prop_assert_eq!(argsorted.to_vec(), from_lines(&pos_i64, &shape, d));
    }

    #[test]
    fn topk_keeps_the_first_k_of_the_stable_sort(
        shape in arb_shape(),
        r in arb_recipe(),
        dim_seed in any::<usize>(),
        k_seed in any::<usize>(),
        largest in any::<bool>(),
        sorted in any::<bool>(),
    ) {
        prop_assume!(!shape.is_empty());
        let b = build(&shape, &r, value, true);
        let d = dim_seed % shape.len();
        let k = k_seed % (shape[d] + 1);
        let ((values, indices), report) =
            audit::record(|| b.t.topk(k, d, largest, sorted).unwrap());
        prop_assert_eq!(report.count(), 0, "topk copied: {}", report);
        let mut out_shape = shape.clone();
        out_shape[d] = k;
        let lines = lines_of(&b.values(), &shape, d);
        let mut pos: Vec<Vec<usize>> = lines
            .iter()
            .map(|l| stable_positions(l, largest)[..k].to_vec())
            .collect();
        if !sorted {
            pos.iter_mut().for_each(|p| p.sort_unstable());
        }
        let kept: Vec<Vec<f32>> =
            lines.iter().zip(&pos).map(|(l, p)| p.iter().map(|&i| l[i]).collect()).collect();
        let pos_i64: Vec<Vec<i64>> =
            pos.iter().map(|p| p.iter().map(|&i| i as i64).collect()).collect();
        prop_assert_eq!(values.shape(), &out_shape[..]);
        prop_assert_eq!(bits(&values.to_vec()), bits(&from_lines(&kept, &out_shape, d)));
        prop_assert_eq!(indices.to_vec(), from_lines(&pos_i64, &out_shape, d));
    }

    #[test]
    fn integer_sorts_match_the_standard_library(
        shape in arb_shape(),
        r in arb_recipe(),
        dim_seed in any::<usize>(),
        descending in any::<bool>(),
    ) {
        prop_assume!(!shape.is_empty());
        let val = |i: usize| {
            let h = (mix(i as u64) % 7) as i64 - 3;
            if i % 5 == 0 { i64::MIN + 3 + h } else { h }
        };
        let b = build(&shape, &r, val, true);
        let d = dim_seed % shape.len();
        let (values, indices) = b.t.sort(d, descending).unwrap();
        let lines = lines_of(&b.values(), &shape, d);
        let pos: Vec<Vec<i64>> = lines
            .iter()
            .map(|l| {
                let mut p: Vec<usize> = (0..l.len()).collect();
                if descending {
                    p.sort_by(|&a, &b| l[b].cmp(&l[a]));
                } else {
                    p.sort_by_key(|&a| l[a]);
                }
                p.into_iter().map(|i| i as i64).collect()
            })
            .collect();
        let sorted: Vec<Vec<i64>> = lines
            .iter()
            .zip(&pos)
            .map(|(l, p)| p.iter().map(|&i| l[i as usize]).collect())
            .collect();
        prop_assert_eq!(values.to_vec(), from_lines(&sorted, &shape, d));
        prop_assert_eq!(indices.to_vec(), from_lines(&pos, &shape, d));
    }
}

#[test]
fn nan_goes_last_ascending_and_first_descending() {
    let x = Tensor::from_vec(vec![1.0f64, f64::NAN, -1.0, f64::INFINITY], &[4]).unwrap();
    let (v, i) = x.sort(0, false).unwrap();
    assert_eq!(i.to_vec(), vec![2, 0, 3, 1]);
    assert!(v.to_vec()[3].is_nan());
    let (v, i) = x.sort(0, true).unwrap();
    assert_eq!(i.to_vec(), vec![1, 3, 0, 2]);
    assert!(v.to_vec()[0].is_nan());
    let (_, i) = x.topk(1, 0, true, true).unwrap();
    assert_eq!(i.to_vec(), vec![1]); // NaN counts as the largest
}

#[test]
fn long_lines_sort_the_same_on_any_number_of_threads() {
    // Long enough for the parallel sort of one line; many ties (stability is checked).
    let n = 1 << 17;
    let x = Tensor::from_vec(
        (0..n).map(|i| (mix(i as u64) % 1000) as f32).collect(),
        &[n],
    )
    .unwrap();
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| x.sort(0, false).unwrap().1.to_vec())
    };
    let one = run(1);
    let vals = x.to_vec();
    assert!(one.windows(2).all(|w| {
        let (a, b) = (vals[w[0] as usize], vals[w[1] as usize]);
        a < b || (a == b && w[0] < w[1])
    }));
    for threads in 2..=4 {
        assert_eq!(run(threads), one, "{threads} threads");
    }
}

#[test]
fn zero_dim_tensors_sort_as_themselves() {
    let x = Tensor::from_vec(vec![5i64], &[]).unwrap();
    let (v, i) = x.sort(0, false).unwrap();
    assert_eq!(
        (v.shape(), v.to_vec(), i.to_vec()),
        (&[][..], vec![5], vec![0])
    );
    assert_eq!(x.argsort(-1, true).unwrap().to_vec(), vec![0]);
    let (v, i) = x.topk(1, 0, true, true).unwrap();
    assert_eq!((v.to_vec(), i.to_vec()), (vec![5], vec![0]));
    assert!(x.sort(1, false).is_err());
}

#[test]
fn errors_name_the_op_and_the_argument() {
    let x = Tensor::<f32>::zeros(&[2, 3]).unwrap();
    assert!(matches!(
        x.sort(2, false),
        Err(Error::DimOutOfRange {
            op: "sort",
            dim: 2,
            ndim: 2
        })
    ));
    assert!(matches!(
        x.argsort(-3, false),
        Err(Error::NegativeDimOutOfRange { op: "argsort", .. })
    ));
    assert!(matches!(
        x.topk(4, 1, true, true),
        Err(Error::InvalidArgument { op: "topk", .. })
    ));
    assert!(matches!(
        x.topk(1, 2, true, true),
        Err(Error::DimOutOfRange { op: "topk", .. })
    ));
    let msg = x.topk(4, 1, true, true).unwrap_err().to_string();
    assert!(msg.contains("k = 4") && msg.contains("size 3"), "{msg}");
}

/// Top-k of rows long enough for the bounded pass (the first 256 elements exact, the rest
/// tested in blocks against their k-th best): rows with many ties, NaN and signed zeros,
/// values that keep improving (every block holds a candidate) or keep worsening, in both
/// directions, read in place and through a flipped view (the strided walk); `f32`, the same
/// values as `f64`, and `i32`. Each is the first k of the stable sort.
#[test]
fn topk_of_long_rows_is_the_head_of_the_stable_sort() {
    let n = 3000;
    let patterns: Vec<Vec<f32>> = vec![
        (0..n).map(|i| (mix(i as u64) % 7) as f32 - 3.0).collect(),
        (0..n)
            .map(|i| match mix(i as u64 + 99) % 50 {
                0 => f32::NAN,
                1 => -0.0,
                2 => 0.0,
                r => r as f32 * 0.25 - 6.0,
            })
            .collect(),
        (0..n).map(|i| i as f32).collect(),
        (0..n).map(|i| -(i as f32)).collect(),
        (0..n).map(|i| (mix(i as u64 + 7) >> 40) as f32).collect(),
        // NaN all through the exact prefix: the bound is NaN, every later element a candidate.
        (0..n)
            .map(|i| if i % 500 == 499 { i as f32 } else { f32::NAN })
            .collect(),
    ];
    for (p, row) in patterns.iter().enumerate() {
        let t = Tensor::from_slice(row, &[1, n]).unwrap();
        let flipped = Tensor::from_slice(&row.iter().rev().copied().collect::<Vec<_>>(), &[1, n])
            .unwrap()
            .flip(1)
            .unwrap();
        let as_f64 = t.cast::<f64>();
        let ints: Vec<i32> = row
            .iter()
            .map(|&x| if x.is_nan() { i32::MAX } else { x as i32 })
            .collect();
        let as_i32 = Tensor::from_slice(&ints, &[1, n]).unwrap();
        for k in [1, 10, 32] {
            for largest in [true, false] {
                let want = stable_positions(row, largest)[..k].to_vec();
                let want_i64: Vec<i64> = want.iter().map(|&i| i as i64).collect();
                for (name, x) in [("in place", &t), ("flipped view", &flipped)] {
                    let (v, i) = x.topk(k, 1, largest, true).unwrap();
                    assert_eq!(
                        i.to_vec(),
                        want_i64,
                        "pattern {p} {name} k={k} largest={largest}"
                    );
                    let kept: Vec<f32> = want.iter().map(|&i| row[i]).collect();
                    assert_eq!(bits(&v.to_vec()), bits(&kept), "pattern {p} {name} k={k}");
                }
                let (_, i) = as_f64.topk(k, 1, largest, true).unwrap();
                assert_eq!(
                    i.to_vec(),
                    want_i64,
                    "pattern {p} f64 k={k} largest={largest}"
                );
                let mut pos: Vec<usize> = (0..n).collect();
                pos.sort_by(|&a, &b| {
                    let o = ints[a].cmp(&ints[b]);
                    if largest { o.reverse() } else { o }
                });
                let want_int: Vec<i64> = pos[..k].iter().map(|&i| i as i64).collect();
                let (_, i) = as_i32.topk(k, 1, largest, true).unwrap();
                assert_eq!(
                    i.to_vec(),
                    want_int,
                    "pattern {p} i32 k={k} largest={largest}"
                );
            }
        }
    }
}
