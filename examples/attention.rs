//! Multi-head self-attention on views: the heads are a `view` + `permute` of the projections
//! (never copied), the scores a batched `matmul` against a transposed view, `softmax` over the
//! last dim, and a second batched `matmul`. The audit shows no copy at all. Checked against a
//! naive loop and timed. Run with `cargo run --release --example attention`.

use std::time::Instant;

use stridex::{Error, Tensor, audit};

const T: usize = 128; // tokens
const H: usize = 8; // heads
const D: usize = 64; // head size

/// softmax(q k^T / sqrt(D)) v per head, for q, k, v of shape [T, H * D]; result [T, H * D]
/// as a [H, T, D] view permuted back to [T, H, D].
fn attention(q: &Tensor<f32>, k: &Tensor<f32>, v: &Tensor<f32>) -> Result<Tensor<f32>, Error> {
    let heads = |x: &Tensor<f32>| x.view(&[T, H, D])?.permute(&[1, 0, 2]); // [H, T, D]
    let (q, k, v) = (heads(q)?, heads(k)?, heads(v)?);
    let scores = q
        .matmul(&k.transpose(1, 2)?)?
        .mul_scalar(1.0 / (D as f32).sqrt()); // [H, T, T]
    let p = scores.softmax(2)?;
    p.matmul(&v)?.permute(&[1, 0, 2]) // [T, H, D]
}

fn naive(q: &[f32], k: &[f32], v: &[f32]) -> Vec<f32> {
    let at = |x: &[f32], t: usize, h: usize, d: usize| x[t * H * D + h * D + d];
    let mut out = vec![0f32; T * H * D];
    let scale = 1.0 / (D as f32).sqrt();
    for h in 0..H {
        for i in 0..T {
            let s: Vec<f32> = (0..T)
                .map(|j| (0..D).map(|d| at(q, i, h, d) * at(k, j, h, d)).sum::<f32>() * scale)
                .collect();
            let m = s.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let e: Vec<f32> = s.iter().map(|x| (x - m).exp()).collect();
            let z: f32 = e.iter().sum();
            for d in 0..D {
                out[i * H * D + h * D + d] = (0..T).map(|j| e[j] / z * at(v, j, h, d)).sum::<f32>();
            }
        }
    }
    out
}

fn main() -> Result<(), Error> {
    let data = |seed: usize| -> Vec<f32> {
        (0..T * H * D)
            .map(|i| (((i * 31 + seed * 17) % 113) as f32 / 113.0 - 0.5) * 2.0)
            .collect()
    };
    let (qs, ks, vs) = (data(1), data(2), data(3));
    let q = Tensor::from_vec(qs.clone(), &[T, H * D])?;
    let k = Tensor::from_vec(ks.clone(), &[T, H * D])?;
    let v = Tensor::from_vec(vs.clone(), &[T, H * D])?;

    let (out, report) = audit::record(|| audit::forbid_implicit_copies(|| attention(&q, &k, &v)));
    let out = out?;
    println!(
        "attention T={T} H={H} D={D} -> {:?}; copies: {report}",
        out.shape()
    );
    assert_eq!(report.count(), 0, "no operand is copied");

    let want = naive(&qs, &ks, &vs);
    let err = out
        .to_vec()
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    println!("max |stridex - naive loop| = {err:.2e}");
    assert!(err < 1e-4, "attention must match the naive loop");

    let reps = 20;
    let t = Instant::now();
    for _ in 0..reps {
        std::hint::black_box(attention(&q, &k, &v)?);
    }
    let ours = t.elapsed().as_secs_f64() / reps as f64;
    let t = Instant::now();
    std::hint::black_box(naive(&qs, &ks, &vs));
    let slow = t.elapsed().as_secs_f64();
    println!(
        "stridex: {:.3} ms per call; naive loop: {:.1} ms ({:.0}x slower)",
        ours * 1e3,
        slow * 1e3,
        slow / ours
    );
    Ok(())
}
