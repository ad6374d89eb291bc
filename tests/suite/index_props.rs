//! Property tests of the indexing ops (`index_select`, `gather`, `scatter`, `scatter_add`,
//! `masked_fill`, `masked_select`, `nonzero`, `take`) on random views (permuted, flipped,
//! stepped, narrowed, expanded operands; empty and size-1 dims; several element types)
//! against naive loops over the reference model's row-major values.
//!
//! Index tensors are random views too, holding mostly valid indices and, in some cases, a few
//! negative or too large ones: the expectation is then the `IndexOutOfBounds` error naming
//! the first bad index in row-major order. Every op is run inside `audit::record`, which must
//! see no copy at all (operands are read in place, results are computed, not copied).
//!
//! Case counts default to small numbers; set `PROPTEST_CASES` to run more.

use crate::common;

use common::*;
use proptest::prelude::*;
use stridex::{Element, Error, Tensor, audit, broadcast_shapes};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A well-mixed 64-bit hash (splitmix64).
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Index values for storage position `i`: mostly in `0..size`; when `bad` is set, about one
/// in eight is negative or `>= size` instead.
fn index_value(i: usize, seed: u64, size: usize, bad: bool) -> i64 {
    let h = mix(i as u64 ^ seed.rotate_left(17));
    if size == 0 || (bad && h % 8 == 0) {
        let k = ((h >> 8) % 3) as i64;
        if (h >> 4) % 2 == 0 {
            -1 - k
        } else {
            size as i64 + k
        }
    } else {
        ((h >> 3) % size as u64) as i64
    }
}

/// The first index in `vals` (row-major) that is not in `0..size`.
fn first_bad(vals: &[i64], size: usize) -> Option<i64> {
    vals.iter().copied().find(|&v| v < 0 || v >= size as i64)
}

/// Runs `f` inside `audit::record` and fails unless it made no copy.
fn no_copies<R>(what: &str, f: impl FnOnce() -> R) -> Result<R, TestCaseError> {
    let (r, report) = audit::record(f);
    prop_assert_eq!(report.count(), 0, "{} copied: {}", what, report);
    Ok(r)
}

/// A shape for an operand that must be no larger than `limit` in every dim but `free`
/// (which gets 0..=4), from seed bytes.
fn smaller_shape(limit: &[usize], free: Option<usize>, seed: &[u8]) -> Vec<usize> {
    let mut b = Bytes::new(seed);
    (0..limit.len())
        .map(|d| match Some(d) == free {
            true => b.below(5),
            false => match b.below(4) {
                0 => b.below(limit[d] + 1),
                _ => limit[d],
            },
        })
        .collect()
}

/// Value of the row-major `vals` of `shape` at multi-index `idx`.
fn at<T: Copy>(vals: &[T], shape: &[usize], idx: &[usize]) -> T {
    vals[ravel(idx, shape)]
}

/// Value at result index `idx` of an operand of `shape` broadcast to the result's rank.
fn at_broadcast<T: Copy>(vals: &[T], shape: &[usize], idx: &[usize]) -> T {
    let pad = idx.len() - shape.len();
    let own: Vec<usize> = (0..shape.len())
        .map(|d| if shape[d] == 1 { 0 } else { idx[pad + d] })
        .collect();
    at(vals, shape, &own)
}

/// A mask shape that broadcasts with `shape` (leading dims dropped, some dims set to 1) or,
/// when `clash`, one that does not (when a dim of size >= 2 exists to clash with).
fn mask_shape(shape: &[usize], seed: &[u8], clash: bool) -> Vec<usize> {
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

fn ok<X>(r: Result<X, Error>, what: &str) -> Result<X, TestCaseError> {
    okay(r, what)
}

// ---------------------------------------------------------------------------------------------
// Checks, generic over the element type
// ---------------------------------------------------------------------------------------------

#[allow(clippy::too_many_arguments)]
fn check_index_select<T: Val>(
    shape: &[usize],
    r: &Recipe,
    dim_seed: usize,
    len: usize,
    ri: &Recipe,
    seed: u64,
    bad: bool,
) -> TestResult {
    let x = build::<T>(shape, r, T::from_index, true);
    let dim = dim_seed % shape.len();
    let size = shape[dim];
    let idx = build::<i64>(&[len], ri, |i| index_value(i, seed, size, bad), true);
    let iv = idx.values();
    let got = no_copies("index_select", || x.t.index_select(dim, &idx.t))?;
    if let Some(b) = first_bad(&iv, size) {
        let want = Error::IndexOutOfBounds {
            op: "index_select",
            dim,
            index: b,
            size,
        };
        prop_assert_eq!(got.unwrap_err(), want);
        return Ok(());
    }
    let got = ok(got, "index_select")?;
    let mut out_shape = shape.to_vec();
    out_shape[dim] = len;
    prop_assert_eq!(got.shape(), &out_shape[..]);
    prop_assert!(got.is_contiguous());
    let xv = x.values();
    let want: Vec<T> = all_indices(&out_shape)
        .iter()
        .map(|o| {
            let mut s = o.clone();
            s[dim] = iv[o[dim]] as usize;
            at(&xv, shape, &s)
        })
        .collect();
    prop_assert_eq!(got.to_vec(), want);
    Ok(())
}

fn check_gather<T: Val>(
    shape: &[usize],
    r: &Recipe,
    dim_seed: usize,
    ishape_seed: &[u8],
    ri: &Recipe,
    seed: u64,
    bad: bool,
) -> TestResult {
    let x = build::<T>(shape, r, T::from_index, true);
    let dim = dim_seed % shape.len();
    let size = shape[dim];
    let ishape = smaller_shape(shape, Some(dim), ishape_seed);
    let idx = build::<i64>(&ishape, ri, |i| index_value(i, seed, size, bad), true);
    let iv = idx.values();
    let got = no_copies("gather", || x.t.gather(dim, &idx.t))?;
    if let Some(b) = first_bad(&iv, size) {
        let want = Error::IndexOutOfBounds {
            op: "gather",
            dim,
            index: b,
            size,
        };
        prop_assert_eq!(got.unwrap_err(), want);
        return Ok(());
    }
    let got = ok(got, "gather")?;
    prop_assert_eq!(got.shape(), &ishape[..]);
    let xv = x.values();
    let want: Vec<T> = all_indices(&ishape)
        .iter()
        .enumerate()
        .map(|(flat, p)| {
            let mut s = p.clone();
            s[dim] = iv[flat] as usize;
            at(&xv, shape, &s)
        })
        .collect();
    prop_assert_eq!(got.to_vec(), want);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn check_scatter<T: Val + stridex::Numeric>(
    shape: &[usize],
    r: &Recipe,
    dim_seed: usize,
    ishape_seed: &[u8],
    ri: &Recipe,
    rs: &Recipe,
    seed: u64,
    bad: bool,
    add: bool,
    plus: impl Fn(T, T) -> T,
) -> TestResult {
    let x = build::<T>(shape, r, T::from_index, true);
    let dim = dim_seed % shape.len();
    let size = shape[dim];
    let ishape = smaller_shape(shape, Some(dim), ishape_seed);
    // The source is at least as large as the index in every dim.
    let sshape: Vec<usize> = ishape
        .iter()
        .enumerate()
        .map(|(d, &s)| s + usize::from(ishape_seed.get(d + 8).is_some_and(|&b| b % 3 == 0)))
        .collect();
    let idx = build::<i64>(&ishape, ri, |i| index_value(i, seed, size, bad), true);
    let src = build::<T>(&sshape, rs, |i| T::from_index(i * 7 + 3), true);
    let iv = idx.values();
    let op = if add { "scatter_add" } else { "scatter" };
    let got = no_copies(op, || match add {
        true => x.t.scatter_add(dim, &idx.t, &src.t),
        false => x.t.scatter(dim, &idx.t, &src.t),
    })?;
    if let Some(b) = first_bad(&iv, size) {
        let want = Error::IndexOutOfBounds {
            op,
            dim,
            index: b,
            size,
        };
        prop_assert_eq!(got.unwrap_err(), want);
        return Ok(());
    }
    let got = ok(got, op)?;
    prop_assert_eq!(got.shape(), shape);
    prop_assert!(got.layout().is_non_overlapping_and_dense());
    let mut want = x.values();
    let sv = src.values();
    for (flat, p) in all_indices(&ishape).iter().enumerate() {
        let mut t = p.clone();
        t[dim] = iv[flat] as usize;
        let k = ravel(&t, shape);
        let v = at(&sv, &sshape, p);
        want[k] = if add { plus(want[k], v) } else { v };
    }
    prop_assert_eq!(got.to_vec(), want);
    Ok(())
}

fn check_masks<T: Val>(
    shape: &[usize],
    r: &Recipe,
    mseed: &[u8],
    rm: &Recipe,
    clash: bool,
) -> TestResult {
    let x = build::<T>(shape, r, T::from_index, true);
    let ms = mask_shape(shape, mseed, clash);
    let mask = build::<u8>(
        &ms,
        rm,
        |i| [0u8, 1, 0, 7, 1][mix(i as u64) as usize % 5],
        true,
    );
    let fill = T::from_index(1000);
    let filled = no_copies("masked_fill", || x.t.masked_fill(&mask.t, fill))?;
    let selected = no_copies("masked_select", || x.t.masked_select(&mask.t))?;
    let Ok(out_shape) = broadcast_shapes(shape, &ms) else {
        prop_assert!(
            matches!(filled, Err(Error::BroadcastMismatch { .. })),
            "expected a broadcast error"
        );
        prop_assert!(
            matches!(selected, Err(Error::BroadcastMismatch { .. })),
            "expected a broadcast error"
        );
        return Ok(());
    };
    let (xv, mv) = (x.values(), mask.values());
    let mut want_fill = vec![];
    let mut want_sel = vec![];
    for o in all_indices(&out_shape) {
        let (v, m) = (at_broadcast(&xv, shape, &o), at_broadcast(&mv, &ms, &o));
        want_fill.push(if m != 0 { fill } else { v });
        if m != 0 {
            want_sel.push(v);
        }
    }
    let filled = ok(filled, "masked_fill")?;
    prop_assert_eq!(filled.shape(), &out_shape[..]);
    prop_assert_eq!(filled.to_vec(), want_fill);
    let selected = ok(selected, "masked_select")?;
    prop_assert_eq!(selected.shape(), &[want_sel.len()][..]);
    prop_assert_eq!(selected.to_vec(), want_sel);
    Ok(())
}

fn check_nonzero<T: Val>(shape: &[usize], r: &Recipe, zero_every: usize) -> TestResult {
    // Zeros at a pseudo-random subset of storage positions.
    let x = build::<T>(
        shape,
        r,
        |i| match mix(i as u64) as usize % zero_every {
            0 => T::zeroed(),
            _ => T::from_index(i % 200 + 1),
        },
        true,
    );
    let got = no_copies("nonzero", || x.t.nonzero())?;
    let xv = x.values();
    let mut want = vec![];
    let mut count = 0;
    for (flat, idx) in all_indices(shape).iter().enumerate() {
        if xv[flat] != T::zeroed() {
            want.extend(idx.iter().map(|&i| i as i64));
            count += 1;
        }
    }
    prop_assert_eq!(got.shape(), &[count, shape.len()][..]);
    prop_assert_eq!(got.to_vec(), want);
    Ok(())
}

fn check_take<T: Val>(
    shape: &[usize],
    r: &Recipe,
    ishape: &[usize],
    ri: &Recipe,
    seed: u64,
    bad: bool,
) -> TestResult {
    let x = build::<T>(shape, r, T::from_index, true);
    let n = x.t.numel();
    let idx = build::<i64>(ishape, ri, |i| index_value(i, seed, n, bad), true);
    let iv = idx.values();
    let got = no_copies("take", || x.t.take(&idx.t))?;
    if let Some(b) = first_bad(&iv, n) {
        let want = Error::IndexOutOfBounds {
            op: "take",
            dim: 0,
            index: b,
            size: n,
        };
        prop_assert_eq!(got.unwrap_err(), want);
        return Ok(());
    }
    let got = ok(got, "take")?;
    prop_assert_eq!(got.shape(), ishape);
    let xv = x.values();
    let want: Vec<T> = iv.iter().map(|&i| xv[i as usize]).collect();
    prop_assert_eq!(got.to_vec(), want);
    Ok(())
}

fn nonempty_shape() -> impl Strategy<Value = Vec<usize>> {
    arb_shape().prop_filter("at least one dim", |s| !s.is_empty())
}

fn small_shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..=4, 0..=3)
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn index_select_matches_naive(
        shape in nonempty_shape(), r in arb_recipe(), dim in any::<usize>(),
        len in 0usize..=6, ri in arb_recipe(), seed in any::<u64>(), bad in prop::bool::weighted(0.25),
        ty in 0u8..4,
    ) {
        match ty {
            0 => check_index_select::<f32>(&shape, &r, dim, len, &ri, seed, bad)?,
            1 => check_index_select::<u8>(&shape, &r, dim, len, &ri, seed, bad)?,
            2 => check_index_select::<i64>(&shape, &r, dim, len, &ri, seed, bad)?,
            _ => check_index_select::<half::bf16>(&shape, &r, dim, len, &ri, seed, bad)?,
        }
    }

    #[test]
    fn gather_matches_naive(
        shape in nonempty_shape(), r in arb_recipe(), dim in any::<usize>(),
        iseed in prop::collection::vec(any::<u8>(), 8), ri in arb_recipe(), seed in any::<u64>(),
        bad in prop::bool::weighted(0.25), ty in 0u8..3,
    ) {
        match ty {
            0 => check_gather::<f64>(&shape, &r, dim, &iseed, &ri, seed, bad)?,
            1 => check_gather::<i16>(&shape, &r, dim, &iseed, &ri, seed, bad)?,
            _ => check_gather::<half::f16>(&shape, &r, dim, &iseed, &ri, seed, bad)?,
        }
    }

    #[test]
    fn scatter_and_scatter_add_match_naive(
        shape in nonempty_shape(), r in arb_recipe(), dim in any::<usize>(),
        iseed in prop::collection::vec(any::<u8>(), 16), ri in arb_recipe(), rs in arb_recipe(),
        seed in any::<u64>(), bad in prop::bool::weighted(0.25), ty in 0u8..3,
    ) {
        let (s, dim, iseed) = (&shape, dim, &iseed);
        match ty {
            0 => {
                check_scatter::<i32>(s, &r, dim, iseed, &ri, &rs, seed, bad, false, |a, b| a.wrapping_add(b))?;
                check_scatter::<i32>(s, &r, dim, iseed, &ri, &rs, seed, bad, true, |a, b| a.wrapping_add(b))?;
            }
            1 => {
                check_scatter::<f64>(s, &r, dim, iseed, &ri, &rs, seed, bad, false, |a, b| a + b)?;
                check_scatter::<f64>(s, &r, dim, iseed, &ri, &rs, seed, bad, true, |a, b| a + b)?;
            }
            _ => check_scatter::<u8>(s, &r, dim, iseed, &ri, &rs, seed, bad, true, |a, b| a.wrapping_add(b))?,
        }
    }

    #[test]
    fn masks_match_naive(
        shape in arb_shape(), r in arb_recipe(), mseed in prop::collection::vec(any::<u8>(), 6),
        rm in arb_recipe(), clash in prop::bool::weighted(0.2), ty in 0u8..3,
    ) {
        match ty {
            0 => check_masks::<f32>(&shape, &r, &mseed, &rm, clash)?,
            1 => check_masks::<u8>(&shape, &r, &mseed, &rm, clash)?,
            _ => check_masks::<half::f16>(&shape, &r, &mseed, &rm, clash)?,
        }
    }

    #[test]
    fn nonzero_matches_naive(shape in arb_shape(), r in arb_recipe(), every in 1usize..=4, ty in 0u8..3) {
        match ty {
            0 => check_nonzero::<f64>(&shape, &r, every)?,
            1 => check_nonzero::<i32>(&shape, &r, every)?,
            _ => check_nonzero::<u8>(&shape, &r, every)?,
        }
    }

    #[test]
    fn take_matches_naive(
        shape in arb_shape(), r in arb_recipe(), ishape in small_shape(), ri in arb_recipe(),
        seed in any::<u64>(), bad in prop::bool::weighted(0.25), ty in 0u8..2,
    ) {
        match ty {
            0 => check_take::<i64>(&shape, &r, &ishape, &ri, seed, bad)?,
            _ => check_take::<f32>(&shape, &r, &ishape, &ri, seed, bad)?,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Argument errors and edge cases
// ---------------------------------------------------------------------------------------------

fn t<T: Element>(v: Vec<T>, shape: &[usize]) -> Tensor<T> {
    Tensor::from_vec(v, shape).unwrap()
}

#[test]
fn bad_dims_and_ranks_are_errors() {
    let x = t((0..6).collect::<Vec<i32>>(), &[2, 3]);
    let i1 = t(vec![0i64], &[1]);
    let i2 = t(vec![0i64], &[1, 1]);
    assert!(matches!(
        x.index_select(2, &i1),
        Err(Error::DimOutOfRange {
            op: "index_select",
            dim: 2,
            ndim: 2
        })
    ));
    assert!(matches!(
        x.index_select(0, &i2),
        Err(Error::RankMismatch {
            op: "index_select",
            ..
        })
    ));
    // A 0-dim index selects one slice.
    assert_eq!(
        x.index_select(1, &t(vec![2i64], &[])).unwrap().to_vec(),
        vec![2, 5]
    );
    assert!(matches!(
        x.gather(1, &i1),
        Err(Error::RankMismatch {
            op: "gather",
            expected: 2,
            got: 1,
            ..
        })
    ));
    assert!(matches!(x.gather(2, &i2), Err(Error::DimOutOfRange { .. })));
    // Index larger than the input off `dim`.
    let wide = t(vec![0i64; 4], &[1, 4]);
    let e = x.gather(0, &wide).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { op: "gather", .. }));
    assert!(
        e.to_string().contains("[1, 4]") && e.to_string().contains("dim 1"),
        "{e}"
    );
    // ... but it may be larger along `dim`.
    assert_eq!(x.gather(1, &wide).unwrap().to_vec(), vec![0; 4]);
    let src = t(vec![9i32; 3], &[1, 3]);
    assert!(matches!(
        x.scatter(0, &i1, &src),
        Err(Error::RankMismatch { op: "scatter", .. })
    ));
    assert!(matches!(
        x.scatter(0, &i2, &t(vec![9i32; 3], &[3])),
        Err(Error::RankMismatch { op: "scatter", .. })
    ));
    // Index larger than the source.
    let e = x.scatter_add(1, &t(vec![0i64; 2], &[1, 2]), &t(vec![1i32], &[1, 1]));
    assert!(matches!(
        e,
        Err(Error::InvalidArgument {
            op: "scatter_add",
            ..
        })
    ));
    assert!(matches!(
        x.scatter(2, &i2, &src),
        Err(Error::DimOutOfRange { .. })
    ));
}

#[test]
fn bad_indices_are_reported_before_any_write() {
    let x = t((0..6).collect::<Vec<u8>>(), &[3, 2]).t().unwrap(); // [2, 3]
    let e = x.index_select(1, &t(vec![0i64, -1, 5], &[3])).unwrap_err();
    assert_eq!(
        e,
        Error::IndexOutOfBounds {
            op: "index_select",
            dim: 1,
            index: -1,
            size: 3
        }
    );
    assert!(e.to_string().contains("0..3"), "{e}");
    let e = x.gather(0, &t(vec![0i64, 2, 1], &[1, 3])).unwrap_err();
    assert_eq!(
        e,
        Error::IndexOutOfBounds {
            op: "gather",
            dim: 0,
            index: 2,
            size: 2
        }
    );
    let e = x
        .scatter(1, &t(vec![3i64], &[1, 1]), &t(vec![1u8], &[1, 1]))
        .unwrap_err();
    assert_eq!(
        e,
        Error::IndexOutOfBounds {
            op: "scatter",
            dim: 1,
            index: 3,
            size: 3
        }
    );
    let e = x.take(&t(vec![6i64], &[])).unwrap_err();
    assert_eq!(
        e,
        Error::IndexOutOfBounds {
            op: "take",
            dim: 0,
            index: 6,
            size: 6
        }
    );
    assert!(x.take(&t(vec![-1i64], &[1])).is_err());
    // Any index into an empty dim is out of range; no index is fine.
    let empty = Tensor::<f32>::zeros(&[0, 3]).unwrap();
    assert!(empty.index_select(0, &t(vec![0i64], &[1])).is_err());
    assert_eq!(
        empty.index_select(1, &t(vec![2i64], &[1])).unwrap().shape(),
        &[0, 1]
    );
    assert_eq!(empty.take(&t(Vec::<i64>::new(), &[0])).unwrap().numel(), 0);
}

#[test]
fn scatter_later_duplicates_win_and_adds_accumulate() {
    let x = Tensor::<f32>::zeros(&[2, 2]).unwrap();
    let idx = t(vec![1i64, 1, 1, 0], &[2, 2]);
    let src = t(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
    // Column 0 gets rows 0 and 1 of src at row 1: the later (3.0) wins.
    assert_eq!(
        x.scatter(0, &idx, &src).unwrap().to_vec(),
        vec![0.0, 4.0, 3.0, 2.0]
    );
    assert_eq!(
        x.scatter_add(0, &idx, &src).unwrap().to_vec(),
        vec![0.0, 4.0, 4.0, 2.0]
    );
    // The result keeps a transposed input's memory order.
    let xt = Tensor::<f32>::zeros(&[3, 2]).unwrap().t().unwrap();
    let out = xt
        .scatter(1, &t(vec![2i64], &[1, 1]), &t(vec![5.0f32], &[1, 1]))
        .unwrap();
    assert_eq!(out.strides(), &[1, 2]);
    assert_eq!(out.to_vec(), vec![0.0, 0.0, 5.0, 0.0, 0.0, 0.0]);
    // Integers wrap.
    let b = t(vec![250u8], &[1]);
    let two = t(vec![0i64, 0], &[2]);
    assert_eq!(
        b.scatter_add(0, &two, &t(vec![3u8, 4], &[2]))
            .unwrap()
            .to_vec(),
        vec![1]
    );
}

#[test]
fn masks_treat_any_nonzero_byte_as_true() {
    let x = t(vec![1i64, 2, 3, 4], &[2, 2]);
    let m = t(vec![0u8, 255, 2, 0], &[2, 2]);
    assert_eq!(x.masked_select(&m).unwrap().to_vec(), vec![2, 3]);
    assert_eq!(x.masked_fill(&m, 0).unwrap().to_vec(), vec![1, 0, 0, 4]);
    // A mask with more dims broadcasts the input (PyTorch's rule).
    let m3 = t(vec![1u8, 0], &[2, 1, 1]);
    assert_eq!(x.masked_fill(&m3, 9).unwrap().shape(), &[2, 2, 2]);
    assert_eq!(x.masked_select(&m3).unwrap().to_vec(), vec![1, 2, 3, 4]);
    assert!(matches!(
        x.masked_select(&t(vec![1u8; 3], &[3])),
        Err(Error::BroadcastMismatch { .. })
    ));
    // A 0-dim input.
    let s = Tensor::full(&[], 5.0f64).unwrap();
    assert_eq!(s.nonzero().shape(), &[1, 0]);
    assert_eq!(
        s.masked_select(&Tensor::full(&[], 1u8).unwrap())
            .unwrap()
            .to_vec(),
        vec![5.0]
    );
}

/// Large enough for the parallel and prefetching paths: many threads give the same result as
/// one, and as the naive loop.
#[test]
fn large_index_select_and_gather_are_thread_independent() {
    let (rows, cols) = (3000usize, 300usize);
    let x = Tensor::from_vec((0..(rows * cols) as u32).collect(), &[rows, cols]).unwrap();
    let picks: Vec<i64> = (0..700).map(|i| (mix(i) % rows as u64) as i64).collect();
    let idx = t(picks.clone(), &[700]);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let one = x.index_select(0, &idx).unwrap();
    let many = pool.install(|| x.index_select(0, &idx).unwrap());
    assert_eq!(one.to_vec(), many.to_vec());
    let v = one.to_vec();
    for (p, &r) in picks.iter().enumerate() {
        assert_eq!(
            v[p * cols..(p + 1) * cols],
            (0..cols as u32)
                .map(|c| r as u32 * cols as u32 + c)
                .collect::<Vec<_>>()[..]
        );
    }
    // Along the last dim of the transpose: single elements.
    let cols_sel = pool.install(|| x.t().unwrap().index_select(1, &idx).unwrap());
    assert_eq!(cols_sel.shape(), &[cols, 700]);
    assert_eq!(
        cols_sel.get(&[5, 3]).unwrap(),
        picks[3] as u32 * cols as u32 + 5
    );
    // Rows of the transpose: strided slabs.
    let few = t(vec![299i64, 0, 17], &[3]);
    let rows_sel = pool.install(|| x.t().unwrap().index_select(0, &few).unwrap());
    assert_eq!(rows_sel.shape(), &[3, rows]);
    assert_eq!(rows_sel.get(&[0, 2999]).unwrap(), 2999 * cols as u32 + 299);
    assert_eq!(rows_sel.get(&[2, 4]).unwrap(), 4 * cols as u32 + 17);
    let gi = Tensor::from_vec(
        (0..(rows * cols) as u64)
            .map(|i| (mix(i) % cols as u64) as i64)
            .collect(),
        &[rows, cols],
    )
    .unwrap();
    let g1 = x.gather(1, &gi).unwrap();
    let g4 = pool.install(|| x.gather(1, &gi).unwrap());
    assert_eq!(g1.to_vec(), g4.to_vec());
    assert_eq!(
        g1.get(&[17, 9]).unwrap(),
        17 * cols as u32 + gi.get(&[17, 9]).unwrap() as u32
    );
}
