//! View ops on `Tensor`: each delegates to the `Layout` op of the same name and shares storage.
//! See the `Layout` methods for the exact stride rules; errors are the layout's errors.

use super::Tensor;
use crate::audit::CopyReason;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::Layout;

impl<T: Element> Tensor<T> {
    /// The same storage under a layout derived from this tensor's by a view op, which addresses
    /// a subset of the offsets this tensor addresses, so it fits the storage too. Always
    /// inlined: returned from an out-of-line call, the 96-byte result went through the
    /// caller's stack in pieces that straddle the ones just stored, and a `narrow` then `t`
    /// chain took 44-53 ns instead of 34-43 ns (bench_report small table, Zen 4).
    #[inline(always)]
    fn derive(&self, layout: Layout) -> Result<Tensor<T>> {
        Ok(Tensor::from_parts(self.storage.clone(), layout))
    }

    /// A readable description of the layout ([`Layout::explain`]) plus the storage it views.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[4, 4])?;
    /// assert!(a.t()?.explain().contains("contiguous: no"));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn explain(&self) -> String {
        format!(
            "Tensor<{}> over a storage of {} elements\n{}",
            T::DTYPE,
            self.storage.len(),
            self.layout.explain()
        )
    }

    /// The same elements under a new shape, without copying ([`Layout::view`]).
    ///
    /// # Errors
    /// [`Error::NumelMismatch`], or [`Error::ViewNotPossible`] when the strides cannot express
    /// the shape; then [`Tensor::reshape`] copies instead.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[4, 6])?;
    /// assert_eq!(a.view(&[2, 12])?.strides(), &[12, 1]);
    /// assert!(a.t()?.view(&[24]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn view(&self, shape: &[usize]) -> Result<Tensor<T>> {
        self.derive(self.layout.view(shape)?)
    }

    /// [`Tensor::view`] when possible, otherwise one copy to row-major order (then viewed).
    ///
    /// # Errors
    /// Only [`Error::NumelMismatch`], [`Error::Alloc`] if the copy cannot be allocated, and
    /// [`Error::ImplicitCopy`] if it would copy inside
    /// [`forbid_implicit_copies`](crate::audit::forbid_implicit_copies).
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// let flat = a.t()?.reshape(&[6])?; // not a view: copies
    /// assert!(!flat.shares_storage(&a));
    /// assert_eq!(flat.to_vec(), vec![0, 3, 1, 4, 2, 5]);
    /// assert!(a.reshape(&[3, 2])?.shares_storage(&a));
    /// assert!(a.reshape(&[7]).unwrap_err().to_string().starts_with("reshape"));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn reshape(&self, shape: &[usize]) -> Result<Tensor<T>> {
        match self.layout.view(shape) {
            Ok(layout) => self.derive(layout),
            Err(Error::ViewNotPossible { .. }) => {
                let dst = Layout::contiguous(self.shape())?;
                self.copy_to_fresh(dst, CopyReason::ReshapeCopy)?
                    .view(shape)
            }
            Err(e) => Err(e.with_op("reshape")),
        }
    }

    /// Swaps two dims ([`Layout::transpose`]).
    ///
    /// # Errors
    /// As [`Layout::transpose`], whose error names `transpose`.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3, 4])?;
    /// assert_eq!(a.transpose(0, 2)?.shape(), &[4, 3, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[inline]
    pub fn transpose(&self, d0: usize, d1: usize) -> Result<Tensor<T>> {
        self.derive(self.layout.transpose(d0, d1)?)
    }

    /// Matrix transpose of a 2-dim tensor ([`Layout::t`]).
    ///
    /// # Errors
    /// As [`Layout::t`], whose error names `t`.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.t()?.shape(), &[3, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[inline]
    pub fn t(&self) -> Result<Tensor<T>> {
        self.derive(self.layout.t()?)
    }

    /// Reorders the dims ([`Layout::permute`]).
    ///
    /// # Errors
    /// As [`Layout::permute`], whose error names `permute`.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3, 4])?;
    /// assert_eq!(a.permute(&[1, 2, 0])?.shape(), &[3, 4, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn permute(&self, dims: &[usize]) -> Result<Tensor<T>> {
        self.derive(self.layout.permute(dims)?)
    }

    /// Keeps `start..start + len` of `dim` ([`Layout::narrow`]).
    ///
    /// # Errors
    /// As [`Layout::narrow`], whose error names `narrow`.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.narrow(1, 1, 2)?.to_vec(), vec![1, 2, 4, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[inline]
    pub fn narrow(&self, dim: usize, start: usize, len: usize) -> Result<Tensor<T>> {
        self.derive(self.layout.narrow(dim, start, len)?)
    }

    /// NumPy slice `start:end:step` of `dim` ([`Layout::slice`]).
    ///
    /// # Errors
    /// As [`Layout::slice`], whose error names `slice`.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[6])?;
    /// assert_eq!(a.slice(0, 1, 6, 2)?.to_vec(), vec![1, 3, 5]);
    /// assert_eq!(a.slice(0, -1, isize::MIN, -3)?.to_vec(), vec![5, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn slice(&self, dim: usize, start: isize, end: isize, step: isize) -> Result<Tensor<T>> {
        self.derive(self.layout.slice(dim, start, end, step)?)
    }

    /// Index `index` of `dim`, dropping the dim ([`Layout::select`]).
    ///
    /// # Errors
    /// As [`Layout::select`], whose error names `select`.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.select(1, 2)?.to_vec(), vec![2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn select(&self, dim: usize, index: usize) -> Result<Tensor<T>> {
        self.derive(self.layout.select(dim, index)?)
    }

    /// Removes a size-1 dim ([`Layout::squeeze`]).
    ///
    /// # Errors
    /// As [`Layout::squeeze`], whose error names `squeeze`.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 1, 3])?;
    /// assert_eq!(a.squeeze(1)?.shape(), &[2, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn squeeze(&self, dim: usize) -> Result<Tensor<T>> {
        self.derive(self.layout.squeeze(dim)?)
    }

    /// Inserts a size-1 dim at `dim` ([`Layout::unsqueeze`]).
    ///
    /// # Errors
    /// As [`Layout::unsqueeze`], whose error names `unsqueeze`.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.unsqueeze(2)?.shape(), &[2, 3, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn unsqueeze(&self, dim: usize) -> Result<Tensor<T>> {
        self.derive(self.layout.unsqueeze(dim)?)
    }

    /// Broadcasts to `shape` with stride-0 dims ([`Layout::expand`]).
    ///
    /// # Errors
    /// As [`Layout::expand`], whose error names `expand`.
    ///
    /// ```
    /// let row = stridex::Tensor::from_vec(vec![1, 2, 3], &[1, 3])?;
    /// let m = row.expand(&[2, 3])?;
    /// assert_eq!((m.strides(), m.to_vec()), (&[0, 1][..], vec![1, 2, 3, 1, 2, 3]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn expand(&self, shape: &[usize]) -> Result<Tensor<T>> {
        self.derive(self.layout.expand(shape)?)
    }

    /// Reverses `dim` with a negative stride ([`Layout::flip`]).
    ///
    /// # Errors
    /// As [`Layout::flip`], whose error names `flip`.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1, 2, 3], &[3])?;
    /// let f = a.flip(0)?;
    /// assert!(f.shares_storage(&a));
    /// assert_eq!(f.to_vec(), vec![3, 2, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn flip(&self, dim: usize) -> Result<Tensor<T>> {
        self.derive(self.layout.flip(dim)?)
    }

    /// Sliding windows of `size` every `step` along `dim` ([`Layout::unfold`]).
    ///
    /// # Errors
    /// As [`Layout::unfold`], whose error names `unfold`.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..5).collect::<Vec<i32>>(), &[5])?;
    /// assert_eq!(a.unfold(0, 2, 2)?.to_vec(), vec![0, 1, 2, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn unfold(&self, dim: usize, size: usize, step: usize) -> Result<Tensor<T>> {
        self.derive(self.layout.unfold(dim, size, step)?)
    }

    /// The main diagonal of dims 0 and 1 ([`Layout::diagonal`]).
    ///
    /// # Errors
    /// As [`Layout::diagonal`], whose error names `diagonal`.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.diagonal()?.to_vec(), vec![0, 4]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn diagonal(&self) -> Result<Tensor<T>> {
        self.derive(self.layout.diagonal()?)
    }

    /// Diagonal `k` of dims `dim1`, `dim2` ([`Layout::diagonal_with`]).
    ///
    /// # Errors
    /// As [`Layout::diagonal_with`], whose error names `diagonal_with`.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.diagonal_with(1, 0, 1)?.to_vec(), vec![1, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn diagonal_with(&self, k: isize, dim1: usize, dim2: usize) -> Result<Tensor<T>> {
        self.derive(self.layout.diagonal_with(k, dim1, dim2)?)
    }

    /// Any view of the storage, checked against its length.
    ///
    /// # Errors
    /// As [`Layout::new`], and [`Error::OutOfBounds`] naming the offending offset and the
    /// storage length.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[6])?;
    /// let w = a.as_strided(&[4, 3], &[1, 1], 0)?; // overlapping windows
    /// assert_eq!(w.select(0, 3)?.to_vec(), vec![3, 4, 5]);
    /// assert!(a.as_strided(&[4, 3], &[1, 1], 1).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn as_strided(
        &self,
        shape: &[usize],
        strides: &[isize],
        offset: usize,
    ) -> Result<Tensor<T>> {
        let layout = self.layout.as_strided(shape, strides, offset)?;
        layout.check_fits("as_strided", self.storage.len())?;
        self.derive(layout)
    }
}
