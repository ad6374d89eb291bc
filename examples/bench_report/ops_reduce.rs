//! Softmax, cumsum and variance cases on 4096x4096 f32 (fresh outputs), ndarray's best
//! expression of the same beside each.
//!
//! Bytes: softmax counts two reads of the input and one write of the output (the reduction
//! pass, then the elementwise pass); a cumsum one read and one write; a variance the bytes
//! read (the output is one column).

use std::hint::black_box;

use ndarray::{Array2, ArrayView2, Axis};
use stridex::Tensor;

use crate::harness::Harness;

const N: usize = 4096;

fn matrix() -> (Tensor<f32>, Array2<f32>) {
    let data: Vec<f32> = (0..N * N)
        .map(|i| ((i * 7 + 3) % 1000) as f32 * 0.01 - 5.0)
        .collect();
    let t = Tensor::from_slice(&data, &[N, N]).expect("valid shape");
    let a = Array2::from_shape_vec((N, N), data).expect("valid shape");
    (t, a)
}

/// ndarray's softmax along `axis`: max per slice, subtract (broadcast), exp in place, sum,
/// divide in place.
fn ndarray_softmax(a: ArrayView2<'_, f32>, axis: Axis) -> Array2<f32> {
    let max = a
        .fold_axis(axis, f32::NEG_INFINITY, |&m, &x| m.max(x))
        .insert_axis(axis);
    let mut e = &a - &max;
    e.mapv_inplace(f32::exp);
    let s = e.sum_axis(axis).insert_axis(axis);
    e /= &s;
    e
}

/// ndarray's cumulative sum along `axis`: a copy, then `accumulate_axis_inplace`.
fn ndarray_cumsum(a: &Array2<f32>, axis: Axis) -> Array2<f32> {
    let mut c = a.clone();
    c.accumulate_axis_inplace(axis, |&prev, cur| *cur += prev);
    c
}

/// Every softmax / scan / variance case of the report.
pub fn all(h: &mut Harness) {
    let (a, na) = matrix();
    let at = a.t().expect("2-dim");
    let mat = N * N * 4;

    h.case(
        "softmax dim 1 (2 reads + 1 write)",
        3 * mat,
        &mut || {
            black_box(a.softmax(1).expect("dim 1"));
        },
        None,
        Some(&mut || {
            black_box(ndarray_softmax(na.view(), Axis(1)));
        }),
    );
    h.case(
        "softmax dim 0 (2 reads + 1 write)",
        3 * mat,
        &mut || {
            black_box(a.softmax(0).expect("dim 0"));
        },
        None,
        Some(&mut || {
            black_box(ndarray_softmax(na.view(), Axis(0)));
        }),
    );
    h.case(
        "softmax dim 1 of a.t() (2 reads + 1 write)",
        3 * mat,
        &mut || {
            black_box(at.softmax(1).expect("dim 1"));
        },
        None,
        Some(&mut || {
            black_box(ndarray_softmax(na.t(), Axis(1)));
        }),
    );
    h.case(
        "log_softmax dim 1 (2 reads + 1 write)",
        3 * mat,
        &mut || {
            black_box(a.log_softmax(1).expect("dim 1"));
        },
        None,
        None,
    );
    h.case(
        "logsumexp dim 1 (bytes read)",
        mat,
        &mut || {
            black_box(a.logsumexp_dim(1, false).expect("dim 1"));
        },
        None,
        None,
    );
    h.case(
        "cumsum dim 1 (read + write)",
        2 * mat,
        &mut || {
            black_box(a.cumsum(1).expect("dim 1"));
        },
        None,
        Some(&mut || {
            black_box(ndarray_cumsum(&na, Axis(1)));
        }),
    );
    h.case(
        "cumsum dim 0 (read + write)",
        2 * mat,
        &mut || {
            black_box(a.cumsum(0).expect("dim 0"));
        },
        None,
        Some(&mut || {
            black_box(ndarray_cumsum(&na, Axis(0)));
        }),
    );
    h.case(
        "var dim 1 (bytes read)",
        mat,
        &mut || {
            black_box(a.var_dim(1, false, 1).expect("dim 1"));
        },
        None,
        Some(&mut || {
            black_box(na.var_axis(Axis(1), 1.0));
        }),
    );
    h.case(
        "var dim 0 (bytes read)",
        mat,
        &mut || {
            black_box(a.var_dim(0, false, 1).expect("dim 0"));
        },
        None,
        Some(&mut || {
            black_box(na.var_axis(Axis(0), 1.0));
        }),
    );
}
