//! The std traits a Rust user expects of a container: `==`, `t[[i, j]]`, conversions from
//! `Vec`s, arrays and nested `Vec`s, `collect()`, and the [`tensor!`] literal macro
//! (`for x in &t` is in `access.rs`, beside the iterator).
//!
//! Equality and iteration are logical: they follow the shape and the index order, never the
//! strides, so a transposed copy equals the transposed view it was made from.

use std::ops::Index;

use super::Tensor;
use crate::element::Element;
use crate::error::{Error, Result};

/// Same shape and equal elements at every index, whatever the two layouts (a contiguous copy
/// equals the view it was made from). Elements compare with `==`, so a tensor holding NaN
/// is not equal to itself, as with `f32`.
///
/// ```
/// use stridex::Tensor;
/// let a = Tensor::from_vec(vec![1, 2, 3, 4], &[2, 2])?;
/// assert_eq!(a.t()?, a.t()?.contiguous());
/// assert_ne!(a, a.t()?);
/// assert_ne!(a, a.view(&[4])?); // same elements, other shape
/// # Ok::<(), stridex::Error>(())
/// ```
impl<T: Element> PartialEq for Tensor<T> {
    /// Equal shapes and equal elements in logical order (so a NaN makes two float tensors
    /// unequal, as `==` on slices does). A dim broadcast (stride 0) in both tensors repeats
    /// the same pairs, so it is compared once: two huge expanded views cost what their
    /// stored elements cost.
    fn eq(&self, other: &Tensor<T>) -> bool {
        if self.shape() != other.shape() {
            return false;
        }
        let (a, b) = (self.strides(), other.strides());
        if self.numel() > 0
            && (0..self.ndim()).any(|d| a[d] == 0 && b[d] == 0 && self.shape()[d] > 1)
        {
            let shape: Vec<usize> = (0..self.ndim())
                .map(|d| {
                    if a[d] == 0 && b[d] == 0 {
                        1
                    } else {
                        self.shape()[d]
                    }
                })
                .collect();
            // Fewer elements at the same strides and offsets: always a valid view of each.
            if let (Ok(x), Ok(y)) = (
                self.as_strided(&shape, a, self.offset()),
                other.as_strided(&shape, b, other.offset()),
            ) {
                return x.iter().zip(y.iter()).all(|(p, q)| p == q);
            }
        }
        self.iter().zip(other.iter()).all(|(p, q)| p == q)
    }
}

/// `t[[i, j]]`: the element at a multi-index given as an array, one entry per dim.
///
/// # Panics
/// If the index has the wrong length or an entry is out of range, with the message of
/// [`Tensor::get`]'s error (as slices panic on a bad index); `get` is the fallible form.
///
/// ```
/// use stridex::Tensor;
/// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
/// assert_eq!(a[[1, 2]], 5);
/// assert_eq!(a.t()?[[2, 1]], 5);
/// # Ok::<(), stridex::Error>(())
/// ```
impl<T: Element, const N: usize> Index<[usize; N]> for Tensor<T> {
    type Output = T;

    #[track_caller]
    fn index(&self, index: [usize; N]) -> &T {
        &self[&index[..]]
    }
}

/// `t[&index[..]]`: the element at a multi-index given as a slice.
///
/// # Panics
/// As for `Index<[usize; N]>`.
///
/// ```
/// use stridex::Tensor;
/// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3])?;
/// let i = vec![2];
/// assert_eq!(a[&i[..]], 3.0);
/// # Ok::<(), stridex::Error>(())
/// ```
impl<T: Element> Index<&[usize]> for Tensor<T> {
    type Output = T;

    #[track_caller]
    fn index(&self, index: &[usize]) -> &T {
        match self.layout.offset_of_for("index", index) {
            // In bounds by the tensor invariant.
            Ok(off) => &self.storage.as_slice()[off],
            Err(e) => panic!("{e}"),
        }
    }
}

/// A 1-dim tensor owning the `Vec`'s buffer (no copy; see [`Tensor::from_vec`]).
///
/// ```
/// let t = stridex::Tensor::from(vec![1i64, 2, 3]);
/// assert_eq!(t.shape(), &[3]);
/// ```
impl<T: Element> From<Vec<T>> for Tensor<T> {
    fn from(data: Vec<T>) -> Tensor<T> {
        let n = data.len();
        Tensor::from_vec(data, &[n]).expect("a Vec of n elements fits shape [n]")
    }
}

/// A 1-dim tensor of the array's elements.
///
/// ```
/// let t = stridex::Tensor::from([1.0f32, 2.0]);
/// assert_eq!((t.shape(), t.to_vec()), (&[2usize][..], vec![1.0, 2.0]));
/// ```
impl<T: Element, const N: usize> From<[T; N]> for Tensor<T> {
    fn from(data: [T; N]) -> Tensor<T> {
        Tensor::from(data.to_vec())
    }
}

/// An `N x M` tensor of the nested array's rows.
///
/// ```
/// let t = stridex::Tensor::from([[1, 2, 3], [4, 5, 6]]);
/// assert_eq!(t.shape(), &[2, 3]);
/// assert_eq!(t[[1, 0]], 4);
/// ```
impl<T: Element, const N: usize, const M: usize> From<[[T; M]; N]> for Tensor<T> {
    fn from(data: [[T; M]; N]) -> Tensor<T> {
        let flat: Vec<T> = data.iter().flatten().copied().collect();
        Tensor::from_vec(flat, &[N, M]).expect("N rows of M elements fit shape [N, M]")
    }
}

/// An `N x M x K` tensor of the nested array.
///
/// ```
/// let t = stridex::Tensor::from([[[1u8, 2], [3, 4]], [[5, 6], [7, 8]]]);
/// assert_eq!(t.shape(), &[2, 2, 2]);
/// assert_eq!(t[[1, 0, 1]], 6);
/// ```
impl<T: Element, const N: usize, const M: usize, const K: usize> From<[[[T; K]; M]; N]>
    for Tensor<T>
{
    fn from(data: [[[T; K]; M]; N]) -> Tensor<T> {
        let flat: Vec<T> = data.iter().flatten().flatten().copied().collect();
        Tensor::from_vec(flat, &[N, M, K]).expect("N x M x K elements fit shape [N, M, K]")
    }
}

/// A 2-dim tensor from rows of equal length; ragged rows are an error.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the first row whose length differs from row 0's.
///
/// ```
/// use stridex::Tensor;
/// let t = Tensor::try_from(vec![vec![1, 2], vec![3, 4], vec![5, 6]])?;
/// assert_eq!(t.shape(), &[3, 2]);
/// assert!(Tensor::try_from(vec![vec![1, 2], vec![3]]).is_err());
/// # Ok::<(), stridex::Error>(())
/// ```
impl<T: Element> TryFrom<Vec<Vec<T>>> for Tensor<T> {
    type Error = Error;

    fn try_from(rows: Vec<Vec<T>>) -> Result<Tensor<T>> {
        let cols = rows.first().map_or(0, Vec::len);
        if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != cols) {
            return Err(Error::InvalidArgument {
                op: "try_from",
                message: format!(
                    "row {i} has {} elements but row 0 has {cols}; a tensor needs rows of \
                     equal length (pad the short rows, or build each row separately)",
                    r.len()
                ),
            });
        }
        let n = rows.len();
        let flat: Vec<T> = rows.into_iter().flatten().collect();
        Tensor::from_vec(flat, &[n, cols])
    }
}

/// `iter.collect::<Tensor<T>>()`: a 1-dim tensor of the items, adopting the `Vec` they are
/// gathered in (use [`Tensor::from_iter_with_shape`] to write straight into aligned storage
/// when the count is known).
///
/// ```
/// let t: stridex::Tensor<u32> = (1..=4).map(|x| x * x).collect();
/// assert_eq!(t.to_vec(), vec![1, 4, 9, 16]);
/// ```
impl<T: Element> FromIterator<T> for Tensor<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Tensor<T> {
        Tensor::from(items.into_iter().collect::<Vec<T>>())
    }
}

/// A tensor literal, like ndarray's `array!`: `tensor![1, 2, 3]` is 1-dim,
/// `tensor![[1, 2], [3, 4]]` 2-dim, `tensor![[[1], [2]], [[3], [4]]]` 3-dim (rows must have
/// equal lengths, checked at compile time since the literal is an array).
///
/// ```
/// use stridex::{tensor, Tensor};
/// let a: Tensor<f32> = tensor![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(a.shape(), &[2, 2]);
/// assert_eq!(a.t()?, tensor![[1.0, 3.0], [2.0, 4.0]]);
/// assert_eq!(tensor![7u8, 8, 9].to_vec(), vec![7, 8, 9]);
/// # Ok::<(), stridex::Error>(())
/// ```
#[macro_export]
macro_rules! tensor {
    ($($x:expr),+ $(,)?) => {
        $crate::Tensor::from([$($x),+])
    };
}

#[cfg(test)]
mod tests {
    use crate::Tensor;

    #[test]
    fn equality_is_logical_and_nan_is_never_equal() {
        let a = Tensor::from_vec((0..6).collect::<Vec<i16>>(), &[2, 3]).unwrap();
        let flipped = a.flip(1).unwrap();
        assert_eq!(flipped, flipped.contiguous());
        assert_ne!(flipped, a);
        let e = Tensor::<f32>::zeros(&[0, 3]).unwrap();
        assert_eq!(e, Tensor::<f32>::zeros(&[0, 3]).unwrap());
        assert_ne!(e, Tensor::<f32>::zeros(&[3, 0]).unwrap());
        let nan = Tensor::from_vec(vec![1.0f32, f32::NAN], &[2]).unwrap();
        assert_ne!(nan, nan.clone());
        // Expanded views compare by index.
        let row = Tensor::from_vec(vec![1u8, 2], &[2]).unwrap();
        assert_eq!(
            row.expand(&[2, 2]).unwrap(),
            crate::tensor![[1u8, 2], [1, 2]]
        );
    }

    #[test]
    #[should_panic(expected = "index")]
    fn indexing_out_of_range_panics_with_the_error_message() {
        let a = Tensor::<u8>::zeros(&[2, 2]).unwrap();
        let _ = a[[2, 0]];
    }

    #[test]
    #[should_panic(expected = "index")]
    fn indexing_with_the_wrong_rank_panics_with_the_error_message() {
        let a = Tensor::<u8>::zeros(&[2, 2]).unwrap();
        let _ = a[[0]];
    }

    #[test]
    fn conversions_keep_shape_and_order() {
        let t = Tensor::try_from(Vec::<Vec<f64>>::new()).unwrap();
        assert_eq!(t.shape(), &[0, 0]);
        let e = Tensor::try_from(vec![vec![1u8], vec![], vec![2]]).unwrap_err();
        assert!(e.to_string().contains("row 1 has 0 elements"), "{e}");
        let c: Tensor<i8> = std::iter::empty().collect();
        assert_eq!(c.shape(), &[0]);
        assert_eq!(Tensor::from([[[1, 2, 3]], [[4, 5, 6]]]).shape(), &[2, 1, 3]);
    }
}
