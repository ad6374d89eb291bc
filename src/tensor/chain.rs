//! [`TensorResult`]: the tensor methods on `Result<Tensor<T>>`, so a chain of fallible steps
//! needs one `?` at its end instead of one per step.
//!
//! # Note [chains and panics]
//!
//! Every step that can be wrong (a dim, a shape, an index) returns `Result`, and that stays
//! the default. For chains whose shapes are known, PyTorch users write `a.t().matmul(&b)`;
//! stridex could have added a panicking twin of every method (`t_unchecked`, ...) or panicking
//! operators, but a panic in a library call is a crash in someone's server, and a second name
//! for every method doubles the API to learn. Instead the methods continue on the `Result` of
//! the step before: `a.t().matmul(&b)?` short-circuits at the first `Err` and reports it,
//! exactly as `a.t()?.matmul(&b)?` would, with no panic and no new names. The operators with a
//! scalar and the all-element reductions (`sum()`, `mean()`) are the only shorthands that
//! return a value directly, since nothing in them depends on a shape.

use super::Tensor;
use crate::element::Element;
use crate::error::Result;
use crate::layout::{Dim, ExpandShape, IndexArg, ShapeArg, SliceRange};
use crate::matmul::MatmulElement;
use crate::scalar::{Numeric, ToFloat};

/// Declares the trait's methods and implements each for `Result<Tensor<T>>` as the method of
/// the same name (or the named one after `=>`) applied to the `Ok` value.
macro_rules! chain {
    ($(
        $(#[$doc:meta])*
        fn $name:ident(self $(, $arg:ident: $ty:ty)*) -> $out:ty $(=> $call:ident)? $(where T: $bound:path)?;
    )*) => {
        /// The tensor methods on the `Result` of a previous step: `a.t().matmul(&b)?` instead
        /// of `a.t()?.matmul(&b)?`. Each applies the [`Tensor`] method of the same name to the
        /// `Ok` value and passes an `Err` through unchanged, so the first failing step is the
        /// error the chain returns. See Note [chains and panics] in `src/tensor/chain.rs` for
        /// why stridex offers this instead of panicking twins. In [`prelude`](crate::prelude).
        ///
        /// ```
        /// use stridex::prelude::*;
        /// let a = Tensor::from_vec((0..6).map(|v| v as f32).collect(), &[2, 3])?;
        /// let y = a.t().matmul(&a).sum_dim(-1, false)?;
        /// assert_eq!(y.to_vec(), vec![36.0, 51.0, 66.0]); // rows of aᵀa: [9, 12, 15], [12, 17, 22], [15, 22, 29]
        /// // The first failing step is the chain's error.
        /// let err = a.transpose(0, 5).matmul(&a).unwrap_err();
        /// assert!(matches!(err, Error::DimOutOfRange { op: "transpose", .. }));
        /// # Ok::<(), stridex::Error>(())
        /// ```
        pub trait TensorResult<T: Element>: Sized {
            $(
                $(#[$doc])*
                ///
                /// # Errors
                /// The `Err` of an earlier step, or this step's (as the [`Tensor`] method).
                fn $name(self $(, $arg: $ty)*) -> Result<$out> $(where T: $bound)?;
            )*
        }

        impl<T: Element> TensorResult<T> for Result<Tensor<T>> {
            $(
                #[inline]
                fn $name(self $(, $arg: $ty)*) -> Result<$out> $(where T: $bound)? {
                    self.and_then(|t| chain!(@call t, $name $(, $call)?; $($arg),*))
                }
            )*
        }
    };
    (@call $t:ident, $name:ident; $($arg:ident),*) => { $t.$name($($arg),*) };
    (@call $t:ident, $name:ident, $call:ident; $($arg:ident),*) => { $t.$call($($arg),*) };
}

chain! {
    /// [`Tensor::t`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.narrow(0, 0, 1).t()?.shape(), &[3, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn t(self) -> Tensor<T>;

    /// [`Tensor::transpose`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::<f32>::zeros(&[2, 3, 4])?;
    /// assert_eq!(a.narrow(0, 0, 1).transpose(-2, -1)?.shape(), &[1, 4, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn transpose(self, d0: impl Dim, d1: impl Dim) -> Tensor<T>;

    /// [`Tensor::permute`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::<f32>::zeros(&[2, 3, 4])?;
    /// assert_eq!(a.narrow(0, 0, 2).permute(&[-1, 0, 1])?.shape(), &[4, 2, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn permute(self, dims: &[impl Dim]) -> Tensor<T>;

    /// [`Tensor::view`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::<f32>::zeros(&[2, 6])?;
    /// assert_eq!(a.narrow(1, 0, 6).view(&[-1, 3])?.shape(), &[4, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn view(self, shape: &(impl ShapeArg + ?Sized)) -> Tensor<T>;

    /// [`Tensor::reshape`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::<f32>::zeros(&[2, 6])?;
    /// assert_eq!(a.t().reshape(&[3, -1])?.shape(), &[3, 4]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn reshape(self, shape: &(impl ShapeArg + ?Sized)) -> Tensor<T>;

    /// [`Tensor::flatten`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::<f32>::zeros(&[2, 3, 4])?;
    /// assert_eq!(a.transpose(-2, -1).flatten(0, -1)?.shape(), &[24]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn flatten(self, start: impl Dim, end: impl Dim) -> Tensor<T>;

    /// [`Tensor::narrow`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.t().narrow(0, 1, 1)?.to_vec(), vec![1, 4]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn narrow(self, dim: impl Dim, start: impl Dim, len: usize) -> Tensor<T>;

    /// [`Tensor::slice`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.t().slice(0, 1..)?.to_vec(), vec![1, 4, 2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn slice(self, dim: impl Dim, range: impl SliceRange) -> Tensor<T>;

    /// [`Tensor::slice_step`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.t().slice_step(0, .., -2)?.to_vec(), vec![2, 5, 0, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn slice_step(self, dim: impl Dim, range: impl SliceRange, step: isize) -> Tensor<T>;

    /// [`Tensor::i`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.t().i(s![1.., 0])?.to_vec(), vec![1, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn i(self, index: impl IndexArg) -> Tensor<T>;

    /// [`Tensor::select`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.t().select(0, 2)?.to_vec(), vec![2, 5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn select(self, dim: impl Dim, index: usize) -> Tensor<T>;

    /// [`Tensor::squeeze`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.narrow(0, 0, 1).squeeze(0)?.shape(), &[3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn squeeze(self, dim: impl Dim) -> Tensor<T>;

    /// [`Tensor::unsqueeze`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::<f32>::zeros(&[2, 3])?;
    /// assert_eq!(a.t().unsqueeze(-1)?.shape(), &[3, 2, 1]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn unsqueeze(self, dim: impl Dim) -> Tensor<T>;

    /// [`Tensor::expand`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::<f32>::zeros(&[1, 3])?;
    /// assert_eq!(a.t().expand(&[3, 4])?.shape(), &[3, 4]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn expand(self, shape: &(impl ExpandShape + ?Sized)) -> Tensor<T>;

    /// [`Tensor::try_contiguous`] on the `Ok` value (allocation failure is an `Err` here).
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.t().contiguous()?.as_slice(), Some(&[0, 3, 1, 4, 2, 5][..]));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn contiguous(self) -> Tensor<T> => try_contiguous;

    /// [`Tensor::matmul`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
    /// assert_eq!(a.t().matmul(&a)?.to_vec(), vec![10.0, 14.0, 14.0, 20.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn matmul(self, other: &Tensor<T>) -> Tensor<T> where T: MatmulElement;

    /// [`Tensor::sum_dim`] on the `Ok` value.
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.t().sum_dim(-1, false)?.to_vec(), vec![3, 5, 7]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn sum_dim(self, dim: impl Dim, keepdim: bool) -> Tensor<T> where T: Numeric;

    /// [`Tensor::mean_dim`] on the `Ok` value (integers give `f32`).
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert_eq!(a.t().mean_dim(-1, false)?.to_vec(), vec![1.5f32, 2.5, 3.5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn mean_dim(self, dim: impl Dim, keepdim: bool) -> Tensor<T::Float> where T: ToFloat;

    /// [`Tensor::softmax`] on the `Ok` value (integers give `f32`).
    ///
    /// ```
    /// use stridex::prelude::*;
    /// let a = Tensor::from_vec(vec![1.0f32, 1.0], &[1, 2])?;
    /// assert_eq!(a.t().t().softmax(-1)?.to_vec(), vec![0.5, 0.5]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    fn softmax(self, dim: impl Dim) -> Tensor<T::Float> where T: ToFloat;
}
