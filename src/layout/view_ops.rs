//! The view ops: each one a pure function from a layout (and arguments) to a new layout over the
//! same storage. None touches element data; every result passes through [`Layout::checked`].

use super::Layout;
use super::dims::Dims;
use crate::error::{Error, Result};

/// `offset + delta`, or `offset` itself when that leaves `0..=isize::MAX`. A result with
/// elements starts at an element of its input, an addressed offset, so it is in range
/// (invariant 3) and always shifts; only an empty result can fall outside, and it keeps
/// `offset`, since it addresses nothing. (So no caller has to look for a size-0 dim first.)
#[inline]
pub(super) fn shifted(offset: usize, delta: i128) -> usize {
    let moved = offset as i128 + delta;
    if (0..=isize::MAX as i128).contains(&moved) {
        moved as usize
    } else {
        offset
    }
}

/// NumPy's `start:end:step` (`step != 0`) of a dim of `size` elements and `stride`: the first
/// index (clamped, so possibly `size` or `-1` for an empty result), the length and the new
/// stride, `stride * step`; `None` if that overflows with more than one element (with at most
/// one element the stride is never read, and `stride` is kept).
pub(super) fn slice_dim(
    size: usize,
    stride: isize,
    start: isize,
    end: isize,
    step: isize,
) -> Option<(isize, usize, isize)> {
    // size <= isize::MAX by invariant 2.
    let n = size as isize;
    let (first, len) = if step > 0 {
        let clamp = |i: isize| if i < 0 { (i + n).max(0) } else { i.min(n) };
        let (s, e) = (clamp(start), clamp(end));
        (
            s,
            if e > s {
                ((e - s - 1) / step) as usize + 1
            } else {
                0
            },
        )
    } else {
        let clamp = |i: isize| if i < 0 { (i + n).max(-1) } else { i.min(n - 1) };
        let (s, e) = (clamp(start), clamp(end));
        let len = if s > e {
            (s - e - 1).unsigned_abs() / step.unsigned_abs() + 1
        } else {
            0
        };
        (s, len)
    };
    let new_stride = match stride.checked_mul(step) {
        Some(s) => s,
        None if len <= 1 => stride,
        None => return None,
    };
    Some((first, len, new_stride))
}

impl Layout {
    /// Swaps dims `d0` and `d1` (shape and strides).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] if either dim is `>= ndim`.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[2, 3, 4])?.transpose(0, 2)?;
    /// assert_eq!((l.shape(), l.strides()), (&[4, 3, 2][..], &[1, 4, 12][..]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[inline]
    pub fn transpose(&self, d0: usize, d1: usize) -> Result<Layout> {
        let mut l = self.clone();
        l.transpose_in_place(d0, d1)?;
        Ok(l)
    }

    /// [`Layout::transpose`] applied to this layout itself (unchanged on error). The view ops
    /// of `Tensor` edit a clone in place like this, so the result is built where it is
    /// returned instead of being assembled and moved.
    #[inline]
    pub(crate) fn transpose_in_place(&mut self, d0: usize, d1: usize) -> Result<()> {
        self.check_dim("transpose", d0)?;
        self.check_dim("transpose", d1)?;
        // Swapping two dims addresses the same offsets: every invariant carries over.
        let (shape, strides) = self.dims.parts_mut();
        shape.swap(d0, d1);
        strides.swap(d0, d1);
        Ok(())
    }

    /// Matrix transpose: swaps the two dims of a 2-dim layout; 0- and 1-dim layouts are returned
    /// unchanged (as in PyTorch).
    ///
    /// # Errors
    /// [`Error::RankMismatch`] for more than 2 dims.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[2, 3])?.t()?;
    /// assert_eq!(l.strides(), &[1, 3]);
    /// assert!(stridex::Layout::contiguous(&[2, 3, 4])?.t().is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[inline]
    pub fn t(&self) -> Result<Layout> {
        let mut l = self.clone();
        l.t_in_place()?;
        Ok(l)
    }

    /// [`Layout::t`] applied to this layout itself (unchanged on error), as
    /// [`Layout::transpose_in_place`].
    #[inline]
    pub(crate) fn t_in_place(&mut self) -> Result<()> {
        match self.ndim() {
            0 | 1 => Ok(()),
            2 => self.transpose_in_place(0, 1),
            n => Err(Error::RankMismatch {
                op: "t",
                what: "dims (at most)",
                expected: 2,
                got: n,
            }),
        }
    }

    /// Reorders the dims: result dim `i` is input dim `dims[i]`.
    ///
    /// # Errors
    /// [`Error::NotAPermutation`] unless `dims` names each of `0..ndim` exactly once.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[2, 3, 4])?.permute(&[2, 0, 1])?;
    /// assert_eq!((l.shape(), l.strides()), (&[4, 2, 3][..], &[1, 12, 4][..]));
    /// assert!(stridex::Layout::contiguous(&[2, 3])?.permute(&[0, 0]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn permute(&self, dims: &[usize]) -> Result<Layout> {
        let n = self.ndim();
        let mut seen = vec![false; n];
        let valid = dims.len() == n
            && dims
                .iter()
                .all(|&d| d < n && !std::mem::replace(&mut seen[d], true));
        if !valid {
            return Err(Error::NotAPermutation {
                dims: dims.to_vec(),
                ndim: n,
            });
        }
        let shape: Dims<usize> = dims.iter().map(|&d| self.shape()[d]).collect();
        let strides: Dims<isize> = dims.iter().map(|&d| self.strides()[d]).collect();
        Ok(self.rearranged(&shape, &strides))
    }

    /// Keeps indices `start..start + len` of `dim`.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], or [`Error::RangeOutOfBounds`] if `start + len > shape[dim]`.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[4, 5])?.narrow(1, 1, 3)?;
    /// assert_eq!((l.shape(), l.strides(), l.offset()), (&[4, 3][..], &[5, 1][..], 1));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[inline]
    pub fn narrow(&self, dim: usize, start: usize, len: usize) -> Result<Layout> {
        let mut l = self.clone();
        l.narrow_in_place(dim, start, len)?;
        Ok(l)
    }

    /// [`Layout::narrow`] applied to this layout itself (unchanged on error), as
    /// [`Layout::transpose_in_place`].
    #[inline]
    pub(crate) fn narrow_in_place(&mut self, dim: usize, start: usize, len: usize) -> Result<()> {
        self.check_dim("narrow", dim)?;
        let size = self.shape()[dim];
        if start.checked_add(len).is_none_or(|end| end > size) {
            return Err(Error::RangeOutOfBounds {
                op: "narrow",
                dim,
                start,
                len,
                size,
            });
        }
        #[cfg(debug_assertions)]
        let before = self.clone();
        let delta = start as i128 * self.strides()[dim] as i128;
        self.dims.parts_mut().0[dim] = len;
        self.offset = shifted(self.offset, delta);
        // A narrowed layout addresses a subset of the offsets it addressed before (or none),
        // so it keeps every invariant without re-checking them; a debug build checks.
        #[cfg(debug_assertions)]
        before.check_subset(self);
        Ok(())
    }

    /// NumPy-style slice `start:end:step` of `dim`.
    ///
    /// Negative `start`/`end` count from the end of the dim, and out-of-range bounds are clamped
    /// (as NumPy does), so a slice is never out of bounds. With a negative `step` the slice walks
    /// backwards from `start` down to, but excluding, `end`; pass `end = isize::MIN` to run to the
    /// first element. The result has stride `stride * step`.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::ZeroStep`], [`Error::Overflow`] if `stride * step`
    /// overflows.
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[10])?;
    /// let s = l.slice(0, 1, 8, 3)?; // indices 1, 4, 7
    /// assert_eq!((s.shape(), s.strides(), s.offset()), (&[3][..], &[3][..], 1));
    /// let r = l.slice(0, -1, isize::MIN, -2)?; // indices 9, 7, 5, 3, 1
    /// assert_eq!((r.shape(), r.strides(), r.offset()), (&[5][..], &[-2][..], 9));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn slice(&self, dim: usize, start: isize, end: isize, step: isize) -> Result<Layout> {
        self.check_dim("slice", dim)?;
        if step == 0 {
            return Err(Error::ZeroStep { op: "slice", dim });
        }
        let stride = self.strides()[dim];
        let Some((first, len, new_stride)) = slice_dim(self.shape()[dim], stride, start, end, step)
        else {
            return Err(Error::Overflow {
                op: "slice",
                shape: self.shape().to_vec(),
                strides: self.strides().to_vec(),
            });
        };
        let mut shape = Dims::from(self.shape());
        let mut strides = Dims::from(self.strides());
        shape[dim] = len;
        strides[dim] = new_stride;
        let offset = shifted(self.offset, first as i128 * stride as i128);
        Layout::checked("slice", &shape, &strides, offset)
    }

    /// Index `index` of `dim`, dropping that dim.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::IndexOutOfRange`].
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[4, 5])?.select(0, 2)?;
    /// assert_eq!((l.shape(), l.strides(), l.offset()), (&[5][..], &[1][..], 10));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn select(&self, dim: usize, index: usize) -> Result<Layout> {
        self.check_dim("select", dim)?;
        let size = self.shape()[dim];
        if index >= size {
            return Err(Error::IndexOutOfRange {
                op: "select",
                dim,
                index,
                size,
            });
        }
        let (mut shape, mut strides) = (Dims::from(self.shape()), Dims::from(self.strides()));
        shape.remove(dim);
        let stride = strides.remove(dim);
        let offset = shifted(self.offset, index as i128 * stride as i128);
        Layout::checked("select", &shape, &strides, offset)
    }

    /// Removes `dim`, which must have size 1.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::SqueezeNonUnit`].
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[3, 1, 2])?.squeeze(1)?;
    /// assert_eq!((l.shape(), l.strides()), (&[3, 2][..], &[2, 1][..]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn squeeze(&self, dim: usize) -> Result<Layout> {
        self.check_dim("squeeze", dim)?;
        if self.shape()[dim] != 1 {
            return Err(Error::SqueezeNonUnit {
                dim,
                size: self.shape()[dim],
                shape: self.shape().to_vec(),
            });
        }
        let (mut shape, mut strides) = (Dims::from(self.shape()), Dims::from(self.strides()));
        shape.remove(dim);
        strides.remove(dim);
        Ok(self.rearranged(&shape, &strides))
    }

    /// Removes every size-1 dim.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[1, 3, 1, 2])?.squeeze_all();
    /// assert_eq!(l.shape(), &[3, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn squeeze_all(&self) -> Layout {
        let keep = |&(&d, _): &(&usize, &isize)| d != 1;
        let pairs = self.shape().iter().zip(self.strides()).filter(keep);
        let (shape, strides): (Vec<usize>, Vec<isize>) = pairs.map(|(&d, &s)| (d, s)).unzip();
        // Dropping size-1 dims changes neither the element count nor the addressed offsets.
        self.rearranged(&shape, &strides)
    }

    /// Inserts a size-1 dim at position `dim` (`dim <= ndim`). Its stride is `size * stride` of
    /// the dim that follows, or 1 at the end (see the [module note](super)).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] if `dim > ndim`.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[3, 2])?.unsqueeze(1)?;
    /// assert_eq!((l.shape(), l.strides()), (&[3, 1, 2][..], &[2, 2, 1][..]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn unsqueeze(&self, dim: usize) -> Result<Layout> {
        if dim > self.ndim() {
            return Err(Error::DimOutOfRange {
                op: "unsqueeze",
                dim,
                ndim: self.ndim() + 1,
            });
        }
        let stride = match self.shape().get(dim) {
            // Any stride is valid for a size-1 dim; fall back to 1 if the product overflows.
            Some(&d) => self.strides()[dim].checked_mul(d as isize).unwrap_or(1),
            None => 1,
        };
        let (mut shape, mut strides) = (Dims::from(self.shape()), Dims::from(self.strides()));
        shape.insert(dim, 1);
        strides.insert(dim, stride);
        Ok(self.rearranged(&shape, &strides))
    }

    /// Broadcasts to `shape` without copying: size-1 dims may grow and new leading dims may be
    /// added; both get stride 0.
    ///
    /// # Errors
    /// [`Error::RankMismatch`] if `shape` has fewer dims, [`Error::ExpandMismatch`] if a dim whose
    /// size is not 1 would change.
    ///
    /// ```
    /// let row = stridex::Layout::contiguous(&[1, 3])?;
    /// let l = row.expand(&[2, 4, 3])?;
    /// assert_eq!(l.strides(), &[0, 0, 1]);
    /// assert!(row.expand(&[4, 2]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn expand(&self, shape: &[usize]) -> Result<Layout> {
        let n = self.ndim();
        let Some(pad) = shape.len().checked_sub(n) else {
            return Err(Error::RankMismatch {
                op: "expand",
                what: "sizes (at least)",
                expected: n,
                got: shape.len(),
            });
        };
        let mut strides = vec![0isize; shape.len()];
        for d in 0..n {
            let (old, new) = (self.shape()[d], shape[pad + d]);
            strides[pad + d] = if old == new {
                self.strides()[d]
            } else if old == 1 {
                0
            } else {
                return Err(Error::ExpandMismatch {
                    shape: self.shape().to_vec(),
                    requested: shape.to_vec(),
                    dim: d,
                });
            };
        }
        Layout::checked("expand", shape, &strides, self.offset)
    }

    /// Reverses `dim`: negative stride, offset moved to the last element of that dim. A 0-dim
    /// layout accepts dim 0 and is returned unchanged (PyTorch's rule for a scalar).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`].
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[2, 3])?.flip(1)?;
    /// assert_eq!((l.strides(), l.offset()), (&[3, -1][..], 2));
    /// let s = stridex::Layout::new(&[], &[], 7)?;
    /// assert_eq!(s.flip(0)?, s);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn flip(&self, dim: usize) -> Result<Layout> {
        if self.ndim() == 0 && dim == 0 {
            return Ok(self.clone());
        }
        self.check_dim("flip", dim)?;
        let (size, stride) = (self.shape()[dim], self.strides()[dim]);
        let mut strides = Dims::from(self.strides());
        // Only a dim of size <= 1 can carry isize::MIN (invariant 3), and its stride is unread.
        strides[dim] = stride.checked_neg().unwrap_or(stride);
        let offset = shifted(self.offset, (size as i128 - 1).max(0) * stride as i128);
        Layout::checked("flip", self.shape(), &strides, offset)
    }

    /// Sliding windows along `dim` (PyTorch `Tensor.unfold`): `dim` becomes the window index,
    /// `(shape[dim] - size) / step + 1` windows with stride `stride * step`, and a new last dim
    /// of length `size` walks one window. A 0-dim layout accepts dim 0 as a dim of one
    /// element and gives the window alone, as PyTorch does: shape `[size]` for a `size` of 0 or 1.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::ZeroStep`], [`Error::WindowTooLarge`] if
    /// `size > shape[dim]`, [`Error::Overflow`].
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[7])?.unfold(0, 3, 2)?;
    /// assert_eq!((l.shape(), l.strides()), (&[3, 3][..], &[2, 1][..]));
    /// let s = stridex::Layout::new(&[], &[], 7)?;
    /// assert_eq!((s.unfold(0, 1, 1)?.shape(), s.unfold(0, 1, 1)?.offset()), (&[1][..], 7));
    /// assert_eq!(s.unfold(0, 0, 1)?.shape(), &[0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn unfold(&self, dim: usize, size: usize, step: usize) -> Result<Layout> {
        if step == 0 {
            return Err(Error::ZeroStep { op: "unfold", dim });
        }
        if self.ndim() == 0 && dim == 0 {
            if size > 1 {
                return Err(Error::WindowTooLarge {
                    op: "unfold",
                    dim,
                    size,
                    dim_size: 1,
                });
            }
            // The scalar itself, or nothing: the offsets of this layout or none of them.
            return Layout::checked("unfold", &[size], &[1], self.offset);
        }
        self.check_dim("unfold", dim)?;
        let dim_size = self.shape()[dim];
        if size > dim_size {
            return Err(Error::WindowTooLarge {
                op: "unfold",
                dim,
                size,
                dim_size,
            });
        }
        let windows = (dim_size - size) / step + 1;
        let stride = self.strides()[dim];
        let overflow = || Error::Overflow {
            op: "unfold",
            shape: self.shape().to_vec(),
            strides: self.strides().to_vec(),
        };
        let window_stride = match isize::try_from(step)
            .ok()
            .and_then(|s| s.checked_mul(stride))
        {
            Some(s) => s,
            None if windows == 1 => stride,
            None => return Err(overflow()),
        };
        let (mut shape, mut strides) = (Dims::from(self.shape()), Dims::from(self.strides()));
        shape[dim] = windows;
        strides[dim] = window_stride;
        shape.push(size);
        strides.push(stride);
        Layout::checked("unfold", &shape, &strides, self.offset)
    }

    /// The main diagonal of dims 0 and 1: `diagonal_with(0, 0, 1)`.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] for fewer than 2 dims.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[3, 4])?.diagonal()?;
    /// assert_eq!((l.shape(), l.strides()), (&[3][..], &[5][..]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn diagonal(&self) -> Result<Layout> {
        self.diagonal_with(0, 0, 1)
    }

    /// Diagonal `k` of the matrices spanned by `dim1` and `dim2` (PyTorch `diagonal`): both dims
    /// are removed and a last dim walks `[i, i + k]` (`k > 0`: above the main diagonal) with
    /// stride `stride[dim1] + stride[dim2]`. A diagonal outside the matrix has length 0.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], [`Error::DuplicateDim`] if `dim1 == dim2`, [`Error::Overflow`].
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[3, 4])?.diagonal_with(1, 0, 1)?;
    /// assert_eq!((l.shape(), l.strides(), l.offset()), (&[3][..], &[5][..], 1));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn diagonal_with(&self, k: isize, dim1: usize, dim2: usize) -> Result<Layout> {
        self.check_dim("diagonal", dim1)?;
        self.check_dim("diagonal", dim2)?;
        if dim1 == dim2 {
            return Err(Error::DuplicateDim {
                op: "diagonal",
                dim: dim1,
            });
        }
        let (rows, cols) = (self.shape()[dim1] as i128, self.shape()[dim2] as i128);
        let (r0, c0) = if k >= 0 {
            (0, k as i128)
        } else {
            (-(k as i128), 0)
        };
        let len = (rows - r0).min(cols - c0).max(0) as usize;
        let (s1, s2) = (self.strides()[dim1], self.strides()[dim2]);
        let overflow = || Error::Overflow {
            op: "diagonal",
            shape: self.shape().to_vec(),
            strides: self.strides().to_vec(),
        };
        let stride = match s1.checked_add(s2) {
            Some(s) => s,
            None if len <= 1 => s1,
            None => return Err(overflow()),
        };
        let mut shape = Vec::with_capacity(self.ndim() - 1);
        let mut strides = Vec::with_capacity(self.ndim() - 1);
        for d in (0..self.ndim()).filter(|&d| d != dim1 && d != dim2) {
            shape.push(self.shape()[d]);
            strides.push(self.strides()[d]);
        }
        shape.push(len);
        strides.push(stride);
        let delta = if len == 0 {
            0
        } else {
            r0 * s1 as i128 + c0 * s2 as i128
        };
        let offset = shifted(self.offset, delta);
        Layout::checked("diagonal", &shape, &strides, offset)
    }

    /// Any shape, strides and offset, checked only against the [invariants](super) (a `Tensor`
    /// also checks them against its storage's length).
    ///
    /// # Errors
    /// As [`Layout::new`].
    ///
    /// ```
    /// // Overlapping sliding windows of length 3 over 6 elements.
    /// let l = stridex::Layout::contiguous(&[6])?.as_strided(&[4, 3], &[1, 1], 0)?;
    /// assert_eq!(l.offset_range(), Some((0, 5)));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn as_strided(&self, shape: &[usize], strides: &[isize], offset: usize) -> Result<Layout> {
        Layout::checked("as_strided", shape, strides, offset)
    }

    /// Checks that the layout fits a storage of `storage_len` elements ([`Layout::fits_in`]).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] naming `op`, the highest offset the layout needs and the length.
    pub(crate) fn check_fits(&self, op: &'static str, storage_len: usize) -> Result<()> {
        match self.offset_range() {
            Some((_, hi)) if hi >= storage_len => Err(Error::OutOfBounds {
                op,
                offset: hi,
                storage_len,
                shape: self.shape().to_vec(),
                strides: self.strides().to_vec(),
            }),
            _ => Ok(()),
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
    fn slice_matches_numpy_clamping() {
        // (start, end, step) -> selected indices of a length-5 dim, as NumPy gives them.
        #[rustfmt::skip]
        let cases: &[(isize, isize, isize, &[usize])] = &[
            (0, 5, 1, &[0, 1, 2, 3, 4]),
            (-2, 100, 1, &[3, 4]),
            (-100, 2, 1, &[0, 1]),
            (4, 1, 1, &[]),
            (1, 5, 2, &[1, 3]),
            (4, isize::MIN, -1, &[4, 3, 2, 1, 0]),
            (100, -100, -2, &[4, 2, 0]),
            (3, 0, -1, &[3, 2, 1]),
            (-1, -3, -1, &[4, 3]),
            (0, 3, -1, &[]),
            (isize::MAX, isize::MIN, isize::MIN, &[4]),
            (isize::MIN, isize::MAX, isize::MAX, &[0]),
        ];
        let base = Layout::new(&[5], &[3], 0).unwrap();
        for &(s, e, st, want) in cases {
            let l = base.slice(0, s, e, st).unwrap();
            let got: Vec<usize> = (0..l.shape()[0])
                .map(|i| l.offset_of(&[i]).unwrap() / 3)
                .collect();
            assert_eq!(got, want, "slice({s}, {e}, {st})");
        }
        assert_eq!(
            base.slice(0, 0, 5, 0),
            Err(Error::ZeroStep {
                op: "slice",
                dim: 0
            })
        );
    }

    #[test]
    fn view_op_errors() {
        let l = c(&[2, 3]);
        assert!(matches!(
            l.transpose(0, 2),
            Err(Error::DimOutOfRange {
                dim: 2,
                ndim: 2,
                ..
            })
        ));
        assert!(matches!(
            l.permute(&[1]),
            Err(Error::NotAPermutation { .. })
        ));
        assert!(matches!(
            l.permute(&[1, 2]),
            Err(Error::NotAPermutation { .. })
        ));
        assert!(matches!(
            l.narrow(1, 2, 2),
            Err(Error::RangeOutOfBounds { .. })
        ));
        assert!(matches!(
            l.narrow(1, usize::MAX, 2),
            Err(Error::RangeOutOfBounds { .. })
        ));
        assert!(matches!(l.select(0, 2), Err(Error::IndexOutOfRange { .. })));
        assert!(matches!(l.squeeze(0), Err(Error::SqueezeNonUnit { .. })));
        assert!(matches!(
            l.unsqueeze(3),
            Err(Error::DimOutOfRange {
                dim: 3,
                ndim: 3,
                ..
            })
        ));
        assert!(matches!(l.expand(&[3]), Err(Error::RankMismatch { .. })));
        assert!(matches!(
            l.expand(&[4, 3]),
            Err(Error::ExpandMismatch { dim: 0, .. })
        ));
        assert!(matches!(l.flip(2), Err(Error::DimOutOfRange { .. })));
        assert!(matches!(
            l.unfold(1, 4, 1),
            Err(Error::WindowTooLarge { .. })
        ));
        assert!(matches!(l.unfold(1, 2, 0), Err(Error::ZeroStep { .. })));
        assert!(matches!(
            l.diagonal_with(0, 1, 1),
            Err(Error::DuplicateDim { .. })
        ));
        assert!(matches!(
            c(&[3]).diagonal(),
            Err(Error::DimOutOfRange { .. })
        ));
        assert!(matches!(
            l.as_strided(&[2, 2], &[isize::MAX, 1], 0),
            Err(Error::Overflow { .. })
        ));
    }

    #[test]
    fn empty_results_keep_a_valid_offset() {
        let l = Layout::new(&[3], &[-1], 2).unwrap();
        let e = l.narrow(0, 3, 0).unwrap();
        assert_eq!((e.shape(), e.offset()), (&[0][..], 2));
        let f = l.slice(0, 5, 9, 1).unwrap();
        assert_eq!(f.numel(), 0);
        let g = c(&[0, 4]).select(1, 3).unwrap();
        assert_eq!(g.shape(), &[0]);
        let h = c(&[2, 2]).diagonal_with(5, 0, 1).unwrap();
        assert_eq!((h.shape(), h.offset()), (&[0][..], 0));
    }

    #[test]
    fn unfold_and_diagonal_shapes() {
        let l = c(&[2, 10]).unfold(1, 4, 3).unwrap();
        assert_eq!((l.shape(), l.strides()), (&[2, 3, 4][..], &[10, 3, 1][..]));
        let d = c(&[2, 3, 4]).diagonal_with(-1, 1, 2).unwrap();
        assert_eq!(
            (d.shape(), d.strides(), d.offset()),
            (&[2, 2][..], &[12, 5][..], 4)
        );
        let e = c(&[1, 4]).expand(&[3, 4]).unwrap().flip(0).unwrap();
        assert_eq!((e.strides(), e.offset()), (&[0, 1][..], 0));
    }
}
