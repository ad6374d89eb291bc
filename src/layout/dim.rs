//! [`Dim`]: a dim as users write it: `1`, `-1` (PyTorch's count from the end), or a `usize`
//! from a loop. Every op that takes a dim accepts any of them without a cast.

use crate::error::{Error, Result};
use crate::layout::Dims;

/// A dim index: any integer type. Non-negative values name the dim itself; negative ones
/// count from the end as in PyTorch (`-1` is the last dim of an `ndim`-dim tensor, `-ndim`
/// the first). Implemented for `usize`, `u32`, `u64`, `i32`, `i64` and `isize`, so a literal
/// (`1`, `-1`) needs no suffix.
///
/// ```
/// use stridex::{Dim, Tensor};
/// assert_eq!((-1i32).index("demo", 3)?, 2);
/// assert_eq!(2usize.index("demo", 3)?, 2);
/// let a = Tensor::<f32>::zeros(&[2, 3, 4])?;
/// assert_eq!(a.transpose(-2, -1)?.shape(), &[2, 4, 3]);
/// let err = a.narrow(-4, 0, 1).unwrap_err().to_string();
/// assert!(err.contains("dim -4") && err.contains("-1"), "{err}");
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait Dim: Copy {
    /// The dim this value names for an op on `ndim` dims: itself when non-negative (the op
    /// checks the range), `ndim + self` when negative.
    ///
    /// # Errors
    /// [`Error::NegativeDimOutOfRange`] naming `op`, the dim given and the dim it wraps to,
    /// when a negative value counts back past the first dim.
    fn index(self, op: &'static str, ndim: usize) -> Result<usize>;
}

macro_rules! unsigned_dim {
    ($($t:ty),*) => {$(
        impl Dim for $t {
            #[inline(always)]
            fn index(self, _op: &'static str, _ndim: usize) -> Result<usize> {
                // A value past `usize` is out of range whatever the layout: saturate, and the
                // op's own range check reports it.
                Ok(usize::try_from(self).unwrap_or(usize::MAX))
            }
        }
    )*};
}

macro_rules! signed_dim {
    ($($t:ty),*) => {$(
        impl Dim for $t {
            #[inline(always)]
            fn index(self, op: &'static str, ndim: usize) -> Result<usize> {
                if self >= 0 {
                    // Past `usize` (an `i64` on a 32-bit target) is out of range anyway.
                    return Ok(usize::try_from(self).unwrap_or(usize::MAX));
                }
                wrap_negative(self as i64, op, ndim)
            }
        }
    )*};
}

/// A negative dim counted from the end: out of line and cold, so the view ops' common path
/// (a non-negative dim) stays a compare and a branch and they still inline into the caller
/// (with the error construction inline, `narrow` then `t` on an owned tensor took 58-74 ns
/// against 46-58, bench_report small table).
#[cold]
#[inline(never)]
fn wrap_negative(dim: i64, op: &'static str, ndim: usize) -> Result<usize> {
    usize::try_from(ndim as i128 + dim as i128).map_err(|_| Error::NegativeDimOutOfRange {
        op,
        dim,
        ndim,
    })
}

unsigned_dim!(usize, u32, u64);
signed_dim!(i32, i64, isize);

/// A list of dims (the `*_dims` reductions' argument) resolved for an op on `ndim` dims: each
/// entry as [`Dim::index`] resolves it, in list order, inline up to 4 entries.
///
/// Ranges are left to the op (a dim `>= ndim` passes through, for its
/// [`Error::DimOutOfRange`]).
///
/// # Errors
/// [`Error::NegativeDimOutOfRange`] as [`Dim::index`]; [`Error::RepeatedDim`] naming both
/// entries as given when two resolve to the same dim (`[1, -1]` of 2 dims).
pub(crate) fn resolve_dims<D: Dim>(
    op: &'static str,
    dims: &[D],
    ndim: usize,
) -> Result<Dims<usize>> {
    let mut out = Dims::zeroed(dims.len());
    for (k, &d) in dims.iter().enumerate() {
        let i = d.index(op, ndim)?;
        if let Some(j) = out[..k].iter().position(|&p| p == i) {
            return Err(repeated(op, dims[j], d, i, ndim));
        }
        out[k] = i;
    }
    Ok(out)
}

/// [`Error::RepeatedDim`] for entries `a` and `b`, which both resolve to `dim`.
#[cold]
fn repeated<D: Dim>(op: &'static str, a: D, b: D, dim: usize, ndim: usize) -> Error {
    Error::RepeatedDim {
        op,
        given: (given(a, dim, ndim), given(b, dim, ndim)),
        dim,
        ndim,
    }
}

/// The value of `d`, which resolves to `dim` on `ndim` dims, as written: `dim` itself if it
/// was non-negative, `dim - ndim` if it counted from the end. (A negative entry resolves one
/// higher on one more dim; a non-negative one does not move.)
fn given<D: Dim>(d: D, dim: usize, ndim: usize) -> i64 {
    match d.index("", ndim + 1) {
        Ok(moved) if moved != dim => dim as i64 - ndim as i64,
        _ => dim as i64,
    }
}

/// `narrow`'s error for a negative `start` that [`Dim::index`] could not resolve against the
/// size of `dim` (of a layout of `ndim` dims): the dim itself when it is out of range, else an
/// index, not a dim, counted back too far.
#[cold]
#[inline(never)]
pub(crate) fn narrow_start_error(e: Error, dim: usize, ndim: usize) -> Error {
    if dim >= ndim {
        return Error::DimOutOfRange {
            op: "narrow",
            dim,
            ndim,
        };
    }
    match e {
        Error::NegativeDimOutOfRange {
            op,
            dim: start,
            ndim: size,
        } => Error::InvalidArgument {
            op,
            message: format!(
                "start {start} counts back past the first index of dim {dim} of size {size}; a \
                 negative start goes from -1 (the last index) to -{size} (the first)"
            ),
        },
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dim_lists_resolve_and_name_both_forms_of_a_repeat() {
        assert_eq!(&*resolve_dims("s", &[-1i32, 0], 3).unwrap(), &[2, 0]);
        assert_eq!(&*resolve_dims("s", &[2usize, 0, 1], 3).unwrap(), &[2, 0, 1]);
        assert_eq!(&*resolve_dims("s", &[7u32], 3).unwrap(), &[7]); // the op checks ranges
        assert!(resolve_dims::<i64>("s", &[], 0).unwrap().is_empty());
        let err = |dims: &[i64]| resolve_dims("sum_dims", dims, 2).unwrap_err();
        let e = Error::RepeatedDim {
            op: "sum_dims",
            given: (1, -1),
            dim: 1,
            ndim: 2,
        };
        assert_eq!(err(&[1, -1]), e);
        assert_eq!(
            err(&[-2, 0]),
            Error::RepeatedDim {
                op: "sum_dims",
                given: (-2, 0),
                dim: 0,
                ndim: 2
            }
        );
        assert_eq!(
            resolve_dims("s", &[0usize, 0], 1).unwrap_err(),
            Error::RepeatedDim {
                op: "s",
                given: (0, 0),
                dim: 0,
                ndim: 1
            }
        );
        assert!(matches!(
            err(&[-3]),
            Error::NegativeDimOutOfRange { dim: -3, .. }
        ));
    }

    #[test]
    fn negative_dims_wrap_and_positive_ones_pass_through() {
        assert_eq!((-1i32).index("t", 4), Ok(3));
        assert_eq!((-4i64).index("t", 4), Ok(0));
        assert_eq!(7usize.index("t", 4), Ok(7)); // the op reports the range
        assert_eq!(u64::MAX.index("t", 4), Ok(usize::MAX));
        assert_eq!(
            (-5isize).index("narrow", 4),
            Err(Error::NegativeDimOutOfRange {
                op: "narrow",
                dim: -5,
                ndim: 4
            })
        );
        assert_eq!(
            i64::MIN.index("t", 0),
            Err(Error::NegativeDimOutOfRange {
                op: "t",
                dim: i64::MIN,
                ndim: 0
            })
        );
    }
}
