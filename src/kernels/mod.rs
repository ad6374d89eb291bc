//! Kernels: the code that touches element data. With `storage`, the only home of `unsafe`.
//!
//! - [`walk`]: loop nests over strided offsets (the odometer every kernel shares).
//! - [`copy`]: the strided copy behind `contiguous()`, `reshape()`'s copy and `to_vec()`;
//!   [`tile`] and `tile_nest`: its transposing planes and their loop order; `runs`: the order
//!   of its row runs; [`cpu`]: the CPU facts and the copy parameters chosen from them.
//! - [`elementwise`]: runs an elementwise plan of the iteration engine (`crate::iter`).
//! - [`reduce`]: runs a reduction plan, with [`reducers`] saying what is accumulated;
//!   [`reduce_small`]: the direct path for small row-major inputs, whose short-row sums take
//!   AVX2 intrinsics (`row_sums_avx2`).
//! - [`inplace`]: writes through a mutable view (fill, copy from a source, in-place updates).
//! - [`assemble`]: `cat` and `pad` into a fresh tensor, one pass per part.
//! - [`exp`]: a vectorisable `e^x`; [`softmax`]: softmax / log-softmax / logsumexp along a dim;
//!   [`moments`]: variance along a dim; [`scan`]: cumulative sums and products;
//!   [`canonical`]: the canonical reduction order for the kernels outside [`reduce`].
//! - [`gather`]: index-driven reads and writes (`index_select`, `gather`, `scatter`, masks).
//! - [`lines`]: ops line by line along a dim (read through strides, output filled by lines);
//!   [`sort`]: sort / argsort / topk on them.
//! - [`dispatch`]: running a loop compiled for AVX2 where the CPU has it.
//! - [`parallel`]: splitting work across rayon threads; [`unravel`]: flat position to offsets.

pub(crate) mod assemble;
pub(crate) mod canonical;
mod carry;
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod col_sums_avx2;
pub(crate) mod copy;
pub(crate) mod cpu;
pub(crate) mod dispatch;
pub(crate) mod elementwise;
pub(crate) mod exp;
pub(crate) mod gather;
mod hint;
pub(crate) mod inplace;
pub(crate) mod line_ops;
pub(crate) mod lines;
pub(crate) mod moments;
pub(crate) mod parallel;
mod plane;
pub(crate) mod reduce;
mod reduce_order;
mod reduce_outer;
pub(crate) mod reduce_small;
mod reduce_staged;
pub(crate) mod reducers;
mod reversed;
#[cfg(target_arch = "x86_64")]
mod row_sums_avx2;
mod run_kernel;
mod runs;
pub(crate) mod scan;
mod seams;
pub(crate) mod softmax;
pub(crate) mod sort;
mod staged;
mod stream_out;
pub(crate) mod strided_small;
pub(crate) mod tile;
mod tile_group;
mod tile_nest;
pub(crate) mod transpose;
pub(crate) mod unravel;
pub(crate) mod walk;

use crate::element::Element;
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::{Storage, UninitStorage};

/// Fresh memory for a result of `shape` (`len` elements) of the operation `op`. A byte size
/// above `isize::MAX` (e.g. the result of an op on a huge expanded view) is reported as
/// [`Error::Overflow`](crate::Error::Overflow) naming `op` and `shape`, not as an allocation
/// failure; an allocation that fails is [`Error::Alloc`](crate::Error::Alloc).
pub(crate) fn fresh<T: Element>(
    op: &'static str,
    shape: &[usize],
    len: usize,
) -> Result<UninitStorage<T>> {
    crate::error::checked_bytes(op, shape, len, std::mem::size_of::<T>())?;
    Storage::<T>::uninit(len).map_err(|e| e.with_op(op))
}

/// An input of an op: a storage and a layout that fits it (the tensor invariant).
#[derive(Clone, Copy)]
pub(crate) struct Src<'a, T: Element> {
    pub(crate) storage: &'a Storage<T>,
    pub(crate) layout: &'a Layout,
}

impl<T: Element> Src<'_, T> {
    fn base(&self) -> *mut u8 {
        assert!(
            self.layout.fits_in(self.storage.len()),
            "elementwise: layout does not fit its storage"
        );
        self.storage.as_ptr().cast_mut().cast()
    }
}
