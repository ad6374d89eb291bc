//! Indexing cases: `index_select` of random rows (fresh outputs), next to ndarray's `select`.
//!
//! Bytes: the selected rows read, the result written, and the indices read.

use std::hint::black_box;

use ndarray::{Array2, Axis};
use stridex::Tensor;

use crate::harness::Harness;

const ROWS: usize = 65536;
const COLS: usize = 256;
const PICK: usize = 1024;
const CASE: &str = "index_select 1024 random rows of [65536, 256] f32, dim 0";

/// Every indexing case of the report.
pub fn all(h: &mut Harness) {
    // Only build the 64 MiB source when some case here will run.
    if std::env::var("BENCH_FILTER").is_ok_and(|f| !CASE.contains(f.as_str())) {
        return;
    }
    let data: Vec<f32> = (0..ROWS * COLS).map(|i| (i % 1021) as f32).collect();
    let t = Tensor::from_slice(&data, &[ROWS, COLS]).expect("valid shape");
    let a = Array2::from_shape_vec((ROWS, COLS), data).expect("valid shape");
    // Deterministic pseudo-random rows (a 64-bit LCG), repeats allowed.
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let picks: Vec<usize> = (0..PICK)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) as usize % ROWS
        })
        .collect();
    let idx = Tensor::from_vec(picks.iter().map(|&i| i as i64).collect::<Vec<_>>(), &[PICK])
        .expect("valid shape");
    let row_bytes = COLS * 4;
    h.case(
        CASE,
        2 * PICK * row_bytes + PICK * 8,
        &mut || {
            black_box(t.index_select(0, &idx).expect("valid indices"));
        },
        None,
        Some(&mut || {
            black_box(a.select(Axis(0), &picks));
        }),
    );
}
