//! Reversals of several dims and the rotations they make with a transpose: `flip_dims`,
//! `fliplr`, `flipud`, `rot90` (PyTorch's and NumPy's). Each is [`Layout::flip`] (negative
//! stride, offset at the last element) and [`Layout::transpose`], so each addresses exactly
//! the offsets of its input.

use super::Layout;
use crate::error::{Error, Result};

impl Layout {
    /// Reverses every dim in `dims` (PyTorch's `flip(dims)`, NumPy's `flip(axis=...)`) in one
    /// layout. A 0-dim layout accepts dim 0 and is returned unchanged, as [`Layout::flip`].
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::DuplicateDim`] for a dim named twice.
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[2, 3])?.flip_dims(&[0, 1])?;
    /// assert_eq!((l.strides(), l.offset()), (&[-3, -1][..], 5));
    /// assert!(Layout::contiguous(&[2, 3])?.flip_dims(&[1, 1]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn flip_dims(&self, dims: &[usize]) -> Result<Layout> {
        for (k, &d) in dims.iter().enumerate() {
            if dims[..k].contains(&d) {
                return Err(Error::DuplicateDim {
                    op: "flip_dims",
                    dim: d,
                });
            }
        }
        dims.iter().try_fold(self.clone(), |l, &d| {
            l.flip(d).map_err(|e| e.named("flip_dims"))
        })
    }

    /// Dim 1 reversed: left and right swapped (NumPy's and PyTorch's `fliplr`).
    ///
    /// # Errors
    /// [`Error::RankMismatch`] for fewer than 2 dims.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[2, 3])?.fliplr()?;
    /// assert_eq!((l.strides(), l.offset()), (&[3, -1][..], 2));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn fliplr(&self) -> Result<Layout> {
        self.check_rank_at_least("fliplr", 2)?;
        self.flip(1)
    }

    /// Dim 0 reversed: up and down swapped (NumPy's and PyTorch's `flipud`).
    ///
    /// # Errors
    /// [`Error::RankMismatch`] for a 0-dim layout.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[2, 3])?.flipud()?;
    /// assert_eq!((l.strides(), l.offset()), (&[-3, 1][..], 3));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn flipud(&self) -> Result<Layout> {
        self.check_rank_at_least("flipud", 1)?;
        self.flip(0)
    }

    /// The plane of dims `d0`, `d1` rotated by `k` quarter turns, from `d0` towards `d1`
    /// (PyTorch's and NumPy's `rot90(x, k, dims)`); a negative `k` turns the other way. One
    /// turn is `flip(d1)` then `transpose(d0, d1)`, two are `flip_dims(&[d0, d1])`, three are
    /// `flip(d0)` then `transpose(d0, d1)`.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::DuplicateDim`] if `d0 == d1`.
    ///
    /// ```
    /// use stridex::Layout;
    /// // [[0, 1, 2], [3, 4, 5]] turned once is [[2, 5], [1, 4], [0, 3]].
    /// let l = Layout::contiguous(&[2, 3])?.rot90(1, 0, 1)?;
    /// assert_eq!(l.shape(), &[3, 2]);
    /// assert_eq!((l.offset_of(&[0, 0])?, l.offset_of(&[0, 1])?, l.offset_of(&[2, 0])?), (2, 5, 0));
    /// assert_eq!(Layout::contiguous(&[2, 3])?.rot90(-1, 0, 1)?, Layout::contiguous(&[2, 3])?.rot90(3, 0, 1)?);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn rot90(&self, k: i64, d0: usize, d1: usize) -> Result<Layout> {
        const OP: &str = "rot90";
        self.check_dim(OP, d0)?;
        self.check_dim(OP, d1)?;
        if d0 == d1 {
            return Err(Error::DuplicateDim { op: OP, dim: d0 });
        }
        match k.rem_euclid(4) {
            0 => Ok(self.clone()),
            1 => self.flip(d1)?.transpose(d0, d1),
            2 => self.flip_dims(&[d0, d1]),
            _ => self.flip(d0)?.transpose(d0, d1),
        }
    }

    /// [`Error::RankMismatch`] naming `op` unless the layout has at least `min` dims.
    pub(crate) fn check_rank_at_least(&self, op: &'static str, min: usize) -> Result<()> {
        if self.ndim() >= min {
            Ok(())
        } else {
            Err(Error::RankMismatch {
                op,
                what: "dims (at least)",
                expected: min,
                got: self.ndim(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The offsets of a 2-dim layout, row by row.
    fn grid(l: &Layout) -> Vec<Vec<usize>> {
        (0..l.shape()[0])
            .map(|i| {
                (0..l.shape()[1])
                    .map(|j| l.offset_of(&[i, j]).unwrap())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn rot90_turns_as_numpy_does() {
        // np.rot90(np.arange(6).reshape(2, 3), k) for k = 0..4, written out.
        let l = Layout::contiguous(&[2, 3]).unwrap();
        let want: [Vec<Vec<usize>>; 4] = [
            vec![vec![0, 1, 2], vec![3, 4, 5]],
            vec![vec![2, 5], vec![1, 4], vec![0, 3]],
            vec![vec![5, 4, 3], vec![2, 1, 0]],
            vec![vec![3, 0], vec![4, 1], vec![5, 2]],
        ];
        for k in -4i64..8 {
            let got = grid(&l.rot90(k, 0, 1).unwrap());
            assert_eq!(got, want[k.rem_euclid(4) as usize], "k = {k}");
        }
        // Turning the other way round the same plane is the inverse.
        assert_eq!(
            grid(&l.rot90(1, 1, 0).unwrap()),
            grid(&l.rot90(-1, 0, 1).unwrap())
        );
        assert!(matches!(
            l.rot90(1, 0, 0),
            Err(Error::DuplicateDim { op: "rot90", .. })
        ));
        assert!(matches!(l.rot90(1, 0, 2), Err(Error::DimOutOfRange { .. })));
    }

    #[test]
    fn flips_of_several_dims() {
        let l = Layout::contiguous(&[2, 3, 4]).unwrap();
        let f = l.flip_dims(&[2, 0]).unwrap();
        assert_eq!(f, l.flip(0).unwrap().flip(2).unwrap());
        assert_eq!(l.flip_dims(&[]).unwrap(), l);
        assert!(matches!(
            l.flip_dims(&[0, 3]),
            Err(Error::DimOutOfRange {
                op: "flip_dims",
                dim: 3,
                ..
            })
        ));
        assert!(matches!(
            Layout::contiguous(&[3]).unwrap().fliplr(),
            Err(Error::RankMismatch { op: "fliplr", .. })
        ));
        assert!(Layout::new(&[], &[], 0).unwrap().flipud().is_err());
    }
}
