//! Elementwise math on floats and integers, and elementwise tests.
//!
//! Every op here is one call of the iteration engine ([`Tensor::map`] or [`Tensor::zip_map`]):
//! operands are read through their strides (transposed, narrowed, flipped, expanded), never
//! copied, binary ops broadcast by NumPy's rules, and the result gets the engine's output
//! layout. Only the element function differs, and this file is mostly those functions. The
//! activations and the error function (`sigmoid`, `gelu`, `silu`, `erf`, ...) are in
//! `activations.rs`.
//!
//! # Floats, and integer inputs to them
//!
//! The float ops evaluate through [`num_traits::Float`], so `f16` and `bf16` are computed in
//! `f32` and rounded once, by the `half` crate. They take every element type ([`ToFloat`]):
//! an integer input is converted to `f32` element by element inside the same pass (PyTorch's
//! rule, `torch.tanh(int_tensor)` is `float32`), so `Tensor<i32>::tanh` is a `Tensor<f32>`; a
//! float input is read as it is, by the same kernel as before, and gives its own type.
//! [`Tensor::pow`] (a tensor of exponents) stays float-only.
//!
//! # Rounding
//!
//! [`Tensor::round`] rounds halfway cases **away from zero** (`2.5 -> 3`, `-2.5 -> -3`), as
//! Rust's `f32::round` and C's `round` do. PyTorch's `torch.round` rounds them to even
//! (`2.5 -> 2`); the two differ only on exact halves. `floor`, `ceil` and `round` of an
//! integer tensor return it unchanged, in its own type, as PyTorch's do (no conversion to a
//! float: the values are whole already).
//!
//! # Integers
//!
//! [`Tensor::clamp`], [`Tensor::relu`], [`Tensor::rem`], the rounding ops and the tests
//! `isnan`/`isinf`/`isfinite` take every [`Numeric`] type. Integer arithmetic wraps as
//! described in [`crate::scalar`].

use std::sync::atomic::{AtomicBool, Ordering};

use num_traits::{Float, ToPrimitive};

use super::Tensor;
use crate::error::{Error, Result};
use crate::scalar::{FloatElement, Numeric, ToFloat};

impl<T: FloatElement> Tensor<T> {
    /// `self ^ exponent` elementwise ([`Float::powf`]), broadcasting; `exponent` is a tensor
    /// (borrowed or owned) or one scalar of the tensor's type (`x.pow(2.0)`, PyTorch's
    /// `x.pow(2)`; [`TensorOrScalar`](crate::TensorOrScalar)).
    ///
    /// Float types only: PyTorch's integer `pow` stays integer, which this crate does not
    /// offer; for an integer base with a float exponent, use [`Tensor::powf`] or convert first
    /// ([`Tensor::to_float`]).
    ///
    /// # Errors
    /// [`Error::BroadcastMismatch`] if the shapes do not broadcast; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![2.0f32, 3.0, 4.0], &[3, 1])?;
    /// let e = Tensor::from_vec(vec![0.5f32, 2.0], &[2])?;
    /// let p = a.pow(&e)?;
    /// assert_eq!(p.shape(), &[3, 2]);
    /// assert_eq!(p.get(&[2, 0])?, 2.0);
    /// assert_eq!(p.get(&[1, 1])?, 9.0);
    /// assert!(a.pow(&Tensor::zeros(&[2, 2])?).is_err()); // [3, 1] and [2, 2] do not broadcast
    /// assert_eq!(a.pow(2.0)?.to_vec(), vec![4.0, 9.0, 16.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn pow(&self, exponent: impl super::operand::TensorOrScalar<T>) -> Result<Tensor<T>> {
        if let Some(e) = exponent.scalar() {
            return self
                .try_map(move |x| x.powf(e))
                .map_err(|err| err.named("pow"));
        }
        let exponent = exponent.tensor()?;
        self.zip_named("pow", &exponent, T::powf)
    }
}

impl<T: ToFloat> Tensor<T> {
    /// `self ^ exponent` for every element, with one scalar exponent. Integer inputs give
    /// `Tensor<f32>` (converted as [`ToFloat`] says), with an `f32` exponent.
    ///
    /// # Panics
    /// Only if the result cannot be allocated, as [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![4.0f64, 9.0], &[2])?;
    /// assert_eq!(a.powf(0.5).to_vec(), vec![2.0, 3.0]);
    /// let i = stridex::Tensor::from_vec(vec![4i32, 9], &[2])?;
    /// assert_eq!(i.powf(0.5).to_vec(), vec![2.0f32, 3.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn powf(&self, exponent: T::Float) -> Tensor<T::Float> {
        self.map_as("powf", move |x| x.to_float().powf(exponent))
    }

    /// Hyperbolic tangent of every element.
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f32, 100.0, -100.0], &[3])?;
    /// assert_eq!(a.tanh().to_vec(), vec![0.0, 1.0, -1.0]);
    /// let i = stridex::Tensor::from_vec(vec![0i32], &[1])?;
    /// assert_eq!(i.tanh().to_vec(), vec![0.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn tanh(&self) -> Tensor<T::Float> {
        self.map_as("tanh", |x| x.to_float().tanh())
    }

    /// Sine of every element (radians).
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, std::f64::consts::FRAC_PI_2], &[2])?;
    /// assert_eq!(a.sin().to_vec(), vec![0.0, 1.0]);
    /// let i = stridex::Tensor::from_vec(vec![0i32], &[1])?;
    /// assert_eq!(i.sin().to_vec(), vec![0.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn sin(&self) -> Tensor<T::Float> {
        self.map_as("sin", |x| x.to_float().sin())
    }

    /// Cosine of every element (radians).
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, std::f64::consts::PI], &[2])?;
    /// assert_eq!(a.cos().to_vec(), vec![1.0, -1.0]);
    /// let i = stridex::Tensor::from_vec(vec![0i32], &[1])?;
    /// assert_eq!(i.cos().to_vec(), vec![1.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn cos(&self) -> Tensor<T::Float> {
        self.map_as("cos", |x| x.to_float().cos())
    }

    /// `1 / x` for every element (`inf` at 0).
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![2.0f32, 0.0], &[2])?;
    /// assert_eq!(a.recip().to_vec(), vec![0.5, f32::INFINITY]);
    /// let i = stridex::Tensor::from_vec(vec![2i32, 0], &[2])?;
    /// assert_eq!(i.recip().to_vec(), vec![0.5f32, f32::INFINITY]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn recip(&self) -> Tensor<T::Float> {
        self.map_as("recip", |x| x.to_float().recip())
    }

    /// `1 / √x` for every element (`inf` at 0, NaN for negative elements).
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![4.0f32, 0.0], &[2])?;
    /// assert_eq!(a.rsqrt().to_vec(), vec![0.5, f32::INFINITY]);
    /// let i = stridex::Tensor::from_vec(vec![4u8], &[1])?;
    /// assert_eq!(i.rsqrt().to_vec(), vec![0.5f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn rsqrt(&self) -> Tensor<T::Float> {
        self.map_as("rsqrt", |x| x.to_float().sqrt().recip())
    }

    /// `ln(1 + x)` for every element, accurate for small `x`.
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, 1e-20, -1.0], &[3])?;
    /// assert_eq!(a.log1p().to_vec(), vec![0.0, 1e-20, f64::NEG_INFINITY]);
    /// let i = stridex::Tensor::from_vec(vec![0i32], &[1])?;
    /// assert_eq!(i.log1p().to_vec(), vec![0.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn log1p(&self) -> Tensor<T::Float> {
        self.map_as("log1p", |x| x.to_float().ln_1p())
    }

    /// `e^x - 1` for every element, accurate for small `x`.
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, 1e-20], &[2])?;
    /// assert_eq!(a.expm1().to_vec(), vec![0.0, 1e-20]);
    /// let i = stridex::Tensor::from_vec(vec![0i32], &[1])?;
    /// assert_eq!(i.expm1().to_vec(), vec![0.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn expm1(&self) -> Tensor<T::Float> {
        self.map_as("expm1", |x| x.to_float().exp_m1())
    }
}

/// Whether `T` is an integer type: integers have no quotient for `1 / 0`.
fn is_integer<T: Numeric>() -> bool {
    T::one().elem_div(T::zero()).is_none()
}

impl<T: Numeric> Tensor<T> {
    /// The largest integer not above each element.
    /// Integers are unchanged (they are
    /// whole already; PyTorch's rule), with their own type.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.5f32, -1.5, 2.0], &[3])?;
    /// assert_eq!(a.floor().to_vec(), vec![1.0, -2.0, 2.0]);
    /// let i = stridex::Tensor::from_vec(vec![-3i32, 7], &[2])?;
    /// assert_eq!(i.floor().to_vec(), vec![-3, 7]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn floor(&self) -> Tensor<T> {
        self.map_as("floor", T::elem_floor)
    }

    /// The smallest integer not below each element.
    /// Integers are unchanged (they are
    /// whole already; PyTorch's rule), with their own type.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.5f32, -1.5, 2.0], &[3])?;
    /// assert_eq!(a.ceil().to_vec(), vec![2.0, -1.0, 2.0]);
    /// let i = stridex::Tensor::from_vec(vec![-3i32, 7], &[2])?;
    /// assert_eq!(i.ceil().to_vec(), vec![-3, 7]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn ceil(&self) -> Tensor<T> {
        self.map_as("ceil", T::elem_ceil)
    }

    /// Each element rounded to the nearest integer, halfway cases **away from zero**
    /// (`2.5 -> 3`, `-0.5 -> -1`), like Rust's `f32::round`. PyTorch's `torch.round` rounds
    /// halves to even instead; the results differ only on exact halves.
    /// Integers are unchanged (they are
    /// whole already; PyTorch's rule), with their own type.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![2.5f32, -2.5, 0.5, 1.4, -1.6], &[5])?;
    /// assert_eq!(a.round().to_vec(), vec![3.0, -3.0, 1.0, 1.0, -2.0]);
    /// let i = stridex::Tensor::from_vec(vec![-3i32, 7], &[2])?;
    /// assert_eq!(i.round().to_vec(), vec![-3, 7]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn round(&self) -> Tensor<T> {
        self.map_as("round", T::elem_round)
    }

    /// `max(x, 0)` for every element; NaN stays NaN (as in PyTorch). For unsigned integers
    /// this is the identity.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![-1.5f32, 0.0, 2.0, f32::NAN], &[4])?;
    /// let r = a.relu().to_vec();
    /// assert_eq!(&r[..3], &[0.0, 0.0, 2.0]);
    /// assert!(r[3].is_nan());
    /// assert_eq!(Tensor::from_vec(vec![-3i8, 3], &[2])?.relu().to_vec(), vec![0, 3]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn relu(&self) -> Tensor<T> {
        self.map_as("relu", |x| {
            if x > T::zero() || x.elem_is_nan() {
                x
            } else {
                T::zero()
            }
        })
    }

    /// Every element limited to `min..=max`: `min(max(x, min), max)`, as PyTorch's `clamp`.
    ///
    /// NaN propagates (a NaN element, or a NaN bound, gives NaN); if `min > max`, every
    /// element becomes `max` (PyTorch's rule).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![-5i32, 0, 5, 10], &[4])?;
    /// assert_eq!(a.clamp(0, 6).to_vec(), vec![0, 0, 5, 6]);
    /// assert_eq!(a.clamp(3, 1).to_vec(), vec![1, 1, 1, 1]); // min > max: max everywhere
    /// let f = Tensor::from_vec(vec![f32::NAN, 2.0], &[2])?.clamp(0.0, 1.0).to_vec();
    /// assert!(f[0].is_nan() && f[1] == 1.0);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn clamp(&self, min: T, max: T) -> Tensor<T> {
        self.map_as("clamp", move |x| x.elem_max(min).elem_min(max))
    }

    /// 1 where the element is NaN, 0 elsewhere (always 0 for integers).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.0f32, f32::NAN, f32::INFINITY], &[3])?;
    /// assert_eq!(a.isnan().to_vec(), vec![0, 1, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn isnan(&self) -> Tensor<u8> {
        self.map_as("isnan", |x| u8::from(x.elem_is_nan()))
    }

    /// 1 where the element is `+inf` or `-inf`, 0 elsewhere (always 0 for integers).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.0f32, f32::NAN, f32::NEG_INFINITY], &[3])?;
    /// assert_eq!(a.isinf().to_vec(), vec![0, 0, 1]);
    /// assert_eq!(stridex::Tensor::from_vec(vec![i32::MAX], &[1])?.isinf().to_vec(), vec![0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn isinf(&self) -> Tensor<u8> {
        let float = !is_integer::<T>();
        // For floats, HIGHEST and LOWEST are the infinities.
        self.map_as("isinf", move |x| {
            u8::from(float && (x == T::HIGHEST || x == T::LOWEST))
        })
    }

    /// 1 where the element is neither NaN nor infinite, 0 elsewhere (always 1 for integers).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.0f32, f32::NAN, f32::INFINITY], &[3])?;
    /// assert_eq!(a.isfinite().to_vec(), vec![1, 0, 0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn isfinite(&self) -> Tensor<u8> {
        let float = !is_integer::<T>();
        self.map_as("isfinite", move |x| {
            let inf = float && (x == T::HIGHEST || x == T::LOWEST);
            u8::from(!inf && !x.elem_is_nan())
        })
    }
}

impl<T: Numeric + num_traits::Num> Tensor<T> {
    /// PyTorch's `remainder`, broadcasting: `self - other * floor(self / other)`, so a
    /// non-zero result has the **sign of the divisor** (`-7 rem 3 == 2`, `7 rem -3 == -2`);
    /// Rust's `%` keeps the sign of the dividend instead.
    ///
    /// - Integers are exact and wrap like the other integer ops (`MIN rem -1 == 0`).
    /// - Floats compute `fmod` (Rust's `%`, exact in IEEE 754) and add the divisor when the
    ///   signs differ, as PyTorch does; so `x rem 0.0` is NaN, `x rem inf` is `x` for `x >= 0`
    ///   and `inf` for `x < 0`, and NaN propagates. The one rounding (the add) can make a
    ///   result equal to the divisor itself for tiny negative `x` (`-1e-20 rem 1.0 == 1.0`).
    ///
    /// # Errors
    /// [`Error::DivisionByZero`] if an integer divisor is 0 where the broadcast result has
    /// elements, decided before any output is computed; [`Error::BroadcastMismatch`];
    /// [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![-7i32, 7, -6, i32::MIN], &[4])?;
    /// let b = Tensor::from_vec(vec![3i32, -3, 3, -1], &[4])?;
    /// assert_eq!(a.rem(&b)?.to_vec(), vec![2, -2, 0, 0]);
    /// let f = Tensor::from_vec(vec![-7.5f64, 7.5], &[2])?;
    /// assert_eq!(f.rem(&Tensor::full(&[], 2.0)?)?.to_vec(), vec![0.5, 1.5]);
    /// assert!(a.rem(&Tensor::from_vec(vec![1, 0, 1, 1], &[4])?).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn rem(&self, other: &Tensor<T>) -> Result<Tensor<T>> {
        let integer = is_integer::<T>();
        if integer {
            let shape = crate::layout::broadcast_shapes(self.shape(), other.shape())
                .map_err(|e| e.named("rem"))?;
            // One read of the divisor through its strides, nothing written: the error is
            // known before any output exists. (Every divisor element is used when the
            // broadcast result has elements.)
            if !shape.contains(&0) && other.iter().any(|y| y == T::zero()) {
                return Err(Error::DivisionByZero { op: "rem" });
            }
        }
        self.zip_named("rem", other, move |x, y| {
            let r = if integer {
                // Truncating, wrapping quotient (never None: y != 0 was checked), so
                // x - q * y is Rust's `%` without its overflow panic on MIN % -1.
                let q = x.elem_div(y).unwrap_or_else(T::zero);
                x.elem_sub(q.elem_mul(y))
            } else {
                x % y
            };
            if r != T::zero() && ((r < T::zero()) != (y < T::zero())) {
                r.elem_add(y)
            } else {
                r
            }
        })
    }
}

impl<T: Numeric + ToPrimitive> Tensor<T> {
    /// Whether every element of `self` is close to the element of `other` at the same index,
    /// the two broadcast together: `|a - b| <= atol + rtol * |b|` (NumPy's and PyTorch's
    /// `allclose`, not symmetric in `a` and `b`), computed in `f64`.
    ///
    /// Equal values are always close, so equal infinities are; an infinity and anything else
    /// is not; NaN is never close to anything, itself included. Tensors with no elements are
    /// close.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `rtol` or `atol` is negative or NaN;
    /// [`Error::BroadcastMismatch`] if the shapes do not broadcast; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, f32::INFINITY], &[3])?;
    /// let b = Tensor::from_vec(vec![1.0f32 + 1e-7, 2.0, f32::INFINITY], &[3])?;
    /// assert!(a.allclose(&b, 1e-5, 1e-8)?);
    /// assert!(!a.allclose(&Tensor::full(&[], 1.0)?, 1e-5, 1e-8)?); // broadcast
    /// let nan = Tensor::from_vec(vec![f32::NAN], &[1])?;
    /// assert!(!nan.allclose(&nan, 1.0, 1.0)?);
    /// assert!(a.allclose(&b, -1.0, 0.0).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn allclose(&self, other: &Tensor<T>, rtol: f64, atol: f64) -> Result<bool> {
        for (name, tol) in [("rtol", rtol), ("atol", atol)] {
            if tol.is_nan() || tol < 0.0 {
                return Err(Error::InvalidArgument {
                    op: "allclose",
                    message: format!(
                        "{name} is {tol}; tolerances must be non-negative numbers (e.g. \
                         rtol = 1e-5, atol = 1e-8)"
                    ),
                });
            }
        }
        let far = AtomicBool::new(false);
        self.zip_named("allclose", other, |x, y| {
            let (a, b) = (
                x.to_f64().unwrap_or(f64::NAN),
                y.to_f64().unwrap_or(f64::NAN),
            );
            let close = x == y
                || (a.is_finite() && b.is_finite() && (a - b).abs() <= atol + rtol * b.abs());
            if !close {
                far.store(true, Ordering::Relaxed);
            }
            0u8
        })?;
        Ok(!far.load(Ordering::Relaxed))
    }
}
