//! Elementwise ops and sums on strided 4096x4096 f32 operands: stridex next to ndarray and a
//! plain memcpy (REF). `cargo bench --bench elementwise`. The bench report example
//! (`cargo run --release --example bench_report`) prints the same cases as ratios to REF.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndarray::{Array1, Array2, Axis};
use stridex::Tensor;

const N: usize = 4096;
const MAT: u64 = (N * N * 4) as u64;

fn matrix(seed: usize) -> (Tensor<f32>, Array2<f32>) {
    let data: Vec<f32> = (0..N * N).map(|i| ((i * 7 + seed) % 1000) as f32).collect();
    let t = Tensor::from_slice(&data, &[N, N]).unwrap();
    (t, Array2::from_shape_vec((N, N), data).unwrap())
}

fn elementwise(c: &mut Criterion) {
    let (a, na) = matrix(1);
    let (b, nb) = matrix(2);
    let row: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let (r, nr) = (
        Tensor::from_slice(&row, &[N]).unwrap(),
        Array1::from_vec(row),
    );
    let (at, bt) = (a.t().unwrap(), b.t().unwrap());

    let mut g = c.benchmark_group("elementwise 4096x4096 f32");
    g.sample_size(10);
    {
        let src = vec![1u8; 64 << 20];
        let mut dst = vec![0u8; 64 << 20];
        g.throughput(Throughput::Bytes(2 * (64 << 20)));
        g.bench_function("REF memcpy 64 MiB", |bch| {
            bch.iter(|| dst.copy_from_slice(black_box(&src)))
        });
    }
    g.throughput(Throughput::Bytes(3 * MAT));
    g.bench_function("stridex a + b", |bch| {
        bch.iter(|| black_box((&a + &b).unwrap()))
    });
    g.bench_function("ndarray a + b", |bch| bch.iter(|| black_box(&na + &nb)));
    g.bench_function("stridex a + b.t()", |bch| {
        bch.iter(|| black_box((&a + &bt).unwrap()))
    });
    g.bench_function("ndarray a + b.t()", |bch| {
        bch.iter(|| black_box(&na + &nb.t()))
    });
    g.bench_function("stridex a.t() + b.t()", |bch| {
        bch.iter(|| black_box((&at + &bt).unwrap()))
    });
    g.bench_function("ndarray a.t() + b.t()", |bch| {
        bch.iter(|| black_box(&na.t() + &nb.t()))
    });
    g.throughput(Throughput::Bytes(2 * MAT + (N * 4) as u64));
    g.bench_function("stridex a + row", |bch| {
        bch.iter(|| black_box((&a + &r).unwrap()))
    });
    g.bench_function("ndarray a + row", |bch| bch.iter(|| black_box(&na + &nr)));
    g.throughput(Throughput::Bytes(MAT));
    for dim in [0, 1] {
        g.bench_function(format!("stridex sum over dim {dim}"), |bch| {
            bch.iter(|| black_box(a.sum_dim(dim, false).unwrap()))
        });
        g.bench_function(format!("ndarray sum over dim {dim}"), |bch| {
            bch.iter(|| black_box(na.sum_axis(Axis(dim))))
        });
    }
    g.finish();
}

criterion_group!(benches, elementwise);
criterion_main!(benches);
