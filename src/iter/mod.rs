//! The strided iteration engine: how every elementwise op, reduction and cast walks its
//! operands, whatever their strides.
//!
//! An op over one output and N inputs is first *planned*, with layout arithmetic only (this
//! module has no `unsafe` and touches no element):
//!
//! 1. [`broadcast`]: the inputs' shapes broadcast to one shape (NumPy rules); each input is
//!    then read through strides with 0 on its broadcast dims.
//! 2. [`output`]: the fresh output gets the layout that follows its inputs (see the
//!    [note](output#note-output-layout)).
//! 3. [`plan`]: dims are reordered so the innermost loop has the smallest output stride, dims
//!    contiguous with each other in every operand are merged, and inputs that are unit-stride
//!    along another dim than the output (a transposed operand) are read through tiles.
//! 4. [`reduce`]: reductions plan the same way over the input's shape, with an output stride of
//!    0 along reduced dims.
//!
//! The plan is then *executed* by the kernels (`crate::kernels::elementwise` and
//! `crate::kernels::reduce`), which turn it into a sequence of 1-D runs, each a pointer, a
//! stride and a length per operand, and call a typed inner loop with a unit-stride fast path on
//! every run. Large plans are split across rayon threads; the split never changes a result (see
//! the kernels for how reductions stay deterministic).

pub(crate) mod broadcast;
pub(crate) mod output;
pub(crate) mod plan;
pub(crate) mod reduce;

pub(crate) use plan::Plan;
pub(crate) use reduce::{ReduceKind, ReducePlan};

/// Number of elements of a valid layout's `shape`: 0 as soon as one size is 0 (then the other
/// sizes may be huge and their product must not be formed), else the product, which fits by
/// Layout invariant 2.
pub(crate) fn element_count(shape: &[usize]) -> usize {
    if shape.contains(&0) {
        0
    } else {
        shape.iter().product()
    }
}
