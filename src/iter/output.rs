//! The layout of a freshly allocated result.
//!
//! # Note [output layout]
//!
//! A fresh result may have any strides, so stridex picks the ones that make the op fastest and
//! least surprising, following PyTorch's rule:
//!
//! - If every *non-broadcast* input (one that reads a distinct element for every output index,
//!   i.e. has no stride 0 on a dim of size > 1) is non-overlapping and dense, and all of them
//!   order their dims the same way (equal strides on every dim of size > 1), the result gets
//!   that same dense permutation: a transposed input gives a transposed result, a channels-last
//!   input a channels-last result. The op then reads and writes every operand in storage order,
//!   as one contiguous run.
//! - Otherwise (inputs with different permutations, gaps, negative strides, or only broadcast
//!   inputs) the result is row-major.
//!
//! Size-1 dims of the result get the stride `shape[d + 1] * stride[d + 1]` of the dim after
//! them (1 for the last dim), the convention [`Layout::unsqueeze`] uses, so a result following a
//! row-major input is exactly row-major. Empty results are row-major.
//!
//! Reductions apply the same rule to their one input, keeping the order of the kept dims.

use crate::layout::{Layout, row_major_strides};

/// Strides for a fresh result of `shape` given its inputs' strides broadcast to `shape`; see the
/// [note](self).
pub(crate) fn output_strides<S: AsRef<[isize]>>(shape: &[usize], inputs: &[S]) -> Vec<isize> {
    // Row-major strides exist unless the row-major span overflows, which happens only for an
    // empty shape with huge other sizes (any strides do for a layout with no elements) or a
    // shape too large to allocate (which `Layout::new` then reports).
    let fallback = || row_major_strides(shape).unwrap_or_else(|| vec![0; shape.len()]);
    if shape.contains(&0) {
        return fallback();
    }
    let big = |d: &usize| shape[*d] != 1;
    let mut template: Option<&[isize]> = None;
    for strides in inputs {
        let strides = strides.as_ref();
        if (0..shape.len()).filter(big).any(|d| strides[d] == 0) {
            continue; // broadcast: it does not decide the layout
        }
        match template {
            None => {
                if !is_dense(shape, strides) {
                    return fallback();
                }
                template = Some(strides);
            }
            Some(t) => {
                if (0..shape.len()).filter(big).any(|d| strides[d] != t[d]) {
                    return fallback();
                }
            }
        }
    }
    match template {
        Some(t) => with_unit_dims(shape, t),
        None => fallback(),
    }
}

/// Whether `shape`/`strides` covers `numel` consecutive offsets with positive strides.
fn is_dense(shape: &[usize], strides: &[isize]) -> bool {
    let mut dims: Vec<usize> = (0..shape.len()).filter(|&d| shape[d] != 1).collect();
    dims.sort_by_key(|&d| strides[d]);
    let mut expected: isize = 1;
    for d in dims {
        if strides[d] != expected {
            return false;
        }
        expected *= shape[d] as isize;
    }
    true
}

/// `strides` with the strides of size-1 dims replaced by the convention of the note.
fn with_unit_dims(shape: &[usize], strides: &[isize]) -> Vec<isize> {
    let mut out = strides.to_vec();
    for d in (0..shape.len()).rev() {
        if shape[d] == 1 {
            out[d] = match d + 1 < shape.len() {
                true => shape[d + 1] as isize * out[d + 1],
                false => 1,
            };
        }
    }
    out
}

/// Strides for the fresh result of a reduction: the input's kept dims in the input's dense
/// order if the input is non-overlapping and dense, else row-major. `keep_shape` is the input
/// shape with reduced dims set to 1; `input` the input's strides.
pub(crate) fn reduction_strides(keep_shape: &[usize], input: &Layout) -> Vec<isize> {
    if !input.shape().contains(&0) && input.is_non_overlapping_and_dense() {
        // Dense order of the input, restricted to the kept dims, with dense strides.
        let order = input.iteration_order();
        let mut strides = vec![0isize; keep_shape.len()];
        let mut acc: isize = 1;
        for &d in order.iter().rev() {
            if keep_shape[d] != 1 {
                strides[d] = acc;
                acc *= keep_shape[d] as isize;
            }
        }
        with_unit_dims(keep_shape, &strides)
    } else {
        output_strides::<Vec<isize>>(keep_shape, &[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_a_shared_dense_permutation() {
        // Transposed inputs: transposed result.
        assert_eq!(
            output_strides(&[3, 4], &[vec![1, 3], vec![1, 3]]),
            vec![1, 3]
        );
        // Channels-last input plus a broadcast per-channel bias: channels-last result.
        let nhwc = vec![24, 1, 8, 2]; // shape [2, 2, 3, 4] stored as [2, 3, 4, 2]
        let bias = vec![0, 1, 0, 0];
        assert_eq!(output_strides(&[2, 2, 3, 4], &[nhwc.clone(), bias]), nhwc);
        // Size-1 dims take the stride of the dim after them.
        assert_eq!(
            output_strides(&[3, 1, 4], &[vec![1, 77, 3]]),
            vec![1, 12, 3]
        );
    }

    #[test]
    fn falls_back_to_row_major() {
        // Different permutations.
        assert_eq!(
            output_strides(&[3, 4], &[vec![4, 1], vec![1, 3]]),
            vec![4, 1]
        );
        // A gap (narrowed input).
        assert_eq!(output_strides(&[3, 4], &[vec![1, 6]]), vec![4, 1]);
        // A flipped input.
        assert_eq!(output_strides(&[3, 4], &[vec![-4, 1]]), vec![4, 1]);
        // Only broadcast inputs.
        assert_eq!(
            output_strides(&[3, 4], &[vec![0, 1], vec![1, 0]]),
            vec![4, 1]
        );
        // Empty.
        assert_eq!(output_strides(&[0, 4], &[vec![1, 0]]), vec![4, 1]);
        // 0-dim.
        assert_eq!(output_strides(&[], &[vec![]]), Vec::<isize>::new());
        // Empty with sizes whose row-major span overflows: any strides do.
        let huge = 1usize << 40;
        assert_eq!(
            output_strides(&[0, huge, huge], &[vec![0, 0, 0]]),
            vec![0, 0, 0]
        );
    }

    #[test]
    fn reductions_keep_the_input_order() {
        let t = Layout::contiguous(&[4, 3, 2])
            .unwrap()
            .permute(&[2, 1, 0])
            .unwrap();
        // Shape [2, 3, 4], strides [1, 2, 6]; reducing dim 1 keeps dims 0 and 2.
        assert_eq!(reduction_strides(&[2, 1, 4], &t), vec![1, 8, 2]);
        let narrowed = Layout::contiguous(&[4, 6])
            .unwrap()
            .narrow(1, 0, 3)
            .unwrap();
        assert_eq!(reduction_strides(&[4, 1], &narrowed), vec![1, 1]);
    }
}
