//! Elementwise outputs too large for the last-level cache, written with non-temporal stores.
//!
//! A plain store to a line that is not cached first reads the line from DRAM (a read for
//! ownership), so an op whose output cannot stay cached anyway moves its output bytes twice:
//! `a + b` at 4096 x 4096 `f32` reads 128 MiB, writes 64 MiB and reads those 64 MiB first.
//! [`run_streamed`] lets the typed kernel write each run into a small buffer that stays in
//! L1 and then copies the buffer's whole lines to the output with streaming stores, the
//! copy kernel's rule (`CopyTuning::stream_min_bytes`, Note [copy parameters]) deciding when.

use std::mem::MaybeUninit;

use super::run_kernel::Runs;
use super::transpose::copy_run;

/// Bytes of the buffer one chunk of a run is computed into: a fraction of any L1d, many whole
/// lines.
const CHUNK_BYTES: usize = 2048;

/// The chunk buffer, aligned to a cache line so its lines map onto the output's.
#[repr(C, align(64))]
struct Chunk([MaybeUninit<u8>; CHUNK_BYTES]);

/// Whether an op over `numel` elements of operands `sizes` bytes each (operand 0 the output)
/// streams its output: the bytes it reads and writes exceed `stream_min_bytes`.
pub(super) fn should_stream(numel: usize, sizes: &[usize]) -> bool {
    let per: usize = sizes.iter().sum();
    numel.saturating_mul(per) > super::cpu::CopyTuning::get().stream_min_bytes
}

/// Runs `kernel` on one run of `len` elements whose output (operand 0) is unit-stride: the
/// elements before the output's first line boundary straight into the output, the rest in
/// chunks computed into an L1 buffer and copied out with non-temporal stores where whole
/// lines allow. The caller issues a store fence before the output is read
/// (`transpose::store_fence`).
///
/// # Safety
/// As [`Runs::run`] for `(ptrs, strides, len)`, with `strides[0] == 1`.
pub(super) unsafe fn run_streamed<const N: usize, K: Runs<N>>(
    kernel: &K,
    ptrs: [*mut u8; N],
    strides: [isize; N],
    len: usize,
) {
    let size = K::SIZES[0];
    debug_assert_eq!(strides[0], 1);
    let out = ptrs[0];
    // Elements up to the first line boundary (the output is aligned to its element size).
    let head = ((64 - out as usize % 64) % 64 / size).min(len);
    let per = CHUNK_BYTES / size;
    let mut chunk = Chunk([MaybeUninit::uninit(); CHUNK_BYTES]);
    let buf = chunk.0.as_mut_ptr().cast::<u8>();
    let at = |p: [*mut u8; N], i: usize| -> [*mut u8; N] {
        std::array::from_fn(|k| {
            let step = i as isize * strides[k] * K::SIZES[k] as isize;
            p[k].wrapping_offset(step)
        })
    };
    // SAFETY: every sub-run below covers elements `i..i + n` of the run, `i + n <= len`, so
    // the contract of `Runs::run` holds for it on the inputs and the output. The buffer holds
    // `per` elements of the output's type (CHUNK_BYTES, aligned to 64 >= any element's
    // alignment), private to this call, so it overlaps no input; every element `copy_run`
    // reads from it was written by the kernel just before.
    unsafe {
        kernel.run(ptrs, strides, head);
        let mut i = head;
        while i < len {
            let n = per.min(len - i);
            let mut p = at(ptrs, i);
            let dst = p[0];
            p[0] = buf;
            kernel.run(p, strides, n);
            match size {
                1 => copy_run::<u8>(buf.cast(), dst.cast(), n, true, (std::ptr::null(), 0)),
                2 => copy_run::<u16>(buf.cast(), dst.cast(), n, true, (std::ptr::null(), 0)),
                4 => copy_run::<u32>(buf.cast(), dst.cast(), n, true, (std::ptr::null(), 0)),
                8 => copy_run::<u64>(buf.cast(), dst.cast(), n, true, (std::ptr::null(), 0)),
                s => unreachable!("Element types are 1, 2, 4 or 8 bytes, not {s}"),
            }
            i += n;
        }
    }
}

/// Runs `kernel` on one run; when `stream` and the output is unit-stride, with the output
/// written through non-temporal stores ([`run_streamed`]).
///
/// # Safety
/// As [`Runs::run`].
#[inline(always)]
pub(super) unsafe fn run_one<const N: usize, K: Runs<N>>(
    kernel: &K,
    ptrs: [*mut u8; N],
    strides: [isize; N],
    len: usize,
    stream: bool,
) {
    // SAFETY: forwarded; `run_streamed` needs only the unit output stride checked here.
    unsafe {
        if stream && strides[0] == 1 {
            run_streamed(kernel, ptrs, strides, len)
        } else {
            kernel.run(ptrs, strides, len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::transpose::store_fence;

    /// `out[i] = 3 * x[i * s] + 1` (wrapping) on words of type `W`.
    struct Affine<W>(std::marker::PhantomData<W>);

    impl<W: Copy + Send + Sync + num_traits::WrappingMul + num_traits::WrappingAdd + From<u8>>
        Runs<2> for Affine<W>
    {
        const SIZES: [usize; 2] = [size_of::<W>(), size_of::<W>()];

        unsafe fn run(&self, p: [*mut u8; 2], s: [isize; 2], len: usize) {
            let (o, x) = (p[0].cast::<W>(), p[1].cast::<W>().cast_const());
            for i in 0..len as isize {
                // SAFETY: the `Runs` contract.
                unsafe {
                    let v = x.offset(i * s[1]).read();
                    let v = v.wrapping_mul(&W::from(3)).wrapping_add(&W::from(1));
                    o.offset(i * s[0]).write(v);
                }
            }
        }
    }

    use std::mem::size_of;

    /// Every output alignment and length, whole chunks, partial lines at both ends, reversed
    /// and stepped inputs: the streamed run writes what the kernel would, and nothing beside.
    fn check<W>(from: fn(usize) -> W)
    where
        W: Copy + Send + Sync + PartialEq + std::fmt::Debug,
        W: num_traits::WrappingMul + num_traits::WrappingAdd + From<u8>,
    {
        let kernel = Affine::<W>(std::marker::PhantomData);
        // Under Miri (no SIMD, every access checked) a subset of the lengths and shifts.
        let lens: &[usize] = match cfg!(miri) {
            false => &[0, 1, 7, 63, 64, 65, 255, 256, 1000, 2500],
            true => &[0, 1, 65, 300],
        };
        let shifts = if cfg!(miri) { 2 } else { 9 };
        let input: Vec<W> = (0..2 * 2600 + 16).map(from).collect();
        let guard = from(7777);
        for &len in lens {
            for shift in 0..shifts {
                for stride in [1isize, -1, 2] {
                    let mut out = vec![guard; len + 32];
                    let start = if stride < 0 { len.max(1) - 1 } else { 0 };
                    let x = input[start..].as_ptr().cast_mut().cast::<u8>();
                    let o = out[shift..].as_mut_ptr().cast::<u8>();
                    // SAFETY: `len` outputs from `shift` fit `out`; inputs `start + i * stride`
                    // for i < len lie in `input`; the two do not overlap.
                    unsafe { run_streamed(&kernel, [o, x], [1, stride], len) };
                    store_fence();
                    for (i, &v) in out.iter().enumerate() {
                        let want = if i >= shift && i < shift + len {
                            let src = start as isize + (i - shift) as isize * stride;
                            input[src as usize]
                                .wrapping_mul(&W::from(3))
                                .wrapping_add(&W::from(1))
                        } else {
                            guard
                        };
                        assert_eq!(v, want, "len {len} shift {shift} stride {stride} at {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn streamed_runs_write_what_the_kernel_computes() {
        check::<u8>(|i| (i * 7 % 251) as u8);
        check::<u16>(|i| (i * 31 % 65521) as u16);
        check::<u32>(|i| (i as u32).wrapping_mul(2_654_435_761));
        check::<u64>(|i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    }

    /// Ops past the streaming threshold give the definition: fresh outputs (streamed, through
    /// the runs and through the staged tiles of a transposed operand) and an in-place update
    /// of as many bytes, which reads its destination and so must not stream.
    #[test]
    #[cfg_attr(miri, ignore = "tens of MiB of elements")]
    fn large_ops_stream_and_updates_read_their_destination() {
        use crate::Tensor;
        let limit = crate::kernels::cpu::CopyTuning::get().stream_min_bytes;
        let cols = 1024;
        let rows = limit / (8 * cols) + 3;
        assert!(should_stream(rows * cols, &[4, 4]));
        let from = |i: usize| (i % 1013) as i32 - 500;
        let a = Tensor::from_vec((0..rows * cols).map(from).collect(), &[rows, cols]).unwrap();
        let b = Tensor::from_vec((0..rows * cols).map(from).collect(), &[cols, rows]).unwrap();
        let bt = b.t().unwrap();
        let (av, bv) = (a.to_vec(), b.to_vec());
        let want = |i: usize, j: usize| av[i * cols + j] + 3 * bv[j * rows + i];
        let fresh = (&a + &(&bt * 3)).unwrap();
        let mut updated = a.clone();
        updated.add_assign(&(&bt * 3)).unwrap();
        let neg = a.map(|x| -x).to_vec();
        for (name, got) in [("fresh", fresh.to_vec()), ("updated", updated.to_vec())] {
            for i in 0..rows {
                for j in 0..cols {
                    assert_eq!(got[i * cols + j], want(i, j), "{name} at ({i}, {j})");
                }
            }
        }
        assert!(neg.iter().zip(&av).all(|(&n, &x)| n == -x));
    }

    #[test]
    fn only_ops_beyond_the_cache_stream() {
        let limit = crate::kernels::cpu::CopyTuning::get().stream_min_bytes;
        assert!(!should_stream(limit / 12, &[4, 4, 4]));
        assert!(should_stream(limit / 12 + 1, &[4, 4, 4]));
        assert!(!should_stream(0, &[8, 8]));
    }
}
