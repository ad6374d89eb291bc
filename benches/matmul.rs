//! Matrix product benchmarks: stridex on contiguous and strided operands, side by side with
//! ndarray's `dot` (matrixmultiply) and, when built with `--cfg stridex_compare`, the `gemm`
//! crate called directly and candle's `matmul` (which uses `gemm`).
//!
//! ```text
//! cargo bench --bench matmul
//! RUSTFLAGS="--cfg stridex_compare" cargo bench --bench matmul     # + gemm crate and candle
//! ```
//!
//! Single-thread groups run with `RAYON_NUM_THREADS=1` (set here, before any pool starts; it
//! is also what candle reads); the `threads` group installs 1- and 2-thread pools. After the
//! criterion groups, `ratios` times the 1024³ f32 cases interleaved, round-robin, and prints
//! the ratios of their best times, which is robust to load that drifts during the run.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use half::f16;
use stridex::Tensor;

const N: usize = 1024;

fn data(len: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        })
        .collect()
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

fn flops(m: usize, n: usize, k: usize) -> Throughput {
    Throughput::Elements((2 * m * n * k) as u64)
}

/// The three 1024³ f32 left operands: contiguous, a transposed view, a narrowed view of a
/// wider matrix.
struct Operands {
    a: Tensor<f32>,
    a_t: Tensor<f32>,
    a_narrow: Tensor<f32>,
    b: Tensor<f32>,
}

fn operands() -> Operands {
    let a = Tensor::from_vec(data(N * N, 1), &[N, N]).unwrap();
    let a_t = Tensor::from_vec(data(N * N, 1), &[N, N])
        .unwrap()
        .t()
        .unwrap();
    let a_narrow = Tensor::from_vec(data(N * (N + 64), 1), &[N, N + 64])
        .unwrap()
        .narrow(1, 32, N)
        .unwrap();
    let b = Tensor::from_vec(data(N * N, 2), &[N, N]).unwrap();
    Operands {
        a,
        a_t,
        a_narrow,
        b,
    }
}

fn sgemm_1024(c: &mut Criterion) {
    let ops = operands();
    let mut g = c.benchmark_group("sgemm_1024_1t");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .throughput(flops(N, N, N));
    let one = pool(1);
    for (name, a) in [
        ("contiguous", &ops.a),
        ("transposed_a", &ops.a_t),
        ("narrowed_a", &ops.a_narrow),
    ] {
        g.bench_function(BenchmarkId::new("stridex", name), |bch| {
            one.install(|| bch.iter(|| black_box(a.matmul(&ops.b).unwrap())))
        });
    }
    let (nd_a, nd_b) = (
        ndarray::Array2::from_shape_vec((N, N), data(N * N, 1)).unwrap(),
        ndarray::Array2::from_shape_vec((N, N), data(N * N, 2)).unwrap(),
    );
    let nd_wide = ndarray::Array2::from_shape_vec((N, N + 64), data(N * (N + 64), 1)).unwrap();
    let nd_narrow = nd_wide.slice(ndarray::s![.., 32..32 + N]);
    g.bench_function(BenchmarkId::new("ndarray_dot", "contiguous"), |bch| {
        bch.iter(|| black_box(nd_a.dot(&nd_b)))
    });
    g.bench_function(BenchmarkId::new("ndarray_dot", "transposed_a"), |bch| {
        bch.iter(|| black_box(nd_a.t().dot(&nd_b)))
    });
    g.bench_function(BenchmarkId::new("ndarray_dot", "narrowed_a"), |bch| {
        bch.iter(|| black_box(nd_narrow.dot(&nd_b)))
    });
    #[cfg(stridex_compare)]
    compare::sgemm(&mut g);
    g.finish();
}

fn batched(c: &mut Criterion) {
    const B: usize = 16;
    const M: usize = 256;
    let a = Tensor::from_vec(data(B * M * M, 3), &[B, M, M]).unwrap();
    let b = Tensor::from_vec(data(B * M * M, 4), &[B, M, M]).unwrap();
    let b_shared = Tensor::from_vec(data(M * M, 4), &[1, M, M])
        .unwrap()
        .expand(&[B, M, M])
        .unwrap();
    let mut g = c.benchmark_group("batched_16x256_1t");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .throughput(flops(B * M, M, M));
    let one = pool(1);
    g.bench_function("stridex", |bch| {
        one.install(|| bch.iter(|| black_box(a.matmul(&b).unwrap())))
    });
    g.bench_function("stridex_b_broadcast", |bch| {
        one.install(|| bch.iter(|| black_box(a.matmul(&b_shared).unwrap())))
    });
    let nd_a = ndarray::Array3::from_shape_vec((B, M, M), data(B * M * M, 3)).unwrap();
    let nd_b = ndarray::Array3::from_shape_vec((B, M, M), data(B * M * M, 4)).unwrap();
    g.bench_function("ndarray_dot_loop", |bch| {
        bch.iter(|| {
            let out: Vec<_> = (0..B)
                .map(|i| {
                    nd_a.index_axis(ndarray::Axis(0), i)
                        .dot(&nd_b.index_axis(ndarray::Axis(0), i))
                })
                .collect();
            black_box(out)
        })
    });
    #[cfg(stridex_compare)]
    compare::batched(&mut g, B, M);
    g.finish();
}

fn half_1024(c: &mut Criterion) {
    let to16 = |v: Vec<f32>| v.into_iter().map(f16::from_f32).collect::<Vec<_>>();
    let a = Tensor::from_vec(to16(data(N * N, 1)), &[N, N]).unwrap();
    let b = Tensor::from_vec(to16(data(N * N, 2)), &[N, N]).unwrap();
    let a_bf = Tensor::from_vec(
        data(N * N, 1)
            .into_iter()
            .map(half::bf16::from_f32)
            .collect(),
        &[N, N],
    )
    .unwrap();
    let b_bf = Tensor::from_vec(
        data(N * N, 2)
            .into_iter()
            .map(half::bf16::from_f32)
            .collect(),
        &[N, N],
    )
    .unwrap();
    let mut g = c.benchmark_group("half_1024_1t");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .throughput(flops(N, N, N));
    let one = pool(1);
    g.bench_function(BenchmarkId::new("stridex", "f16"), |bch| {
        one.install(|| bch.iter(|| black_box(a.matmul(&b).unwrap())))
    });
    let a_t = a.t().unwrap();
    g.bench_function(BenchmarkId::new("stridex", "f16_transposed_a"), |bch| {
        one.install(|| bch.iter(|| black_box(a_t.matmul(&b).unwrap())))
    });
    g.bench_function(BenchmarkId::new("stridex", "bf16"), |bch| {
        one.install(|| bch.iter(|| black_box(a_bf.matmul(&b_bf).unwrap())))
    });
    #[cfg(stridex_compare)]
    compare::half(&mut g);
    g.finish();
}

fn threads(c: &mut Criterion) {
    let ops = operands();
    let mut g = c.benchmark_group("sgemm_1024_threads");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .throughput(flops(N, N, N));
    for t in [1, 2] {
        let p = pool(t);
        g.bench_function(BenchmarkId::new("stridex", t), |bch| {
            p.install(|| bch.iter(|| black_box(ops.a.matmul(&ops.b).unwrap())))
        });
        g.bench_function(BenchmarkId::new("stridex_transposed_a", t), |bch| {
            p.install(|| bch.iter(|| black_box(ops.a_t.matmul(&ops.b).unwrap())))
        });
    }
    #[cfg(stridex_compare)]
    compare::threads(&mut g);
    g.finish();
}

/// A named timing case for [`interleaved`].
type Case<'a> = (&'static str, Box<dyn Fn() + 'a>);

/// Best of `reps` round-robin timings of each case, in seconds.
fn interleaved(cases: &[Case<'_>], reps: usize) -> Vec<f64> {
    let mut best = vec![f64::INFINITY; cases.len()];
    for _ in 0..reps {
        for (b, (_, f)) in best.iter_mut().zip(cases) {
            let t = Instant::now();
            f();
            *b = b.min(t.elapsed().as_secs_f64());
        }
    }
    best
}

fn ratios() {
    let ops = operands();
    let nd_a = ndarray::Array2::from_shape_vec((N, N), data(N * N, 1)).unwrap();
    let nd_b = ndarray::Array2::from_shape_vec((N, N), data(N * N, 2)).unwrap();
    let one = pool(1);
    let two = pool(2);
    let st = |a: &Tensor<f32>| {
        black_box(a.matmul(&ops.b).unwrap());
    };
    #[allow(unused_mut)]
    let mut cases: Vec<Case<'_>> = vec![
        (
            "stridex contiguous",
            Box::new(|| one.install(|| st(&ops.a))),
        ),
        (
            "stridex transposed A",
            Box::new(|| one.install(|| st(&ops.a_t))),
        ),
        (
            "stridex narrowed A",
            Box::new(|| one.install(|| st(&ops.a_narrow))),
        ),
        (
            "ndarray dot",
            Box::new(|| {
                black_box(nd_a.dot(&nd_b));
            }),
        ),
        ("stridex 2 threads", Box::new(|| two.install(|| st(&ops.a)))),
    ];
    #[cfg(stridex_compare)]
    cases.extend(compare::ratio_cases());
    let best = interleaved(&cases, 25);
    let gf = |s: f64| 2.0 * (N * N * N) as f64 / s / 1e9;
    println!("\nratios: 1024^3 f32, best of 25 interleaved rounds");
    for ((name, _), &s) in cases.iter().zip(&best) {
        println!(
            "  {name:<28} {:>7.2} ms {:>7.1} GFLOP/s  {:>5.3}x contiguous",
            s * 1e3,
            gf(s),
            best[0] / s
        );
    }
}

/// Whether a criterion filter given on the command line selects `name` (no filter: all).
fn selected(name: &str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
}

fn main() {
    // Before any pool exists: the global rayon pool, and candle, use one thread.
    // TODO: Audit that the environment access only happens in single-threaded code.
    unsafe { std::env::set_var("RAYON_NUM_THREADS", "1") };
    let mut c = Criterion::default().configure_from_args();
    sgemm_1024(&mut c);
    batched(&mut c);
    half_1024(&mut c);
    threads(&mut c);
    c.final_summary();
    if selected("ratios") && !std::env::args().any(|a| a == "--list" || a == "--test") {
        ratios();
    }
}

#[cfg(stridex_compare)]
mod compare {
    use super::*;
    use criterion::BenchmarkGroup;
    use criterion::measurement::WallTime;

    /// `c = a · b` with the gemm crate, strides given explicitly (row stride `rs`, column
    /// stride `cs`), on one thread or `Rayon(threads)`.
    fn gemm_crate<T: 'static + Copy + Default>(
        n: usize,
        a: &[T],
        (a_rs, a_cs): (isize, isize),
        b: &[T],
        threads: usize,
        one: T,
    ) -> Vec<T> {
        let mut c = vec![T::default(); n * n];
        let par = if threads > 1 {
            gemm::Parallelism::Rayon(threads)
        } else {
            gemm::Parallelism::None
        };
        // SAFETY: the three buffers hold n × n elements at the given strides.
        unsafe {
            gemm::gemm(
                n,
                n,
                n,
                c.as_mut_ptr(),
                1,
                n as isize,
                false,
                a.as_ptr(),
                a_cs,
                a_rs,
                b.as_ptr(),
                1,
                n as isize,
                T::default(),
                one,
                false,
                false,
                false,
                par,
            );
        }
        c
    }

    fn candle(v: Vec<f32>, rows: usize, cols: usize) -> candle_core::Tensor {
        candle_core::Tensor::from_vec(v, (rows, cols), &candle_core::Device::Cpu).unwrap()
    }

    pub(super) fn sgemm(g: &mut BenchmarkGroup<'_, WallTime>) {
        let (a, b) = (data(N * N, 1), data(N * N, 2));
        let wide = data(N * (N + 64), 1);
        let n = N as isize;
        g.bench_function(BenchmarkId::new("gemm_crate", "contiguous"), |bch| {
            bch.iter(|| black_box(gemm_crate(N, &a, (n, 1), &b, 1, 1.0f32)))
        });
        g.bench_function(BenchmarkId::new("gemm_crate", "transposed_a"), |bch| {
            bch.iter(|| black_box(gemm_crate(N, &a, (1, n), &b, 1, 1.0f32)))
        });
        g.bench_function(BenchmarkId::new("gemm_crate", "narrowed_a"), |bch| {
            bch.iter(|| black_box(gemm_crate(N, &wide[32..], (n + 64, 1), &b, 1, 1.0f32)))
        });
        let (ca, cb) = (candle(a.clone(), N, N), candle(b.clone(), N, N));
        let ca_t = ca.t().unwrap();
        let ca_n = candle(wide.clone(), N, N + 64).narrow(1, 32, N).unwrap();
        g.bench_function(BenchmarkId::new("candle", "contiguous"), |bch| {
            bch.iter(|| black_box(ca.matmul(&cb).unwrap()))
        });
        g.bench_function(BenchmarkId::new("candle", "transposed_a"), |bch| {
            bch.iter(|| black_box(ca_t.matmul(&cb).unwrap()))
        });
        g.bench_function(BenchmarkId::new("candle", "narrowed_a"), |bch| {
            bch.iter(|| black_box(ca_n.matmul(&cb).unwrap()))
        });
    }

    pub(super) fn batched(g: &mut BenchmarkGroup<'_, WallTime>, b: usize, m: usize) {
        let dev = &candle_core::Device::Cpu;
        let ca = candle_core::Tensor::from_vec(data(b * m * m, 3), (b, m, m), dev).unwrap();
        let cb = candle_core::Tensor::from_vec(data(b * m * m, 4), (b, m, m), dev).unwrap();
        g.bench_function("candle", |bch| {
            bch.iter(|| black_box(ca.matmul(&cb).unwrap()))
        });
    }

    pub(super) fn half(g: &mut BenchmarkGroup<'_, WallTime>) {
        let to16 = |v: Vec<f32>| v.into_iter().map(f16::from_f32).collect::<Vec<_>>();
        let (a, b) = (to16(data(N * N, 1)), to16(data(N * N, 2)));
        let n = N as isize;
        g.bench_function(BenchmarkId::new("gemm_crate", "f16"), |bch| {
            bch.iter(|| black_box(gemm_crate(N, &a, (n, 1), &b, 1, f16::ONE)))
        });
        let dev = &candle_core::Device::Cpu;
        let ca = candle_core::Tensor::from_vec(a.clone(), (N, N), dev).unwrap();
        let cb = candle_core::Tensor::from_vec(b.clone(), (N, N), dev).unwrap();
        g.bench_function(BenchmarkId::new("candle", "f16"), |bch| {
            bch.iter(|| black_box(ca.matmul(&cb).unwrap()))
        });
    }

    pub(super) fn threads(g: &mut BenchmarkGroup<'_, WallTime>) {
        let (a, b) = (data(N * N, 1), data(N * N, 2));
        let n = N as isize;
        for t in [1, 2] {
            let p = pool(t);
            g.bench_function(BenchmarkId::new("gemm_crate", t), |bch| {
                p.install(|| bch.iter(|| black_box(gemm_crate(N, &a, (n, 1), &b, t, 1.0f32))))
            });
        }
    }

    pub(super) fn ratio_cases() -> Vec<Case<'static>> {
        let (a, b) = (data(N * N, 1), data(N * N, 2));
        let n = N as isize;
        let (ca, cb) = (candle(a.clone(), N, N), candle(b.clone(), N, N));
        let (a2, b2) = (a.clone(), b.clone());
        let (a3, b3, two) = (a.clone(), b.clone(), pool(2));
        vec![
            (
                "gemm crate",
                Box::new(move || {
                    black_box(gemm_crate(N, &a, (n, 1), &b, 1, 1.0f32));
                }),
            ),
            (
                "gemm crate transposed A",
                Box::new(move || {
                    black_box(gemm_crate(N, &a2, (1, n), &b2, 1, 1.0f32));
                }),
            ),
            (
                "gemm crate 2 threads",
                Box::new(move || {
                    two.install(|| black_box(gemm_crate(N, &a3, (n, 1), &b3, 2, 1.0f32)));
                }),
            ),
            (
                "candle",
                Box::new(move || {
                    black_box(ca.matmul(&cb).unwrap());
                }),
            ),
        ]
    }
}
