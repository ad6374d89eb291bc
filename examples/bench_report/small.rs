//! Small tensors: nanoseconds per call of view ops, a transposed copy, `&a + &a`, `&a + 1.0`,
//! `a + &b` with an owned `a`, `&a + &a.t()`, `sum_dim` and
//! `matmul` on n x n f32 for n = 4, 16, 64, 256, beside ndarray with a dynamic rank (`ArrayD`,
//! like stridex) and a static one (`Array2`). At these sizes the fixed cost of a call (shape
//! bookkeeping, planning, allocation, thread dispatch) is what is measured.

use std::hint::black_box;
use std::time::Instant;

use ndarray::{ArcArray, Array2, ArrayD, Axis, Ix2, IxDyn};
use stridex::Tensor;

/// Calls of `f` that take about 2 ms.
fn calibrate(f: &mut dyn FnMut()) -> usize {
    let mut calls = 1usize;
    loop {
        let t = Instant::now();
        for _ in 0..calls {
            f();
        }
        if t.elapsed().as_secs_f64() > 2e-3 || calls > 1 << 24 {
            return calls;
        }
        calls *= 2;
    }
}

/// Median nanoseconds per call of each of `fs`, over 9 rounds that time one batch of about
/// 2 ms of each in turn: the contenders are timed interleaved, so a slow spell of the machine
/// hits all of them rather than one.
pub fn ns_per_call(fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let calls: Vec<usize> = fs.iter_mut().map(|f| calibrate(*f)).collect();
    let mut samples = vec![Vec::new(); fs.len()];
    for _ in 0..9 {
        for ((f, &n), out) in fs.iter_mut().zip(&calls).zip(&mut samples) {
            let t = Instant::now();
            for _ in 0..n {
                f();
            }
            out.push(t.elapsed().as_secs_f64() * 1e9 / n as f64);
        }
    }
    samples
        .into_iter()
        .map(|mut s| {
            s.sort_by(f64::total_cmp);
            s[s.len() / 2]
        })
        .collect()
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
    // BENCH_FILTER=small keeps the whole table (and, matching no other case, only it).
    let keep = |op: &str| {
        filter
            .as_ref()
            .is_none_or(|f| f == "small" || op.contains(f.as_str()))
    };
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
                let (has_dynamic, has_fixed) = (dynamic.is_some(), fixed.is_some());
                let mut fs: Vec<&mut dyn FnMut()> = Vec::new();
                fs.push(ours);
                if let Some(d) = dynamic {
                    fs.push(d);
                }
                if let Some(f) = fixed {
                    fs.push(f);
                }
                let mut ns = ns_per_call(&mut fs).into_iter();
                let ours = ns.next().expect("stridex's time");
                let dynamic = if has_dynamic { ns.next() } else { None };
                let fixed = if has_fixed { ns.next() } else { None };
                rows.push(Row {
                    op,
                    n,
                    ours,
                    dynamic,
                    fixed,
                });
            }
        };
        // Owned views beside ndarray's owned shared arrays (`ArcArray`, one reference count
        // like a `Tensor`'s storage), borrowed views beside ndarray's borrowed ones.
        let (d_arc, s_arc) = (d.to_shared(), s.to_shared());
        push(
            "narrow(0, 1, n-1) then t() (owned views; ndarray ArcArray)",
            &mut || {
                black_box(black_box(&a).narrow(0, 1, n - 1).and_then(|v| v.t()).ok());
            },
            Some(&mut || {
                let mut v: ArcArray<f32, IxDyn> = black_box(&d_arc).clone();
                v.slice_axis_inplace(Axis(0), (1..n).into());
                black_box(v.reversed_axes());
            }),
            Some(&mut || {
                let mut v: ArcArray<f32, Ix2> = black_box(&s_arc).clone();
                v.slice_axis_inplace(Axis(0), (1..n).into());
                black_box(v.reversed_axes());
            }),
        );
        push(
            "as_view().narrow(0, 1, n-1) then t() (borrowed views)",
            &mut || {
                let v = black_box(&a).as_view();
                black_box(v.narrow(0, 1, n - 1).and_then(|v| v.t()).ok());
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
            "&a + 1.0",
            &mut || {
                black_box(black_box(&a) + 1.0);
            },
            Some(&mut || {
                black_box(black_box(&d) + 1.0);
            }),
            Some(&mut || {
                black_box(black_box(&s) + 1.0);
            }),
        );
        // An owned left operand, the result of an earlier op: both libraries write into its
        // buffer (each call feeds its result to the next).
        let (mut own, mut own_d, mut own_s) =
            (Some(a.to_owned()), Some(d.clone()), Some(s.clone()));
        push(
            "a + &b (owned a, buffer reused)",
            &mut || {
                let x = own.take().expect("the previous result");
                own = (x + black_box(&a)).ok();
            },
            Some(&mut || {
                let x = own_d.take().expect("the previous result");
                own_d = Some(black_box(x + black_box(&d)));
            }),
            Some(&mut || {
                let x = own_s.take().expect("the previous result");
                own_s = Some(black_box(x + black_box(&s)));
            }),
        );
        let (at, dt, st) = (a.t().expect("2-dim"), d.t(), s.t());
        push(
            "&a + &a.t() (mixed layouts)",
            &mut || {
                black_box((black_box(&a) + black_box(&at)).ok());
            },
            Some(&mut || {
                black_box(black_box(&d) + black_box(&dt));
            }),
            Some(&mut || {
                black_box(black_box(&s) + black_box(&st));
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
            // ArrayD has no `dot`: its users view it as 2-dim first.
            Some(&mut || {
                let d = black_box(&d)
                    .view()
                    .into_dimensionality::<Ix2>()
                    .expect("2-dim");
                black_box(d.dot(&d));
            }),
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
