//! Shapes with one inferred dim (PyTorch's `-1` in `view` / `reshape`), and the shape of a
//! flattened range of dims.

use super::{Layout, checked_numel};
use crate::error::{Error, Result};

/// A shape as users write it for `view` and `reshape`: lengths as `usize` (`&[2, 12]`,
/// `t.shape()`, a `Vec<usize>`), or signed lengths with at most one `-1` inferred from the
/// element count (`&[-1, 4]`, PyTorch's `view(-1, 4)`). Signed shapes go through
/// [`infer_shape`]; unsigned ones are used as they are. An empty shape (a 0-dim result) has
/// no literal to infer its type from: write it `&[0usize; 0]`. An untyped literal length is an
/// `i32`, so a length past 2^31 needs its type (`&[1usize << 40]`; a compile-time error
/// otherwise, never a wrap).
///
/// ```
/// use stridex::{ShapeArg, Tensor};
/// assert_eq!([-1, 4].resolve("view", 12)?.as_ref(), &[3, 4]);
/// assert_eq!([3usize, 4].resolve("view", 12)?.as_ref(), &[3, 4]);
/// let a = Tensor::arange(0i32, 12, 1)?;
/// assert_eq!(a.view(&[-1, 4])?.shape(), &[3, 4]);
/// assert_eq!(a.view(&[2, 6])?.shape(), &[2, 6]); // plain lengths still work
/// assert_eq!(a.narrow(0, 0, 1)?.view(&[0usize; 0])?.ndim(), 0);
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait ShapeArg {
    /// The shape for an op (`op`, named in errors) on `numel` elements.
    ///
    /// # Errors
    /// As [`infer_shape`] for signed shapes; none for unsigned ones (the op checks the
    /// element count).
    fn resolve(&self, op: &'static str, numel: usize) -> Result<std::borrow::Cow<'_, [usize]>>;
}

impl ShapeArg for [usize] {
    #[inline(always)]
    fn resolve(&self, _op: &'static str, _numel: usize) -> Result<std::borrow::Cow<'_, [usize]>> {
        Ok(std::borrow::Cow::Borrowed(self))
    }
}

macro_rules! signed_shape {
    ($($t:ty),*) => {$(
        impl ShapeArg for [$t] {
            fn resolve(
                &self,
                op: &'static str,
                numel: usize,
            ) -> Result<std::borrow::Cow<'_, [usize]>> {
                // A length past `isize` is negative here and reported as such.
                let spec: Vec<isize> = self.iter().map(|&n| n as isize).collect();
                infer_shape(op, &spec, numel).map(std::borrow::Cow::Owned)
            }
        }
    )*};
}

signed_shape!(isize, i32, i64);

impl<S: ShapeArg + ?Sized> ShapeArg for &S {
    #[inline(always)]
    fn resolve(&self, op: &'static str, numel: usize) -> Result<std::borrow::Cow<'_, [usize]>> {
        (**self).resolve(op, numel)
    }
}

impl<T, const N: usize> ShapeArg for [T; N]
where
    [T]: ShapeArg,
{
    #[inline(always)]
    fn resolve(&self, op: &'static str, numel: usize) -> Result<std::borrow::Cow<'_, [usize]>> {
        self.as_slice().resolve(op, numel)
    }
}

impl<T> ShapeArg for Vec<T>
where
    [T]: ShapeArg,
{
    #[inline(always)]
    fn resolve(&self, op: &'static str, numel: usize) -> Result<std::borrow::Cow<'_, [usize]>> {
        self.as_slice().resolve(op, numel)
    }
}

/// `spec` as a shape holding `numel` elements: every entry is a length, except at most one
/// `-1`, which becomes whatever length makes the element count `numel`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `op` for a second `-1`, another negative entry, a `-1`
/// next to a zero-length dim (any length would do), or a count the others do not divide;
/// [`Error::NumelMismatch`] if there is no `-1` and the lengths do not hold `numel` elements.
///
/// ```
/// use stridex::layout::infer_shape;
/// assert_eq!(infer_shape("view", &[3, -1], 12)?, vec![3, 4]);
/// assert_eq!(infer_shape("view", &[-1], 0)?, vec![0]);
/// assert!(infer_shape("view", &[-1, -1], 12).is_err());
/// assert!(infer_shape("view", &[5, -1], 12).is_err());
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn infer_shape(op: &'static str, spec: &[isize], numel: usize) -> Result<Vec<usize>> {
    let bad = |message: String| Error::InvalidArgument { op, message };
    let mut infer = None;
    let mut shape = Vec::with_capacity(spec.len());
    for (d, &n) in spec.iter().enumerate() {
        match n {
            -1 if infer.is_some() => {
                return Err(bad(format!(
                    "shape {spec:?} has more than one -1 (dims {} and {d}); at most one dim can \
                     be inferred",
                    infer.unwrap_or(0)
                )));
            }
            -1 => {
                infer = Some(d);
                shape.push(1);
            }
            n if n < 0 => {
                return Err(bad(format!(
                    "shape {spec:?} has length {n} at dim {d}; lengths are >= 0, or -1 for the \
                     one inferred dim"
                )));
            }
            n => shape.push(n as usize),
        }
    }
    let Some(d) = infer else {
        let need = checked_numel(&shape);
        if need != Some(numel) {
            return Err(Error::NumelMismatch {
                op,
                have: numel,
                shape,
                need,
            });
        }
        return Ok(shape);
    };
    // The product of the known lengths (`shape[d]` is 1 for now).
    let known = checked_numel(&shape);
    match known {
        Some(0) => Err(bad(format!(
            "shape {spec:?} infers dim {d} next to a zero-length dim: any length would hold \
             {numel} elements; give every length"
        ))),
        Some(k) if numel % k == 0 => {
            shape[d] = numel / k;
            Ok(shape)
        }
        _ => Err(bad(format!(
            "shape {spec:?} cannot hold {numel} elements: the known lengths multiply to {}, \
             which does not divide {numel}",
            known.map_or("more than usize::MAX".to_string(), |k| k.to_string())
        ))),
    }
}

impl Layout {
    /// The shape with dims `start..=end` merged into one (PyTorch's `flatten(start, end)`).
    /// A 0-dim layout flattens to `[1]`.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] naming `flatten` if `start` or `end` is `>= ndim` (for a 0-dim
    /// layout, if either is not 0); [`Error::InvalidArgument`] if `start > end`.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[2, 3, 4, 5])?;
    /// assert_eq!(l.flattened_shape(1, 2)?, vec![2, 12, 5]);
    /// assert_eq!(l.flattened_shape(0, 3)?, vec![120]);
    /// assert!(l.flattened_shape(2, 1).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn flattened_shape(&self, start: usize, end: usize) -> Result<Vec<usize>> {
        let op = "flatten";
        if self.ndim() == 0 {
            return match (start, end) {
                (0, 0) => Ok(vec![1]),
                _ => Err(Error::DimOutOfRange {
                    op,
                    dim: start.max(end),
                    ndim: 1,
                }),
            };
        }
        self.check_dim(op, start)?;
        self.check_dim(op, end)?;
        if start > end {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "start dim {start} is after end dim {end}; give start <= end (both \
                     included)"
                ),
            });
        }
        let shape = self.shape();
        // A sub-product of the element count, which the layout invariant bounds.
        let merged = shape[start..=end].iter().product();
        let mut out = shape[..start].to_vec();
        out.push(merged);
        out.extend_from_slice(&shape[end + 1..]);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inference_matches_the_element_count() {
        for numel in [0usize, 1, 6, 24] {
            for spec in [&[-1][..], &[2, -1], &[-1, 3], &[2, -1, 3], &[1, -1, 1]] {
                match infer_shape("view", spec, numel) {
                    Ok(shape) => assert_eq!(checked_numel(&shape), Some(numel), "{spec:?}"),
                    Err(e) => {
                        let known: isize = spec.iter().filter(|&&n| n >= 0).product();
                        assert!(numel % known as usize != 0, "{spec:?} {numel}: {e}");
                    }
                }
            }
        }
        assert!(infer_shape("view", &[0, -1], 0).is_err());
        assert!(infer_shape("view", &[-2, 3], 6).is_err());
        assert!(infer_shape("reshape", &[isize::MAX, isize::MAX, -1], 6).is_err());
        assert!(matches!(
            infer_shape("reshape", &[2, 4], 6),
            Err(Error::NumelMismatch { op: "reshape", .. })
        ));
    }

    #[test]
    fn flattening_edges() {
        let s = Layout::contiguous(&[]).unwrap();
        assert_eq!(s.flattened_shape(0, 0).unwrap(), vec![1]);
        assert!(s.flattened_shape(0, 1).is_err());
        let l = Layout::contiguous(&[2, 0, 3]).unwrap();
        assert_eq!(l.flattened_shape(0, 1).unwrap(), vec![0, 3]);
        assert_eq!(l.flattened_shape(2, 2).unwrap(), vec![2, 0, 3]);
        assert!(l.flattened_shape(0, 3).is_err());
    }
}
