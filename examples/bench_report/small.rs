//! Small tensors: nanoseconds per call of view ops, a transposed copy, `&a + &a`, `sum_dim` and
//! `matmul` on n x n f32 for n = 4, 16, 64, 256, beside ndarray with a dynamic rank (`ArrayD`,
//! like stridex) and a static one (`Array2`). At these sizes the fixed cost of a call (shape
//! bookkeeping, planning, allocation, thread dispatch) is what is measured.

use std::hint::black_box;
use std::time::Instant;

use ndarray::{Array2, ArrayD, Axis, IxDyn};
use stridex::Tensor;

/// Median nanoseconds per call of `f`, over 7 timed batches of calls lasting about 2 ms each.
fn ns_per_call(f: &mut dyn FnMut()) -> f64 {
    let mut calls = 1usize;
    loop {
        let t = Instant::now();
        for _ in 0..calls {
            f();
        }
        if t.elapsed().as_secs_f64() > 2e-3 || calls > 1 << 24 {
            break;
        }
        calls *= 2;
    }
    let mut samples: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..calls {
                f();
            }
            t.elapsed().as_secs_f64() * 1e9 / calls as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[3]
}

fn cell(ns: Option<f64>) -> String {
    ns.map_or("-".to_string(), |ns| format!("{ns:.0}"))
}

fn ratio(ours: f64, theirs: Option<f64>) -> String {
    theirs.map_or("-".to_string(), |t| format!("{:.2}x", ours / t))
}

/// One row: stridex, ndarray `ArrayD`, ndarray `Array2` (ns per call).
struct Row {
    op: &'static str,
    n: usize,
    ours: f64,
    dynamic: Option<f64>,
    fixed: Option<f64>,
}

/// The "small tensors" table for the current rayon pool.
pub fn table() -> String {
    let filter = std::env::var("BENCH_FILTER").ok();
    let keep = |op: &str| filter.as_ref().is_none_or(|f| op.contains(f.as_str()));
    let mut rows = Vec::new();
    for n in [4usize, 16, 64, 256] {
        let data: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
        let a = Tensor::from_slice(&data, &[n, n]).expect("shape");
        let d = ArrayD::from_shape_vec(IxDyn(&[n, n]), data.clone()).expect("shape");
        let s = Array2::from_shape_vec((n, n), data).expect("shape");
        let mut push = |op: &'static str,
                        ours: &mut dyn FnMut(),
                        dynamic: Option<&mut dyn FnMut()>,
                        fixed: Option<&mut dyn FnMut()>| {
            if keep(op) {
                rows.push(Row {
                    op,
                    n,
                    ours: ns_per_call(ours),
                    dynamic: dynamic.map(ns_per_call),
                    fixed: fixed.map(ns_per_call),
                });
            }
        };
        push(
            "narrow(0, 1, n-1) then t() (views only)",
            &mut || {
                black_box(black_box(&a).narrow(0, 1, n - 1).and_then(|v| v.t()).ok());
            },
            Some(&mut || {
                let v = black_box(&d).slice_axis(Axis(0), (1..n).into());
                black_box(v.reversed_axes());
            }),
            Some(&mut || {
                let v = black_box(&s).slice_axis(Axis(0), (1..n).into());
                black_box(v.reversed_axes());
            }),
        );
        push(
            "a.t().contiguous()",
            &mut || {
                black_box(black_box(&a).t().map(|t| t.contiguous()).ok());
            },
            Some(&mut || {
                black_box(black_box(&d).t().as_standard_layout().into_owned());
            }),
            Some(&mut || {
                black_box(black_box(&s).t().as_standard_layout().into_owned());
            }),
        );
        push(
            "&a + &a",
            &mut || {
                let a = black_box(&a);
                black_box((a + a).ok());
            },
            Some(&mut || {
                let d = black_box(&d);
                black_box(d + d);
            }),
            Some(&mut || {
                let s = black_box(&s);
                black_box(s + s);
            }),
        );
        push(
            "sum_dim(0)",
            &mut || {
                black_box(black_box(&a).sum_dim(0, false).ok());
            },
            Some(&mut || {
                black_box(black_box(&d).sum_axis(Axis(0)));
            }),
            Some(&mut || {
                black_box(black_box(&s).sum_axis(Axis(0)));
            }),
        );
        push(
            "sum_dim(1)",
            &mut || {
                black_box(black_box(&a).sum_dim(1, false).ok());
            },
            Some(&mut || {
                black_box(black_box(&d).sum_axis(Axis(1)));
            }),
            Some(&mut || {
                black_box(black_box(&s).sum_axis(Axis(1)));
            }),
        );
        push(
            "a.matmul(&a)",
            &mut || {
                let a = black_box(&a);
                black_box(a.matmul(a).ok());
            },
            None,
            Some(&mut || {
                let s = black_box(&s);
                black_box(s.dot(s));
            }),
        );
    }
    let mut out = String::from(
        "| op | n | stridex ns | ndarray ArrayD ns | ndarray Array2 ns | vs ArrayD | vs Array2 |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in &rows {
        out += &format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            r.op,
            r.n,
            cell(Some(r.ours)),
            cell(r.dynamic),
            cell(r.fixed),
            ratio(r.ours, r.dynamic),
            ratio(r.ours, r.fixed),
        );
    }
    out
}
