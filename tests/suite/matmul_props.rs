//! Property tests of `Tensor::matmul` / `matmul_into` against a naive triple loop in `f64`, on
//! small random shapes and random strided views, for every element type.
//!
//! Bounded: `PROPTEST_CASES` (default 64) cases per property, dims of size <= 17.

use half::{bf16, f16};
use num_traits::{NumCast, ToPrimitive};
use proptest::prelude::*;
use stridex::matmul::MatmulElement;
use stridex::{Error, Tensor, broadcast_shapes};

/// An element type under test with its rounding error bound: unit roundoff of the output
/// type, of the accumulator (f32 for all but f64), and the output's smallest subnormal (the
/// absolute rounding step near zero).
trait El: MatmulElement + NumCast + ToPrimitive {
    const OUT_EPS: f64;
    const ACC_EPS: f64;
    const TINY: f64;
}
impl El for f32 {
    const OUT_EPS: f64 = 6e-8;
    const ACC_EPS: f64 = 6e-8;
    const TINY: f64 = 1.5e-45;
}
impl El for f64 {
    const OUT_EPS: f64 = 1.2e-16;
    const ACC_EPS: f64 = 1.2e-16;
    const TINY: f64 = 5e-324;
}
impl El for f16 {
    const OUT_EPS: f64 = 4.9e-4;
    const ACC_EPS: f64 = 6e-8;
    const TINY: f64 = 6e-8;
}
impl El for bf16 {
    const OUT_EPS: f64 = 3.9e-3;
    const ACC_EPS: f64 = 6e-8;
    const TINY: f64 = 9.2e-41;
}

/// Deterministic values in [-1, 1) from a seed.
fn values<T: El>(len: usize, seed: u64) -> Vec<T> {
    let mut s = seed | 1;
    (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = ((s >> 40) as f64 / (1u64 << 23) as f64) - 1.0;
            T::from(x).expect("in range")
        })
        .collect()
}

/// How the last two dims of an operand are laid out in memory.
#[derive(Clone, Copy, Debug)]
enum View {
    Contiguous,
    /// A transposed contiguous tensor.
    Transposed,
    /// A window of a larger tensor (row stride wider than the row).
    Narrowed,
    /// Every 2nd row, every 3rd column of a larger tensor.
    Stepped,
    /// Both dims reversed (negative strides).
    Flipped,
    /// Rows (or columns) broadcast from one: stride 0.
    ExpandedRows,
    ExpandedCols,
    /// `as_strided` with interleaved strides (rows overlap in storage).
    Strided,
}

fn view() -> impl Strategy<Value = View> {
    prop_oneof![
        Just(View::Contiguous),
        Just(View::Transposed),
        Just(View::Narrowed),
        Just(View::Stepped),
        Just(View::Flipped),
        Just(View::ExpandedRows),
        Just(View::ExpandedCols),
        Just(View::Strided),
    ]
}

/// A tensor of shape `batch ++ [r, c]` whose last two dims are laid out as `v`.
fn make<T: El>(batch: &[usize], r: usize, c: usize, v: View, seed: u64) -> Tensor<T> {
    let nb = batch.len();
    let shape = |rr: usize, cc: usize| [batch, &[rr, cc]].concat();
    let fresh = |rr: usize, cc: usize| {
        let s = shape(rr, cc);
        Tensor::from_vec(values::<T>(s.iter().product(), seed), &s).unwrap()
    };
    let t = match v {
        View::Contiguous => fresh(r, c),
        View::Transposed => fresh(c, r).transpose(nb, nb + 1).unwrap(),
        View::Narrowed => fresh(r + 3, c + 5)
            .narrow(nb, 1, r)
            .unwrap()
            .narrow(nb + 1, 2, c)
            .unwrap(),
        View::Stepped => fresh(2 * r + 1, 3 * c + 1)
            .slice_step(nb, 1..(2 * r + 1) as isize, 2)
            .unwrap()
            .slice_step(nb + 1, 0..(3 * c) as isize, 3)
            .unwrap(),
        View::Flipped => fresh(r, c).flip(nb).unwrap().flip(nb + 1).unwrap(),
        View::ExpandedRows => fresh(1, c).expand(&shape(r, c)).unwrap(),
        View::ExpandedCols => fresh(r, 1).expand(&shape(r, c)).unwrap(),
        View::Strided => {
            let n: usize = batch.iter().product::<usize>() * (2 * r + 3 * c + 1);
            let base = Tensor::from_vec(values::<T>(n, seed), &[n]).unwrap();
            let mut strides = vec![0isize; nb + 2];
            let mut acc = (2 * r + 3 * c + 1) as isize;
            strides[nb] = 2;
            strides[nb + 1] = 3;
            for d in (0..nb).rev() {
                strides[d] = acc;
                acc *= batch[d] as isize;
            }
            base.as_strided(&shape(r, c), &strides, 0).unwrap()
        }
    };
    assert_eq!(t.shape(), &shape(r, c)[..]);
    t
}

/// The product by PyTorch's rules, as (shape, values, Σ|a||b| per entry), in f64 with a naive
/// triple loop over logical indices.
fn naive<T: El>(a: &Tensor<T>, b: &Tensor<T>) -> (Vec<usize>, Vec<f64>, Vec<f64>) {
    let a2 = if a.ndim() == 1 {
        a.unsqueeze(0).unwrap()
    } else {
        a.clone()
    };
    let b2 = if b.ndim() == 1 {
        b.unsqueeze(1).unwrap()
    } else {
        b.clone()
    };
    let (na, nb) = (a2.ndim(), b2.ndim());
    let (m, k, n) = (a2.shape()[na - 2], a2.shape()[na - 1], b2.shape()[nb - 1]);
    let batch = broadcast_shapes(&a2.shape()[..na - 2], &b2.shape()[..nb - 2]).unwrap();
    let ae = a2.expand(&[&batch[..], &[m, k]].concat()).unwrap();
    let be = b2.expand(&[&batch[..], &[k, n]].concat()).unwrap();
    let f = |t: &Tensor<T>| {
        t.to_vec()
            .iter()
            .map(|x| x.to_f64().unwrap())
            .collect::<Vec<_>>()
    };
    let (av, bv) = (f(&ae), f(&be));
    let count: usize = batch.iter().product();
    let (mut out, mut mag) = (vec![], vec![]);
    for q in 0..count {
        for i in 0..m {
            for j in 0..n {
                let (mut s, mut g) = (0.0, 0.0);
                for p in 0..k {
                    let x = av[q * m * k + i * k + p] * bv[q * k * n + p * n + j];
                    s += x;
                    g += x.abs();
                }
                out.push(s);
                mag.push(g);
            }
        }
    }
    let mut shape = batch;
    if a.ndim() > 1 {
        shape.push(m);
    }
    if b.ndim() > 1 {
        shape.push(n);
    }
    (shape, out, mag)
}

/// Asserts `got` is within the rounding bound of `want` (plus `base`, for accumulation).
fn assert_close<T: El>(
    got: &Tensor<T>,
    want: &(Vec<usize>, Vec<f64>, Vec<f64>),
    base: &[f64],
    k: usize,
) {
    assert_eq!(got.shape(), &want.0[..]);
    let g: Vec<f64> = got.to_vec().iter().map(|x| x.to_f64().unwrap()).collect();
    for (idx, ((&x, &w), &m)) in g.iter().zip(&want.1).zip(&want.2).enumerate() {
        let b = base.get(idx).copied().unwrap_or(0.0);
        let w = w + b;
        let rel = T::OUT_EPS * w.abs() + (k as f64 + 2.0) * T::ACC_EPS * (m + b.abs());
        let tol = 2.0 * rel + T::TINY;
        assert!(
            (x - w).abs() <= tol,
            "{}: entry {idx}: got {x}, want {w} (tol {tol})",
            T::DTYPE
        );
    }
}

fn check_2d<T: El>(m: usize, n: usize, k: usize, va: View, vb: View, seed: u64) {
    let a = make::<T>(&[], m, k, va, seed);
    let b = make::<T>(&[], k, n, vb, seed ^ 0xabc);
    let got = a.matmul(&b).unwrap();
    assert!(got.is_contiguous());
    assert_close(&got, &naive(&a, &b), &[], k);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(64)
    ))]

    #[test]
    fn matmul_2d_strided_views_match_naive(
        m in 0usize..=17, n in 0usize..=17, k in 0usize..=17,
        va in view(), vb in view(), seed in any::<u64>(),
    ) {
        check_2d::<f32>(m, n, k, va, vb, seed);
        check_2d::<f64>(m, n, k, va, vb, seed);
        check_2d::<f16>(m, n, k, va, vb, seed);
        check_2d::<bf16>(m, n, k, va, vb, seed);
    }

    #[test]
    fn vector_operands_follow_pytorch_rules(
        m in 1usize..=17, k in 0usize..=17, batch in 1usize..=3,
        va in view(), seed in any::<u64>(), flip in any::<bool>(), step in 1usize..=3,
    ) {
        // A 1-dim operand, possibly stepped and flipped.
        let base = Tensor::from_vec(values::<f32>(k * step + 1, seed), &[k * step + 1]).unwrap();
        let mut v = base.slice_step(0, 0..(k * step) as isize, step as isize).unwrap();
        if flip {
            v = v.flip(0).unwrap();
        }
        let mat = make::<f32>(&[], m, k, va, seed ^ 1);
        let mat_t = make::<f32>(&[], k, m, va, seed ^ 2);
        let batched = make::<f32>(&[batch], m, k, va, seed ^ 3);
        let batched_t = make::<f32>(&[batch], k, m, va, seed ^ 4);
        for (a, b) in [(&v, &v), (&mat, &v), (&v, &mat_t), (&batched, &v), (&v, &batched_t)] {
            let got = a.matmul(b).unwrap();
            assert_close(&got, &naive(a, b), &[], k);
        }
        prop_assert_eq!(v.matmul(&v).unwrap().ndim(), 0);
    }

    #[test]
    fn batched_broadcast_matches_naive(
        dims in proptest::collection::vec((1usize..=3, 0u8..3, 0u8..3), 0..=2),
        m in 0usize..=9, n in 0usize..=9, k in 0usize..=9,
        va in view(), vb in view(), drop_a in any::<bool>(), seed in any::<u64>(),
    ) {
        // Per batch dim and operand: 0 = full size, 1 = size 1 (broadcast by matmul),
        // 2 = size 1 expanded to full size beforehand (stride 0).
        let operand = |pick: fn(&(usize, u8, u8)) -> u8, r, c, v, seed| {
            let own: Vec<usize> = dims.iter().map(|d| if pick(d) == 0 { d.0 } else { 1 }).collect();
            let t = make::<f32>(&own, r, c, v, seed);
            let grown: Vec<usize> = dims.iter().map(|d| if pick(d) == 1 { 1 } else { d.0 }).collect();
            t.expand(&[&grown[..], &[r, c]].concat()).unwrap()
        };
        let mut a = operand(|d| d.1, m, k, va, seed);
        let b = operand(|d| d.2, k, n, vb, seed ^ 7);
        if drop_a && !dims.is_empty() && a.shape()[0] == 1 {
            a = a.squeeze(0).unwrap();
        }
        let got = a.matmul(&b).unwrap();
        assert_close(&got, &naive(&a, &b), &[], k);
    }

    #[test]
    fn matmul_into_honours_dst_strides(
        m in 1usize..=12, n in 1usize..=12, k in 0usize..=12,
        va in view(), vb in view(), dst_kind in 0u8..4, accumulate in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let a = make::<f32>(&[], m, k, va, seed);
        let b = make::<f32>(&[], k, n, vb, seed ^ 5);
        // A larger storage so that elements outside the view exist and must stay untouched.
        let (side, marker) = (2 * m.max(n) + 1, 7.5f32);
        let big = Tensor::full(&[side, side], marker).unwrap();
        let mut dst = match dst_kind {
            0 => big.narrow(0, 1, m).unwrap().narrow(1, 0, n).unwrap(),
            1 => big.narrow(0, 0, n).unwrap().narrow(1, 1, m).unwrap().t().unwrap(),
            2 => big
                .slice_step(0, 1..(2 * m) as isize, 2).unwrap()
                .slice_step(1, 0..(2 * n) as isize, 2).unwrap(),
            _ => big.narrow(0, 0, m).unwrap().narrow(1, 0, n).unwrap().flip(0).unwrap(),
        };
        drop(big);
        let before: Vec<f64> = dst.to_vec().iter().map(|&x| x as f64).collect();
        a.matmul_into(&b, &mut dst, accumulate).unwrap();
        let base = if accumulate { before } else { vec![] };
        assert_close(&dst, &naive(&a, &b), &base, k);
        // Untouched elements of the storage keep their value.
        let changed = dst.storage().as_slice().iter().filter(|&&x| x != marker).count();
        prop_assert!(changed <= m * n);
    }
}

#[test]
fn blocked_paths_match_naive_on_larger_shapes() {
    // Larger than one block in every dim (k > 256, m > 144 rows), on 1 and 3 threads.
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            check_2d::<f32>(300, 70, 600, View::Transposed, View::Narrowed, 1);
            check_2d::<f32>(150, 130, 270, View::Flipped, View::Transposed, 2);
            check_2d::<f64>(160, 40, 300, View::Stepped, View::Contiguous, 3);
            check_2d::<f16>(130, 90, 520, View::Contiguous, View::Transposed, 4);
            check_2d::<bf16>(70, 150, 300, View::Narrowed, View::Contiguous, 5);
            // Batched, parallel over the batch.
            let a = make::<f32>(&[6], 40, 50, View::Transposed, 6);
            let b = make::<f32>(&[6], 50, 60, View::Contiguous, 7);
            assert_close(&a.matmul(&b).unwrap(), &naive(&a, &b), &[], 50);
        });
    }
}

#[test]
fn half_types_accumulate_in_f32() {
    // 4096 ones: exact in f32, but a running f16 sum would stick at 2048.
    let a = Tensor::from_vec(vec![f16::ONE; 4096], &[1, 4096]).unwrap();
    let b = Tensor::from_vec(vec![f16::ONE; 4096], &[4096, 1]).unwrap();
    assert_eq!(a.matmul(&b).unwrap().to_vec(), vec![f16::from_f32(4096.0)]);
    let a = Tensor::from_vec(vec![bf16::ONE; 2 * 4096], &[2, 4096]).unwrap();
    let b = Tensor::from_vec(vec![bf16::ONE; 4096 * 2], &[4096, 2]).unwrap();
    assert_eq!(
        a.matmul(&b).unwrap().to_vec(),
        vec![bf16::from_f32(4096.0); 4]
    );
}

#[test]
fn errors_name_shapes_and_contracted_dims() {
    let a = Tensor::<f32>::zeros(&[2, 3]).unwrap();
    let b = Tensor::<f32>::zeros(&[4, 5]).unwrap();
    let e = a.matmul(&b).unwrap_err();
    assert_eq!(
        e,
        Error::MatmulMismatch {
            a: vec![2, 3],
            b: vec![4, 5],
            a_dim: 1,
            b_dim: 0
        }
    );
    let msg = e.to_string();
    assert!(msg.contains("[2, 3]") && msg.contains("[4, 5]"), "{msg}");
    assert!(msg.contains("dim 1") && msg.contains("size 3"), "{msg}");
    assert!(msg.contains("dim 0") && msg.contains("size 4"), "{msg}");

    let v = Tensor::<f32>::zeros(&[4]).unwrap();
    let e = Tensor::<f32>::zeros(&[7, 2, 3])
        .unwrap()
        .matmul(&v)
        .unwrap_err();
    assert!(
        e.to_string().contains("dim 2") && e.to_string().contains("[4]"),
        "{e}"
    );

    let e = Tensor::<f32>::zeros(&[2, 2, 3])
        .unwrap()
        .matmul(&Tensor::zeros(&[3, 3, 4]).unwrap())
        .unwrap_err();
    assert!(matches!(e, Error::MatmulBatchMismatch { .. }));
    assert!(
        e.to_string().contains("[2, 2, 3]") && e.to_string().contains("[3, 3, 4]"),
        "{e}"
    );

    let scalar = Tensor::<f32>::zeros(&[]).unwrap();
    assert!(scalar.matmul(&v).is_err() && v.matmul(&scalar).is_err());
}

#[test]
fn matmul_into_rejects_bad_outputs() {
    let a = Tensor::<f32>::full(&[2, 3], 1.0).unwrap();
    let b = Tensor::<f32>::full(&[3, 4], 1.0).unwrap();
    let mut wrong = Tensor::<f32>::zeros(&[2, 5]).unwrap();
    assert!(matches!(
        a.matmul_into(&b, &mut wrong, false),
        Err(Error::ShapeMismatch { .. })
    ));
    // Stride 0: two indices share an element.
    let mut broadcast = Tensor::<f32>::zeros(&[1, 4])
        .unwrap()
        .expand(&[2, 4])
        .unwrap();
    assert!(matches!(
        a.matmul_into(&b, &mut broadcast, false),
        Err(Error::OverlappingDestination { .. })
    ));
    // Shared with a live tensor, or with an input.
    let base = Tensor::<f32>::zeros(&[2, 4]).unwrap();
    let mut view = base.narrow(0, 0, 2).unwrap();
    assert_eq!(
        a.matmul_into(&b, &mut view, false),
        Err(Error::SharedStorage {
            op: "matmul_into",
            holders: 2
        })
    );
    let sq = Tensor::<f32>::full(&[3, 3], 1.0).unwrap();
    let mut alias = sq.clone();
    assert!(matches!(
        sq.matmul_into(&sq, &mut alias, true),
        Err(Error::SharedStorage { .. })
    ));
    assert_eq!(base.to_vec(), vec![0.0; 8]);
    // After dropping the other handle the same view is writable.
    drop(base);
    a.matmul_into(&b, &mut view, false).unwrap();
    assert_eq!(view.to_vec(), vec![3.0; 8]);
}

#[test]
fn strided_operands_are_never_copied() {
    let a = Tensor::<f32>::zeros(&[40, 30]).unwrap();
    let b = Tensor::<f32>::zeros(&[3, 40, 20]).unwrap();
    let (out, report) = stridex::audit::record(|| {
        let x = a.t()?.flip(0)?.slice_step(1, 0..40, 2)?; // [30, 20], every stride unusual
        let y = b.transpose(1, 2)?.narrow(1, 0, 10)?.transpose(1, 2)?; // [3, 40, 10]
        x.t()?
            .unsqueeze(0)?
            .expand(&[3, 20, 30])?
            .matmul(&y.narrow(1, 0, 30)?)
    });
    assert_eq!(out.unwrap().shape(), &[3, 20, 10]);
    assert_eq!(report.count(), 0, "{:?}", report.events());
}

#[test]
fn many_tiny_products_in_parallel() {
    // 20000 products of [2, 8] x [8, 1]: enough work to run in parallel over the batch.
    let (q, m, k) = (20000, 2, 8);
    let a = Tensor::from_vec((0..q * m * k).map(|v| (v % 5) as f64).collect(), &[q, m, k]).unwrap();
    let b = Tensor::from_vec((0..q * k).map(|v| (v % 3) as f64).collect(), &[q, k, 1]).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let got = pool.install(|| a.matmul(&b)).unwrap();
    assert_eq!(got.shape(), &[q, m, 1]);
    let (av, bv) = (a.to_vec(), b.to_vec());
    let want: Vec<f64> = (0..q * m)
        .map(|r| (0..k).map(|p| av[r * k + p] * bv[(r / m) * k + p]).sum())
        .collect();
    assert_eq!(got.to_vec(), want);
}
