//! In-register transposes of small square blocks: the micro-kernels of the tiled copy.
//!
//! A block is `MK x MK` words: `MK` source rows of `MK` contiguous words, `src_stride` words
//! apart, become `MK` destination rows of `MK` contiguous words, `dst_stride` words apart, with
//! `dst[r][c] = src[c][r]`. Elements move as plain integers of their size (the copy kernel's
//! word types), so f16 and bf16 share the `u16` kernel, f32 the `u32` one, f64 the `u64` one.
//!
//! Every block is 32 bytes a row: 32 x 32 bytes, 16 x 16 two-byte words, 8 x 8 four-byte
//! words, 4 x 4 eight-byte words. On x86_64 they use AVX2 when the CPU has it (detected once
//! per copy); without it, the 1- and 2-byte blocks are four SSE2 blocks of half the side (SSE2
//! is always present there) and the others a portable scalar loop, which runs everywhere else.
//! With `stream`, destination rows are written with non-temporal stores where the address
//! allows, for copies whose source and destination together exceed the last-level cache.

/// A word type the copy kernel moves, with its block transpose.
pub(crate) trait Word: Copy + Send + Sync + 'static {
    /// Side of the square block [`Word::block_fn`] transposes.
    const MK: usize;

    /// The block transpose to use on this machine.
    fn block_fn(stream: bool) -> BlockFn<Self>;
}

/// Transposes one `MK x MK` block: `(src, src_stride, dst, dst_stride)`.
///
/// # Safety
/// For `k < MK`: the `MK` words at `src + k * src_stride` are readable, the `MK` words at
/// `dst + k * dst_stride` writable, and the two regions do not overlap.
pub(crate) type BlockFn<W> = unsafe fn(*const W, isize, *mut W, isize);

/// The portable block transpose.
///
/// # Safety
/// As [`BlockFn`].
unsafe fn block_scalar<W: Word>(src: *const W, ss: isize, dst: *mut W, ds: isize) {
    for r in 0..W::MK as isize {
        for c in 0..W::MK as isize {
            // SAFETY: r, c < MK: inside the block the caller vouches for.
            unsafe { dst.offset(r * ds + c).write(src.offset(c * ss + r).read()) }
        }
    }
}

impl Word for u8 {
    const MK: usize = 32;
    fn block_fn(stream: bool) -> BlockFn<u8> {
        // Under Miri the portable scalar blocks run: the interpreter checks plain loads and
        // stores, not the SIMD shuffles and non-temporal stores.
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        return match (std::arch::is_x86_feature_detected!("avx2"), stream) {
            (true, true) => x86::block_u8_avx2::<true>,
            (true, false) => x86::block_u8_avx2::<false>,
            (false, true) => x86::quad_u8_sse2::<true>,
            (false, false) => x86::quad_u8_sse2::<false>,
        };
        #[allow(unreachable_code)]
        {
            let _ = stream;
            block_scalar::<u8>
        }
    }
}

impl Word for u16 {
    const MK: usize = 16;
    fn block_fn(stream: bool) -> BlockFn<u16> {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        return match (std::arch::is_x86_feature_detected!("avx2"), stream) {
            (true, true) => x86::block_u16_avx2::<true>,
            (true, false) => x86::block_u16_avx2::<false>,
            (false, true) => x86::quad_u16_sse2::<true>,
            (false, false) => x86::quad_u16_sse2::<false>,
        };
        #[allow(unreachable_code)]
        {
            let _ = stream;
            block_scalar::<u16>
        }
    }
}

impl Word for u32 {
    const MK: usize = 8;
    fn block_fn(stream: bool) -> BlockFn<u32> {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if std::arch::is_x86_feature_detected!("avx2") {
            return if stream {
                x86::block_u32_avx2::<true>
            } else {
                x86::block_u32_avx2::<false>
            };
        }
        let _ = stream;
        block_scalar::<u32>
    }
}

impl Word for u64 {
    const MK: usize = 4;
    fn block_fn(stream: bool) -> BlockFn<u64> {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if std::arch::is_x86_feature_detected!("avx2") {
            return if stream {
                x86::block_u64_avx2::<true>
            } else {
                x86::block_u64_avx2::<false>
            };
        }
        let _ = stream;
        block_scalar::<u64>
    }
}

/// Writes the `words` words at `src` to `dst` (a cache line's worth in the packed transpose),
/// with non-temporal stores when `stream` and `dst` is 16-byte aligned and the run is one
/// 64-byte line.
///
/// # Safety
/// `src` readable and `dst` writable for `words` words, not overlapping.
#[inline]
pub(crate) unsafe fn write_line<W: Word>(src: *const W, dst: *mut W, words: usize, stream: bool) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if stream && words * std::mem::size_of::<W>() == 64 && (dst as usize) % 64 == 0 {
        // SAFETY: the 64 bytes at `src` are readable and at `dst` writable (contract), and
        // `dst` is 16-byte aligned as `_mm_stream_si128` requires; SSE2 is baseline on x86_64.
        unsafe {
            use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
            let (s, d) = (src.cast::<__m128i>(), dst.cast::<__m128i>());
            for k in 0..4 {
                _mm_stream_si128(d.add(k), _mm_loadu_si128(s.add(k)));
            }
        }
        return;
    }
    let _ = stream;
    // SAFETY: as the contract says.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, words) }
}

/// Copies the run of `len` words at `src` to `dst`, the whole 64-byte lines of `dst` with
/// non-temporal stores when `stream` (the copy exceeds the last-level cache: a plain
/// `memcpy` of a short run would first read every destination line it writes), the ragged
/// ends and everything else with a plain copy.
///
/// A streamed run also prefetches its source `ahead` bytes ahead of the line it copies,
/// running on into `next` (the next run's source, `len` words there too) past its end; 0
/// prefetches nothing (see `run_prefetch_bytes` in [Note [copy parameters]](super::cpu::CopyTuning)).
///
/// # Safety
/// `src` readable and `dst` writable for `len` words, not overlapping. `next` may be any
/// address: it is only prefetched, never read.
#[inline]
pub(crate) unsafe fn copy_run<W: Word>(
    src: *const W,
    dst: *mut W,
    len: usize,
    stream: bool,
    (next, ahead): (*const W, usize),
) {
    let size = std::mem::size_of::<W>();
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if stream && len * size >= 256 && (dst as usize) % size == 0 {
        // Words up to the first line boundary of `dst`, then whole lines, then the rest.
        let head = ((64 - dst as usize % 64) % 64 / size).min(len);
        let lines = (len - head) * size / 64;
        let per_line = 64 / size;
        let run = len * size;
        let runs = (src.cast::<u8>(), next.cast::<u8>());
        let hint =
            |at: usize| super::hint::prefetch_ahead((at, ahead, run), runs, super::hint::Dir::Up);
        // SAFETY: head + lines * per_line <= len words on each side (contract); the lines
        // start on a 64-byte boundary of `dst`, as `_mm_stream_si128` requires (16 bytes).
        unsafe {
            std::ptr::copy_nonoverlapping(src, dst, head);
            let (s, d) = (src.add(head), dst.add(head));
            for k in 0..lines {
                hint((head + k * per_line) * size);
                write_line(s.add(k * per_line), d.add(k * per_line), per_line, true);
            }
            let done = head + lines * per_line;
            std::ptr::copy_nonoverlapping(src.add(done), dst.add(done), len - done);
        }
        return;
    }
    let _ = (stream, size, next, ahead);
    // SAFETY: as the contract says.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, len) }
}

/// Orders stores made with non-temporal hints before later stores (and before other threads
/// see the data); a no-op where there are none.
pub(crate) fn store_fence() {
    // Miri cannot run `sfence`; under Miri no block writes non-temporally (the scalar blocks
    // run, see `Word::block_fn`), so there is nothing to order.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `sfence` only orders stores; SSE is part of the x86_64 baseline.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// 16 x 16 bytes with SSE2 (baseline on x86_64): four rounds of unpacks, each doubling
    /// the width of the units interleaved (8, 16, 32, 64 bits).
    ///
    /// # Safety
    /// As [`super::BlockFn`] with `MK = 16`.
    pub(super) unsafe fn block_u8_sse2<const STREAM: bool>(
        src: *const u8,
        ss: isize,
        dst: *mut u8,
        ds: isize,
    ) {
        // SAFETY: each load reads the 16 bytes of source row k < 16 and each store writes the
        // 16 bytes of destination row k < 16, which the caller vouches for; streaming stores
        // are used only on 16-byte aligned rows.
        unsafe {
            let ld = |k: isize| _mm_loadu_si128(src.offset(k * ss).cast());
            // Straight-line code with constant indices: built with `array::from_fn`, this compiled
            // to a loop over stack arrays, half the time of a whole byte transpose.
            #[rustfmt::skip]
            let r = [
                ld(0), ld(1), ld(2), ld(3), ld(4), ld(5), ld(6), ld(7),
                ld(8), ld(9), ld(10), ld(11), ld(12), ld(13), ld(14), ld(15),
            ];
            // t[i] (i < 8): byte pairs (row 2i, row 2i + 1) for columns 0..8; t[i + 8]: 8..16.
            let (lo8, hi8) = (
                |i: usize| _mm_unpacklo_epi8(r[2 * i], r[2 * i + 1]),
                |i: usize| _mm_unpackhi_epi8(r[2 * i], r[2 * i + 1]),
            );
            #[rustfmt::skip]
            let t = [
                lo8(0), lo8(1), lo8(2), lo8(3), lo8(4), lo8(5), lo8(6), lo8(7),
                hi8(0), hi8(1), hi8(2), hi8(3), hi8(4), hi8(5), hi8(6), hi8(7),
            ];
            // u[4g + j]: rows 4j..4j + 4 for columns 4g..4g + 4.
            let (lo16, hi16) = (
                |i: usize| _mm_unpacklo_epi16(t[i], t[i + 1]),
                |i: usize| _mm_unpackhi_epi16(t[i], t[i + 1]),
            );
            #[rustfmt::skip]
            let u = [
                lo16(0), lo16(2), lo16(4), lo16(6), hi16(0), hi16(2), hi16(4), hi16(6),
                lo16(8), lo16(10), lo16(12), lo16(14), hi16(8), hi16(10), hi16(12), hi16(14),
            ];
            let aligned = STREAM && (dst as usize | ds as usize) % 16 == 0;
            for g in 0..4 {
                let lo0 = _mm_unpacklo_epi32(u[4 * g], u[4 * g + 1]);
                let hi0 = _mm_unpackhi_epi32(u[4 * g], u[4 * g + 1]);
                let lo1 = _mm_unpacklo_epi32(u[4 * g + 2], u[4 * g + 3]);
                let hi1 = _mm_unpackhi_epi32(u[4 * g + 2], u[4 * g + 3]);
                let rows = [
                    _mm_unpacklo_epi64(lo0, lo1),
                    _mm_unpackhi_epi64(lo0, lo1),
                    _mm_unpacklo_epi64(hi0, hi1),
                    _mm_unpackhi_epi64(hi0, hi1),
                ];
                for (k, row) in rows.into_iter().enumerate() {
                    let p = dst.offset((4 * g + k) as isize * ds).cast::<__m128i>();
                    if aligned {
                        _mm_stream_si128(p, row);
                    } else {
                        _mm_storeu_si128(p, row);
                    }
                }
            }
        }
    }

    /// 8 x 8 two-byte words with SSE2.
    ///
    /// # Safety
    /// As [`super::BlockFn`] with `MK = 8`.
    pub(super) unsafe fn block_u16_sse2<const STREAM: bool>(
        src: *const u16,
        ss: isize,
        dst: *mut u16,
        ds: isize,
    ) {
        // SAFETY: loads read source rows k < 8 (16 bytes each), stores write destination rows
        // k < 8, as the caller vouches; streaming stores are used only on 16-byte aligned rows.
        unsafe {
            let ld = |k: isize| _mm_loadu_si128(src.offset(k * ss).cast());
            let (a0, a1, a2, a3) = (ld(0), ld(1), ld(2), ld(3));
            let (a4, a5, a6, a7) = (ld(4), ld(5), ld(6), ld(7));
            let b0 = _mm_unpacklo_epi16(a0, a1);
            let b1 = _mm_unpackhi_epi16(a0, a1);
            let b2 = _mm_unpacklo_epi16(a2, a3);
            let b3 = _mm_unpackhi_epi16(a2, a3);
            let b4 = _mm_unpacklo_epi16(a4, a5);
            let b5 = _mm_unpackhi_epi16(a4, a5);
            let b6 = _mm_unpacklo_epi16(a6, a7);
            let b7 = _mm_unpackhi_epi16(a6, a7);
            let c0 = _mm_unpacklo_epi32(b0, b2);
            let c1 = _mm_unpackhi_epi32(b0, b2);
            let c2 = _mm_unpacklo_epi32(b4, b6);
            let c3 = _mm_unpackhi_epi32(b4, b6);
            let c4 = _mm_unpacklo_epi32(b1, b3);
            let c5 = _mm_unpackhi_epi32(b1, b3);
            let c6 = _mm_unpacklo_epi32(b5, b7);
            let c7 = _mm_unpackhi_epi32(b5, b7);
            let rows = [
                _mm_unpacklo_epi64(c0, c2),
                _mm_unpackhi_epi64(c0, c2),
                _mm_unpacklo_epi64(c1, c3),
                _mm_unpackhi_epi64(c1, c3),
                _mm_unpacklo_epi64(c4, c6),
                _mm_unpackhi_epi64(c4, c6),
                _mm_unpacklo_epi64(c5, c7),
                _mm_unpackhi_epi64(c5, c7),
            ];
            let aligned = STREAM && (dst as usize | (ds * 2) as usize) % 16 == 0;
            for (k, row) in rows.into_iter().enumerate() {
                let p = dst.offset(k as isize * ds).cast::<__m128i>();
                if aligned {
                    _mm_stream_si128(p, row);
                } else {
                    _mm_storeu_si128(p, row);
                }
            }
        }
    }

    /// A `2h x 2h` block as four `h x h` blocks of `half`: destination quarter `(r, c)` is the
    /// transpose of source quarter `(c, r)`.
    ///
    /// # Safety
    /// As [`super::BlockFn`] with `MK = 2h`, `half` a block transpose of side `h`.
    #[inline(always)]
    unsafe fn four<W>(
        half: super::BlockFn<W>,
        h: isize,
        s: *const W,
        ss: isize,
        d: *mut W,
        ds: isize,
    ) {
        for (r, c) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            // SAFETY: quarter (r, c) of the destination block and (c, r) of the source block
            // are inside the blocks the caller vouches for.
            unsafe {
                half(
                    s.offset(c * h * ss + r * h),
                    ss,
                    d.offset(r * h * ds + c * h),
                    ds,
                )
            }
        }
    }

    /// 32 x 32 bytes without AVX2: four 16 x 16 SSE2 blocks.
    ///
    /// # Safety
    /// As [`super::BlockFn`] with `MK = 32`.
    pub(super) unsafe fn quad_u8_sse2<const STREAM: bool>(
        src: *const u8,
        ss: isize,
        dst: *mut u8,
        ds: isize,
    ) {
        // SAFETY: forwarded; each quarter is a 16 x 16 block.
        unsafe { four(block_u8_sse2::<STREAM>, 16, src, ss, dst, ds) }
    }

    /// 16 x 16 two-byte words without AVX2: four 8 x 8 SSE2 blocks.
    ///
    /// # Safety
    /// As [`super::BlockFn`] with `MK = 16`.
    pub(super) unsafe fn quad_u16_sse2<const STREAM: bool>(
        src: *const u16,
        ss: isize,
        dst: *mut u16,
        ds: isize,
    ) {
        // SAFETY: forwarded; each quarter is an 8 x 8 block.
        unsafe { four(block_u16_sse2::<STREAM>, 8, src, ss, dst, ds) }
    }

    /// 8 x 8 two-byte words in each 128-bit lane of the 8 rows `r`: lane `i` of result `k` is
    /// row `k` of the transpose of lane `i`'s 8 x 8 block (the SSE2 block's unpacks, twice).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lanes_u16(r: [__m256i; 8]) -> [__m256i; 8] {
        let b0 = _mm256_unpacklo_epi16(r[0], r[1]);
        let b1 = _mm256_unpackhi_epi16(r[0], r[1]);
        let b2 = _mm256_unpacklo_epi16(r[2], r[3]);
        let b3 = _mm256_unpackhi_epi16(r[2], r[3]);
        let b4 = _mm256_unpacklo_epi16(r[4], r[5]);
        let b5 = _mm256_unpackhi_epi16(r[4], r[5]);
        let b6 = _mm256_unpacklo_epi16(r[6], r[7]);
        let b7 = _mm256_unpackhi_epi16(r[6], r[7]);
        let c0 = _mm256_unpacklo_epi32(b0, b2);
        let c1 = _mm256_unpackhi_epi32(b0, b2);
        let c2 = _mm256_unpacklo_epi32(b4, b6);
        let c3 = _mm256_unpackhi_epi32(b4, b6);
        let c4 = _mm256_unpacklo_epi32(b1, b3);
        let c5 = _mm256_unpackhi_epi32(b1, b3);
        let c6 = _mm256_unpacklo_epi32(b5, b7);
        let c7 = _mm256_unpackhi_epi32(b5, b7);
        [
            _mm256_unpacklo_epi64(c0, c2),
            _mm256_unpackhi_epi64(c0, c2),
            _mm256_unpacklo_epi64(c1, c3),
            _mm256_unpackhi_epi64(c1, c3),
            _mm256_unpacklo_epi64(c4, c6),
            _mm256_unpackhi_epi64(c4, c6),
            _mm256_unpacklo_epi64(c5, c7),
            _mm256_unpackhi_epi64(c5, c7),
        ]
    }

    /// 16 x 16 bytes in each 128-bit lane of the 16 rows `r` (the SSE2 block's four rounds of
    /// unpacks, twice): lane `i` of result `k` is row `k` of the transpose of lane `i`'s block.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lanes_u8(r: [__m256i; 16]) -> [__m256i; 16] {
        let lo8 = |i: usize| _mm256_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
        let hi8 = |i: usize| _mm256_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
        #[rustfmt::skip]
        let t = [
            lo8(0), lo8(1), lo8(2), lo8(3), lo8(4), lo8(5), lo8(6), lo8(7),
            hi8(0), hi8(1), hi8(2), hi8(3), hi8(4), hi8(5), hi8(6), hi8(7),
        ];
        let lo16 = |i: usize| _mm256_unpacklo_epi16(t[i], t[i + 1]);
        let hi16 = |i: usize| _mm256_unpackhi_epi16(t[i], t[i + 1]);
        #[rustfmt::skip]
        let u = [
            lo16(0), lo16(2), lo16(4), lo16(6), hi16(0), hi16(2), hi16(4), hi16(6),
            lo16(8), lo16(10), lo16(12), lo16(14), hi16(8), hi16(10), hi16(12), hi16(14),
        ];
        let quad = |g: usize| {
            let lo0 = _mm256_unpacklo_epi32(u[4 * g], u[4 * g + 1]);
            let hi0 = _mm256_unpackhi_epi32(u[4 * g], u[4 * g + 1]);
            let lo1 = _mm256_unpacklo_epi32(u[4 * g + 2], u[4 * g + 3]);
            let hi1 = _mm256_unpackhi_epi32(u[4 * g + 2], u[4 * g + 3]);
            [
                _mm256_unpacklo_epi64(lo0, lo1),
                _mm256_unpackhi_epi64(lo0, lo1),
                _mm256_unpacklo_epi64(hi0, hi1),
                _mm256_unpackhi_epi64(hi0, hi1),
            ]
        };
        let (q0, q1, q2, q3) = (quad(0), quad(1), quad(2), quad(3));
        #[rustfmt::skip]
        let rows = [
            q0[0], q0[1], q0[2], q0[3], q1[0], q1[1], q1[2], q1[3],
            q2[0], q2[1], q2[2], q2[3], q3[0], q3[1], q3[2], q3[3],
        ];
        rows
    }

    /// Loads the 16 bytes at `lo` into lane 0 and the 16 bytes at `hi` into lane 1.
    ///
    /// # Safety
    /// Both 16-byte regions are readable.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load_pair(lo: *const u8, hi: *const u8) -> __m256i {
        // SAFETY: the two 16-byte reads the caller vouches for.
        unsafe { _mm256_loadu2_m128i(hi.cast(), lo.cast()) }
    }

    /// Stores `rows[k]` (32 bytes) at `dst + k * ds_bytes`: one streaming store when `STREAM`
    /// and the row is 32-byte aligned, two when it is 16-byte aligned, plain stores otherwise.
    ///
    /// # Safety
    /// The 32 bytes at each `dst + k * ds_bytes`, `k < rows.len()`, are writable.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn store_rows<const STREAM: bool>(rows: &[__m256i], dst: *mut u8, ds_bytes: isize) {
        let align = (dst as usize | ds_bytes as usize) % 32;
        for (k, &row) in rows.iter().enumerate() {
            // SAFETY: row k of the destination (contract); each streaming store's address
            // has the alignment the instruction needs (checked through `align`, which
            // covers every row since the stride is a multiple of it too).
            unsafe {
                let p = dst.offset(k as isize * ds_bytes);
                if STREAM && align == 0 {
                    _mm256_stream_si256(p.cast(), row);
                } else if STREAM && align == 16 {
                    _mm_stream_si128(p.cast(), _mm256_castsi256_si128(row));
                    _mm_stream_si128(p.add(16).cast(), _mm256_extracti128_si256::<1>(row));
                } else {
                    _mm256_storeu_si256(p.cast(), row);
                }
            }
        }
    }

    /// 16 x 16 two-byte words with AVX2. Each register pairs a row of the top half of the
    /// block (lane 0) with the same row of the bottom half (lane 1), so the in-lane 8 x 8
    /// transposes leave whole 32-byte destination rows: source columns 0..8 give destination
    /// rows 0..8, columns 8..16 rows 8..16.
    ///
    /// # Safety
    /// As [`super::BlockFn`] with `MK = 16`, and the CPU must support AVX2 (the caller
    /// detected it).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn block_u16_avx2<const STREAM: bool>(
        src: *const u16,
        ss: isize,
        dst: *mut u16,
        ds: isize,
    ) {
        // SAFETY: loads read 16 bytes at columns 0 and 8 of source rows k < 16, stores write
        // destination rows k < 16 (32 bytes each), as the caller vouches.
        unsafe {
            let ld = |k: isize, c: isize| {
                load_pair(
                    src.offset(k * ss + c).cast(),
                    src.offset((k + 8) * ss + c).cast(),
                )
            };
            for c in [0, 8] {
                #[rustfmt::skip]
                let rows = lanes_u16([
                    ld(0, c), ld(1, c), ld(2, c), ld(3, c), ld(4, c), ld(5, c), ld(6, c),
                    ld(7, c),
                ]);
                store_rows::<STREAM>(&rows, dst.offset(c * ds).cast(), ds * 2);
            }
        }
    }

    /// 32 x 32 bytes with AVX2, paired as in [`block_u16_avx2`]: lane 0 holds a row of the
    /// top 16, lane 1 the same row of the bottom 16, and the in-lane 16 x 16 transposes leave
    /// whole destination rows (source columns 0..16 give rows 0..16, 16..32 rows 16..32).
    ///
    /// # Safety
    /// As [`super::BlockFn`] with `MK = 32`, and the CPU must support AVX2 (the caller
    /// detected it).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn block_u8_avx2<const STREAM: bool>(
        src: *const u8,
        ss: isize,
        dst: *mut u8,
        ds: isize,
    ) {
        // SAFETY: loads read 16 bytes at columns 0 and 16 of source rows k < 32, stores write
        // destination rows k < 32 (32 bytes each), as the caller vouches.
        unsafe {
            let ld = |k: isize, c: isize| {
                load_pair(src.offset(k * ss + c), src.offset((k + 16) * ss + c))
            };
            for c in [0, 16] {
                #[rustfmt::skip]
                let rows = lanes_u8([
                    ld(0, c), ld(1, c), ld(2, c), ld(3, c), ld(4, c), ld(5, c), ld(6, c),
                    ld(7, c), ld(8, c), ld(9, c), ld(10, c), ld(11, c), ld(12, c),
                    ld(13, c), ld(14, c), ld(15, c),
                ]);
                store_rows::<STREAM>(&rows, dst.offset(c * ds), ds);
            }
        }
    }

    /// 8 x 8 four-byte words with AVX2.
    ///
    /// # Safety
    /// As [`super::BlockFn`] with `MK = 8`, and the CPU must support AVX2 (the caller
    /// detected it).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn block_u32_avx2<const STREAM: bool>(
        src: *const u32,
        ss: isize,
        dst: *mut u32,
        ds: isize,
    ) {
        // SAFETY: loads read source rows k < 8 (32 bytes each), stores write destination rows
        // k < 8, as the caller vouches; streaming stores only on 32-byte aligned rows. The
        // float shuffles move bits unchanged (no arithmetic), so any u32 pattern survives.
        unsafe {
            let ld = |k: isize| _mm256_loadu_ps(src.offset(k * ss).cast());
            let (r0, r1, r2, r3) = (ld(0), ld(1), ld(2), ld(3));
            let (r4, r5, r6, r7) = (ld(4), ld(5), ld(6), ld(7));
            let t0 = _mm256_unpacklo_ps(r0, r1);
            let t1 = _mm256_unpackhi_ps(r0, r1);
            let t2 = _mm256_unpacklo_ps(r2, r3);
            let t3 = _mm256_unpackhi_ps(r2, r3);
            let t4 = _mm256_unpacklo_ps(r4, r5);
            let t5 = _mm256_unpackhi_ps(r4, r5);
            let t6 = _mm256_unpacklo_ps(r6, r7);
            let t7 = _mm256_unpackhi_ps(r6, r7);
            let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
            let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
            let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
            let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
            let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
            let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
            let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
            let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
            let rows = [
                _mm256_permute2f128_ps::<0x20>(u0, u4),
                _mm256_permute2f128_ps::<0x20>(u1, u5),
                _mm256_permute2f128_ps::<0x20>(u2, u6),
                _mm256_permute2f128_ps::<0x20>(u3, u7),
                _mm256_permute2f128_ps::<0x31>(u0, u4),
                _mm256_permute2f128_ps::<0x31>(u1, u5),
                _mm256_permute2f128_ps::<0x31>(u2, u6),
                _mm256_permute2f128_ps::<0x31>(u3, u7),
            ];
            let aligned = STREAM && (dst as usize | (ds * 4) as usize) % 32 == 0;
            for (k, row) in rows.into_iter().enumerate() {
                let p = dst.offset(k as isize * ds).cast::<f32>();
                if aligned {
                    _mm256_stream_ps(p, row);
                } else {
                    _mm256_storeu_ps(p, row);
                }
            }
        }
    }

    /// 4 x 4 eight-byte words with AVX2.
    ///
    /// # Safety
    /// As [`super::BlockFn`] with `MK = 4`, and the CPU must support AVX2 (the caller
    /// detected it).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn block_u64_avx2<const STREAM: bool>(
        src: *const u64,
        ss: isize,
        dst: *mut u64,
        ds: isize,
    ) {
        // SAFETY: loads read source rows k < 4 (32 bytes each), stores write destination rows
        // k < 4, as the caller vouches; streaming stores only on 32-byte aligned rows; the
        // shuffles move bits unchanged.
        unsafe {
            let ld = |k: isize| _mm256_loadu_pd(src.offset(k * ss).cast());
            let (r0, r1, r2, r3) = (ld(0), ld(1), ld(2), ld(3));
            let t0 = _mm256_unpacklo_pd(r0, r1);
            let t1 = _mm256_unpackhi_pd(r0, r1);
            let t2 = _mm256_unpacklo_pd(r2, r3);
            let t3 = _mm256_unpackhi_pd(r2, r3);
            let rows = [
                _mm256_permute2f128_pd::<0x20>(t0, t2),
                _mm256_permute2f128_pd::<0x20>(t1, t3),
                _mm256_permute2f128_pd::<0x31>(t0, t2),
                _mm256_permute2f128_pd::<0x31>(t1, t3),
            ];
            let aligned = STREAM && (dst as usize | (ds * 8) as usize) % 32 == 0;
            for (k, row) in rows.into_iter().enumerate() {
                let p = dst.offset(k as isize * ds).cast::<f64>();
                if aligned {
                    _mm256_stream_pd(p, row);
                } else {
                    _mm256_storeu_pd(p, row);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// Every block kernel (SIMD and scalar, streaming or not) against the definition, with
    /// padded strides so a write outside the block would be seen.
    fn check<W: Word + PartialEq + std::fmt::Debug>(
        from: impl Fn(usize) -> W,
        more: &[BlockFn<W>],
    ) {
        let mk = W::MK;
        let ss = mk + 3;
        let src: Vec<W> = (0..mk * ss).map(&from).collect();
        let kernels = [W::block_fn(false), W::block_fn(true), block_scalar::<W>];
        // Destination rows 8 words longer than the block at any start; rows of 64 bytes
        // more than a block row at a 64-byte aligned start (where 32-byte streaming stores
        // apply); and rows 16 bytes longer than that at a start 16 bytes past a line, which
        // are 16- but not 32-byte aligned (16-byte streaming stores).
        let line = 64 / size_of::<W>();
        let wide = (mk + line).next_multiple_of(line);
        let w16 = 16 / size_of::<W>();
        for (ds, start) in [(mk + 8, None), (wide, Some(0)), (wide + w16, Some(w16))] {
            for &f in kernels.iter().chain(more) {
                let mut mem = vec![from(9999); mk * ds + 2 * line];
                let skip = match start {
                    Some(at) => (64 - mem.as_ptr() as usize % 64) % 64 / size_of::<W>() + at,
                    None => 0,
                };
                let dst = &mut mem[skip..skip + mk * ds];
                // SAFETY: both buffers hold mk rows of their strides, which exceed mk.
                unsafe { f(src.as_ptr(), ss as isize, dst.as_mut_ptr(), ds as isize) };
                store_fence();
                for r in 0..mk {
                    for c in 0..ds {
                        let want = if c < mk { src[c * ss + r] } else { from(9999) };
                        assert_eq!(dst[r * ds + c], want, "row {r} col {c} stride {ds}");
                    }
                }
            }
        }
    }

    #[test]
    fn block_transposes_match_the_definition() {
        // The SSE2 blocks that stand in for AVX2 on CPUs without it, whatever this one has.
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        let (more_u8, more_u16): (Vec<BlockFn<u8>>, Vec<BlockFn<u16>>) = (
            vec![x86::quad_u8_sse2::<false>, x86::quad_u8_sse2::<true>],
            vec![x86::quad_u16_sse2::<false>, x86::quad_u16_sse2::<true>],
        );
        #[cfg(any(not(target_arch = "x86_64"), miri))]
        let (more_u8, more_u16): (Vec<BlockFn<u8>>, Vec<BlockFn<u16>>) = (vec![], vec![]);
        check::<u8>(|i| (i * 7 % 251) as u8, &more_u8);
        check::<u16>(|i| (i * 31 % 65521) as u16, &more_u16);
        check::<u32>(|i| (i as u32).wrapping_mul(2_654_435_761), &[]);
        check::<u64>(|i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15), &[]);
    }
}
