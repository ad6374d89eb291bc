//! Kernels: the code that touches element data. With `storage`, the only home of `unsafe`.
//!
//! - [`walk`]: loop nests over strided offsets (the odometer every kernel shares).
//! - [`copy`]: the strided copy behind `contiguous()`, `reshape()`'s copy and `to_vec()`.
//! - [`elementwise`]: runs an elementwise plan of the iteration engine (`crate::iter`).
//! - [`reduce`]: runs a reduction plan, with [`reducers`] saying what is accumulated.
//! - [`inplace`]: writes through a mutable view (fill, copy from a source, in-place updates).
//! - [`assemble`]: `cat` and `pad` into a fresh tensor, one pass per part.
//! - [`parallel`]: splitting work across rayon threads; [`unravel`]: flat position to offsets.

pub(crate) mod assemble;
pub(crate) mod copy;
pub(crate) mod elementwise;
pub(crate) mod inplace;
pub(crate) mod parallel;
pub(crate) mod reduce;
pub(crate) mod reducers;
pub(crate) mod transpose;
pub(crate) mod unravel;
pub(crate) mod walk;
