//! Sums of short contiguous `f32` / `f64` rows in AVX2 intrinsics, in the inner reduction
//! kernel's exact order.
//!
//! The inner kernel ([`super::reduce`]) folds a row of at most one leaf into eight lanes
//! (element `j` into lane `j % 8`) and then adds lane `k + w` into lane `k` for `w = 4, 2, 1`.
//! Written generically, four rows side by side compile to split vectors reloaded through the
//! stack, about three times the adds' cost at 64 x 64. Here each row's eight lanes are whole
//! registers (one `__m256` of `f32`, two `__m256d` of `f64`), four rows at a time, with the
//! same IEEE additions in the same order: the results are the generic kernel's bit for bit
//! (`reduce_small`'s tests compare the two).

use std::arch::x86_64::*;

/// Calls `emit(i, sum)` for each of `rows` contiguous rows of `len` `f32` from `input`, row
/// `i` at `input + i * len`, with the row's sum in the inner kernel's lane order.
///
/// # Safety
/// The CPU has AVX2 and FMA; the `rows * len` elements from `input` are readable.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn row_sums_f32(
    input: *const f32,
    len: usize,
    rows: usize,
    mut emit: impl FnMut(usize, f32),
) {
    let full = len - len % 8;
    // Loads lanes `0..len - full` of the row's last, partial chunk and zeroes the others. A
    // lane's sum starts at +0.0 and so is never -0.0: adding a zero leaves it as it is.
    let tail = _mm256_cmpgt_epi32(
        _mm256_set1_epi32((len - full) as i32),
        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
    );
    // The row's lanes plus its partial chunk, combined pairwise: lane `k + w` into lane `k`
    // for w = 4, 2, 1.
    let finish = |acc: __m256, row: *const f32| -> f32 {
        // SAFETY: `row + full` is at most one past the row's end (`full <= len`); the mask
        // selects elements `full..len` of the row, and masked-out lanes are not read (nor can
        // they fault).
        let acc = _mm256_add_ps(acc, unsafe { _mm256_maskload_ps(row.add(full), tail) });
        let s4 = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps::<1>(acc));
        let s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
        _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps::<1>(s2, s2)))
    };
    // SAFETY: (the whole body) every pointer read is `row(i) + j` with `i < rows` and `j + 8 <=
    // full <= len`, inside the rows the caller vouches for.
    unsafe {
        let row = |i: usize| input.add(i * len);
        let mut i = 0;
        while rows - i >= 4 {
            let r = [row(i), row(i + 1), row(i + 2), row(i + 3)];
            let mut acc = [_mm256_setzero_ps(); 4];
            let mut j = 0;
            while j < full {
                for m in 0..4 {
                    acc[m] = _mm256_add_ps(acc[m], _mm256_loadu_ps(r[m].add(j)));
                }
                j += 8;
            }
            for m in 0..4 {
                emit(i + m, finish(acc[m], r[m]));
            }
            i += 4;
        }
        while i < rows {
            let r = row(i);
            let mut acc = _mm256_setzero_ps();
            let mut j = 0;
            while j < full {
                acc = _mm256_add_ps(acc, _mm256_loadu_ps(r.add(j)));
                j += 8;
            }
            emit(i, finish(acc, r));
            i += 1;
        }
    }
}

/// [`row_sums_f32`] for `f64`: each row's eight lanes are two registers, lanes `0..4` and
/// `4..8`.
///
/// # Safety
/// As [`row_sums_f32`].
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn row_sums_f64(
    input: *const f64,
    len: usize,
    rows: usize,
    mut emit: impl FnMut(usize, f64),
) {
    let full = len - len % 8;
    let part = (len - full) as i64;
    let (tail_lo, tail_hi) = (
        _mm256_cmpgt_epi64(_mm256_set1_epi64x(part), _mm256_setr_epi64x(0, 1, 2, 3)),
        _mm256_cmpgt_epi64(_mm256_set1_epi64x(part), _mm256_setr_epi64x(4, 5, 6, 7)),
    );
    let finish = |lo: __m256d, hi: __m256d, row: *const f64| -> f64 {
        // `row + full + 4` may lie past the row's end (and the allocation's) when fewer than
        // five elements are left, so it is formed with `wrapping_add`; its mask is then all
        // zero, and a masked load reads nothing where its mask is zero.
        // SAFETY: as in `row_sums_f32`: the masks select elements `full..len`, and only those
        // are read.
        let (lo, hi) = unsafe {
            (
                _mm256_add_pd(lo, _mm256_maskload_pd(row.add(full), tail_lo)),
                _mm256_add_pd(hi, _mm256_maskload_pd(row.wrapping_add(full + 4), tail_hi)),
            )
        };
        let s4 = _mm256_add_pd(lo, hi);
        let s2 = _mm_add_pd(_mm256_castpd256_pd128(s4), _mm256_extractf128_pd::<1>(s4));
        _mm_cvtsd_f64(_mm_add_sd(s2, _mm_unpackhi_pd(s2, s2)))
    };
    // SAFETY: (the whole body) as in `row_sums_f32`, reads end at `j + 8 <= full <= len`.
    unsafe {
        let row = |i: usize| input.add(i * len);
        let mut i = 0;
        while rows - i >= 4 {
            let r = [row(i), row(i + 1), row(i + 2), row(i + 3)];
            let mut lo = [_mm256_setzero_pd(); 4];
            let mut hi = [_mm256_setzero_pd(); 4];
            let mut j = 0;
            while j < full {
                for m in 0..4 {
                    lo[m] = _mm256_add_pd(lo[m], _mm256_loadu_pd(r[m].add(j)));
                    hi[m] = _mm256_add_pd(hi[m], _mm256_loadu_pd(r[m].add(j + 4)));
                }
                j += 8;
            }
            for m in 0..4 {
                emit(i + m, finish(lo[m], hi[m], r[m]));
            }
            i += 4;
        }
        while i < rows {
            let r = row(i);
            let (mut lo, mut hi) = (_mm256_setzero_pd(), _mm256_setzero_pd());
            let mut j = 0;
            while j < full {
                lo = _mm256_add_pd(lo, _mm256_loadu_pd(r.add(j)));
                hi = _mm256_add_pd(hi, _mm256_loadu_pd(r.add(j + 4)));
                j += 8;
            }
            emit(i, finish(lo, hi, r));
            i += 1;
        }
    }
}
