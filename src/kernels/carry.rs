//! Streamed runs whose ends fall inside a destination line: the partial line is carried to
//! the next run instead of being stored plainly.
//!
//! A streamed copy writes whole 64-byte destination lines with non-temporal stores and the
//! ragged ends of each run with plain ones. A plain store to a line not in cache first reads
//! it (read-for-ownership), and on an in-order store buffer every store behind it waits for
//! that read: with runs that are not a whole number of lines, or a destination that does not
//! start on a line (a user's `Vec`, 16 bytes past a line), every run pays a DRAM latency.
//! `permute([1, 0, 2])` of 256 x 512 x 128 `f32` into a buffer 16 bytes off a line took 11-12
//! ms against 5-6 ms into an aligned one (2-core Intel Xeon VM, 1 thread).
//!
//! Consecutive runs of a copy are mostly consecutive in the destination too, so
//! [`LineCarry`] keeps the tail of a run (the start of a line) in an aligned buffer, fills
//! the rest of the line from the next run when that run continues right there, and writes
//! the completed line with non-temporal stores. A run that starts elsewhere first stores the
//! carried bytes plainly, as does [`LineCarry::finish`]. No byte outside the runs is written.
//!
//! Those plain stores remain where the destination jumps (the blocks of a blocked runs copy,
//! a page of runs each): [`RaggedEnds`] prefetches their lines for writing when the runs are
//! visited, the runs' prefetch distance before they are copied. 16 bytes off a line, the
//! `permute([1, 0, 2])` above took 8.1-9.0 ms carried and 6.3-6.9 ms with the prefetch too,
//! against 5.8-6.3 ms aligned (same VM).

use super::hint::{Dir, prefetch_ahead, prefetch_write};
use super::transpose::write_line;

/// A cache line of scratch, aligned as a line is: a destination line under assembly (here
/// and in `reversed`).
#[derive(Clone)]
#[repr(C, align(64))]
pub(super) struct Line(pub(super) [u8; 64]);

/// The line a streamed copy of runs has begun but not finished (see the [module docs](self)).
pub(super) struct LineCarry {
    buf: Line,
    /// The destination line `buf` stands for (its first byte), or null when none is carried.
    line: *mut u8,
    /// `buf[..fill]` holds the first `fill` bytes of `line`.
    fill: usize,
}

impl LineCarry {
    /// No line carried.
    pub(super) fn new() -> Self {
        Self {
            buf: Line([0; 64]),
            line: std::ptr::null_mut(),
            fill: 0,
        }
    }

    /// Copies the run of `n` bytes at `src` to `dst`: whole destination lines non-temporally,
    /// a line the previous run began completed from this run's first bytes, this run's last
    /// partial line carried. The source is prefetched `ahead` bytes ahead of the line being
    /// copied, on into `next` (the next run, `n` bytes there too) past the end; 0: no prefetch.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `n` bytes, not overlapping each other or the
    /// carried line's bytes, and the carried line's bytes still writable (the destination of
    /// one copy). `next` may be any address: it is only prefetched.
    pub(super) unsafe fn put(
        &mut self,
        src: *const u8,
        dst: *mut u8,
        n: usize,
        (next, ahead): (*const u8, usize),
    ) {
        let (mut s, mut d, mut left) = (src, dst, n);
        if !self.line.is_null() {
            if d == self.line.wrapping_add(self.fill) {
                let k = left.min(64 - self.fill);
                // SAFETY: `k` bytes of the run at `s` (contract) into `buf[fill..fill + k]`.
                unsafe {
                    std::ptr::copy_nonoverlapping(s, self.buf.0.as_mut_ptr().add(self.fill), k);
                    (s, d) = (s.add(k), d.add(k));
                }
                (self.fill, left) = (self.fill + k, left - k);
                if self.fill < 64 {
                    return;
                }
                // SAFETY: the carried line is 64 writable destination bytes (its first `fill`
                // from earlier runs, the rest from this one), 64-byte aligned.
                unsafe { write_line::<u8>(self.buf.0.as_ptr(), self.line, 64, true) };
                self.line = std::ptr::null_mut();
            } else {
                // SAFETY: the carried bytes are writable (contract).
                unsafe { self.flush() };
            }
        }
        let head = ((64 - d as usize % 64) % 64).min(left);
        let lines = (left - head) / 64;
        let tail = left - head - lines * 64;
        let runs = (src, next);
        // SAFETY: head + 64 * lines + tail = left bytes remain of the run at `s` and `d`.
        unsafe {
            std::ptr::copy_nonoverlapping(s, d, head);
            (s, d) = (s.add(head), d.add(head));
            let at = n - left + head;
            for k in 0..lines {
                prefetch_ahead((at + 64 * k, ahead, n), runs, Dir::Up);
                write_line::<u8>(s.add(64 * k), d.add(64 * k), 64, true);
            }
            (s, d) = (s.add(64 * lines), d.add(64 * lines));
            if tail > 0 {
                std::ptr::copy_nonoverlapping(s, self.buf.0.as_mut_ptr(), tail);
                (self.line, self.fill) = (d, tail);
            }
        }
    }

    /// Stores the carried bytes plainly (a run went elsewhere, or the copy ends).
    ///
    /// # Safety
    /// The carried line's first `fill` bytes writable.
    unsafe fn flush(&mut self) {
        if !self.line.is_null() {
            // SAFETY: the caller vouches for the `fill` bytes at `line`.
            unsafe { std::ptr::copy_nonoverlapping(self.buf.0.as_ptr(), self.line, self.fill) };
            self.line = std::ptr::null_mut();
        }
    }

    /// Ends the copy: stores what is carried.
    ///
    /// # Safety
    /// As [`LineCarry::put`]'s: the carried bytes still writable.
    pub(super) unsafe fn finish(mut self) {
        // SAFETY: as the contract says.
        unsafe { self.flush() }
    }
}

/// Tracks where the destination of the last visited run ended, to prefetch for writing the
/// partial lines [`LineCarry`] will store plainly (see the [module docs](self)).
pub(super) struct RaggedEnds {
    /// One past the last visited run's last destination byte (null before the first).
    end: *const u8,
}

impl RaggedEnds {
    /// No run visited yet.
    pub(super) fn new() -> Self {
        Self {
            end: std::ptr::null(),
        }
    }

    /// A run of `n` bytes to `dst` is next in the copy: where it does not continue the last
    /// one, the last one's final partial line and this one's first are prefetched for writing.
    /// Addresses are only prefetched, never read, so any pointer is allowed.
    pub(super) fn visit(&mut self, dst: *const u8, n: usize) {
        if dst != self.end {
            if !self.end.is_null() && self.end as usize % 64 != 0 {
                prefetch_write(self.end.wrapping_sub(1));
            }
            if dst as usize % 64 != 0 {
                prefetch_write(dst);
            }
        }
        self.end = dst.wrapping_add(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs laid out back to back, with gaps, shorter and longer than a line, starting on and
    /// off line boundaries, copy exactly their bytes and nothing between them.
    #[test]
    fn carried_runs_write_exactly_their_bytes() {
        let lens: &[usize] = if cfg!(miri) {
            &[1, 48, 64, 100]
        } else {
            &[1, 7, 48, 63, 64, 65, 100, 130, 512]
        };
        for &len in lens {
            for gap in [0usize, 16, 64] {
                for off in [0usize, 16, 33] {
                    let runs = 7;
                    let src: Vec<u8> = (0..runs * len).map(|i| (i % 251) as u8 + 1).collect();
                    // An aligned destination, starting `off` bytes past a line.
                    let total = off + runs * (len + gap) + 64;
                    let mut store = vec![Line([0; 64]); total.div_ceil(64)];
                    let base = store.as_mut_ptr().cast::<u8>();
                    let mut carry = LineCarry::new();
                    for r in 0..runs {
                        let at = off + r * (len + gap);
                        // SAFETY: run `r` is `len` bytes of `src` and of `store` (`total`
                        // bytes, past the last run's end); runs do not overlap.
                        unsafe {
                            carry.put(src.as_ptr().add(r * len), base.add(at), len, (base, 64))
                        };
                    }
                    // SAFETY: every carried byte is inside `store`.
                    unsafe { carry.finish() };
                    super::super::transpose::store_fence();
                    // SAFETY: `store` holds `total.div_ceil(64) * 64` initialised bytes.
                    let got = unsafe { std::slice::from_raw_parts(base, total) };
                    let mut want = vec![0u8; total];
                    for r in 0..runs {
                        let at = off + r * (len + gap);
                        want[at..at + len].copy_from_slice(&src[r * len..(r + 1) * len]);
                    }
                    assert_eq!(got, &want[..], "len {len} gap {gap} off {off}");
                }
            }
        }
    }
}
