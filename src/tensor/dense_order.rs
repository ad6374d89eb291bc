//! Copies into a chosen memory order: the layout the next op wants, not only row-major or a
//! [`MemoryFormat`](crate::MemoryFormat). The input's own order (PyTorch's `preserve_format`),
//! a given order of the dims, or another tensor's order (the `empty_like` rule). Each returns
//! the tensor itself when it is already dense in that order, and otherwise makes one copy
//! through the copy kernel, reported to the audit as a `contiguous_in` copy (asked for).

use super::Tensor;
use crate::audit::CopyReason;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::{Dim, Layout, resolve_dims};

impl<T: Element> Tensor<T> {
    /// This tensor dense in its own memory order (PyTorch's `preserve_format`): itself when
    /// its elements already fill a block of storage without gaps, overlaps or negative
    /// strides ([`Layout::is_non_overlapping_and_dense`]), otherwise one copy into
    /// [`Layout::dense_like`] strides: the dims keep their order in memory, the gaps, flips
    /// and broadcasts go.
    ///
    /// # Errors
    /// [`Error::Alloc`], [`Error::Overflow`] for a copy past `isize::MAX` bytes.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::<f32>::zeros(&[4, 6])?;
    /// let t = a.t()?.narrow(0, 1, 3)?; // column-major order, with gaps
    /// let d = t.contiguous_preserve()?;
    /// assert_eq!(d.strides(), &[1, 3]); // still column-major, now dense
    /// assert!(a.t()?.contiguous_preserve()?.shares_storage(&a)); // already dense
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "preserve_format")]
    #[track_caller]
    pub fn contiguous_preserve(&self) -> Result<Tensor<T>> {
        if self.layout.is_non_overlapping_and_dense() {
            return Ok(self.clone());
        }
        self.dense_copy(self.layout.dense_like()?)
    }

    /// This tensor dense with its dims in memory in `order`, outermost first: `[0, 1, ..]`
    /// is row-major, `[.., 1, 0]` column-major, `[0, 2, 3, 1]` channels-last for 4 dims.
    /// Itself when already dense in that order, otherwise one copy. Dims may count from the
    /// end.
    ///
    /// # Errors
    /// [`Error::NotAPermutation`] unless `order` names every dim once
    /// ([`Error::RepeatedDim`] for one named twice, also as `1` and `-1`); [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// let f = a.contiguous_in_order(&[1, 0])?; // column-major
    /// assert_eq!((f.strides(), f.to_vec()), (&[1, 2][..], a.to_vec()));
    /// assert!(a.contiguous_in_order(&[0, -1])?.shares_storage(&a));
    /// assert!(a.contiguous_in_order(&[0]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn contiguous_in_order(&self, order: &[impl Dim]) -> Result<Tensor<T>> {
        const OP: &str = "contiguous_in_order";
        let n = self.ndim();
        let order = resolve_dims(OP, order, n)?;
        if order.len() != n || order.iter().any(|&d| d >= n) {
            return Err(Error::NotAPermutation {
                dims: order.to_vec(),
                ndim: n,
            });
        }
        let target = Layout::dense_in_order(OP, self.shape(), &order)?;
        if self.is_dense_as(&target) {
            return Ok(self.clone());
        }
        self.dense_copy(target)
    }

    /// This tensor dense in `other`'s memory order (the rule of PyTorch's `empty_like`):
    /// `other`'s strides when `other` is dense, otherwise the dense layout of its order
    /// ([`Layout::dense_like`]). Itself when already dense in that order, otherwise one copy.
    /// `other` may have any element type.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] naming `contiguous_like` if the shapes differ;
    /// [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// let like = Tensor::<f64>::zeros(&[3, 2])?.t()?; // column-major 2 x 3
    /// let c = a.contiguous_like(&like)?;
    /// assert_eq!((c.strides(), c.to_vec()), (like.strides(), a.to_vec()));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn contiguous_like<U: Element>(&self, other: &Tensor<U>) -> Result<Tensor<T>> {
        if self.shape() != other.shape() {
            return Err(Error::ShapeMismatch {
                op: "contiguous_like",
                expected: other.shape().to_vec(),
                got: self.shape().to_vec(),
            });
        }
        let target = other.layout.dense_like()?;
        if self.is_dense_as(&target) {
            return Ok(self.clone());
        }
        self.dense_copy(target)
    }

    /// Whether this tensor's elements sit as in `target`, a dense layout of its shape: the
    /// same stride on every dim of size > 1 (the strides of size-1 dims are never read).
    fn is_dense_as(&self, target: &Layout) -> bool {
        self.numel() == 0
            || (self
                .shape()
                .iter()
                .zip(self.strides())
                .zip(target.strides()))
            .all(|((&n, &s), &t)| n == 1 || s == t)
    }

    /// One copy into `dst`, a dense layout of this shape, reported as asked for.
    #[track_caller]
    fn dense_copy(&self, dst: Layout) -> Result<Tensor<T>> {
        self.copy_to_fresh(dst, CopyReason::ContiguousIn)
    }
}
