//! From a flat row-major position in a loop nest to a multi-index and operand offsets.

/// The multi-index of row-major position `flat` in `shape` and, for each of `N` operands, the
/// offset `Σ index[d] * strides[d][k]`.
///
/// `flat` must be below the product of `shape` (or 0 for an empty `shape`); the offsets are
/// then addressed offsets relative to the operands' first elements, so no sum overflows for
/// strides of valid layouts.
pub(crate) fn unravel_offsets<const N: usize>(
    flat: usize,
    shape: &[usize],
    strides: &[[isize; N]],
) -> (Vec<usize>, [isize; N]) {
    let mut index = vec![0usize; shape.len()];
    let mut offsets = [0isize; N];
    let mut rest = flat;
    for d in (0..shape.len()).rev() {
        let i = rest % shape[d];
        rest /= shape[d];
        index[d] = i;
        for k in 0..N {
            offsets[k] += i as isize * strides[d][k];
        }
    }
    (index, offsets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unravels_row_major_positions() {
        let (index, off) = unravel_offsets(7, &[2, 3, 2], &[[6, 1], [2, 10], [1, 100]]);
        assert_eq!(index, vec![1, 0, 1]);
        assert_eq!(off, [7, 101]);
        let (index, off) = unravel_offsets(0, &[], &[] as &[[isize; 1]]);
        assert_eq!((index, off), (vec![], [0]));
    }
}
