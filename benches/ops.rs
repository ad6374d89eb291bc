//! The ops of a model on 4096x4096 f32: `softmax` along each dim and of a transposed view,
//! `var_dim`, `cumsum`, and `index_select` of 1024 random rows of [65536, 256] f32, each
//! beside the REF memcpy. `cargo bench --bench ops`. The bench report example
//! (`cargo run --release --example bench_report`) prints the same cases as ratios to REF
//! measured in one run, with ndarray's best expression beside them.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use stridex::Tensor;

const N: usize = 4096;
const MAT: u64 = (N * N * 4) as u64;

fn reductions(c: &mut Criterion) {
    let data: Vec<f32> = (0..N * N)
        .map(|i| ((i * 7 + 3) % 1000) as f32 * 0.01 - 5.0)
        .collect();
    let a = Tensor::from_vec(data, &[N, N]).unwrap();
    let at = a.t().unwrap();

    let mut g = c.benchmark_group("ops 4096x4096 f32");
    g.sample_size(10);
    {
        let src = vec![1u8; 64 << 20];
        let mut dst = vec![0u8; 64 << 20];
        g.throughput(Throughput::Bytes(2 * (64 << 20)));
        g.bench_function("REF memcpy 64 MiB", |b| {
            b.iter(|| dst.copy_from_slice(black_box(&src)))
        });
    }
    // Two reads of the input and one write of the output.
    g.throughput(Throughput::Bytes(3 * MAT));
    g.bench_function("softmax(1)", |b| b.iter(|| a.softmax(1).unwrap()));
    g.bench_function("softmax(0)", |b| b.iter(|| a.softmax(0).unwrap()));
    g.bench_function("a.t().softmax(1)", |b| b.iter(|| at.softmax(1).unwrap()));
    g.throughput(Throughput::Bytes(2 * MAT));
    g.bench_function("cumsum(1)", |b| b.iter(|| a.cumsum(1).unwrap()));
    g.bench_function("cumsum(0)", |b| b.iter(|| a.cumsum(0).unwrap()));
    g.throughput(Throughput::Bytes(MAT));
    g.bench_function("var_dim(1)", |b| b.iter(|| a.var_dim(1, false, 1).unwrap()));
    g.bench_function("var_dim(0)", |b| b.iter(|| a.var_dim(0, false, 1).unwrap()));
    g.finish();
}

fn gathers(c: &mut Criterion) {
    const ROWS: usize = 65536;
    const COLS: usize = 256;
    const PICK: usize = 1024;
    let data: Vec<f32> = (0..ROWS * COLS).map(|i| (i % 1021) as f32).collect();
    let t = Tensor::from_vec(data, &[ROWS, COLS]).unwrap();
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let picks: Vec<i64> = (0..PICK)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) as usize % ROWS) as i64
        })
        .collect();
    let idx = Tensor::from_vec(picks, &[PICK]).unwrap();
    let mut g = c.benchmark_group("index_select [65536, 256] f32");
    // The rows read and the result written.
    g.throughput(Throughput::Bytes(2 * (PICK * COLS * 4) as u64));
    g.bench_function("index_select(0, 1024 random rows)", |b| {
        b.iter(|| t.index_select(0, black_box(&idx)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, reductions, gathers);
criterion_main!(benches);
