//! "contiguous vs strided access": stridex's materialising copies next to a plain memcpy (REF)
//! and ndarray's `as_standard_layout()` on the same views. `cargo bench --bench contiguous`.
//! The bench report example prints the same cases as ratios to REF in one table.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndarray::{Array2, ArrayD, Axis, IxDyn, Slice};
use stridex::{Element, Tensor};

fn pair<T: Element>(shape: &[usize], from: impl Fn(usize) -> T) -> (Tensor<T>, ArrayD<T>) {
    let n: usize = shape.iter().product();
    let data: Vec<T> = (0..n).map(from).collect();
    let t = Tensor::from_slice(&data, shape).unwrap();
    (t, ArrayD::from_shape_vec(IxDyn(shape), data).unwrap())
}

fn bench_view<T: Element>(
    c: &mut Criterion,
    name: &str,
    view: &Tensor<T>,
    nd: ndarray::ArrayViewD<'_, T>,
) {
    let mut g = c.benchmark_group("contiguous vs strided access");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(
        (2 * view.numel() * std::mem::size_of::<T>()) as u64,
    ));
    g.bench_function(BenchmarkId::new("stridex contiguous()", name), |b| {
        b.iter(|| black_box(view.contiguous()))
    });
    let mut buf = vec![T::zeroed(); view.numel()];
    g.bench_function(BenchmarkId::new("stridex contiguous_into", name), |b| {
        b.iter(|| view.contiguous_into(black_box(&mut buf)).unwrap())
    });
    g.bench_function(BenchmarkId::new("ndarray as_standard_layout", name), |b| {
        b.iter(|| black_box(nd.as_standard_layout().into_owned()))
    });
    g.finish();
}

fn copies(c: &mut Criterion) {
    {
        let mut g = c.benchmark_group("contiguous vs strided access");
        g.sample_size(10);
        let src = vec![1u8; 64 << 20];
        let mut dst = vec![0u8; 64 << 20];
        g.throughput(Throughput::Bytes(2 * (64 << 20)));
        g.bench_function("REF memcpy 64 MiB", |b| {
            b.iter(|| dst.copy_from_slice(black_box(&src)))
        });
        g.finish();
    }
    let (t, a) = pair(&[4096, 4096], |i| i as f32);
    bench_view(
        c,
        "transpose 4096x4096 f32",
        &t.t().unwrap(),
        a.view().reversed_axes(),
    );
    bench_view(
        c,
        "narrow [:, 100:3100] 4096x4096 f32",
        &t.narrow(1, 100, 3000).unwrap(),
        a.slice_axis(Axis(1), Slice::from(100..3100)),
    );
    bench_view(
        c,
        "flip(1) 4096x4096 f32",
        &t.flip(1).unwrap(),
        a.slice_axis(Axis(1), Slice::new(0, None, -1)),
    );
    let (row, arow) = pair(&[1, 4096], |i| i as f32);
    bench_view(
        c,
        "expand row to 4096x4096 f32",
        &row.expand(&[4096, 4096]).unwrap(),
        arow.broadcast(IxDyn(&[4096, 4096])).unwrap(),
    );
    let (t3, a3) = pair(&[256, 512, 128], |i| i as f32);
    for p in [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
        let name = format!("permute {p:?} 256x512x128 f32");
        bench_view(
            c,
            &name,
            &t3.permute(&p).unwrap(),
            a3.view().permuted_axes(IxDyn(&p)),
        );
    }
    let (x, ax) = pair(&[32, 64, 56, 56], |i| i as f32);
    bench_view(
        c,
        "NCHW->NHWC 32x64x56x56 f32",
        &x.permute(&[0, 2, 3, 1]).unwrap(),
        ax.view().permuted_axes(IxDyn(&[0, 2, 3, 1])),
    );
    let (h, ah) = pair(&[4096, 4096], |i| half::f16::from_f32((i % 2048) as f32));
    bench_view(
        c,
        "transpose 4096x4096 f16",
        &h.t().unwrap(),
        ah.view().reversed_axes(),
    );
    let (b16, ab) = pair(&[4096, 4096], |i| half::bf16::from_f32((i % 256) as f32));
    bench_view(
        c,
        "transpose 4096x4096 bf16",
        &b16.t().unwrap(),
        ab.view().reversed_axes(),
    );
    let (u, au) = pair(&[8192, 8192], |i| i as u8);
    bench_view(
        c,
        "transpose 8192x8192 u8",
        &u.t().unwrap(),
        au.view().reversed_axes(),
    );
    let (d, ad) = pair(&[2048, 4096], |i| i as f64);
    bench_view(
        c,
        "transpose 2048x4096 f64",
        &d.t().unwrap(),
        ad.view().reversed_axes(),
    );
}

fn iteration(c: &mut Criterion) {
    let t = Tensor::from_vec((0..1 << 22).map(|i| i as f32).collect(), &[2048, 2048]).unwrap();
    let a = Array2::from_shape_vec((2048, 2048), t.to_vec()).unwrap();
    let mut g = c.benchmark_group("contiguous vs strided access");
    g.sample_size(10);
    g.throughput(Throughput::Bytes((4 << 22) as u64));
    let tt = t.t().unwrap();
    g.bench_function("stridex iter() contiguous 2048x2048 f32", |b| {
        b.iter(|| black_box(t.iter().fold(0.0f32, |s, x| s + x)))
    });
    g.bench_function("stridex iter() transposed 2048x2048 f32", |b| {
        b.iter(|| black_box(tt.iter().fold(0.0f32, |s, x| s + x)))
    });
    let at = a.t();
    g.bench_function("ndarray iter() contiguous 2048x2048 f32", |b| {
        b.iter(|| black_box(a.iter().fold(0.0f32, |s, x| s + x)))
    });
    g.bench_function("ndarray iter() transposed 2048x2048 f32", |b| {
        b.iter(|| black_box(at.iter().fold(0.0f32, |s, x| s + x)))
    });
    g.finish();
}

criterion_group!(benches, copies, iteration);
criterion_main!(benches);
