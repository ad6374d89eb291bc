//! Dimension coalescing: fewer, longer loops for the kernels.

/// Merges dims of one shape shared by several operands, in place, keeping each operand's
/// row-major element order.
///
/// `strides` holds one stride list per operand, each as long as `shape`. Size-1 dims are dropped
/// (their strides are never read) and dims `d, d + 1` are merged when, for *every* operand,
/// `stride[d] == shape[d + 1] * stride[d + 1]`. An empty shape (some size 0) becomes `[0]` with
/// stride 1 for every operand; a shape of only size-1 dims becomes 0-dim.
///
/// ```
/// use stridex::layout::coalesce_joint;
/// // A contiguous source and a destination that is contiguous in its last two dims only.
/// let mut shape = vec![2, 3, 4];
/// let mut strides = vec![vec![12, 4, 1], vec![40, 4, 1]];
/// coalesce_joint(&mut shape, &mut strides);
/// assert_eq!(shape, vec![2, 12]);
/// assert_eq!(strides, vec![vec![12, 1], vec![40, 1]]);
/// ```
///
/// Any sizes and strides are accepted, not only those of a valid [`Layout`](crate::Layout):
/// all arithmetic is checked, and two dims whose merged size or span would overflow are left
/// unmerged, so the result always describes the same element order as the input.
///
/// ```
/// use stridex::layout::coalesce_joint;
/// let mut shape = vec![usize::MAX, 2];
/// let mut strides = vec![vec![2, 1]];
/// coalesce_joint(&mut shape, &mut strides); // usize::MAX * 2 does not fit: kept apart
/// assert_eq!((shape, strides), (vec![usize::MAX, 2], vec![vec![2, 1]]));
/// ```
///
/// # Panics
/// If a stride list's length differs from `shape.len()`.
pub fn coalesce_joint(shape: &mut Vec<usize>, strides: &mut [Vec<isize>]) {
    for s in strides.iter() {
        assert_eq!(s.len(), shape.len(), "coalesce_joint: one stride per dim");
    }
    if shape.contains(&0) {
        *shape = vec![0];
        for s in strides.iter_mut() {
            *s = vec![1];
        }
        return;
    }
    let mut out = 0usize;
    for d in 0..shape.len() {
        if shape[d] == 1 {
            continue;
        }
        // The merged size, if the dims merge for every operand. Checked throughout: raw lists
        // from callers need not come from a valid layout.
        let merged = out
            .checked_sub(1)
            .filter(|&prev| {
                let size = isize::try_from(shape[d]).ok();
                strides
                    .iter()
                    .all(|s| size.and_then(|n| s[d].checked_mul(n)) == Some(s[prev]))
            })
            .and_then(|prev| shape[prev].checked_mul(shape[d]));
        if let Some(size) = merged {
            shape[out - 1] = size;
            for s in strides.iter_mut() {
                s[out - 1] = s[d];
            }
        } else {
            shape[out] = shape[d];
            for s in strides.iter_mut() {
                s[out] = s[d];
            }
            out += 1;
        }
    }
    shape.truncate(out);
    for s in strides.iter_mut() {
        s.truncate(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_only_when_every_operand_agrees() {
        let mut shape = vec![2, 3, 4];
        let mut strides = vec![vec![12, 4, 1], vec![1, 8, 2]];
        coalesce_joint(&mut shape, &mut strides);
        assert_eq!(shape, vec![2, 12]);
        assert_eq!(strides, vec![vec![12, 1], vec![1, 2]]);
    }

    #[test]
    fn drops_unit_dims_and_handles_empty() {
        let mut shape = vec![1, 5, 1];
        let mut strides = vec![vec![7, -1, 3]];
        coalesce_joint(&mut shape, &mut strides);
        assert_eq!((shape, strides), (vec![5], vec![vec![-1]]));

        let mut shape = vec![1, 1];
        let mut strides = vec![vec![0, 0]];
        coalesce_joint(&mut shape, &mut strides);
        assert_eq!((shape, strides), (vec![], vec![vec![]]));

        let mut shape = vec![3, 0];
        let mut strides = vec![vec![1, 3]];
        coalesce_joint(&mut shape, &mut strides);
        assert_eq!((shape, strides), (vec![0], vec![vec![1]]));
    }

    /// Issue 14, item 9: `coalesce_joint(&mut vec![usize::MAX, 2], &mut [vec![2, 1]])`
    /// multiplied the merged size unchecked (a debug panic, a silent wrap in release).
    #[test]
    fn sizes_whose_product_overflows_stay_unmerged() {
        let mut shape = vec![usize::MAX, 2];
        let mut strides = vec![vec![2, 1]];
        coalesce_joint(&mut shape, &mut strides);
        assert_eq!((shape, strides), (vec![usize::MAX, 2], vec![vec![2, 1]]));
        // A size above isize::MAX must not be cast to a negative stride factor.
        let mut shape = vec![3, usize::MAX];
        let mut strides = vec![vec![-1, 1]];
        coalesce_joint(&mut shape, &mut strides);
        assert_eq!((shape, strides), (vec![3, usize::MAX], vec![vec![-1, 1]]));
        // Stride products that overflow isize are not merged either.
        let mut shape = vec![2, 4];
        let mut strides = vec![vec![isize::MIN, isize::MAX / 2 + 1]];
        coalesce_joint(&mut shape, &mut strides);
        assert_eq!(shape, vec![2, 4]);
    }

    #[test]
    fn merges_negative_and_zero_strides() {
        let mut shape = vec![2, 3];
        let mut strides = vec![vec![-3, -1], vec![0, 0]];
        coalesce_joint(&mut shape, &mut strides);
        assert_eq!((shape, strides), (vec![6], vec![vec![-1], vec![0]]));
    }
}
