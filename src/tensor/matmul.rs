//! Matrix products: thin wrappers over [`crate::matmul`], which holds the shape rules and the
//! GEMM core.

use std::sync::Arc;

use super::Tensor;
use crate::error::{Error, Result};
use crate::matmul::{self, MatmulElement};
use crate::storage::Storage;

impl<T: MatmulElement> Tensor<T> {
    /// The matrix product of `self` and `other`, by PyTorch's rules, into a fresh row-major
    /// tensor.
    ///
    /// - 1-dim · 1-dim: the dot product (a 0-dim result);
    /// - 2-dim · 2-dim: the matrix product, `[m, k] · [k, n] -> [m, n]`;
    /// - a 1-dim `self` is a row (`[k] · [k, n] -> [n]`), a 1-dim `other` a column
    ///   (`[m, k] · [k] -> [m]`);
    /// - more dims: the leading dims are batch dims that broadcast (NumPy rules), e.g.
    ///   `[b, 1, m, k] · [c, k, n] -> [b, c, m, n]`.
    ///
    /// Operands are read through their strides, whatever they are (transposed, narrowed,
    /// stepped, flipped, expanded, `as_strided`): no operand is copied first, and broadcast
    /// batch dims are not materialised. `f16` and `bf16` accumulate in `f32`. Runs on the
    /// current rayon pool, so `ThreadPool::install` sets the thread count.
    ///
    /// # Errors
    /// [`Error::MatmulMismatch`] if the contracted dims differ (the message names both shapes
    /// and both dims), [`Error::MatmulBatchMismatch`] if the batch dims do not broadcast,
    /// [`Error::RankMismatch`] for a 0-dim operand, [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2])?;
    /// let w = Tensor::from_vec(vec![1.0f32, 0.0, 1.0, 0.0, 1.0, 1.0], &[3, 2])?;
    /// // xᵀ · w without copying xᵀ.
    /// let y = x.t()?.matmul(&w)?;
    /// assert_eq!(y.shape(), &[2, 2]);
    /// assert_eq!(y.to_vec(), vec![9.0, 5.0, 12.0, 6.0]);
    /// // Dot product and shape errors.
    /// let v = Tensor::from_vec(vec![1.0f32, 2.0], &[2])?;
    /// assert_eq!(v.matmul(&v)?.to_vec(), vec![5.0]);
    /// let err = x.matmul(&w).unwrap_err().to_string();
    /// assert!(err.contains("[3, 2]") && err.contains("dim 1") && err.contains("dim 0"));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn matmul(&self, other: &Tensor<T>) -> Result<Tensor<T>> {
        let (storage, layout) =
            matmul::matmul(&self.storage, &self.layout, &other.storage, &other.layout)?;
        Ok(Tensor::from_parts(Arc::new(storage), layout))
    }

    /// The matrix product of `self` and `other` (the rules of [`Tensor::matmul`]) written into
    /// `out` through `out`'s own strides: `out = self · other`, or with `accumulate`,
    /// `out += self · other` (sums formed in the accumulator type, then rounded once).
    ///
    /// `out` must be the only tensor viewing its storage. That rules out writing into a storage
    /// that an input (or any other view) reads, which `&mut` alone cannot prove; make the view
    /// from a tensor you then drop, as in the example.
    ///
    /// # Errors
    /// As [`Tensor::matmul`]; [`Error::ShapeMismatch`] if `out` does not have the result's shape,
    /// [`Error::OverlappingDestination`] if its layout may address an element twice (stride 0,
    /// overlapping dims; see [`Layout::is_non_overlapping`](crate::Layout::is_non_overlapping)),
    /// [`Error::SharedStorage`] if another tensor holds its storage.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let id = Tensor::from_vec(vec![1.0f64, 0.0, 0.0, 1.0], &[2, 2])?;
    /// // A column-major output: the transpose of a fresh tensor (the temporary is dropped).
    /// let mut out = Tensor::<f64>::zeros(&[2, 2])?.t()?;
    /// a.matmul_into(&id, &mut out, false)?;
    /// a.matmul_into(&id, &mut out, true)?;
    /// assert_eq!(out.to_vec(), vec![2.0, 4.0, 6.0, 8.0]);
    /// assert_eq!(out.strides(), &[1, 2]);
    /// // Writing into a storage that is still shared is refused.
    /// let mut view = a.t()?;
    /// assert!(a.matmul_into(&id, &mut view, false).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn matmul_into(
        &self,
        other: &Tensor<T>,
        out: &mut Tensor<T>,
        accumulate: bool,
    ) -> Result<()> {
        let holders = Arc::strong_count(&out.storage);
        let writable = out.storage.is_writable();
        let storage = Storage::exclusive(&mut out.storage).ok_or(if writable {
            Error::SharedStorage {
                op: "matmul_into",
                holders,
            }
        } else {
            Error::ReadOnlyStorage { op: "matmul_into" }
        })?;
        matmul::matmul_into(
            (&self.storage, &self.layout),
            (&other.storage, &other.layout),
            (storage, &out.layout),
            accumulate,
        )
    }
}
