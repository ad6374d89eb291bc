//! Writes through mutable views, fills, `cat` and `pad` on 4096x4096 f32 (and a
//! [32, 64, 56, 56] activation for `pad`): stridex next to the operation each must match
//! (`contiguous_into`, a slice fill, REF memcpy) and ndarray. `cargo bench --bench writes`. The
//! bench report example (`cargo run --release --example bench_report`) prints the same cases as
//! ratios measured in one run.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndarray::{Array2, Array4, Axis, s};
use stridex::Tensor;

const N: usize = 4096;
const MAT: u64 = (N * N * 4) as u64;

fn filled(shape: &[usize]) -> Vec<f32> {
    let n: usize = shape.iter().product();
    (0..n).map(|i| (i % 1000) as f32).collect()
}

fn copies(c: &mut Criterion) {
    let data = filled(&[N, N]);
    let x = Tensor::from_slice(&data, &[N, N]).unwrap();
    let nx = Array2::from_shape_vec((N, N), data).unwrap();
    let xt = x.t().unwrap();
    let mut y = Tensor::<f32>::zeros(&[N, N]).unwrap();
    let mut ny = Array2::<f32>::zeros((N, N));
    let mut buf = vec![0f32; N * N];

    let mut g = c.benchmark_group("writes 4096x4096 f32");
    g.sample_size(10);
    {
        let src = vec![1u8; 64 << 20];
        let mut dst = vec![0u8; 64 << 20];
        g.throughput(Throughput::Bytes(2 * (64 << 20)));
        g.bench_function("REF memcpy 64 MiB", |b| {
            b.iter(|| dst.copy_from_slice(black_box(&src)))
        });
    }
    g.throughput(Throughput::Bytes(2 * MAT));
    g.bench_function("y.view_mut().t().copy_from(x)", |b| {
        b.iter(|| y.view_mut().unwrap().t().unwrap().copy_from(&x).unwrap())
    });
    g.bench_function("y.copy_from(x.t())", |b| {
        b.iter(|| y.copy_from(black_box(&xt)).unwrap())
    });
    g.bench_function("x.t().contiguous_into(buf)", |b| {
        b.iter(|| xt.contiguous_into(black_box(&mut buf)).unwrap())
    });
    g.bench_function("ndarray assign(x.t())", |b| {
        b.iter(|| ny.assign(black_box(&nx.t())))
    });

    let cols = N - 2;
    g.throughput(Throughput::Bytes((N * cols * 4) as u64));
    g.bench_function("fill x[:, 1:4095]", |b| {
        b.iter(|| {
            let v = y.view_mut().unwrap().narrow(1, 1, cols).unwrap();
            black_box(v).fill(1.5).unwrap()
        })
    });
    g.bench_function("slice fill, same bytes", |b| {
        b.iter(|| black_box(&mut buf[..N * cols]).fill(1.5))
    });
    g.bench_function("ndarray fill x[:, 1:4095]", |b| {
        b.iter(|| ny.slice_mut(s![.., 1..N - 1]).fill(1.5))
    });
    g.finish();
}

fn assemble(c: &mut Criterion) {
    let mut g = c.benchmark_group("cat and pad f32");
    g.sample_size(10);
    for dim in [0, 1] {
        let shape = if dim == 0 { [1024, N] } else { [N, 1024] };
        let parts: Vec<Tensor<f32>> = (0..4)
            .map(|_| Tensor::from_slice(&filled(&shape), &shape).unwrap())
            .collect();
        let refs: Vec<&Tensor<f32>> = parts.iter().collect();
        let nparts: Vec<Array2<f32>> = (0..4)
            .map(|_| Array2::from_shape_vec((shape[0], shape[1]), filled(&shape)).unwrap())
            .collect();
        let views: Vec<_> = nparts.iter().map(|a| a.view()).collect();
        g.throughput(Throughput::Bytes(2 * MAT));
        g.bench_function(format!("cat 4 x {shape:?} dim {dim}"), |b| {
            b.iter(|| black_box(Tensor::cat(&refs, dim).unwrap()))
        });
        g.bench_function(
            format!("ndarray concatenate 4 x {shape:?} dim {dim}"),
            |b| b.iter(|| black_box(ndarray::concatenate(Axis(dim), &views).unwrap())),
        );
    }
    let shape = [32, 64, 56, 56];
    let input = filled(&shape);
    let t = Tensor::from_slice(&input, &shape).unwrap();
    let na = Array4::from_shape_vec((32, 64, 56, 56), input).unwrap();
    g.throughput(Throughput::Bytes(
        ((32 * 64) * (56 * 56 + 58 * 58) * 4) as u64,
    ));
    g.bench_function("pad [32, 64, 56, 56] by 1 on H, W", |b| {
        b.iter(|| black_box(t.pad(&[(0, 0), (0, 0), (1, 1), (1, 1)], 0.0).unwrap()))
    });
    g.bench_function("ndarray zeros + assign interior", |b| {
        b.iter(|| {
            let mut p = Array4::<f32>::zeros((32, 64, 58, 58));
            p.slice_mut(s![.., .., 1..57, 1..57]).assign(&na);
            black_box(p)
        })
    });
    g.finish();
}

criterion_group!(benches, copies, assemble);
criterion_main!(benches);
