//! Concurrency stress: many threads make copies, elementwise ops, reductions and matrix
//! products of tensors they share, and drop the results, while another thread keeps resizing
//! the large-buffer cache (so freed buffers are cached, reused and evicted under contention).
//! Every result must equal the one a serial run computed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use stridex::Tensor;
use stridex::storage::{buffer_cache_bytes, set_buffer_cache_limit};

/// The shared inputs: large enough (2.4 MB) that their copies and results use the
/// large-buffer (>= 2 MiB) path and its cache.
struct Inputs {
    a: Tensor<f32>,
    b: Tensor<f32>,
    w: Tensor<f32>,
}

fn inputs() -> Inputs {
    let (r, c) = (1024, 600);
    let a = Tensor::from_vec((0..r * c).map(|i| (i % 97) as f32).collect(), &[r, c]).unwrap();
    let b = Tensor::from_vec((0..r * c).map(|i| (i % 13) as f32 - 6.0).collect(), &[c, r]).unwrap();
    let w = Tensor::from_vec(
        (0..c * 32).map(|i| (i % 7) as f32 * 0.5).collect(),
        &[c, 32],
    )
    .unwrap();
    Inputs { a, b, w }
}

/// Task `k` on the shared inputs, as the values of its result.
fn task(x: &Inputs, k: usize) -> Vec<f32> {
    match k {
        0 => x.a.t().unwrap().contiguous().to_vec(),
        1 => (&x.a + &x.b.t().unwrap()).unwrap().to_vec(),
        2 => x.a.narrow(0, 0, 96).unwrap().matmul(&x.w).unwrap().to_vec(),
        3 => x.a.sum_dim(0, false).unwrap().to_vec(),
        4 => x.b.flip(1).unwrap().mul(&x.b).unwrap().to_vec(),
        5 => x.a.t().unwrap().reshape(&[600 * 1024]).unwrap().to_vec(),
        _ => x.b.softmax(1).unwrap().to_vec(),
    }
}

const TASKS: usize = 7;

#[test]
fn shared_tensors_under_many_threads_match_a_serial_run() {
    let x = Arc::new(inputs());
    let serial: Vec<Vec<f32>> = (0..TASKS).map(|k| task(&x, k)).collect();
    let serial = Arc::new(serial);
    let stop = Arc::new(AtomicBool::new(false));

    // Resizes the cache (0 frees everything; small limits evict; large ones keep buffers).
    let churn = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let limits = [0usize, 3 << 20, 8 << 20, 64 << 20];
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                set_buffer_cache_limit(limits[i % limits.len()]);
                assert!(buffer_cache_bytes() <= 64 << 20);
                i += 1;
                std::thread::yield_now();
            }
            i
        })
    };
    let workers: Vec<_> = (0..8)
        .map(|t| {
            let (x, serial) = (x.clone(), serial.clone());
            std::thread::spawn(move || {
                for round in 0..6 {
                    for j in 0..TASKS {
                        let k = (j + t + round) % TASKS;
                        let got = task(&x, k);
                        assert!(
                            got == serial[k],
                            "thread {t} round {round} task {k} differs"
                        );
                        // Views and clones made and dropped on this thread, too.
                        let v = x.a.clone().narrow(1, t, 8).unwrap();
                        assert_eq!(v.shape(), &[1024, 8]);
                    }
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("a worker panicked");
    }
    stop.store(true, Ordering::Relaxed);
    let resizes = churn.join().expect("the cache thread panicked");
    assert!(resizes > 0);
    set_buffer_cache_limit(256 << 20);
    // The shared inputs were never changed by anyone.
    let again = inputs();
    assert!(x.a.to_vec() == again.a.to_vec() && x.b.to_vec() == again.b.to_vec());
}
