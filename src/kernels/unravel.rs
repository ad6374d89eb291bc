//! From a flat row-major position in a loop nest to a multi-index and operand offsets.

use crate::layout::Dims;

/// The multi-index of row-major position `flat` in `shape` and, for each of `N` operands, the
/// offset `Σ index[d] * strides[d][k]`. The index is inline up to rank 4, so a call
/// allocates nothing for common ranks.
///
/// `flat` must be below the product of `shape` (or 0 for an empty `shape`); the offsets are
/// then addressed offsets relative to the operands' first elements, so no sum overflows for
/// strides of valid layouts.
#[inline]
pub(crate) fn unravel_offsets<const N: usize>(
    flat: usize,
    shape: &[usize],
    strides: &[[isize; N]],
) -> (Dims<usize>, [isize; N]) {
    let mut index = Dims::zeroed(shape.len());
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

/// Steps `index` to the next row-major position in `shape`, keeping each operand's offset in
/// step (`offsets[k] = Σ index[d] * strides[d][k]`); wraps to all zeros after the last.
///
/// The same addressing argument as [`unravel_offsets`] keeps every sum in range.
#[inline]
pub(crate) fn advance_offsets<const N: usize>(
    index: &mut [usize],
    shape: &[usize],
    strides: &[[isize; N]],
    offsets: &mut [isize; N],
) {
    for d in (0..shape.len()).rev() {
        index[d] += 1;
        if index[d] < shape[d] {
            for k in 0..N {
                offsets[k] += strides[d][k];
            }
            return;
        }
        for k in 0..N {
            offsets[k] -= (shape[d] as isize - 1) * strides[d][k];
        }
        index[d] = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unravels_row_major_positions() {
        let (index, off) = unravel_offsets(7, &[2, 3, 2], &[[6, 1], [2, 10], [1, 100]]);
        // Rank 6 spills the index to the heap and reads the same.
        let shape6 = [2, 1, 3, 1, 2, 2];
        let (i6, o6) = unravel_offsets(23, &shape6, &[[1]; 6]);
        assert_eq!((&i6[..], o6), (&[1, 0, 2, 0, 1, 1][..], [5]));
        assert_eq!(index[..], [1, 0, 1]);
        assert_eq!(off, [7, 101]);
        let (index, off) = unravel_offsets(0, &[], &[] as &[[isize; 1]]);
        assert_eq!((&index[..], off), (&[][..], [0]));
    }

    #[test]
    fn advancing_matches_unravelling() {
        let (shape, strides) = ([2, 3, 2], [[6, 1], [2, 10], [1, 100]]);
        let (mut index, mut off) = unravel_offsets(0, &shape, &strides);
        for flat in 1..12 {
            advance_offsets(&mut index, &shape, &strides, &mut off);
            assert_eq!(
                (index.clone(), off),
                unravel_offsets(flat, &shape, &strides)
            );
        }
        advance_offsets(&mut index, &shape, &strides, &mut off);
        assert_eq!((&index[..], off), (&[0, 0, 0][..], [0, 0]));
    }
}
