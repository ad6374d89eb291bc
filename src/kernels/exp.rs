//! `e^x` that vectorises: the exponential inside softmax, log-softmax and logsumexp.
//!
//! `f32::exp` is a call into the C library, which stops the compiler from vectorising a loop
//! around it. [`exp_nonpos_f32`] is the same function for the arguments softmax needs
//! (`x <= 0`) written in plain, branch-free `f32` arithmetic (Cody-Waite range reduction and
//! Cephes' minimax polynomial), so a loop of it becomes SIMD code. It is accurate to about
//! 2 ulp, gives subnormal results where they are due, `0` below about `-103.97`, and NaN for
//! NaN. (The tests check it, and the full-range version with overflow to `+inf`, against the
//! C library.)
//!
//! `f64` keeps the C library's `exp` ([`exp_acc_nonpos`] dispatches on the type): nothing in
//! the crate needs a fast `f64` exponential, and a polynomial of the precision `f64` deserves
//! costs twice as many terms.
//!
//! With `FMA = true` the polynomial uses fused multiply-adds (`mul_add`): one instruction
//! inside functions compiled with the `fma` target feature (see [`has_avx2_fma`]), a call to
//! the C library's `fmaf` elsewhere (the same bits, slower). Softmax uses the fused variant on
//! every path, so its AVX2 and portable paths agree bit for bit (Note [canonical order]);
//! logsumexp's reducer uses the unfused one on every path.

use num_traits::Float;

/// `log2(e)`.
const LOG2E: f32 = std::f32::consts::LOG2_E;
/// `ln 2` split in two: `LN2_HI` has few significant bits, so `n * LN2_HI` is exact for the
/// `n` used here (|n| <= 150) and the reduction `x - n ln 2` loses nothing (Cody-Waite).
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;
/// `1.5 * 2^23`: adding it rounds a float of magnitude below `2^22` to an integer (round to
/// nearest even), and the integer is then the low bits of the sum's representation.
const ROUND: f32 = 12_582_912.0;
/// Above this, `e^x` overflows `f32`.
const MAX_ARG: f32 = 88.722_84;
/// Below this, `e^x` rounds to 0 (under half the smallest subnormal, `2^-150`).
const MIN_ARG: f32 = -104.0;

pub(crate) use super::dispatch::has_avx2_fma;

/// `a * b + c`, fused when `FMA`.
#[inline(always)]
pub(crate) fn mul_add<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

/// `e^x` for `f32`, branch-free; see the [module docs](self). (The kernels only need
/// [`exp_nonpos_f32`] so far; this full version is what the tests check it against.)
#[cfg(test)]
#[inline(always)]
pub(crate) fn exp_f32<const FMA: bool>(x: f32) -> f32 {
    exp_core::<FMA, true>(x)
}

/// `e^x` for `x <= 0` (or NaN, which gives NaN): `exp_f32` without the overflow handling,
/// a few instructions fewer. Softmax's exponentials all have such arguments (`x - max`).
#[inline(always)]
pub(crate) fn exp_nonpos_f32<const FMA: bool>(x: f32) -> f32 {
    exp_core::<FMA, false>(x)
}

/// `e^x`, with the handling of large arguments only if `LARGE`.
#[inline(always)]
fn exp_core<const FMA: bool, const LARGE: bool>(x: f32) -> f32 {
    // Clamp (NaN falls through both comparisons, and then through everything as NaN).
    let xc = if x < MIN_ARG { MIN_ARG } else { x };
    let xc = if LARGE && xc > MAX_ARG { MAX_ARG } else { xc };
    // x = n ln 2 + r, |r| <= ln 2 / 2 (plus a rounding step).
    let t = mul_add::<FMA>(xc, LOG2E, ROUND);
    let n = t - ROUND;
    let r = mul_add::<FMA>(-n, LN2_LO, mul_add::<FMA>(-n, LN2_HI, xc));
    // e^r on [-ln 2 / 2, ln 2 / 2]: Cephes expf's polynomial.
    let z = r * r;
    let mut p = 1.987_569_2e-4;
    for c in [
        1.398_2e-3,
        8.333_452e-3,
        4.166_579_6e-2,
        1.666_666_5e-1,
        0.5,
    ] {
        p = mul_add::<FMA>(p, r, c);
    }
    let p = mul_add::<FMA>(p, z, r) + 1.0;
    // 2^n as two factors 2^(n/2) and 2^(n - n/2), each a normal float (|n| <= 150), so
    // results that are subnormal are rounded once, at the last product.
    let ni = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    let n1 = ni >> 1;
    let n2 = ni - n1;
    let s1 = f32::from_bits(((n1 + 127) as u32) << 23);
    let s2 = f32::from_bits(((n2 + 127) as u32) << 23);
    let y = p * s1 * s2;
    // A NaN argument went through the clamps unchanged and made every float step NaN.
    if LARGE && x > MAX_ARG {
        f32::INFINITY
    } else {
        y
    }
}

/// `e^x` for `x <= 0` or NaN in an accumulator type: [`exp_nonpos_f32`] for `f32`, the C
/// library's `exp` otherwise.
#[inline(always)]
pub(crate) fn exp_acc_nonpos<A: Float, const FMA: bool>(x: A) -> A {
    on_f32(x, exp_nonpos_f32::<FMA>)
}

/// `f(x)` if `A` is `f32`, else the C library's `exp`.
#[inline(always)]
fn on_f32<A: Float>(x: A, f: impl Fn(f32) -> f32) -> A {
    if std::mem::size_of::<A>() == 4 {
        // `A` is `f32` here (the only 4-byte `Float` the crate uses as an accumulator); the
        // conversions are identities that compile away.
        match x.to_f32() {
            Some(v) => A::from(f(v)).unwrap_or_else(A::nan),
            None => A::nan(),
        }
    } else {
        x.exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units in the last place between two finite positive floats.
    fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    #[test]
    #[cfg_attr(miri, ignore = "140K exp evaluations: minutes under Miri")]
    fn matches_the_c_library_within_two_ulp() {
        let mut worst = 0;
        let mut x = -103.0f32;
        while x < 88.7 {
            let (got, want) = (exp_f32::<false>(x), (x as f64).exp() as f32);
            worst = worst.max(ulps(got, want));
            x += 0.001_37;
        }
        assert!(worst <= 2, "worst error {worst} ulp");
        let mut x = -103.0f32;
        while x <= 0.0 {
            assert_eq!(exp_nonpos_f32::<false>(x), exp_f32::<false>(x));
            x += 0.0173;
        }
        assert_eq!(exp_nonpos_f32::<false>(f32::NEG_INFINITY), 0.0);
        assert!(exp_nonpos_f32::<false>(f32::NAN).is_nan());
        // The fused variant (here through the library's `fmaf`) is as accurate.
        let mut x = -100.0f32;
        while x < 88.0 {
            assert!(
                ulps(exp_f32::<true>(x), (x as f64).exp() as f32) <= 2,
                "exp({x})"
            );
            x += 0.0731;
        }
        for x in [0.0f32, -0.0, 1e-8, -1e-8, 0.5, -0.5, 1.0, 10.0, -10.0, 80.0] {
            assert!(
                ulps(exp_f32::<false>(x), (x as f64).exp() as f32) <= 1,
                "exp({x})"
            );
        }
        assert_eq!(exp_f32::<false>(0.0), 1.0);
    }

    #[test]
    fn edges_subnormals_infinities_and_nan() {
        assert_eq!(exp_f32::<false>(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32::<false>(-104.5), 0.0);
        assert_eq!(exp_f32::<false>(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32::<false>(89.0), f32::INFINITY);
        assert!(exp_f32::<false>(88.72).is_finite());
        assert!(exp_f32::<false>(f32::NAN).is_nan());
        // Subnormal results: within one subnormal step of the correctly rounded value.
        for x in [-88.0f32, -95.0, -100.0, -103.0] {
            let (got, want) = (exp_f32::<false>(x), (x as f64).exp() as f32);
            assert!(got.is_subnormal() || x > -87.4, "exp({x}) = {got}");
            assert!(ulps(got, want) <= 1, "exp({x}) = {got}, want {want}");
        }
    }

    #[test]
    fn dispatch_by_type() {
        assert_eq!(exp_acc_nonpos::<_, false>(-1.0f32), exp_f32::<false>(-1.0));
        assert_eq!(exp_acc_nonpos::<_, false>(-1.0f64), (-1.0f64).exp());
    }
}
