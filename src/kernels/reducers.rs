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
    type Acc: Copy + Send + Sync;
    /// The result element type.
    type Out: Element;

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
        if LARGEST {
            T::LOWEST
        } else {
            T::HIGHEST
        }
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
        if a_wins {
            a
        } else {
            b
        }
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
