//! Elementwise math on floats (f16/bf16 computed in f32) and integers, and elementwise tests.
//!
//! Every op here is one call of the iteration engine ([`Tensor::map`] or [`Tensor::zip_map`]):
//! operands are read through their strides (transposed, narrowed, flipped, expanded), never
//! copied, binary ops broadcast by NumPy's rules, and the result gets the engine's output
//! layout. Only the element function differs, and this file is mostly those functions.
//!
//! # Floats
//!
//! The float ops (`T: Numeric + Float`: `f32`, `f64`, `f16`, `bf16`) evaluate through
//! [`num_traits::Float`], so `f16` and `bf16` are computed in `f32` and rounded once, by the
//! `half` crate. The activations follow their usual definitions:
//!
//! | op          | definition                                        |
//! |-------------|---------------------------------------------------|
//! | `sigmoid`   | `1 / (1 + e^-x)` (evaluated as `e^x / (1 + e^x)` for `x < 0`, so it never overflows) |
//! | `relu`      | `max(x, 0)`, NaN stays NaN                        |
//! | `gelu`      | `x/2 · (1 + erf(x/√2))`, the exact (erf) form     |
//! | `gelu_tanh` | `x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))`     |
//! | `silu`      | `x · sigmoid(x)`                                  |
//!
//! # Note [erf]
//!
//! `erf` is not in `num_traits`, so it is implemented here ([`erf_f64`], [`erfc_f64`]) from
//! two classical expansions, evaluated in `f64` for every float type:
//!
//! - `|x| < 1`: the Maclaurin series `erf(x) = 2/√π Σ (-1)^n x^(2n+1) / (n! (2n+1))`, 22 terms
//!   by Horner's rule (the first omitted term is below 1e-22; no term exceeds 1, so rounding
//!   stays at a few ulp);
//! - `1 <= |x| < 2`: the series of positive terms
//!   `erf(x) = 2/√π e^(-x²) Σ 2^n x^(2n+1) / (1·3···(2n+1))`, summed until a term no longer
//!   changes the sum (about 30 terms); `erfc = 1 - erf` there cancels at most 2.3 digits
//!   (`erfc(2) ≈ 4.7e-3`), so `erfc` is within about 1e-13 relative on this range;
//! - `|x| >= 2`: the Laplace continued fraction
//!   `erfc(x) = e^(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))`, evaluated from the
//!   tail with 60 levels (30 from `x >= 3`), converged to about 2e-16 relative; `erf = 1 - erfc`.
//!
//! Elsewhere both are within a few ulp (the rounding of `x²` inside `e^(-x²)` alone costs
//! `x²` ulp, about 1e-15 relative at `x = 3`), checked against tabulated values and a
//! quadrature in the unit tests.
//!
//! `gelu` uses `erfc(-x/√2)` for negative `x`, so its negative tail keeps its relative
//! accuracy (`gelu(-10) ≈ -7.6e-23` rather than 0) instead of cancelling `1 + erf`.
//!
//! # Rounding
//!
//! [`Tensor::round`] rounds halfway cases **away from zero** (`2.5 -> 3`, `-2.5 -> -3`), as
//! Rust's `f32::round` and C's `round` do. PyTorch's `torch.round` rounds them to even
//! (`2.5 -> 2`); the two differ only on exact halves.
//!
//! # Integers
//!
//! [`Tensor::clamp`], [`Tensor::relu`], [`Tensor::rem`] and the tests `isnan`/`isinf`/`isfinite`
//! take every [`Numeric`] type. Integer arithmetic wraps as described in
//! [`crate::scalar`].

use std::sync::atomic::{AtomicBool, Ordering};

use num_traits::{Float, ToPrimitive};

use super::Tensor;
use crate::error::{Error, Result};
use crate::scalar::Numeric;

/// `2 / √π`.
const TWO_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;
/// `1 / √π`.
const ONE_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI / 2.0;

/// Coefficients `(-1)^n / (n! (2n + 1))` of the Maclaurin series of `√π/2 · erf(x) / x` in
/// `x²`, for `n = 0..22`.
const ERF_SERIES: [f64; 22] = {
    let mut c = [0.0f64; 22];
    let mut fact = 1.0f64; // n!
    let mut n = 0;
    while n < 22 {
        if n > 0 {
            fact *= n as f64;
        }
        let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
        c[n] = sign / (fact * (2 * n + 1) as f64);
        n += 1;
    }
    c
};

/// `erf(x)` for `|x| < 1`: the Maclaurin series by Horner's rule.
fn erf_small(x: f64) -> f64 {
    let z = x * x;
    let mut acc = 0.0;
    for &c in ERF_SERIES.iter().rev() {
        acc = acc * z + c;
    }
    TWO_OVER_SQRT_PI * x * acc
}

/// `erf(x)` for `1 <= x < 2`: the series of positive terms (no cancellation).
fn erf_mid(x: f64) -> f64 {
    let z = 2.0 * x * x;
    let (mut term, mut sum) = (x, x);
    for n in 1..64 {
        term *= z / (2 * n + 1) as f64;
        let next = sum + term;
        if next == sum {
            break;
        }
        sum = next;
    }
    TWO_OVER_SQRT_PI * (-x * x).exp() * sum
}

/// `erfc(x)` for `x >= 2`: the Laplace continued fraction, evaluated from the tail.
fn erfc_large(x: f64) -> f64 {
    // erfc(x) = e^(-x²)/√π · 1/(x + a1/(x + a2/(x + ...))) with a_k = k/2.
    let levels = if x < 3.0 { 60 } else { 30 };
    let mut tail = x;
    for k in (1..=levels).rev() {
        tail = x + (k as f64 / 2.0) / tail;
    }
    ONE_OVER_SQRT_PI * (-x * x).exp() / tail
}

/// The error function `erf(x) = 2/√π ∫₀ˣ e^(-t²) dt`, in `f64`; see the Note [erf] in the
/// module docs for the method and its accuracy. Odd: `erf(-x) = -erf(x)`; NaN gives NaN.
pub(crate) fn erf_f64(x: f64) -> f64 {
    let a = x.abs();
    if a < 1.0 {
        erf_small(x)
    } else if a < 2.0 {
        erf_mid(a).copysign(x)
    } else if a >= 2.0 {
        (1.0 - erfc_large(a)).copysign(x)
    } else {
        f64::NAN
    }
}

/// The complementary error function `erfc(x) = 1 - erf(x)`, in `f64`, keeping its relative
/// accuracy for large `x` (where `1 - erf(x)` would round to 0); see the Note [erf].
pub(crate) fn erfc_f64(x: f64) -> f64 {
    if x < 1.0 {
        // erfc(x) >= erfc(1) ≈ 0.157 here: 1 - erf(x) keeps its relative accuracy.
        1.0 - erf_f64(x)
    } else if x < 2.0 {
        1.0 - erf_mid(x)
    } else if x >= 2.0 {
        erfc_large(x)
    } else {
        f64::NAN
    }
}

/// `f(x)` computed in `f64` and rounded back to `T` (NaN if it cannot be represented, which
/// for the float types happens only for NaN itself).
#[inline]
fn via_f64<T: Float>(x: T, f: impl Fn(f64) -> f64) -> T {
    x.to_f64()
        .and_then(|v| T::from(f(v)))
        .unwrap_or_else(T::nan)
}

/// `1 / (1 + e^-x)` without overflow for large `|x|`.
#[inline]
fn sigmoid<T: Float>(x: T) -> T {
    if x >= T::zero() {
        T::one() / (T::one() + (-x).exp())
    } else {
        let e = x.exp();
        e / (T::one() + e)
    }
}

/// `x/2 · (1 + erf(x/√2))`, through `erfc` for negative `x` (see the Note [erf]).
fn gelu_f64(x: f64) -> f64 {
    let u = x * std::f64::consts::FRAC_1_SQRT_2;
    if x < 0.0 {
        0.5 * x * erfc_f64(-u)
    } else {
        0.5 * x * (1.0 + erf_f64(u))
    }
}

impl<T: Numeric + Float> Tensor<T> {
    /// `self ^ exponent` elementwise ([`Float::powf`]), broadcasting.
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
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn pow(&self, exponent: &Tensor<T>) -> Result<Tensor<T>> {
        self.zip_named("pow", exponent, T::powf)
    }

    /// `self ^ exponent` for every element, with one scalar exponent.
    ///
    /// # Panics
    /// Only if the result cannot be allocated, as [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![4.0f64, 9.0], &[2])?;
    /// assert_eq!(a.powf(0.5).to_vec(), vec![2.0, 3.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn powf(&self, exponent: T) -> Tensor<T> {
        self.map(|x| x.powf(exponent))
    }

    /// Hyperbolic tangent of every element.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f32, 100.0, -100.0], &[3])?;
    /// assert_eq!(a.tanh().to_vec(), vec![0.0, 1.0, -1.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn tanh(&self) -> Tensor<T> {
        self.map(T::tanh)
    }

    /// The logistic function `1 / (1 + e^-x)` of every element, computed without overflow for
    /// large `|x|`.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f32, 1000.0, -1000.0], &[3])?;
    /// assert_eq!(a.sigmoid().to_vec(), vec![0.5, 1.0, 0.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn sigmoid(&self) -> Tensor<T> {
        self.map(sigmoid)
    }

    /// GELU in its exact form, `x/2 · (1 + erf(x/√2))` (PyTorch's default
    /// `approximate='none'`). `erf` is this crate's own; see the Note \[erf\] in the module
    /// docs for its accuracy (about 1e-15 relative for most inputs, computed in `f64` for
    /// every float type).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, 1.0, -1.0], &[3])?;
    /// let g = a.gelu().to_vec();
    /// assert_eq!(g[0], 0.0);
    /// assert!((g[1] - 0.8413447460685429).abs() < 1e-15);
    /// assert!((g[2] + 0.15865525393145707).abs() < 1e-15);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn gelu(&self) -> Tensor<T> {
        self.map(|x| via_f64(x, gelu_f64))
    }

    /// GELU in its tanh approximation, `x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))`
    /// (PyTorch's `approximate='tanh'`), computed in `T` (`f32` for the half types).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f32, 1.0], &[2])?;
    /// let g = a.gelu_tanh().to_vec();
    /// assert_eq!(g[0], 0.0);
    /// assert!((g[1] - 0.841192).abs() < 1e-6);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn gelu_tanh(&self) -> Tensor<T> {
        let half = T::from(0.5).unwrap_or_else(T::nan);
        let k0 = T::from(0.797_884_560_802_865_4).unwrap_or_else(T::nan); // √(2/π)
        let k1 = T::from(0.044_715).unwrap_or_else(T::nan);
        self.map(move |x| half * x * (T::one() + (k0 * (x + k1 * x * x * x)).tanh()))
    }

    /// SiLU (swish), `x · sigmoid(x)`, of every element.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f32, 1000.0, -1000.0], &[3])?;
    /// assert_eq!(a.silu().to_vec(), vec![0.0, 1000.0, -0.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn silu(&self) -> Tensor<T> {
        self.map(|x| x * sigmoid(x))
    }

    /// The error function of every element (this crate's own `erf`, in `f64`; see the Note
    /// \[erf\] in the module docs).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, 0.5, -2.0], &[3])?;
    /// let e = a.erf().to_vec();
    /// assert_eq!(e[0], 0.0);
    /// assert!((e[1] - 0.5204998778130465).abs() < 1e-15);
    /// assert!((e[2] + 0.9953222650189527).abs() < 1e-15);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn erf(&self) -> Tensor<T> {
        self.map(|x| via_f64(x, erf_f64))
    }

    /// The complementary error function `1 - erf(x)` of every element, accurate also where it
    /// is tiny (large `x`); see the Note \[erf\] in the module docs.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, 5.0], &[2])?;
    /// let e = a.erfc().to_vec();
    /// assert_eq!(e[0], 1.0);
    /// assert!((e[1] / 1.5374597944280349e-12 - 1.0).abs() < 1e-14);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn erfc(&self) -> Tensor<T> {
        self.map(|x| via_f64(x, erfc_f64))
    }

    /// The largest integer not above each element.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.5f32, -1.5, 2.0], &[3])?;
    /// assert_eq!(a.floor().to_vec(), vec![1.0, -2.0, 2.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn floor(&self) -> Tensor<T> {
        self.map(T::floor)
    }

    /// The smallest integer not below each element.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![1.5f32, -1.5, 2.0], &[3])?;
    /// assert_eq!(a.ceil().to_vec(), vec![2.0, -1.0, 2.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn ceil(&self) -> Tensor<T> {
        self.map(T::ceil)
    }

    /// Each element rounded to the nearest integer, halfway cases **away from zero**
    /// (`2.5 -> 3`, `-0.5 -> -1`), like Rust's `f32::round`. PyTorch's `torch.round` rounds
    /// halves to even instead; the results differ only on exact halves.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![2.5f32, -2.5, 0.5, 1.4, -1.6], &[5])?;
    /// assert_eq!(a.round().to_vec(), vec![3.0, -3.0, 1.0, 1.0, -2.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn round(&self) -> Tensor<T> {
        self.map(T::round)
    }

    /// Sine of every element (radians).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, std::f64::consts::FRAC_PI_2], &[2])?;
    /// assert_eq!(a.sin().to_vec(), vec![0.0, 1.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn sin(&self) -> Tensor<T> {
        self.map(T::sin)
    }

    /// Cosine of every element (radians).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, std::f64::consts::PI], &[2])?;
    /// assert_eq!(a.cos().to_vec(), vec![1.0, -1.0]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn cos(&self) -> Tensor<T> {
        self.map(T::cos)
    }

    /// `1 / x` for every element (`inf` at 0).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![2.0f32, 0.0], &[2])?;
    /// assert_eq!(a.recip().to_vec(), vec![0.5, f32::INFINITY]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn recip(&self) -> Tensor<T> {
        self.map(T::recip)
    }

    /// `1 / √x` for every element (`inf` at 0, NaN for negative elements).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![4.0f32, 0.0], &[2])?;
    /// assert_eq!(a.rsqrt().to_vec(), vec![0.5, f32::INFINITY]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn rsqrt(&self) -> Tensor<T> {
        self.map(|x| x.sqrt().recip())
    }

    /// `ln(1 + x)` for every element, accurate for small `x`.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, 1e-20, -1.0], &[3])?;
    /// assert_eq!(a.log1p().to_vec(), vec![0.0, 1e-20, f64::NEG_INFINITY]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn log1p(&self) -> Tensor<T> {
        self.map(T::ln_1p)
    }

    /// `e^x - 1` for every element, accurate for small `x`.
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, 1e-20], &[2])?;
    /// assert_eq!(a.expm1().to_vec(), vec![0.0, 1e-20]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn expm1(&self) -> Tensor<T> {
        self.map(T::exp_m1)
    }
}

/// Whether `T` is an integer type: integers have no quotient for `1 / 0`.
fn is_integer<T: Numeric>() -> bool {
    T::one().elem_div(T::zero()).is_none()
}

impl<T: Numeric> Tensor<T> {
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
    pub fn relu(&self) -> Tensor<T> {
        self.map(|x| {
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
    pub fn clamp(&self, min: T, max: T) -> Tensor<T> {
        self.map(move |x| x.elem_max(min).elem_min(max))
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
    pub fn isnan(&self) -> Tensor<u8> {
        self.map(|x| u8::from(x.elem_is_nan()))
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
    pub fn isinf(&self) -> Tensor<u8> {
        let float = !is_integer::<T>();
        // For floats, HIGHEST and LOWEST are the infinities.
        self.map(move |x| u8::from(float && (x == T::HIGHEST || x == T::LOWEST)))
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
    pub fn isfinite(&self) -> Tensor<u8> {
        let float = !is_integer::<T>();
        self.map(move |x| {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `∫₀ˣ 2/√π e^(-t²) dt` by composite Simpson's rule, summed with Kahan compensation
    /// (reference for `erf`).
    fn erf_by_quadrature(x: f64) -> f64 {
        let n = 20_000;
        let h = x / n as f64;
        let f = |t: f64| TWO_OVER_SQRT_PI * (-t * t).exp();
        let (mut s, mut comp) = (f(0.0) + f(x), 0.0f64);
        for i in 1..n {
            let y = f(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 } - comp;
            let t = s + y;
            comp = (t - s) - y;
            s = t;
        }
        s * h / 3.0
    }

    #[test]
    #[cfg_attr(miri, ignore = "20K-step quadratures: minutes under Miri")]
    fn erf_matches_known_values_and_quadrature() {
        // Reference values (erf to 16 digits).
        let known = [
            (0.1, 0.1124629160182849),
            (0.5, 0.5204998778130465),
            (1.0, 0.8427007929497149),
            (1.5, 0.9661051464753108),
            (2.0, 0.9953222650189527),
            (3.0, 0.9999779095030014),
        ];
        for (x, want) in known {
            assert!((erf_f64(x) - want).abs() <= 2e-16 * want, "erf({x})");
            assert!((erf_f64(-x) + want).abs() <= 2e-16 * want, "erf(-{x})");
        }
        let mut x = 0.0;
        while x < 6.0 {
            let q = erf_by_quadrature(x);
            assert!(
                (erf_f64(x) - q).abs() < 1e-14,
                "erf({x}) = {} vs {q}",
                erf_f64(x)
            );
            x += 0.0625;
        }
        assert_eq!(erf_f64(0.0), 0.0);
        assert_eq!(erf_f64(40.0), 1.0);
        assert_eq!(erf_f64(f64::NEG_INFINITY), -1.0);
        assert!(erf_f64(f64::NAN).is_nan());
    }

    #[test]
    fn erfc_keeps_relative_accuracy_in_the_tail() {
        let known = [
            (0.5, 0.4795001221869535),
            (1.0, 0.15729920705028513),
            (2.0, 0.004677734981047266),
            (3.0, 2.209049699858544e-05),
            (5.0, 1.537_459_794_428_035e-12),
            (10.0, 2.088487583762545e-45),
        ];
        for (x, want) in known {
            let rel = (erfc_f64(x) / want - 1.0).abs();
            let bound = if (1.0..2.0).contains(&x) {
                1e-13
            } else {
                1e-14
            };
            assert!(rel < bound, "erfc({x}) = {} (rel {rel})", erfc_f64(x));
        }
        // Continuity at the switch points.
        for s in [1.0f64, 2.0, 3.0] {
            let (lo, hi) = (erfc_f64(s - 1e-12), erfc_f64(s));
            assert!((lo / hi - 1.0).abs() < 1e-10, "erfc jumps at {s}");
        }
        assert_eq!(erfc_f64(-30.0), 2.0);
        assert_eq!(erfc_f64(30.0), 0.0);
    }

    #[test]
    fn gelu_tail_is_not_cancelled() {
        let g = gelu_f64(-10.0);
        // -10/2 * erfc(10/√2) = -5 * 1.5239706...e-23
        assert!((g / -7.619853024160526e-23 - 1.0).abs() < 1e-13, "{g}");
        assert_eq!(gelu_f64(0.0), 0.0);
        assert!(gelu_f64(f64::NAN).is_nan());
    }
}
