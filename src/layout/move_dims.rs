//! Dim reorderings beyond `permute`: `movedim` (PyTorch's `movedim`, NumPy's `moveaxis`), `mt`
//! (PyTorch's `.mT`: the last two dims swapped) and `reversed_dims` (PyTorch's and NumPy's
//! `.T`: every dim reversed). Each is a permutation of the dims, so it keeps every layout
//! invariant and allocates nothing up to 4 dims.

use super::Layout;
use super::dims::Dims;
use crate::error::{Error, Result};

impl Layout {
    /// Moves dims `src[i]` to positions `dst[i]`; the other dims keep their relative order in
    /// the remaining positions (PyTorch's `movedim`, NumPy's `moveaxis`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `src` and `dst` differ in length,
    /// [`Error::DimOutOfRange`] for a dim `>= ndim` in either, [`Error::DuplicateDim`] for a
    /// dim named twice in either.
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[2, 3, 4, 5])?;
    /// assert_eq!(l.movedim(&[0], &[3])?.shape(), &[3, 4, 5, 2]);
    /// assert_eq!(l.movedim(&[3, 0], &[0, 1])?.shape(), &[5, 2, 3, 4]);
    /// assert!(l.movedim(&[0, 0], &[1, 2]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "moveaxis")]
    pub fn movedim(&self, src: &[usize], dst: &[usize]) -> Result<Layout> {
        const OP: &str = "movedim";
        let n = self.ndim();
        if src.len() != dst.len() {
            return Err(Error::InvalidArgument {
                op: OP,
                message: format!(
                    "{} source dims {src:?} but {} destinations {dst:?}; give one destination \
                     per source dim",
                    src.len(),
                    dst.len()
                ),
            });
        }
        // `perm[d]` is the input dim placed at result dim `d` (`usize::MAX`: not yet placed).
        let mut perm = Dims::<usize>::zeroed(n);
        perm.fill(usize::MAX);
        let mut moved = Dims::<bool>::zeroed(n);
        for (&s, &d) in src.iter().zip(dst) {
            self.check_dim(OP, s)?;
            self.check_dim(OP, d)?;
            if moved[s] {
                return Err(Error::DuplicateDim { op: OP, dim: s });
            }
            if perm[d] != usize::MAX {
                return Err(Error::DuplicateDim { op: OP, dim: d });
            }
            moved[s] = true;
            perm[d] = s;
        }
        // The dims not moved fill the free positions in order.
        let mut rest = (0..n).filter(|&d| !moved[d]);
        for p in perm.iter_mut().filter(|p| **p == usize::MAX) {
            *p = rest.next().unwrap_or_default();
        }
        self.permute(&perm)
    }

    /// The last two dims swapped (PyTorch's `.mT`): the matrix transpose of each matrix of a
    /// batch.
    ///
    /// # Errors
    /// [`Error::RankMismatch`] naming `mt` for fewer than 2 dims.
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[5, 2, 3])?.mt()?;
    /// assert_eq!((l.shape(), l.strides()), (&[5, 3, 2][..], &[6, 1, 3][..]));
    /// assert!(Layout::contiguous(&[3])?.mt().is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "mT")]
    pub fn mt(&self) -> Result<Layout> {
        let n = self.ndim();
        if n < 2 {
            return Err(Error::RankMismatch {
                op: "mt",
                what: "dims (at least)",
                expected: 2,
                got: n,
            });
        }
        self.transpose(n - 2, n - 1)
    }

    /// Every dim in reverse order (PyTorch's and NumPy's `.T`, ndarray's `reversed_axes`); 0-
    /// and 1-dim layouts are unchanged. For 2 dims this is [`Layout::t`].
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[2, 3, 4])?.reversed_dims();
    /// assert_eq!((l.shape(), l.strides()), (&[4, 3, 2][..], &[1, 4, 12][..]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "T")]
    #[doc(alias = "reversed_axes")]
    #[must_use]
    pub fn reversed_dims(&self) -> Layout {
        let shape: Dims<usize> = self.shape().iter().rev().copied().collect();
        let strides: Dims<isize> = self.strides().iter().rev().copied().collect();
        self.rearranged(&shape, &strides)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movedim_matches_numpy_moveaxis() {
        // (src, dst, resulting shape of a [2, 3, 4, 5] layout), as NumPy's moveaxis gives it.
        #[rustfmt::skip]
        let cases: &[(&[usize], &[usize], &[usize])] = &[
            (&[0], &[0], &[2, 3, 4, 5]),
            (&[0], &[3], &[3, 4, 5, 2]),
            (&[3], &[0], &[5, 2, 3, 4]),
            (&[1], &[2], &[2, 4, 3, 5]),
            (&[0, 1], &[2, 3], &[4, 5, 2, 3]),
            (&[0, 1], &[3, 2], &[4, 5, 3, 2]),
            (&[2, 0], &[0, 3], &[4, 3, 5, 2]),
            (&[], &[], &[2, 3, 4, 5]),
        ];
        let l = Layout::contiguous(&[2, 3, 4, 5]).unwrap();
        for &(src, dst, want) in cases {
            assert_eq!(
                l.movedim(src, dst).unwrap().shape(),
                want,
                "{src:?} -> {dst:?}"
            );
        }
        assert!(matches!(
            l.movedim(&[0], &[4]),
            Err(Error::DimOutOfRange { dim: 4, .. })
        ));
        assert!(matches!(
            l.movedim(&[0, 1], &[2, 2]),
            Err(Error::DuplicateDim { dim: 2, .. })
        ));
        assert!(matches!(
            l.movedim(&[0], &[1, 2]),
            Err(Error::InvalidArgument { op: "movedim", .. })
        ));
    }

    #[test]
    fn reversed_and_matrix_transposes() {
        let s = Layout::new(&[], &[], 3).unwrap();
        assert_eq!(s.reversed_dims(), s);
        let l = Layout::contiguous(&[2, 3]).unwrap();
        assert_eq!(l.reversed_dims(), l.t().unwrap());
        assert_eq!(l.mt().unwrap(), l.t().unwrap());
        assert!(matches!(
            s.mt(),
            Err(Error::RankMismatch {
                op: "mt",
                got: 0,
                ..
            })
        ));
    }
}
