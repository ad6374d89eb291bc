//! Quick GFLOP/s check of `Tensor::matmul` on this machine, without criterion:
//!
//! ```text
//! cargo run --release --example matmul_gflops [-- SIZE [THREADS [ROUNDS]]]
//! cargo run --release --features avx512 --example matmul_gflops   # AVX-512 kernels too
//! ```
//!
//! Times `SIZE`³ f32 products (default 1024) with a contiguous, a transposed and a narrowed
//! left operand, f64 and f16, interleaved round-robin for `ROUNDS` rounds (default 10), on a
//! rayon pool of `THREADS` threads (default 1), and prints the best time of each case.

use std::hint::black_box;
use std::time::Instant;

use half::f16;
use stridex::Tensor;

fn values(len: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        })
        .collect()
}

fn main() -> stridex::Result<()> {
    let arg = |i: usize, default: usize| {
        std::env::args()
            .nth(i)
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (n, threads, rounds) = (arg(1, 1024), arg(2, 1), arg(3, 10));
    let a = Tensor::from_vec(values(n * n, 1), &[n, n])?;
    let a_t = Tensor::from_vec(values(n * n, 1), &[n, n])?.t()?;
    let a_narrow = Tensor::from_vec(values(n * (n + 64), 1), &[n, n + 64])?.narrow(1, 32, n)?;
    let b = Tensor::from_vec(values(n * n, 2), &[n, n])?;
    let wide = |v: Vec<f32>| v.into_iter().map(f64::from).collect::<Vec<_>>();
    let (a64, b64) = (
        Tensor::from_vec(wide(values(n * n, 1)), &[n, n])?,
        Tensor::from_vec(wide(values(n * n, 2)), &[n, n])?,
    );
    let half = |v: Vec<f32>| v.into_iter().map(f16::from_f32).collect::<Vec<_>>();
    let (a16, b16) = (
        Tensor::from_vec(half(values(n * n, 1)), &[n, n])?,
        Tensor::from_vec(half(values(n * n, 2)), &[n, n])?,
    );
    type Case<'a> = (
        &'static str,
        Box<dyn Fn() -> stridex::Result<()> + Sync + 'a>,
    );
    let cases: Vec<Case> = vec![
        (
            "f32 contiguous",
            Box::new(|| a.matmul(&b).map(|c| drop(black_box(c)))),
        ),
        (
            "f32 transposed A",
            Box::new(|| a_t.matmul(&b).map(|c| drop(black_box(c)))),
        ),
        (
            "f32 narrowed A",
            Box::new(|| a_narrow.matmul(&b).map(|c| drop(black_box(c)))),
        ),
        (
            "f64 contiguous",
            Box::new(|| a64.matmul(&b64).map(|c| drop(black_box(c)))),
        ),
        (
            "f16 contiguous",
            Box::new(|| a16.matmul(&b16).map(|c| drop(black_box(c)))),
        ),
    ];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let mut best = vec![f64::INFINITY; cases.len()];
    pool.install(|| -> stridex::Result<()> {
        for _ in 0..rounds {
            for (b, (_, f)) in best.iter_mut().zip(&cases) {
                let t = Instant::now();
                f()?;
                *b = b.min(t.elapsed().as_secs_f64());
            }
        }
        Ok(())
    })?;
    let flop = 2.0 * (n as f64).powi(3);
    println!("{n}^3, {threads} thread(s), best of {rounds} interleaved rounds");
    for ((name, _), s) in cases.iter().zip(best) {
        println!(
            "  {name:<18} {:8.2} ms {:7.1} GFLOP/s",
            s * 1e3,
            flop / s / 1e9
        );
    }
    Ok(())
}
