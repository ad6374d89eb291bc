//! Property tests of the elementwise math ops (`src/tensor/math.rs`) and of the integer
//! matrix product, on random views (permuted, flipped, stepped, narrowed, expanded operands;
//! empty and size-1 dims; several element types), against naive loops over the reference
//! model's row-major values.
//!
//! - Ops that are one `num_traits::Float` function per element must match that function
//!   exactly (bit for bit, NaN for NaN), for f32, f64, f16 and bf16.
//! - Composite activations (`sigmoid`, `silu`, `gelu`, `gelu_tanh`) and `erf` are compared in
//!   `f64` against their textbook formulas with a tolerance scaled to the element type; `erf`
//!   against a quadrature of `2/√π e^(-t²)`.
//! - `clamp`, `relu`, `rem`, `isnan`/`isinf`/`isfinite` and `allclose` against naive
//!   definitions for integers and floats, including the error cases (integer `rem` by 0,
//!   negative tolerances, shapes that do not broadcast).
//! - Integer `matmul` (i32, i64) against a naive wrapping triple loop on strided operands.
//!
//! Every op runs inside `audit::record`, which must see no copy.

use crate::common;

use common::*;
use num_traits::{Float, NumCast, ToPrimitive};
use proptest::prelude::*;
use stridex::{Error, Numeric, Tensor, audit, broadcast_shapes};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// splitmix64.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Runs `f` inside `audit::record` and fails unless it made no copy.
fn no_copies<R>(what: &str, f: impl FnOnce() -> R) -> Result<R, TestCaseError> {
    let (r, report) = audit::record(f);
    prop_assert_eq!(report.count(), 0, "{} copied: {}", what, report);
    Ok(r)
}

/// Value at result index `idx` of an operand of `shape` broadcast to the result's rank.
fn at_broadcast<T: Copy>(vals: &[T], shape: &[usize], idx: &[usize]) -> T {
    let pad = idx.len() - shape.len();
    let own: Vec<usize> = (0..shape.len())
        .map(|d| if shape[d] == 1 { 0 } else { idx[pad + d] })
        .collect();
    vals[ravel(&own, shape)]
}

/// A shape that broadcasts with `shape` (leading dims dropped, some set to 1), or, when
/// `clash`, one that does not (if some dim of size >= 2 exists).
fn partner_shape(shape: &[usize], seed: &[u8], clash: bool) -> Vec<usize> {
    let mut b = Bytes::new(seed);
    let drop = b.below(shape.len() + 1);
    let mut m: Vec<usize> = shape[drop..]
        .iter()
        .map(|&s| if b.below(3) == 0 { 1 } else { s })
        .collect();
    if clash {
        if let Some(d) = (0..m.len()).find(|&d| shape[drop + d] >= 2) {
            m[d] = shape[drop + d] + 1;
        }
    }
    m
}

/// Naive elementwise binary op over the broadcast shape, or `None` if the shapes do not
/// broadcast.
fn naive_zip<A: Copy, B: Copy, O>(
    (av, ash): (&[A], &[usize]),
    (bv, bsh): (&[B], &[usize]),
    f: impl Fn(A, B) -> O,
) -> Option<(Vec<usize>, Vec<O>)> {
    let shape = broadcast_shapes(ash, bsh).ok()?;
    let out = all_indices(&shape)
        .iter()
        .map(|i| f(at_broadcast(av, ash, i), at_broadcast(bv, bsh, i)))
        .collect();
    Some((shape, out))
}

/// A float element type under test, with the unit roundoff of its storage.
trait F: stridex::FloatElement + NumCast + ToPrimitive {
    const EPS: f64;
    fn f64(self) -> f64 {
        self.to_f64().unwrap()
    }
    fn of(x: f64) -> Self {
        <Self as NumCast>::from(x).unwrap()
    }
}
impl F for f32 {
    const EPS: f64 = 6e-8;
}
impl F for f64 {
    const EPS: f64 = 1.2e-16;
}
impl F for half::f16 {
    const EPS: f64 = 4.9e-4;
}
impl F for half::bf16 {
    const EPS: f64 = 3.9e-3;
}

/// Equal, or both NaN.
fn same<T: Float>(a: T, b: T) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// Float values in about [-6, 6] with a sprinkling of 0, ±0.5, ±2.5, and (when `special`)
/// NaN and infinities, for storage position `i`.
fn float_value<T: F>(i: usize, seed: u64, special: bool) -> T {
    let h = mix(i as u64 ^ seed);
    let x = match h % 16 {
        0 => 0.0,
        1 => 0.5,
        2 => -2.5,
        3 if special => f64::NAN,
        4 if special => f64::INFINITY,
        5 if special => f64::NEG_INFINITY,
        _ => ((h >> 8) % 12_001) as f64 / 1000.0 - 6.0,
    };
    T::of(x)
}

/// `erf(x) = ∫₀ˣ 2/√π e^(-t²) dt` by Romberg integration (trapezoid sums with Kahan
/// summation, Richardson-extrapolated): an independent reference, accurate to about 1e-16
/// absolute.
fn erf_ref(x: f64) -> f64 {
    let f = |t: f64| std::f64::consts::FRAC_2_SQRT_PI * (-t * t).exp();
    if x == 0.0 || x.is_nan() {
        return x;
    }
    let mut prev: Vec<f64> = vec![0.5 * x * (f(0.0) + f(x))];
    for level in 1..=14 {
        let n = 1usize << (level - 1); // new midpoints
        let h = x / (2 * n) as f64;
        let (mut sum, mut c) = (0.0f64, 0.0f64);
        for i in 0..n {
            let y = f((2 * i + 1) as f64 * h) - c;
            let t = sum + y;
            c = (t - sum) - y;
            sum = t;
        }
        let mut row = vec![0.5 * prev[0] + h * sum];
        for j in 1..=level {
            let p = 4f64.powi(j as i32);
            row.push((p * row[j - 1] - prev[j - 1]) / (p - 1.0));
        }
        let done = (row[level] - prev[level - 1]).abs() <= 1e-17 * row[level].abs().max(1e-300);
        prev = row;
        if done && level >= 4 {
            break;
        }
    }
    *prev.last().unwrap()
}

// ---------------------------------------------------------------------------------------------
// Float ops
// ---------------------------------------------------------------------------------------------

/// Every op that is one `Float` function per element, compared exactly.
fn check_float_unary<T: F>(shape: &[usize], r: &Recipe, seed: u64) -> TestResult {
    let x = build::<T>(shape, r, |i| float_value(i, seed, true), true);
    let xv = x.values();
    type Case<'a, T> = (&'a str, fn(&Tensor<T>) -> Tensor<T>, fn(T) -> T);
    let cases: Vec<Case<T>> = vec![
        ("tanh", |t| t.tanh(), |v| v.tanh()),
        ("floor", |t| t.floor(), |v| v.floor()),
        ("ceil", |t| t.ceil(), |v| v.ceil()),
        ("round", |t| t.round(), |v| v.round()),
        ("sin", |t| t.sin(), |v| v.sin()),
        ("cos", |t| t.cos(), |v| v.cos()),
        ("recip", |t| t.recip(), |v| v.recip()),
        ("rsqrt", |t| t.rsqrt(), |v| v.sqrt().recip()),
        ("log1p", |t| t.log1p(), |v| v.ln_1p()),
        ("expm1", |t| t.expm1(), |v| v.exp_m1()),
        ("powf", |t| t.powf(T::of(1.5)), |v| v.powf(T::of(1.5))),
    ];
    for (name, op, f) in cases {
        let got = no_copies(name, || op(&x.t))?;
        prop_assert_eq!(got.shape(), shape);
        let got = got.to_vec();
        for (k, (&g, &v)) in got.iter().zip(&xv).enumerate() {
            prop_assert!(
                same(g, f(v)),
                "{}({:?}) = {:?}, want {:?} at {}",
                name,
                v,
                g,
                f(v),
                k
            );
        }
    }
    Ok(())
}

/// Activations and erf against their formulas in f64.
fn check_activations<T: F>(shape: &[usize], r: &Recipe, seed: u64) -> TestResult {
    let x = build::<T>(shape, r, |i| float_value(i, seed, false), true);
    let xv: Vec<f64> = x.values().iter().map(|v| v.f64()).collect();
    // The result is the formula evaluated in f64 and rounded to T (once, or a few times in
    // T's own arithmetic for the f32-computed ones): a few units of T's roundoff, relative to
    // the larger of the result and the input (absolute near zero crossings).
    let tol = |want: f64, v: f64| 8.0 * T::EPS * want.abs().max(v.abs().min(1.0)) + 1e-300;
    let sig = |v: f64| 1.0 / (1.0 + (-v).exp());
    type Case<'a, T> = (&'a str, fn(&Tensor<T>) -> Tensor<T>, &'a dyn Fn(f64) -> f64);
    let gelu_exact = |v: f64| 0.5 * v * (1.0 + erf_ref(v / std::f64::consts::SQRT_2));
    let gelu_tanh = |v: f64| {
        0.5 * v * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (v + 0.044715 * v * v * v)).tanh())
    };
    let silu = |v: f64| v * sig(v);
    let erf = |v: f64| erf_ref(v);
    let erfc = |v: f64| 1.0 - erf_ref(v);
    let cases: Vec<Case<T>> = vec![
        ("sigmoid", |t| t.sigmoid(), &sig),
        ("silu", |t| t.silu(), &silu),
        ("gelu", |t| t.gelu(), &gelu_exact),
        ("gelu_tanh", |t| t.gelu_tanh(), &gelu_tanh),
        ("erf", |t| t.erf(), &erf),
        ("erfc", |t| t.erfc(), &erfc),
    ];
    for (name, op, f) in cases {
        let got = no_copies(name, || op(&x.t))?.to_vec();
        for (&g, &v) in got.iter().zip(&xv) {
            let (g, want) = (g.f64(), f(v));
            // erfc near 1 - erf: the quadrature reference has ~1e-15 absolute error.
            let t = tol(want, v) + if T::EPS < 1e-10 { 4e-15 } else { 0.0 };
            prop_assert!(
                (g - want).abs() <= t,
                "{}({}) = {}, want {} (tol {})",
                name,
                v,
                g,
                want,
                t
            );
        }
    }
    // relu: exact.
    let got = no_copies("relu", || x.t.relu())?.to_vec();
    let want: Vec<T> = x
        .values()
        .iter()
        .map(|&v| if v > T::zero() { v } else { T::zero() })
        .collect();
    prop_assert_eq!(got, want);
    Ok(())
}

fn check_pow<T: F>(
    shape: &[usize],
    r: &Recipe,
    pseed: &[u8],
    rp: &Recipe,
    clash: bool,
    seed: u64,
) -> TestResult {
    let x = build::<T>(shape, r, |i| float_value::<T>(i, seed, true).abs(), true);
    let es = partner_shape(shape, pseed, clash);
    let e = build::<T>(&es, rp, |i| float_value(i, seed ^ 7, true), true);
    let got = no_copies("pow", || x.t.pow(&e.t))?;
    match naive_zip((&x.values(), shape), (&e.values(), &es), |a: T, b: T| {
        a.powf(b)
    }) {
        None => prop_assert!(
            matches!(got, Err(Error::BroadcastMismatch { .. })),
            "expected a broadcast error"
        ),
        Some((s, want)) => {
            let got = okay(got, "pow")?;
            prop_assert_eq!(got.shape(), &s[..]);
            for (g, w) in got.to_vec().into_iter().zip(want) {
                prop_assert!(same(g, w), "{:?} vs {:?}", g, w);
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Integer and generic ops
// ---------------------------------------------------------------------------------------------

/// An integer type under test with its naive PyTorch remainder.
trait I: Numeric + num_traits::Num + Ord + std::fmt::Debug {
    fn of(h: u64) -> Self;
    fn naive_rem(a: Self, b: Self) -> Self;
}
macro_rules! int_type {
    ($($t:ty),*) => {$(
        impl I for $t {
            fn of(h: u64) -> Self {
                match h % 8 {
                    0 => <$t>::MIN,
                    1 => <$t>::MAX,
                    2 => 0,
                    3 => (1 as $t).wrapping_neg(), // -1, or MAX for unsigned
                    _ => (h >> 8) as $t,
                }
            }
            fn naive_rem(a: Self, b: Self) -> Self {
                let r = a.wrapping_rem(b);
                #[allow(unused_comparisons)]
                let differ = (r < 0) != (b < 0);
                if r != 0 && differ { r.wrapping_add(b) } else { r }
            }
        }
    )*};
}
int_type!(i8, i32, i64, u16);

fn check_int_ops<T: I>(
    shape: &[usize],
    r: &Recipe,
    pseed: &[u8],
    rp: &Recipe,
    clash: bool,
    seed: u64,
) -> TestResult {
    let x = build::<T>(shape, r, |i| T::of(mix(i as u64 ^ seed)), true);
    let xv = x.values();
    let (lo, hi) = (T::of(mix(seed)), T::of(mix(seed ^ 1)));
    let got = no_copies("clamp", || x.t.clamp(lo, hi))?.to_vec();
    let want: Vec<T> = xv.iter().map(|&v| v.max(lo).min(hi)).collect();
    prop_assert_eq!(got, want);
    let got = no_copies("relu", || x.t.relu())?.to_vec();
    let want: Vec<T> = xv.iter().map(|&v| v.max(T::zero())).collect();
    prop_assert_eq!(got, want);
    let n = xv.len();
    prop_assert_eq!(no_copies("isnan", || x.t.isnan())?.to_vec(), vec![0u8; n]);
    prop_assert_eq!(no_copies("isinf", || x.t.isinf())?.to_vec(), vec![0u8; n]);
    prop_assert_eq!(
        no_copies("isfinite", || x.t.isfinite())?.to_vec(),
        vec![1u8; n]
    );
    // rem: divisors with zeros in some cases.
    let ds = partner_shape(shape, pseed, clash);
    let with_zero = seed % 4 == 0;
    let d = build::<T>(
        &ds,
        rp,
        |i| {
            let v = T::of(mix(i as u64 ^ seed ^ 99));
            if v == T::zero() && !with_zero {
                T::one()
            } else {
                v
            }
        },
        true,
    );
    let dv = d.values();
    let got = no_copies("rem", || x.t.rem(&d.t))?;
    match naive_zip((&xv, shape), (&dv, &ds), |a, b| {
        (b != T::zero()).then(|| T::naive_rem(a, b))
    }) {
        None => prop_assert!(
            matches!(got, Err(Error::BroadcastMismatch { .. })),
            "expected a broadcast error"
        ),
        Some((s, want)) => {
            if want.iter().any(Option::is_none) {
                prop_assert_eq!(got.unwrap_err(), Error::DivisionByZero { op: "rem" });
            } else {
                let got = okay(got, "rem")?;
                prop_assert_eq!(got.shape(), &s[..]);
                prop_assert_eq!(got.to_vec(), want.into_iter().flatten().collect::<Vec<_>>());
            }
        }
    }
    Ok(())
}

/// The float forms of clamp, rem, the tests and allclose.
fn check_float_generic<T: F>(
    shape: &[usize],
    r: &Recipe,
    pseed: &[u8],
    rp: &Recipe,
    clash: bool,
    seed: u64,
) -> TestResult {
    let x = build::<T>(shape, r, |i| float_value(i, seed, true), true);
    let xv = x.values();
    let (lo, hi) = (
        float_value::<T>(1, seed, false),
        float_value::<T>(2, seed, false),
    );
    let got = no_copies("clamp", || x.t.clamp(lo, hi))?.to_vec();
    for (&g, &v) in got.iter().zip(&xv) {
        let want = if v.is_nan() {
            v
        } else {
            let y = if v < lo { lo } else { v };
            if y > hi { hi } else { y }
        };
        prop_assert!(
            same(g, want),
            "clamp({:?}, {:?}, {:?}) = {:?}",
            v,
            lo,
            hi,
            g
        );
    }
    let flags = |f: fn(T) -> bool| {
        xv.iter()
            .map(|&v| if f(v) { 1u8 } else { 0 })
            .collect::<Vec<u8>>()
    };
    prop_assert_eq!(
        no_copies("isnan", || x.t.isnan())?.to_vec(),
        flags(|v| v.is_nan())
    );
    prop_assert_eq!(
        no_copies("isinf", || x.t.isinf())?.to_vec(),
        flags(|v| v.is_infinite())
    );
    prop_assert_eq!(
        no_copies("isfinite", || x.t.isfinite())?.to_vec(),
        flags(|v| v.is_finite())
    );
    // rem: fmod, plus the divisor when the signs differ.
    let ds = partner_shape(shape, pseed, clash);
    let d = build::<T>(&ds, rp, |i| float_value(i, seed ^ 5, true), true);
    let got = no_copies("rem", || x.t.rem(&d.t))?;
    let naive = |a: T, b: T| {
        let m = a % b;
        if m != T::zero() && ((m < T::zero()) != (b < T::zero())) {
            m + b
        } else {
            m
        }
    };
    match naive_zip((&xv, shape), (&d.values(), &ds), naive) {
        None => prop_assert!(
            matches!(got, Err(Error::BroadcastMismatch { .. })),
            "expected a broadcast error"
        ),
        Some((s, want)) => {
            let got = okay(got, "rem")?;
            prop_assert_eq!(got.shape(), &s[..]);
            for (g, w) in got.to_vec().into_iter().zip(want) {
                prop_assert!(same(g, w), "rem {:?} vs {:?}", g, w);
            }
        }
    }
    // allclose against a perturbed copy (sometimes broadcast, sometimes not broadcastable).
    // Same recipe and storage values as `x` plus a small shift: elementwise neighbours.
    let eps = T::of(0.01);
    let special = seed % 2 == 0;
    let x2 = build::<T>(shape, r, |i| float_value(i, seed, special), true);
    let y = build::<T>(shape, r, |i| float_value::<T>(i, seed, special) + eps, true);
    let (rtol, atol) = ((seed % 3) as f64 * 0.01, ((seed >> 2) % 3) as f64 * 0.01);
    let got = no_copies("allclose", || x2.t.allclose(&y.t, rtol, atol))?;
    let close = |a: T, b: T| {
        let (a, b) = (a.f64(), b.f64());
        a == b || (a.is_finite() && b.is_finite() && (a - b).abs() <= atol + rtol * b.abs())
    };
    let want = x2
        .values()
        .into_iter()
        .zip(y.values())
        .all(|(a, b)| close(a, b));
    prop_assert_eq!(okay(got, "allclose")?, want);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Integer matmul
// ---------------------------------------------------------------------------------------------

/// An integer type matmul supports, with its wrapping arithmetic for the naive loop.
trait MI: stridex::matmul::MatmulElement + Numeric + std::fmt::Debug {
    fn of(h: u64) -> Self;
}
impl MI for i32 {
    fn of(h: u64) -> Self {
        h as i32
    }
}
impl MI for i64 {
    fn of(h: u64) -> Self {
        h as i64
    }
}

/// `a [.., m, k] · b [k, n]` (or vector forms) against the naive wrapping loop.
fn check_int_matmul<T: MI>(
    (m, k, n): (usize, usize, usize),
    batch: usize,
    ra: &Recipe,
    rb: &Recipe,
    vec_case: u8,
    seed: u64,
) -> TestResult {
    let a_shape: Vec<usize> = match (vec_case, batch) {
        (1, _) => vec![k],
        (_, 0) => vec![m, k],
        (_, b) => vec![b, m, k],
    };
    let b_shape: Vec<usize> = if vec_case == 2 { vec![k] } else { vec![k, n] };
    let a = build::<T>(&a_shape, ra, |i| T::of(mix(i as u64 ^ seed)), true);
    let b = build::<T>(&b_shape, rb, |i| T::of(mix(i as u64 ^ !seed)), true);
    let got = okay(no_copies("matmul", || a.t.matmul(&b.t))?, "matmul")?;
    let (av, bv) = (a.values(), b.values());
    let (mm, nn) = (
        if vec_case == 1 { 1 } else { m },
        if vec_case == 2 { 1 } else { n },
    );
    let batches = if vec_case == 1 || batch == 0 {
        1
    } else {
        batch
    };
    let mut want = Vec::new();
    for q in 0..batches {
        for i in 0..mm {
            for j in 0..nn {
                let mut s = T::zero();
                for p in 0..k {
                    s = s.elem_add(av[q * mm * k + i * k + p].elem_mul(bv[p * nn + j]));
                }
                want.push(s);
            }
        }
    }
    prop_assert_eq!(got.to_vec(), want);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn float_functions_match_num_traits(shape in arb_shape(), r in arb_recipe(), seed in any::<u64>(), ty in 0u8..4) {
        match ty {
            0 => check_float_unary::<f32>(&shape, &r, seed)?,
            1 => check_float_unary::<f64>(&shape, &r, seed)?,
            2 => check_float_unary::<half::f16>(&shape, &r, seed)?,
            _ => check_float_unary::<half::bf16>(&shape, &r, seed)?,
        }
    }

    #[test]
    fn activations_match_formulas(shape in arb_shape(), r in arb_recipe(), seed in any::<u64>(), ty in 0u8..4) {
        match ty {
            0 => check_activations::<f32>(&shape, &r, seed)?,
            1 => check_activations::<f64>(&shape, &r, seed)?,
            2 => check_activations::<half::f16>(&shape, &r, seed)?,
            _ => check_activations::<half::bf16>(&shape, &r, seed)?,
        }
    }

    #[test]
    fn pow_broadcasts_like_naive(
        shape in arb_shape(), r in arb_recipe(), pseed in prop::collection::vec(any::<u8>(), 6),
        rp in arb_recipe(), clash in prop::bool::weighted(0.2), seed in any::<u64>(), ty in 0u8..2,
    ) {
        match ty {
            0 => check_pow::<f32>(&shape, &r, &pseed, &rp, clash, seed)?,
            _ => check_pow::<half::bf16>(&shape, &r, &pseed, &rp, clash, seed)?,
        }
    }

    #[test]
    fn integer_clamp_relu_rem_match_naive(
        shape in arb_shape(), r in arb_recipe(), pseed in prop::collection::vec(any::<u8>(), 6),
        rp in arb_recipe(), clash in prop::bool::weighted(0.15), seed in any::<u64>(), ty in 0u8..4,
    ) {
        match ty {
            0 => check_int_ops::<i8>(&shape, &r, &pseed, &rp, clash, seed)?,
            1 => check_int_ops::<i32>(&shape, &r, &pseed, &rp, clash, seed)?,
            2 => check_int_ops::<i64>(&shape, &r, &pseed, &rp, clash, seed)?,
            _ => check_int_ops::<u16>(&shape, &r, &pseed, &rp, clash, seed)?,
        }
    }

    #[test]
    fn float_clamp_rem_tests_allclose_match_naive(
        shape in arb_shape(), r in arb_recipe(), pseed in prop::collection::vec(any::<u8>(), 6),
        rp in arb_recipe(), clash in prop::bool::weighted(0.15), seed in any::<u64>(), ty in 0u8..3,
    ) {
        match ty {
            0 => check_float_generic::<f32>(&shape, &r, &pseed, &rp, clash, seed)?,
            1 => check_float_generic::<f64>(&shape, &r, &pseed, &rp, clash, seed)?,
            _ => check_float_generic::<half::f16>(&shape, &r, &pseed, &rp, clash, seed)?,
        }
    }

    #[test]
    fn integer_matmul_matches_wrapping_loop(
        m in 0usize..=13, k in 0usize..=19, n in 0usize..=21, batch in 0usize..=3,
        ra in arb_recipe(), rb in arb_recipe(), vec_case in prop_oneof![6 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8)],
        seed in any::<u64>(), ty in 0u8..2,
    ) {
        match ty {
            0 => check_int_matmul::<i32>((m, k, n), batch, &ra, &rb, vec_case, seed)?,
            _ => check_int_matmul::<i64>((m, k, n), batch, &ra, &rb, vec_case, seed)?,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Edge cases and errors
// ---------------------------------------------------------------------------------------------

#[test]
fn round_is_half_away_from_zero() {
    let a = Tensor::from_vec(vec![0.5f32, 1.5, 2.5, -0.5, -2.5, 2.4999998], &[6]).unwrap();
    assert_eq!(a.round().to_vec(), vec![1.0, 2.0, 3.0, -1.0, -3.0, 2.0]);
    let h = a.cast::<half::f16>().round().cast::<f32>();
    assert_eq!(h.to_vec()[..5], [1.0, 2.0, 3.0, -1.0, -3.0]);
}

#[test]
fn clamp_propagates_nan_and_prefers_max() {
    let a = Tensor::from_vec(vec![f64::NAN, -1.0, 5.0], &[3]).unwrap();
    let c = a.clamp(0.0, 2.0).to_vec();
    assert!(c[0].is_nan() && c[1] == 0.0 && c[2] == 2.0);
    assert_eq!(a.clamp(3.0, 1.0).to_vec()[1..], [1.0, 1.0]);
    assert!(a.clamp(f64::NAN, 1.0).to_vec().iter().all(|v| v.is_nan()));
    assert_eq!(
        Tensor::from_vec(vec![200u8, 3], &[2])
            .unwrap()
            .clamp(5, 100)
            .to_vec(),
        vec![100, 5]
    );
}

#[test]
fn rem_errors_and_signs() {
    let a = Tensor::from_vec(vec![7i64, -7, 7, -7], &[4]).unwrap();
    let b = Tensor::from_vec(vec![3i64, 3, -3, -3], &[4]).unwrap();
    assert_eq!(a.rem(&b).unwrap().to_vec(), vec![1, 2, -2, -1]);
    let zero = Tensor::full(&[], 0i64).unwrap();
    assert_eq!(
        a.rem(&zero).unwrap_err(),
        Error::DivisionByZero { op: "rem" }
    );
    assert!(
        a.rem(&zero)
            .unwrap_err()
            .to_string()
            .contains("division by zero")
    );
    // No elements: no division.
    let empty = Tensor::<i64>::zeros(&[0]).unwrap();
    assert_eq!(empty.rem(&zero).unwrap().numel(), 0);
    // A zero hidden in a transposed, expanded divisor.
    let d = Tensor::from_vec(vec![1i32, 2, 0, 4], &[2, 2])
        .unwrap()
        .t()
        .unwrap();
    let x = Tensor::from_vec(vec![5i32; 4], &[2, 2]).unwrap();
    assert!(matches!(x.rem(&d), Err(Error::DivisionByZero { .. })));
    assert!(matches!(
        x.rem(&Tensor::zeros(&[3]).unwrap()),
        Err(Error::BroadcastMismatch { .. })
    ));
    // Floats: by zero is NaN, by infinity keeps or flips to the divisor.
    let f = Tensor::from_vec(vec![1.5f32, -1.5], &[2]).unwrap();
    let r = f.rem(&Tensor::full(&[], 0.0).unwrap()).unwrap().to_vec();
    assert!(r.iter().all(|v| v.is_nan()));
    let r = f
        .rem(&Tensor::full(&[], f32::INFINITY).unwrap())
        .unwrap()
        .to_vec();
    assert_eq!(r, vec![1.5, f32::INFINITY]);
    assert_eq!(
        f.rem(&Tensor::full(&[], -1.0).unwrap()).unwrap().to_vec(),
        vec![-0.5, -0.5]
    );
}

#[test]
fn allclose_edge_cases() {
    let inf = Tensor::from_vec(vec![f32::INFINITY, f32::NEG_INFINITY], &[2]).unwrap();
    assert!(inf.allclose(&inf, 0.0, 0.0).unwrap());
    assert!(!inf.allclose(&inf.flip(0).unwrap(), 1.0, 1.0).unwrap());
    assert!(
        !inf.allclose(&Tensor::full(&[], 1e30).unwrap(), 1.0, 1.0)
            .unwrap()
    );
    let nan = Tensor::from_vec(vec![f32::NAN], &[1]).unwrap();
    assert!(!nan.allclose(&nan, 1e9, 1e9).unwrap());
    for (r, a) in [(-1e-5, 0.0), (0.0, -1e-8), (f64::NAN, 0.0)] {
        let e = inf.allclose(&inf, r, a).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { op: "allclose", .. }),
            "{e}"
        );
    }
    // Not symmetric: the tolerance scales with |other|.
    let x = Tensor::from_vec(vec![1.0f64], &[1]).unwrap();
    let y = Tensor::from_vec(vec![1.9f64], &[1]).unwrap();
    assert!(x.allclose(&y, 0.5, 0.0).unwrap() && !y.allclose(&x, 0.5, 0.0).unwrap());
    // Integers compare exactly when equal, in f64 otherwise; empty tensors are close.
    let big = Tensor::from_vec(vec![i64::MAX], &[1]).unwrap();
    assert!(big.allclose(&big, 0.0, 0.0).unwrap());
    let e = Tensor::<u8>::zeros(&[0, 3]).unwrap();
    assert!(e.allclose(&Tensor::zeros(&[3]).unwrap(), 0.0, 0.0).unwrap());
    assert!(matches!(
        e.allclose(&Tensor::zeros(&[2]).unwrap(), 0.0, 0.0),
        Err(Error::BroadcastMismatch { .. })
    ));
}

#[test]
fn activations_at_extremes() {
    let a = Tensor::from_vec(vec![-1000.0f32, 1000.0, 0.0, f32::NAN], &[4]).unwrap();
    let s = a.sigmoid().to_vec();
    assert_eq!(s[..3], [0.0, 1.0, 0.5]);
    assert!(s[3].is_nan());
    let g = a.gelu().to_vec();
    assert_eq!(g[..3], [-0.0, 1000.0, 0.0]);
    assert!(g[3].is_nan());
    assert!(a.relu().to_vec()[3].is_nan());
    let t = a.gelu_tanh().to_vec();
    assert_eq!(t[..3], [-0.0, 1000.0, 0.0]);
    // erf saturates and is odd.
    let e = Tensor::from_vec(vec![-30.0f64, 30.0, -0.3, 0.3], &[4])
        .unwrap()
        .erf()
        .to_vec();
    assert_eq!(e[..2], [-1.0, 1.0]);
    assert_eq!(e[2], -e[3]);
}

#[test]
fn integer_matmul_edges() {
    // Wrapping is exact: (2^31 - 1)^2 = 1 mod 2^32.
    let a = Tensor::from_vec(vec![i32::MAX, i32::MAX], &[1, 2]).unwrap();
    let b = Tensor::from_vec(vec![i32::MAX, 1], &[2, 1]).unwrap();
    assert_eq!(
        a.matmul(&b).unwrap().to_vec(),
        vec![i32::MAX.wrapping_mul(i32::MAX).wrapping_add(i32::MAX)]
    );
    // Large enough for several blocks and threads; transposed and narrowed operands.
    let (m, k, n) = (150, 300, 270);
    let base = Tensor::from_vec(
        (0..(k + 3) * m).map(|i| mix(i as u64) as i64).collect(),
        &[k + 3, m],
    )
    .unwrap();
    let a = base.narrow(0, 2, k).unwrap().t().unwrap(); // [m, k], transposed and offset
    let bb = Tensor::from_vec(
        (0..k * (n + 5)).map(|i| mix(!(i as u64)) as i64).collect(),
        &[k, n + 5],
    )
    .unwrap();
    let b = bb.narrow(1, 5, n).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let c = pool.install(|| a.matmul(&b).unwrap());
    let (av, bv) = (a.to_vec(), b.to_vec());
    for &(i, j) in &[(0, 0), (149, 269), (77, 5), (3, 200)] {
        let mut s = 0i64;
        for p in 0..k {
            s = s.wrapping_add(av[i * k + p].wrapping_mul(bv[p * n + j]));
        }
        assert_eq!(c.get(&[i, j]).unwrap(), s, "({i}, {j})");
    }
    assert_eq!(
        c.to_vec(),
        a.matmul(&b).unwrap().to_vec(),
        "thread count changed the result"
    );
    // matmul_into accumulates with wrapping; k == 0 gives zeros.
    let mut out = Tensor::<i32>::zeros(&[2, 2]).unwrap().t().unwrap();
    let x = Tensor::from_vec(vec![1i32, 2, 3, 4], &[2, 2]).unwrap();
    x.matmul_into(&x, &mut out, false).unwrap();
    x.matmul_into(&x, &mut out, true).unwrap();
    assert_eq!(out.to_vec(), vec![14, 20, 30, 44]);
    let z = Tensor::<i64>::zeros(&[3, 0]).unwrap();
    assert_eq!(
        z.matmul(&Tensor::zeros(&[0, 2]).unwrap()).unwrap().to_vec(),
        vec![0; 6]
    );
}
