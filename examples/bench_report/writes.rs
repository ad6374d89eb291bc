//! The write cases: copies through mutable views, fills, `cat` and `pad`, each next to the
//! operation it must match (`contiguous_into` into the same buffer, a plain slice fill of the
//! same bytes, or REF alone) and to ndarray's `assign`, `fill`, `concatenate`, `stack` and a zeroed
//! array with a sliced `assign`.
//!
//! Bytes: copies count the bytes read plus written; a fill counts the bytes written.

use std::hint::black_box;

use ndarray::{Array2, Array4, Axis, s};
use stridex::Tensor;

use crate::harness::Harness;

const N: usize = 4096;

fn filled(shape: &[usize]) -> Vec<f32> {
    let n: usize = shape.iter().product();
    (0..n).map(|i| (i % 1000) as f32 * 0.5).collect()
}

/// Every write case of the report.
pub fn all(h: &mut Harness) {
    let mat = N * N * 4;
    let data = filled(&[N, N]);
    let x = Tensor::from_slice(&data, &[N, N]).expect("valid shape");
    let nx = Array2::from_shape_vec((N, N), data).expect("valid shape");
    let mut y = Tensor::<f32>::zeros(&[N, N]).expect("valid shape");
    let mut ny = Array2::<f32>::zeros((N, N));
    let mut buf = vec![0f32; N * N];
    let xt = x.t().expect("2-dim");

    h.case(
        "y.view_mut().t().copy_from(x) 4096² f32 (into = x.t().contiguous_into)",
        2 * mat,
        &mut || {
            let v = y.view_mut().expect("owned").t().expect("2-dim");
            black_box(v).copy_from(&x).expect("same shape");
        },
        Some(&mut || {
            xt.contiguous_into(black_box(&mut buf)).expect("same size");
        }),
        Some(&mut || {
            ny.view_mut().reversed_axes().assign(black_box(&nx));
        }),
    );
    let mut y2 = Tensor::<f32>::zeros(&[N, N]).expect("valid shape");
    let mut ny2 = Array2::<f32>::zeros((N, N));
    h.case(
        "y.copy_from(x.t()) 4096² f32 (into = x.t().contiguous_into)",
        2 * mat,
        &mut || {
            y2.copy_from(black_box(&xt)).expect("same shape");
        },
        Some(&mut || {
            xt.contiguous_into(black_box(&mut buf)).expect("same size");
        }),
        Some(&mut || {
            ny2.assign(black_box(&nx.t()));
        }),
    );

    let mut z = Tensor::<f32>::zeros(&[N, N]).expect("valid shape");
    let mut nz = Array2::<f32>::zeros((N, N));
    let cols = N - 2;
    let mut plain = vec![0f32; N * cols];
    h.case(
        "fill x[:, 1:4095] 4096² f32 (into = slice fill of the same bytes)",
        N * cols * 4,
        &mut || {
            let v = z
                .view_mut()
                .expect("owned")
                .narrow(1, 1, cols)
                .expect("in range");
            black_box(v).fill(1.5).expect("writable");
        },
        Some(&mut || {
            black_box(&mut plain[..]).fill(1.5);
        }),
        Some(&mut || {
            nz.slice_mut(s![.., 1..N - 1]).fill(1.5);
        }),
    );

    for dim in [0, 1] {
        let shape = if dim == 0 { [1024, N] } else { [N, 1024] };
        let parts: Vec<Tensor<f32>> = (0..4)
            .map(|_| Tensor::from_slice(&filled(&shape), &shape).expect("valid shape"))
            .collect();
        let nparts: Vec<Array2<f32>> = (0..4)
            .map(|_| Array2::from_shape_vec((shape[0], shape[1]), filled(&shape)).expect("shape"))
            .collect();
        let refs: Vec<&Tensor<f32>> = parts.iter().collect();
        let views: Vec<_> = nparts.iter().map(|a| a.view()).collect();
        h.case(
            &format!("cat 4 x {shape:?} f32 along dim {dim}"),
            2 * mat,
            &mut || {
                black_box(Tensor::cat(black_box(&refs), dim).expect("fits"));
            },
            None,
            Some(&mut || {
                black_box(ndarray::concatenate(Axis(dim), &views).expect("fits"));
            }),
        );
        if dim == 0 {
            h.case(
                &format!("stack 4 x {shape:?} f32 along dim 0"),
                2 * mat,
                &mut || {
                    black_box(Tensor::stack(black_box(&refs), 0).expect("fits"));
                },
                None,
                Some(&mut || {
                    black_box(ndarray::stack(Axis(0), &views).expect("fits"));
                }),
            );
        }
    }

    let shape = [32, 64, 56, 56];
    let input = filled(&shape);
    let t = Tensor::from_slice(&input, &shape).expect("valid shape");
    let na = Array4::from_shape_vec((32, 64, 56, 56), input).expect("valid shape");
    let out_bytes = 32 * 64 * 58 * 58 * 4;
    h.case(
        "pad [32, 64, 56, 56] f32 by 1 on H and W",
        32 * 64 * 56 * 56 * 4 + out_bytes,
        &mut || {
            let p = t
                .pad(&[(0, 0), (0, 0), (1, 1), (1, 1)], 0.0)
                .expect("pads fit");
            black_box(p);
        },
        None,
        Some(&mut || {
            let mut p = Array4::<f32>::zeros((32, 64, 58, 58));
            p.slice_mut(s![.., .., 1..57, 1..57]).assign(&na);
            black_box(p);
        }),
    );
}
