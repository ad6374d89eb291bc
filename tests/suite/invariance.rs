//! Note [canonical order] checked from outside: the same logical values give the same bits
//! whatever their layout (transposed, dims reversed or permuted, channels-last, flipped,
//! offset, stepped), whatever the batch around them (rows, columns, matrix rows and columns,
//! batch dims), whatever the thread count and whatever SIMD path runs.
//!
//! Every comparison is of bits (`bytemuck` bytes of the results), never of values within a
//! tolerance: two layouts that round differently fail here.

use proptest::prelude::*;
use stridex::simd::{SimdLevel, set_max_simd_level, simd_level};
use stridex::{FloatElement, MemoryFormat, Tensor};

use crate::common::{TestResult, config};

/// The bytes of a tensor's elements in logical order.
fn bits<T: FloatElement>(t: &Tensor<T>) -> Vec<u8> {
    bytemuck::cast_slice::<T, u8>(&t.to_vec()).to_vec()
}

/// Values in [-1, 1) with rounding in every addition, from a seed, as `T`.
fn values<T: FloatElement>(n: usize, seed: u64) -> Vec<T> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let u = (s >> 11) as f64 / (1u64 << 53) as f64;
            T::from(2.0 * u - 1.0).expect("a value in [-1, 1)")
        })
        .collect()
}

/// `x` dense in the order `perm` (dims of `x`, outermost first), viewed back in `x`'s order.
fn dense_in_order<T: FloatElement>(x: &Tensor<T>, perm: &[usize]) -> Tensor<T> {
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    x.permute(perm).unwrap().contiguous().permute(&inv).unwrap()
}

/// The same logical tensor as `x` (row-major) in every layout the tests know, named.
fn layouts<T: FloatElement>(x: &Tensor<T>) -> Vec<(String, Tensor<T>)> {
    let nd = x.ndim();
    let shape = x.shape().to_vec();
    let n = x.numel();
    let mut out = vec![("row-major".to_string(), x.clone())];
    let reversed: Vec<usize> = (0..nd).rev().collect();
    out.push(("dims reversed".into(), dense_in_order(x, &reversed)));
    if nd >= 3 {
        let rotated: Vec<usize> = (1..nd).chain([0]).collect();
        out.push((format!("permuted {rotated:?}"), dense_in_order(x, &rotated)));
    }
    if nd == 4 {
        let cl = x.contiguous_in(MemoryFormat::ChannelsLast).unwrap();
        out.push(("channels-last".into(), cl));
    }
    for d in 0..nd {
        let f = x.flip(d).unwrap().contiguous().flip(d).unwrap();
        out.push((format!("flipped dim {d}"), f));
    }
    // Offset: the values 5 elements into a longer buffer.
    let mut padded = values::<T>(5, 99);
    padded.extend(x.to_vec());
    let off = Tensor::from_vec(padded, &[n + 5])
        .unwrap()
        .narrow(0, 5, n)
        .unwrap()
        .view(&shape)
        .unwrap();
    out.push(("offset 5".into(), off));
    // Stepped: every other element of a buffer twice as long along the last dim.
    if nd >= 1 {
        let last = shape[nd - 1];
        let mut wide_shape = shape.clone();
        wide_shape[nd - 1] = 2 * last;
        let src = x.to_vec();
        let junk = values::<T>(n, 7);
        let mut buf = Vec::with_capacity(2 * n);
        for (i, (&v, &j)) in src.iter().zip(&junk).enumerate() {
            let _ = i;
            buf.push(v);
            buf.push(j);
        }
        let wide = Tensor::from_vec(buf, &wide_shape).unwrap();
        let stepped = wide.slice_step(nd - 1, .., 2).unwrap();
        out.push(("stepped".into(), stepped));
    }
    for (name, t) in &out {
        assert!(bits(t) == bits(x), "{name}: not the same logical values");
    }
    out
}

/// The reductions under test, by name, each giving one tensor's bytes (or `None` where the
/// op does not apply to the shape).
type Op<T> = (&'static str, fn(&Tensor<T>) -> Option<Vec<u8>>);

fn ops<T: FloatElement>() -> Vec<Op<T>> {
    vec![
        ("sum_dim(0)", |x| Some(bits(&x.sum_dim(0, false).ok()?))),
        ("sum_dim(-1)", |x| Some(bits(&x.sum_dim(-1, false).ok()?))),
        ("sum_dims(0, -1)", |x| {
            (x.ndim() >= 2).then(|| bits(&x.sum_dims(&[0, -1], false).unwrap()))
        }),
        ("sum_dims(-2, -1)", |x| {
            (x.ndim() >= 3).then(|| bits(&x.sum_dims(&[-2, -1], true).unwrap()))
        }),
        ("sum_all", |x| {
            Some(bytemuck::bytes_of(&x.sum_all()).to_vec())
        }),
        ("mean_dim(-1)", |x| Some(bits(&x.mean_dim(-1, false).ok()?))),
        ("mean_dims(0, 1)", |x| {
            (x.ndim() >= 2).then(|| bits(&x.mean_dims(&[0, 1], false).unwrap()))
        }),
        ("prod_dim(0)", |x| Some(bits(&x.prod_dim(0, false).ok()?))),
        ("max_dim(-1)", |x| Some(bits(&x.max_dim(-1, false).ok()?))),
        ("argmin_dim(0)", |x| {
            let a = x.argmin_dim(0, false).ok()?.to_vec();
            Some(bytemuck::cast_slice::<i64, u8>(&a).to_vec())
        }),
        ("norm_dim(2, -1)", |x| {
            Some(bits(&x.norm_dim(-1, false, 2.0).ok()?))
        }),
        ("logsumexp_dim(0)", |x| {
            Some(bits(&x.logsumexp_dim(0, false).ok()?))
        }),
        ("var_dim(-1)", |x| {
            Some(bits(&x.var_dim(-1, false, 1).ok()?))
        }),
        ("var_dim(0, true, 0)", |x| {
            Some(bits(&x.var_dim(0, true, 0).ok()?))
        }),
        ("std_dim(-1)", |x| {
            Some(bits(&x.std_dim(-1, false, 1).ok()?))
        }),
        ("std_dim(0)", |x| Some(bits(&x.std_dim(0, false, 1).ok()?))),
        ("softmax(-1)", |x| Some(bits(&x.softmax(-1).ok()?))),
        ("softmax(0)", |x| Some(bits(&x.softmax(0).ok()?))),
        ("log_softmax(-1)", |x| Some(bits(&x.log_softmax(-1).ok()?))),
        ("log_softmax(0)", |x| Some(bits(&x.log_softmax(0).ok()?))),
        ("cumsum(-1)", |x| Some(bits(&x.cumsum(-1).ok()?))),
        ("cumsum(0)", |x| Some(bits(&x.cumsum(0).ok()?))),
    ]
}

/// Every op of [`ops`] on every layout of `x` gives the row-major layout's bits.
fn same_across_layouts<T: FloatElement>(x: &Tensor<T>) -> Result<(), String> {
    let all = layouts(x);
    let mut wrong = Vec::new();
    for (op, f) in ops::<T>() {
        let Some(want) = f(&all[0].1) else { continue };
        for (name, t) in &all[1..] {
            let got = f(t).expect("the op applies to every layout of one shape");
            if got != want {
                wrong.push(format!("{op} {name}"));
            }
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("shape {:?}: {}", x.shape(), wrong.join(", ")))
    }
}

fn tensor<T: FloatElement>(shape: &[usize], seed: u64) -> Tensor<T> {
    let n = shape.iter().product();
    Tensor::from_vec(values::<T>(n, seed), shape).unwrap()
}

/// Shapes across the kernels' thresholds: one leaf (512) and more, short rows for the small
/// path, long reduced dims, size-1 dims, and the 4-D shapes channels-last applies to.
const SHAPES: &[&[usize]] = &[
    &[7],
    &[1000],
    &[3, 5],
    &[4, 513],
    &[600, 3],
    &[33, 70],
    &[2, 1, 9],
    &[5, 6, 7],
    &[3, 40, 50],
    &[2, 3, 4, 5],
    &[2, 8, 5, 6],
    &[1, 3, 1, 4],
    // Reduced dims against the memory order: several staged windows, leaves straddling
    // them, and rows longer than a window.
    &[100, 700],
    &[3, 20000],
];

#[test]
fn every_layout_gives_the_same_bits_f32_f64() {
    let mut wrong = Vec::new();
    for (i, shape) in SHAPES.iter().enumerate() {
        wrong.extend(same_across_layouts(&tensor::<f32>(shape, i as u64)).err());
        wrong.extend(same_across_layouts(&tensor::<f64>(shape, i as u64)).err());
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_layout_gives_the_same_bits_f16_bf16() {
    let mut wrong = Vec::new();
    for (i, shape) in SHAPES.iter().enumerate() {
        wrong.extend(same_across_layouts(&tensor::<half::f16>(shape, i as u64)).err());
        wrong.extend(same_across_layouts(&tensor::<half::bf16>(shape, i as u64)).err());
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The issue's own case: a 512 x 4096 matrix stored row-major and column-major.
#[test]
fn a_large_matrix_row_major_and_column_major() {
    let x = tensor::<f32>(&[512, 4096], 3);
    let c = x.t().unwrap().contiguous().t().unwrap();
    for dim in [0, 1] {
        assert_eq!(
            bits(&x.sum_dim(dim, false).unwrap()),
            bits(&c.sum_dim(dim, false).unwrap()),
            "sum_dim({dim})"
        );
    }
    assert_eq!(x.sum_all().to_bits(), c.sum_all().to_bits());
    // The doc example's form.
    assert_eq!(
        x.t()
            .unwrap()
            .contiguous()
            .t()
            .unwrap()
            .sum_dim(1, false)
            .unwrap(),
        x.sum_dim(1, false).unwrap()
    );
}

/// Column 0 of a sum over dim 0 is the same whatever the number of columns beside it, and
/// row 0 of a sum over dim 1 whatever the rows below it.
#[test]
fn batch_size_does_not_change_a_result() {
    let x = tensor::<f32>(&[512, 4096], 11);
    let alone = x
        .narrow(1, 0, 1)
        .unwrap()
        .contiguous()
        .sum_dim(0, false)
        .unwrap();
    for w in [2, 8, 64, 1000, 4096] {
        let cols = x.narrow(1, 0, w).unwrap();
        for t in [cols.clone(), cols.contiguous()] {
            let s = t.sum_dim(0, false).unwrap();
            assert_eq!(
                s.get(&[0]).unwrap().to_bits(),
                alone.get(&[0]).unwrap().to_bits(),
                "width {w}"
            );
        }
    }
    let row = x.narrow(0, 0, 1).unwrap().sum_dim(1, false).unwrap();
    for h in [2, 5, 64, 512] {
        let s = x.narrow(0, 0, h).unwrap().sum_dim(1, false).unwrap();
        assert_eq!(
            s.get(&[0]).unwrap().to_bits(),
            row.get(&[0]).unwrap().to_bits()
        );
    }
}

/// Each SIMD level this CPU has, forced, gives the portable path's bits.
#[test]
fn every_simd_path_gives_the_same_bits() {
    let top = simd_level();
    let levels: Vec<SimdLevel> = [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512]
        .into_iter()
        .filter(|&l| l <= top)
        .collect();
    let inputs: Vec<Tensor<f32>> = SHAPES
        .iter()
        .enumerate()
        .map(|(i, s)| tensor::<f32>(s, 100 + i as u64))
        .chain([tensor::<f32>(&[64, 4096], 5)])
        .collect();
    let run = || -> Vec<Vec<u8>> {
        inputs
            .iter()
            .flat_map(|x| layouts(x).into_iter().map(|(_, t)| t))
            .flat_map(|t| ops::<f32>().into_iter().filter_map(move |(_, f)| f(&t)))
            .collect()
    };
    let mut results = Vec::new();
    for &level in &levels {
        let before = set_max_simd_level(level);
        results.push((level, run()));
        set_max_simd_level(before);
    }
    for (level, r) in &results[1..] {
        assert!(
            r == &results[0].1,
            "{level:?} differs from the portable path"
        );
    }
}

proptest! {
    #![proptest_config(config(12))]

    /// Random shapes of 1 to 4 dims (sizes across the leaf of 512 and the small-path limit),
    /// every layout, every op.
    #[test]
    fn random_shapes_every_layout(
        shape in prop::collection::vec(1usize..9, 1..=4)
            .prop_flat_map(|s| {
                let n = s.len();
                (Just(s), 0..n, prop::sample::select(vec![1usize, 2, 9, 64, 520, 1100]))
            })
            .prop_map(|(mut s, d, big)| { s[d] = big; s })
            .prop_filter("at most 40000 elements", |s| s.iter().product::<usize>() <= 40_000),
        seed in any::<u64>(),
    ) {
        let r: TestResult = same_across_layouts(&tensor::<f32>(&shape, seed))
            .map_err(proptest::test_runner::TestCaseError::fail);
        r?;
    }

    /// Thread counts 1 to 4 give the same bits for every op and layout.
    #[test]
    fn thread_counts(rows in 1usize..300, cols in 1usize..700, seed in any::<u64>()) {
        let x = tensor::<f32>(&[rows, cols], seed);
        let run = || -> Vec<Vec<u8>> {
            layouts(&x)
                .into_iter()
                .flat_map(|(_, t)| ops::<f32>().into_iter().filter_map(move |(_, f)| f(&t)))
                .collect()
        };
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(run);
        for threads in 2..=4 {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            prop_assert!(pool.install(run) == one, "{threads} threads");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Matrix products: each element of C is one chain of fused multiply-adds over `k` in order,
// started at C's value when accumulating, at zero otherwise, on every path (the small direct
// tiles, the packed GEMM with its `k` blocks, M = 1 and N = 1, batches, every SIMD level).
// ---------------------------------------------------------------------------------------------

/// `a @ b` row `i`, as bytes.
fn row_bits<T: FloatElement>(c: &Tensor<T>, i: usize) -> Vec<u8> {
    bits(&c.select(0, i).unwrap())
}

/// A matrix with the same values as `x` stored column-major.
fn col_major<T: FloatElement>(x: &Tensor<T>) -> Tensor<T> {
    x.t().unwrap().contiguous().t().unwrap()
}

fn matmul_batch_invariance<T: FloatElement + stridex::matmul::MatmulElement>() {
    // Row 0 of A[:M] @ B for every M: 1 (the vector product), small tiles, packed blocks.
    for &(n, k) in &[
        (8usize, 1000usize),
        (200, 1),
        (200, 100),
        (200, 1000),
        (37, 700),
    ] {
        let a = tensor::<T>(&[512, k], (n * k) as u64);
        let b = tensor::<T>(&[k, n], 1 + (n * k) as u64);
        let want = row_bits(&a.narrow(0, 0, 1).unwrap().matmul(&b).unwrap(), 0);
        for m in [2, 5, 17, 64, 200, 512] {
            let am = a.narrow(0, 0, m).unwrap();
            for (name, lhs, rhs) in [
                ("row-major", am.clone(), b.clone()),
                ("A column-major", col_major(&am), b.clone()),
                ("B column-major", am.clone(), col_major(&b)),
            ] {
                let c = lhs.matmul(&rhs).unwrap();
                assert!(row_bits(&c, 0) == want, "M = {m}, N = {n}, K = {k}, {name}");
                assert!(
                    row_bits(&c, m - 1)
                        == row_bits(&lhs.narrow(0, m - 1, 1).unwrap().matmul(&rhs).unwrap(), 0),
                    "last row, M = {m}, N = {n}, K = {k}, {name}"
                );
            }
        }
    }
    // Column 0 of A @ B[:, :N'] for every N'.
    let (m, k) = (8, 1000);
    let a = tensor::<T>(&[m, k], 21);
    let b = tensor::<T>(&[k, 300], 22);
    let col0 = |c: &Tensor<T>| bits(&c.select(1, 0).unwrap());
    let want = col0(&a.matmul(&b.narrow(1, 0, 1).unwrap()).unwrap());
    for n in [2, 7, 8, 9, 16, 64, 65, 100, 300] {
        let bn = b.narrow(1, 0, n).unwrap();
        assert!(col0(&a.matmul(&bn).unwrap()) == want, "N' = {n}");
        assert!(
            col0(&a.matmul(&bn.contiguous()).unwrap()) == want,
            "N' = {n}, dense"
        );
    }
    // A batch around a product changes nothing: batch 1 of a 3-D product is the 2-D one.
    let ab = tensor::<T>(&[3, 40, 300], 31);
    let bb = tensor::<T>(&[300, 24], 32);
    let batched = ab.matmul(&bb).unwrap();
    let single = ab.select(0, 1).unwrap().matmul(&bb).unwrap();
    assert!(bits(&batched.select(0, 1).unwrap()) == bits(&single));
}

#[test]
fn matmul_rows_and_columns_do_not_depend_on_the_batch() {
    matmul_batch_invariance::<f32>();
    matmul_batch_invariance::<f64>();
    matmul_batch_invariance::<half::f16>();
    matmul_batch_invariance::<half::bf16>();
}

/// Accumulating is one chain from C's value: `C += A @ B` in one call gives the bits of the
/// chain whatever the path, and a transposed (column-major) destination the same bits.
#[test]
fn matmul_into_accumulates_as_one_chain() {
    for &(m, n, k) in &[
        (1usize, 50usize, 900usize),
        (4, 4, 4),
        (9, 30, 700),
        (100, 90, 500),
    ] {
        let a = tensor::<f32>(&[m, k], 41);
        let b = tensor::<f32>(&[k, n], 42);
        let c0 = tensor::<f32>(&[m, n], 43);
        let mut row_major = Tensor::from_vec(c0.to_vec(), &[m, n]).unwrap();
        a.matmul_into(&b, &mut row_major, true).unwrap();
        let mut col = Tensor::from_vec(c0.t().unwrap().to_vec(), &[n, m])
            .unwrap()
            .t()
            .unwrap();
        a.matmul_into(&b, &mut col, true).unwrap();
        assert!(bits(&row_major) == bits(&col), "{m}x{n}x{k}");
        // Element (0, 0) by hand: the chain from C's value, fused, in k order.
        let (av, bv) = (a.to_vec(), b.to_vec());
        let mut acc = c0.get(&[0, 0]).unwrap();
        for p in 0..k {
            acc = av[p].mul_add(bv[p * n], acc);
        }
        assert_eq!(
            row_major.get(&[0, 0]).unwrap().to_bits(),
            acc.to_bits(),
            "{m}x{n}x{k}"
        );
    }
}

/// Element (i, j) of a plain product is the fused chain from zero, whatever the shape's path.
#[test]
fn matmul_elements_are_the_fused_chain() {
    for &(m, n, k) in &[
        (1usize, 1usize, 5000usize),
        (3, 5, 7),
        (1, 300, 2000),
        (300, 1, 2000),
        (64, 64, 64),
        (130, 70, 1100),
    ] {
        let a = tensor::<f32>(&[m, k], 51);
        let b = tensor::<f32>(&[k, n], 52);
        let c = a.matmul(&b).unwrap();
        let (av, bv) = (a.to_vec(), b.to_vec());
        for (i, j) in [(0, 0), (m - 1, n - 1), (m / 2, n / 3)] {
            let mut acc = 0.0f32;
            for p in 0..k {
                acc = av[i * k + p].mul_add(bv[p * n + j], acc);
            }
            assert_eq!(
                c.get(&[i, j]).unwrap().to_bits(),
                acc.to_bits(),
                "({i}, {j}) of {m}x{n}x{k}"
            );
        }
    }
}

/// Each SIMD level and thread count gives the same product bits.
#[test]
fn matmul_simd_levels_and_threads() {
    let shapes = [
        (1usize, 200usize, 1000usize),
        (17, 8, 1000),
        (200, 1, 300),
        (130, 150, 700),
        (8, 64, 40),
    ];
    let run = || -> Vec<Vec<u8>> {
        shapes
            .iter()
            .flat_map(|&(m, n, k)| {
                let a = tensor::<f32>(&[m, k], 61);
                let b = tensor::<f32>(&[k, n], 62);
                let h = tensor::<half::bf16>(&[m, k], 63);
                let hb = tensor::<half::bf16>(&[k, n], 64);
                [
                    bits(&a.matmul(&b).unwrap()),
                    bits(&col_major(&a).matmul(&b).unwrap()),
                    bits(&h.matmul(&hb).unwrap()),
                ]
            })
            .collect()
    };
    let want = run();
    for level in [SimdLevel::Portable, SimdLevel::Avx2] {
        let before = set_max_simd_level(level);
        let got = run();
        set_max_simd_level(before);
        assert!(got == want, "{level:?}");
    }
    for threads in 1..=4 {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        assert!(pool.install(run) == want, "{threads} threads");
    }
}

/// A broadcast view reduces to the bits of its dense copy (whole-tensor float sums fold every
/// logical element; the stored-elements shortcut is for integers and astronomical counts).
#[test]
fn broadcast_views_reduce_as_their_dense_copies() {
    let row = tensor::<f32>(&[1, 700], 71);
    let e = row.expand(&[300, 700]).unwrap();
    let d = e.contiguous();
    assert!(!e.shares_storage(&d));
    assert_eq!(e.sum_all().to_bits(), d.sum_all().to_bits());
    assert_eq!(e.mean_all().to_bits(), d.mean_all().to_bits());
    assert_eq!(e.prod_all().to_bits(), d.prod_all().to_bits());
    for op in ops::<f32>() {
        assert!((op.1)(&e) == (op.1)(&d), "{}", op.0);
    }
    let col = tensor::<f64>(&[513, 1], 72);
    let e = col.expand(&[513, 40]).unwrap();
    let d = e.contiguous();
    assert_eq!(e.sum_all().to_bits(), d.sum_all().to_bits());
    for op in ops::<f64>() {
        assert!((op.1)(&e) == (op.1)(&d), "{}", op.0);
    }
    // Integers keep the shortcut: exact either way.
    let i = Tensor::from_vec(vec![3i64, -5], &[2]).unwrap();
    let e = i.expand(&[1000, 2]).unwrap();
    assert_eq!(e.sum_all(), e.contiguous().sum_all());
}

/// Max and min propagate NaN and the arg-reductions pick the first NaN, else the first
/// extreme: the same answer for every layout (ties and NaNs placed on purpose).
#[test]
fn extremes_with_ties_and_nans_do_not_depend_on_the_layout() {
    let mut v: Vec<f32> = (0..6 * 40).map(|i| ((i * 37) % 11) as f32).collect();
    v[7] = f32::NAN;
    v[100] = f32::NAN;
    v[101] = -f32::NAN;
    v[150] = 10.0; // ties with the 10s already there
    let x = Tensor::from_vec(v, &[6, 40]).unwrap();
    let all = layouts(&x);
    let arg = |t: &Tensor<f32>, d: usize, max: bool| -> Vec<i64> {
        if max {
            t.argmax_dim(d, false).unwrap().to_vec()
        } else {
            t.argmin_dim(d, false).unwrap().to_vec()
        }
    };
    for (name, t) in &all {
        for d in 0..2 {
            for max in [true, false] {
                assert_eq!(arg(t, d, max), arg(&x, d, max), "{name} dim {d} max {max}");
            }
            let m = t.max_dim(d, false).unwrap().to_vec();
            let want = x.max_dim(d, false).unwrap().to_vec();
            assert_eq!(
                m.iter().map(|v| v.is_nan()).collect::<Vec<_>>(),
                want.iter().map(|v| v.is_nan()).collect::<Vec<_>>(),
                "{name}"
            );
            for (a, b) in m.iter().zip(&want).filter(|(a, _)| !a.is_nan()) {
                assert_eq!(a.to_bits(), b.to_bits(), "{name}");
            }
        }
        assert_eq!(t.argmax_all().unwrap(), x.argmax_all().unwrap(), "{name}");
        assert_eq!(t.argmin_all().unwrap(), x.argmin_all().unwrap(), "{name}");
    }
}

/// Integer sums wrap, so their order never mattered; checked all the same.
#[test]
fn integer_reductions_do_not_depend_on_the_layout() {
    let x = Tensor::from_fn(&[9, 70], |i| {
        (i[0] as i32 * 1_000_003) ^ (i[1] as i32 * 7919)
    })
    .unwrap();
    let c = x.t().unwrap().contiguous().t().unwrap();
    for d in 0..2 {
        assert_eq!(x.sum_dim(d, false).unwrap(), c.sum_dim(d, false).unwrap());
        assert_eq!(x.prod_dim(d, false).unwrap(), c.prod_dim(d, false).unwrap());
    }
    assert_eq!(x.sum_all(), c.sum_all());
}

/// Column sums (the outer kernel, whose AVX2 form keeps eight lanes of a block of 64 rows):
/// every SIMD level gives the portable bits for `f32` and `f64`, for row counts around the
/// block and the leaf, widths around a register, more than one reduced dim, and an offset
/// view; and each column equals the canonical order written out here.
#[test]
fn column_sums_are_the_same_on_every_simd_path() {
    fn check<T: FloatElement>() {
        let top = simd_level();
        for &rows in &[1usize, 7, 63, 64, 65, 130, 513, 1100] {
            for &width in &[1usize, 7, 8, 9, 17, 33, 100] {
                let x = tensor::<T>(&[rows, width + 3], (rows * 131 + width) as u64);
                let view = x.narrow(1, 2, width).unwrap();
                let three = x.view(&[1, rows, width + 3]).unwrap();
                let run = || {
                    (
                        bits(&view.sum_dim(0, false).unwrap()),
                        bits(&three.sum_dims(&[0, 1], false).unwrap()),
                    )
                };
                let mut first = None;
                for level in [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512] {
                    if level > top {
                        continue;
                    }
                    let before = set_max_simd_level(level);
                    let got = run();
                    set_max_simd_level(before);
                    match &first {
                        None => first = Some(got),
                        Some(f) => assert!(
                            f == &got,
                            "{rows} x {width} {}: {level:?} differs from the portable path",
                            std::any::type_name::<T>()
                        ),
                    }
                }
                // The canonical order for at most one leaf: row `i` into lane `i % 8`, lanes
                // combined k + 4, k + 2, k + 1; above one leaf, compare with the 1-column
                // batch instead (Note [canonical order]: the batch does not matter).
                let v = view.to_vec();
                let expect: Vec<T> = (0..width)
                    .map(|c| {
                        if rows <= 512 {
                            let mut l = [T::zero(); 8];
                            for i in 0..rows {
                                l[i % 8] = l[i % 8] + v[i * width + c];
                            }
                            for w in [4, 2, 1] {
                                for k in 0..w {
                                    l[k] = l[k] + l[k + w];
                                }
                            }
                            l[0]
                        } else {
                            view.narrow(1, c, 1)
                                .unwrap()
                                .sum_dim(0, false)
                                .unwrap()
                                .to_vec()[0]
                        }
                    })
                    .collect();
                assert_eq!(
                    first.unwrap().0,
                    bytemuck::cast_slice::<T, u8>(&expect).to_vec(),
                    "{rows} x {width}"
                );
            }
        }
    }
    check::<f32>();
    check::<f64>();
}
