//! Broadcasting the operands of an elementwise op to one shape (NumPy rules).

use crate::error::Result;
use crate::layout::{Layout, broadcast_shapes};

/// The shape every operand broadcasts to, folding [`broadcast_shapes`] over them in order.
///
/// # Errors
/// [`Error::BroadcastMismatch`](crate::Error::BroadcastMismatch) naming the shape broadcast so
/// far, the shape that does not fit it, and the conflicting dim of the result. For two operands
/// these are exactly the two input shapes.
pub(crate) fn broadcast_all(layouts: &[&Layout]) -> Result<Vec<usize>> {
    let mut shape: Vec<usize> = Vec::new();
    for (i, l) in layouts.iter().enumerate() {
        shape = if i == 0 {
            l.shape().to_vec()
        } else {
            broadcast_shapes(&shape, l.shape())?
        };
    }
    Ok(shape)
}

/// The strides of `layout` read as a layout of `shape` (which it broadcasts to): leading dims
/// it lacks and its size-1 dims that grow get stride 0, every other dim keeps its stride.
///
/// # Panics
/// If `layout` does not broadcast to `shape` (an internal caller error).
pub(crate) fn broadcast_strides(layout: &Layout, shape: &[usize]) -> Vec<isize> {
    let pad = shape
        .len()
        .checked_sub(layout.ndim())
        .expect("broadcast_strides: the layout has more dims than the target shape");
    let mut strides = vec![0isize; shape.len()];
    for (d, (&size, &stride)) in layout.shape().iter().zip(layout.strides()).enumerate() {
        let target = shape[pad + d];
        assert!(
            size == target || size == 1,
            "broadcast_strides: dim {d} does not broadcast"
        );
        strides[pad + d] = if size == target { stride } else { 0 };
    }
    strides
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn strides_of_broadcast_operands() {
        let row = Layout::contiguous(&[4]).unwrap();
        assert_eq!(broadcast_strides(&row, &[3, 4]), vec![0, 1]);
        let col = Layout::contiguous(&[3, 1]).unwrap();
        assert_eq!(broadcast_strides(&col, &[2, 3, 4]), vec![0, 1, 0]);
        let scalar = Layout::contiguous(&[]).unwrap();
        assert_eq!(broadcast_strides(&scalar, &[2]), vec![0]);
        let flipped = Layout::contiguous(&[3, 1]).unwrap().flip(0).unwrap();
        assert_eq!(broadcast_strides(&flipped, &[3, 1]), vec![-1, 1]);
    }

    #[test]
    fn mismatch_names_both_shapes_and_the_dim() {
        let a = Layout::contiguous(&[2, 3]).unwrap();
        let b = Layout::contiguous(&[4, 3]).unwrap();
        assert_eq!(
            broadcast_all(&[&a, &b]),
            Err(Error::BroadcastMismatch {
                op: "broadcast",
                a: vec![2, 3],
                b: vec![4, 3],
                dim: 0
            })
        );
        let c = Layout::contiguous(&[5, 1, 1]).unwrap();
        assert_eq!(broadcast_all(&[&a, &c]).unwrap(), vec![5, 2, 3]);
        assert_eq!(broadcast_all(&[&c]).unwrap(), vec![5, 1, 1]);
    }
}
