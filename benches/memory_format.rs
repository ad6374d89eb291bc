//! NCHW <-> NHWC conversions of 32x64x56x56 tensors (f32, f16) next to a memcpy of the same
//! bytes and ndarray's `permuted_axes` + `as_standard_layout`. `cargo bench --bench memory_format`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndarray::{ArrayD, IxDyn};
use stridex::{Element, MemoryFormat, Tensor};

fn formats<T: Element>(c: &mut Criterion, ty: &str, from: fn(usize) -> T) {
    let shape = [32, 64, 56, 56];
    let n: usize = shape.iter().product();
    let data: Vec<T> = (0..n).map(from).collect();
    let x = Tensor::from_slice(&data, &shape).unwrap();
    let cl = x.contiguous_in(MemoryFormat::ChannelsLast).unwrap();
    let a = ArrayD::from_shape_vec(IxDyn(&shape), data.clone()).unwrap();
    let a_nhwc = a
        .view()
        .permuted_axes(IxDyn(&[0, 2, 3, 1]))
        .as_standard_layout()
        .into_owned();

    let mut g = c.benchmark_group("memory formats");
    g.sample_size(10);
    g.throughput(Throughput::Bytes((2 * n * std::mem::size_of::<T>()) as u64));
    let mut dst = vec![T::zeroed(); n];
    g.bench_function(BenchmarkId::new("REF memcpy", ty), |b| {
        b.iter(|| dst.copy_from_slice(black_box(&data)))
    });
    g.bench_function(BenchmarkId::new("stridex NCHW->NHWC", ty), |b| {
        b.iter(|| black_box(x.contiguous_in(MemoryFormat::ChannelsLast).unwrap()))
    });
    g.bench_function(BenchmarkId::new("stridex NHWC->NCHW", ty), |b| {
        b.iter(|| black_box(cl.contiguous()))
    });
    g.bench_function(BenchmarkId::new("ndarray NCHW->NHWC", ty), |b| {
        b.iter(|| {
            black_box(
                a.view()
                    .permuted_axes(IxDyn(&[0, 2, 3, 1]))
                    .as_standard_layout()
                    .into_owned(),
            )
        })
    });
    g.bench_function(BenchmarkId::new("ndarray NHWC->NCHW", ty), |b| {
        b.iter(|| {
            black_box(
                a_nhwc
                    .view()
                    .permuted_axes(IxDyn(&[0, 3, 1, 2]))
                    .as_standard_layout()
                    .into_owned(),
            )
        })
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    formats(c, "f32", |i| i as f32);
    formats(c, "f16", |i| half::f16::from_f32((i % 2048) as f32));
}

criterion_group!(memory_format, benches);
criterion_main!(memory_format);
