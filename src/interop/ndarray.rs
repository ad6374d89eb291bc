//! `ndarray` interop (feature `ndarray`): any tensor view as an `ArrayViewD` without a copy,
//! and arrays into tensors.
//!
//! Both crates describe a view the same way (a pointer to element `[0, 0, ..]`, a shape, and
//! strides in elements that may be negative or zero), so a view translates field by field. One
//! difference: ndarray builds views from a pointer with non-negative strides only, so dims with
//! a negative stride are built from the lowest address the view touches and then reversed with
//! `invert_axis`, which restores the negative stride.

use ::ndarray::{
    Array, ArrayBase, ArrayViewD, ArrayViewMutD, Axis, Data, Dimension, IxDyn, ShapeBuilder,
};

use crate::element::Element;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::tensor_mut::TensorMut;

fn overflow(shape: &[usize], strides: &[isize]) -> Error {
    Error::Overflow {
        op: "to_ndarray_view",
        shape: shape.to_vec(),
        strides: strides.to_vec(),
    }
}

impl<T: Element> Tensor<T> {
    /// This view as an ndarray `ArrayViewD` of the same elements: no copy, whatever the layout
    /// (transposed, narrowed, flipped with negative strides, expanded with stride 0). The
    /// array borrows the tensor, which keeps the storage alive and unchanged meanwhile.
    ///
    /// # Errors
    /// [`Error::Overflow`] only for an empty tensor whose other dims multiply past
    /// `isize::MAX`, which ndarray cannot describe.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let t = Tensor::arange(0i32, 6, 1)?.view(&[2, 3])?;
    /// let v = t.t()?.flip(0)?; // shape [3, 2], strides [-1, 3]
    /// let a = v.to_ndarray_view()?;
    /// assert_eq!(a.strides(), &[-1, 3]);
    /// assert_eq!(a[[0, 1]], 5);
    /// assert_eq!(a.as_ptr(), v.data_ptr()); // the same memory
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn to_ndarray_view(&self) -> Result<ArrayViewD<'_, T>> {
        let (shape, strides) = (self.shape(), self.strides());
        if self.numel() == 0 {
            // Nothing to point at: an empty array of the same shape (strides do not matter).
            return ArrayViewD::from_shape(IxDyn(shape), &[]).map_err(|_| overflow(shape, strides));
        }
        // The lowest storage offset the view addresses: the layout's offset plus (n - 1) *
        // stride for every negative stride. The layout invariants (src/layout/mod.rs) put
        // every addressed offset in 0..storage.len(), so this one is too.
        let mut low = self.offset() as isize;
        for (&n, &s) in shape.iter().zip(strides) {
            if s < 0 {
                low = (n as isize - 1)
                    .checked_mul(s)
                    .and_then(|step| low.checked_add(step))
                    .ok_or_else(|| overflow(shape, strides))?;
            }
        }
        let low = usize::try_from(low).map_err(|_| overflow(shape, strides))?;
        if low >= self.storage().len() {
            return Err(overflow(shape, strides));
        }
        let abs: Vec<usize> = strides.iter().map(|s| s.unsigned_abs()).collect();
        let ptr = self.storage().as_ptr().wrapping_add(low);
        // SAFETY: `ptr` is storage element `low`, in bounds (checked above) and aligned to `T`
        // (storage invariant 1, src/storage/mod.rs). Moving from it by the absolute strides
        // reaches exactly the offsets the layout addresses, mirrored along the negative dims,
        // all inside the storage (tensor invariant, src/tensor/mod.rs); their byte span is
        // within the storage's, at most isize::MAX bytes, and the element count fits isize
        // (layout invariants). The elements are initialized (storage invariant 3) and never
        // written while a `Tensor` shares the storage (storage invariant 4: writes copy first
        // when shared), and the view borrows `self`, so they stay valid and unchanged for its
        // lifetime. Read-only views may address an element twice (stride 0).
        let mut view =
            unsafe { ArrayViewD::from_shape_ptr(IxDyn(shape).strides(IxDyn(&abs)), ptr) };
        for (d, &s) in strides.iter().enumerate() {
            if s < 0 {
                view.invert_axis(Axis(d));
            }
        }
        Ok(view)
    }

    /// A row-major tensor holding a copy of `array`'s elements in logical order: one copy,
    /// since a borrowed array's memory cannot be shared (a memcpy when the array is contiguous
    /// in memory order, which keeps its strides; an element-by-element gather otherwise). To
    /// move an owned array without copying, see [`Tensor::from_ndarray_owned`].
    ///
    /// # Errors
    /// [`Error::Alloc`] if the copy cannot be allocated.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = ndarray::arr2(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    /// let t = Tensor::from_ndarray(&a.t())?;
    /// assert_eq!(t.shape(), &[3, 2]);
    /// assert_eq!(t.to_vec(), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn from_ndarray<S, D>(array: &ArrayBase<S, D>) -> Result<Tensor<T>>
    where
        S: Data<Elem = T>,
        D: Dimension,
    {
        if let Some(memory) = array.as_slice_memory_order() {
            // Contiguous in some dim order: copy the memory as it is, keep the strides.
            let start = first_element_offset(array.shape(), array.strides());
            return Tensor::from_slice(memory, &[memory.len()])?.as_strided(
                array.shape(),
                array.strides(),
                start,
            );
        }
        Tensor::from_vec(array.iter().copied().collect(), array.shape())
    }

    /// A tensor taking over an owned array's buffer without copying it: the tensor adopts the
    /// array's `Vec` ([`Tensor::from_vec`]) and keeps its shape, strides (negative ones too)
    /// and offset. Like any adopted `Vec`, the buffer is aligned to `T`, not necessarily to 64
    /// bytes ([`Tensor::to_aligned`] copies into aligned storage).
    ///
    /// # Errors
    /// As [`Tensor::as_strided`]; none for an array ndarray built.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = ndarray::Array::from_shape_vec((2, 3), vec![1u8, 2, 3, 4, 5, 6]).unwrap();
    /// let at = a.as_ptr();
    /// let t = Tensor::from_ndarray_owned(a.reversed_axes())?; // a column-major 3x2 array
    /// assert_eq!((t.shape(), t.strides()), (&[3, 2][..], &[1, 3][..]));
    /// assert_eq!(t.data_ptr(), at); // the same buffer
    /// assert_eq!(t.to_vec(), vec![1, 4, 2, 5, 3, 6]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn from_ndarray_owned<D: Dimension>(array: Array<T, D>) -> Result<Tensor<T>> {
        let shape = array.shape().to_vec();
        let strides = array.strides().to_vec();
        let (buffer, offset) = array.into_raw_vec_and_offset();
        let len = buffer.len();
        Tensor::from_vec(buffer, &[len])?.as_strided(&shape, &strides, offset.unwrap_or(0))
    }
}

/// The lowest storage offset a non-empty view of `offset`, `shape`, `strides` addresses: the
/// offset plus `(n - 1) * stride` for every negative stride; `Err` if that is not inside a
/// storage of `len` elements.
fn lowest_offset(
    op: &'static str,
    offset: usize,
    shape: &[usize],
    strides: &[isize],
    len: usize,
) -> Result<usize> {
    let fail = || Error::Overflow {
        op,
        shape: shape.to_vec(),
        strides: strides.to_vec(),
    };
    let mut low = isize::try_from(offset).map_err(|_| fail())?;
    for (&n, &s) in shape.iter().zip(strides) {
        if s < 0 {
            low = (n as isize - 1)
                .checked_mul(s)
                .and_then(|step| low.checked_add(step))
                .ok_or_else(fail)?;
        }
    }
    usize::try_from(low)
        .ok()
        .filter(|&low| low < len)
        .ok_or_else(fail)
}

/// Whether ndarray accepts these strides for a mutable view: taken from the smallest absolute
/// stride up, each dim longer than 1 must step past everything the smaller dims span. That is
/// ndarray's own (sufficient) test for distinct elements, which it asserts in debug builds; a
/// layout stridex proves non-overlapping in another way (interleaved dims) fails it.
fn ndarray_accepts_mut(shape: &[usize], strides: &[isize]) -> bool {
    let mut dims: Vec<(usize, usize)> = shape
        .iter()
        .zip(strides)
        .filter(|&(&n, _)| n > 1)
        .map(|(&n, &s)| (s.unsigned_abs(), n))
        .collect();
    dims.sort_unstable();
    let mut span = 0usize;
    for (s, n) in dims {
        if s <= span {
            return false;
        }
        span = match (n - 1).checked_mul(s).and_then(|d| span.checked_add(d)) {
            Some(span) => span,
            None => return false,
        };
    }
    true
}

impl<'a, T: Element> TensorMut<'a, T> {
    /// This mutable view as an ndarray `ArrayViewMutD` of the same elements: no copy, negative
    /// strides included. Writes through the array land in the tensor. The array borrows this
    /// view mutably, so nothing else reads or writes those elements meanwhile.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a layout whose dims interleave in memory (stridex proves
    /// such layouts write each element once; ndarray's mutable views need each dim to step
    /// past the smaller ones): call `contiguous()` on the tensor and view that instead.
    /// [`Error::Overflow`] as for [`Tensor::to_ndarray_view`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let mut t = Tensor::<i32>::zeros(&[2, 3])?;
    /// {
    ///     let mut v = t.view_mut()?.t()?.flip(0)?; // shape [3, 2], strides [-1, 3]
    ///     let mut a = v.to_ndarray_view_mut()?;
    ///     a[[0, 1]] = 7; // element [1, 2] of t
    ///     a.index_axis_mut(ndarray::Axis(1), 0).fill(1); // row 0 of t
    /// }
    /// assert_eq!(t.to_vec(), vec![1, 1, 1, 0, 0, 7]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn to_ndarray_view_mut(&mut self) -> Result<ArrayViewMutD<'_, T>> {
        let op = "to_ndarray_view_mut";
        let (shape, strides) = (self.shape().to_vec(), self.strides().to_vec());
        if self.numel() == 0 {
            return ArrayViewMutD::from_shape(IxDyn(&shape), &mut []).map_err(|_| {
                Error::Overflow {
                    op,
                    shape: shape.clone(),
                    strides: strides.clone(),
                }
            });
        }
        if !ndarray_accepts_mut(&shape, &strides) {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "shape {shape:?} with strides {strides:?} interleaves its dims in memory; \
                     ndarray's mutable views need each dim to step past the smaller ones; \
                     write through a contiguous() copy instead"
                ),
            });
        }
        let offset = self.offset();
        let (base, len) = self.storage_raw();
        let low = lowest_offset(op, offset, &shape, &strides, len)?;
        let abs: Vec<usize> = strides.iter().map(|s| s.unsigned_abs()).collect();
        let ptr = base.wrapping_add(low);
        // SAFETY: `ptr` is storage element `low`, in bounds (checked) and aligned to `T`
        // (storage invariant 1). Moving from it by the absolute strides reaches exactly the
        // offsets this view's layout addresses, mirrored along the negative dims, all inside
        // the storage (TensorMut invariant 1, src/tensor_mut/mod.rs), within isize::MAX bytes
        // (layout invariants). Distinct indices reach distinct elements (TensorMut invariant
        // 2; ndarray's own sufficient test also holds, checked above, so its debug assertion
        // cannot fire), the elements are initialized, and no other handle reaches them while
        // the array's `&mut self` borrow lasts (TensorMut invariant 3: split halves are
        // disjoint).
        let mut view =
            unsafe { ArrayViewMutD::from_shape_ptr(IxDyn(&shape).strides(IxDyn(&abs)), ptr) };
        for (d, &s) in strides.iter().enumerate() {
            if s < 0 {
                view.invert_axis(Axis(d));
            }
        }
        Ok(view)
    }
}

/// Offset of element `[0, 0, ..]` from the lowest address of a view with these strides.
fn first_element_offset(shape: &[usize], strides: &[isize]) -> usize {
    shape
        .iter()
        .zip(strides)
        .filter(|&(_, &s)| s < 0)
        .map(|(&n, &s)| n.saturating_sub(1).saturating_mul(s.unsigned_abs()))
        .fold(0, usize::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutable_views_write_through_any_accepted_layout() {
        let mut t = Tensor::<i64>::zeros(&[3, 4]).unwrap();
        {
            let (mut top, mut rest) = t.view_mut().unwrap().split_at(0, 1).unwrap();
            let mut a = top.to_ndarray_view_mut().unwrap();
            a.fill(1);
            let mut flipped = rest.reborrow().flip(1).unwrap().t().unwrap();
            let mut b = flipped.to_ndarray_view_mut().unwrap();
            assert_eq!(b.shape(), &[4, 2]);
            b[[0, 0]] = 9; // row 1, last column
            b[[3, 1]] = 8; // row 2, column 0
        }
        assert_eq!(t.to_vec(), vec![1, 1, 1, 1, 0, 0, 0, 9, 8, 0, 0, 0]);
        // Empty views are fine.
        let mut e = Tensor::<f32>::zeros(&[2, 0]).unwrap();
        assert_eq!(
            e.view_mut().unwrap().to_ndarray_view_mut().unwrap().len(),
            0
        );
    }

    #[test]
    fn interleaved_layouts_are_refused_before_ndarray_sees_them() {
        // Offsets 0, 2, 4 / 3, 5, 7: each element once, but the dims interleave.
        let mut t = Tensor::<u8>::zeros(&[8]).unwrap();
        let mut v = t
            .view_mut()
            .unwrap()
            .as_strided(&[2, 3], &[3, 2], 0)
            .unwrap();
        let e = v.to_ndarray_view_mut().unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        assert!(ndarray_accepts_mut(&[2, 3], &[-3, 1]));
        assert!(ndarray_accepts_mut(&[1, 5], &[0, 1]));
        assert!(!ndarray_accepts_mut(&[2, 2], &[1, 1]));
        assert!(ndarray_accepts_mut(&[2, 2], &[3, 2]));
    }

    #[test]
    fn negative_and_zero_strides_translate() {
        let t = Tensor::arange(0i64, 24, 1)
            .unwrap()
            .view(&[2, 3, 4])
            .unwrap();
        let v = t
            .flip(2)
            .unwrap()
            .permute(&[2, 0, 1])
            .unwrap()
            .narrow(2, 1, 2)
            .unwrap();
        let a = v.to_ndarray_view().unwrap();
        assert_eq!(a.shape(), v.shape());
        assert_eq!(a.strides(), v.strides());
        assert_eq!(a.as_ptr(), v.data_ptr());
        assert_eq!(a.iter().copied().collect::<Vec<_>>(), v.to_vec());

        let e = Tensor::from_vec(vec![1u8, 2], &[2, 1])
            .unwrap()
            .expand(&[2, 3])
            .unwrap();
        let a = e.to_ndarray_view().unwrap();
        assert_eq!(a.strides(), &[1, 0]);
        assert_eq!(
            a.iter().copied().collect::<Vec<_>>(),
            vec![1, 1, 1, 2, 2, 2]
        );
    }

    #[test]
    fn empty_views_have_the_shape_and_no_elements() {
        let t = Tensor::<f32>::zeros(&[3, 0, 2]).unwrap();
        let a = t.to_ndarray_view().unwrap();
        assert_eq!((a.shape(), a.len()), (&[3, 0, 2][..], 0));
    }

    #[test]
    fn arrays_with_negative_strides_come_in_by_value() {
        let mut a = Array::from_shape_vec((2, 3), (0..6).collect::<Vec<i32>>()).unwrap();
        a.invert_axis(Axis(1));
        let copied = Tensor::from_ndarray(&a).unwrap();
        let moved = Tensor::from_ndarray_owned(a.clone()).unwrap();
        assert_eq!(moved.strides(), &[3, -1]);
        assert_eq!(copied.to_vec(), vec![2, 1, 0, 5, 4, 3]);
        assert_eq!(moved.to_vec(), copied.to_vec());
    }
}
