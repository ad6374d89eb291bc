//! What a reduction accumulates: sum, product, mean, max, min, argmax, argmin.
//!
//! A [`Reducer`] folds elements into an accumulator and combines accumulators. The reduction
//! kernel folds elements in an order fixed by the plan (independent of threads) and combines
//! partial accumulators along a fixed tree, so every reducer here gives the same result for
//! any number of threads. Max, min and the arg-reductions are moreover independent of the
//! order altogether: NaN wins (the first NaN for the arg-reductions), and ties go to the
//! smallest index.

use crate::element::Element;
use crate::scalar::Numeric;

/// A fold over elements of type `T`; see the [module docs](self).
pub(crate) trait Reducer<T: Element>: Sync {
    /// The running state.
    type Acc: Copy + Send + Sync + 'static;
    /// The result element type.
    type Out: Element;
    /// Whether `identity` is zero, `fold(acc, x, _)` is `acc + x` (once `x` is in `Acc`) and
    /// `combine(a, b)` is `a + b`: then a kernel may fold with vector additions of its own,
    /// in the same order, where `T` and `Acc` are the same float type.
    const ADDS: bool = false;

    /// The state before any element (never finished: empty reductions are handled before).
    fn identity(&self) -> Self::Acc;
    /// Adds element `x`, which sits at position `index` among the reduced elements.
    fn fold(&self, acc: Self::Acc, x: T, index: usize) -> Self::Acc;
    /// Merges two states (`a` covering earlier positions than `b`).
    fn combine(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// The result from the state of `count` elements.
    fn finish(&self, acc: Self::Acc, count: usize) -> Self::Out;
}

/// Sum, accumulated in [`Numeric::Acc`] (wrapping for integers).
pub(crate) struct Sum;

impl<T: Numeric> Reducer<T> for Sum {
    type Acc = T::Acc;
    type Out = T;
    const ADDS: bool = true;

    #[inline(always)]
    fn identity(&self) -> T::Acc {
        T::zero().to_acc()
    }
    #[inline(always)]
    fn fold(&self, acc: T::Acc, x: T, _: usize) -> T::Acc {
        T::acc_add(acc, x.to_acc())
    }
    #[inline(always)]
    fn combine(&self, a: T::Acc, b: T::Acc) -> T::Acc {
        T::acc_add(a, b)
    }
    #[inline(always)]
    fn finish(&self, acc: T::Acc, _: usize) -> T {
        T::from_acc(acc)
    }
}

/// Mean: the sum divided by the count ([`Numeric::acc_mean`]).
pub(crate) struct Mean;

/// Accumulates exactly as [`Sum`]; only `finish` differs.
impl<T: Numeric> Reducer<T> for Mean {
    type Acc = T::Acc;
    type Out = T;
    const ADDS: bool = true;

    #[inline(always)]
    fn identity(&self) -> T::Acc {
        <Sum as Reducer<T>>::identity(&Sum)
    }
    #[inline(always)]
    fn fold(&self, acc: T::Acc, x: T, i: usize) -> T::Acc {
        Sum.fold(acc, x, i)
    }
    #[inline(always)]
    fn combine(&self, a: T::Acc, b: T::Acc) -> T::Acc {
        <Sum as Reducer<T>>::combine(&Sum, a, b)
    }
    #[inline(always)]
    fn finish(&self, acc: T::Acc, count: usize) -> T {
        T::acc_mean(acc, count)
    }
}

/// Product, accumulated in [`Numeric::Acc`] (wrapping for integers).
pub(crate) struct Prod;

impl<T: Numeric> Reducer<T> for Prod {
    type Acc = T::Acc;
    type Out = T;

    #[inline(always)]
    fn identity(&self) -> T::Acc {
        T::one().to_acc()
    }
    #[inline(always)]
    fn fold(&self, acc: T::Acc, x: T, _: usize) -> T::Acc {
        T::acc_mul(acc, x.to_acc())
    }
    #[inline(always)]
    fn combine(&self, a: T::Acc, b: T::Acc) -> T::Acc {
        T::acc_mul(a, b)
    }
    #[inline(always)]
    fn finish(&self, acc: T::Acc, _: usize) -> T {
        T::from_acc(acc)
    }
}

/// Maximum (`LARGEST = true`) or minimum, NaN-propagating.
pub(crate) struct Extreme<const LARGEST: bool>;

impl<T: Numeric, const LARGEST: bool> Reducer<T> for Extreme<LARGEST> {
    type Acc = T;
    type Out = T;

    #[inline(always)]
    fn identity(&self) -> T {
        if LARGEST { T::LOWEST } else { T::HIGHEST }
    }
    #[inline(always)]
    fn fold(&self, acc: T, x: T, _: usize) -> T {
        if LARGEST {
            acc.elem_max(x)
        } else {
            acc.elem_min(x)
        }
    }
    #[inline(always)]
    fn combine(&self, a: T, b: T) -> T {
        self.fold(a, b, 0)
    }
    #[inline(always)]
    fn finish(&self, acc: T, _: usize) -> T {
        acc
    }
}

/// Index of the maximum (`LARGEST = true`) or minimum: the first NaN if there is one, else
/// the first position holding the extreme value. Reported as `i64` (PyTorch's index type).
pub(crate) struct ArgExtreme<const LARGEST: bool>;

impl<T: Numeric, const LARGEST: bool> Reducer<T> for ArgExtreme<LARGEST> {
    type Acc = (T, usize);
    type Out = i64;

    #[inline(always)]
    fn identity(&self) -> (T, usize) {
        (if LARGEST { T::LOWEST } else { T::HIGHEST }, usize::MAX)
    }
    #[inline(always)]
    fn fold(&self, acc: (T, usize), x: T, index: usize) -> (T, usize) {
        self.combine(acc, (x, index))
    }
    #[inline(always)]
    fn combine(&self, a: (T, usize), b: (T, usize)) -> (T, usize) {
        let (an, bn) = (a.0.elem_is_nan(), b.0.elem_is_nan());
        let a_wins = if an || bn {
            an && (!bn || a.1 < b.1)
        } else if a.0 == b.0 {
            a.1 < b.1
        } else {
            (a.0 > b.0) == LARGEST
        };
        if a_wins { a } else { b }
    }
    #[inline(always)]
    fn finish(&self, acc: (T, usize), _: usize) -> i64 {
        // Positions are below the element count, which fits in isize (Layout invariant 2).
        acc.1 as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold_all<T: Element, R: Reducer<T>>(r: &R, xs: &[T]) -> R::Out {
        let acc = xs
            .iter()
            .enumerate()
            .fold(r.identity(), |a, (i, &x)| r.fold(a, x, i));
        r.finish(acc, xs.len())
    }

    #[test]
    fn arg_reductions_prefer_nan_then_first_index() {
        let argmax = ArgExtreme::<true>;
        assert_eq!(fold_all(&argmax, &[1.0f32, 3.0, 3.0, 2.0]), 1);
        assert_eq!(fold_all(&argmax, &[1.0f32, f32::NAN, 3.0, f32::NAN]), 1);
        assert_eq!(fold_all(&argmax, &[f32::NEG_INFINITY; 3]), 0);
        assert_eq!(fold_all(&ArgExtreme::<false>, &[4i8, -2, 7, -2]), 1);
        // Order independence: combining in reverse gives the same answer.
        let parts = [(3.0f32, 5usize), (3.0, 2), (f32::NAN, 9), (f32::NAN, 4)];
        let fwd = parts
            .iter()
            .fold(argmax.identity(), |a, &b| argmax.combine(a, b));
        let rev = parts
            .iter()
            .rev()
            .fold(argmax.identity(), |a, &b| argmax.combine(b, a));
        assert_eq!(fwd.1, 4);
        assert_eq!(rev.1, 4);
    }

    #[test]
    fn folds() {
        assert_eq!(fold_all(&Sum, &[250u8, 10]), 4);
        assert_eq!(fold_all(&Prod, &[2i32, -3, 4]), -24);
        assert_eq!(fold_all(&Mean, &[1.0f64, 2.0]), 1.5);
        assert!(fold_all(&Extreme::<true>, &[1.0f32, f32::NAN, 2.0]).is_nan());
        assert_eq!(fold_all(&Extreme::<false>, &[3u16, 1, 2]), 1);
    }
}

// ---------------------------------------------------------------------------------------------
// Reducers of `Tensor`'s statistics (src/tensor/stats.rs): logsumexp, norms, non-zero tests
// and counts, sums in a wider type. (Softmax and variance have kernels of their own:
// src/kernels/softmax/ and moments.rs.)
// ---------------------------------------------------------------------------------------------

use num_traits::{AsPrimitive, Float};

use super::softmax::lse_combine;

/// Log of the sum of exponentials, online: the state is `(max, sum of e^(x - max))` in the
/// compute type `C` (`f32` for `f32`, `f16`, `bf16`; `f64` for `f64`), updated with one
/// exponential per element and rescaled whenever the max grows; states combine associatively
/// ([`lse_combine`]), so the reduction kernel's tree and lanes apply. The result
/// `max + ln(sum)` is formed in `f64`.
///
/// Over no elements, or if every element is `-inf`, the result is `-inf`; a `+inf` element
/// makes it `+inf`, a NaN NaN.
pub(crate) struct LogSumExp<C>(pub(crate) std::marker::PhantomData<C>);

impl<T, C> Reducer<T> for LogSumExp<C>
where
    T: Element + Float,
    C: Float + Send + Sync + 'static,
{
    type Acc = (C, C);
    type Out = T;

    #[inline(always)]
    fn identity(&self) -> (C, C) {
        (C::neg_infinity(), C::zero())
    }
    #[inline(always)]
    fn fold(&self, acc: (C, C), x: T, _: usize) -> (C, C) {
        lse_combine::<_, false>(acc, (C::from(x).unwrap_or_else(C::nan), C::one()))
    }
    #[inline(always)]
    fn combine(&self, a: (C, C), b: (C, C)) -> (C, C) {
        lse_combine::<_, false>(a, b)
    }
    #[inline]
    fn finish(&self, acc: (C, C), _: usize) -> T {
        let (m, s) = (
            acc.0.to_f64().unwrap_or(f64::NAN),
            acc.1.to_f64().unwrap_or(f64::NAN),
        );
        // `+inf` has sum 1 relative to itself, and `-inf` everywhere a positive sum too, so
        // both come out as themselves.
        T::from(m + s.ln()).unwrap_or_else(T::nan)
    }
}

/// Sum of `|x|` in [`Numeric::Acc`] (the L1 norm).
pub(crate) struct AbsSum;

impl<T: Numeric + Float> Reducer<T> for AbsSum {
    type Acc = T::Acc;
    type Out = T;

    #[inline(always)]
    fn identity(&self) -> T::Acc {
        T::zero().to_acc()
    }
    #[inline(always)]
    fn fold(&self, acc: T::Acc, x: T, _: usize) -> T::Acc {
        T::acc_add(acc, x.elem_abs().to_acc())
    }
    #[inline(always)]
    fn combine(&self, a: T::Acc, b: T::Acc) -> T::Acc {
        T::acc_add(a, b)
    }
    #[inline(always)]
    fn finish(&self, acc: T::Acc, _: usize) -> T {
        T::from_acc(acc)
    }
}

/// Square root of the sum of `x^2`, accumulated in the compute type `C` (as [`LogSumExp`];
/// no rescaling, so, as in PyTorch, an `f32` L2 norm overflows once the sum of squares
/// exceeds `f32::MAX`).
pub(crate) struct SquareSum<C>(pub(crate) std::marker::PhantomData<C>);

impl<T, C> Reducer<T> for SquareSum<C>
where
    T: Element + Float,
    C: Float + Send + Sync + 'static,
{
    type Acc = C;
    type Out = T;

    #[inline(always)]
    fn identity(&self) -> C {
        C::zero()
    }
    #[inline(always)]
    fn fold(&self, acc: C, x: T, _: usize) -> C {
        let a = C::from(x).unwrap_or_else(C::nan);
        acc + a * a
    }
    #[inline(always)]
    fn combine(&self, a: C, b: C) -> C {
        a + b
    }
    #[inline(always)]
    fn finish(&self, acc: C, _: usize) -> T {
        T::from(acc.sqrt()).unwrap_or_else(T::nan)
    }
}

/// Largest `|x|`, NaN-propagating (the max norm).
pub(crate) struct AbsMax;

impl<T: Numeric> Reducer<T> for AbsMax {
    type Acc = T;
    type Out = T;

    #[inline(always)]
    fn identity(&self) -> T {
        T::zero()
    }
    #[inline(always)]
    fn fold(&self, acc: T, x: T, _: usize) -> T {
        acc.elem_max(x.elem_abs())
    }
    #[inline(always)]
    fn combine(&self, a: T, b: T) -> T {
        a.elem_max(b)
    }
    #[inline(always)]
    fn finish(&self, acc: T, _: usize) -> T {
        acc
    }
}

/// Whether any (`ANY = true`) or every element is non-zero, as a `u8` 0 or 1. An element is
/// zero when it equals the all-zero bit pattern's value (so `-0.0` is zero and NaN is not).
pub(crate) struct NonzeroTest<const ANY: bool>;

impl<T: Element, const ANY: bool> Reducer<T> for NonzeroTest<ANY> {
    type Acc = u8;
    type Out = u8;

    #[inline(always)]
    fn identity(&self) -> u8 {
        u8::from(!ANY)
    }
    #[inline(always)]
    fn fold(&self, acc: u8, x: T, _: usize) -> u8 {
        let nz = u8::from(x != T::zeroed());
        if ANY { acc | nz } else { acc & nz }
    }
    #[inline(always)]
    fn combine(&self, a: u8, b: u8) -> u8 {
        if ANY { a | b } else { a & b }
    }
    #[inline(always)]
    fn finish(&self, acc: u8, _: usize) -> u8 {
        acc
    }
}

/// Number of non-zero elements (as [`NonzeroTest`] decides), counted in `u64` (it cannot
/// wrap: element counts fit in `isize`), reported as `i64`.
pub(crate) struct CountNonzero;

impl<T: Element> Reducer<T> for CountNonzero {
    type Acc = u64;
    type Out = i64;

    #[inline(always)]
    fn identity(&self) -> u64 {
        0
    }
    #[inline(always)]
    fn fold(&self, acc: u64, x: T, _: usize) -> u64 {
        acc + u64::from(x != T::zeroed())
    }
    #[inline(always)]
    fn combine(&self, a: u64, b: u64) -> u64 {
        a + b
    }
    #[inline(always)]
    fn finish(&self, acc: u64, _: usize) -> i64 {
        acc as i64
    }
}

/// Sum of the elements converted to `U` (Rust's `as`), accumulated as [`Sum`] accumulates
/// `U`: e.g. a `u8` mask summed in `i64` without wrapping at 256.
pub(crate) struct SumAs<U>(pub(crate) std::marker::PhantomData<U>);

impl<T, U> Reducer<T> for SumAs<U>
where
    T: Element + AsPrimitive<U>,
    U: Numeric,
{
    type Acc = U::Acc;
    type Out = U;

    #[inline(always)]
    fn identity(&self) -> U::Acc {
        U::zero().to_acc()
    }
    #[inline(always)]
    fn fold(&self, acc: U::Acc, x: T, _: usize) -> U::Acc {
        U::acc_add(acc, x.as_().to_acc())
    }
    #[inline(always)]
    fn combine(&self, a: U::Acc, b: U::Acc) -> U::Acc {
        U::acc_add(a, b)
    }
    #[inline(always)]
    fn finish(&self, acc: U::Acc, _: usize) -> U {
        U::from_acc(acc)
    }
}

#[cfg(test)]
mod stats_tests {
    use super::*;
    use std::marker::PhantomData;

    fn fold_all<T: Element, R: Reducer<T>>(r: &R, xs: &[T]) -> R::Out {
        let acc = xs
            .iter()
            .enumerate()
            .fold(r.identity(), |a, (i, &x)| r.fold(a, x, i));
        r.finish(acc, xs.len())
    }

    /// Folds `xs` in two halves and combines them, as the kernel's tree does.
    fn fold_split<T: Element, R: Reducer<T>>(r: &R, xs: &[T], at: usize) -> R::Out {
        let part = |s: &[T]| s.iter().fold(r.identity(), |a, &x| r.fold(a, x, 0));
        let acc = r.combine(part(&xs[..at]), part(&xs[at..]));
        r.finish(acc, xs.len())
    }

    #[test]
    fn logsumexp_is_stable_and_associative() {
        let lse = LogSumExp::<f64>(PhantomData);
        let xs = [1000.0f64, 999.0, 1001.0, -1000.0];
        let want = 1001.0 + (1.0f64 + (-1.0f64).exp() + (-2.0f64).exp()).ln();
        for at in 0..=xs.len() {
            let got = fold_split(&lse, &xs, at);
            assert!((got - want).abs() < 1e-12, "split at {at}: {got}");
        }
        let lse32 = LogSumExp::<f32>(PhantomData);
        assert_eq!(fold_all(&lse32, &[] as &[f32]), f32::NEG_INFINITY);
        assert_eq!(fold_all(&lse32, &[f32::NEG_INFINITY; 3]), f32::NEG_INFINITY);
        assert_eq!(fold_all(&lse32, &[f32::NEG_INFINITY, 0.0]), 0.0);
        assert_eq!(fold_all(&lse32, &[1.0f32, f32::INFINITY]), f32::INFINITY);
        assert!(fold_all(&lse32, &[1.0f32, f32::NAN, 2.0]).is_nan());
        assert!(fold_split(&lse32, &[1.0f32, f32::NAN, 2.0], 2).is_nan());
    }

    #[test]
    fn norms_tests_counts_and_wide_sums() {
        assert_eq!(fold_all(&AbsSum, &[1.0f32, -2.0, 3.0]), 6.0);
        assert_eq!(
            fold_all(&SquareSum::<f64>(PhantomData), &[3.0f64, -4.0]),
            5.0
        );
        assert_eq!(fold_all(&AbsMax, &[1.0f32, -7.0, 3.0]), 7.0);
        assert!(fold_all(&AbsMax, &[1.0f32, f32::NAN, 3.0]).is_nan());
        assert_eq!(fold_all(&NonzeroTest::<true>, &[0.0f32, -0.0]), 0);
        assert_eq!(fold_all(&NonzeroTest::<true>, &[0.0f32, f32::NAN]), 1);
        assert_eq!(fold_all(&NonzeroTest::<false>, &[1i8, 2, 0]), 0);
        assert_eq!(fold_all(&NonzeroTest::<false>, &[] as &[u8]), 1);
        assert_eq!(fold_all(&CountNonzero, &[1u8, 0, 5, 0, 9]), 3);
        let wide = SumAs::<i64>(PhantomData);
        assert_eq!(fold_all(&wide, &[255u8; 1000]), 255_000);
        let signed = SumAs::<i32>(PhantomData);
        assert_eq!(fold_all(&signed, &[-1i8; 300]), -300);
    }
}
