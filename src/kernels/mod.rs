//! Kernels: the code that touches element data. With `storage`, the only home of `unsafe`.
//!
//! - [`walk`]: loop nests over strided offsets (the odometer every kernel shares).
//! - [`copy`]: the strided copy behind `contiguous()`, `reshape()`'s copy and `to_vec()`.

pub(crate) mod copy;
pub(crate) mod transpose;
pub(crate) mod walk;
