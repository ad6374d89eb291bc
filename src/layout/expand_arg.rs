//! [`ExpandShape`]: the target shapes `expand` takes, PyTorch's `x.expand(4, -1)` (`-1` keeps
//! a dim's size) as well as plain lengths.

use std::borrow::Cow;

use crate::error::{Error, Result};

/// A target shape for `expand`: lengths as `usize` (`&[2, 3]` typed, `t.shape()`, a
/// `Vec<usize>`), or signed lengths where `-1` keeps the size of the dim it lines up with
/// (PyTorch's `x.expand(4, -1)`; dims line up from the right). A `-1` for a new leading dim,
/// which has no size to keep, is an error, as in PyTorch. As for [`ShapeArg`](crate::ShapeArg),
/// an untyped literal length is an `i32`, so a length past 2^31 needs its type
/// (`&[1usize << 40]`).
///
/// ```
/// use stridex::{ExpandShape, Tensor};
/// assert_eq!([4, -1].resolve_expand("expand", &[1, 3])?.as_ref(), &[4, 3]);
/// let row = Tensor::from_vec(vec![1, 2, 3], &[1, 3])?;
/// assert_eq!(row.expand(&[4, -1])?.shape(), &[4, 3]);
/// assert_eq!(row.expand(&[2usize, 4, 3])?.shape(), &[2, 4, 3]);
/// assert!(row.expand(&[-1, 4, 3]).is_err()); // a new leading dim has no size to keep
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait ExpandShape {
    /// The target shape for an op (`op`, named in errors) on a layout of shape `current`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `op` for a negative length other than `-1`, or a `-1`
    /// for a new leading dim; none for unsigned shapes (the op checks them).
    fn resolve_expand(&self, op: &'static str, current: &[usize]) -> Result<Cow<'_, [usize]>>;
}

impl ExpandShape for [usize] {
    #[inline(always)]
    fn resolve_expand(&self, _op: &'static str, _current: &[usize]) -> Result<Cow<'_, [usize]>> {
        Ok(Cow::Borrowed(self))
    }
}

macro_rules! signed_expand {
    ($($t:ty),*) => {$(
        impl ExpandShape for [$t] {
            fn resolve_expand(
                &self,
                op: &'static str,
                current: &[usize],
            ) -> Result<Cow<'_, [usize]>> {
                let spec: Vec<i64> = self.iter().map(|&n| n as i64).collect();
                keep_sizes(op, &spec, current).map(Cow::Owned)
            }
        }
    )*};
}

signed_expand!(isize, i32, i64);

impl<S: ExpandShape + ?Sized> ExpandShape for &S {
    #[inline(always)]
    fn resolve_expand(&self, op: &'static str, current: &[usize]) -> Result<Cow<'_, [usize]>> {
        (**self).resolve_expand(op, current)
    }
}

impl<T, const N: usize> ExpandShape for [T; N]
where
    [T]: ExpandShape,
{
    #[inline(always)]
    fn resolve_expand(&self, op: &'static str, current: &[usize]) -> Result<Cow<'_, [usize]>> {
        self.as_slice().resolve_expand(op, current)
    }
}

impl<T> ExpandShape for Vec<T>
where
    [T]: ExpandShape,
{
    #[inline(always)]
    fn resolve_expand(&self, op: &'static str, current: &[usize]) -> Result<Cow<'_, [usize]>> {
        self.as_slice().resolve_expand(op, current)
    }
}

/// `spec` with each `-1` replaced by the size of the dim of `current` it lines up with (from
/// the right). A spec shorter than `current` is left for the op to reject.
fn keep_sizes(op: &'static str, spec: &[i64], current: &[usize]) -> Result<Vec<usize>> {
    // Dim `d` of `spec` lines up with dim `d + current.len() - spec.len()` of `current`.
    let aligned = |d: usize| (d + current.len()).checked_sub(spec.len());
    spec.iter()
        .enumerate()
        .map(|(d, &n)| match (n, aligned(d)) {
            (n, _) if n >= 0 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
            (-1, Some(i)) => Ok(current[i]),
            (-1, None) => Err(Error::InvalidArgument {
                op,
                message: format!(
                    "shape {spec:?} has -1 at dim {d}, a new leading dim of the {}-dim \
                     input: -1 keeps an existing dim's size; give the new dim's length",
                    current.len()
                ),
            }),
            (n, _) => Err(Error::InvalidArgument {
                op,
                message: format!(
                    "shape {spec:?} has length {n} at dim {d}; lengths are >= 0, or -1 to keep \
                     the size of the dim (an untyped literal is an i32: write a length past \
                     2^31 with its type, e.g. 1usize << 40)"
                ),
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minus_one_keeps_the_aligned_dim() {
        assert_eq!(keep_sizes("e", &[-1, 4], &[3, 1]), Ok(vec![3, 4]));
        assert_eq!(keep_sizes("e", &[2, -1, -1], &[3, 1]), Ok(vec![2, 3, 1]));
        assert!(matches!(
            keep_sizes("e", &[-1, 2, 3], &[2, 3]),
            Err(Error::InvalidArgument { op: "e", .. })
        ));
        assert!(keep_sizes("e", &[-2, 3], &[1, 3]).is_err());
        // Shorter than the input: left for `expand`'s rank check.
        assert_eq!(keep_sizes("e", &[-1], &[2, 3]), Ok(vec![3]));
    }
}
