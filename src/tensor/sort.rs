//! Sorting along a dim: `sort`, `argsort`, `topk`.
//!
//! Every element type sorts, floats in PyTorch's order: ascending puts NaN last, descending
//! puts NaN first, all NaNs tie, and `-0.0` ties with `0.0`. Sorts are stable: equal elements
//! keep their order (in both directions). The input is read in place through its strides
//! (transposed, flipped, narrowed, expanded: no copy of it); each line is sorted by one
//! thread (by several for a long single line of 8-byte elements), with identical results for
//! any thread count (Note \[sort keys\] in `src/kernels/sort.rs`: packed integer keys, all distinct).
//!
//! Results are fresh and dense, with the sorted dim innermost in memory (the other dims in
//! row-major order): for the last dim that is row-major; for another dim the result is a
//! dense tensor in another memory order, as [`Tensor::contiguous`] would make row-major.

use std::sync::Arc;

use super::Tensor;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels::lines::{LineWalk, line_major_strides};
use crate::kernels::sort::{SortSpec, sort_lines, sort_positions};
use crate::layout::{Dim, Layout};

impl<T: Element> Tensor<T> {
    /// The elements sorted along `dim`, and where each came from along `dim` (PyTorch's
    /// `sort`, returning `(values, indices)`): ascending, or descending when `descending`.
    /// Stable; NaN last ascending, first descending (module docs). A 0-dim tensor accepts
    /// `dim = 0` and is its own sort.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] / [`Error::NegativeDimOutOfRange`] for `dim`;
    /// [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec(vec![3.0f32, f32::NAN, 1.0, 2.0, 1.0, 0.0], &[2, 3])?;
    /// let (v, i) = x.sort(-1, false)?;
    /// assert_eq!(i.to_vec(), vec![2, 0, 1, 2, 1, 0]);
    /// assert_eq!(v.get(&[1, 2])?, 2.0);
    /// assert!(v.get(&[0, 2])?.is_nan()); // NaN last
    /// let (v, i) = x.sort(0, true)?; // down the columns, largest first
    /// assert_eq!((v.get(&[0, 0])?, i.to_vec()), (3.0, vec![0, 0, 0, 1, 1, 1]));
    /// assert!(x.sort(2, false).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "sort_by")]
    pub fn sort(&self, dim: impl Dim, descending: bool) -> Result<(Tensor<T>, Tensor<i64>)> {
        let spec = |len| SortSpec {
            descending,
            k: len,
            sorted: true,
        };
        self.sorted_lines("sort", dim, spec)
    }

    /// Where each element of the sorted order comes from along `dim`: the indices of
    /// [`Tensor::sort`], without its values (PyTorch's and NumPy's `argsort`; stable).
    ///
    /// # Errors
    /// As [`Tensor::sort`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec(vec![2i32, 1, 2, 0], &[4])?;
    /// assert_eq!(x.argsort(0, false)?.to_vec(), vec![3, 1, 0, 2]);
    /// assert_eq!(x.argsort(0, true)?.to_vec(), vec![0, 2, 1, 3]); // ties keep their order
    /// assert_eq!(x.flip(0)?.argsort(-1, false)?.to_vec(), vec![0, 2, 1, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn argsort(&self, dim: impl Dim, descending: bool) -> Result<Tensor<i64>> {
        let (x, dim) = self.line_dim("argsort", dim)?;
        let spec = SortSpec {
            descending,
            k: x.shape()[dim],
            sorted: true,
        };
        let walk = LineWalk::new(&x.layout, dim);
        let out = sort_positions(&x.storage, &walk, spec, x.shape())?;
        self.wrap_lines(out, x.shape(), dim)
    }

    /// The `k` largest (or, unless `largest`, smallest) elements along `dim` and their
    /// indices (PyTorch's `topk`): `dim` shrinks to `k`. With `sorted` they come largest
    /// first (smallest first when not `largest`); without, in the order they had along
    /// `dim`. NaN counts as larger than every number. Among equal elements the earlier ones
    /// are kept.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `k` is larger than the size of `dim`; as
    /// [`Tensor::sort`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec(vec![1.0f32, 9.0, 3.0, 7.0, 5.0, 7.0], &[2, 3])?;
    /// let (v, i) = x.topk(2, 1, true, true)?;
    /// assert_eq!((v.to_vec(), i.to_vec()), (vec![9.0, 3.0, 7.0, 7.0], vec![1, 2, 0, 2]));
    /// let (v, _) = x.topk(1, 0, false, true)?;
    /// assert_eq!(v.to_vec(), vec![1.0, 5.0, 3.0]);
    /// let (_, i) = x.topk(2, 1, true, false)?; // in their order along the dim
    /// assert_eq!(i.to_vec(), vec![1, 2, 0, 2]);
    /// assert!(x.topk(4, 1, true, true).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn topk(
        &self,
        k: usize,
        dim: impl Dim,
        largest: bool,
        sorted: bool,
    ) -> Result<(Tensor<T>, Tensor<i64>)> {
        let (x, d) = self.line_dim("topk", dim)?;
        let len = x.shape()[d];
        if k > len {
            return Err(Error::InvalidArgument {
                op: "topk",
                message: format!(
                    "k = {k} is larger than dim {d} (size {len}) of shape {:?}; pass k <= {len}",
                    self.shape()
                ),
            });
        }
        let spec = |_| SortSpec {
            descending: largest,
            k,
            sorted,
        };
        self.sorted_lines("topk", dim, spec)
    }

    /// `self` and `dim` resolved for a line op: a 0-dim tensor as a 1-element vector.
    fn line_dim(&self, op: &'static str, dim: impl Dim) -> Result<(Tensor<T>, usize)> {
        let d = dim.index(op, self.ndim().max(1))?;
        match (self.ndim(), d) {
            (0, 0) => Ok((self.unsqueeze(0)?, 0)),
            (ndim, d) if d >= ndim => Err(Error::DimOutOfRange { op, dim: d, ndim }),
            _ => Ok((self.clone(), d)),
        }
    }

    /// Runs the sort kernel with the spec `spec(len)` (`len` the size of `dim`).
    fn sorted_lines(
        &self,
        op: &'static str,
        dim: impl Dim,
        spec: impl Fn(usize) -> SortSpec,
    ) -> Result<(Tensor<T>, Tensor<i64>)> {
        let (x, dim) = self.line_dim(op, dim)?;
        let spec = spec(x.shape()[dim]);
        let mut shape = x.shape().to_vec();
        shape[dim] = spec.k;
        let (values, indices) = sort_lines(&x.storage, &x.layout, dim, spec, &shape)?;
        Ok((
            self.wrap_lines(values, &shape, dim)?,
            self.wrap_lines(indices, &shape, dim)?,
        ))
    }

    /// A storage filled line by line along `dim` (of a result of `shape`), as a tensor of
    /// that shape (0-dim again if `self` is).
    fn wrap_lines<U: Element>(
        &self,
        storage: crate::storage::Storage<U>,
        shape: &[usize],
        dim: usize,
    ) -> Result<Tensor<U>> {
        let layout = Layout::new(shape, &line_major_strides(shape, dim), 0)?;
        let out = Tensor::from_parts(Arc::new(storage), layout);
        if self.ndim() == 0 {
            out.squeeze(0)
        } else {
            Ok(out)
        }
    }
}
