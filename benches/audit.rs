//! The copy audit costs nothing measurable when no scope records: a tiny copy (where any
//! per-copy overhead would show most) outside any scope, inside `record`, and inside
//! `forbid_implicit_copies`. `cargo bench --bench audit`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use stridex::{Tensor, audit};

fn audit_overhead(c: &mut Criterion) {
    let t = Tensor::from_vec((0..64).map(|i| i as f32).collect(), &[8, 8])
        .unwrap()
        .t()
        .unwrap();
    let mut g = c.benchmark_group("audit overhead, 8x8 f32 transpose copy");
    g.bench_function("no scope (audit idle)", |b| {
        b.iter(|| black_box(t.contiguous()))
    });
    g.bench_function("inside forbid_implicit_copies", |b| {
        audit::forbid_implicit_copies(|| b.iter(|| black_box(t.contiguous())))
    });
    g.bench_function("inside record (event stored)", |b| {
        b.iter(|| black_box(audit::record(|| t.contiguous())))
    });
    g.finish();
}

criterion_group!(benches, audit_overhead);
criterion_main!(benches);
