//! Property tests of the elementwise ops, reductions and casts: on random shapes, strides and
//! offsets (permuted, sliced with steps, flipped, expanded, broadcast), every op equals the same
//! op computed by a naive index loop over `contiguous()` copies of its inputs.
//!
//! Bounded: `PROPTEST_CASES` (default 64) cases per property, at most 4 dims of size <= 5
//! (and 2-dim views up to 140 x 2060 for the tiled path).

use proptest::prelude::*;
use stridex::Tensor;

/// How to carve a strided view out of a fresh parent tensor.
#[derive(Debug, Clone)]
struct ViewSpec {
    /// Logical shape of the view.
    shape: Vec<usize>,
    /// Per dim: slice step (1..=2) and whether to flip.
    steps: Vec<(usize, bool)>,
    /// Per dim: extra leading elements of the parent (an offset).
    pads: Vec<usize>,
    /// A permutation applied to the parent before slicing.
    perm: Vec<usize>,
    /// Dims to replace by an expanded size-1 dim (stride 0).
    expand: Vec<bool>,
}

fn view_spec(shape: Vec<usize>) -> impl Strategy<Value = ViewSpec> {
    let n = shape.len();
    (
        proptest::collection::vec((1usize..=2, any::<bool>()), n),
        proptest::collection::vec(0usize..=2, n),
        Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
        proptest::collection::vec(proptest::bool::weighted(0.2), n),
    )
        .prop_map(move |(steps, pads, perm, expand)| ViewSpec {
            shape: shape.clone(),
            steps,
            pads,
            perm,
            expand,
        })
}

/// Builds the view described by `spec` over a parent filled by `value(i)`.
fn build<T: stridex::Element>(spec: &ViewSpec, value: impl Fn(usize) -> T) -> Tensor<T> {
    let n = spec.shape.len();
    // View dim d comes from parent dim perm[d] after permuting; size it so the slice fits.
    let need: Vec<usize> = (0..n)
        .map(|d| {
            let (step, _) = spec.steps[d];
            let size = if spec.expand[d] { 1 } else { spec.shape[d] };
            spec.pads[d] + size.saturating_sub(1) * step + 1
        })
        .collect();
    let mut parent_shape = vec![0; n];
    for d in 0..n {
        parent_shape[spec.perm[d]] = need[d];
    }
    let numel: usize = parent_shape.iter().product();
    let parent = Tensor::from_vec((0..numel).map(value).collect(), &parent_shape).unwrap();
    // Undo the permutation so that view dim d is parent dim perm[d].
    let mut v = parent.permute(&spec.perm).unwrap();
    for d in 0..n {
        let (step, flip) = spec.steps[d];
        let size = if spec.expand[d] { 1 } else { spec.shape[d] };
        let start = spec.pads[d] as isize;
        let end = start + (size as isize - 1) * step as isize + 1;
        v = v
            .slice_step(d, start..end.max(start), step as isize)
            .unwrap();
        if flip {
            v = v.flip(d).unwrap();
        }
    }
    if spec.expand.iter().any(|&e| e) {
        v = v.expand(&spec.shape).unwrap();
    }
    assert_eq!(v.shape(), &spec.shape[..]);
    v
}

fn shape_strategy(max_dims: usize, max_size: usize) -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(0usize..=max_size, 0..=max_dims)
}

/// A shape and a second shape that broadcasts with it (some dims 1, maybe fewer dims).
fn broadcast_pair() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    shape_strategy(4, 5).prop_flat_map(|a| {
        let n = a.len();
        (
            Just(a.clone()),
            proptest::collection::vec(proptest::bool::weighted(0.3), n),
            0..=n,
            any::<bool>(),
        )
            .prop_map(|(a, ones, drop, swap)| {
                let b: Vec<usize> = a
                    .iter()
                    .zip(&ones)
                    .map(|(&s, &one)| if one { 1 } else { s })
                    .collect();
                let b = b[drop.min(b.len())..].to_vec();
                if swap { (b, a) } else { (a, b) }
            })
    })
}

/// Row-major multi-indices of `shape`.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    (0..n)
        .map(|mut flat| {
            let mut idx = vec![0; shape.len()];
            for d in (0..shape.len()).rev() {
                idx[d] = flat % shape[d];
                flat /= shape[d];
            }
            idx
        })
        .collect()
}

/// The element of a row-major `data` of `shape` read at result index `idx` under broadcasting.
fn at<T: Copy>(data: &[T], shape: &[usize], idx: &[usize]) -> T {
    let pad = idx.len() - shape.len();
    let mut flat = 0;
    for d in 0..shape.len() {
        let i = if shape[d] == 1 { 0 } else { idx[pad + d] };
        flat = flat * shape[d] + i;
    }
    data[flat]
}

fn broadcast_shape(a: &[usize], b: &[usize]) -> Vec<usize> {
    stridex::broadcast_shapes(a, b).unwrap()
}

/// Reference for a binary op: a naive loop over contiguous copies.
fn reference<A: stridex::Element, B: stridex::Element, O>(
    a: &Tensor<A>,
    b: &Tensor<B>,
    f: impl Fn(A, B) -> O,
) -> Vec<O> {
    let (ac, bc) = (a.contiguous(), b.contiguous());
    let (ad, bd) = (ac.to_vec(), bc.to_vec());
    let shape = broadcast_shape(a.shape(), b.shape());
    indices(&shape)
        .iter()
        .map(|i| f(at(&ad, a.shape(), i), at(&bd, b.shape(), i)))
        .collect()
}

fn pair_views() -> impl Strategy<Value = (ViewSpec, ViewSpec)> {
    broadcast_pair().prop_flat_map(|(a, b)| (view_spec(a), view_spec(b)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(64)
    ))]

    #[test]
    fn integer_arithmetic_matches_reference((sa, sb) in pair_views()) {
        let a = build(&sa, |i| (i as i32).wrapping_mul(7919) % 1000 - 500);
        let b = build(&sb, |i| (i as i32 * 31) % 97 - 48);
        prop_assert_eq!((&a + &b).unwrap().to_vec(), reference(&a, &b, i32::wrapping_add));
        prop_assert_eq!((&a - &b).unwrap().to_vec(), reference(&a, &b, i32::wrapping_sub));
        prop_assert_eq!((&a * &b).unwrap().to_vec(), reference(&a, &b, i32::wrapping_mul));
        prop_assert_eq!(a.maximum(&b).unwrap().to_vec(), reference(&a, &b, i32::max));
        prop_assert_eq!(a.cmp_lt(&b).unwrap().to_vec(), reference(&a, &b, |x, y| u8::from(x < y)));
        prop_assert_eq!(a.cmp_eq(&b).unwrap().to_vec(), reference(&a, &b, |x, y| u8::from(x == y)));
        let shape = broadcast_shape(a.shape(), b.shape());
        let sum = (&a + &b).unwrap();
        prop_assert_eq!(sum.shape(), &shape[..]);
        // Integer division: an error exactly when some divisor element is zero.
        let any_zero = b.to_vec().contains(&0) && shape.iter().product::<usize>() > 0;
        match a.div(&b) {
            Ok(q) => {
                prop_assert!(!any_zero);
                prop_assert_eq!(q.to_vec(), reference(&a, &b, i32::wrapping_div));
            }
            Err(e) => {
                prop_assert!(any_zero);
                prop_assert_eq!(e, stridex::Error::DivisionByZero { op: "div" });
            }
        }
    }

    #[test]
    fn float_ops_match_reference((sa, sb) in pair_views()) {
        let a = build(&sa, |i| (i % 13) as f64 * 0.5 - 3.0);
        let b = build(&sb, |i| (i % 7) as f64 + 0.25);
        prop_assert_eq!((&a / &b).unwrap().to_vec(), reference(&a, &b, |x, y| x / y));
        prop_assert_eq!(a.zip_map(&b, |x, y| x.mul_add(y, 1.0)).unwrap().to_vec(),
            reference(&a, &b, |x, y| x.mul_add(y, 1.0)));
        let ac = a.contiguous().to_vec();
        prop_assert_eq!(a.abs().to_vec(), ac.iter().map(|x| x.abs()).collect::<Vec<_>>());
        prop_assert_eq!((-&a).to_vec(), ac.iter().map(|x| -x).collect::<Vec<_>>());
        prop_assert_eq!(a.exp().to_vec(), ac.iter().map(|x| x.exp()).collect::<Vec<_>>());
        prop_assert_eq!(a.mul_scalar(3.0).to_vec(), ac.iter().map(|x| x * 3.0).collect::<Vec<_>>());
    }

    #[test]
    fn where_and_casts_match_reference((sa, sb) in pair_views()) {
        let a = build(&sa, |i| (i % 11) as f32 - 5.5);
        let b = build(&sb, |i| (i % 5) as f32);
        let cond = a.cmp_gt(&b).unwrap();
        let w = Tensor::where_cond(&cond, &a, &b).unwrap();
        prop_assert_eq!(w.to_vec(), reference(&a, &b, |x, y| if x > y { x } else { y }));
        let ac = a.contiguous().to_vec();
        prop_assert_eq!(a.cast::<i16>().to_vec(), ac.iter().map(|&x| x as i16).collect::<Vec<_>>());
        prop_assert_eq!(a.cast::<u8>().to_vec(), ac.iter().map(|&x| x as u8).collect::<Vec<_>>());
        let h = a.cast::<half::bf16>();
        prop_assert_eq!(h.to_vec(), ac.iter().map(|&x| half::bf16::from_f32(x)).collect::<Vec<_>>());
        prop_assert_eq!(h.cast::<f32>().to_vec(), ac);
    }

    #[test]
    fn unary_map_follows_dense_inputs(spec in shape_strategy(4, 5).prop_flat_map(view_spec)) {
        let a = build(&spec, |i| i as i64);
        let m = a.map(|x| x * 2 + 1);
        let want: Vec<i64> = a.contiguous().to_vec().iter().map(|x| x * 2 + 1).collect();
        prop_assert_eq!(m.to_vec(), want);
        prop_assert_eq!(m.shape(), a.shape());
        // The output is dense (row-major or following a dense input), at offset 0.
        prop_assert!(m.layout().is_non_overlapping_and_dense());
        if a.layout().is_non_overlapping_and_dense() && a.numel() > 0 {
            // Same order of the non-unit dims as the input.
            let big: Vec<usize> = (0..a.ndim()).filter(|&d| a.shape()[d] > 1).collect();
            for w in big.windows(2) {
                prop_assert_eq!(
                    a.strides()[w[0]] > a.strides()[w[1]],
                    m.strides()[w[0]] > m.strides()[w[1]]
                );
            }
        }
    }

    #[test]
    fn tiled_transposes_match_reference(
        rows in 1usize..=140,
        cols in prop_oneof![1usize..=40, 500usize..=530, 2040usize..=2060],
        off in 0usize..3,
        flip in any::<bool>()
    ) {
        let n = (rows + off) * (cols + off);
        let base = Tensor::from_vec((0..n as u32).collect(), &[cols + off, rows + off]).unwrap();
        let mut b = base.narrow(0, off, cols).unwrap().narrow(1, off, rows).unwrap().t().unwrap();
        if flip {
            b = b.flip(0).unwrap();
        }
        let a = Tensor::from_vec((0..(rows * cols) as u32).map(|x| x * 3).collect(), &[rows, cols]).unwrap();
        prop_assert_eq!((&a + &b).unwrap().to_vec(), reference(&a, &b, u32::wrapping_add));
        prop_assert_eq!(a.cmp_ge(&b).unwrap().to_vec(), reference(&a, &b, |x, y| u8::from(x >= y)));
        let h = b.cast::<half::f16>();
        prop_assert_eq!(h.to_vec(), b.contiguous().to_vec().iter().map(|&x| half::f16::from_f32(x as f32)).collect::<Vec<_>>());
    }

    #[test]
    fn reductions_match_reference(
        (spec, dims_mask, keepdim) in shape_strategy(4, 5).prop_flat_map(|s| {
            let n = s.len();
            (view_spec(s), proptest::collection::vec(any::<bool>(), n), any::<bool>())
        })
    ) {
        let a = build(&spec, |i| ((i * 37) % 11) as i64 - 5);
        let dims: Vec<usize> = (0..a.ndim()).filter(|&d| dims_mask[d]).collect();
        let data = a.contiguous().to_vec();
        let shape = a.shape().to_vec();
        // Reference: fold every input element into its output element, in row-major order.
        let out_shape: Vec<usize> = (0..shape.len())
            .filter(|&d| keepdim || !dims_mask[d])
            .map(|d| if dims_mask[d] { 1 } else { shape[d] })
            .collect();
        let out_n: usize = out_shape.iter().product();
        let count: usize = dims.iter().map(|&d| shape[d]).product();
        let mut groups: Vec<Vec<(usize, i64)>> = vec![vec![]; out_n];
        for (flat, idx) in indices(&shape).iter().enumerate() {
            let (mut o, mut r) = (0usize, 0usize);
            for d in 0..shape.len() {
                if dims_mask[d] {
                    r = r * shape[d] + idx[d];
                } else {
                    o = o * shape[d] + idx[d];
                }
            }
            groups[o].push((r, data[flat]));
        }
        let sum: Vec<i64> = groups.iter().map(|g| g.iter().map(|x| x.1).sum()).collect();
        let got = a.sum_dims(&dims, keepdim).unwrap();
        prop_assert_eq!(got.shape(), &out_shape[..]);
        prop_assert_eq!(got.to_vec(), sum.clone());
        let prod: Vec<i64> = groups.iter().map(|g| g.iter().fold(1i64, |p, x| p.wrapping_mul(x.1))).collect();
        prop_assert_eq!(a.prod_dims(&dims, keepdim).unwrap().to_vec(), prod);
        let af = a.cast::<f64>();
        let mean: Vec<f64> = sum.iter().map(|&s| s as f64 / count as f64).collect();
        let got_mean = af.mean_dims(&dims, keepdim).unwrap().to_vec();
        for (g, w) in got_mean.iter().zip(&mean) {
            prop_assert!(g == w || (g.is_nan() && w.is_nan()) || (g - w).abs() < 1e-12, "{} vs {}", g, w);
        }
        if count == 0 && out_n > 0 {
            prop_assert!(a.max_dims(&dims, keepdim).is_err());
            prop_assert!(a.argmin_dims(&dims, keepdim).is_err());
        } else {
            let max: Vec<i64> = groups.iter().map(|g| g.iter().map(|x| x.1).max().unwrap_or(0)).collect();
            let min: Vec<i64> = groups.iter().map(|g| g.iter().map(|x| x.1).min().unwrap_or(0)).collect();
            // First position of the extreme value.
            let argmax: Vec<i64> = groups.iter().zip(&max).map(|(g, m)| {
                g.iter().filter(|x| x.1 == *m).map(|x| x.0).min().unwrap_or(0) as i64
            }).collect();
            let argmin: Vec<i64> = groups.iter().zip(&min).map(|(g, m)| {
                g.iter().filter(|x| x.1 == *m).map(|x| x.0).min().unwrap_or(0) as i64
            }).collect();
            prop_assert_eq!(a.max_dims(&dims, keepdim).unwrap().to_vec(), max);
            prop_assert_eq!(a.min_dims(&dims, keepdim).unwrap().to_vec(), min);
            prop_assert_eq!(a.argmax_dims(&dims, keepdim).unwrap().to_vec(), argmax);
            prop_assert_eq!(a.argmin_dims(&dims, keepdim).unwrap().to_vec(), argmin);
        }
        if out_n == 1 || dims.len() == shape.len() {
            prop_assert_eq!(a.sum_all(), data.iter().sum::<i64>());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(64) / 4 + 1
    ))]

    /// Reductions long enough to split into pairwise trees (runs of > 512 elements, > 32 rows),
    /// on permuted, sliced and flipped views.
    #[test]
    fn long_reductions_match_reference(
        (spec, dim) in (proptest::collection::vec(1usize..=70, 3), 0usize..3)
            .prop_map(|(mut s, d)| { s[2] = s[2] % 4 + 1; (s, d) })
            .prop_flat_map(|(s, d)| (view_spec(s), Just(d)))
    ) {
        let a = build(&spec, |i| ((i * 7919) % 23) as i64 - 11);
        let shape = a.shape().to_vec();
        let data = a.contiguous().to_vec();
        for dims in [vec![dim], vec![dim, (dim + 1) % 3], vec![0, 1, 2]] {
            let mask: Vec<bool> = (0..3).map(|d| dims.contains(&d)).collect();
            let mut sums = std::collections::BTreeMap::<Vec<usize>, (i64, (i64, usize))>::new();
            for (flat, idx) in indices(&shape).iter().enumerate() {
                let key: Vec<usize> = (0..3).filter(|&d| !mask[d]).map(|d| idx[d]).collect();
                let pos = (0..3).filter(|&d| mask[d]).fold(0, |p, d| p * shape[d] + idx[d]);
                let e = sums.entry(key).or_insert((0, (i64::MIN, 0)));
                e.0 += data[flat];
                if data[flat] > e.1 .0 {
                    e.1 = (data[flat], pos);
                }
            }
            let want_sum: Vec<i64> = sums.values().map(|v| v.0).collect();
            let want_arg: Vec<i64> = sums.values().map(|v| v.1 .1 as i64).collect();
            prop_assert_eq!(a.sum_dims(&dims, false).unwrap().to_vec(), want_sum.clone());
            prop_assert_eq!(a.argmax_dims(&dims, false).unwrap().to_vec(), want_arg);
            let f = a.cast::<f32>().sum_dims(&dims, false).unwrap().to_vec();
            prop_assert_eq!(f, want_sum.iter().map(|&s| s as f32).collect::<Vec<_>>());
        }
    }
}

/// Runs `f` on a rayon pool of `threads` threads.
fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn parallel_elementwise_ops_match_serial_and_reference() {
    // Above the parallel threshold (2^17 elements), with a transposed (tiled) and a
    // broadcast operand.
    let (r, c) = (600, 257);
    let a = Tensor::from_vec((0..r * c).map(|i| (i % 1009) as f32).collect(), &[r, c]).unwrap();
    let b = Tensor::from_vec((0..r * c).map(|i| (i % 17) as f32).collect(), &[c, r]).unwrap();
    let bt = b.t().unwrap();
    let row = Tensor::from_vec((0..c).map(|i| i as f32).collect(), &[c]).unwrap();
    let want_t = reference(&a, &bt, |x, y| x - y);
    let want_r = reference(&a, &row, |x, y| x * y);
    for threads in [1, 2, 3] {
        let (t, rr, flipped) = with_threads(threads, || {
            (
                (&a - &bt).unwrap().to_vec(),
                (&a * &row).unwrap().to_vec(),
                a.flip(1).unwrap().map(|x| x + 1.0).to_vec(),
            )
        });
        assert_eq!(t, want_t, "{threads} threads");
        assert_eq!(rr, want_r, "{threads} threads");
        let want_f: Vec<f32> = a
            .flip(1)
            .unwrap()
            .to_vec()
            .iter()
            .map(|x| x + 1.0)
            .collect();
        assert_eq!(flipped, want_f, "{threads} threads");
    }
}

#[test]
fn reductions_are_identical_for_every_thread_count() {
    let n = 1 << 18;
    let data: Vec<f32> = (0..n)
        .map(|i| ((i * 2654435761usize) % 10007) as f32 * 1e-3)
        .collect();
    let flat = Tensor::from_vec(data.clone(), &[n]).unwrap();
    let m = flat.view(&[512, 512]).unwrap();
    let tall = flat.view(&[1 << 16, 4]).unwrap();
    let run = || {
        (
            flat.sum_all(),
            m.sum_dim(0, false).unwrap().to_vec(),
            m.sum_dim(1, false).unwrap().to_vec(),
            m.t().unwrap().mean_dim(1, true).unwrap().to_vec(),
            tall.sum_dim(0, false).unwrap().to_vec(),
            m.argmax_dim(0, false).unwrap().to_vec(),
        )
    };
    let one = with_threads(1, run);
    for threads in [2, 3, 4] {
        let other = with_threads(threads, run);
        assert_eq!(one.0.to_bits(), other.0.to_bits(), "{threads} threads");
        assert_eq!(one.1, other.1);
        assert_eq!(one.2, other.2);
        assert_eq!(one.3, other.3);
        assert_eq!(one.4, other.4);
        assert_eq!(one.5, other.5);
    }
    // And they are accurate: the pairwise sum is within a few ulps of an f64 sum.
    let exact: f64 = data.iter().map(|&x| x as f64).sum();
    assert!(
        ((one.0 as f64 - exact) / exact).abs() < 1e-6,
        "{} vs {exact}",
        one.0
    );
    let col0: f64 = (0..512).map(|r| data[r * 512] as f64).sum();
    assert!(((one.1[0] as f64 - col0) / col0).abs() < 1e-6);
}

#[test]
fn float_sums_are_pairwise_not_running() {
    // 2^24 + 1 ones: a running f32 sum stalls at 2^24; a pairwise sum is exact.
    let n = (1 << 24) + 1;
    let ones = Tensor::full(&[n], 1.0f32).unwrap();
    assert_eq!(ones.sum_all(), n as f32);
    // 2^20 rows of 0.1 per column: a running sum drifts by ~1e-2 relative, pairwise by ~1e-7.
    let rows = 1 << 20;
    let tenths = Tensor::full(&[rows, 4], 0.1f32).unwrap();
    let exact = 0.1f32 as f64 * rows as f64;
    for (dim, t) in [(0, tenths.clone()), (1, tenths.t().unwrap())] {
        for s in t.sum_dim(dim, false).unwrap().to_vec() {
            assert!(
                ((s as f64 - exact) / exact).abs() < 1e-6,
                "dim {dim}: {s} vs {exact}"
            );
        }
    }
}

#[test]
fn no_op_copies_an_operand() {
    // Transposed, narrowed, flipped, expanded and as_strided views, computed on directly.
    let a = Tensor::from_vec((0..600).map(|i| i as f32).collect(), &[20, 30]).unwrap();
    let t = a.t().unwrap(); // [30, 20]
    let n = a.narrow(1, 5, 20).unwrap().flip(0).unwrap(); // [20, 20]
    let e = a.narrow(0, 3, 1).unwrap().expand(&[30, 30]).unwrap(); // a row, broadcast
    let s = a.as_strided(&[20, 20], &[1, 30], 7).unwrap();
    let (_, report) = stridex::audit::record(|| {
        let x = (&t.narrow(0, 0, 20).unwrap() + &n).unwrap();
        let y = (&x * &s).unwrap();
        let z = Tensor::where_cond(&y.cmp_gt(&x).unwrap(), &y, &n).unwrap();
        let col = t.narrow(1, 0, 1).unwrap(); // [30, 1], broadcast against [30, 30]
        let m = (&e - &col).unwrap().map(|v| v * 2.0).cast::<half::bf16>();
        (
            z.sum_dim(0, false).unwrap(),
            t.mean_dims(&[0, 1], true).unwrap(),
            n.argmax_dim(1, false).unwrap(),
            m.max_all().unwrap(),
            s.sqrt().prod_dim(1, false).unwrap(),
        )
    });
    assert_eq!(report.count(), 0, "{:?}", report.events());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(64)
    ))]

    /// Sums and means over the last dim of small row-major tensors (the direct path, AVX2
    /// intrinsics for `f32` / `f64` rows) give the bits the planned path gives for the same
    /// rows in a narrowed view, which the direct path declines (its rows are not adjacent).
    #[test]
    fn small_row_sums_match_the_planned_path(
        rows in 2usize..=20,
        len in 2usize..=600,
        pad in 1usize..=3,
        seed in any::<u64>(),
    ) {
        let mut s = seed | 1;
        let mut next = move || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Magnitudes from 1e-3 to 1e3 and both signs, so every reordering rounds.
            let m = ((s >> 11) as f64 / (1u64 << 53) as f64) * 6.0 - 3.0;
            if s >> 63 == 1 { 10f64.powf(m) } else { -(10f64.powf(m)) }
        };
        let wide: Vec<f64> = (0..rows * (len + pad)).map(|_| next()).collect();
        let view = Tensor::from_vec(wide, &[rows, len + pad]).unwrap().narrow(1, 0, len).unwrap();
        let dense = view.contiguous();
        prop_assert!(!view.is_contiguous() && dense.is_contiguous());
        let bits64 = |t: Tensor<f64>| t.to_vec().into_iter().map(f64::to_bits).collect::<Vec<_>>();
        let bits32 = |t: Tensor<f32>| t.to_vec().into_iter().map(f32::to_bits).collect::<Vec<_>>();
        prop_assert_eq!(bits64(dense.sum_dim(1, false).unwrap()), bits64(view.sum_dim(1, false).unwrap()));
        prop_assert_eq!(bits64(dense.mean_dim(1, true).unwrap()), bits64(view.mean_dim(1, true).unwrap()));
        let (view, dense) = (view.cast::<f32>(), dense.cast::<f32>());
        prop_assert_eq!(bits32(dense.sum_dim(1, false).unwrap()), bits32(view.sum_dim(1, false).unwrap()));
        prop_assert_eq!(bits32(dense.mean_dim(1, false).unwrap()), bits32(view.mean_dim(1, false).unwrap()));
    }
}
