//! The elementwise and reduction cases: stridex ops on contiguous, transposed and broadcast
//! 4096x4096 f32 operands (fresh outputs), next to ndarray's equivalent.
//!
//! Bytes: an elementwise op counts every operand read plus the output written; a sum counts
//! the bytes read (the output is a single row).

use std::hint::black_box;

use ndarray::{Array2, Axis};
use stridex::Tensor;

use crate::harness::Harness;

const N: usize = 4096;

fn matrix(seed: usize) -> (Tensor<f32>, Array2<f32>) {
    let data: Vec<f32> = (0..N * N)
        .map(|i| ((i * 7 + seed) % 1000) as f32 * 0.25)
        .collect();
    let t = Tensor::from_slice(&data, &[N, N]).expect("valid shape");
    let a = Array2::from_shape_vec((N, N), data).expect("valid shape");
    (t, a)
}

/// Every elementwise and reduction case of the report.
pub fn all(h: &mut Harness) {
    let (a, na) = matrix(1);
    let (b, nb) = matrix(2);
    let row: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let (r, nr) = (
        Tensor::from_slice(&row, &[N]).expect("valid shape"),
        ndarray::Array1::from_vec(row),
    );
    let (bt, at) = (b.t().expect("2-dim"), a.t().expect("2-dim"));
    let mat = N * N * 4;

    h.case(
        "a + b, contiguous",
        3 * mat,
        &mut || {
            black_box((&a + &b).expect("same shape"));
        },
        None,
        Some(&mut || {
            black_box(&na + &nb);
        }),
    );
    h.case(
        "a + b.t()",
        3 * mat,
        &mut || {
            black_box((&a + &bt).expect("same shape"));
        },
        None,
        Some(&mut || {
            black_box(&na + &nb.t());
        }),
    );
    h.case(
        "a + row (broadcast [4096])",
        2 * mat + N * 4,
        &mut || {
            black_box((&a + &r).expect("broadcasts"));
        },
        None,
        Some(&mut || {
            black_box(&na + &nr);
        }),
    );
    h.case(
        "a.t() + b.t()",
        3 * mat,
        &mut || {
            black_box((&at + &bt).expect("same shape"));
        },
        None,
        Some(&mut || {
            black_box(&na.t() + &nb.t());
        }),
    );
    h.case(
        "sum over dim 0 (bytes read)",
        mat,
        &mut || {
            black_box(a.sum_dim(0, false).expect("dim 0"));
        },
        None,
        Some(&mut || {
            black_box(na.sum_axis(Axis(0)));
        }),
    );
    h.case(
        "sum over dim 1 (bytes read)",
        mat,
        &mut || {
            black_box(a.sum_dim(1, false).expect("dim 1"));
        },
        None,
        Some(&mut || {
            black_box(na.sum_axis(Axis(1)));
        }),
    );
}
