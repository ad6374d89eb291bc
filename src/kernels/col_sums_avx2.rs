//! Column sums of one leaf of contiguous `f32` / `f64` rows in AVX2 intrinsics, in the outer
//! reduction kernel's exact order.
//!
//! The outer kernel (`reduce_outer.rs`) folds row `i` of a leaf into accumulator row (lane)
//! `i % 8`, every column on its own, and then adds lane `k + w` into lane `k` for
//! `w = 4, 2, 1`. Written generically, each lane is loaded and stored once per four input
//! rows, through split vectors. Here a lane takes eight of its rows in one pass (rows `k`,
//! `k + 8`, ..., `k + 56` of a block of 64), whole registers at a time: per input vector one
//! load and one addition, and an eighth of a load and a store of the lane, which stays in L1.
//! The input is read row by row, in memory order. The additions are the generic kernel's, in
//! the same order, from the same zero: the results are its bits (the outer kernel's tests
//! compare the two).

use std::arch::x86_64::*;

/// Rows of a block: eight per lane.
const BLOCK: usize = 64;

macro_rules! col_sums {
    ($name:ident, $t:ty, $w:expr, $v:ty, $zero:ident, $load:ident, $store:ident, $add:ident) => {
        /// Sums columns `0..width - width % W` (`W` elements a register) of the rows at
        /// `base + starts[i]`, row `i` into lane `i % 8`, the lanes combined as the outer
        /// kernel combines them, into `out`. `lanes` is scratch of `8 * width` elements.
        ///
        /// # Safety
        /// The CPU has AVX2; the first `width` elements of every row are readable; `out` is
        /// valid for `width` writes; `lanes.len() >= 8 * width`.
        #[target_feature(enable = "avx2,fma")]
        pub(super) unsafe fn $name(
            base: *const $t,
            starts: &[isize],
            width: usize,
            lanes: &mut [$t],
            out: *mut $t,
        ) {
            const W: usize = $w;
            let full = width - width % W;
            let n = starts.len();
            assert!(lanes.len() >= 8 * width);
            let lane = lanes.as_mut_ptr();
            // SAFETY: (the whole body) every read of the input is `base + starts[i] + c + j`
            // with `j < W` and `c + W <= full <= width`, inside a row the caller vouches for;
            // lane `k` is `lane + k * width + c + j`, below `8 * width <= lanes.len()`; every
            // write of `out` is below `full <= width`.
            unsafe {
                let mut c = 0;
                while c < full {
                    for k in 0..8 {
                        $store(lane.add(k * width + c), $zero());
                    }
                    c += W;
                }
                let mut i = 0;
                while n - i >= BLOCK {
                    for k in 0..8 {
                        let p: [*const $t; 8] =
                            std::array::from_fn(|j| base.offset(starts[i + k + 8 * j]));
                        let l = lane.add(k * width);
                        let mut c = 0;
                        while c < full {
                            let mut a = $load(l.add(c));
                            for q in p {
                                a = $add(a, $load(q.add(c)));
                            }
                            $store(l.add(c), a);
                            c += W;
                        }
                    }
                    i += BLOCK;
                }
                while i < n {
                    let (p, l) = (base.offset(starts[i]), lane.add((i % 8) * width));
                    let mut c = 0;
                    while c < full {
                        $store(l.add(c), $add($load(l.add(c)), $load(p.add(c))));
                        c += W;
                    }
                    i += 1;
                }
                let mut c = 0;
                while c < full {
                    let mut l: [$v; 8] = std::array::from_fn(|k| $load(lane.add(k * width + c)));
                    for k in 0..4 {
                        l[k] = $add(l[k], l[k + 4]);
                    }
                    for k in 0..2 {
                        l[k] = $add(l[k], l[k + 2]);
                    }
                    $store(out.add(c), $add(l[0], l[1]));
                    c += W;
                }
            }
        }
    };
}

col_sums!(
    col_sums_f32,
    f32,
    8,
    __m256,
    _mm256_setzero_ps,
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_add_ps
);
col_sums!(
    col_sums_f64,
    f64,
    4,
    __m256d,
    _mm256_setzero_pd,
    _mm256_loadu_pd,
    _mm256_storeu_pd,
    _mm256_add_pd
);
