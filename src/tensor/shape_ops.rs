//! Ops that rearrange or repeat elements into a fresh tensor: `tril` / `triu`, `repeat` /
//! `tile`, `roll`, `diff`, `one_hot`.
//!
//! Each reads its input in place through its strides (any layout: transposed, flipped,
//! narrowed, expanded; nothing in the copy audit) and fills a fresh row-major result line by
//! line, in parallel for large ones with identical results for any thread count
//! (`src/kernels/line_ops.rs`). `diff` keeps its dim innermost in memory instead (row-major
//! for the last dim).

use std::sync::Arc;

use super::Tensor;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels::line_ops;
use crate::kernels::lines::line_major_strides;
use crate::layout::{Dim, Layout};
use crate::scalar::{IntElement, Numeric};
use crate::storage::Storage;

impl<T: Element> Tensor<T> {
    /// The lower triangle of the last two dims (batched over the others): element `[.., i,
    /// j]` where `j <= i + k`, zero elsewhere (PyTorch's and NumPy's `tril`; `k = 0` is the
    /// main diagonal, `k > 0` keeps diagonals above it, `k < 0` drops diagonals below).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than 2 dims; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec((1..=9).collect::<Vec<i32>>(), &[3, 3])?;
    /// assert_eq!(x.tril(0)?.to_vec(), vec![1, 0, 0, 4, 5, 0, 7, 8, 9]);
    /// assert_eq!(x.tril(-1)?.to_vec(), vec![0, 0, 0, 4, 0, 0, 7, 8, 0]);
    /// assert_eq!(x.t()?.tril(0)?.to_vec(), vec![1, 0, 0, 2, 5, 0, 3, 6, 9]);
    /// assert!(Tensor::<f32>::zeros(&[3])?.tril(0).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn tril(&self, k: i64) -> Result<Tensor<T>> {
        self.triangle("tril", k, false)
    }

    /// The upper triangle of the last two dims: element `[.., i, j]` where `j >= i + k`,
    /// zero elsewhere (PyTorch's and NumPy's `triu`); see [`Tensor::tril`].
    ///
    /// # Errors
    /// As [`Tensor::tril`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec((1..=6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(x.triu(0)?.to_vec(), vec![1, 2, 3, 0, 5, 6]);
    /// assert_eq!(x.triu(1)?.to_vec(), vec![0, 2, 3, 0, 0, 6]);
    /// let batch = x.unsqueeze(0)?.expand(&[2, 2, 3])?; // batched over dim 0
    /// assert_eq!(batch.triu(2)?.to_vec(), vec![0, 0, 3, 0, 0, 0, 0, 0, 3, 0, 0, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn triu(&self, k: i64) -> Result<Tensor<T>> {
        self.triangle("triu", k, true)
    }

    /// A fresh tensor equal to `self`, for an op that moves nothing (a 0-dim or empty
    /// tensor): made without the copy kernel, as the op's result is made.
    fn unchanged(&self) -> Result<Tensor<T>> {
        match self.numel() {
            0 => Tensor::zeros(self.shape()),
            _ => Tensor::full(self.shape(), self.get(&vec![0; self.ndim()])?),
        }
    }

    fn triangle(&self, op: &'static str, k: i64, upper: bool) -> Result<Tensor<T>> {
        if self.ndim() < 2 {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "needs at least 2 dims (rows and columns), got shape {:?}; for a vector, \
                     unsqueeze it first",
                    self.shape()
                ),
            });
        }
        let out = line_ops::triangle(op, &self.storage, &self.layout, k, upper)?;
        Ok(Tensor::from_parts(
            Arc::new(out),
            Layout::contiguous(self.shape())?,
        ))
    }

    /// The tensor repeated `reps[d]` times along each dim (PyTorch's `repeat`; NumPy's
    /// `tile` is [`Tensor::tile`]). `reps` has at least one entry per dim; extra entries add
    /// leading dims (the tensor is read as if it had size-1 dims in front). The result is a
    /// fresh row-major tensor.
    ///
    /// # Errors
    /// [`Error::RankMismatch`] if `reps` has fewer entries than the tensor has dims;
    /// [`Error::Overflow`] if the result's size overflows; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec(vec![1, 2, 3], &[3])?;
    /// assert_eq!(x.repeat(&[2])?.to_vec(), vec![1, 2, 3, 1, 2, 3]);
    /// let r = x.repeat(&[2, 1])?; // a new leading dim
    /// assert_eq!((r.shape(), r.to_vec()), (&[2, 3][..], vec![1, 2, 3, 1, 2, 3]));
    /// assert!(Tensor::<f32>::zeros(&[2, 2])?.repeat(&[2]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn repeat(&self, reps: &[usize]) -> Result<Tensor<T>> {
        if reps.len() < self.ndim() {
            return Err(Error::RankMismatch {
                op: "repeat",
                what: "repetitions (one per dim at least)",
                expected: self.ndim(),
                got: reps.len(),
            });
        }
        let lead = reps.len() - self.ndim();
        let mut x = self.clone();
        for _ in 0..lead {
            x = x.unsqueeze(0)?;
        }
        let overflow = || Error::Overflow {
            op: "repeat",
            shape: self.shape().to_vec(),
            strides: vec![],
        };
        let out_shape = x
            .shape()
            .iter()
            .zip(reps)
            .map(|(&n, &r)| n.checked_mul(r).ok_or_else(overflow))
            .collect::<Result<Vec<usize>>>()?;
        if out_shape.is_empty() {
            return self.unchanged();
        }
        let layout = Layout::contiguous(&out_shape).map_err(|_| overflow())?;
        let out = line_ops::repeat(&x.storage, &x.layout, &out_shape)?;
        Ok(Tensor::from_parts(Arc::new(out), layout))
    }

    /// NumPy's `tile`: the tensor repeated `reps[d]` times along each dim, where `reps` may
    /// also be *shorter* than the shape (then it applies to the last dims, the others
    /// repeated once). Otherwise as [`Tensor::repeat`].
    ///
    /// # Errors
    /// As [`Tensor::repeat`], except for the rank check.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec(vec![1, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(x.tile(&[2])?.to_vec(), vec![1, 2, 1, 2, 3, 4, 3, 4]); // the last dim
    /// assert_eq!(x.tile(&[2, 1])?.shape(), &[4, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn tile(&self, reps: &[usize]) -> Result<Tensor<T>> {
        let mut all = vec![1; self.ndim().saturating_sub(reps.len())];
        all.extend_from_slice(reps);
        self.repeat(&all).map_err(|e| e.named("tile"))
    }

    /// The elements shifted by `shifts[i]` places along `dims[i]`, wrapping around (PyTorch's
    /// and NumPy's `roll`): element `j` moves to `(j + shift) mod size`; negative shifts go
    /// the other way, and a dim named twice is rolled by the sum of its shifts (as both do).
    /// With no dims, the tensor is rolled as if flattened ([`Tensor::roll_flat`]). The
    /// result is a fresh row-major tensor.
    ///
    /// # Errors
    /// [`Error::RankMismatch`] if `shifts` and `dims` differ in length (with no dims, if
    /// `shifts` is not one shift); [`Error::DimOutOfRange`] for a dim; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(x.roll(&[1], &[1])?.to_vec(), vec![2, 0, 1, 5, 3, 4]);
    /// assert_eq!(x.roll(&[-1, 1], &[1, 0])?.to_vec(), vec![4, 5, 3, 1, 2, 0]);
    /// assert!(x.roll(&[1, 2], &[0]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn roll<D: Dim>(&self, shifts: &[i64], dims: &[D]) -> Result<Tensor<T>> {
        if dims.is_empty() {
            return match *shifts {
                [s] => self.roll_flat(s).map_err(|e| e.named("roll")),
                _ => Err(Error::RankMismatch {
                    op: "roll",
                    what: "shifts (one, to roll the flattened tensor, when no dims are given)",
                    expected: 1,
                    got: shifts.len(),
                }),
            };
        }
        if shifts.len() != dims.len() {
            return Err(Error::RankMismatch {
                op: "roll",
                what: "shifts (one per dim given)",
                expected: dims.len(),
                got: shifts.len(),
            });
        }
        let nd = self.ndim();
        let mut total = vec![0i128; nd.max(1)];
        for (&s, &d) in shifts.iter().zip(dims) {
            let d = d.index("roll", nd.max(1))?;
            if d >= nd.max(1) {
                return Err(Error::DimOutOfRange {
                    op: "roll",
                    dim: d,
                    ndim: nd,
                });
            }
            total[d] += i128::from(s);
        }
        if nd == 0 || self.numel() == 0 {
            return self.unchanged();
        }
        let shape = self.shape();
        let norm: Vec<usize> = (0..nd)
            .map(|d| total[d].rem_euclid(shape[d] as i128) as usize)
            .collect();
        let out = line_ops::roll(&self.storage, &self.layout, &norm)?;
        Ok(Tensor::from_parts(
            Arc::new(out),
            Layout::contiguous(shape)?,
        ))
    }

    /// The tensor rolled as if flattened in row-major order, by `shift` places, in its own
    /// shape (PyTorch's `roll` without dims; NumPy's `roll` without `axis`).
    ///
    /// # Errors
    /// [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(x.roll_flat(2)?.to_vec(), vec![4, 5, 0, 1, 2, 3]);
    /// assert_eq!(x.t()?.roll_flat(-1)?.to_vec(), vec![3, 1, 4, 2, 5, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn roll_flat(&self, shift: i64) -> Result<Tensor<T>> {
        let n = self.numel();
        if self.ndim() == 0 || n == 0 {
            return self.unchanged();
        }
        let s = i128::from(shift).rem_euclid(n as i128) as usize;
        let out = line_ops::roll_flat(&self.storage, &self.layout, s)?;
        Ok(Tensor::from_parts(
            Arc::new(out),
            Layout::contiguous(self.shape())?,
        ))
    }
}

impl<T: Numeric> Tensor<T> {
    /// The `n`-th forward difference along `dim` (NumPy's `diff(a, n, axis)`, PyTorch's
    /// `diff(input, n, dim)`): `out[i] = a[i + 1] - a[i]`, applied `n` times, so `dim`
    /// shrinks by `n` (to 0 if `n` is at least its size). Integers wrap, as NumPy's do.
    /// `n = 0` gives the tensor itself. The result is dense with `dim` innermost in memory
    /// (row-major for the last dim).
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] / [`Error::NegativeDimOutOfRange`] for `dim`, or a 0-dim
    /// tensor (it has no dim to difference); [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec(vec![1, 2, 4, 7, 0, 0, 0, 1], &[2, 4])?;
    /// assert_eq!(x.diff(1, -1)?.to_vec(), vec![1, 2, 3, 0, 0, 1]);
    /// assert_eq!(x.diff(2, 1)?.to_vec(), vec![1, 1, 0, 1]);
    /// assert_eq!(x.diff(1, 0)?.to_vec(), vec![-1, -2, -4, -6]);
    /// assert_eq!(x.diff(5, 1)?.shape(), &[2, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn diff(&self, n: usize, dim: impl Dim) -> Result<Tensor<T>> {
        let nd = self.ndim();
        let d = dim.index("diff", nd)?;
        if d >= nd {
            return Err(Error::DimOutOfRange {
                op: "diff",
                dim: d,
                ndim: nd,
            });
        }
        if n == 0 {
            return Ok(self.clone());
        }
        let mut shape = self.shape().to_vec();
        let n = n.min(shape[d]);
        shape[d] -= n;
        let out = line_ops::diff(&self.storage, &self.layout, d, n, &shape)?;
        let layout = Layout::new(&shape, &line_major_strides(&shape, d), 0)?;
        Ok(Tensor::from_parts(Arc::new(out), layout))
    }
}

impl<T: IntElement> Tensor<T> {
    /// One-hot encoding (PyTorch's `one_hot`): a new last dim of `num_classes`, holding 1 at
    /// each element's value and 0 elsewhere, as `i64`. For PyTorch's `num_classes = -1`,
    /// pass `x.max()? + 1` (converted).
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`] (or [`Error::IndexTooLarge`] for a `u64` past `i64::MAX`)
    /// for an element that is negative or not below `num_classes`, before anything is
    /// written; [`Error::Overflow`] / [`Error::Alloc`] for the result.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let labels = Tensor::from_vec(vec![2u8, 0, 1], &[3])?;
    /// assert_eq!(labels.one_hot(3)?.to_vec(), vec![0, 0, 1, 1, 0, 0, 0, 1, 0]);
    /// assert_eq!(labels.one_hot(4)?.shape(), &[3, 4]);
    /// assert!(labels.one_hot(2).is_err()); // 2 is not below 2
    /// assert!(Tensor::from_vec(vec![-1i64], &[1])?.one_hot(3).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn one_hot(&self, num_classes: usize) -> Result<Tensor<i64>> {
        let mut classes = Vec::with_capacity(self.numel());
        for v in self.iter() {
            let Some(c) = v.checked_index(num_classes) else {
                let wide = v.to_wide();
                return Err(match i64::try_from(wide) {
                    Ok(index) => Error::IndexOutOfBounds {
                        op: "one_hot",
                        dim: 0,
                        index,
                        size: num_classes,
                    },
                    Err(_) => Error::IndexTooLarge {
                        op: "one_hot",
                        dim: 0,
                        index: wide as u64,
                        size: num_classes,
                    },
                });
            };
            classes.push(c);
        }
        let mut shape = self.shape().to_vec();
        shape.push(num_classes);
        let layout = Layout::contiguous(&shape)?;
        let out: Storage<i64> = line_ops::one_hot(&classes, num_classes, &shape)?;
        Ok(Tensor::from_parts(Arc::new(out), layout))
    }
}
