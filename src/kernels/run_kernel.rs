//! The typed inner loop an elementwise executor calls ([`Runs`]) and the byte strides it is
//! handed: the contract shared by the executor (`elementwise`), the staging of transposed
//! operands (`staged`) and the streamed output (`stream_out`), kept apart from all three so
//! that none of them imports another's internals.

use crate::iter::Plan;

/// A typed inner loop over runs of `N` operands, operand 0 being the output.
pub(crate) trait Runs<const N: usize>: Sync {
    /// Size in bytes of each operand's element type.
    const SIZES: [usize; N];

    /// Whether the kernel reads operand 0 before writing it (an in-place update). Such a
    /// kernel's output is never staged through `stream_out`'s buffer.
    const READS_OUTPUT: bool = false;

    /// Processes one run of `len` elements.
    ///
    /// # Safety
    /// For every `i < len` and operand `k`, `ptrs[k]` plus `i * strides[k]` elements of
    /// operand `k`'s type must be in bounds of one allocation and, for inputs, initialized;
    /// the output elements must be writable and must not overlap any input element of the run,
    /// and distinct `i` must address distinct output elements.
    unsafe fn run(&self, ptrs: [*mut u8; N], strides: [isize; N], len: usize);
}

/// Byte strides: `[dim][operand]`.
pub(super) fn byte_strides<const N: usize>(plan: &Plan, sizes: &[usize; N]) -> Vec<[isize; N]> {
    (0..plan.shape.len())
        .map(|d| std::array::from_fn(|k| plan.strides[k][d] * sizes[k] as isize))
        .collect()
}
