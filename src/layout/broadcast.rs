//! NumPy broadcasting of shapes.

use crate::error::{Error, Result};

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
        if i < pad {
            1
        } else {
            s[i - pad]
        }
    };
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            _ => Err(Error::BroadcastMismatch {
                a: a.to_vec(),
                b: b.to_vec(),
                dim: i,
            }),
        })
        .collect()
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
                a: vec![2, 1],
                b: vec![8, 4, 3],
                dim: 1
            })
        );
        assert!(broadcast_shapes(&[0], &[2]).is_err());
    }
}
