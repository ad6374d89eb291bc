//! Sorting, top-k, `tril` and `randn`, each next to the plain loop a user would write: a
//! `slice::sort_unstable_by` / `select_nth_unstable_by` loop over a contiguous copy of each
//! line, a loop writing the lower triangle into a zeroed buffer, a sequential loop of the same
//! Philox blocks and Box-Muller transform. ndarray has none of these ops. The plain loops
//! return values only; stridex's `sort` and `topk` also return the indices.
//!
//! Bytes: the input read and the output(s) written. The case names start with `ops_sort:`, so
//! `BENCH_FILTER=ops_sort` runs this section alone.

use std::hint::black_box;

use stridex::Tensor;

use crate::harness::Harness;

const SORT_N: usize = 1 << 20;
const TOPK_N: usize = 4096;
const TRIL_N: usize = 4096;

/// Deterministic pseudo-random floats (a 64-bit LCG).
fn noise(n: usize) -> Vec<f32> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect()
}

/// Every case of this section.
pub fn all(h: &mut Harness) {
    let wanted =
        |case: &str| std::env::var("BENCH_FILTER").map_or(true, |f| case.contains(f.as_str()));
    let case = "ops_sort: sort 1M f32, contiguous dim";
    if wanted(case) {
        let data = noise(SORT_N);
        let t = Tensor::from_slice(&data, &[SORT_N]).expect("shape");
        h.case(
            case,
            SORT_N * (4 + 4 + 8),
            &mut || {
                black_box(t.sort(0, false).expect("sort"));
            },
            Some(&mut || {
                let mut v = data.clone();
                v.sort_unstable_by(f32::total_cmp);
                black_box(v);
            }),
            None,
        );
    }
    let case = "ops_sort: sort 1M f32, strided dim (column of [1M, 4])";
    if wanted(case) {
        let data = noise(SORT_N * 4);
        let t = Tensor::from_slice(&data, &[SORT_N, 4]).expect("shape");
        let col = t.select(1, 1).expect("column");
        h.case(
            case,
            SORT_N * (4 + 4 + 8),
            &mut || {
                black_box(col.sort(0, false).expect("sort"));
            },
            Some(&mut || {
                let mut v: Vec<f32> = (0..SORT_N).map(|i| data[4 * i + 1]).collect();
                v.sort_unstable_by(f32::total_cmp);
                black_box(v);
            }),
            None,
        );
    }
    let case = "ops_sort: topk k=10 of each row of [4096, 4096] f32";
    if wanted(case) {
        let data = noise(TOPK_N * TOPK_N);
        let t = Tensor::from_slice(&data, &[TOPK_N, TOPK_N]).expect("shape");
        h.case(
            case,
            TOPK_N * TOPK_N * 4 + TOPK_N * 10 * 12,
            &mut || {
                black_box(t.topk(10, 1, true, true).expect("topk"));
            },
            Some(&mut || {
                let mut out = Vec::with_capacity(TOPK_N * 10);
                let mut row = Vec::with_capacity(TOPK_N);
                for r in data.chunks_exact(TOPK_N) {
                    row.clear();
                    row.extend_from_slice(r);
                    row.select_nth_unstable_by(9, |a, b| b.total_cmp(a));
                    row[..10].sort_unstable_by(|a, b| b.total_cmp(a));
                    out.extend_from_slice(&row[..10]);
                }
                black_box(out);
            }),
            None,
        );
    }
    let case = "ops_sort: tril of [4096, 4096] f32";
    if wanted(case) {
        let data = noise(TRIL_N * TRIL_N);
        let t = Tensor::from_slice(&data, &[TRIL_N, TRIL_N]).expect("shape");
        h.case(
            case,
            2 * TRIL_N * TRIL_N * 4,
            &mut || {
                black_box(t.tril(0).expect("tril"));
            },
            Some(&mut || {
                let mut out = vec![0.0f32; TRIL_N * TRIL_N];
                for i in 0..TRIL_N {
                    let row = i * TRIL_N..i * TRIL_N + i + 1;
                    out[row.clone()].copy_from_slice(&data[row]);
                }
                black_box(out);
            }),
            None,
        );
    }
    #[cfg(feature = "random")]
    randn(h, &wanted);
}

/// `randn` of 16M `f32` against a sequential loop over the same Philox blocks.
#[cfg(feature = "random")]
fn randn(h: &mut Harness, wanted: &dyn Fn(&str) -> bool) {
    use stridex::random::{Generator, philox4x32_10};
    const N: usize = 16 << 20;
    let case = "ops_sort: randn 16M f32";
    if !wanted(case) {
        return;
    }
    let mut g = Generator::new(7);
    h.case(
        case,
        N * 4,
        &mut || {
            black_box(g.randn::<f32>(&[N]).expect("randn"));
        },
        Some(&mut || {
            let unit = |w: u32| (w >> 8) as f32 * (1.0 / (1u32 << 24) as f32);
            let mut out = Vec::with_capacity(N);
            for blk in 0..(N / 4) as u64 {
                let b = philox4x32_10([blk as u32, (blk >> 32) as u32, 0, 0], [7, 0]);
                for p in 0..2 {
                    let r = (-2.0 * (1.0 - unit(b[2 * p])).ln()).sqrt();
                    let (s, c) = (std::f32::consts::TAU * unit(b[2 * p + 1])).sin_cos();
                    out.push(r * c);
                    out.push(r * s);
                }
            }
            black_box(out);
        }),
        None,
    );
}
