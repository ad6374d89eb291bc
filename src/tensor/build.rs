//! Building tensors from parts (`cat`, `stack`, `pad`: one allocation, one pass per part) and
//! taking them apart (`split`, `chunk`, `unbind`: views sharing the storage).

use std::sync::Arc;

use super::Tensor;
use crate::audit::{self, CopyReason};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels::assemble;
use crate::layout::{Dim, Layout, MemoryFormat};

/// A tensor or a reference to one, as [`Tensor::cat`] and [`Tensor::stack`] take their
/// parts from any collection or iterator: of tensors (`&[a, b]`, `&vec`, `vec`, results of
/// earlier ops with no binding, `xs.iter().map(|x| x.relu())`) or of references
/// (`&[&a, &b]`, `vec.iter()`).
///
/// ```
/// use stridex::{AsTensor, Tensor};
/// let a = Tensor::from_vec(vec![1, 2], &[2])?;
/// assert_eq!(a.as_tensor().shape(), (&&a).as_tensor().shape());
/// let joined = Tensor::cat(&[a.clone(), a.flip(0)?], 0)?; // owned parts
/// assert_eq!(joined.to_vec(), vec![1, 2, 2, 1]);
/// # Ok::<(), stridex::Error>(())
/// ```
pub trait AsTensor<T: Element> {
    /// The tensor.
    fn as_tensor(&self) -> &Tensor<T>;
}

impl<T: Element> AsTensor<T> for Tensor<T> {
    fn as_tensor(&self) -> &Tensor<T> {
        self
    }
}

impl<T: Element, A: AsTensor<T> + ?Sized> AsTensor<T> for &A {
    fn as_tensor(&self) -> &Tensor<T> {
        (**self).as_tensor()
    }
}

impl<T: Element> Tensor<T> {
    /// The tensors joined along `dim`: all must have the same number of dims and the same
    /// sizes on every other dim (PyTorch's `cat`, without its legacy skipping of 1-dim empty
    /// inputs). Each input is read through its strides and written once into its part of one
    /// fresh tensor. The result is channels-last (or -3d) if every input is dense in that
    /// format, row-major otherwise. Each input's copy is reported to the audit
    /// ([`CopyReason::Assemble`]).
    ///
    /// # Errors
    /// [`Error::NoInputs`] for an empty list, [`Error::DimOutOfRange`],
    /// [`Error::PartsMismatch`] naming the first input that does not fit, [`Error::Overflow`],
    /// [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1, 2, 3, 4], &[2, 2])?;
    /// let b = Tensor::from_vec(vec![5, 6], &[2, 1])?;
    /// let c = Tensor::cat(&[&a, &b, &a.t()?], 1)?;
    /// assert_eq!(c.shape(), &[2, 5]);
    /// assert_eq!(c.to_vec(), vec![1, 2, 5, 1, 3, 3, 4, 6, 2, 4]);
    /// assert!(Tensor::cat(&[&a, &Tensor::zeros(&[3, 1])?], 1).is_err());
    /// // Owned parts by value, a Vec of references, dims from the end:
    /// assert_eq!(Tensor::cat(vec![a.clone(), b.clone()], -1)?.shape(), &[2, 3]);
    /// assert_eq!(Tensor::cat(vec![&a, &a], 0)?.shape(), &[4, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn cat<I>(tensors: I, dim: impl Dim) -> Result<Tensor<T>>
    where
        I: IntoIterator,
        I::Item: AsTensor<T>,
    {
        // The parts are held here (owned ones too) and read by reference.
        let parts: Vec<I::Item> = tensors.into_iter().collect();
        let tensors: Vec<&Tensor<T>> = parts.iter().map(AsTensor::as_tensor).collect();
        let first = tensors.first().ok_or(Error::NoInputs { op: "cat" })?;
        let dim = dim.index("cat", first.ndim())?;
        first.layout.check_dim("cat", dim)?;
        let mut total = 0usize;
        for (index, t) in tensors.iter().enumerate() {
            let fits = t.ndim() == first.ndim()
                && (0..t.ndim()).all(|d| d == dim || t.shape()[d] == first.shape()[d]);
            if !fits {
                return Err(Error::PartsMismatch {
                    op: "cat",
                    index,
                    shape: t.shape().to_vec(),
                    first: first.shape().to_vec(),
                    dim: Some(dim),
                });
            }
            total = total
                .checked_add(t.shape()[dim])
                .ok_or_else(|| Error::Overflow {
                    op: "cat",
                    shape: first.shape().to_vec(),
                    strides: vec![],
                })?;
        }
        let mut shape = first.shape().to_vec();
        shape[dim] = total;
        Self::cat_checked(&tensors, dim, &shape).map_err(|e| e.named("cat"))
    }

    /// `cat` once the parts are known to fit together into `shape`.
    #[track_caller]
    fn cat_checked(tensors: &[&Tensor<T>], dim: usize, shape: &[usize]) -> Result<Tensor<T>> {
        let format = shared_format(tensors.iter().map(|t| &t.layout));
        let out = Layout::contiguous_in(shape, format)?;
        let mut start = 0;
        for t in tensors {
            let region = out.narrow(dim, start, t.shape()[dim])?;
            audit::note_explicit_copy(CopyReason::Assemble, T::DTYPE, &t.layout, &region);
            start += t.shape()[dim];
        }
        let parts: Vec<_> = tensors.iter().map(|t| t.src()).collect();
        let storage = assemble::cat(&parts, dim, &out)?;
        Ok(Tensor::from_parts(Arc::new(storage), out))
    }

    /// The tensors, which must all have the same shape, stacked along a new dim `dim`
    /// (`0..=ndim`): `cat` of each one unsqueezed at `dim`. 0-dim inputs give a 1-dim result.
    ///
    /// # Errors
    /// [`Error::NoInputs`], [`Error::DimOutOfRange`] if `dim > ndim`, [`Error::PartsMismatch`],
    /// [`Error::Overflow`], [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1, 2], &[2])?;
    /// let b = Tensor::from_vec(vec![3, 4], &[2])?;
    /// assert_eq!(Tensor::stack(&[&a, &b], 1)?.to_vec(), vec![1, 3, 2, 4]);
    /// let s = Tensor::full(&[], 7)?;
    /// assert_eq!(Tensor::stack(&[&s, &s], 0)?.shape(), &[2]);
    /// // Any iterator of tensors: here results of an op, never bound to a name.
    /// let doubled = Tensor::stack([&a, &b].into_iter().map(|x| x * 2), 0)?;
    /// assert_eq!(doubled.to_vec(), vec![2, 4, 6, 8]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn stack<I>(tensors: I, dim: impl Dim) -> Result<Tensor<T>>
    where
        I: IntoIterator,
        I::Item: AsTensor<T>,
    {
        // The parts are held here (owned ones too) and read by reference.
        let parts: Vec<I::Item> = tensors.into_iter().collect();
        let tensors: Vec<&Tensor<T>> = parts.iter().map(AsTensor::as_tensor).collect();
        let first = tensors.first().ok_or(Error::NoInputs { op: "stack" })?;
        // The result has one dim more: -1 stacks along a new last dim (PyTorch).
        let dim = dim.index("stack", first.ndim() + 1)?;
        if dim > first.ndim() {
            return Err(Error::DimOutOfRange {
                op: "stack",
                dim,
                ndim: first.ndim() + 1,
            });
        }
        if let Some(index) = tensors.iter().position(|t| t.shape() != first.shape()) {
            return Err(Error::PartsMismatch {
                op: "stack",
                index,
                shape: tensors[index].shape().to_vec(),
                first: first.shape().to_vec(),
                dim: None,
            });
        }
        let parts = tensors
            .iter()
            .map(|t| t.unsqueeze(dim))
            .collect::<Result<Vec<_>>>()?;
        let mut shape = parts[0].shape().to_vec();
        shape[dim] = tensors.len();
        let refs: Vec<&Tensor<T>> = parts.iter().collect();
        Self::cat_checked(&refs, dim, &shape).map_err(|e| e.named("stack"))
    }

    /// A fresh tensor with `pads[d] = (before, after)` elements of `value` around each dim `d`
    /// (one pair per dim, in dim order; PyTorch's constant `pad`, but with the pairs in dim
    /// order rather than last dim first). The result keeps this tensor's memory order
    /// ([`Layout::dense_like`]); the border is filled and the input copied in one pass.
    ///
    /// # Errors
    /// [`Error::RankMismatch`] unless there is one pair per dim,
    /// [`Error::InvalidArgument`] naming the dim whose pads take its size past `usize::MAX`,
    /// [`Error::Overflow`] if the padded tensor is too large, [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec(vec![1, 2, 3, 4], &[2, 2])?;
    /// let p = x.pad(&[(1, 0), (0, 2)], 0)?;
    /// assert_eq!(p.shape(), &[3, 4]);
    /// assert_eq!(p.to_vec(), vec![0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn pad(&self, pads: &[(usize, usize)], value: T) -> Result<Tensor<T>> {
        if pads.len() != self.ndim() {
            return Err(Error::RankMismatch {
                op: "pad",
                what: "(before, after) pairs",
                expected: self.ndim(),
                got: pads.len(),
            });
        }
        let shape = self
            .shape()
            .iter()
            .zip(pads)
            .enumerate()
            .map(|(d, (&n, &(b, a)))| {
                n.checked_add(b)
                    .and_then(|m| m.checked_add(a))
                    .ok_or_else(|| Error::InvalidArgument {
                        op: "pad",
                        message: format!(
                            "the pads ({b}, {a}) of dim {d} (size {n}) make a size past \
                             usize::MAX; give smaller pads"
                        ),
                    })
            })
            .collect::<Result<Vec<usize>>>()?;
        let named = |e: Error| e.named("pad");
        let out = self.layout.dense_like_with_shape(&shape).map_err(named)?;
        audit::note_explicit_copy(CopyReason::Assemble, T::DTYPE, &self.layout, &out);
        let storage = assemble::pad(self.src(), pads, value, &out).map_err(named)?;
        Ok(Tensor::from_parts(Arc::new(storage), out))
    }

    /// Views of pieces of `size` along `dim`, the last one smaller ([`Layout::split`]); they
    /// share this tensor's storage.
    ///
    /// # Errors
    /// As [`Layout::split`].
    ///
    /// ```
    /// let x = stridex::Tensor::from_vec((0..5).collect::<Vec<i32>>(), &[5])?;
    /// let parts = x.split(2, 0)?;
    /// assert_eq!(parts[2].to_vec(), vec![4]);
    /// assert!(parts[0].shares_storage(&x));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn split(&self, size: usize, dim: impl crate::layout::Dim) -> Result<Vec<Tensor<T>>> {
        let dim = dim.index("split", self.ndim().max(1))?;
        Ok(self.views(self.layout.split(size, dim)?))
    }

    /// Views of `n` pieces of about equal size along `dim` ([`Layout::chunk`]).
    ///
    /// # Errors
    /// As [`Layout::chunk`].
    ///
    /// ```
    /// let x = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// let cols = x.chunk(2, 1)?;
    /// assert_eq!((cols[0].shape(), cols[1].shape()), (&[2, 2][..], &[2, 1][..]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn chunk(&self, n: usize, dim: impl crate::layout::Dim) -> Result<Vec<Tensor<T>>> {
        let dim = dim.index("chunk", self.ndim().max(1))?;
        Ok(self.views(self.layout.chunk(n, dim)?))
    }

    /// Views of pieces of the given `sizes` along `dim` ([`Layout::split_with_sizes`],
    /// PyTorch's `split_with_sizes`).
    ///
    /// # Errors
    /// As [`Layout::split_with_sizes`].
    ///
    /// ```
    /// let x = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[6])?;
    /// let parts = x.split_with_sizes(&[1, 2, 3], 0)?;
    /// assert_eq!(parts[2].to_vec(), vec![3, 4, 5]);
    /// assert!(x.split_with_sizes(&[1, 2], 0).is_err()); // adds up to 3, not 6
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn split_with_sizes(
        &self,
        sizes: &[usize],
        dim: impl crate::layout::Dim,
    ) -> Result<Vec<Tensor<T>>> {
        let dim = dim.index("split_with_sizes", self.ndim().max(1))?;
        Ok(self.views(self.layout.split_with_sizes(sizes, dim)?))
    }

    /// Views of exactly `n` pieces along `dim` whose sizes differ by at most one, larger first
    /// ([`Layout::tensor_split`]: PyTorch's `tensor_split(sections)`, NumPy's `array_split`).
    ///
    /// # Errors
    /// As [`Layout::tensor_split`].
    ///
    /// ```
    /// let x = stridex::Tensor::from_vec((0..7).collect::<Vec<i32>>(), &[7])?;
    /// let parts = x.tensor_split(3, 0)?;
    /// assert_eq!(parts[0].to_vec(), vec![0, 1, 2]);
    /// assert_eq!(parts[2].to_vec(), vec![5, 6]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "array_split")]
    pub fn tensor_split(&self, n: usize, dim: impl crate::layout::Dim) -> Result<Vec<Tensor<T>>> {
        let dim = dim.index("tensor_split", self.ndim().max(1))?;
        Ok(self.views(self.layout.tensor_split(n, dim)?))
    }

    /// Views of the pieces along `dim` cut before each of `indices`
    /// ([`Layout::tensor_split_indices`]: PyTorch's `tensor_split(indices)`, NumPy's
    /// `array_split` with indices); `indices.len() + 1` pieces.
    ///
    /// # Errors
    /// As [`Layout::tensor_split_indices`].
    ///
    /// ```
    /// let x = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[6])?;
    /// let parts = x.tensor_split_indices(&[1, 4], 0)?;
    /// assert_eq!(parts[1].to_vec(), vec![1, 2, 3]);
    /// assert_eq!(parts.len(), 3);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "array_split")]
    pub fn tensor_split_indices(
        &self,
        indices: &[usize],
        dim: impl crate::layout::Dim,
    ) -> Result<Vec<Tensor<T>>> {
        let dim = dim.index("tensor_split_indices", self.ndim().max(1))?;
        Ok(self.views(self.layout.tensor_split_indices(indices, dim)?))
    }

    /// One view per index of `dim`, with `dim` removed ([`Layout::unbind`]).
    ///
    /// # Errors
    /// As [`Layout::unbind`].
    ///
    /// ```
    /// let x = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// let rows = x.unbind(0)?;
    /// assert_eq!(rows[1].to_vec(), vec![3, 4, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn unbind(&self, dim: impl crate::layout::Dim) -> Result<Vec<Tensor<T>>> {
        let dim = dim.index("unbind", self.ndim().max(1))?;
        Ok(self.views(self.layout.unbind(dim)?))
    }

    /// Tensors over this storage for layouts derived from this one by view ops.
    fn views(&self, layouts: Vec<Layout>) -> Vec<Tensor<T>> {
        layouts
            .into_iter()
            .map(|l| Tensor::view_of(self.storage.clone(), l))
            .collect()
    }
}

/// The memory format every layout is dense in, if they agree on channels-last (3d); otherwise
/// row-major.
fn shared_format<'a>(mut layouts: impl Iterator<Item = &'a Layout>) -> MemoryFormat {
    let Some(first) = layouts.next() else {
        return MemoryFormat::Contiguous;
    };
    let format = first.suggest_memory_format();
    let dense = |l: &Layout| l.is_contiguous_in(format) && !l.is_contiguous();
    if format != MemoryFormat::Contiguous && dense(first) && layouts.all(dense) {
        format
    } else {
        MemoryFormat::Contiguous
    }
}
