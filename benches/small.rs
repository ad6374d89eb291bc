//! Small tensors, where the fixed cost of a call dominates: view ops (owned and borrowed), a
//! transposed copy, `&a + &a`, `&a + 1.0`, `a + &b` with an owned `a`, `&a + &a.t()`,
//! `sum_dim` and `matmul` on n x n f32 for n = 4, 16, 64, 256, beside ndarray with a dynamic
//! rank (`ArrayD`) and a static one (`Array2`). `cargo bench --bench small`; the bench
//! report example prints the same cases as one table of ns per call and ratios.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ndarray::{ArcArray, Array2, ArrayD, Axis, Ix2, IxDyn};
use stridex::Tensor;

fn small(c: &mut Criterion) {
    for n in [4usize, 16, 64, 256] {
        let data: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
        let a = Tensor::from_slice(&data, &[n, n]).unwrap();
        let d = ArrayD::from_shape_vec(IxDyn(&[n, n]), data.clone()).unwrap();
        let s = Array2::from_shape_vec((n, n), data).unwrap();
        let mut g = c.benchmark_group(format!("small {n}x{n} f32"));
        g.bench_function(BenchmarkId::new("views", "stridex"), |b| {
            b.iter(|| {
                black_box(&a)
                    .narrow(0, 1, n - 1)
                    .and_then(|v| v.t())
                    .unwrap()
            })
        });
        g.bench_function(BenchmarkId::new("views", "stridex borrowed"), |b| {
            b.iter(|| {
                black_box(&a)
                    .as_view()
                    .narrow(0, 1, n - 1)
                    .and_then(|v| v.t())
                    .unwrap()
            })
        });
        g.bench_function(BenchmarkId::new("views", "ndarray ArrayD"), |b| {
            b.iter(|| {
                black_box(&d)
                    .slice_axis(Axis(0), (1..n).into())
                    .reversed_axes()
            })
        });
        let d_arc: ArcArray<f32, IxDyn> = d.to_shared();
        g.bench_function(BenchmarkId::new("views", "ndarray ArcArray (owned)"), |b| {
            b.iter(|| {
                let mut v = black_box(&d_arc).clone();
                v.slice_axis_inplace(Axis(0), (1..n).into());
                v.reversed_axes()
            })
        });
        g.bench_function(BenchmarkId::new("t().contiguous()", "stridex"), |b| {
            b.iter(|| black_box(&a).t().unwrap().contiguous())
        });
        g.bench_function(
            BenchmarkId::new("t().contiguous()", "ndarray ArrayD"),
            |b| b.iter(|| black_box(&d).t().as_standard_layout().into_owned()),
        );
        g.bench_function(BenchmarkId::new("add", "stridex"), |b| {
            b.iter(|| (black_box(&a) + black_box(&a)).unwrap())
        });
        g.bench_function(BenchmarkId::new("add", "ndarray ArrayD"), |b| {
            b.iter(|| black_box(&d) + black_box(&d))
        });
        g.bench_function(BenchmarkId::new("add", "ndarray Array2"), |b| {
            b.iter(|| black_box(&s) + black_box(&s))
        });
        g.bench_function(BenchmarkId::new("&a + 1.0", "stridex"), |b| {
            b.iter(|| black_box(&a) + 1.0)
        });
        g.bench_function(BenchmarkId::new("&a + 1.0", "ndarray ArrayD"), |b| {
            b.iter(|| black_box(&d) + 1.0)
        });
        // An owned left operand (the previous result), whose buffer both libraries reuse.
        let mut own = Some(a.to_owned());
        g.bench_function(BenchmarkId::new("a + &b (owned a)", "stridex"), |b| {
            b.iter(|| {
                let x = own.take().expect("the previous result");
                own = (x + black_box(&a)).ok();
            })
        });
        let mut own_d = Some(d.clone());
        g.bench_function(
            BenchmarkId::new("a + &b (owned a)", "ndarray ArrayD"),
            |b| {
                b.iter(|| {
                    let x = own_d.take().expect("the previous result");
                    own_d = Some(x + black_box(&d));
                })
            },
        );
        let (at, dt) = (a.t().unwrap(), d.t());
        g.bench_function(BenchmarkId::new("&a + &a.t()", "stridex"), |b| {
            b.iter(|| (black_box(&a) + black_box(&at)).unwrap())
        });
        g.bench_function(BenchmarkId::new("&a + &a.t()", "ndarray ArrayD"), |b| {
            b.iter(|| black_box(&d) + black_box(&dt))
        });
        for dim in [0, 1] {
            g.bench_function(
                BenchmarkId::new(format!("sum_dim({dim})"), "stridex"),
                |b| b.iter(|| black_box(&a).sum_dim(dim, false).unwrap()),
            );
            g.bench_function(
                BenchmarkId::new(format!("sum_dim({dim})"), "ndarray ArrayD"),
                |b| b.iter(|| black_box(&d).sum_axis(Axis(dim))),
            );
        }
        g.bench_function(BenchmarkId::new("matmul", "stridex"), |b| {
            b.iter(|| black_box(&a).matmul(black_box(&a)).unwrap())
        });
        // ArrayD has no `dot`: its users view it as 2-dim first.
        g.bench_function(BenchmarkId::new("matmul", "ndarray ArrayD"), |b| {
            b.iter(|| {
                let d = black_box(&d).view().into_dimensionality::<Ix2>().unwrap();
                d.dot(&d)
            })
        });
        g.bench_function(BenchmarkId::new("matmul", "ndarray Array2"), |b| {
            b.iter(|| black_box(&s).dot(black_box(&s)))
        });
        g.finish();
    }
}

criterion_group!(benches, small);
criterion_main!(benches);
