//! Activations and the error function: `sigmoid`, `gelu` (exact and tanh forms), `silu`,
//! `erf`, `erfc`, elementwise on the iteration engine like the rest of `math.rs`.
//!
//! They take every element type ([`ToFloat`]): floats compute in their own type (`f16`/`bf16`
//! through `f32`, `erf` and `gelu` in `f64`, see the Note below), and integer inputs are
//! converted to `f32` in the same pass, giving `Tensor<f32>` (PyTorch's rule). The activations
//! follow their usual definitions:
//!
//! | op          | definition                                        |
//! |-------------|---------------------------------------------------|
//! | `sigmoid`   | `1 / (1 + e^-x)` (evaluated as `e^x / (1 + e^x)` for `x < 0`, so it never overflows) |
//! | `relu`      | `max(x, 0)`, NaN stays NaN (in `math.rs`: every type, no conversion) |
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

use num_traits::{Float, NumCast};

use super::Tensor;
use crate::scalar::ToFloat;

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

impl<T: ToFloat> Tensor<T> {
    /// The logistic function `1 / (1 + e^-x)` of every element, computed without overflow for
    /// large `|x|`.
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f32, 1000.0, -1000.0], &[3])?;
    /// assert_eq!(a.sigmoid().to_vec(), vec![0.5, 1.0, 0.0]);
    /// let i = stridex::Tensor::from_vec(vec![0i64], &[1])?;
    /// assert_eq!(i.sigmoid().to_vec(), vec![0.5f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn sigmoid(&self) -> Tensor<T::Float> {
        self.map_as("sigmoid", |x| sigmoid(x.to_float()))
    }

    /// GELU in its exact form, `x/2 · (1 + erf(x/√2))` (PyTorch's default
    /// `approximate='none'`). `erf` is this crate's own; see the Note \[erf\] in the module
    /// docs for its accuracy (about 1e-15 relative for most inputs, computed in `f64` for
    /// every float type).
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
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
    /// let i = stridex::Tensor::from_vec(vec![0u8], &[1])?;
    /// assert_eq!(i.gelu().to_vec(), vec![0.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn gelu(&self) -> Tensor<T::Float> {
        self.map_as("gelu", |x| via_f64(x.to_float(), gelu_f64))
    }

    /// GELU in its tanh approximation, `x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))`
    /// (PyTorch's `approximate='tanh'`), computed in `T` (`f32` for the half types).
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f32, 1.0], &[2])?;
    /// let g = a.gelu_tanh().to_vec();
    /// assert_eq!(g[0], 0.0);
    /// assert!((g[1] - 0.841192).abs() < 1e-6);
    /// let i = stridex::Tensor::from_vec(vec![0i16], &[1])?;
    /// assert_eq!(i.gelu_tanh().to_vec(), vec![0.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn gelu_tanh(&self) -> Tensor<T::Float> {
        let c = |v: f64| <T::Float as NumCast>::from(v).unwrap_or_else(T::Float::nan);
        let (half, one) = (c(0.5), c(1.0));
        let (k0, k1) = (c(0.797_884_560_802_865_4), c(0.044_715)); // √(2/π), 0.044715
        self.map_as("gelu_tanh", move |x| {
            let x = x.to_float();
            half * x * (one + (k0 * (x + k1 * x * x * x)).tanh())
        })
    }

    /// SiLU (swish), `x · sigmoid(x)`, of every element.
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f32, 1000.0, -1000.0], &[3])?;
    /// assert_eq!(a.silu().to_vec(), vec![0.0, 1000.0, -0.0]);
    /// let i = stridex::Tensor::from_vec(vec![0i32], &[1])?;
    /// assert_eq!(i.silu().to_vec(), vec![0.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn silu(&self) -> Tensor<T::Float> {
        self.map_as("silu", |x| {
            let x = x.to_float();
            x * sigmoid(x)
        })
    }

    /// The error function of every element (this crate's own `erf`, in `f64`; see the Note
    /// \[erf\] in the module docs).
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
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
    /// let i = stridex::Tensor::from_vec(vec![0i32], &[1])?;
    /// assert_eq!(i.erf().to_vec(), vec![0.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn erf(&self) -> Tensor<T::Float> {
        self.map_as("erf", |x| via_f64(x.to_float(), erf_f64))
    }

    /// The complementary error function `1 - erf(x)` of every element, accurate also where it
    /// is tiny (large `x`); see the Note \[erf\] in the module docs.
    /// Integer inputs give `Tensor<f32>` (converted as [`ToFloat`] says).
    ///
    /// # Panics
    /// As [`Tensor::map`].
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec(vec![0.0f64, 5.0], &[2])?;
    /// let e = a.erfc().to_vec();
    /// assert_eq!(e[0], 1.0);
    /// assert!((e[1] / 1.5374597944280349e-12 - 1.0).abs() < 1e-14);
    /// let i = stridex::Tensor::from_vec(vec![0u32], &[1])?;
    /// assert_eq!(i.erfc().to_vec(), vec![1.0f32]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    #[track_caller]
    pub fn erfc(&self) -> Tensor<T::Float> {
        self.map_as("erfc", |x| via_f64(x.to_float(), erfc_f64))
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
