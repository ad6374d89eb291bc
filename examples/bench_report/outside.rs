//! Calls from outside the pool: the same ops called from `main` with rayon's global pool (one
//! thread per core), where a parallel op must wake a sleeping worker and sleep until it is
//! done, against the same calls inside a one-thread pool. The thread thresholds for such
//! callers (`kernels::parallel::PAR_MIN_ELEMS_OUTSIDE`, the matmul one) are set so that the
//! second column is never much slower than the first.

use std::hint::black_box;

use stridex::Tensor;

use crate::small::ns_per_call;

/// The table, or `None` when `BENCH_FILTER` is set and is not `outside`.
pub fn table() -> Option<String> {
    if std::env::var("BENCH_FILTER").is_ok_and(|f| f != "outside") {
        return None;
    }
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let mut out = format!(
        "| op | n x n f32 | one thread ns | from main, global pool ({} threads) ns | ratio |\n\
         |---|---:|---:|---:|---:|\n",
        rayon::current_num_threads()
    );
    let mut row = |op: &str, n: usize, f: &mut (dyn FnMut() + Send)| {
        let serial = one.install(|| ns_per_call(&mut [&mut *f]))[0];
        let global = ns_per_call(&mut [&mut *f])[0];
        out += &format!(
            "| {op} | {n} | {serial:.0} | {global:.0} | {:.2}x |\n",
            global / serial
        );
    };
    for n in [256usize, 512, 1024] {
        let data: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
        let a = Tensor::from_slice(&data, &[n, n]).expect("shape");
        row("&a + &a", n, &mut || {
            let a = black_box(&a);
            black_box((a + a).ok());
        });
        row("sum_dim(1)", n, &mut || {
            black_box(black_box(&a).sum_dim(1, false).ok());
        });
    }
    for n in [64usize, 128, 192] {
        let data: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
        let a = Tensor::from_slice(&data, &[n, n]).expect("shape");
        row("a.matmul(&a)", n, &mut || {
            let a = black_box(&a);
            black_box(a.matmul(a).ok());
        });
    }
    Some(out)
}
