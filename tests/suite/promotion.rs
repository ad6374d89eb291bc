//! PyTorch's habits with element types: integer tensors into float-only ops (promoted to
//! `f32`), negative dims in every `*_dims` reduction, and masks and indices of any integer
//! type.
//!
//! The reference for a promoted op is the same op on the input cast to `f32` by hand: that
//! *is* the promotion rule (`torch.exp(int_tensor) == torch.exp(int_tensor.float())`), so the
//! two must agree bit for bit. Hand-worked values pin a few results down independently.

use std::borrow::Cow;

use half::{bf16, f16};
use num_traits::AsPrimitive;
use stridex::audit;
use stridex::{Error, FloatElement, IntElement, Norm, Tensor, ToFloat};

/// The `f32` bits of `t`, so NaNs (from `ln` / `sqrt` of negatives) compare too.
fn bits(t: &Tensor<f32>) -> Vec<u32> {
    t.to_vec().into_iter().map(f32::to_bits).collect()
}

/// A transposed (non-contiguous) `[4, 3]` integer tensor holding `-3..=3` (or `0..=6` for
/// unsigned types), built through `i64`.
fn ints<I>() -> Tensor<I>
where
    I: IntElement,
    i64: AsPrimitive<I>,
{
    let signed = I::zero() > I::zero().elem_sub(I::one());
    let v: Vec<i64> = (0..12)
        .map(|k| (k * 5 % 7) - if signed { 3 } else { 0 })
        .collect();
    Tensor::from_vec(v, &[3, 4])
        .unwrap()
        .cast::<I>()
        .t()
        .unwrap()
}

/// Every float-only op on `t` against the same op on `t` cast to `f32`.
fn check_promotion<I>(t: &Tensor<I>)
where
    I: ToFloat<Float = f32> + AsPrimitive<f32>,
{
    let f = t.cast::<f32>();
    let name = I::DTYPE;
    let same = |op: &str, got: Tensor<f32>, want: Tensor<f32>| {
        assert_eq!(got.shape(), want.shape(), "{name} {op}");
        assert_eq!(bits(&got), bits(&want), "{name} {op}");
    };
    same("sqrt", t.sqrt(), f.sqrt());
    same("exp", t.exp(), f.exp());
    same("ln", t.ln(), f.ln());
    same("tanh", t.tanh(), f.tanh());
    same("sigmoid", t.sigmoid(), f.sigmoid());
    same("gelu", t.gelu(), f.gelu());
    same("gelu_tanh", t.gelu_tanh(), f.gelu_tanh());
    same("silu", t.silu(), f.silu());
    same("erf", t.erf(), f.erf());
    same("erfc", t.erfc(), f.erfc());
    same("sin", t.sin(), f.sin());
    same("cos", t.cos(), f.cos());
    same("recip", t.recip(), f.recip());
    same("rsqrt", t.rsqrt(), f.rsqrt());
    same("log1p", t.log1p(), f.log1p());
    same("expm1", t.expm1(), f.expm1());
    same("powf", t.powf(1.5), f.powf(1.5));
    same("softmax", t.softmax(-1).unwrap(), f.softmax(-1).unwrap());
    same(
        "log_softmax",
        t.log_softmax(0).unwrap(),
        f.log_softmax(0).unwrap(),
    );
    same(
        "logsumexp_dim",
        t.logsumexp_dim(1, true).unwrap(),
        f.logsumexp_dim(1, true).unwrap(),
    );
    same(
        "var_dim",
        t.var_dim(0, false, 1).unwrap(),
        f.var_dim(0, false, 1).unwrap(),
    );
    same(
        "std_dim",
        t.std_dim(-1, true, 0).unwrap(),
        f.std_dim(-1, true, 0).unwrap(),
    );
    for ord in [Norm::L1, Norm::L2, Norm::Max] {
        same(
            "norm_dim",
            t.norm_dim(1, false, ord).unwrap(),
            f.norm_dim(1, false, ord).unwrap(),
        );
        assert_eq!(
            t.norm_all(ord).unwrap().to_bits(),
            f.norm_all(ord).unwrap().to_bits()
        );
    }
    same(
        "mean_dim",
        t.mean_dim(0, false).unwrap(),
        f.mean_dim(0, false).unwrap(),
    );
    same(
        "mean_dims",
        t.mean_dims(&[-1, 0], true).unwrap(),
        f.mean_dims(&[1, 0], true).unwrap(),
    );
    assert_eq!(t.mean_all().to_bits(), f.mean_all().to_bits(), "{name}");
    assert_eq!(t.mean().to_bits(), f.mean().to_bits(), "{name}");
    let cow: Cow<'_, Tensor<f32>> = t.to_float();
    assert!(matches!(cow, Cow::Owned(_)));
    same("to_float", cow.into_owned(), f.clone());
}

#[test]
fn integer_inputs_give_the_f32_op_of_the_cast_input() {
    check_promotion(&ints::<i8>());
    check_promotion(&ints::<i16>());
    check_promotion(&ints::<i32>());
    check_promotion(&ints::<i64>());
    check_promotion(&ints::<u8>());
    check_promotion(&ints::<u16>());
    check_promotion(&ints::<u32>());
    check_promotion(&ints::<u64>());
}

#[test]
fn integer_inputs_give_hand_worked_f32_values() {
    let e: Tensor<f32> = Tensor::from_vec(vec![0i32, 1], &[2]).unwrap().exp();
    assert_eq!(e.to_vec(), vec![1.0, std::f32::consts::E]);
    let m = Tensor::from_vec(vec![1i32, 2, 3, 4], &[2, 2]).unwrap();
    assert_eq!(m.mean_dim(1, false).unwrap().to_vec(), vec![1.5f32, 3.5]);
    assert_eq!(m.mean_dim(-2, true).unwrap().to_vec(), vec![2.0f32, 3.0]);
    assert_eq!(m.mean_dims(&[0, 1], false).unwrap().to_vec(), vec![2.5f32]);
    assert_eq!(m.mean(), 2.5f32);
    assert_eq!(
        m.var_dim(1, false, 0).unwrap().to_vec(),
        vec![0.25f32, 0.25]
    );
    let s = Tensor::from_vec(vec![4u8, 9, 0], &[3]).unwrap().sqrt();
    assert_eq!(s.to_vec(), vec![2.0f32, 3.0, 0.0]);
    let p = Tensor::from_vec(vec![0i64, 0, 0, 0], &[2, 2]).unwrap();
    assert_eq!(p.softmax(-1).unwrap().to_vec(), vec![0.5f32; 4]);
    assert_eq!(
        Tensor::from_vec(vec![-1i16, 1], &[2])
            .unwrap()
            .norm_all(1)
            .unwrap(),
        2.0f32
    );
    // Large i64 values round to the nearest f32 first, as `.float()` does in PyTorch.
    let big = Tensor::from_vec(vec![(1i64 << 24) + 1], &[1]).unwrap();
    assert_eq!(big.sqrt().to_vec(), vec![4096.0f32]);
}

#[test]
fn rounding_leaves_integers_unchanged_in_their_own_type() {
    let a = Tensor::from_vec(vec![-7i32, 0, 3], &[3]).unwrap();
    let (f, c, r): (Tensor<i32>, Tensor<i32>, Tensor<i32>) = (a.floor(), a.ceil(), a.round());
    for t in [f, c, r] {
        assert_eq!(t.to_vec(), vec![-7, 0, 3]);
    }
    assert_eq!(
        Tensor::from_vec(vec![u64::MAX], &[1])
            .unwrap()
            .round()
            .to_vec(),
        vec![u64::MAX]
    );
    let x = Tensor::from_vec(vec![-1.5f32, 2.5], &[2]).unwrap();
    assert_eq!(x.floor().to_vec(), vec![-2.0, 2.0]);
    assert_eq!(x.ceil().to_vec(), vec![-1.0, 3.0]);
    assert_eq!(x.round().to_vec(), vec![-2.0, 3.0]);
}

/// Generic code over float types still gets `Tensor<T>` back.
fn generic_float_ops<T: FloatElement>(t: &Tensor<T>) -> (Tensor<T>, Tensor<T>, T) {
    (
        t.exp().tanh().sqrt(),
        t.softmax(-1).unwrap().mean_dims(&[0], false).unwrap(),
        t.mean_all(),
    )
}

/// Float inputs are used in place: `to_float` borrows, and no op copies them (a transposed
/// input would have to be made contiguous to be copied; nothing reports a copy).
fn check_no_copy<T: FloatElement>(t: &Tensor<T>) {
    let t = t.t().unwrap();
    match t.to_float() {
        Cow::Borrowed(b) => {
            assert!(b.shares_storage(&t) && b.strides() == t.strides() && b.offset() == t.offset())
        }
        Cow::Owned(_) => panic!("{}: a float tensor was converted", T::DTYPE),
    }
    let (_, report) = audit::record(|| {
        let _ = generic_float_ops(&t);
        let _ = t.sigmoid();
        let _ = t.gelu();
        let _ = t.ln();
        let _ = t.log_softmax(0).unwrap();
        let _ = t.logsumexp_dim(-1, false).unwrap();
        let _ = t.var_dim(0, false, 1).unwrap();
        let _ = t.std_dim(-1, false, 0).unwrap();
        let _ = t.norm_dim(1, false, 2).unwrap();
        let _ = t.norm_all(1).unwrap();
        let _ = t.mean_dim(0, true).unwrap();
        let _ = t.mean();
    });
    assert_eq!(report.count(), 0, "{}: {:?}", T::DTYPE, report.events());
}

#[test]
fn float_inputs_are_borrowed_and_never_copied() {
    let v: Vec<f64> = (0..12).map(|k| k as f64 / 4.0 - 1.0).collect();
    let t64 = Tensor::from_vec(v, &[3, 4]).unwrap();
    check_no_copy(&t64);
    check_no_copy(&t64.cast::<f32>());
    check_no_copy(&t64.cast::<f16>());
    check_no_copy(&t64.cast::<bf16>());
    // The same kernel as before: a float op equals its element function mapped.
    let t = t64.cast::<f32>().t().unwrap();
    assert_eq!(t.exp().to_vec(), t.map(f32::exp).to_vec());
    let (a, _, m) = generic_float_ops(&t64);
    assert_eq!(a.shape(), &[3, 4]);
    assert_eq!(m, t64.mean_all());
}

// ---------------------------------------------------------------------------------------------
// Negative dims in `*_dims`
// ---------------------------------------------------------------------------------------------

/// `[[[3, 1, 9], [1, 5, 4]], [[2, 8, 5], [3, 5, 6]]]`.
fn cube() -> Tensor<i32> {
    Tensor::from_vec(vec![3, 1, 9, 1, 5, 4, 2, 8, 5, 3, 5, 6], &[2, 2, 3]).unwrap()
}

#[test]
fn dims_lists_take_negative_dims() {
    let a = cube();
    // Dims 2 and 0: [3+1+9+2+8+5, 1+5+4+3+5+6].
    assert_eq!(a.sum_dims(&[-1, 0], false).unwrap().to_vec(), vec![28, 24]);
    assert_eq!(a.sum_dims(&[0, 2], false).unwrap().to_vec(), vec![28, 24]);
    let usize_dims: Vec<usize> = vec![2, 0];
    assert_eq!(
        a.sum_dims(&usize_dims, false).unwrap().to_vec(),
        vec![28, 24]
    );
    assert_eq!(a.sum_dims(&[2u32, 0], true).unwrap().shape(), &[1, 2, 1]);
    assert_eq!(
        a.prod_dims(&[-1i64], false).unwrap().to_vec(),
        vec![27, 20, 80, 90]
    );
    assert_eq!(a.max_dims(&[0, -2], false).unwrap().to_vec(), vec![3, 8, 9]);
    assert_eq!(a.min_dims(&[-3, -1], false).unwrap().to_vec(), vec![1, 1]);
    // Positions over dims (1, 2) flattened: 9 at 2 in batch 0, 8 at 1 in batch 1.
    assert_eq!(
        a.argmax_dims(&[-2, -1], false).unwrap().to_vec(),
        vec![2, 1]
    );
    // Order in the list does not matter: dims (1, 2) either way; first minimum wins.
    assert_eq!(a.argmin_dims(&[-1, 1], false).unwrap().to_vec(), vec![1, 0]);
    let mean = a.mean_dims(&[0, -1], false).unwrap();
    assert_eq!(mean.to_vec(), vec![28.0f32 / 6.0, 4.0]);
    let no_dims: [i32; 0] = [];
    assert_eq!(a.sum_dims(&no_dims, false).unwrap(), a);
}

#[test]
fn a_dim_named_twice_is_an_error_naming_both_forms() {
    let a = cube();
    let repeated = |r: stridex::Result<Tensor<i32>>| r.unwrap_err();
    let e = repeated(a.sum_dims(&[1, -2], false));
    assert_eq!(
        e,
        Error::RepeatedDim {
            op: "sum_dims",
            given: (1, -2),
            dim: 1,
            ndim: 3
        }
    );
    let msg = e.to_string();
    assert!(
        msg.contains("dims 1 and -2") && msg.contains("dim 1 of a 3-dim"),
        "{msg}"
    );
    // The brief's case: `[1, -1]` of 2 dims.
    let m = Tensor::from_vec(vec![1i32, 2, 3, 4], &[2, 2]).unwrap();
    assert!(matches!(
        m.sum_dims(&[1, -1], false),
        Err(Error::RepeatedDim {
            given: (1, -1),
            dim: 1,
            ndim: 2,
            ..
        })
    ));
    let same_form = |r: stridex::Result<Tensor<i32>>, op: &str| match r {
        Err(Error::RepeatedDim {
            op: o,
            given: (2, 2),
            dim: 2,
            ndim: 3,
        }) => assert_eq!(o, op),
        other => panic!("{op}: {other:?}"),
    };
    same_form(a.sum_dims(&[2, 2], false), "sum_dims");
    same_form(a.prod_dims(&[2, 2], false), "prod_dims");
    same_form(a.max_dims(&[2, 2], false), "max_dims");
    same_form(a.min_dims(&[2, 2], false), "min_dims");
    for (op, r) in [
        ("argmax_dims", a.argmax_dims(&[-1, 2], false)),
        ("argmin_dims", a.argmin_dims(&[-1, 2], false)),
    ] {
        assert!(
            matches!(r, Err(Error::RepeatedDim { op: o, given: (-1, 2), dim: 2, .. }) if o == op),
            "{op}"
        );
    }
    assert!(matches!(
        a.mean_dims(&[0, -3], false),
        Err(Error::RepeatedDim {
            op: "mean_dims",
            given: (0, -3),
            ..
        })
    ));
    assert_eq!(
        a.sum_dims(&[-4], false).unwrap_err(),
        Error::NegativeDimOutOfRange {
            op: "sum_dims",
            dim: -4,
            ndim: 3
        }
    );
    assert!(matches!(
        a.sum_dims(&[3], false),
        Err(Error::DimOutOfRange { dim: 3, .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// Masks and indices of any integer type
// ---------------------------------------------------------------------------------------------

/// A `[3, 4]` f32 tensor, transposed to `[4, 3]`.
fn data() -> Tensor<f32> {
    Tensor::from_vec((0..12).map(|v| v as f32).collect(), &[3, 4])
        .unwrap()
        .t()
        .unwrap()
}

/// `mask` with every non-zero element replaced by `on` (and zeros kept).
fn retype<M: IntElement>(mask: &Tensor<u8>, on: M) -> Tensor<M> {
    mask.map(move |b| if b != 0 { on } else { M::zero() })
}

fn check_mask<M: IntElement>(on: M) {
    let x = data();
    let mask = x.cmp_gt(4.5).unwrap().t().unwrap().t().unwrap();
    let m = retype(&mask, on);
    let name = M::DTYPE;
    assert_eq!(
        x.masked_fill(&m, -1.0).unwrap(),
        x.masked_fill(&mask, -1.0).unwrap(),
        "{name}"
    );
    assert_eq!(
        x.masked_select(&m).unwrap(),
        x.masked_select(&mask).unwrap(),
        "{name}"
    );
    let zero = Tensor::full(&[], 0.0f32).unwrap();
    assert_eq!(
        Tensor::where_cond(&m, &x, &zero).unwrap(),
        Tensor::where_cond(&mask, &x, &zero).unwrap(),
        "{name}"
    );
    // Broadcast masks: one row, one column.
    let row = retype(&Tensor::from_bools(&[true, false, true], &[3]).unwrap(), on);
    assert_eq!(
        x.masked_select(&row).unwrap().to_vec(),
        vec![0.0, 8.0, 1.0, 9.0, 2.0, 10.0, 3.0, 11.0]
    );
    let col = retype(
        &Tensor::from_bools(&[false, true, false, false], &[4, 1]).unwrap(),
        on,
    );
    assert_eq!(
        x.masked_fill(&col, 7.0).unwrap().to_vec(),
        vec![0.0, 4.0, 8.0, 7.0, 7.0, 7.0, 2.0, 6.0, 10.0, 3.0, 7.0, 11.0]
    );
}

#[test]
fn masks_of_any_integer_type_select_where_non_zero() {
    check_mask(-3i32);
    check_mask(1i32);
    check_mask(65535u16);
    check_mask(i64::MIN);
    check_mask(2i8);
    check_mask(u64::MAX);
    let bools = Tensor::from_bools(&[true, false, false, true, true, false], &[2, 3]).unwrap();
    assert_eq!(bools.to_vec(), vec![1, 0, 0, 1, 1, 0]);
    assert_eq!(bools.shape(), &[2, 3]);
    assert!(matches!(
        Tensor::from_bools(&[true, false], &[3]),
        Err(Error::NumelMismatch {
            op: "from_bools",
            ..
        })
    ));
}

/// Every index op with indices of type `I`, against the same op with the `i64` indices.
fn check_indices<I>()
where
    I: IntElement,
    i64: AsPrimitive<I>,
{
    let x = data(); // [4, 3]
    let name = I::DTYPE;
    let sel64 = Tensor::from_vec(vec![3i64, 0, 0, 2], &[4])
        .unwrap()
        .flip(0)
        .unwrap();
    let sel = sel64.cast::<I>();
    assert_eq!(
        x.index_select(0, &sel).unwrap(),
        x.index_select(0, &sel64).unwrap(),
        "{name}"
    );
    assert_eq!(
        x.index_select(-1, &sel.narrow(0, 1, 2).unwrap()).unwrap(),
        x.index_select(1, &sel64.narrow(0, 1, 2).unwrap()).unwrap(),
        "{name}"
    );
    let g64 = Tensor::from_vec(vec![2i64, 0, 1, 1, 0, 2], &[2, 3]).unwrap();
    let g = g64.cast::<I>();
    assert_eq!(
        x.gather(1, &g).unwrap(),
        x.gather(1, &g64).unwrap(),
        "{name}"
    );
    let rows64 = Tensor::from_vec(vec![3i64, 1, 0], &[1, 3]).unwrap();
    assert_eq!(
        x.gather(0, &rows64.cast::<I>()).unwrap(),
        x.gather(0, &rows64).unwrap(),
        "{name}"
    );
    let src = Tensor::from_vec((100..106).map(|v| v as f32).collect(), &[2, 3]).unwrap();
    assert_eq!(
        x.scatter(1, &g, &src).unwrap(),
        x.scatter(1, &g64, &src).unwrap(),
        "{name}"
    );
    assert_eq!(
        x.scatter_add(0, &rows64.cast::<I>(), &src).unwrap(),
        x.scatter_add(0, &rows64, &src).unwrap(),
        "{name}"
    );
    let flat64 = Tensor::from_vec(vec![11i64, 0, 5, 5], &[2, 2])
        .unwrap()
        .t()
        .unwrap();
    assert_eq!(
        x.take(&flat64.cast::<I>()).unwrap(),
        x.take(&flat64).unwrap(),
        "{name}"
    );
}

#[test]
fn indices_of_any_integer_type_pick_what_i64_indices_pick() {
    check_indices::<i8>();
    check_indices::<i16>();
    check_indices::<i32>();
    check_indices::<i64>();
    check_indices::<u8>();
    check_indices::<u16>();
    check_indices::<u32>();
    check_indices::<u64>();
    // A hand-worked case: rows 3 and 0 of [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]].
    let idx = Tensor::from_vec(vec![3u8, 0], &[2]).unwrap();
    assert_eq!(
        data().index_select(0, &idx).unwrap().to_vec(),
        vec![3.0, 7.0, 11.0, 0.0, 4.0, 8.0]
    );
}

/// Out-of-range indices of type `I` (`big` past every size, `neg` negative if signed) fail
/// in every index op with [`Error::IndexOutOfBounds`] naming the value, and nothing else.
/// Each op that takes indices, run on `x` ([4, 3]) with the two indices `one` (as they are
/// for index_select and take, as a [1, 2] tensor for gather and the scatters): the op's name,
/// the dim it indexes, that dim's size (the flat count for take) and its result.
fn index_op_results<I: IntElement>(
    x: &Tensor<f32>,
    one: &Tensor<I>,
) -> [(&'static str, usize, usize, stridex::Result<()>); 5] {
    let two = one.reshape(&[1, 2]).unwrap();
    let src = Tensor::<f32>::zeros(&[1, 2]).unwrap();
    [
        ("index_select", 0, 4, x.index_select(0, one).map(drop)),
        ("gather", 1, 3, x.gather(1, &two).map(drop)),
        ("scatter", 1, 3, x.scatter(1, &two, &src).map(drop)),
        ("scatter_add", 1, 3, x.scatter_add(1, &two, &src).map(drop)),
        ("take", 0, 12, x.take(one).map(drop)),
    ]
}

fn check_out_of_range<I: IntElement>(big: I, neg: Option<I>) {
    let x = data(); // [4, 3]
    let name = I::DTYPE;
    let mut bad = vec![big];
    bad.extend(neg);
    for b in bad {
        let want = i64::try_from(b.to_wide()).unwrap();
        let one = Tensor::from_vec(vec![I::zero(), b], &[2]).unwrap();
        let results = index_op_results(&x, &one);
        for (op, dim, size, r) in results {
            assert_eq!(
                r.unwrap_err(),
                Error::IndexOutOfBounds {
                    op,
                    dim,
                    index: want,
                    size
                },
                "{name} {op}"
            );
        }
    }
}

#[test]
fn out_of_range_indices_of_every_type_are_errors() {
    check_out_of_range(12i8, Some(-1i8));
    check_out_of_range(i16::MAX, Some(i16::MIN));
    check_out_of_range(12i32, Some(-5i32));
    check_out_of_range(i64::MAX, Some(i64::MIN));
    check_out_of_range(12u8, None);
    check_out_of_range(u16::MAX, None);
    check_out_of_range(12u32, None);
    check_out_of_range(i64::MAX as u64, None); // the largest u64 an i64 can name
}

#[test]
fn u64_indices_past_isize_max_are_errors() {
    let x = data(); // [4, 3]
    for big in [i64::MAX as u64 + 1, u64::MAX] {
        let one = Tensor::from_vec(vec![1u64, big], &[2]).unwrap();
        let results = index_op_results(&x, &one);
        for (op, dim, size, r) in results {
            let e = r.unwrap_err();
            assert_eq!(
                e,
                Error::IndexTooLarge {
                    op,
                    dim,
                    index: big,
                    size
                },
                "{op}"
            );
            assert!(e.to_string().contains(&big.to_string()), "{e}");
        }
    }
}
