//! Splitting a layout into pieces along one dim: `split_at`, `split`, `chunk`, `unbind`.
//!
//! Every piece is a [`Layout::narrow`] (or [`Layout::select`]) of the original, so the pieces
//! address disjoint sets of offsets whenever the original addresses each element once: that is
//! what lets a mutable view be split into two mutable views (`TensorMut::split_at`).
//!
//! The sizes follow PyTorch: `split(size, dim)` gives pieces of `size` with a smaller last one;
//! `split(0, dim)` is only allowed on an empty dim (one empty piece); a split of an empty dim
//! gives one empty piece; `chunk(n, dim)` splits into pieces of `ceil(len / n)`, so it may give
//! fewer than `n` pieces, except on an empty dim, where it gives `n` empty pieces.

use super::Layout;
use crate::error::{Error, Result};

impl Layout {
    /// The two layouts `[..index)` and `[index..)` of `dim`, like `slice::split_at`.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`], or [`Error::RangeOutOfBounds`] if `index > shape[dim]`.
    ///
    /// ```
    /// let (a, b) = stridex::Layout::contiguous(&[4, 6])?.split_at(1, 2)?;
    /// assert_eq!((a.shape(), b.shape(), b.offset()), (&[4, 2][..], &[4, 4][..], 2));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn split_at(&self, dim: usize, index: usize) -> Result<(Layout, Layout)> {
        self.check_dim("split_at", dim)?;
        let size = self.shape()[dim];
        if index > size {
            return Err(Error::RangeOutOfBounds {
                op: "split_at",
                dim,
                start: index,
                len: 0,
                size,
            });
        }
        Ok((
            self.narrow(dim, 0, index)?,
            self.narrow(dim, index, size - index)?,
        ))
    }

    /// Pieces of `size` along `dim`, the last one smaller if `size` does not divide the dim
    /// (PyTorch's `split`; see the `layout::split` module source for empty dims).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::ZeroStep`] if `size == 0` and the dim is not empty.
    ///
    /// ```
    /// let parts = stridex::Layout::contiguous(&[5, 2])?.split(2, 0)?;
    /// let sizes: Vec<usize> = parts.iter().map(|p| p.shape()[0]).collect();
    /// assert_eq!(sizes, vec![2, 2, 1]);
    /// assert_eq!(parts[2].offset(), 8);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn split(&self, size: usize, dim: usize) -> Result<Vec<Layout>> {
        self.check_dim("split", dim)?;
        let len = self.shape()[dim];
        if size == 0 && len != 0 {
            return Err(Error::ZeroStep { op: "split", dim });
        }
        if len == 0 {
            return Ok(vec![self.narrow(dim, 0, 0)?]);
        }
        (0..len)
            .step_by(size)
            .map(|start| self.narrow(dim, start, size.min(len - start)))
            .collect()
    }

    /// `n` pieces of about equal size along `dim`: pieces of `ceil(len / n)`, the last one
    /// smaller, so there may be fewer than `n` (PyTorch's `chunk`).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::ZeroStep`] if `n == 0`.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[6])?;
    /// assert_eq!(l.chunk(4, 0)?.len(), 3); // pieces of 2: 2 + 2 + 2
    /// assert_eq!(l.chunk(4, 0)?[2].offset(), 4);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn chunk(&self, n: usize, dim: usize) -> Result<Vec<Layout>> {
        self.check_dim("chunk", dim)?;
        if n == 0 {
            return Err(Error::ZeroStep { op: "chunk", dim });
        }
        let len = self.shape()[dim];
        if len == 0 {
            return (0..n).map(|_| self.narrow(dim, 0, 0)).collect();
        }
        self.split(len.div_ceil(n), dim)
    }

    /// Pieces of the given `sizes` along `dim`, in order (PyTorch's `split_with_sizes`).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::InvalidArgument`] naming `split_with_sizes` unless
    /// the sizes add up to `shape[dim]`.
    ///
    /// ```
    /// let parts = stridex::Layout::contiguous(&[2, 6])?.split_with_sizes(&[1, 0, 5], 1)?;
    /// let shapes: Vec<&[usize]> = parts.iter().map(|p| p.shape()).collect();
    /// assert_eq!(shapes, [&[2, 1][..], &[2, 0], &[2, 5]]);
    /// assert_eq!(parts[2].offset(), 1);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn split_with_sizes(&self, sizes: &[usize], dim: usize) -> Result<Vec<Layout>> {
        const OP: &str = "split_with_sizes";
        self.check_dim(OP, dim)?;
        let len = self.shape()[dim];
        let total = sizes.iter().try_fold(0usize, |a, &n| a.checked_add(n));
        if total != Some(len) {
            return Err(Error::InvalidArgument {
                op: OP,
                message: format!(
                    "sizes {sizes:?} add up to {} but dim {dim} has {len} elements; give sizes \
                     that add up to {len}",
                    total.map_or("more than usize::MAX".to_string(), |t| t.to_string())
                ),
            });
        }
        let mut start = 0;
        sizes
            .iter()
            .map(|&n| {
                let piece = self.narrow(dim, start, n);
                start += n;
                piece
            })
            .collect()
    }

    /// `n` pieces along `dim` whose sizes differ by at most one, the larger ones first
    /// (PyTorch's `tensor_split(sections)`, NumPy's `array_split`): with `len = q * n + r`,
    /// `r` pieces of `q + 1` then `n - r` of `q`. Always exactly `n` pieces, some empty when
    /// `n > len` (unlike [`Layout::chunk`]).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`]; [`Error::ZeroStep`] if `n == 0`.
    ///
    /// ```
    /// let parts = stridex::Layout::contiguous(&[7])?.tensor_split(3, 0)?;
    /// let sizes: Vec<usize> = parts.iter().map(|p| p.shape()[0]).collect();
    /// assert_eq!(sizes, vec![3, 2, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "array_split")]
    pub fn tensor_split(&self, n: usize, dim: usize) -> Result<Vec<Layout>> {
        self.check_dim("tensor_split", dim)?;
        if n == 0 {
            return Err(Error::ZeroStep {
                op: "tensor_split",
                dim,
            });
        }
        let len = self.shape()[dim];
        let (q, r) = (len / n, len % n);
        let mut start = 0;
        (0..n)
            .map(|i| {
                let size = q + usize::from(i < r);
                let piece = self.narrow(dim, start, size);
                start += size;
                piece
            })
            .collect()
    }

    /// Pieces along `dim` cut before each of `indices` (PyTorch's `tensor_split(indices)`,
    /// NumPy's `array_split` with indices): `[..i0)`, `[i0..i1)`, ..., `[ik..)`, so
    /// `indices.len() + 1` pieces. As with Python slices, an index past the end is clamped
    /// and a piece whose end comes before its start is empty.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`].
    ///
    /// ```
    /// let parts = stridex::Layout::contiguous(&[6])?.tensor_split_indices(&[1, 4, 9], 0)?;
    /// let sizes: Vec<usize> = parts.iter().map(|p| p.shape()[0]).collect();
    /// assert_eq!(sizes, vec![1, 3, 2, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "array_split")]
    pub fn tensor_split_indices(&self, indices: &[usize], dim: usize) -> Result<Vec<Layout>> {
        self.check_dim("tensor_split_indices", dim)?;
        let len = self.shape()[dim];
        let mut start = 0;
        let ends = indices.iter().copied().chain(std::iter::once(len));
        ends.map(|end| {
            let (from, to) = (start.min(len), end.min(len));
            start = end;
            self.narrow(dim, from, to.saturating_sub(from))
        })
        .collect()
    }

    /// One layout per index of `dim`, with `dim` removed ([`Layout::select`] of each index).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`].
    ///
    /// ```
    /// let rows = stridex::Layout::contiguous(&[3, 4])?.unbind(0)?;
    /// assert_eq!(rows.len(), 3);
    /// assert_eq!((rows[2].shape(), rows[2].offset()), (&[4][..], 8));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn unbind(&self, dim: usize) -> Result<Vec<Layout>> {
        self.check_dim("unbind", dim)?;
        (0..self.shape()[dim])
            .map(|i| self.select(dim, i))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(parts: &[Layout], dim: usize) -> Vec<usize> {
        parts.iter().map(|p| p.shape()[dim]).collect()
    }

    #[test]
    fn split_and_chunk_follow_pytorch() {
        let c = |s: &[usize]| Layout::contiguous(s).unwrap();
        // (dim size, split size) -> piece sizes, as torch.split gives them.
        for (len, size, want) in [
            (5, 2, vec![2, 2, 1]),
            (4, 2, vec![2, 2]),
            (3, 5, vec![3]),
            (0, 3, vec![0]),
            (0, 0, vec![0]),
        ] {
            assert_eq!(sizes(&c(&[len, 2]).split(size, 0).unwrap(), 0), want);
        }
        assert!(c(&[3]).split(0, 0).is_err());
        // (dim size, chunks) -> piece sizes, as torch.chunk gives them.
        for (len, n, want) in [
            (6, 4, vec![2, 2, 2]),
            (5, 2, vec![3, 2]),
            (2, 5, vec![1, 1]),
            (0, 3, vec![0, 0, 0]),
        ] {
            assert_eq!(sizes(&c(&[2, len]).chunk(n, 1).unwrap(), 1), want);
        }
        assert!(c(&[3]).chunk(0, 0).is_err());
        assert!(c(&[3]).unbind(1).is_err());
        assert!(c(&[3]).split_at(0, 4).is_err());
        assert_eq!(c(&[0, 2]).unbind(0).unwrap().len(), 0);
    }

    #[test]
    fn tensor_split_follows_numpy_array_split() {
        let c = |s: &[usize]| Layout::contiguous(s).unwrap();
        // (dim size, sections) -> piece sizes, as np.array_split gives them.
        for (len, n, want) in [
            (7, 3, vec![3, 2, 2]),
            (6, 3, vec![2, 2, 2]),
            (2, 4, vec![1, 1, 0, 0]),
            (0, 2, vec![0, 0]),
        ] {
            assert_eq!(sizes(&c(&[len]).tensor_split(n, 0).unwrap(), 0), want);
        }
        assert!(c(&[3]).tensor_split(0, 0).is_err());
        // (indices) -> piece sizes of a dim of 6, as np.array_split gives them.
        for (idx, want) in [
            (vec![], vec![6]),
            (vec![2, 2], vec![2, 0, 4]),
            (vec![4, 1], vec![4, 0, 5]),
            (vec![7], vec![6, 0]),
        ] {
            let parts = c(&[6]).tensor_split_indices(&idx, 0).unwrap();
            assert_eq!(sizes(&parts, 0), want, "{idx:?}");
        }
        let parts = c(&[6]).tensor_split_indices(&[4, 1], 0).unwrap();
        assert_eq!(parts[2].offset(), 1);
        assert!(c(&[3]).split_with_sizes(&[1, 1], 0).is_err());
        assert!(c(&[3]).split_with_sizes(&[usize::MAX, 4], 0).is_err());
        assert!(c(&[3]).tensor_split_indices(&[1], 1).is_err());
    }

    #[test]
    fn pieces_keep_strides_and_move_offsets() {
        let l = Layout::contiguous(&[4, 6]).unwrap().t().unwrap(); // [6, 4] strides [1, 6]
        let parts = l.split(4, 0).unwrap();
        assert_eq!(parts[1].offset(), 4);
        assert_eq!(parts[1].strides(), &[1, 6]);
        let (a, b) = l.split_at(1, 1).unwrap();
        assert_eq!(
            (a.shape(), b.shape(), b.offset()),
            (&[6, 1][..], &[6, 3][..], 6)
        );
    }
}
