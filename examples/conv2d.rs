//! A 3x3 convolution with padding 1, built from views: `pad` once, `unfold` twice for the
//! sliding windows, one batched `matmul` that reads the windows through their strides, and a
//! sum over the kernel offsets. No im2col copy: the audit sees only the explicit `pad`.
//! Checked against a naive loop. Run with `cargo run --release --example conv2d`.

use std::time::Instant;

use stridex::audit::{self, CopyReason};
use stridex::{Error, Tensor};

const N: usize = 2;
const C: usize = 16;
const H: usize = 32;
const W: usize = 32;
const O: usize = 32;

/// `x` [N, C, H, W] convolved with `w` [O, C, 3, 3], padding 1, stride 1: [N, O, H, W].
fn conv3x3(x: &Tensor<f32>, w: &Tensor<f32>) -> Result<Tensor<f32>, Error> {
    let p = x.pad(&[(0, 0), (0, 0), (1, 1), (1, 1)], 0.0)?; // [N, C, H+2, W+2], one copy
    // Windows: [N, C, H, W, 3, 3], element (n, c, h, w, i, j) = p[n, c, h + i, w + j].
    let win = p.unfold(2, 3, 1)?.unfold(3, 3, 1)?;
    // Batch (n, h, i, j), matrix [C, W]: a strided view of p, never copied.
    let b = win.permute(&[0, 2, 4, 5, 1, 3])?; // [N, H, 3, 3, C, W]
    // Weights as a batch (i, j) of [O, C] matrices, broadcast over (n, h).
    let a = w.permute(&[2, 3, 0, 1])?; // [3, 3, O, C]
    let prod = a.matmul(&b)?; // [N, H, 3, 3, O, W]
    let y = prod.sum_dims(&[2, 3], false)?; // [N, H, O, W]
    y.permute(&[0, 2, 1, 3]) // [N, O, H, W], a view
}

fn naive(x: &[f32], w: &[f32]) -> Vec<f32> {
    let mut y = vec![0f32; N * O * H * W];
    for n in 0..N {
        for o in 0..O {
            for h in 0..H {
                for ww in 0..W {
                    let mut acc = 0f32;
                    for c in 0..C {
                        for i in 0..3 {
                            for j in 0..3 {
                                let (hh, wj) = ((h + i) as isize - 1, (ww + j) as isize - 1);
                                if hh < 0 || wj < 0 || hh >= H as isize || wj >= W as isize {
                                    continue;
                                }
                                let xv = x[((n * C + c) * H + hh as usize) * W + wj as usize];
                                acc += w[((o * C + c) * 3 + i) * 3 + j] * xv;
                            }
                        }
                    }
                    y[((n * O + o) * H + h) * W + ww] = acc;
                }
            }
        }
    }
    y
}

fn main() -> Result<(), Error> {
    let xs: Vec<f32> = (0..N * C * H * W)
        .map(|i| ((i * 37) % 101) as f32 / 101.0 - 0.5)
        .collect();
    let ws: Vec<f32> = (0..O * C * 9)
        .map(|i| ((i * 53) % 97) as f32 / 97.0 - 0.5)
        .collect();
    let x = Tensor::from_vec(xs.clone(), &[N, C, H, W])?;
    let w = Tensor::from_vec(ws.clone(), &[O, C, 3, 3])?;

    // Implicit copies are errors inside this scope; the report lists the explicit ones.
    let (y, report) = audit::record(|| audit::forbid_implicit_copies(|| conv3x3(&x, &w)));
    let y = y?;
    println!(
        "conv3x3 [{N}, {C}, {H}, {W}] -> {:?}; copies: {report}",
        y.shape()
    );
    assert_eq!(report.count(), 1, "only the pad copies");
    assert_eq!(report.events()[0].reason, CopyReason::Assemble);

    let want = naive(&xs, &ws);
    let got = y.to_vec();
    let err = got
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    println!("max |stridex - naive loop| = {err:.2e}");
    assert!(err < 1e-4, "the convolution must match the naive loop");

    let reps = 20;
    let t = Instant::now();
    for _ in 0..reps {
        std::hint::black_box(conv3x3(&x, &w)?);
    }
    let ours = t.elapsed().as_secs_f64() / reps as f64;
    let t = Instant::now();
    std::hint::black_box(naive(&xs, &ws));
    let loop_time = t.elapsed().as_secs_f64();
    let flops = 2.0 * (N * O * H * W * C * 9) as f64;
    println!(
        "stridex: {:.3} ms ({:.1} GFLOP/s); naive loop: {:.3} ms ({:.1}x slower)",
        ours * 1e3,
        flops / ours / 1e9,
        loop_time * 1e3,
        loop_time / ours
    );
    Ok(())
}
