//! Reversed row runs: the copies of `flip` along the inner dim (`CopyKind::Gather` with a
//! source stride of -1 and a unit-stride destination), when the copy streams.
//!
//! Each destination line is gathered reversed into a line-aligned buffer in the L1 and then
//! written whole with non-temporal stores, and the source is prefetched ahead in the order it
//! is read, into the next run past each run's end, as the forward runs do
//! ([`copy_runs`](super::runs::copy_runs), `CopyTuning::run_prefetch_bytes`).

use super::carry::Line;
use super::cpu::CopyTuning;
use super::hint::{Dir, prefetch_ahead};
use super::runs::with_next;
use super::transpose::{Word, write_line};
use super::walk::for_each_offset2;

/// Whether [`copy_reversed_runs`] takes a gather of `len` words with inner strides `ss`
/// (source) and `ds` (destination) and outer source strides `outer_src`, in a copy that
/// streams.
pub(super) fn takes<W: Word>(ss: isize, ds: isize, len: usize, outer_src: &[isize]) -> bool {
    ss == -1 && ds == 1 && len * std::mem::size_of::<W>() >= 256 && !outer_src.contains(&0)
}

/// Copies every reversed run: for each `(a, b)` of `outer` with strides `strides`,
/// `dst0[b + i] = src0[a - i]` for `i < len`, the whole destination lines with
/// non-temporal stores, the source prefetched `tuning.run_prefetch_bytes` ahead.
///
/// # Safety
/// For every visited `(a, b)`: `src0[a - len + 1 ..= a]` readable, `dst0[b .. b + len]`
/// writable, not overlapping.
pub(super) unsafe fn copy_reversed_runs<W: Word>(
    src0: *const W,
    dst0: *mut W,
    (outer, strides, len): (&[usize], (&[isize], &[isize]), usize),
    tuning: &CopyTuning,
) {
    let ahead = tuning.run_prefetch_bytes;
    // SAFETY: `(a, b)` is a visited run (caller's contract); `next` is only prefetched.
    let copy = |(a, b): (isize, isize), next: *const W| unsafe {
        copy_reversed(src0.offset(a), dst0.offset(b), len, (next, ahead))
    };
    with_next(
        |f| for_each_offset2(outer, strides.0, strides.1, f),
        |run, next| {
            copy(
                run,
                next.map_or(std::ptr::null(), |a| src0.wrapping_offset(a)),
            )
        },
    );
}

/// `dst[i] = src[-i]` for `i < len`: whole 64-byte lines of `dst` through a line buffer and
/// [`write_line`] (streamed), the ragged ends word by word. Prefetches the source `ahead`
/// bytes ahead of the word it reads (downwards), on into the run that ends at `next` (read
/// downwards from `next` too); 0 prefetches nothing.
///
/// # Safety
/// `src[-(len - 1) ..= 0]` readable, `dst[..len]` writable, not overlapping; `dst` aligned
/// for `W`. `next` may be any address: it is only prefetched.
unsafe fn copy_reversed<W: Word>(
    src: *const W,
    dst: *mut W,
    len: usize,
    (next, ahead): (*const W, usize),
) {
    let size = std::mem::size_of::<W>();
    let per_line = 64 / size;
    let head = ((64 - dst as usize % 64) % 64 / size).min(len);
    let lines = (len - head) / per_line;
    let run = len * size;
    let runs = (src.cast::<u8>(), next.cast::<u8>());
    let hint = |at: usize| prefetch_ahead((at, ahead, run), runs, Dir::Down);
    let mut line = Line([0; 64]);
    let buf = line.0.as_mut_ptr().cast::<W>();
    // SAFETY: every index read is `src[-i]` and every index written `dst[i]` for some
    // `i < len` (head + lines * per_line <= len), as the contract allows; `buf` holds
    // `per_line` words, aligned for any word (64-byte aligned).
    unsafe {
        for i in 0..head {
            dst.add(i).write(src.sub(i).read());
        }
        for k in 0..lines {
            let first = head + k * per_line;
            hint(first * size);
            let from = src.sub(first);
            for j in 0..per_line {
                buf.add(j).write(from.sub(j).read());
            }
            write_line(buf.cast_const(), dst.add(first), per_line, true);
        }
        for i in head + lines * per_line..len {
            dst.add(i).write(src.sub(i).read());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reversed runs of every word size, lengths around the line and the prefetch distance,
    /// destinations off a line boundary, a reversed outer dim: the same as a plain loop.
    #[test]
    fn reversed_runs_match_a_plain_reversal() {
        fn check<W: Word + PartialEq + std::fmt::Debug>(from: fn(usize) -> W) {
            // Under Miri (no streaming stores: the same buffered lines) fewer lengths.
            let lens: &[usize] = if cfg!(miri) {
                &[1, 65]
            } else {
                &[1, 63, 64, 65, 300]
            };
            for &len in lens {
                for (rows, sa) in [(1usize, 1isize), (3, 1), (4, -1)] {
                    let row = (len + 5) as isize;
                    let src: Vec<W> = (0..(rows + 1) * (len + 5)).map(from).collect();
                    // Row starts (the highest word of each reversed run).
                    let a0 = if sa < 0 {
                        row * rows as isize - 1
                    } else {
                        len as isize - 1
                    };
                    let src_strides = [sa * row];
                    for skew in [0usize, 1, 3] {
                        for ahead in [0usize, 64, 1 << 20] {
                            let tuning = CopyTuning {
                                run_prefetch_bytes: ahead,
                                ..CopyTuning::get().clone()
                            };
                            let mut dst = vec![from(0); rows * len + skew];
                            let dst_strides = [len as isize];
                            // SAFETY: every run's words lie in `src` (`a0 + r * sa * row -
                            // i` stays in 0..src.len()) and in `dst[skew..]`, separate
                            // vectors.
                            unsafe {
                                copy_reversed_runs(
                                    src.as_ptr().offset(a0),
                                    dst.as_mut_ptr().add(skew),
                                    (&[rows], (&src_strides, &dst_strides), len),
                                    &tuning,
                                );
                            }
                            super::super::transpose::store_fence();
                            for r in 0..rows {
                                for i in 0..len {
                                    let s = a0 + r as isize * sa * row - i as isize;
                                    assert_eq!(
                                        dst[skew + r * len + i],
                                        src[s as usize],
                                        "len {len} rows {rows} skew {skew} ahead {ahead}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
        check::<u8>(|i| (i % 251) as u8);
        check::<u16>(|i| i as u16);
        check::<u32>(|i| i as u32 + 1);
        check::<u64>(|i| (i as u64) << 33 | 5);
    }

    #[test]
    fn takes_only_streamable_reversed_runs() {
        assert!(takes::<u32>(-1, 1, 64, &[4096]));
        assert!(!takes::<u32>(-1, 1, 63, &[4096]));
        assert!(!takes::<u32>(1, 1, 64, &[4096]));
        assert!(!takes::<u32>(-1, 2, 64, &[4096]));
        assert!(!takes::<u32>(-1, 1, 64, &[0]));
    }
}
