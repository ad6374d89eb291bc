//! Reading elements: `get`, row-major iteration, `to_vec`.

use std::iter::FusedIterator;

use super::Tensor;
use crate::audit::{self, CopyReason};
use crate::element::Element;
use crate::error::OrPanic;
use crate::error::Result;
use crate::kernels::copy;

impl<T: Element> Tensor<T> {
    /// The element at multi-index `index`.
    ///
    /// # Errors
    /// [`Error::IndexRank`](crate::Error::IndexRank) or
    /// [`Error::IndexOutOfRange`](crate::Error::IndexOutOfRange).
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.t()?.get(&[2, 1])?, 5);
    /// assert!(a.get(&[2, 0]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn get(&self, index: &[usize]) -> Result<T> {
        let off = self.layout.offset_of_for("get", index)?;
        // In bounds by the tensor invariant; a plain indexed read.
        Ok(self.storage.as_slice()[off])
    }

    /// The elements in logical row-major order (last index fastest), whatever the strides.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// let v: Vec<i32> = a.t()?.iter().collect();
    /// assert_eq!(v, vec![0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn iter(&self) -> Iter<'_, T> {
        Iter {
            data: self.storage.as_slice(),
            shape: self.shape(),
            strides: self.strides(),
            index: vec![0; self.ndim()],
            offset: self.offset() as isize,
            remaining: self.numel(),
        }
    }

    /// The elements in row-major order, copied into a `Vec` by the copy kernel.
    ///
    /// # Panics
    /// If the `Vec` cannot be allocated: its size overflows (a huge expanded view) or the
    /// allocator has no memory for it. [`Tensor::try_to_vec`] returns an `Err` instead.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..4).collect::<Vec<u8>>(), &[2, 2])?;
    /// assert_eq!(a.flip(0)?.to_vec(), vec![2, 3, 0, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn to_vec(&self) -> Vec<T> {
        self.try_to_vec().or_panic("to_vec")
    }

    /// [`Tensor::to_vec`] returning an `Err` where `to_vec` panics. The `Vec` is allocated with
    /// `try_reserve_exact`, so an allocation the allocator refuses is an `Err`, not an abort.
    /// The copy is reported to the [audit](crate::audit) once made.
    ///
    /// # Errors
    /// [`Error::Overflow`](crate::Error::Overflow) naming `to_vec` and the shape if the elements
    /// would take more than `isize::MAX` bytes, [`Error::Alloc`](crate::Error::Alloc) if the
    /// allocation fails.
    ///
    /// ```
    /// use stridex::{Error, Tensor};
    /// let a = Tensor::from_vec((0..4).collect::<Vec<u8>>(), &[2, 2])?;
    /// assert_eq!(a.t()?.try_to_vec()?, vec![0, 2, 1, 3]);
    /// let huge = Tensor::<f32>::zeros(&[1, 1])?.expand(&[1usize << 31, 1usize << 31])?;
    /// assert!(matches!(huge.try_to_vec(), Err(Error::Overflow { op: "to_vec", .. })));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn try_to_vec(&self) -> Result<Vec<T>> {
        let out = copy::try_to_vec("to_vec", &self.storage, &self.layout)?;
        if let Ok(dst) = crate::layout::Layout::contiguous(self.shape()) {
            audit::note_explicit_copy(CopyReason::ToVec, T::DTYPE, &self.layout, &dst);
        }
        Ok(out)
    }
}

/// Row-major iterator over a tensor's elements; see [`Tensor::iter`].
#[derive(Debug, Clone)]
pub struct Iter<'a, T> {
    data: &'a [T],
    shape: &'a [usize],
    strides: &'a [isize],
    index: Vec<usize>,
    offset: isize,
    remaining: usize,
}

impl<T: Copy> Iterator for Iter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.remaining == 0 {
            return None;
        }
        // An addressed offset: in bounds by the tensor invariant (and checked by indexing).
        let value = self.data[self.offset as usize];
        self.remaining -= 1;
        if self.remaining > 0 {
            // Advance the odometer; a dim's stride is added only when its index really moves,
            // so size-1 dims (whose strides may be anything) never touch the offset.
            for d in (0..self.shape.len()).rev() {
                if self.index[d] + 1 < self.shape[d] {
                    self.index[d] += 1;
                    self.offset += self.strides[d];
                    break;
                }
                // Back to index 0: (size - 1) * stride is an addressed span, so it fits.
                self.offset -= self.index[d] as isize * self.strides[d];
                self.index[d] = 0;
            }
        }
        Some(value)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T: Copy> ExactSizeIterator for Iter<'_, T> {}
impl<T: Copy> FusedIterator for Iter<'_, T> {}

impl<'a, T: Element> IntoIterator for &'a Tensor<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}
