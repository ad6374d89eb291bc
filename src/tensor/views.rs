//! View ops on `Tensor`: each delegates to the `Layout` op of the same name and shares storage
//! (generated once for the three tensor types, `src/view_api.rs`). See the `Layout` methods for
//! the exact stride rules; errors are the layout's errors.

use super::{AsTensor, Tensor};
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
    fn view_rewrap(&self, layout: Layout) -> Tensor<T> {
        Tensor::view_of(self.storage.clone(), layout)
    }

    /// [`Tensor::view_rewrap`] of a copy of this tensor's layout edited by `edit` (a view op's
    /// in-place form); the storage reference is taken only when the op succeeded.
    #[inline(always)]
    fn view_edit(&self, edit: impl FnOnce(&mut Layout) -> Result<()>) -> Result<Tensor<T>> {
        let mut layout = self.layout.clone();
        edit(&mut layout)?;
        Ok(self.view_rewrap(layout))
    }

    /// The storage length, for `explain` and `as_strided`'s bounds check.
    #[inline(always)]
    fn storage_len(&self) -> usize {
        self.storage.len()
    }

    layout_accessors!(name: "Tensor", make: "a", mut: "");
    view_ops!(recv: [&self] self, out: Tensor<T>, make: "a", mut: "");
    shared_view_ops!(recv: [&self] self, out: Tensor<T>, make: "a");

    /// The tensors broadcast to their common shape, as views (PyTorch's
    /// `broadcast_tensors`, NumPy's `broadcast_arrays`): each is [`Tensor::expand`]ed to
    /// [`broadcast_shapes_all`](crate::broadcast_shapes_all) of their shapes. Takes any
    /// collection of tensors or references, as [`Tensor::cat`]; no tensors give none.
    ///
    /// # Errors
    /// [`Error::BroadcastMismatch`] naming `broadcast_tensors`.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1, 2, 3], &[3])?;
    /// let b = Tensor::from_vec(vec![10, 20], &[2, 1])?;
    /// let [x, y] = <[_; 2]>::try_from(Tensor::broadcast_tensors([&a, &b])?).unwrap();
    /// assert_eq!((x.shape(), y.shape()), (&[2, 3][..], &[2, 3][..]));
    /// assert_eq!(y.to_vec(), vec![10, 10, 10, 20, 20, 20]);
    /// assert!(x.shares_storage(&a));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[doc(alias = "broadcast_arrays")]
    pub fn broadcast_tensors<I>(tensors: I) -> Result<Vec<Tensor<T>>>
    where
        I: IntoIterator,
        I::Item: AsTensor<T>,
    {
        const OP: &str = "broadcast_tensors";
        let parts: Vec<I::Item> = tensors.into_iter().collect();
        let shapes = parts.iter().map(|t| t.as_tensor().shape());
        let shape = crate::layout::broadcast_shapes_all(shapes).map_err(|e| e.named(OP))?;
        parts
            .iter()
            .map(|t| {
                let t = t.as_tensor();
                let l = t.layout.expand(&shape).map_err(|e| e.named(OP))?;
                Ok(t.view_rewrap(l))
            })
            .collect()
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
    /// // Shape literals are `i32` unless typed: lengths past `i32` need a `usize` (or `i64`).
    /// assert!(a.reshape(&[1usize << 40, 1 << 40]).is_err()); // 2^80 elements: an `Err`
    /// # Ok::<(), stridex::Error>(())
    /// ```
    ///
    /// Untyped, the same literal is an `i32` shift that overflows, a compile-time error:
    ///
    /// ```compile_fail
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3])?;
    /// let _ = a.reshape(&[1 << 40, 1 << 40]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn reshape(&self, shape: &(impl crate::layout::ShapeArg + ?Sized)) -> Result<Tensor<T>> {
        let shape = shape.resolve("reshape", self.numel())?;
        let shape: &[usize] = &shape;
        match self.layout.view(shape) {
            Ok(layout) => Ok(self.view_rewrap(layout)),
            Err(Error::ViewNotPossible { .. }) => {
                let dst = Layout::contiguous(self.shape())?;
                // The copy is a value of its own (its storage held by nothing else), not a
                // view of `self`, whatever the `view` that shapes it says.
                let copy = self.copy_to_fresh(dst, CopyReason::ReshapeCopy)?;
                Ok(Tensor::from_parts(
                    copy.storage.clone(),
                    copy.layout.view(shape)?,
                ))
            }
            Err(e) => Err(e.with_op("reshape")),
        }
    }
}
