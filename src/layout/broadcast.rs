//! NumPy broadcasting of shapes.

use crate::error::{Error, Result};
use crate::layout::Layout;

impl Layout {
    /// The layout of the stored elements of a broadcast view: every dim of stride 0 and size
    /// `n > 1` becomes size 1, and `n` goes into the repeat count returned beside it (each
    /// element of the result stands for that many of this layout's). `None` when there is no
    /// such dim, or when the layout is empty (then nothing repeats).
    ///
    /// Whole-tensor reductions use it so that a huge expanded view costs what its stored
    /// elements cost: over repeats a max is the max, a sum is the sum times the count.
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::new(&[1 << 40, 3, 1 << 20], &[0, 1, 0], 2)?;
    /// let (stored, repeats) = l.without_repeats().unwrap();
    /// assert_eq!((stored.shape(), stored.strides()), (&[1, 3, 1][..], &[0, 1, 0][..]));
    /// assert_eq!((stored.offset(), repeats), (2, 1 << 60));
    /// assert!(Layout::contiguous(&[2, 3])?.without_repeats().is_none());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn without_repeats(&self) -> Option<(Layout, usize)> {
        let repeated = |(&n, &s): (&usize, &isize)| s == 0 && n > 1;
        if self.numel() == 0 || !self.shape().iter().zip(self.strides()).any(repeated) {
            return None;
        }
        let mut count = 1usize;
        let shape: Vec<usize> = (self.shape().iter().zip(self.strides()))
            .map(|(&n, &s)| {
                if repeated((&n, &s)) {
                    // The product of some sizes of a layout whose element count fits `usize`.
                    count = count.saturating_mul(n);
                    1
                } else {
                    n
                }
            })
            .collect();
        // Fewer elements at the same offsets, the same strides: a subset of this layout's
        // offsets, so every invariant carries over.
        let stored =
            Layout::checked("without_repeats", &shape, self.strides(), self.offset()).ok()?;
        Some((stored, count))
    }
}

/// The shape two shapes broadcast to, by NumPy's rules: align from the right; sizes must match
/// or one of them be 1 (a missing leading dim counts as 1).
///
/// # Errors
/// [`Error::BroadcastMismatch`] naming both shapes and the conflicting dim of the result.
///
/// ```
/// use stridex::broadcast_shapes;
/// assert_eq!(broadcast_shapes(&[8, 1, 6], &[7, 1])?, vec![8, 7, 6]);
/// assert_eq!(broadcast_shapes(&[], &[3])?, vec![3]);
/// assert!(broadcast_shapes(&[2, 3], &[4, 3]).is_err());
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let at = |s: &[usize], i: usize| {
        let pad = n - s.len();
        if i < pad { 1 } else { s[i - pad] }
    };
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            _ => Err(Error::BroadcastMismatch {
                op: "broadcast",
                a: a.to_vec(),
                b: b.to_vec(),
                dim: i,
            }),
        })
        .collect()
}

/// The shape any number of shapes broadcast to (NumPy's `broadcast_shapes(*shapes)`):
/// [`broadcast_shapes`] folded over them in order; no shapes give `[]` (a 0-dim shape).
///
/// # Errors
/// [`Error::BroadcastMismatch`] naming `broadcast_shapes_all`, the shape broadcast so far, the
/// shape that does not fit it and the conflicting dim of the result.
///
/// ```
/// use stridex::layout::broadcast_shapes_all;
/// assert_eq!(broadcast_shapes_all(&[&[8, 1, 6][..], &[7, 1], &[1]])?, vec![8, 7, 6]);
/// assert_eq!(broadcast_shapes_all(Vec::<Vec<usize>>::new())?, Vec::<usize>::new());
/// assert!(broadcast_shapes_all([vec![2, 3], vec![3], vec![4, 1]]).is_err());
/// # Ok::<(), stridex::Error>(())
/// ```
#[doc(alias = "broadcast_shapes")]
pub fn broadcast_shapes_all<S: AsRef<[usize]>>(
    shapes: impl IntoIterator<Item = S>,
) -> Result<Vec<usize>> {
    let mut out: Vec<usize> = Vec::new();
    for s in shapes {
        out = broadcast_shapes(&out, s.as_ref()).map_err(|e| e.named("broadcast_shapes_all"))?;
    }
    Ok(out)
}

impl Layout {
    /// This layout broadcast to `shape` (NumPy's `broadcast_to`): [`Layout::expand`], under
    /// NumPy's name.
    ///
    /// # Errors
    /// As [`Layout::expand`], naming `broadcast_to`.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[3])?.broadcast_to(&[2, 3])?;
    /// assert_eq!(l.strides(), &[0, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Layout> {
        self.expand(shape).map_err(|e| e.named("broadcast_to"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_examples() {
        assert_eq!(
            broadcast_shapes(&[256, 256, 3], &[3]).unwrap(),
            vec![256, 256, 3]
        );
        assert_eq!(broadcast_shapes(&[5, 4], &[1]).unwrap(), vec![5, 4]);
        assert_eq!(
            broadcast_shapes(&[15, 3, 5], &[15, 1, 5]).unwrap(),
            vec![15, 3, 5]
        );
        assert_eq!(broadcast_shapes(&[0, 1], &[1, 4]).unwrap(), vec![0, 4]);
        assert_eq!(broadcast_shapes(&[1], &[0]).unwrap(), vec![0]);
        assert_eq!(
            broadcast_shapes(&[2, 1], &[8, 4, 3]),
            Err(Error::BroadcastMismatch {
                op: "broadcast",
                a: vec![2, 1],
                b: vec![8, 4, 3],
                dim: 1
            })
        );
        assert!(broadcast_shapes(&[0], &[2]).is_err());
    }

    #[test]
    fn many_shapes_fold_in_order() {
        let none: [&[usize]; 0] = [];
        assert_eq!(broadcast_shapes_all(none).unwrap(), Vec::<usize>::new());
        assert_eq!(broadcast_shapes_all([&[3, 1][..]]).unwrap(), vec![3, 1]);
        assert_eq!(
            broadcast_shapes_all([&[2, 3][..], &[3], &[4, 1, 1]]),
            Ok(vec![4, 2, 3])
        );
        assert_eq!(
            broadcast_shapes_all([&[2, 3][..], &[3], &[4, 1]]),
            Err(Error::BroadcastMismatch {
                op: "broadcast_shapes_all",
                a: vec![2, 3],
                b: vec![4, 1],
                dim: 0
            })
        );
    }
}
