//! Constructors beyond `from_vec` / `full` / `zeros`: filled from a function or an iterator
//! straight into aligned storage, `ones`, `eye`, `linspace`, and the `_like` forms.
//!
//! Every one of them writes each element once into fresh 64-byte aligned storage; none builds
//! a temporary `Vec` first.

use std::sync::Arc;

use num_traits::Float;

use super::Tensor;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::{Layout, checked_numel};
use crate::scalar::Numeric;
use crate::storage::Storage;

impl<T: Element> Tensor<T> {
    /// A row-major tensor of `shape` whose element at index `i` is `f(i)`, written straight
    /// into fresh aligned storage (ndarray's `from_shape_fn`). `f` is called once per element,
    /// in row-major order.
    ///
    /// # Errors
    /// [`Error::Overflow`] if the element count or byte size overflows; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let t = Tensor::from_fn(&[2, 3], |i| (10 * i[0] + i[1]) as u16)?;
    /// assert_eq!(t.to_vec(), vec![0, 1, 2, 10, 11, 12]);
    /// assert_eq!(t.data_ptr() as usize % 64, 0);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn from_fn(shape: &[usize], f: impl FnMut(&[usize]) -> T) -> Result<Tensor<T>> {
        Self::from_fn_for("from_fn", shape, f)
    }

    /// [`Tensor::from_fn`], naming `op` in its errors.
    fn from_fn_for(
        op: &'static str,
        shape: &[usize],
        mut f: impl FnMut(&[usize]) -> T,
    ) -> Result<Tensor<T>> {
        let layout = Self::fresh_layout(op, shape)?;
        let mut index = vec![0usize; shape.len()];
        let storage = Storage::from_fn(layout.numel(), |_| {
            let x = f(&index);
            // Advance the row-major odometer (after the last element it wraps to zeros).
            for (i, &n) in index.iter_mut().zip(shape).rev() {
                *i += 1;
                if *i < n {
                    break;
                }
                *i = 0;
            }
            x
        })?;
        Ok(Self::from_parts(Arc::new(storage), layout))
    }

    /// A row-major tensor of `shape` holding the items of `items`, which must yield exactly as
    /// many as the shape has elements; written straight into fresh aligned storage (to collect
    /// a 1-dim tensor of unknown length, use `collect::<Tensor<T>>()`).
    ///
    /// # Errors
    /// [`Error::NumelMismatch`] if `items` yields too few or too many (it is read one past the
    /// end to tell); [`Error::Overflow`]; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let t = Tensor::from_iter_with_shape(&[2, 2], (1..).map(|x| x as f32 * 0.5).take(4))?;
    /// assert_eq!(t.to_vec(), vec![0.5, 1.0, 1.5, 2.0]);
    /// assert!(Tensor::from_iter_with_shape(&[2, 2], 0..3i32).is_err());
    /// assert!(Tensor::from_iter_with_shape(&[2, 2], 0..5i32).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn from_iter_with_shape(
        shape: &[usize],
        items: impl IntoIterator<Item = T>,
    ) -> Result<Tensor<T>> {
        let op = "from_iter_with_shape";
        let layout = Self::fresh_layout(op, shape)?;
        match Storage::from_exact_iter(layout.numel(), items)? {
            Ok(storage) => Ok(Self::from_parts(Arc::new(storage), layout)),
            Err(have) => Err(Error::NumelMismatch {
                op,
                have,
                shape: shape.to_vec(),
                need: Some(layout.numel()),
            }),
        }
    }

    /// A row-major tensor of this tensor's shape filled with `value` (PyTorch's `full_like`;
    /// always row-major, whatever this tensor's strides).
    ///
    /// # Errors
    /// [`Error::Alloc`] if the memory cannot be allocated.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::<f64>::zeros(&[2, 3])?.t()?;
    /// let b = a.full_like(1.5)?;
    /// assert_eq!(b.shape(), &[3, 2]);
    /// assert!(b.is_contiguous() && b.to_vec() == vec![1.5; 6]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn full_like(&self, value: T) -> Result<Tensor<T>> {
        Tensor::full(self.shape(), value)
    }

    /// A row-major tensor of zeros with this tensor's shape (PyTorch's `zeros_like`).
    ///
    /// # Errors
    /// [`Error::Alloc`] if the memory cannot be allocated.
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1u8, 2, 3], &[3])?;
    /// assert_eq!(a.zeros_like()?.to_vec(), vec![0, 0, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn zeros_like(&self) -> Result<Tensor<T>> {
        Tensor::zeros(self.shape())
    }

    /// The row-major layout of a fresh tensor of `shape`, with its byte size checked.
    fn fresh_layout(op: &'static str, shape: &[usize]) -> Result<Layout> {
        let overflow = || Error::Overflow {
            op,
            shape: shape.to_vec(),
            strides: vec![],
        };
        let numel = checked_numel(shape).ok_or_else(overflow)?;
        numel
            .checked_mul(std::mem::size_of::<T>())
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or_else(overflow)?;
        Layout::contiguous(shape)
    }
}

impl<T: Numeric> Tensor<T> {
    /// A row-major tensor of `shape` filled with ones.
    ///
    /// # Errors
    /// As [`Tensor::full`].
    ///
    /// ```
    /// let t = stridex::Tensor::<i32>::ones(&[2, 2])?;
    /// assert_eq!(t.to_vec(), vec![1; 4]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn ones(shape: &[usize]) -> Result<Tensor<T>> {
        Tensor::full(shape, T::one())
    }

    /// A row-major tensor of ones with this tensor's shape (PyTorch's `ones_like`).
    ///
    /// # Errors
    /// As [`Tensor::full`].
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2])?;
    /// assert_eq!(a.ones_like()?.to_vec(), vec![1.0, 1.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn ones_like(&self) -> Result<Tensor<T>> {
        Tensor::ones(self.shape())
    }

    /// The `n x n` identity matrix.
    ///
    /// # Errors
    /// [`Error::Overflow`] if `n * n` elements overflow; [`Error::Alloc`].
    ///
    /// ```
    /// let i = stridex::Tensor::<f32>::eye(3)?;
    /// assert_eq!(i.to_vec(), vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn eye(n: usize) -> Result<Tensor<T>> {
        Tensor::eye_rect(n, n)
    }

    /// The `rows x cols` matrix with ones on the main diagonal and zeros elsewhere (PyTorch's
    /// `eye(n, m)`).
    ///
    /// # Errors
    /// [`Error::Overflow`] if `rows * cols` elements overflow; [`Error::Alloc`].
    ///
    /// ```
    /// let i = stridex::Tensor::<u8>::eye_rect(2, 3)?;
    /// assert_eq!(i.to_vec(), vec![1, 0, 0, 0, 1, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn eye_rect(rows: usize, cols: usize) -> Result<Tensor<T>> {
        let f = |i: &[usize]| if i[0] == i[1] { T::one() } else { T::zero() };
        Tensor::from_fn_for("eye", &[rows, cols], f)
    }
}

impl<T: Numeric + Float> Tensor<T> {
    /// `steps` evenly spaced values from `start` to `end`, both included (PyTorch's and
    /// NumPy's `linspace`): value `i` is `start + i * (end - start) / (steps - 1)`, computed in
    /// `f64`, and the last is exactly `end`. One step gives `[start]`, none an empty tensor.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `start` or `end` is NaN or infinite;
    /// [`Error::Overflow`]; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let t = Tensor::linspace(0.0f32, 1.0, 5)?;
    /// assert_eq!(t.to_vec(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    /// assert_eq!(Tensor::linspace(2.0f64, 3.0, 1)?.to_vec(), vec![2.0]);
    /// assert!(Tensor::linspace(0.0f32, f32::INFINITY, 3).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn linspace(start: T, end: T, steps: usize) -> Result<Tensor<T>> {
        let (s, e) = match (start.to_f64(), end.to_f64()) {
            (Some(s), Some(e)) if s.is_finite() && e.is_finite() => (s, e),
            _ => {
                return Err(Error::InvalidArgument {
                    op: "linspace",
                    message: format!(
                        "start {start} and end {end} must be finite numbers; give finite bounds"
                    ),
                });
            }
        };
        let step = if steps > 1 {
            (e - s) / (steps - 1) as f64
        } else {
            0.0
        };
        let value = |i: usize| {
            let x = if steps > 1 && i + 1 == steps {
                e
            } else {
                s + i as f64 * step
            };
            T::from(x).unwrap_or(T::nan())
        };
        Tensor::from_fn_for("linspace", &[steps], |i| value(i[0]))
    }
}

impl<T: Element> Default for Tensor<T> {
    /// An empty 1-dim tensor (shape `[0]`), like `torch.tensor([])`.
    ///
    /// ```
    /// let t = stridex::Tensor::<f32>::default();
    /// assert_eq!((t.shape(), t.numel()), (&[0usize][..], 0));
    /// ```
    fn default() -> Self {
        Tensor::from_vec(Vec::new(), &[0]).expect("shape [0] holds 0 elements")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_fn_visits_every_index_once_in_row_major_order() {
        for shape in [&[][..], &[0][..], &[3][..], &[2, 0, 3][..], &[2, 3, 4][..]] {
            let mut seen = Vec::new();
            let t = Tensor::from_fn(shape, |i| {
                seen.push(i.to_vec());
                seen.len() as u32 - 1
            })
            .unwrap();
            assert_eq!(t.shape(), shape);
            let numel: usize = shape.iter().product();
            assert_eq!(seen.len(), numel);
            for (k, index) in seen.iter().enumerate() {
                assert_eq!(t.get(index).unwrap(), k as u32, "{shape:?} {index:?}");
            }
        }
    }

    #[test]
    fn sizes_that_overflow_are_errors_naming_the_op() {
        let e = Tensor::<u8>::from_fn(&[1 << 40, 1 << 40], |_| 0).unwrap_err();
        assert!(e.to_string().starts_with("from_fn"), "{e}");
        let e = Tensor::<f64>::eye(1 << 33).unwrap_err();
        assert!(e.to_string().starts_with("eye"), "{e}");
        let e = Tensor::<u8>::from_iter_with_shape(&[usize::MAX, 2], 0..3).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Overflow {
                    op: "from_iter_with_shape",
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn iterator_length_mismatches_say_how_many_came() {
        let e = Tensor::from_iter_with_shape(&[2, 3], 0..4u8).unwrap_err();
        assert!(matches!(
            e,
            Error::NumelMismatch {
                have: 4,
                need: Some(6),
                ..
            }
        ));
        let e = Tensor::from_iter_with_shape(&[2], 0..100u8).unwrap_err();
        assert!(matches!(e, Error::NumelMismatch { have: 3, .. }), "{e}");
    }

    #[test]
    fn linspace_ends_exactly_and_handles_few_steps() {
        assert_eq!(Tensor::linspace(0.0f64, 1.0, 0).unwrap().numel(), 0);
        let t = Tensor::linspace(-1.0f64, 0.1, 7).unwrap().to_vec();
        assert_eq!((t[0], t[6]), (-1.0, 0.1));
        for (i, x) in t.iter().enumerate() {
            assert!((x - (-1.0 + i as f64 * 1.1 / 6.0)).abs() < 1e-15);
        }
        let h = Tensor::linspace(half::f16::from_f32(0.0), half::f16::from_f32(2.0), 3).unwrap();
        assert_eq!(h.to_vec(), [0.0, 1.0, 2.0].map(half::f16::from_f32));
        assert!(Tensor::linspace(f32::NAN, 1.0, 2).is_err());
    }
}
