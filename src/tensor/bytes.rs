//! A tensor's elements as a slice or as bytes, and reinterpreting them as another element
//! type (PyTorch's `view(dtype)`). None of these copies: each either borrows the storage or
//! says `None` / `Err`.

use std::sync::Arc;

use super::Tensor;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;

/// A storage's bytes, as the owner of a reinterpreted storage (see [`Tensor::view_dtype`]).
struct StorageBytes<T: Element>(Arc<Storage<T>>);

impl<T: Element> AsRef<[u8]> for StorageBytes<T> {
    fn as_ref(&self) -> &[u8] {
        bytemuck::cast_slice(self.0.as_slice())
    }
}

impl<T: Element> Tensor<T> {
    /// The elements as one slice in row-major order, if the tensor is contiguous; `None`
    /// otherwise (never a silent copy: call [`Tensor::contiguous`] first to get one).
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.narrow(0, 1, 1)?.as_slice(), Some(&[3, 4, 5][..]));
    /// assert_eq!(a.t()?.as_slice(), None);
    /// assert_eq!(a.t()?.contiguous().as_slice(), Some(&[0, 3, 1, 4, 2, 5][..]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn as_slice(&self) -> Option<&[T]> {
        if !self.is_contiguous() {
            return None;
        }
        if self.numel() == 0 {
            // An empty view's offset may lie past the storage's end.
            return Some(&[]);
        }
        let start = self.offset();
        // In bounds by the tensor invariant: a contiguous layout addresses exactly
        // `offset .. offset + numel`.
        Some(&self.storage.as_slice()[start..start + self.numel()])
    }

    /// The elements' bytes in row-major order and the machine's byte order, if the tensor is
    /// contiguous ([`Tensor::as_slice`] as bytes); `None` otherwise.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1u16, 2], &[2])?;
    /// let b = a.as_bytes().unwrap();
    /// assert_eq!(b.len(), 4);
    /// assert_eq!(u16::from_ne_bytes([b[2], b[3]]), 2);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn as_bytes(&self) -> Option<&[u8]> {
        self.as_slice().map(bytemuck::cast_slice)
    }

    /// The same bytes read as elements of type `U` (PyTorch's `view(dtype)`): no copy. The
    /// last dim's length is scaled by `size_of::<T>() / size_of::<U>()` (or the inverse);
    /// other dims are kept. The result reads this tensor's storage in place and keeps it
    /// alive; it never writes it (a write to the result copies first, as for any shared
    /// storage).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if the tensor is not contiguous (call `contiguous()`
    /// first), if it is 0-dim and the sizes differ, if the last dim's bytes are not a whole
    /// number of `U`s, or if the first element is not aligned for `U`.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.0f32, -2.0], &[2])?;
    /// let bits = a.view_dtype::<u32>()?;
    /// assert_eq!(bits.to_vec(), vec![0x3f80_0000, 0xc000_0000]);
    /// let bytes = a.view_dtype::<u8>()?;
    /// assert_eq!(bytes.shape(), &[8]);
    /// assert!(bytes.view_dtype::<f64>().is_ok()); // 8 bytes, aligned
    /// assert!(a.view(&[2, 1])?.view_dtype::<f64>().is_err()); // 4 bytes per row
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn view_dtype<U: Element>(&self) -> Result<Tensor<U>> {
        let op = "view_dtype";
        let fail = |why: String| Error::InvalidArgument {
            op,
            message: format!(
                "viewing {} {:?} as {}: {why}",
                T::DTYPE,
                self.shape(),
                U::DTYPE
            ),
        };
        if !self.is_contiguous() {
            return Err(fail(format!(
                "the tensor is not contiguous (strides {:?}); call contiguous() first",
                self.strides()
            )));
        }
        let (from, to) = (std::mem::size_of::<T>(), std::mem::size_of::<U>());
        let mut shape = self.shape().to_vec();
        if let Some(last) = shape.last_mut() {
            let bytes = *last * from;
            if bytes % to != 0 {
                return Err(fail(format!(
                    "the last dim holds {bytes} bytes, not a multiple of {to}; narrow or pad \
                     it to a multiple"
                )));
            }
            *last = bytes / to;
        } else if from != to {
            return Err(fail(format!(
                "a 0-dim tensor has one {from}-byte element, which cannot become {to}-byte \
                 ones; unsqueeze it first"
            )));
        }
        if self.numel() == 0 {
            // No bytes to read (and an empty view's offset may lie past the storage's end).
            return Tensor::from_vec(Vec::new(), &shape);
        }
        let len = self.numel() * from / to;
        let owner = Arc::new(StorageBytes(self.storage.clone()));
        let storage =
            Storage::<U>::from_byte_owner(owner, self.offset() * from, len).map_err(|_| {
                fail(format!(
                    "the first element is not aligned to {to} bytes; copy it (to_aligned()) first"
                ))
            })?;
        Tensor::from_storage(storage, Layout::contiguous(&shape)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_dtype_round_trips_and_reads_in_place() {
        let a = Tensor::from_vec((0..12).map(|i| i as f64 * 0.5).collect(), &[3, 4]).unwrap();
        let row = a.narrow(0, 1, 2).unwrap(); // offset 4
        let words = row.view_dtype::<u16>().unwrap();
        assert_eq!(words.shape(), &[2, 16]);
        assert_eq!(words.data_ptr().cast::<u8>(), row.data_ptr().cast::<u8>());
        let back = words.view_dtype::<f64>().unwrap();
        assert_eq!(back, row);
        // Equal sizes keep the shape, including 0-dim.
        let s = Tensor::full(&[], -1i32).unwrap();
        assert_eq!(s.view_dtype::<u32>().unwrap().to_vec(), vec![u32::MAX]);
        assert!(s.view_dtype::<u8>().is_err());
        // Empty tensors are fine.
        let e = Tensor::<f32>::zeros(&[2, 0]).unwrap();
        assert_eq!(e.view_dtype::<u8>().unwrap().shape(), &[2, 0]);
        // An empty view may start past the end of its storage.
        let past = Tensor::<u8>::zeros(&[0, 4])
            .unwrap()
            .narrow(1, 3, 1)
            .unwrap();
        assert_eq!(past.as_slice(), Some(&[][..]));
        assert_eq!(past.view_dtype::<u8>().unwrap().numel(), 0);
    }

    #[test]
    fn view_dtype_refuses_strided_and_misaligned_inputs() {
        let a = Tensor::from_vec((0..8).collect::<Vec<u8>>(), &[2, 4]).unwrap();
        let e = a.t().unwrap().view_dtype::<u8>().unwrap_err();
        assert!(e.to_string().contains("contiguous()"), "{e}");
        let e = a.narrow(1, 1, 2).unwrap().view_dtype::<u16>().unwrap_err();
        assert!(e.to_string().contains("contiguous"), "{e}");
        // One byte in: aligned to 1, not to 4.
        let bytes = a.view(&[8]).unwrap().narrow(0, 1, 4).unwrap();
        let e = bytes.view_dtype::<u32>().unwrap_err();
        assert!(e.to_string().contains("aligned"), "{e}");
    }

    #[test]
    fn writes_to_a_reinterpreted_view_never_reach_the_original() {
        let a = Tensor::from_vec(vec![1u32, 2], &[2]).unwrap();
        let mut b = a.view_dtype::<u8>().unwrap();
        b.fill(0).unwrap();
        assert_eq!(a.to_vec(), vec![1, 2]);
        assert_eq!(b.to_vec(), vec![0; 8]);
    }
}
