//! Property tests of the statistics and scans (`softmax`, `log_softmax`, `logsumexp_dim`,
//! `var_dim`, `std_dim`, `norm_dim`/`norm_all`, `any`/`all`, `count_nonzero`, `sum_all_as`,
//! `max_dim_with_indices`/`min_dim_with_indices`, `cumsum`, `cumprod`): on random views
//! (permuted, flipped, stepped, narrowed, expanded; empty and size-1 dims; 0-dim) every op
//! equals a naive loop over the view's elements in row-major order. Then accuracy cases
//! (large logits, data far from zero, long half-precision sums, a mask past 2^20 ones),
//! every error, output layouts, zero operand copies and thread-count independence.
//!
//! Bounded: `PROPTEST_CASES` (default 64) cases per property, at most 4 dims of size <= 5.

use crate::common;

use common::{Recipe, all_indices, arb_recipe, arb_shape, build, config, ravel};
use half::f16;
use proptest::prelude::*;
use stridex::{Element, Error, Tensor, audit};

/// The dim an op is asked for: any dim of the view, or 0 for a 0-dim view (PyTorch's rule).
fn pick_dim(shape: &[usize], sel: usize) -> usize {
    if shape.is_empty() {
        0
    } else {
        sel % shape.len()
    }
}

/// Row-major positions of each slice along `dim`, slices in row-major order of the other
/// dims (a 0-dim view is one slice of one element).
fn slices(shape: &[usize], dim: usize) -> Vec<Vec<usize>> {
    if shape.is_empty() {
        return vec![vec![0]];
    }
    let mut kept = shape.to_vec();
    kept[dim] = 1;
    all_indices(&kept)
        .iter()
        .map(|idx| {
            (0..shape[dim])
                .map(|i| {
                    let mut j = idx.clone();
                    j[dim] = i;
                    ravel(&j, shape)
                })
                .collect()
        })
        .collect()
}

/// The shape of a reduction over `dim` (none for a 0-dim view).
fn reduced_shape(shape: &[usize], dim: usize, keepdim: bool) -> Vec<usize> {
    let mut s = shape.to_vec();
    if !s.is_empty() {
        if keepdim {
            s[dim] = 1;
        } else {
            s.remove(dim);
        }
    }
    s
}

/// A value per storage position: spread over about [-5, 5], varied by `seed`.
fn float_at(seed: u32) -> impl Fn(usize) -> f64 {
    move |i| ((i as u64 * 7919 + seed as u64 * 104_729) % 1009) as f64 / 100.0 - 5.0
}

/// `got` is within `atol + rtol * |want|` of `want`, or both are NaN, or both the same
/// infinity.
fn close(got: f64, want: f64, rtol: f64, atol: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= atol + rtol * want.abs()
}

fn check_close(
    what: &str,
    got: &[f64],
    want: &[f64],
    rtol: f64,
    atol: f64,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), want.len(), "{}: lengths", what);
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        prop_assert!(
            close(g, w, rtol, atol),
            "{}: element {}: {} vs {}",
            what,
            i,
            g,
            w
        );
    }
    Ok(())
}

/// Element types the float properties run on, with their tolerances.
trait Float: Element + stridex::FloatElement {
    const RTOL: f64;
    fn of(v: f64) -> Self;
    fn wide(self) -> f64;
}

impl Float for f32 {
    const RTOL: f64 = 2e-5;
    fn of(v: f64) -> Self {
        v as f32
    }
    fn wide(self) -> f64 {
        self as f64
    }
}

impl Float for f64 {
    const RTOL: f64 = 1e-12;
    fn of(v: f64) -> Self {
        v
    }
    fn wide(self) -> f64 {
        self
    }
}

impl Float for f16 {
    const RTOL: f64 = 4e-3;
    fn of(v: f64) -> Self {
        f16::from_f64(v)
    }
    fn wide(self) -> f64 {
        self.to_f64()
    }
}

fn wide_vec<T: Float>(t: &Tensor<T>) -> Vec<f64> {
    t.to_vec().into_iter().map(Float::wide).collect()
}

/// The softmax (or log-softmax) of each slice, by the definition, in `f64`.
fn naive_softmax(vals: &[f64], shape: &[usize], dim: usize, log: bool) -> Vec<f64> {
    let mut out = vec![0.0; vals.len()];
    for s in slices(shape, dim) {
        let m = s.iter().fold(f64::NEG_INFINITY, |m, &p| m.max(vals[p]));
        let sum: f64 = s.iter().map(|&p| (vals[p] - m).exp()).sum();
        for &p in &s {
            out[p] = match log {
                true => vals[p] - m - sum.ln(),
                false => (vals[p] - m).exp() / sum,
            };
        }
    }
    out
}

fn check_softmax<T: Float>(
    shape: &[usize],
    r: &Recipe,
    sel: usize,
    seed: u32,
    shift: f64,
) -> Result<(), TestCaseError> {
    let f = float_at(seed);
    let b = build(shape, r, |i| T::of(f(i) + shift), true);
    let vals: Vec<f64> = b.values().into_iter().map(Float::wide).collect();
    let dim = pick_dim(shape, sel);
    for log in [false, true] {
        let (got, report) = audit::record(|| match log {
            true => b.t.log_softmax(dim),
            false => b.t.softmax(dim),
        });
        let got = got.map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert_eq!(report.count(), 0, "no operand copy");
        prop_assert_eq!(got.shape(), shape);
        // Laid out by the elementwise rule, as a map of the input would be.
        let like = b.t.map(|x| x);
        prop_assert_eq!(got.strides(), like.strides());
        let want = naive_softmax(&vals, shape, dim, log);
        let atol = if log {
            T::RTOL * (1.0 + shift.abs())
        } else {
            T::RTOL * 0.1
        };
        check_close(
            &format!("log {log} dim {dim}"),
            &wide_vec(&got),
            &want,
            T::RTOL,
            atol,
        )?;
    }
    let l =
        b.t.logsumexp_dim(dim, true)
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    prop_assert_eq!(l.shape(), &reduced_shape(shape, dim, true)[..]);
    let want: Vec<f64> = slices(shape, dim)
        .iter()
        .map(|s| {
            let m = s.iter().fold(f64::NEG_INFINITY, |m, &p| m.max(vals[p]));
            match m == f64::NEG_INFINITY {
                true => m,
                false => m + s.iter().map(|&p| (vals[p] - m).exp()).sum::<f64>().ln(),
            }
        })
        .collect();
    let atol = T::RTOL * (1.0 + shift.abs());
    check_close("logsumexp", &wide_vec(&l), &want, T::RTOL, atol)?;
    let flat =
        b.t.logsumexp_dim(dim, false)
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    prop_assert_eq!(flat.shape(), &reduced_shape(shape, dim, false)[..]);
    Ok(())
}

/// Variance of each slice by the two-pass definition in `f64`: NaN (or inf) when the count
/// is at most the correction, as PyTorch gives.
fn naive_var(vals: &[f64], shape: &[usize], dim: usize, correction: usize) -> Vec<f64> {
    slices(shape, dim)
        .iter()
        .map(|s| {
            let n = s.len() as f64;
            let mean = s.iter().map(|&p| vals[p]).sum::<f64>() / n;
            let m2: f64 = match s.is_empty() {
                true => 0.0,
                false => s.iter().map(|&p| (vals[p] - mean) * (vals[p] - mean)).sum(),
            };
            m2 / (n - correction as f64).max(0.0)
        })
        .collect()
}

fn check_var<T: Float>(
    shape: &[usize],
    r: &Recipe,
    sel: usize,
    seed: u32,
    correction: usize,
) -> Result<(), TestCaseError> {
    let f = float_at(seed);
    let b = build(shape, r, |i| T::of(f(i)), true);
    let vals: Vec<f64> = b.values().into_iter().map(Float::wide).collect();
    let dim = pick_dim(shape, sel);
    let want = naive_var(&vals, shape, dim, correction);
    for keepdim in [false, true] {
        let (v, report) = audit::record(|| b.t.var_dim(dim, keepdim, correction));
        let v = v.map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert_eq!(report.count(), 0, "no operand copy");
        prop_assert_eq!(v.shape(), &reduced_shape(shape, dim, keepdim)[..]);
        // Laid out as every reduction is (the sum's rule).
        if !shape.is_empty() {
            let sum = b.t.sum_dim(dim, keepdim).unwrap();
            prop_assert_eq!(v.strides(), sum.strides());
        }
        // The data span about 10, so an absolute error of RTOL matters only near 0.
        check_close("var", &wide_vec(&v), &want, T::RTOL, T::RTOL)?;
        let s =
            b.t.std_dim(dim, keepdim, correction)
                .map_err(|e| TestCaseError::fail(format!("{e}")))?;
        let want_std: Vec<f64> = want.iter().map(|v| v.sqrt()).collect();
        check_close(
            "std",
            &wide_vec(&s),
            &want_std,
            T::RTOL,
            T::RTOL.sqrt() * 0.1,
        )?;
    }
    Ok(())
}

/// Inclusive prefix folds of each slice in the accumulator type, then rounded: what `cumsum`
/// and `cumprod` promise.
fn naive_scan<T: Copy, A: Copy>(
    vals: &[T],
    shape: &[usize],
    dim: usize,
    to: impl Fn(T) -> A,
    op: impl Fn(A, A) -> A,
    from: impl Fn(A) -> T,
) -> Vec<T> {
    let mut out = vals.to_vec();
    for s in slices(shape, dim) {
        let mut acc: Option<A> = None;
        for &p in &s {
            let v = to(vals[p]);
            let a = match acc {
                None => v,
                Some(a) => op(a, v),
            };
            acc = Some(a);
            out[p] = from(a);
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn check_scans<T, A>(
    shape: &[usize],
    r: &Recipe,
    sel: usize,
    val: impl Fn(usize) -> T,
    to: impl Fn(T) -> A + Copy,
    add: impl Fn(A, A) -> A,
    mul: impl Fn(A, A) -> A,
    from: impl Fn(A) -> T + Copy,
) -> Result<(), TestCaseError>
where
    T: Element + stridex::Numeric,
    A: Copy,
{
    let b = build(shape, r, val, true);
    let vals = b.values();
    let dim = pick_dim(shape, sel);
    let (sum, report) = audit::record(|| b.t.cumsum(dim));
    let sum = sum.map_err(|e| TestCaseError::fail(format!("{e}")))?;
    prop_assert_eq!(report.count(), 0, "no operand copy");
    prop_assert_eq!(sum.shape(), shape);
    // Dense in the input's memory order.
    let dense = b.t.layout().dense_like().unwrap();
    prop_assert_eq!(sum.strides(), dense.strides());
    // Bit-exact: the same left-to-right folds in the same type.
    let bits = |v: &[T]| {
        v.iter()
            .map(|x| bytemuck::bytes_of(x).to_vec())
            .collect::<Vec<_>>()
    };
    prop_assert_eq!(
        bits(&sum.to_vec()),
        bits(&naive_scan(&vals, shape, dim, to, add, from))
    );
    let prod =
        b.t.cumprod(dim)
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    prop_assert_eq!(
        bits(&prod.to_vec()),
        bits(&naive_scan(&vals, shape, dim, to, mul, from))
    );
    Ok(())
}

/// Max and min with indices against max_dim/argmax_dim and a naive loop (first NaN, else the
/// first extreme).
fn check_extremes<T: Element + stridex::Numeric>(
    shape: &[usize],
    r: &Recipe,
    sel: usize,
    val: impl Fn(usize) -> T,
) -> Result<(), TestCaseError> {
    let b = build(shape, r, val, true);
    let vals = b.values();
    let dim = pick_dim(shape, sel);
    let empty_dim = !shape.is_empty()
        && shape[dim] == 0
        && shape.iter().product::<usize>() == 0
        && reduced_shape(shape, dim, false).iter().product::<usize>() > 0;
    for keepdim in [false, true] {
        for largest in [true, false] {
            let (got, report) = audit::record(|| match largest {
                true => b.t.max_dim_with_indices(dim, keepdim),
                false => b.t.min_dim_with_indices(dim, keepdim),
            });
            prop_assert_eq!(report.count(), 0, "no operand copy");
            if empty_dim {
                let empty = matches!(got, Err(Error::EmptyReduction { .. }));
                prop_assert!(empty, "empty dim");
                continue;
            }
            let (v, i) = got.map_err(|e| TestCaseError::fail(format!("{e}")))?;
            let rs = reduced_shape(shape, dim, keepdim);
            prop_assert_eq!(v.shape(), &rs[..]);
            prop_assert_eq!(i.shape(), &rs[..]);
            prop_assert_eq!(v.strides(), i.strides());
            let mut want_v = vec![];
            let mut want_i = vec![];
            for s in slices(shape, dim) {
                let mut best = 0;
                for (k, &p) in s.iter().enumerate() {
                    let (x, y) = (vals[p], vals[s[best]]);
                    let better = if y.elem_is_nan() {
                        false
                    } else if x.elem_is_nan() {
                        true
                    } else if largest {
                        x > y
                    } else {
                        x < y
                    };
                    if better {
                        best = k;
                    }
                }
                want_v.push(vals[s[best]]);
                want_i.push(best as i64);
            }
            let same = |a: &T, b: &T| (a.elem_is_nan() && b.elem_is_nan()) || a == b;
            let got_v = v.to_vec();
            prop_assert!(
                got_v.iter().zip(&want_v).all(|(a, b)| same(a, b)),
                "values {:?} vs {:?}",
                got_v,
                want_v
            );
            prop_assert_eq!(i.to_vec(), want_i);
            if largest && !shape.is_empty() {
                let m = b.t.max_dim(dim, keepdim).unwrap().to_vec();
                prop_assert!(m.iter().zip(&got_v).all(|(a, b)| same(a, b)));
                prop_assert_eq!(b.t.argmax_dim(dim, keepdim).unwrap().to_vec(), i.to_vec());
            }
        }
    }
    Ok(())
}

/// Non-zero tests and counts against a naive loop.
fn check_nonzero<T: Element>(
    shape: &[usize],
    r: &Recipe,
    sel: usize,
    val: impl Fn(usize) -> T,
) -> Result<(), TestCaseError> {
    let b = build(shape, r, val, true);
    let vals = b.values();
    let dim = pick_dim(shape, sel);
    let nz = |x: &T| *x != T::zeroed();
    let (any, report) = audit::record(|| b.t.any_dim(dim, false));
    prop_assert_eq!(report.count(), 0, "no operand copy");
    let any = any.map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let all =
        b.t.all_dim(dim, true)
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let count =
        b.t.count_nonzero_dim(dim, false)
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    prop_assert_eq!(any.shape(), &reduced_shape(shape, dim, false)[..]);
    prop_assert_eq!(all.shape(), &reduced_shape(shape, dim, true)[..]);
    let sl = slices(shape, dim);
    let want_any: Vec<u8> = sl
        .iter()
        .map(|s| u8::from(s.iter().any(|&p| nz(&vals[p]))))
        .collect();
    let want_all: Vec<u8> = sl
        .iter()
        .map(|s| u8::from(s.iter().all(|&p| nz(&vals[p]))))
        .collect();
    let want_count: Vec<i64> = sl
        .iter()
        .map(|s| s.iter().filter(|&&p| nz(&vals[p])).count() as i64)
        .collect();
    prop_assert_eq!(any.to_vec(), want_any);
    prop_assert_eq!(all.to_vec(), want_all);
    prop_assert_eq!(count.to_vec(), want_count);
    let total = vals.iter().filter(|x| nz(x)).count();
    prop_assert_eq!(b.t.count_nonzero_all(), total);
    prop_assert_eq!(b.t.any_all(), total > 0);
    prop_assert_eq!(b.t.all_all(), total == vals.len());
    Ok(())
}

/// One random case: a shape, a layout recipe, a dim selector and a value seed.
#[derive(Debug, Clone)]
struct Case {
    shape: Vec<usize>,
    r: Recipe,
    sel: usize,
    seed: u32,
}

fn case() -> impl Strategy<Value = Case> {
    (arb_shape(), arb_recipe(), 0usize..4, any::<u32>()).prop_map(|(shape, r, sel, seed)| Case {
        shape,
        r,
        sel,
        seed,
    })
}

fn check_cumsum_floats(c: &Case) -> Result<(), TestCaseError> {
    let f = float_at(c.seed);
    let (add32, mul32) = (|a: f32, b: f32| a + b, |a: f32, b: f32| a * b);
    let (add64, mul64) = (|a: f64, b: f64| a + b, |a: f64, b: f64| a * b);
    let v32 = |i| (f(i) * 0.3) as f32;
    check_scans(&c.shape, &c.r, c.sel, v32, |x| x, add32, mul32, |a| a)?;
    check_scans(
        &c.shape,
        &c.r,
        c.sel,
        |i| f(i) * 0.3,
        |x| x,
        add64,
        mul64,
        |a| a,
    )?;
    // f16 accumulates in f32 and rounds once per output.
    let v16 = |i| f16::from_f64(f(i) * 0.3);
    check_scans(
        &c.shape,
        &c.r,
        c.sel,
        v16,
        f16::to_f32,
        add32,
        mul32,
        f16::from_f32,
    )
}

fn check_cumsum_integers(c: &Case) -> Result<(), TestCaseError> {
    let s = c.seed as usize;
    let (shape, r, sel) = (&c.shape[..], &c.r, c.sel);
    let v8 = |i: usize| ((i * 37 + s) % 256) as u8;
    check_scans(
        shape,
        r,
        sel,
        v8,
        |x| x,
        u8::wrapping_add,
        u8::wrapping_mul,
        |a| a,
    )?;
    let v32 = |i: usize| {
        (i as i32 - 7)
            .wrapping_mul(100_003)
            .wrapping_add((s % 1000) as i32)
    };
    check_scans(
        shape,
        r,
        sel,
        v32,
        |x| x,
        i32::wrapping_add,
        i32::wrapping_mul,
        |a| a,
    )?;
    let v64 = |i: usize| (i as i64 + 1).wrapping_mul((s % 97) as i64 - 48);
    check_scans(
        shape,
        r,
        sel,
        v64,
        |x| x,
        i64::wrapping_add,
        i64::wrapping_mul,
        |a| a,
    )
}

fn check_sum_all_as(c: &Case) -> Result<(), TestCaseError> {
    let s = c.seed as usize;
    let b = build(&c.shape, &c.r, |i| ((i * 31 + s) % 256) as u8, true);
    let want: i64 = b.values().iter().map(|&x| x as i64).sum();
    let (got, report) = audit::record(|| b.t.sum_all_as::<i64>());
    prop_assert_eq!(report.count(), 0);
    prop_assert_eq!(got, want);
    prop_assert_eq!(b.t.sum_all_as::<u16>() as i64, want % 65536);
    let b = build(&c.shape, &c.r, |i| ((i * 13 + s) % 256) as u8 as i8, true);
    let want: i64 = b.values().iter().map(|&x| x as i64).sum();
    prop_assert_eq!(b.t.sum_all_as::<i64>(), want);
    prop_assert_eq!(b.t.sum_all_as::<f64>(), want as f64);
    Ok(())
}

fn check_norms(c: &Case) -> Result<(), TestCaseError> {
    let f = float_at(c.seed);
    let b = build(&c.shape, &c.r, |i| f(i) as f32, true);
    let vals: Vec<f64> = b.values().iter().map(|&x| x as f64).collect();
    let dim = pick_dim(&c.shape, c.sel);
    let sl = slices(&c.shape, dim);
    let per_slice = |g: &dyn Fn(&[usize]) -> f64| sl.iter().map(|s| g(s)).collect::<Vec<_>>();
    let l1 = per_slice(&|s| s.iter().map(|&p| vals[p].abs()).sum());
    let l2 = per_slice(&|s| s.iter().map(|&p| vals[p] * vals[p]).sum::<f64>().sqrt());
    let got = |ord: f64| {
        let t = b.t.norm_dim(dim, false, ord)?;
        Ok::<_, Error>(t.to_vec().iter().map(|&x| x as f64).collect::<Vec<_>>())
    };
    check_close("l1", &got(1.0).unwrap(), &l1, 1e-5, 1e-5)?;
    check_close("l2", &got(2.0).unwrap(), &l2, 1e-5, 1e-5)?;
    let empty_dim = !c.shape.is_empty() && c.shape[dim] == 0 && !sl.is_empty();
    match got(f64::INFINITY) {
        Ok(max) => {
            prop_assert!(!empty_dim);
            let want = per_slice(&|s| s.iter().fold(0.0, |m: f64, &p| m.max(vals[p].abs())));
            prop_assert_eq!(max, want);
        }
        Err(e) => {
            let empty = matches!(e, Error::EmptyReduction { op: "norm", .. });
            prop_assert!(empty_dim && empty, "{}", e);
        }
    }
    let l1_all: f64 = vals.iter().map(|v| v.abs()).sum();
    let l2_all = vals.iter().map(|v| v * v).sum::<f64>().sqrt();
    prop_assert!(close(b.t.norm_all(2.0).unwrap() as f64, l2_all, 1e-5, 1e-5));
    prop_assert!(close(b.t.norm_all(1.0).unwrap() as f64, l1_all, 1e-5, 1e-5));
    match b.t.norm_all(f64::INFINITY) {
        Ok(m) => {
            let want = vals.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
            prop_assert_eq!(m as f64, want);
        }
        Err(e) => {
            let empty = matches!(e, Error::EmptyReduction { .. });
            prop_assert!(vals.is_empty() && empty, "{}", e);
        }
    }
    Ok(())
}

fn check_extremes_all(c: &Case, nan: bool) -> Result<(), TestCaseError> {
    let s = c.seed as usize;
    let (shape, r, sel) = (&c.shape[..], &c.r, c.sel);
    // Few distinct values, so ties are common.
    let f = |i: usize| match nan && (i + s) % 7 == 3 {
        true => f32::NAN,
        false => ((i * 5 + s) % 4) as f32 - 1.5,
    };
    check_extremes(shape, r, sel, f)?;
    check_extremes(shape, r, sel, |i| ((i * 3 + s) % 5) as i64 - 2)?;
    check_extremes(shape, r, sel, |i| ((i * 11 + s) % 3) as u8)
}

fn check_nonzero_all(c: &Case) -> Result<(), TestCaseError> {
    let s = c.seed as usize;
    let (shape, r, sel) = (&c.shape[..], &c.r, c.sel);
    check_nonzero(shape, r, sel, |i| ((i + s) % 3 == 0) as u8 * 7)?;
    check_nonzero(shape, r, sel, |i| ((i * 7 + s) % 4) as i64 - 1)?;
    // -0.0 is zero, NaN is not.
    check_nonzero(shape, r, sel, |i| {
        [0.0f32, -0.0, f32::NAN, 2.5][(i + s) % 4]
    })
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn softmax_logsoftmax_logsumexp_f32(c in case(), far in any::<bool>()) {
        check_softmax::<f32>(&c.shape, &c.r, c.sel, c.seed, if far { 1000.0 } else { 0.0 })?;
    }

    #[test]
    fn softmax_logsoftmax_logsumexp_f64(c in case(), far in any::<bool>()) {
        check_softmax::<f64>(&c.shape, &c.r, c.sel, c.seed, if far { -1000.0 } else { 0.0 })?;
    }

    #[test]
    fn softmax_logsoftmax_logsumexp_f16(c in case()) {
        check_softmax::<f16>(&c.shape, &c.r, c.sel, c.seed, 0.0)?;
    }

    #[test]
    fn var_std_f32_f64(c in case(), correction in 0usize..=2) {
        check_var::<f32>(&c.shape, &c.r, c.sel, c.seed, correction)?;
        check_var::<f64>(&c.shape, &c.r, c.sel, c.seed, correction)?;
    }

    #[test]
    fn var_std_f16(c in case(), correction in 0usize..=1) {
        check_var::<f16>(&c.shape, &c.r, c.sel, c.seed, correction)?;
    }

    #[test]
    fn cumsum_cumprod_floats(c in case()) {
        check_cumsum_floats(&c)?;
    }

    #[test]
    fn cumsum_cumprod_integers_wrap(c in case()) {
        check_cumsum_integers(&c)?;
    }

    #[test]
    fn max_min_with_indices(c in case(), nan in any::<bool>()) {
        check_extremes_all(&c, nan)?;
    }

    #[test]
    fn any_all_count_nonzero(c in case()) {
        check_nonzero_all(&c)?;
    }

    #[test]
    fn sum_all_as_wider(c in case()) {
        check_sum_all_as(&c)?;
    }

    #[test]
    fn norms(c in case()) {
        check_norms(&c)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Accuracy
// ---------------------------------------------------------------------------------------------

#[test]
fn softmax_of_logits_near_plus_and_minus_1000_sums_to_one() {
    for centre in [1000.0f64, -1000.0] {
        let (rows, cols) = (64, 517);
        let data: Vec<f64> = (0..rows * cols)
            .map(|i| centre + ((i * 7919) % 1013) as f64 / 50.0 - 10.0)
            .collect();
        let a64 = Tensor::from_vec(data.clone(), &[rows, cols]).unwrap();
        let a32 =
            Tensor::from_vec(data.iter().map(|&x| x as f32).collect(), &[rows, cols]).unwrap();
        for (dim, n) in [(1, rows), (0, cols)] {
            let s64 = a64
                .softmax(dim)
                .unwrap()
                .sum_dim(dim, false)
                .unwrap()
                .to_vec();
            let s32 = a32
                .softmax(dim)
                .unwrap()
                .sum_dim(dim, false)
                .unwrap()
                .to_vec();
            assert_eq!((s64.len(), s32.len()), (n, n));
            assert!(
                s64.iter().all(|s| (s - 1.0).abs() < 1e-12),
                "f64 {centre} dim {dim}"
            );
            assert!(
                s32.iter().all(|s| (s - 1.0).abs() < 1e-5),
                "f32 {centre} dim {dim}: {s32:?}"
            );
            // The transposed view takes the other kernel; same answer.
            let t = a32
                .t()
                .unwrap()
                .softmax(1 - dim)
                .unwrap()
                .t()
                .unwrap()
                .to_vec();
            let d = a32.softmax(dim).unwrap().to_vec();
            assert!(t.iter().zip(&d).all(|(a, b)| (a - b).abs() <= 1e-7));
        }
        let ls = a32.log_softmax(1).unwrap();
        let back = ls.exp().sum_dim(1, false).unwrap().to_vec();
        assert!(
            back.iter().all(|s| (s - 1.0).abs() < 1e-5),
            "log_softmax {centre}"
        );
        let lse = a64.logsumexp_dim(1, false).unwrap().to_vec();
        assert!(
            lse.iter()
                .all(|&l| (l - centre).abs() < 20.0 && l.is_finite())
        );
    }
    // All mass on one logit at the top of f32's range: no overflow.
    let a = Tensor::from_vec(vec![3.0e38f32, 0.0, -3.0e38], &[3]).unwrap();
    assert_eq!(a.softmax(0).unwrap().to_vec(), vec![1.0, 0.0, 0.0]);
}

#[test]
fn variance_of_data_with_mean_1e6_is_accurate() {
    let n = 100_003;
    // Spread 1 around 1e6, deterministic.
    let data: Vec<f64> = (0..n)
        .map(|i| 1e6 + (((i * 7919) % 10007) as f64 / 10007.0 - 0.5) * 3.4641)
        .collect();
    let mean = data.iter().sum::<f64>() / n as f64;
    let want = data.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    let t = Tensor::from_vec(data.clone(), &[n]).unwrap();
    let got = t.var_dim(0, false, 1).unwrap().to_vec()[0];
    assert!(((got - want) / want).abs() < 1e-6, "f64 {got} vs {want}");
    // Along both kernels' paths: lines (dim 1) and blocks (dim 0 of the transpose).
    let m = Tensor::from_vec(data[..100_000].to_vec(), &[4, 25_000]).unwrap();
    for (v, t) in [
        (m.var_dim(1, false, 1).unwrap(), m.clone()),
        (m.t().unwrap().var_dim(0, false, 1).unwrap(), m.clone()),
    ] {
        for (r, got) in v.to_vec().into_iter().enumerate() {
            let row = t.select(0, r).unwrap().to_vec();
            let mean = row.iter().sum::<f64>() / row.len() as f64;
            let want =
                row.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (row.len() - 1) as f64;
            assert!(
                ((got - want) / want).abs() < 1e-6,
                "row {r}: {got} vs {want}"
            );
        }
    }
    // f32 data (quantised to 1/16 near 1e6) accumulate in f64: correct for those values.
    let d32: Vec<f32> = data.iter().map(|&x| x as f32).collect();
    let w: Vec<f64> = d32.iter().map(|&x| x as f64).collect();
    let mean = w.iter().sum::<f64>() / n as f64;
    let want = w.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    let got = Tensor::from_vec(d32, &[n])
        .unwrap()
        .var_dim(0, false, 1)
        .unwrap()
        .to_vec()[0];
    assert!(
        ((got as f64 - want) / want).abs() < 1e-6,
        "f32 {got} vs {want}"
    );
    let sd = t.std_dim(0, true, 1).unwrap().to_vec()[0];
    assert!((sd - want.sqrt()).abs() / want.sqrt() < 1e-6 || (sd - got as f64).abs() < 1.0);
}

#[test]
fn f16_cumsum_of_100k_hundredths_stays_accurate() {
    let n = 100_000;
    let t = Tensor::full(&[n], f16::from_f32(0.01)).unwrap();
    let c = t.cumsum(0).unwrap().to_vec();
    let step = f16::from_f32(0.01).to_f64();
    let last = c[n - 1].to_f64();
    assert!(
        (last - step * n as f64).abs() / (step * n as f64) < 0.01,
        "{last}"
    );
    assert!((last - 1000.0).abs() < 10.0);
    // Along dim 0 of a matrix too (the block kernel).
    let m = Tensor::full(&[n / 10, 10], f16::from_f32(0.01)).unwrap();
    let last = m.cumsum(0).unwrap().get(&[n / 10 - 1, 3]).unwrap().to_f64();
    assert!((last - step * (n / 10) as f64).abs() / (step * (n / 10) as f64) < 0.01);
    // bf16 likewise.
    let b = Tensor::full(&[n], half::bf16::from_f32(0.01)).unwrap();
    let last = b.cumsum(0).unwrap().to_vec()[n - 1].to_f64();
    assert!((last - 1000.0).abs() < 10.0, "{last}");
}

#[test]
fn a_mask_of_1204224_ones_counts_and_sums_without_wrapping() {
    let n = 1_204_224;
    let mask = Tensor::full(&[n], 1u8).unwrap();
    assert_eq!(mask.count_nonzero_all(), n);
    assert_eq!(mask.sum_all_as::<i64>(), n as i64);
    assert_eq!(mask.sum_all(), (n % 256) as u8); // the plain sum wraps, as documented
    let m2 = mask.view(&[1176, 1024]).unwrap();
    assert_eq!(m2.t().unwrap().count_nonzero_all(), n);
    assert_eq!(m2.t().unwrap().sum_all_as::<i64>(), n as i64);
    let per_row = m2.count_nonzero_dim(1, false).unwrap().to_vec();
    assert!(per_row.iter().all(|&c| c == 1024));
    assert!(m2.all_all() && m2.any_all());
}

// ---------------------------------------------------------------------------------------------
// Errors, special values, 0-dim tensors
// ---------------------------------------------------------------------------------------------

#[test]
fn every_dim_argument_is_checked_and_names_the_op() {
    let f = Tensor::<f32>::zeros(&[2, 3]).unwrap();
    let i = Tensor::<i32>::zeros(&[2, 3]).unwrap();
    let out = |e: Error| match e {
        Error::DimOutOfRange { op, dim, ndim } => (op, dim, ndim),
        other => panic!("not DimOutOfRange: {other}"),
    };
    let cases: Vec<(&str, Error)> = vec![
        ("softmax", f.softmax(2).unwrap_err()),
        ("log_softmax", f.log_softmax(5).unwrap_err()),
        ("logsumexp", f.logsumexp_dim(2, false).unwrap_err()),
        ("var", f.var_dim(2, true, 1).unwrap_err()),
        ("std", f.std_dim(2, false, 0).unwrap_err()),
        ("norm", f.norm_dim(2, false, 2.0).unwrap_err()),
        ("cumsum", i.cumsum(2).unwrap_err()),
        ("cumprod", f.cumprod(2).unwrap_err()),
        ("any", i.any_dim(2, false).unwrap_err()),
        ("all", f.all_dim(2, false).unwrap_err()),
        ("count_nonzero", i.count_nonzero_dim(2, true).unwrap_err()),
        (
            "max_dim_with_indices",
            i.max_dim_with_indices(2, false).unwrap_err(),
        ),
        (
            "min_dim_with_indices",
            f.min_dim_with_indices(2, true).unwrap_err(),
        ),
    ];
    for (name, e) in cases {
        assert!(e.to_string().starts_with(name), "{name}: {e}");
        let (op, _, ndim) = out(e);
        assert_eq!((op, ndim), (name, 2));
    }
    // A 0-dim tensor accepts dim 0 only.
    let s = Tensor::full(&[], 3.0f32).unwrap();
    assert_eq!(out(s.softmax(1).unwrap_err()), ("softmax", 1, 0));
    assert_eq!(out(s.cumsum(1).unwrap_err()), ("cumsum", 1, 0));
}

#[test]
fn empty_reductions_and_bad_orders() {
    let e = Tensor::<f32>::zeros(&[3, 0]).unwrap();
    for keepdim in [false, true] {
        match e.max_dim_with_indices(1, keepdim).unwrap_err() {
            Error::EmptyReduction { op, dims, shape } => {
                assert_eq!(
                    (op, dims, shape),
                    ("max_dim_with_indices", vec![1], vec![3, 0])
                );
            }
            other => panic!("{other}"),
        }
        assert!(matches!(
            e.min_dim_with_indices(1, keepdim),
            Err(Error::EmptyReduction { .. })
        ));
    }
    // Reducing a non-empty dim of an empty tensor gives an empty result, not an error.
    let (v, i) = e.max_dim_with_indices(0, false).unwrap();
    assert_eq!((v.shape(), i.shape()), (&[0][..], &[0][..]));
    assert!(matches!(
        e.norm_dim(1, false, f64::INFINITY),
        Err(Error::EmptyReduction { op: "norm", .. })
    ));
    assert_eq!(e.norm_dim(1, false, 2.0).unwrap().to_vec(), vec![0.0; 3]);
    for ord in [0.0, 3.0, -1.0, f64::NEG_INFINITY, f64::NAN] {
        match e.norm_dim(0, false, ord).unwrap_err() {
            Error::InvalidArgument { op, message } => {
                assert_eq!(op, "norm");
                assert!(message.contains("f64::INFINITY"), "{message}");
            }
            other => panic!("{other}"),
        }
        assert!(matches!(
            e.norm_all(ord),
            Err(Error::InvalidArgument { .. })
        ));
    }
    // Over no elements: var is NaN, logsumexp -inf, any 0, all 1, counts 0.
    assert!(
        e.var_dim(1, false, 0)
            .unwrap()
            .to_vec()
            .iter()
            .all(|v| v.is_nan())
    );
    assert_eq!(
        e.logsumexp_dim(1, false).unwrap().to_vec(),
        vec![f32::NEG_INFINITY; 3]
    );
    assert_eq!(e.any_dim(1, false).unwrap().to_vec(), vec![0; 3]);
    assert_eq!(e.all_dim(1, false).unwrap().to_vec(), vec![1; 3]);
    assert_eq!(e.count_nonzero_dim(1, false).unwrap().to_vec(), vec![0; 3]);
    assert_eq!(e.softmax(1).unwrap().shape(), &[3, 0]);
    assert_eq!(e.cumsum(1).unwrap().shape(), &[3, 0]);
    assert_eq!(e.count_nonzero_all(), 0);
    assert_eq!(e.sum_all_as::<f64>(), 0.0);
}

#[test]
fn counts_at_or_below_the_correction_follow_pytorch() {
    let a = Tensor::from_vec(vec![1.0f64, 3.0], &[2]).unwrap();
    assert_eq!(a.var_dim(0, false, 1).unwrap().to_vec(), vec![2.0]);
    assert_eq!(
        a.var_dim(0, false, 2).unwrap().to_vec(),
        vec![f64::INFINITY]
    );
    assert_eq!(
        a.std_dim(0, false, 3).unwrap().to_vec(),
        vec![f64::INFINITY]
    );
    let one = a.narrow(0, 0, 1).unwrap();
    assert!(one.var_dim(0, false, 1).unwrap().to_vec()[0].is_nan());
    assert_eq!(one.var_dim(0, false, 0).unwrap().to_vec(), vec![0.0]);
    let nan = Tensor::from_vec(vec![1.0f32, f32::NAN, 2.0, f32::INFINITY], &[2, 2]).unwrap();
    assert!(
        nan.var_dim(1, false, 1)
            .unwrap()
            .to_vec()
            .iter()
            .all(|v| v.is_nan())
    );
}

#[test]
fn special_values_in_softmax_and_logsumexp() {
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let a = Tensor::from_vec(
        vec![
            1.0, inf, 2.0, -inf, -inf, -inf, nan, 0.0, 1.0, -inf, 0.0, -inf,
        ],
        &[4, 3],
    )
    .unwrap();
    for (t, dim) in [
        (a.clone(), 1),
        (a.t().unwrap().contiguous().t().unwrap(), 1),
    ] {
        let p = t.softmax(dim).unwrap().to_vec();
        assert!(p[..9].iter().all(|v| v.is_nan()), "{p:?}");
        assert_eq!(p[9..], [0.0, 1.0, 0.0]);
        let l = t.log_softmax(dim).unwrap().to_vec();
        assert!(l[..9].iter().all(|v| v.is_nan()));
        assert_eq!(l[9..], [-inf, 0.0, -inf]);
        let lse = t.logsumexp_dim(dim, false).unwrap().to_vec();
        assert_eq!(lse[0], inf);
        assert_eq!(lse[1], -inf);
        assert!(lse[2].is_nan());
        assert_eq!(lse[3], 0.0);
    }
}

#[test]
fn zero_dim_tensors_are_their_own_slice() {
    let s = Tensor::full(&[], 3.0f64).unwrap();
    assert_eq!(s.softmax(0).unwrap().get(&[]).unwrap(), 1.0);
    assert_eq!(s.log_softmax(0).unwrap().get(&[]).unwrap(), 0.0);
    assert_eq!(s.logsumexp_dim(0, true).unwrap().get(&[]).unwrap(), 3.0);
    assert!(s.var_dim(0, true, 1).unwrap().get(&[]).unwrap().is_nan());
    assert_eq!(s.var_dim(0, false, 0).unwrap().shape(), &[] as &[usize]);
    assert_eq!(s.cumsum(0).unwrap().get(&[]).unwrap(), 3.0);
    assert_eq!(s.cumprod(0).unwrap().shape(), &[] as &[usize]);
    assert_eq!(s.norm_dim(0, false, 1.0).unwrap().get(&[]).unwrap(), 3.0);
    let (v, i) = s.max_dim_with_indices(0, true).unwrap();
    assert_eq!((v.get(&[]).unwrap(), i.get(&[]).unwrap()), (3.0, 0));
    assert_eq!(s.count_nonzero_dim(0, false).unwrap().get(&[]).unwrap(), 1);
    assert_eq!(s.any_dim(0, false).unwrap().get(&[]).unwrap(), 1);
}

// ---------------------------------------------------------------------------------------------
// Layouts, copies, threads
// ---------------------------------------------------------------------------------------------

/// A 3-d channels-last-like operand and views of it, large enough for the parallel paths.
fn big() -> Tensor<f32> {
    // Large enough that the views `results_do_not_depend_on_the_thread_count` takes of it
    // (the narrowed one too: 37 x 30 x 121) are above the parallel threshold of 2^17
    // elements.
    let (a, b, c) = (37, 41, 121);
    let data: Vec<f32> = (0..a * b * c)
        .map(|i| ((i * 7919) % 1013) as f32 * 0.01 - 5.0)
        .collect();
    Tensor::from_vec(data, &[a, b, c])
        .unwrap()
        .permute(&[2, 0, 1])
        .unwrap()
}

#[test]
fn results_follow_the_input_layout_and_copy_nothing() {
    let x = big(); // dense, permuted
    let views = [
        x.clone(),
        x.flip(1).unwrap(),
        x.narrow(2, 3, 30).unwrap(),
        x.slice_step(0, 1..50, 2).unwrap(),
        x.select(1, 4)
            .unwrap()
            .unsqueeze(1)
            .unwrap()
            .expand(&[121, 9, 41])
            .unwrap(),
    ];
    for v in &views {
        for dim in 0..3 {
            let (outs, report) = audit::record(|| {
                (
                    v.softmax(dim).unwrap(),
                    v.cumsum(dim).unwrap(),
                    v.var_dim(dim, false, 1).unwrap(),
                    v.logsumexp_dim(dim, true).unwrap(),
                    v.max_dim_with_indices(dim, false).unwrap(),
                    v.count_nonzero_dim(dim, false).unwrap(),
                )
            });
            assert_eq!(report.count(), 0, "{report}");
            assert_eq!(outs.0.strides(), v.map(|x| x).strides());
            assert_eq!(outs.1.strides(), v.layout().dense_like().unwrap().strides());
            assert_eq!(outs.2.strides(), v.sum_dim(dim, false).unwrap().strides());
        }
    }
    // A permuted dense input keeps its permutation.
    assert_eq!(x.softmax(0).unwrap().strides(), x.strides());
    assert_eq!(x.cumsum(2).unwrap().strides(), x.strides());
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let x = big();
    let views = [x.clone(), x.flip(2).unwrap(), x.narrow(1, 1, 30).unwrap()];
    type All = (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>);
    let run = |v: &Tensor<f32>, dim: usize| -> All {
        (
            v.softmax(dim).unwrap().to_vec(),
            v.log_softmax(dim).unwrap().to_vec(),
            v.cumsum(dim).unwrap().to_vec(),
            v.var_dim(dim, false, 1).unwrap().to_vec(),
            v.logsumexp_dim(dim, false).unwrap().to_vec(),
            v.norm_dim(dim, false, 2.0).unwrap().to_vec(),
        )
    };
    for v in &views {
        for dim in 0..3 {
            let one = pool(1).install(|| run(v, dim));
            let four = pool(4).install(|| run(v, dim));
            assert!(one == four, "dim {dim}");
        }
    }
}

#[test]
fn large_views_match_the_naive_loops() {
    // Big enough for every kernel's blocked and parallel paths (rows longer than the line
    // kernels' blocks, many lines, wide chunks).
    let x = big();
    let x64: Tensor<f64> = x.cast();
    let shape = x.shape().to_vec();
    let vals: Vec<f64> = x64.to_vec();
    for dim in 0..3 {
        let sm = x.softmax(dim).unwrap().to_vec();
        let want = naive_softmax(&vals, &shape, dim, false);
        assert!(
            sm.iter()
                .zip(&want)
                .all(|(&g, &w)| close(g as f64, w, 2e-5, 1e-7)),
            "softmax {dim}"
        );
        let v = x.var_dim(dim, false, 1).unwrap().to_vec();
        let want = naive_var(&vals, &shape, dim, 1);
        assert!(
            v.iter()
                .zip(&want)
                .all(|(&g, &w)| close(g as f64, w, 1e-5, 1e-6)),
            "var {dim}"
        );
        let c = x64.cumsum(dim).unwrap().to_vec();
        let want = naive_scan(&vals, &shape, dim, |x| x, |a, b| a + b, |a| a);
        assert_eq!(c, want, "cumsum {dim}");
    }
}
