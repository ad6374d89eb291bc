//! Sums in the canonical order (Note [canonical order] in `src/kernels/reduce.rs`) against
//! what a user could write by hand, timed side by side in one run:
//!
//! - 4096 x 4096 `f32` (64 MiB, from memory): each sum's read rate as a ratio to REF's (a
//!   64 MiB memcpy, whose rate counts its bytes read and written, as the other tables do),
//!   beside a plain 8-lane loop compiled for AVX2 (row sums: eight accumulators per row; column
//!   sums: a row of accumulators) and ndarray's `sum_axis`.
//! - 256 x 256 `f32` (256 KiB, in L2): microseconds per sum, beside the plain loops, ndarray
//!   and an L2-bandwidth loop (the fastest read of those bytes: four independent vector sums
//!   over the flat buffer, no output).
//!
//! `BENCH_FILTER=sums` runs this table alone.

use std::hint::black_box;
use std::time::Instant;

use ndarray::{Array2, Axis};
use stridex::Tensor;

/// Median seconds of `reps` runs of `f` after a warm-up, each run `inner` calls.
fn time(reps: usize, inner: usize, f: &mut dyn FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            for _ in 0..inner {
                f();
            }
            s.elapsed().as_secs_f64() / inner as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

/// Row sums with eight accumulators per row, compiled for AVX2 where the CPU has it.
fn plain_row_sums(x: &[f32], cols: usize, out: &mut [f32]) {
    #[inline(always)]
    fn body(x: &[f32], cols: usize, out: &mut [f32]) {
        for (row, o) in x.chunks_exact(cols).zip(out.iter_mut()) {
            let mut acc = [0.0f32; 8];
            let chunks = row.chunks_exact(8);
            let tail: f32 = chunks.remainder().iter().sum();
            for c in chunks {
                for k in 0..8 {
                    acc[k] += c[k];
                }
            }
            *o = acc.iter().sum::<f32>() + tail;
        }
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        unsafe fn wide(x: &[f32], cols: usize, out: &mut [f32]) {
            body(x, cols, out)
        }
        // SAFETY: the CPU has AVX2 (just detected).
        return unsafe { wide(x, cols, out) };
    }
    body(x, cols, out)
}

/// Column sums: a row of accumulators, every input row added in turn.
fn plain_col_sums(x: &[f32], cols: usize, out: &mut [f32]) {
    #[inline(always)]
    fn body(x: &[f32], cols: usize, out: &mut [f32]) {
        out.fill(0.0);
        for row in x.chunks_exact(cols) {
            for (o, &v) in out.iter_mut().zip(row) {
                *o += v;
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        unsafe fn wide(x: &[f32], cols: usize, out: &mut [f32]) {
            body(x, cols, out)
        }
        // SAFETY: the CPU has AVX2 (just detected).
        return unsafe { wide(x, cols, out) };
    }
    body(x, cols, out)
}

/// The fastest read of `x`: 32 independent sums (four AVX2 vectors' worth), no output.
fn read_loop(x: &[f32]) -> f32 {
    #[inline(always)]
    fn body(x: &[f32]) -> f32 {
        let mut acc = [0.0f32; 32];
        for c in x.chunks_exact(32) {
            for k in 0..32 {
                acc[k] += c[k];
            }
        }
        acc.iter().sum()
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        unsafe fn wide(x: &[f32]) -> f32 {
            body(x)
        }
        // SAFETY: the CPU has AVX2 (just detected).
        return unsafe { wide(x) };
    }
    body(x)
}

fn data(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919 + 13) % 2003) as f32 * 0.001 - 1.0)
        .collect()
}

/// One row of the 4096 x 4096 table: name, then seconds for stridex, the plain loop,
/// ndarray and REF.
type BigRow = (&'static str, f64, Option<f64>, Option<f64>, f64);

/// The sums table (markdown), or an empty string when `BENCH_FILTER` excludes it.
pub fn table(reps: usize) -> String {
    if std::env::var("BENCH_FILTER").is_ok_and(|f| !"sums".contains(f.as_str())) {
        return String::new();
    }
    let mut s = String::new();
    // From memory.
    let n = 4096;
    let v = data(n * n);
    let x = Tensor::from_slice(&v, &[n, n]).expect("shape");
    let xt = x.t().expect("2-d").contiguous().t().expect("2-d");
    let nd = Array2::from_shape_vec((n, n), v.clone()).expect("shape");
    let mut out = vec![0.0f32; n];
    let mut dst = vec![0.0f32; n * n];
    let bytes = (n * n * 4) as f64;
    let mut memcpy = || {
        dst.copy_from_slice(&v);
        black_box(&dst);
    };
    let big: Vec<BigRow> = vec![
        (
            "sum_dim(1)",
            time(reps, 1, &mut || {
                black_box(x.sum_dim(1, false).expect("dim"));
            }),
            Some(time(reps, 1, &mut || plain_row_sums(&v, n, &mut out))),
            Some(time(reps, 1, &mut || {
                black_box(nd.sum_axis(Axis(1)));
            })),
            time(reps, 1, &mut memcpy),
        ),
        (
            "sum_dim(0)",
            time(reps, 1, &mut || {
                black_box(x.sum_dim(0, false).expect("dim"));
            }),
            Some(time(reps, 1, &mut || plain_col_sums(&v, n, &mut out))),
            Some(time(reps, 1, &mut || {
                black_box(nd.sum_axis(Axis(0)));
            })),
            time(reps, 1, &mut memcpy),
        ),
        (
            "sum_dim(1) of column-major storage",
            time(reps, 1, &mut || {
                black_box(xt.sum_dim(1, false).expect("dim"));
            }),
            None,
            None,
            time(reps, 1, &mut memcpy),
        ),
        (
            "sum_all",
            time(reps, 1, &mut || {
                black_box(x.sum_all());
            }),
            Some(time(reps, 1, &mut || {
                black_box(read_loop(&v));
            })),
            Some(time(reps, 1, &mut || {
                black_box(nd.sum());
            })),
            time(reps, 1, &mut memcpy),
        ),
        (
            "sum_all of column-major storage (strided reads)",
            time(reps, 1, &mut || {
                black_box(xt.sum_all());
            }),
            None,
            None,
            time(reps, 1, &mut memcpy),
        ),
    ];
    s.push_str(
        "| 4096x4096 f32 sum | stridex / REF | plain loop / REF | ndarray / REF | stridex / plain |\n\
         |---|---|---|---|---|\n",
    );
    // A read-only pass moves half the bytes of a copy: its rate is counted in bytes read, REF's
    // in bytes read plus written, so a ratio of 1.0 reads as fast as memcpy moves.
    let rate = |t: f64| bytes / t;
    for (name, ours, plain, nda, r) in big {
        let refr = 2.0 * bytes / r;
        let f = |t: Option<f64>| t.map_or("-".to_string(), |t| format!("{:.2}", rate(t) / refr));
        s.push_str(&format!(
            "| {name} | {:.2} | {} | {} | {} |\n",
            rate(ours) / refr,
            f(plain),
            f(nda),
            plain.map_or("-".to_string(), |p| format!("{:.2}", p / ours)),
        ));
    }
    // In cache.
    let n = 256;
    let v = data(n * n);
    let x = Tensor::from_slice(&v, &[n, n]).expect("shape");
    let nd = Array2::from_shape_vec((n, n), v.clone()).expect("shape");
    let mut out = vec![0.0f32; n];
    let inner = 200;
    let us = |t: f64| t * 1e6;
    let l2 = time(reps, inner, &mut || {
        black_box(read_loop(&v));
    });
    s.push_str(
        "\n| 256x256 f32 sum (in L2) | stridex us | plain loop us | ndarray us | L2 read loop us | stridex / L2 loop |\n\
         |---|---|---|---|---|---|\n",
    );
    for dim in [1usize, 0] {
        let ours = time(reps, inner, &mut || {
            black_box(x.sum_dim(dim, false).expect("dim"));
        });
        let plain = time(reps, inner, &mut || {
            if dim == 1 {
                plain_row_sums(&v, n, &mut out)
            } else {
                plain_col_sums(&v, n, &mut out)
            }
        });
        let nda = time(reps, inner, &mut || {
            black_box(nd.sum_axis(Axis(dim)));
        });
        s.push_str(&format!(
            "| sum_dim({dim}) | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |\n",
            us(ours),
            us(plain),
            us(nda),
            us(l2),
            ours / l2
        ));
    }
    s
}
