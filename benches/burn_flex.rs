//! stridex side by side with burn-flex (Burn's CPU backend) in one run: sums of 256x256
//! (in L2) and 4096x4096 f32 along each dim, and f32 matrix products at 256³ and 1024³, on
//! one thread (`RAYON_NUM_THREADS=1` is set here before any pool starts). burn-flex is pulled
//! in only with `--cfg stridex_compare` (it takes minutes to build); without it this bench
//! prints how to enable it.
//!
//! ```text
//! RUSTFLAGS="--cfg stridex_compare" cargo bench --bench burn_flex
//! ```
//!
//! Each case is the median of 15 timings, stridex and burn-flex alternating case by case.

#[cfg(stridex_compare)]
mod compare {
    use burn_backend::TensorData;
    use burn_backend::ops::FloatTensorOps;
    use burn_flex::{Flex, FlexDevice};
    use std::hint::black_box;
    use std::time::Instant;

    /// Median seconds per call of `f` over 15 timings of `inner` calls.
    fn median(mut f: impl FnMut(), inner: usize) -> f64 {
        f();
        let mut ts: Vec<f64> = (0..15)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..inner {
                    f();
                }
                t.elapsed().as_secs_f64() / inner as f64
            })
            .collect();
        ts.sort_by(f64::total_cmp);
        ts[ts.len() / 2]
    }

    fn data(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| ((i * 7919 + 13) % 2003) as f32 * 0.001 - 1.0)
            .collect()
    }

    pub fn run() {
        let dev = FlexDevice;
        println!("| 1 thread | stridex | burn-flex | stridex time / burn-flex time |");
        println!("|---|---|---|---|");
        for n in [256usize, 4096] {
            let v = data(n * n);
            let x = stridex::Tensor::from_slice(&v, &[n, n]).expect("shape");
            let b = Flex::float_from_data(TensorData::new(v, [n, n]), &dev);
            let inner = if n == 256 { 2000 } else { 3 };
            for dim in [1usize, 0] {
                let s = median(
                    || drop(black_box(x.sum_dim(dim, false).expect("dim"))),
                    inner,
                );
                let f = median(
                    || drop(black_box(Flex::float_sum_dim(b.clone(), dim))),
                    inner,
                );
                println!(
                    "| sum_dim({dim}) {n}x{n} f32 | {:.2} us | {:.2} us | {:.2} |",
                    s * 1e6,
                    f * 1e6,
                    s / f
                );
            }
        }
        for n in [256usize, 1024] {
            let v = data(n * n);
            let x = stridex::Tensor::from_slice(&v, &[n, n]).expect("shape");
            let b = Flex::float_from_data(TensorData::new(v, [n, n]), &dev);
            let inner = if n == 256 { 50 } else { 2 };
            let s = median(|| drop(black_box(x.matmul(&x).expect("square"))), inner);
            let f = median(
                || drop(black_box(Flex::float_matmul(b.clone(), b.clone()))),
                inner,
            );
            let flop = 2.0 * (n * n * n) as f64;
            println!(
                "| matmul {n}³ f32 | {:.1} GFLOP/s | {:.1} GFLOP/s | {:.2} |",
                flop / s / 1e9,
                flop / f / 1e9,
                s / f
            );
        }
    }
}

fn main() {
    // SAFETY: set before any thread exists (no other thread reads the environment).
    unsafe { std::env::set_var("RAYON_NUM_THREADS", "1") };
    #[cfg(stridex_compare)]
    compare::run();
    #[cfg(not(stridex_compare))]
    println!(
        "burn-flex is compared only with RUSTFLAGS=\"--cfg stridex_compare\" \
         (see the top of benches/burn_flex.rs)"
    );
}
