//! Shape changes that keep every stride they can: `unflatten` (one dim split into several),
//! `squeeze_dims` (several size-1 dims removed), `atleast_1d` / `2d` / `3d` (NumPy's placement
//! of new size-1 dims) and `view_f` (a view in column-major order, NumPy's
//! `reshape(order='F')`).

use super::Layout;
use super::dims::Dims;
use crate::error::{Error, Result};

impl Layout {
    /// Dim `dim` split into dims of `sizes` (PyTorch's `unflatten`), row-major inside it: the
    /// last new dim has the old stride, each earlier one the stride of the dims after it. The
    /// inverse of merging those dims with `flatten`; always a view.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::NumelMismatch`] naming `unflatten` unless the sizes
    /// multiply to `shape[dim]`.
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[2, 12])?.t()?.unflatten(0, &[3, 4])?;
    /// assert_eq!((l.shape(), l.strides()), (&[3, 4, 2][..], &[4, 1, 12][..]));
    /// assert!(Layout::contiguous(&[2, 12])?.unflatten(1, &[5, 2]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn unflatten(&self, dim: usize, sizes: &[usize]) -> Result<Layout> {
        const OP: &str = "unflatten";
        self.check_dim(OP, dim)?;
        let have = self.shape()[dim];
        let need = super::checked_numel(sizes);
        if need != Some(have) {
            return Err(Error::NumelMismatch {
                op: OP,
                have,
                shape: sizes.to_vec(),
                need,
            });
        }
        let overflow = || Error::Overflow {
            op: OP,
            shape: self.shape().to_vec(),
            strides: self.strides().to_vec(),
        };
        let mut split = Dims::<isize>::zeroed(sizes.len());
        let mut acc = self.strides()[dim];
        for (s, &n) in split.iter_mut().zip(sizes).rev() {
            *s = acc;
            // Only an empty dim's sizes can multiply past `isize` (the product is otherwise
            // `have`); its strides are never read, so any that fits will do.
            acc = acc.checked_mul(n.max(1) as isize).ok_or_else(overflow)?;
        }
        let shape: Dims<usize> = (self.shape()[..dim].iter().chain(sizes))
            .chain(&self.shape()[dim + 1..])
            .copied()
            .collect();
        let strides: Dims<isize> = (self.strides()[..dim].iter().chain(split.iter()))
            .chain(&self.strides()[dim + 1..])
            .copied()
            .collect();
        Layout::checked(OP, &shape, &strides, self.offset())
    }

    /// Removes every dim in `dims`, each of which must have size 1 (NumPy's `squeeze(axis=...)`;
    /// PyTorch's `squeeze(dims)` instead keeps a named dim whose size is not 1).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::DuplicateDim`] for a dim named twice,
    /// [`Error::SqueezeNonUnit`].
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[1, 3, 1, 2])?;
    /// assert_eq!(l.squeeze_dims(&[2, 0])?.shape(), &[3, 2]);
    /// assert!(l.squeeze_dims(&[1]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn squeeze_dims(&self, dims: &[usize]) -> Result<Layout> {
        let mut drop = Dims::<bool>::zeroed(self.ndim());
        for &d in dims {
            self.check_dim("squeeze_dims", d)?;
            if std::mem::replace(&mut drop[d], true) {
                return Err(Error::DuplicateDim {
                    op: "squeeze_dims",
                    dim: d,
                });
            }
            if self.shape()[d] != 1 {
                return Err(Error::SqueezeNonUnit {
                    dim: d,
                    size: self.shape()[d],
                    shape: self.shape().to_vec(),
                });
            }
        }
        let keep = |&d: &usize| !drop[d];
        let shape: Dims<usize> = (0..self.ndim())
            .filter(keep)
            .map(|d| self.shape()[d])
            .collect();
        let strides: Dims<isize> = (0..self.ndim())
            .filter(keep)
            .map(|d| self.strides()[d])
            .collect();
        Ok(self.rearranged(&shape, &strides))
    }

    /// At least one dim: a 0-dim layout becomes shape `[1]`, others are unchanged (NumPy's
    /// `atleast_1d`).
    ///
    /// ```
    /// let s = stridex::Layout::new(&[], &[], 4)?;
    /// assert_eq!((s.atleast_1d().shape(), s.atleast_1d().offset()), (&[1][..], 4));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn atleast_1d(&self) -> Layout {
        self.with_leading_and_trailing(1 - self.ndim().min(1), 0)
    }

    /// At least two dims: `[]` becomes `[1, 1]` and `[n]` becomes `[1, n]` (NumPy's
    /// `atleast_2d`).
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[5])?;
    /// assert_eq!(l.atleast_2d().shape(), &[1, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn atleast_2d(&self) -> Layout {
        self.with_leading_and_trailing(2 - self.ndim().min(2), 0)
    }

    /// At least three dims: `[]` becomes `[1, 1, 1]`, `[n]` becomes `[1, n, 1]` and `[m, n]`
    /// becomes `[m, n, 1]` (NumPy's `atleast_3d`: a vector is one row of one channel).
    ///
    /// ```
    /// use stridex::Layout;
    /// assert_eq!(Layout::contiguous(&[5])?.atleast_3d().shape(), &[1, 5, 1]);
    /// assert_eq!(Layout::contiguous(&[2, 5])?.atleast_3d().shape(), &[2, 5, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn atleast_3d(&self) -> Layout {
        match self.ndim() {
            0 => self.with_leading_and_trailing(3, 0),
            1 => self.with_leading_and_trailing(1, 1),
            2 => self.with_leading_and_trailing(0, 1),
            _ => self.clone(),
        }
    }

    /// This layout with `lead` size-1 dims before its dims and `trail` after them, with
    /// [`Layout::unsqueeze`]'s strides.
    fn with_leading_and_trailing(&self, lead: usize, trail: usize) -> Layout {
        let mut shape = Dims::from(self.shape());
        let mut strides = Dims::from(self.strides());
        for _ in 0..trail {
            shape.push(1);
            strides.push(1);
        }
        for _ in 0..lead {
            let stride = strides
                .first()
                .zip(shape.first())
                .and_then(|(&s, &n)| s.checked_mul(n as isize))
                .unwrap_or(1);
            shape.insert(0, 1);
            strides.insert(0, stride);
        }
        self.rearranged(&shape, &strides)
    }

    /// The same elements in column-major order under a new shape, without copying (NumPy's
    /// `reshape(shape, order='F')` when it is a view): the first index varies fastest, in the
    /// input as in the result. It is [`Layout::view`] with every dim reversed on both sides.
    ///
    /// # Errors
    /// [`Error::NumelMismatch`] naming `view_f`; [`Error::InvalidArgument`] naming `view_f`
    /// and the dims that would have to be merged when no strides express the shape (then
    /// `Tensor::reshape_f` copies).
    ///
    /// ```
    /// use stridex::Layout;
    /// let f = Layout::new(&[2, 3], &[1, 2], 0)?; // column-major 2 x 3
    /// let l = f.view_f(&[6])?;
    /// assert_eq!(l.strides(), &[1]);
    /// assert_eq!(f.view_f(&[3, 2])?.strides(), &[1, 3]);
    /// assert!(Layout::contiguous(&[2, 3])?.view_f(&[6]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "reshape_f")]
    pub fn view_f(&self, shape: &[usize]) -> Result<Layout> {
        let reversed: Dims<usize> = shape.iter().rev().copied().collect();
        match self.reversed_dims().view(&reversed) {
            Ok(l) => Ok(l.reversed_dims()),
            Err(Error::ViewNotPossible { dims: (a, b), .. }) => {
                // The reversed layout's dims `a..=b` are this layout's `n-1-b ..= n-1-a`.
                let n = self.ndim();
                Err(Error::InvalidArgument {
                    op: "view_f",
                    message: format!(
                        "shape {:?} with strides {:?} cannot be viewed as {shape:?} in \
                         column-major order: dims {}..={} would have to be merged, which needs \
                         each dim's stride to be the previous dim's stride times its size; \
                         call reshape_f() to copy",
                        self.shape(),
                        self.strides(),
                        n - 1 - b,
                        n - 1 - a
                    ),
                })
            }
            Err(e) => Err(e.named("view_f")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(shape: &[usize]) -> Layout {
        Layout::contiguous(shape).unwrap()
    }

    #[test]
    fn unflatten_splits_one_dim_row_major() {
        let l = c(&[2, 12, 5]);
        let u = l.unflatten(1, &[2, 3, 2]).unwrap();
        assert_eq!(u, l.view(&[2, 2, 3, 2, 5]).unwrap());
        let f = l.flip(1).unwrap().unflatten(1, &[4, 3]).unwrap();
        assert_eq!((f.strides(), f.offset()), (&[60, -15, -5, 1][..], 55));
        assert_eq!(c(&[3]).unflatten(0, &[3]).unwrap(), c(&[3]));
        assert_eq!(c(&[0]).unflatten(0, &[0, 5]).unwrap().shape(), &[0, 5]);
        assert!(matches!(
            l.unflatten(1, &[5, 2]),
            Err(Error::NumelMismatch {
                op: "unflatten",
                have: 12,
                ..
            })
        ));
        assert!(matches!(
            l.unflatten(3, &[1]),
            Err(Error::DimOutOfRange { .. })
        ));
    }

    #[test]
    fn squeeze_dims_errors() {
        let l = c(&[1, 3, 1]);
        assert_eq!(l.squeeze_dims(&[]).unwrap(), l);
        assert!(matches!(
            l.squeeze_dims(&[0, 0]),
            Err(Error::DuplicateDim { dim: 0, .. })
        ));
        assert!(matches!(
            l.squeeze_dims(&[3]),
            Err(Error::DimOutOfRange { dim: 3, .. })
        ));
        assert!(matches!(
            l.squeeze_dims(&[1]),
            Err(Error::SqueezeNonUnit { dim: 1, .. })
        ));
    }

    #[test]
    fn atleast_matches_numpy_shapes() {
        let s = Layout::new(&[], &[], 2).unwrap();
        let v = c(&[4]);
        let m = c(&[2, 4]);
        let t = c(&[2, 3, 4]);
        assert_eq!(
            [s.atleast_1d(), s.atleast_2d(), s.atleast_3d()].map(|l| l.shape().to_vec()),
            [vec![1], vec![1, 1], vec![1, 1, 1]]
        );
        assert_eq!(v.atleast_1d(), v);
        assert_eq!(v.atleast_2d().shape(), &[1, 4]);
        assert_eq!(m.atleast_2d(), m);
        assert_eq!(m.atleast_3d().shape(), &[2, 4, 1]);
        assert_eq!(t.atleast_3d(), t);
        assert_eq!(s.atleast_3d().offset(), 2);
    }

    #[test]
    fn column_major_views() {
        // A row-major 2 x 3 read in column-major order is 0, 3, 1, 4, 2, 5: not one stride.
        let err = c(&[2, 3]).view_f(&[6]).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { op: "view_f", .. }));
        assert!(err.to_string().contains("dims 0..=1"), "{err}");
        // Splitting the first dim of a row-major layout in column-major order is a view.
        let l = c(&[6, 2]).view_f(&[2, 3, 2]).unwrap();
        assert_eq!(l.strides(), &[2, 4, 1]);
        assert!(matches!(
            c(&[2, 3]).view_f(&[7]),
            Err(Error::NumelMismatch { op: "view_f", .. })
        ));
    }
}
