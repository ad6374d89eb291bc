//! Property tests of writes: `TensorMut` view chains and writes, copy-on-write through
//! `Tensor::view_mut` and the `Tensor` write methods, refusal of overlapping destinations,
//! `split_at` and `reborrow`, failing writes, and large writes (parallel and tiled kernels).
//!
//! Expectations come from the reference model in `common`: a view is the explicit list of its
//! elements' storage offsets, and a write is applied to a plain `Vec` copy of the storage by
//! index. The code under test is never used to compute an expectation.
//!
//! Case counts default to small numbers; set `PROPTEST_CASES` to run more.

mod common;

use common::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use stridex::audit::{self, CopyReason};
use stridex::{Element, Error, Layout, Numeric, Tensor, TensorMut};

// ---------------------------------------------------------------------------------------------
// The model's element arithmetic (native Rust operations, not the library's)
// ---------------------------------------------------------------------------------------------

trait Num: Val + Numeric {
    fn m_add(a: Self, b: Self) -> Self;
    fn m_sub(a: Self, b: Self) -> Self;
    fn m_mul(a: Self, b: Self) -> Self;
    fn m_div(a: Self, b: Self) -> Self;
    /// A small non-zero value: a scalar operand, or a divisor / factor element.
    fn small(i: usize) -> Self;
    fn m_zero() -> Self;
    const INTEGER: bool;
}

macro_rules! int_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn m_add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            fn m_sub(a: Self, b: Self) -> Self { a.wrapping_sub(b) }
            fn m_mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
            fn m_div(a: Self, b: Self) -> Self { a.wrapping_div(b) }
            fn small(i: usize) -> Self { (i % 7 + 1) as $t }
            fn m_zero() -> Self { 0 }
            const INTEGER: bool = true;
        }
    )*};
}
int_num!(u8, i16, i32, i64);

macro_rules! float_num {
    ($($t:ty => $from:expr),*) => {$(
        impl Num for $t {
            fn m_add(a: Self, b: Self) -> Self { a + b }
            fn m_sub(a: Self, b: Self) -> Self { a - b }
            fn m_mul(a: Self, b: Self) -> Self { a * b }
            fn m_div(a: Self, b: Self) -> Self { a / b }
            fn small(i: usize) -> Self { $from((i % 7 + 1) as f32 * 0.5) }
            fn m_zero() -> Self { $from(0.0) }
            const INTEGER: bool = false;
        }
    )*};
}
float_num!(f32 => |x: f32| x, f64 => |x: f32| x as f64, half::f16 => half::f16::from_f32);

/// The function given to `map_inplace`: `x * 1.5 + 0.5` (floats) or `x * 2 + 1` (integers).
fn map_fn<T: Num>(x: T) -> T {
    T::m_add(T::m_mul(x, T::small(2)), T::small(0))
}

/// The function given to `zip_map_inplace`: `x * 1.0 - y` (floats) or `x * 2 - y`.
fn zip_fn<T: Num>(x: T, y: T) -> T {
    T::m_sub(T::m_mul(x, T::small(1)), y)
}

// ---------------------------------------------------------------------------------------------
// Random writes
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WKind {
    Fill,
    Set,
    Copy,
    Map,
    Add,
    Sub,
    Mul,
    Div,
    ZipMap,
    AddScalar,
    SubScalar,
    MulScalar,
    DivScalar,
}

/// A source that broadcasts to the destination's shape `v`: `v` without its first `drop`
/// dims, with the dims whose bit is set in `ones` made size 1, laid out by `recipe`
/// (transposed, flipped, strided, expanded, ...).
#[derive(Clone, Debug)]
struct SrcGen {
    drop: usize,
    ones: u8,
    recipe: Recipe,
}

#[derive(Clone, Debug)]
struct WriteGen {
    kind: WKind,
    value: usize,
    index: Vec<u8>,
    src: SrcGen,
    /// Use the `std::ops` operator instead of the method (Tensor writes only).
    operator: bool,
}

fn arb_src() -> impl Strategy<Value = SrcGen> {
    (
        prop_oneof![3 => Just(0usize), 1 => 1usize..=2],
        prop_oneof![2 => Just(0u8), 1 => any::<u8>()],
        arb_recipe(),
    )
        .prop_map(|(drop, ones, recipe)| SrcGen { drop, ones, recipe })
}

fn arb_kind() -> impl Strategy<Value = WKind> {
    use WKind::*;
    prop_oneof![
        3 => Just(Fill),
        3 => Just(Set),
        5 => Just(Copy),
        2 => Just(Map),
        3 => Just(Add),
        1 => Just(Sub),
        2 => Just(Mul),
        1 => Just(Div),
        1 => Just(ZipMap),
        2 => Just(AddScalar),
        1 => Just(SubScalar),
        1 => Just(MulScalar),
        1 => Just(DivScalar),
    ]
}

fn arb_write() -> impl Strategy<Value = WriteGen> {
    (arb_kind(), 0usize..50, seed(), arb_src(), any::<bool>()).prop_map(
        |(kind, value, index, src, operator)| WriteGen {
            kind,
            value,
            index,
            src,
            operator,
        },
    )
}

/// A write made concrete for a destination shape.
struct Prepared<T: Element> {
    kind: WKind,
    value: T,
    /// For `Set`: the index (an invalid one, all zeros, if the destination is empty).
    index: Vec<usize>,
    /// `Set` on an empty destination: must fail with `IndexOutOfRange`.
    expect_err: bool,
    src: Option<Tensor<T>>,
    /// The source broadcast to the destination's shape, row-major, by the model.
    src_vals: Vec<T>,
    operator: bool,
}

/// The shape of the source `g` describes for destination shape `v`.
fn src_shape(g: &SrcGen, v: &[usize]) -> Vec<usize> {
    let mut s = v[g.drop.min(v.len())..].to_vec();
    for (d, x) in s.iter_mut().enumerate() {
        if d < 8 && g.ones & (1 << d) != 0 {
            *x = 1;
        }
    }
    s
}

fn prepare<T: Num>(w: &WriteGen, shape: &[usize]) -> Prepared<T> {
    use WKind::*;
    let numel = true_numel(shape).unwrap();
    let value = match w.kind {
        Fill | Set => T::from_index(5000 + w.value),
        _ => T::small(w.value),
    };
    let mut index = vec![0; shape.len()];
    let mut b = Bytes::new(&w.index);
    for (i, &d) in index.iter_mut().zip(shape) {
        *i = b.below(d);
    }
    let (src, src_vals) = if matches!(w.kind, Copy | Add | Sub | Mul | Div | ZipMap) {
        let s = src_shape(&w.src, shape);
        let built = if matches!(w.kind, Mul | Div) {
            build::<T>(&s, &w.src.recipe, |i| T::small(i + w.value), true)
        } else {
            build::<T>(&s, &w.src.recipe, |i| T::from_index(1000 + i), true)
        };
        let bm = built
            .m
            .apply(&Op::Expand(shape.to_vec()))
            .expect("the source broadcasts by construction");
        let vals = bm.offs.iter().map(|&o| built.storage[o as usize]).collect();
        (Some(built.t), vals)
    } else {
        (None, vec![])
    };
    Prepared {
        kind: w.kind,
        value,
        index,
        expect_err: w.kind == Set && numel == 0,
        src,
        src_vals,
        operator: w.operator,
    }
}

/// Applies the write to the model: `buf` is the storage, `offs` the destination's element
/// offsets in row-major order of `shape`.
fn model_write<T: Num>(p: &Prepared<T>, buf: &mut [T], offs: &[i128], shape: &[usize]) {
    use WKind::*;
    let at = |k: usize| offs[k] as usize;
    let upd = |buf: &mut [T], f: &dyn Fn(T, usize) -> T| {
        for k in 0..offs.len() {
            buf[at(k)] = f(buf[at(k)], k);
        }
    };
    let s = &p.src_vals;
    match p.kind {
        Fill => upd(buf, &|_, _| p.value),
        Set => {
            if !p.expect_err {
                buf[at(ravel(&p.index, shape))] = p.value;
            }
        }
        Copy => upd(buf, &|_, k| s[k]),
        Map => upd(buf, &|x, _| map_fn(x)),
        Add => upd(buf, &|x, k| T::m_add(x, s[k])),
        Sub => upd(buf, &|x, k| T::m_sub(x, s[k])),
        Mul => upd(buf, &|x, k| T::m_mul(x, s[k])),
        Div => upd(buf, &|x, k| T::m_div(x, s[k])),
        ZipMap => upd(buf, &|x, k| zip_fn(x, s[k])),
        AddScalar => upd(buf, &|x, _| T::m_add(x, p.value)),
        SubScalar => upd(buf, &|x, _| T::m_sub(x, p.value)),
        MulScalar => upd(buf, &|x, _| T::m_mul(x, p.value)),
        DivScalar => upd(buf, &|x, _| T::m_div(x, p.value)),
    }
}

/// The write through a `TensorMut`.
fn mut_write<T: Num>(p: &Prepared<T>, v: &mut TensorMut<'_, T>) -> stridex::Result<()> {
    use WKind::*;
    let src = || p.src.as_ref().unwrap();
    match p.kind {
        Fill => v.fill(p.value),
        Set => v.set(&p.index, p.value),
        Copy => v.copy_from(src()),
        Map => v.map_inplace(map_fn::<T>),
        Add => v.add_assign(src()),
        Sub => v.sub_assign(src()),
        Mul => v.mul_assign(src()),
        Div => v.div_assign(src()),
        ZipMap => v.zip_map_inplace(src(), zip_fn::<T>),
        AddScalar => v.add_assign_scalar(p.value),
        SubScalar => v.sub_assign_scalar(p.value),
        MulScalar => v.mul_assign_scalar(p.value),
        DivScalar => v.div_assign_scalar(p.value),
    }
}

/// The write through the `Tensor` methods, or the `std::ops` operators when `p.operator` (and
/// for the scalar forms, which have no method). Operators panic on an error, so `operator`
/// must only be set for writes expected to succeed.
fn tensor_write<T: Num>(p: &Prepared<T>, t: &mut Tensor<T>, operator: bool) -> stridex::Result<()> {
    use WKind::*;
    let src = || p.src.as_ref().unwrap();
    match p.kind {
        Fill => t.fill(p.value),
        Set => t.set(&p.index, p.value),
        Copy => t.copy_from(src()),
        Map => t.map_inplace(map_fn::<T>),
        Add if operator => {
            *t += src();
            Ok(())
        }
        Sub if operator => {
            *t -= src();
            Ok(())
        }
        Mul if operator => {
            *t *= src();
            Ok(())
        }
        Div if operator => {
            *t /= src();
            Ok(())
        }
        Add => t.add_assign(src()),
        Sub => t.sub_assign(src()),
        Mul => t.mul_assign(src()),
        Div => t.div_assign(src()),
        ZipMap => t.view_mut()?.zip_map_inplace(src(), zip_fn::<T>),
        AddScalar if operator => {
            *t += p.value;
            Ok(())
        }
        SubScalar if operator => {
            *t -= p.value;
            Ok(())
        }
        MulScalar if operator => {
            *t *= p.value;
            Ok(())
        }
        DivScalar if operator => {
            *t /= p.value;
            Ok(())
        }
        AddScalar => t.view_mut()?.add_assign_scalar(p.value),
        SubScalar => t.view_mut()?.sub_assign_scalar(p.value),
        MulScalar => t.view_mut()?.mul_assign_scalar(p.value),
        DivScalar => t.view_mut()?.div_assign_scalar(p.value),
    }
}

/// The outcome a prepared write must have.
fn check_outcome<T: Element>(p: &Prepared<T>, r: stridex::Result<()>, what: &str) -> TestResult {
    if p.expect_err {
        prop_assert!(
            matches!(r, Err(Error::IndexOutOfRange { op: "set", .. })),
            "{}: set on an empty destination gave {:?}",
            what,
            r
        );
        Ok(())
    } else {
        okay(r, what).map(|_| ())
    }
}

// ---------------------------------------------------------------------------------------------
// View chains
// ---------------------------------------------------------------------------------------------

/// The variant name of an error, including the write errors.
fn kind2(e: &Error) -> &'static str {
    match e {
        Error::OverlappingDestination { .. } => "OverlappingDestination",
        Error::EscapesView { .. } => "EscapesView",
        Error::SourceMismatch { .. } => "SourceMismatch",
        Error::ImplicitCopy { .. } => "ImplicitCopy",
        Error::DivisionByZero { .. } => "DivisionByZero",
        _ => kind(e),
    }
}

/// One random view op of the kinds `TensorMut` offers (no expand, unfold or squeeze_all).
fn arb_mut_op() -> impl Strategy<Value = OpGen> {
    use OpGen::Fixed;
    prop_oneof![
        3 => (dim_arg(), dim_arg()).prop_map(|(a, b)| Fixed(Op::Transpose(a, b))),
        1 => Just(Fixed(Op::T)),
        3 => seed().prop_map(OpGen::Permute),
        3 => (dim_arg(), size_arg(), len_arg()).prop_map(|(d, s, n)| Fixed(Op::Narrow(d, s, n))),
        4 => (dim_arg(), bound_arg(), bound_arg(), step_arg())
            .prop_map(|(d, s, e, st)| Fixed(Op::Slice(d, s, e, st))),
        3 => (dim_arg(), size_arg()).prop_map(|(d, i)| Fixed(Op::Select(d, i))),
        2 => dim_arg().prop_map(|d| Fixed(Op::Squeeze(d))),
        2 => dim_arg().prop_map(|d| Fixed(Op::Unsqueeze(d))),
        3 => dim_arg().prop_map(|d| Fixed(Op::Flip(d))),
        1 => Just(Fixed(Op::Diagonal)),
        2 => (prop_oneof![10 => -4isize..=4, 1 => huge_isize()], dim_arg(), dim_arg())
            .prop_map(|(k, a, b)| Fixed(Op::DiagonalWith(k, a, b))),
        3 => seed().prop_map(OpGen::View),
        1 => as_strided_args().prop_map(Fixed),
    ]
}

fn arb_mut_chain() -> impl Strategy<Value = Vec<OpGen>> {
    prop::collection::vec(arb_mut_op(), 0..=6)
}

fn apply_mut<'a, T: Element>(v: TensorMut<'a, T>, op: &Op) -> stridex::Result<TensorMut<'a, T>> {
    match op {
        Op::Transpose(a, b) => v.transpose(*a, *b),
        Op::T => v.t(),
        Op::Permute(p) => v.permute(p),
        Op::Narrow(d, s, n) => v.narrow(*d, *s, *n),
        Op::Slice(d, s, e, st) => v.slice(*d, *s, *e, *st),
        Op::Select(d, i) => v.select(*d, *i),
        Op::Squeeze(d) => v.squeeze(*d),
        Op::Unsqueeze(d) => v.unsqueeze(*d),
        Op::Flip(d) => v.flip(*d),
        Op::Diagonal => v.diagonal(),
        Op::DiagonalWith(k, a, b) => v.diagonal_with(*k, *a, *b),
        Op::AsStrided(s, st, o) => v.as_strided(s, st, *o),
        Op::View(s) => v.view(s),
        Op::Expand(_) | Op::Unfold(..) | Op::SqueezeAll => unreachable!("not a TensorMut op"),
    }
}

/// The model of `TensorMut::as_strided` over a storage of `len` elements; `half` is the model
/// of the view it is called on when that view is a `split_at` half (not the whole storage).
fn model_as_strided(
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    len: usize,
    half: Option<&Model>,
) -> MResult {
    layout_new_model(shape, strides, offset)?;
    let r = Model::strided(shape, strides, offset);
    if r.range().is_some_and(|(_, hi)| hi >= len as i128) {
        return Err(vec!["OutOfBounds"]);
    }
    if !distinct(&r.offs) {
        return Err(vec!["OverlappingDestination"]);
    }
    if let (Some(h), Some((lo, hi))) = (half, r.range()) {
        // Allowed only inside a dense half (where inside means inside its offset range).
        let inside = h.is_non_overlapping_and_dense()
            && h.range().is_some_and(|(hlo, hhi)| hlo <= lo && hi <= hhi);
        if !inside {
            return Err(vec!["EscapesView"]);
        }
    }
    Ok(r)
}

/// Compares a `TensorMut` op with the model; as `common::compare`, with `as_strided` judged
/// by [`model_as_strided`].
fn compare_mut<X>(
    what: &str,
    op: &Op,
    got: &Result<X, Error>,
    want: &MResult,
) -> Result<Option<Model>, TestCaseError> {
    if !matches!(op, Op::AsStrided(..)) {
        return compare(what, op, got, want);
    }
    match (got, want) {
        (Ok(_), Ok(m)) => Ok(Some(m.clone())),
        (Err(e), Err(why)) => {
            prop_assert!(
                why.contains(&kind2(e)),
                "{}: error {:?} is not one of {:?}",
                what,
                e,
                why
            );
            Ok(None)
        }
        (Ok(_), Err(why)) => Err(TestCaseError::fail(format!(
            "{what}: succeeded, but the model rejects it ({why:?})"
        ))),
        (Err(e), Ok(_)) => Err(TestCaseError::fail(format!(
            "{what}: failed with {e:?}, but the model accepts it"
        ))),
    }
}

/// Runs a chain of ops on a `TensorMut` and on the model side by side. Each op is first tried
/// on a reborrow (so a rejected op leaves the view usable), then applied for real.
fn run_mut_chain<'a, T: Element>(
    mut v: TensorMut<'a, T>,
    mut m: Model,
    ops: &[OpGen],
    len: usize,
    half: bool,
) -> Result<(TensorMut<'a, T>, Model), TestCaseError> {
    check_layout(v.layout(), &m)?;
    for gen in ops {
        let op = gen.resolve(v.shape());
        let probe = apply_mut(v.reborrow(), &op).map(|r| r.layout().clone());
        let want = match &op {
            Op::AsStrided(s, st, o) => model_as_strided(s, st, *o, len, half.then_some(&m)),
            op => m.apply(op),
        };
        let what = format!("TensorMut {op:?} on {:?}", v.layout());
        if let Some(next) = compare_mut(&what, &op, &probe, &want)? {
            v = okay(apply_mut(v, &op), &what)?;
            prop_assert_eq!(Some(v.layout()), probe.as_ref().ok(), "{}", what);
            m = next;
            check_layout(v.layout(), &m)?;
        }
    }
    Ok((v, m))
}

/// Runs a chain of ops through the `Tensor` view methods (which share the storage) and the
/// model; `as_strided` beyond the storage must fail with `OutOfBounds` and is skipped.
fn run_tensor_chain<T: Element>(
    mut t: Tensor<T>,
    mut m: Model,
    ops: &[OpGen],
    len: usize,
) -> Result<(Tensor<T>, Model), TestCaseError> {
    for gen in ops {
        let op = gen.resolve(t.shape());
        let got = apply_tensor(&t, &op);
        let want = m.apply(&op);
        let what = format!("{op:?} on {:?}", t.layout());
        if let (Op::AsStrided(..), Ok(w)) = (&op, &want) {
            if w.range().is_some_and(|(_, hi)| hi >= len as i128) {
                prop_assert!(
                    matches!(got, Err(Error::OutOfBounds { .. })),
                    "{}: {:?}",
                    what,
                    got
                );
                continue;
            }
        }
        if let Some(next) = compare(&what, &op, &got, &want)? {
            t = got.unwrap();
            m = next;
            check_layout(t.layout(), &m)?;
        }
    }
    Ok((t, m))
}

fn values<T: Element>(m: &Model, buf: &[T]) -> Vec<T> {
    m.offs.iter().map(|&o| buf[o as usize]).collect()
}

/// The dense strides (positive, no gaps) that keep the memory order of `l`: the dims of size
/// > 1 ordered by decreasing |stride|. Size-1 dims are left as `None` (any stride).
fn dense_strides_like(l: &Layout) -> Vec<Option<isize>> {
    let n = l.ndim();
    let mut big: Vec<usize> = (0..n).filter(|&d| l.shape()[d] > 1).collect();
    big.sort_by_key(|&d| l.strides()[d].unsigned_abs());
    let mut out = vec![None; n];
    let mut acc = 1isize;
    for d in big {
        out[d] = Some(acc);
        acc *= l.shape()[d] as isize;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Property 1: TensorMut chains and writes
// ---------------------------------------------------------------------------------------------

/// A parent tensor with a random layout (holding its storage alone), a random `TensorMut`
/// chain on it, then a random write; the whole storage and the parent's elements must match
/// the model, and nothing may be copied.
fn mut_chain_write<T: Num>(
    shape: &[usize],
    recipe: &Recipe,
    ops: &[OpGen],
    w: &WriteGen,
) -> TestResult {
    let Built {
        t: mut parent,
        m: pm,
        storage,
    } = build::<T>(shape, recipe, T::from_index, false);
    let len = storage.len();
    let ptr = parent.storage().as_ptr();
    let layout0 = parent.layout().clone();
    let mut buf = storage.clone();
    let (res, report) = audit::record(|| -> TestResult {
        let v = okay(parent.view_mut(), "view_mut")?;
        let (mut v, m) = run_mut_chain(v, pm.clone(), ops, len, false)?;
        let p = prepare::<T>(w, v.shape());
        let what = format!("{:?} on {:?}", p.kind, v.layout());
        check_outcome(&p, mut_write(&p, &mut v), &what)?;
        model_write(&p, &mut buf, &m.offs, &m.shape);
        let want = values(&m, &buf);
        prop_assert_eq!(v.to_vec(), want.clone(), "{}: to_vec of the view", what);
        for (k, idx) in all_indices(&m.shape).iter().enumerate().take(8) {
            prop_assert_eq!(v.get(idx).ok(), Some(want[k]), "{}: get {:?}", what, idx);
        }
        Ok(())
    });
    res?;
    prop_assert!(
        report
            .events()
            .iter()
            .all(|e| e.reason != CopyReason::CopyOnWrite),
        "a tensor holding its storage alone was copied: {}",
        report
    );
    prop_assert_eq!(parent.storage().as_ptr(), ptr, "the parent's storage moved");
    prop_assert_eq!(parent.layout(), &layout0, "the parent's layout changed");
    prop_assert_eq!(
        parent.storage().as_slice(),
        &buf[..],
        "storage after the write"
    );
    prop_assert_eq!(parent.to_vec(), values(&pm, &buf), "parent after the write");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Property 2: copy-on-write
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Holders {
    /// `a` stays alive.
    Shared,
    /// `a` and a clone of `b` stay alive.
    SharedAndClone,
    /// `a` is dropped, a clone of `b` stays alive.
    CloneOnly,
    /// `a` is dropped: `b` holds its storage alone.
    Alone,
}

fn arb_holders() -> impl Strategy<Value = Holders> {
    prop_oneof![
        3 => Just(Holders::Shared),
        1 => Just(Holders::SharedAndClone),
        1 => Just(Holders::CloneOnly),
        2 => Just(Holders::Alone),
    ]
}

/// `b` is a view chain of `a`; a write to `b` through the `Tensor` methods copies `b` (if
/// anything else holds the storage) into its own dense storage in its memory order, once, and
/// nobody else sees the write; a tensor holding its storage alone is written in place.
fn cow_write<T: Num>(
    shape: &[usize],
    recipe: &Recipe,
    ops: &[OpGen],
    w: &WriteGen,
    holders: Holders,
) -> TestResult {
    let Built {
        t: a,
        m: am,
        storage,
    } = build::<T>(shape, recipe, T::from_index, false);
    let len = storage.len();
    let a_vals = values(&am, &storage);
    let (b, bm) = run_tensor_chain(a.clone(), am.clone(), ops, len)?;
    prop_assert!(b.shares_storage(&a), "a view op copied");
    let clone = matches!(holders, Holders::SharedAndClone | Holders::CloneOnly).then(|| b.clone());
    let a = match holders {
        Holders::CloneOnly | Holders::Alone => {
            drop(a);
            None
        }
        _ => Some(a),
    };
    let mut b = b;
    let before = b.layout().clone();
    let b_vals = values(&bm, &storage);
    let ptr = b.storage().as_ptr();
    let p = prepare::<T>(w, b.shape());
    let n = b.numel();

    if !distinct(&bm.offs) {
        // Property 3 (overlap) on random chains: refused before any copy, whatever the holders.
        let (r, report) = audit::record(|| tensor_write(&p, &mut b, false));
        prop_assert!(
            matches!(r, Err(Error::OverlappingDestination { .. })),
            "write {:?} to the overlapping {:?} gave {:?}",
            p.kind,
            before,
            r
        );
        prop_assert_eq!(report.count(), 0, "copied before refusing: {}", report);
        let mv = b.view_mut().map(|_| ());
        prop_assert!(
            matches!(
                mv,
                Err(Error::OverlappingDestination { op: "view_mut", .. })
            ),
            "view_mut of the overlapping {:?}: {:?}",
            before,
            mv
        );
        prop_assert_eq!(b.layout(), &before);
        prop_assert_eq!(b.storage().as_ptr(), ptr);
        prop_assert_eq!(b.to_vec(), b_vals);
        return Ok(());
    }

    let what = format!(
        "{:?} (operator {}) on {:?}, {:?}",
        p.kind, p.operator, before, holders
    );
    let (r, report) = audit::record(|| tensor_write(&p, &mut b, p.operator && !p.expect_err));
    check_outcome(&p, r, &what)?;
    if let Some(a) = &a {
        prop_assert_eq!(a.to_vec(), a_vals.clone(), "{}: a changed", what);
    }
    if let Some(c) = &clone {
        prop_assert_eq!(c.to_vec(), b_vals.clone(), "{}: the clone changed", what);
        prop_assert_eq!(c.layout(), &before);
        if let Some(a) = &a {
            prop_assert!(c.shares_storage(a));
        }
    }
    if holders == Holders::Alone {
        // Written in place, whatever the layout: no copy, same storage, same layout.
        prop_assert_eq!(report.count(), 0, "{}: {}", what, report);
        prop_assert_eq!(b.storage().as_ptr(), ptr, "{}", what);
        prop_assert_eq!(b.layout(), &before, "{}", what);
        let mut buf = storage.clone();
        model_write(&p, &mut buf, &bm.offs, &bm.shape);
        prop_assert_eq!(b.storage().as_slice(), &buf[..], "{}: storage", what);
        prop_assert_eq!(b.to_vec(), values(&bm, &buf), "{}", what);
        return Ok(());
    }
    if p.expect_err {
        // `set` on an empty tensor is refused before the copy-on-write.
        prop_assert_eq!(report.count(), 0, "{}: {}", what, report);
        prop_assert_eq!(b.layout(), &before);
        return Ok(());
    }
    // Shared: exactly one copy-on-write of b's elements.
    prop_assert_eq!(report.count(), 1, "{}: {}", what, report);
    let e = &report.events()[0];
    prop_assert_eq!(e.reason, CopyReason::CopyOnWrite, "{}", what);
    prop_assert_eq!(e.bytes, n * std::mem::size_of::<T>(), "{}", what);
    prop_assert_eq!(e.src_shape.as_slice(), before.shape(), "{}", what);
    if let Some(a) = &a {
        prop_assert!(!b.shares_storage(a), "{}: still shares with a", what);
    }
    if let Some(c) = &clone {
        prop_assert!(
            !b.shares_storage(c),
            "{}: still shares with the clone",
            what
        );
    }
    if n > 0 {
        prop_assert_ne!(b.storage().as_ptr(), ptr);
    }
    // The copy: b's elements only, dense from offset 0, in b's memory order.
    prop_assert_eq!(b.shape(), before.shape());
    prop_assert_eq!(b.offset(), 0, "{}", what);
    prop_assert_eq!(b.storage().len(), n, "{}", what);
    prop_assert!(
        b.layout().is_non_overlapping_and_dense(),
        "{}: {:?}",
        what,
        b.layout()
    );
    if n > 0 {
        for (d, want) in dense_strides_like(&before).into_iter().enumerate() {
            if let Some(s) = want {
                prop_assert_eq!(
                    b.strides()[d],
                    s,
                    "{}: stride of dim {} in {:?}",
                    what,
                    d,
                    b.layout()
                );
            }
        }
    }
    // b's values with the write applied (b's own row-major positions).
    let mut bbuf = b_vals.clone();
    let ident: Vec<i128> = (0..n as i128).collect();
    model_write(&p, &mut bbuf, &ident, before.shape());
    prop_assert_eq!(b.to_vec(), bbuf, "{}", what);
    // Now b holds its storage alone: a second write is in place.
    let ptr2 = b.storage().as_ptr();
    let fill = T::from_index(77);
    let (r, again) = audit::record(|| b.fill(fill));
    okay(r, "second fill")?;
    prop_assert_eq!(again.count(), 0, "{}: copied twice: {}", what, again);
    prop_assert_eq!(b.storage().as_ptr(), ptr2);
    prop_assert_eq!(b.to_vec(), vec![fill; n]);
    if let Some(a) = &a {
        prop_assert_eq!(
            a.to_vec(),
            a_vals,
            "{}: a changed by the second write",
            what
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Property 3: overlapping destinations are refused before any copy
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Overlapping {
    /// Expand size-1 dim `dim` of `shape` to `to` (>= 2).
    Expand {
        shape: Vec<usize>,
        dim: usize,
        to: usize,
    },
    /// Unfold a dim of size `n` into windows of `size` with `step < size`, at least two.
    Unfold {
        n: usize,
        size: usize,
        step: usize,
        rows: usize,
    },
    /// `as_strided([k, m], [m - 1 or 1 or 0, 1])` over a 1-dim storage.
    AsStrided { k: usize, m: usize, inner: isize },
}

fn arb_overlapping() -> impl Strategy<Value = Overlapping> {
    prop_oneof![
        (
            prop::collection::vec(1usize..=4, 1..=3),
            any::<usize>(),
            2usize..=4
        )
            .prop_map(|(mut shape, dim, to)| {
                let dim = dim % shape.len();
                shape[dim] = 1;
                Overlapping::Expand { shape, dim, to }
            }),
        (3usize..=7, any::<usize>(), any::<usize>(), 1usize..=3).prop_map(|(n, s, st, rows)| {
            let size = 2 + s % (n - 2); // 2..n
            let step = 1 + st % (size - 1).min(n - size); // < size, and two windows fit
            Overlapping::Unfold {
                n,
                size,
                step,
                rows,
            }
        }),
        (2usize..=4, 2usize..=5, 0usize..3).prop_map(|(k, m, i)| Overlapping::AsStrided {
            k,
            m,
            inner: [0, 1, m as isize - 1][i],
        }),
    ]
}

/// The overlapping view, its base (which holds the storage too) and the model of the view.
fn overlapping_view<T: Val>(o: &Overlapping) -> (Tensor<T>, Tensor<T>, Model) {
    match o {
        Overlapping::Expand { shape, dim, to } => {
            let n = true_numel(shape).unwrap();
            let base = Tensor::from_vec((0..n).map(T::from_index).collect(), shape).unwrap();
            let mut target = shape.clone();
            target[*dim] = *to;
            let m = Model::strided(shape, Layout::contiguous(shape).unwrap().strides(), 0)
                .apply(&Op::Expand(target.clone()))
                .unwrap();
            (base.expand(&target).unwrap(), base, m)
        }
        Overlapping::Unfold {
            n,
            size,
            step,
            rows,
        } => {
            let shape = [*rows, *n];
            let base =
                Tensor::from_vec((0..rows * n).map(T::from_index).collect(), &shape).unwrap();
            let op = Op::Unfold(1, *size, *step);
            let m = Model::strided(&shape, &[*n as isize, 1], 0)
                .apply(&op)
                .unwrap();
            (apply_tensor(&base, &op).unwrap(), base, m)
        }
        Overlapping::AsStrided { k, m, inner } => {
            let len = (k - 1) * inner.unsigned_abs() + m;
            let base = Tensor::from_vec((0..len).map(T::from_index).collect(), &[len]).unwrap();
            let v = base.as_strided(&[*k, *m], &[*inner, 1], 0).unwrap();
            (v, base, Model::strided(&[*k, *m], &[*inner, 1], 0))
        }
    }
}

fn overlap_refused<T: Num>(o: &Overlapping, w: &WriteGen, shared: bool) -> TestResult {
    let (mut v, base, m) = overlapping_view::<T>(o);
    prop_assert!(
        !distinct(&m.offs),
        "the generator must give an overlapping view"
    );
    let base_vals = base.to_vec();
    let v_vals = base.storage().as_slice().to_vec();
    let v_vals: Vec<T> = values(&m, &v_vals);
    let base = shared.then_some(base);
    let layout = v.layout().clone();
    let ptr = v.storage().as_ptr();
    let p = prepare::<T>(w, v.shape());
    let (r, report) = audit::record(|| {
        let mv = v.view_mut().map(|_| ());
        (mv, tensor_write(&p, &mut v, false))
    });
    prop_assert!(
        matches!(
            r.0,
            Err(Error::OverlappingDestination { op: "view_mut", .. })
        ),
        "view_mut of {:?}: {:?}",
        layout,
        r.0
    );
    if !p.expect_err {
        prop_assert!(
            matches!(r.1, Err(Error::OverlappingDestination { .. })),
            "{:?} on {:?}: {:?}",
            p.kind,
            layout,
            r.1
        );
    }
    prop_assert_eq!(report.count(), 0, "copied before refusing: {}", report);
    prop_assert_eq!(v.layout(), &layout);
    prop_assert_eq!(v.storage().as_ptr(), ptr);
    prop_assert_eq!(v.to_vec(), v_vals);
    if let Some(base) = &base {
        prop_assert_eq!(base.to_vec(), base_vals);
        prop_assert!(v.shares_storage(base));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Property 4: split_at and reborrow
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct SplitGen {
    dim: usize,
    index: usize,
    /// Split the right half again along the next dim at this index.
    nested: Option<usize>,
    threaded: bool,
    /// An `as_strided` tried on the left half.
    probe: Option<Op>,
    /// View ops (as_strided included) on the left half before the probe.
    half_ops: Vec<OpGen>,
}

fn arb_split() -> impl Strategy<Value = SplitGen> {
    (
        0usize..8,
        0usize..8,
        prop::option::of(0usize..8),
        any::<bool>(),
        prop::option::weighted(0.4, as_strided_args()),
        prop_oneof![2 => Just(vec![]), 1 => arb_mut_chain()],
    )
        .prop_map(|(dim, index, nested, threaded, probe, half_ops)| SplitGen {
            dim,
            index,
            nested,
            threaded,
            probe,
            half_ops,
        })
}

/// Writes `pa` and `pb` through `a` and `b`, on two threads or one after the other.
fn write_two<T: Num>(
    a: &mut TensorMut<'_, T>,
    pa: &Prepared<T>,
    b: &mut TensorMut<'_, T>,
    pb: &Prepared<T>,
    threaded: bool,
) -> (stridex::Result<()>, stridex::Result<()>) {
    if threaded {
        std::thread::scope(|s| {
            let ha = s.spawn(|| mut_write(pa, a));
            let hb = s.spawn(|| mut_write(pb, b));
            (ha.join().unwrap(), hb.join().unwrap())
        })
    } else {
        (mut_write(pa, a), mut_write(pb, b))
    }
}

fn split_case<T: Num>(
    shape: &[usize],
    recipe: &Recipe,
    ops: &[OpGen],
    g: &SplitGen,
    w: &[WriteGen; 3],
) -> TestResult {
    let Built {
        t: mut parent,
        m: pm,
        storage,
    } = build::<T>(shape, recipe, T::from_index, false);
    let len = storage.len();
    let mut buf = storage.clone();
    {
        let v = okay(parent.view_mut(), "view_mut")?;
        let (mut v, m) = run_mut_chain(v, pm.clone(), ops, len, false)?;
        let n = v.ndim();
        if n == 0 {
            let r = v.reborrow().split_at(0, 0).map(|_| ());
            prop_assert!(
                matches!(r, Err(Error::DimOutOfRange { op: "split_at", .. })),
                "split_at of a 0-dim view: {:?}",
                r
            );
            return Ok(());
        }
        let d = g.dim % n;
        let size = v.shape()[d];
        let r = v.reborrow().split_at(d, size + 1 + g.index).map(|_| ());
        prop_assert!(
            matches!(r, Err(Error::RangeOutOfBounds { op: "split_at", .. })),
            "split_at past the end: {:?}",
            r
        );
        let r = v.reborrow().split_at(n + g.dim, 0).map(|_| ());
        prop_assert!(
            matches!(r, Err(Error::DimOutOfRange { op: "split_at", .. })),
            "split_at of a missing dim: {:?}",
            r
        );
        let i = g.index % (size + 1);
        let (l, r) = okay(v.split_at(d, i), "split_at")?;
        let lm = m.apply(&Op::Narrow(d, 0, i)).unwrap();
        let rm = m.apply(&Op::Narrow(d, i, size - i)).unwrap();
        check_layout(l.layout(), &lm)?;
        check_layout(r.layout(), &rm)?;
        let (mut l, lm) = run_mut_chain(l, lm, &g.half_ops, len, true)?;
        // as_strided on a half: allowed only inside it (when it is dense).
        if let Some(op @ Op::AsStrided(s, st, o)) = &g.probe {
            let got = l
                .reborrow()
                .as_strided(s, st, *o)
                .map(|x| x.layout().clone());
            let want = model_as_strided(s, st, *o, len, Some(&lm));
            let what = format!("{op:?} on the half {:?}", l.layout());
            if let Some(pm2) = compare_mut(&what, op, &got, &want)? {
                let value = T::from_index(3000);
                let mut x = okay(l.reborrow().as_strided(s, st, *o), &what)?;
                okay(x.fill(value), "fill")?;
                for &off in &pm2.offs {
                    buf[off as usize] = value;
                }
            }
        }
        // The right half, maybe split again along another dim.
        let (mut r, r2) = match g.nested {
            Some(j) if n >= 2 => {
                let d2 = (d + 1) % n;
                let j = j % (r.shape()[d2] + 1);
                let size2 = r.shape()[d2];
                let (r1, r2) = okay(r.split_at(d2, j), "nested split_at")?;
                let m1 = rm.apply(&Op::Narrow(d2, 0, j)).unwrap();
                let m2 = rm.apply(&Op::Narrow(d2, j, size2 - j)).unwrap();
                check_layout(r1.layout(), &m1)?;
                check_layout(r2.layout(), &m2)?;
                ((r1, m1), Some((r2, m2)))
            }
            _ => ((r, rm), None),
        };
        let pl = prepare::<T>(&w[0], l.shape());
        let pr = prepare::<T>(&w[1], r.0.shape());
        let threaded = g.threaded && l.numel() > 0;
        let (el, er) = write_two(&mut l, &pl, &mut r.0, &pr, threaded);
        check_outcome(&pl, el, "left half")?;
        check_outcome(&pr, er, "right half")?;
        model_write(&pl, &mut buf, &lm.offs, &lm.shape);
        model_write(&pr, &mut buf, &r.1.offs, &r.1.shape);
        if let Some((mut r2, m2)) = r2 {
            let p2 = prepare::<T>(&w[2], r2.shape());
            check_outcome(&p2, mut_write(&p2, &mut r2), "second right piece")?;
            model_write(&p2, &mut buf, &m2.offs, &m2.shape);
            prop_assert_eq!(r2.to_vec(), values(&m2, &buf));
        }
        prop_assert_eq!(l.to_vec(), values(&lm, &buf), "left half");
        prop_assert_eq!(r.0.to_vec(), values(&r.1, &buf), "right half");
    }
    prop_assert_eq!(parent.storage().as_slice(), &buf[..]);
    prop_assert_eq!(parent.to_vec(), values(&pm, &buf));
    Ok(())
}

/// Two writes through reborrowed views (each after its own view chain), then one through the
/// original view.
fn reborrow_case<T: Num>(
    shape: &[usize],
    recipe: &Recipe,
    chains: &[Vec<OpGen>; 2],
    w: &[WriteGen; 3],
) -> TestResult {
    let Built {
        t: mut parent,
        m: pm,
        storage,
    } = build::<T>(shape, recipe, T::from_index, false);
    let len = storage.len();
    let mut buf = storage.clone();
    {
        let mut v = okay(parent.view_mut(), "view_mut")?;
        let layout0 = v.layout().clone();
        for (ops, w) in chains.iter().zip(w) {
            let (mut x, m) = run_mut_chain(v.reborrow(), pm.clone(), ops, len, false)?;
            let p = prepare::<T>(w, x.shape());
            check_outcome(&p, mut_write(&p, &mut x), "reborrowed write")?;
            model_write(&p, &mut buf, &m.offs, &m.shape);
        }
        prop_assert_eq!(v.layout(), &layout0, "the original view after reborrows");
        let p = prepare::<T>(&w[2], v.shape());
        check_outcome(&p, mut_write(&p, &mut v), "write through the original")?;
        model_write(&p, &mut buf, &pm.offs, &pm.shape);
        prop_assert_eq!(v.to_vec(), values(&pm, &buf));
    }
    prop_assert_eq!(parent.storage().as_slice(), &buf[..]);
    prop_assert_eq!(parent.to_vec(), values(&pm, &buf));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Property 5: failing calls write nothing
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Failing {
    /// A source that does not broadcast: an extra leading dim of 2, or one dim one too long.
    Mismatch { extra_dim: bool, which: WKind },
    /// `set` at an index with one entry out of range, or with the wrong rank.
    SetOutOfRange { dim: usize, wrong_rank: bool },
    /// Integer `div_assign` by a source with a zero at `at`, or `div_assign_scalar(0)`.
    DivByZero { at: usize, scalar: bool },
}

fn arb_failing() -> impl Strategy<Value = Failing> {
    use WKind::*;
    prop_oneof![
        (
            any::<bool>(),
            prop_oneof![
                Just(Copy),
                Just(Add),
                Just(Sub),
                Just(Mul),
                Just(Div),
                Just(ZipMap)
            ]
        )
            .prop_map(|(extra_dim, which)| Failing::Mismatch { extra_dim, which }),
        (0usize..8, prop::bool::weighted(0.3))
            .prop_map(|(dim, wrong_rank)| Failing::SetOutOfRange { dim, wrong_rank }),
        (0usize..1000, prop::bool::weighted(0.3))
            .prop_map(|(at, scalar)| Failing::DivByZero { at, scalar }),
    ]
}

/// A failing write made concrete for a destination shape: the write, the expected error kind
/// (`None`: the write succeeds and writes nothing, an integer division of an empty tensor).
fn prepare_failing<T: Num>(
    f: &Failing,
    shape: &[usize],
) -> Option<(Prepared<T>, Option<&'static str>)> {
    let numel = true_numel(shape).unwrap();
    let blank = |kind| Prepared {
        kind,
        value: T::from_index(9),
        index: vec![],
        expect_err: false,
        src: None,
        src_vals: vec![],
        operator: false,
    };
    match f {
        Failing::Mismatch { extra_dim, which } => {
            let mut s = shape.to_vec();
            match s.iter().position(|&d| d != 1) {
                // A size-1 source dim would broadcast: make it 2 (over 0) or one longer.
                Some(d) if !extra_dim => s[d] = if s[d] == 0 { 2 } else { s[d] + 1 },
                _ => s.insert(0, 2),
            }
            let n = true_numel(&s).unwrap();
            let mut p = blank(*which);
            p.src = Some(Tensor::from_vec((0..n).map(T::small).collect(), &s).unwrap());
            Some((p, Some("SourceMismatch")))
        }
        Failing::SetOutOfRange { dim, wrong_rank } => {
            let mut p = blank(WKind::Set);
            let mut idx = vec![0; shape.len()];
            if *wrong_rank || shape.is_empty() {
                idx.push(0);
                p.index = idx;
                Some((p, Some("IndexRank")))
            } else {
                let d = dim % shape.len();
                idx[d] = shape[d] + dim;
                p.index = idx;
                Some((p, Some("IndexOutOfRange")))
            }
        }
        Failing::DivByZero { at, scalar } => {
            if !T::INTEGER {
                return None;
            }
            let want = (numel > 0).then_some("DivisionByZero");
            if *scalar {
                let mut p = blank(WKind::DivScalar);
                p.value = T::m_zero();
                return Some((p, want));
            }
            // A source of the destination's shape read flipped (or, if the destination is
            // empty, of one element), with one zero.
            let s = if numel == 0 { vec![1] } else { shape.to_vec() };
            let n = true_numel(&s).unwrap();
            let vals: Vec<T> = (0..n)
                .map(|i| {
                    if i == at % n {
                        T::m_zero()
                    } else {
                        T::small(i)
                    }
                })
                .collect();
            let src = Tensor::from_vec(vals, &s).unwrap();
            let mut p = blank(WKind::Div);
            p.src = Some(if s.is_empty() {
                src
            } else {
                src.flip(0).unwrap()
            });
            Some((p, want))
        }
    }
}

fn check_failed(r: stridex::Result<()>, want: Option<&'static str>, what: &str) -> TestResult {
    match (want, r) {
        (None, Ok(())) => Ok(()),
        (Some(k), Err(e)) => {
            prop_assert_eq!(kind2(&e), k, "{}: {:?}", what, e);
            Ok(())
        }
        (want, r) => Err(TestCaseError::fail(format!(
            "{what}: expected {want:?}, got {r:?}"
        ))),
    }
}

/// A failing write through a `TensorMut` (after a random chain) and through the `Tensor`
/// methods on a shared view: `Err` of the right kind, and no element changes.
fn failing_case<T: Num>(
    shape: &[usize],
    recipe: &Recipe,
    ops: &[OpGen],
    f: &Failing,
) -> TestResult {
    let Built {
        t: mut parent,
        m: pm,
        storage,
    } = build::<T>(shape, recipe, T::from_index, false);
    let len = storage.len();
    {
        let v = okay(parent.view_mut(), "view_mut")?;
        let (mut v, m) = run_mut_chain(v, pm.clone(), ops, len, false)?;
        let Some((p, want)) = prepare_failing::<T>(f, v.shape()) else {
            return Ok(());
        };
        let what = format!("TensorMut {:?} on {:?}", f, v.layout());
        check_failed(mut_write(&p, &mut v), want, &what)?;
        prop_assert_eq!(v.to_vec(), values(&m, &storage), "{}", what);
    }
    prop_assert_eq!(parent.storage().as_slice(), &storage[..]);
    // Through the Tensor methods on a view sharing the storage.
    let a = parent;
    let (mut b, bm) = run_tensor_chain(a.clone(), pm.clone(), ops, len)?;
    if !distinct(&bm.offs) {
        return Ok(());
    }
    let Some((p, want)) = prepare_failing::<T>(f, b.shape()) else {
        return Ok(());
    };
    let what = format!("Tensor {:?} on {:?}", f, b.layout());
    let before = b.layout().clone();
    let (r, report) = audit::record(|| tensor_write(&p, &mut b, false));
    check_failed(r, want, &what)?;
    prop_assert_eq!(b.to_vec(), values(&bm, &storage), "{}", what);
    prop_assert_eq!(a.to_vec(), values(&pm, &storage), "{}", what);
    prop_assert_eq!(a.storage().as_slice(), &storage[..]);
    // Argument errors are found before the copy-on-write.
    // (`tensor_write` reaches zip_map_inplace and the scalar forms through `view_mut`.)
    let via_view_mut = matches!(p.kind, WKind::ZipMap | WKind::DivScalar);
    if !matches!(f, Failing::DivByZero { .. }) && !via_view_mut {
        prop_assert_eq!(report.count(), 0, "{}: {}", what, report);
        prop_assert!(b.shares_storage(&a));
        prop_assert_eq!(b.layout(), &before);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------------

fn arb_split_writes() -> impl Strategy<Value = [WriteGen; 3]> {
    (arb_write(), arb_write(), arb_write()).prop_map(|(a, b, c)| [a, b, c])
}

proptest! {
    #![proptest_config(config(128))]

    /// Property 1: TensorMut view chains, then a write, match the model (i32).
    #[test]
    fn mut_chain_writes_match_the_model_i32(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
    ) {
        mut_chain_write::<i32>(&shape, &recipe, &ops, &w)?;
    }

    /// Property 1 for f64.
    #[test]
    fn mut_chain_writes_match_the_model_f64(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
    ) {
        mut_chain_write::<f64>(&shape, &recipe, &ops, &w)?;
    }

    /// Property 2: copy-on-write of shared views (f32), and in-place writes of sole holders.
    #[test]
    fn copy_on_write_matches_the_model_f32(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_chain(), w in arb_write(),
        holders in arb_holders(),
    ) {
        cow_write::<f32>(&shape, &recipe, &ops, &w, holders)?;
    }

    /// Property 2 for i64.
    #[test]
    fn copy_on_write_matches_the_model_i64(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_chain(), w in arb_write(),
        holders in arb_holders(),
    ) {
        cow_write::<i64>(&shape, &recipe, &ops, &w, holders)?;
    }

    /// Property 3: expanded, unfolded and overlapping as_strided destinations are refused
    /// before any copy, shared or not.
    #[test]
    fn overlapping_destinations_are_refused(
        o in arb_overlapping(), w in arb_write(), shared in any::<bool>(),
    ) {
        overlap_refused::<f32>(&o, &w, shared)?;
        overlap_refused::<u8>(&o, &w, shared)?;
    }

    /// Property 3: inside `forbid_implicit_copies` a write to a shared tensor is an
    /// `ImplicitCopy` error and changes nothing; a sole holder is written.
    #[test]
    fn forbidden_copy_on_write_changes_nothing(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_chain(), w in arb_write(),
    ) {
        let Built { t: a, m: am, storage } = build::<f32>(&shape, &recipe, f32::from_index, false);
        let (mut b, bm) = run_tensor_chain(a.clone(), am.clone(), &ops, storage.len())?;
        let p = prepare::<f32>(&w, b.shape());
        if !distinct(&bm.offs) {
            // Overlap is refused first, forbidden or not.
            let r = audit::forbid_implicit_copies(|| tensor_write(&p, &mut b, false));
            prop_assert!(matches!(r, Err(Error::OverlappingDestination { .. })), "{:?}", r);
            prop_assert_eq!(b.to_vec(), values(&bm, &storage));
            return Ok(());
        }
        let before = b.layout().clone();
        let (r, report) = audit::record(|| audit::forbid_implicit_copies(|| tensor_write(&p, &mut b, false)));
        if p.expect_err {
            prop_assert!(matches!(r, Err(Error::IndexOutOfRange { .. })), "set: {:?}", r);
        } else {
            match r {
                Err(Error::ImplicitCopy { reason, bytes, .. }) => {
                    prop_assert_eq!(reason, CopyReason::CopyOnWrite);
                    prop_assert_eq!(bytes, b.numel() * 4);
                }
                other => prop_assert!(false, "{:?}: expected ImplicitCopy, got {:?}", p.kind, other),
            }
        }
        prop_assert_eq!(report.count(), 0, "{}", report);
        prop_assert!(b.shares_storage(&a));
        prop_assert_eq!(b.layout(), &before);
        prop_assert_eq!(b.to_vec(), values(&bm, &storage));
        prop_assert_eq!(a.storage().as_slice(), &storage[..]);
        // Once b holds its storage alone, the same write is allowed and made in place.
        drop(a);
        let ptr = b.storage().as_ptr();
        let r = audit::forbid_implicit_copies(|| tensor_write(&p, &mut b, false));
        check_outcome(&p, r, "sole holder inside forbid_implicit_copies")?;
        prop_assert_eq!(b.storage().as_ptr(), ptr);
        let mut buf = storage.clone();
        model_write(&p, &mut buf, &bm.offs, &bm.shape);
        prop_assert_eq!(b.to_vec(), values(&bm, &buf));
    }

    /// Property 4: split_at (maybe twice, maybe on two threads) writes each half, and
    /// as_strided on a half cannot escape it.
    #[test]
    fn split_halves_write_their_own_elements(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), g in arb_split(),
        w in arb_split_writes(),
    ) {
        split_case::<i32>(&shape, &recipe, &ops, &g, &w)?;
    }

    /// Property 4: reborrowed views write, then the original is used again.
    #[test]
    fn reborrow_then_use_the_original(
        shape in arb_shape(), recipe in arb_recipe(), c0 in arb_mut_chain(), c1 in arb_mut_chain(),
        w in arb_split_writes(),
    ) {
        reborrow_case::<f32>(&shape, &recipe, &[c0, c1], &w)?;
    }

    /// Property 5: failing writes return the right error and change nothing (i32, f32).
    #[test]
    fn failing_writes_write_nothing(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), f in arb_failing(),
    ) {
        failing_case::<i32>(&shape, &recipe, &ops, &f)?;
        failing_case::<f32>(&shape, &recipe, &ops, &f)?;
    }
}

proptest! {
    #![proptest_config(config(32))]

    /// Property 6: every write path on every element size (1, 2, 4 and 8 bytes).
    #[test]
    fn all_paths_u8(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
        chain in arb_chain(), holders in arb_holders(), g in arb_split(), ws in arb_split_writes(),
        f in arb_failing(),
    ) {
        all_paths::<u8>(&shape, &recipe, &ops, &w, &chain, holders, &g, &ws, &f)?;
    }

    #[test]
    fn all_paths_i16(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
        chain in arb_chain(), holders in arb_holders(), g in arb_split(), ws in arb_split_writes(),
        f in arb_failing(),
    ) {
        all_paths::<i16>(&shape, &recipe, &ops, &w, &chain, holders, &g, &ws, &f)?;
    }

    #[test]
    fn all_paths_f16(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
        chain in arb_chain(), holders in arb_holders(), g in arb_split(), ws in arb_split_writes(),
        f in arb_failing(),
    ) {
        all_paths::<half::f16>(&shape, &recipe, &ops, &w, &chain, holders, &g, &ws, &f)?;
    }

    #[test]
    fn all_paths_f32(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
        chain in arb_chain(), holders in arb_holders(), g in arb_split(), ws in arb_split_writes(),
        f in arb_failing(),
    ) {
        all_paths::<f32>(&shape, &recipe, &ops, &w, &chain, holders, &g, &ws, &f)?;
    }

    #[test]
    fn all_paths_f64(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
        chain in arb_chain(), holders in arb_holders(), g in arb_split(), ws in arb_split_writes(),
        f in arb_failing(),
    ) {
        all_paths::<f64>(&shape, &recipe, &ops, &w, &chain, holders, &g, &ws, &f)?;
    }

    #[test]
    fn all_paths_i64(
        shape in arb_shape(), recipe in arb_recipe(), ops in arb_mut_chain(), w in arb_write(),
        chain in arb_chain(), holders in arb_holders(), g in arb_split(), ws in arb_split_writes(),
        f in arb_failing(),
    ) {
        all_paths::<i64>(&shape, &recipe, &ops, &w, &chain, holders, &g, &ws, &f)?;
    }
}

#[allow(clippy::too_many_arguments)]
fn all_paths<T: Num>(
    shape: &[usize],
    recipe: &Recipe,
    ops: &[OpGen],
    w: &WriteGen,
    chain: &[OpGen],
    holders: Holders,
    g: &SplitGen,
    ws: &[WriteGen; 3],
    f: &Failing,
) -> TestResult {
    mut_chain_write::<T>(shape, recipe, ops, w)?;
    cow_write::<T>(shape, recipe, chain, w, holders)?;
    split_case::<T>(shape, recipe, ops, g, ws)?;
    failing_case::<T>(shape, recipe, ops, f)?;
    Ok(())
}

/// Every write kind at least once on every element size, on a fixed transposed, flipped view
/// (so that no kind depends on the random generator to be reached).
#[test]
fn every_write_kind_on_every_element_size() {
    fn run<T: Num>() {
        use WKind::*;
        let kinds = [
            Fill, Set, Copy, Map, Add, Sub, Mul, Div, ZipMap, AddScalar, SubScalar, MulScalar,
            DivScalar,
        ];
        let recipe = Recipe {
            perm: vec![0, 1, 2],
            modes: vec![4, 6, 0],
        };
        for (i, &kind) in kinds.iter().enumerate() {
            for operator in [false, true] {
                let w = WriteGen {
                    kind,
                    value: i,
                    index: vec![i as u8, 3],
                    src: SrcGen {
                        drop: i % 2,
                        ones: (i % 3) as u8,
                        recipe: Recipe {
                            perm: vec![i as u8, 1],
                            modes: vec![i as u8, 9, 4],
                        },
                    },
                    operator,
                };
                // Through TensorMut on a transposed, flipped parent.
                let mut_chain = [OpGen::Fixed(Op::Transpose(0, 2)), OpGen::Fixed(Op::Flip(1))];
                mut_chain_write::<T>(&[3, 4, 5], &recipe, &mut_chain, &w).unwrap();
                // Through the Tensor methods and operators on a shared transposed view.
                let chain = [OpGen::Fixed(Op::Transpose(0, 2))];
                cow_write::<T>(&[3, 4, 5], &recipe, &chain, &w, Holders::Shared).unwrap();
                cow_write::<T>(&[3, 4, 5], &recipe, &chain, &w, Holders::Alone).unwrap();
            }
        }
    }
    run::<u8>();
    run::<i16>();
    run::<half::f16>();
    run::<f32>();
    run::<i32>();
    run::<f64>();
    run::<i64>();
}

// ---------------------------------------------------------------------------------------------
// Unit tests
// ---------------------------------------------------------------------------------------------

#[test]
fn copy_on_write_of_a_transpose_stays_transposed() {
    let a = Tensor::from_vec((0..15).collect::<Vec<i32>>(), &[3, 5]).unwrap();
    let mut b = a.narrow(1, 1, 4).unwrap().t().unwrap();
    assert_eq!(
        (b.shape(), b.strides(), b.offset()),
        (&[4, 3][..], &[1, 5][..], 1)
    );
    let (r, report) = audit::record(|| b.set(&[3, 2], -1));
    r.unwrap();
    assert_eq!(report.count(), 1);
    assert_eq!(report.events()[0].reason, CopyReason::CopyOnWrite);
    assert_eq!(report.bytes(), 12 * 4);
    assert_eq!(
        b.strides(),
        &[1, 4],
        "the copy keeps the transposed order, without gaps"
    );
    assert_eq!(b.offset(), 0);
    assert_eq!(b.storage().len(), 12);
    assert!(!b.shares_storage(&a));
    assert_eq!(a.to_vec(), (0..15).collect::<Vec<i32>>());
    assert_eq!(b.to_vec(), vec![1, 6, 11, 2, 7, 12, 3, 8, 13, 4, 9, -1]);
    // A narrowed, flipped channels-last-like view loses its gaps and signs, not its order.
    let x = Tensor::from_vec((0..60).collect::<Vec<i32>>(), &[3, 4, 5]).unwrap();
    let mut y = x
        .permute(&[2, 0, 1])
        .unwrap()
        .flip(1)
        .unwrap()
        .narrow(2, 1, 2)
        .unwrap();
    y.fill(0).unwrap();
    assert_eq!(y.shape(), &[5, 3, 2]);
    assert_eq!(y.strides(), &[1, 10, 5]);
    assert_eq!(y.offset(), 0);
    assert_eq!(x.to_vec(), (0..60).collect::<Vec<i32>>());
}

#[test]
fn a_sole_holder_is_never_copied() {
    let base = Tensor::from_vec((0..24).collect::<Vec<i64>>(), &[2, 3, 4]).unwrap();
    let mut v = base
        .permute(&[2, 0, 1])
        .unwrap()
        .slice(0, 3, -5, -2)
        .unwrap();
    drop(base);
    let ptr = v.storage().as_ptr();
    let layout = v.layout().clone();
    let bias = Tensor::from_vec(vec![1, 2], &[2, 1, 1]).unwrap();
    let (r, report) = audit::record(|| {
        v.fill(-1)?;
        v.add_assign(&bias)?;
        v += 10;
        v.view_mut()?.flip(2)?.set(&[0, 0, 0], 100)
    });
    r.unwrap();
    assert_eq!(report.count(), 0, "{report}");
    assert_eq!(v.storage().as_ptr(), ptr);
    assert_eq!(v.layout(), &layout);
    // v is dims (k, i, j) -> offset 12 i + 4 j + k for k in [3, 1].
    assert_eq!(v.shape(), &[2, 2, 3]);
    assert_eq!(
        v.to_vec(),
        vec![10, 10, 100, 10, 10, 10, 11, 11, 11, 11, 11, 11]
    );
    let s = v.storage().as_slice();
    for (off, &x) in s.iter().enumerate() {
        if off % 4 == 1 || off % 4 == 3 {
            assert!(x >= 10, "offset {off}: {x}");
        } else {
            assert_eq!(x, off as i64, "offset {off} is outside the view");
        }
    }
}

#[test]
fn copy_from_a_view_of_the_own_storage() {
    // The source shares the destination's storage: the destination is copied first, the
    // source keeps reading the old elements.
    let mut x = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    let src = x.flip(1).unwrap();
    x.copy_from(&src).unwrap();
    assert_eq!(x.to_vec(), vec![2, 1, 0, 5, 4, 3]);
    assert_eq!(src.to_vec(), vec![2, 1, 0, 5, 4, 3]);
    let mut m = Tensor::from_vec((0..9).map(f64::from).collect::<Vec<f64>>(), &[3, 3]).unwrap();
    let mt = m.t().unwrap();
    m += &mt;
    assert_eq!(
        m.to_vec(),
        vec![0.0, 4.0, 8.0, 4.0, 8.0, 12.0, 8.0, 12.0, 16.0]
    );
}

#[test]
fn overlapping_as_strided_on_a_mut_view_is_refused() {
    let mut x = Tensor::from_vec((0..8).collect::<Vec<u8>>(), &[8]).unwrap();
    let mut v = x.view_mut().unwrap();
    for (shape, strides) in [
        (&[3, 3][..], &[1, 1][..]),
        (&[2, 4], &[0, 1]),
        (&[3, 2], &[2, 2]),
    ] {
        let r = v.reborrow().as_strided(shape, strides, 0);
        assert!(
            matches!(
                r,
                Err(Error::OverlappingDestination {
                    op: "as_strided",
                    ..
                })
            ),
            "{shape:?} {strides:?}: {r:?}"
        );
    }
    assert!(matches!(
        v.reborrow().as_strided(&[3, 3], &[3, 1], 0),
        Err(Error::OutOfBounds { .. })
    ));
    assert_eq!(v.to_vec(), (0..8).collect::<Vec<u8>>());
    drop(v);
    let w = x.unfold(0, 3, 2).unwrap();
    let mut w2 = w.clone();
    let (r, report) = audit::record(|| w2.fill(1));
    assert!(matches!(r, Err(Error::OverlappingDestination { .. })));
    assert_eq!(report.count(), 0);
    assert_eq!(x.to_vec(), (0..8).collect::<Vec<u8>>());
    // unfold with step == size does not overlap: writable (copy-on-write, x holds it too).
    let mut u = x.unfold(0, 2, 2).unwrap();
    u.fill(9).unwrap();
    assert_eq!(u.to_vec(), vec![9; 8]);
    assert_eq!(x.to_vec(), (0..8).collect::<Vec<u8>>());
}

#[test]
fn as_strided_cannot_escape_a_split_half() {
    let mut x = Tensor::from_vec((0..16).collect::<Vec<i32>>(), &[4, 4]).unwrap();
    {
        let (mut top, mut bottom) = x.view_mut().unwrap().split_at(0, 2).unwrap();
        // The top half is dense over offsets 0..8: inside is allowed, outside is not.
        let escapes = |r: stridex::Result<TensorMut<'_, i32>>| {
            matches!(
                r,
                Err(Error::EscapesView {
                    op: "as_strided",
                    ..
                })
            )
        };
        assert!(escapes(top.reborrow().as_strided(&[2, 4], &[4, 1], 8)));
        assert!(escapes(top.reborrow().as_strided(&[9], &[1], 0)));
        assert!(escapes(bottom.reborrow().as_strided(&[8], &[1], 0)));
        top.reborrow()
            .as_strided(&[4], &[2], 1)
            .unwrap()
            .fill(-1)
            .unwrap();
        bottom
            .reborrow()
            .as_strided(&[2], &[1], 14)
            .unwrap()
            .fill(-2)
            .unwrap();
    }
    assert_eq!(
        x.to_vec(),
        vec![0, -1, 2, -1, 4, -1, 6, -1, 8, 9, 10, 11, 12, 13, -2, -2]
    );
    {
        // Halves of a split along dim 1 are not dense: any non-empty as_strided is refused,
        // even one inside the half; an empty one is fine.
        let (mut left, _right) = x.view_mut().unwrap().split_at(1, 2).unwrap();
        let r = left.reborrow().as_strided(&[1], &[1], 0);
        assert!(matches!(r, Err(Error::EscapesView { .. })), "{r:?}");
        assert!(left.reborrow().as_strided(&[0], &[1], 15).is_ok());
        left.fill(0).unwrap();
    }
    assert_eq!(
        x.to_vec(),
        vec![0, 0, 2, -1, 0, 0, 6, -1, 0, 0, 10, 11, 0, 0, -2, -2]
    );
}

#[test]
fn integer_division_by_zero_writes_nothing() {
    let mut x = Tensor::from_vec(vec![10i16, 20, 30, 40], &[2, 2]).unwrap();
    let zero_in = Tensor::from_vec(vec![1i16, 2, 0, 4], &[2, 2])
        .unwrap()
        .t()
        .unwrap();
    assert!(matches!(
        x.div_assign(&zero_in),
        Err(Error::DivisionByZero { op: "div_assign" })
    ));
    assert!(matches!(
        x.view_mut()
            .unwrap()
            .narrow(0, 0, 1)
            .unwrap()
            .div_assign(&zero_in.select(0, 0).unwrap()),
        Err(Error::DivisionByZero { .. })
    ));
    assert!(matches!(
        x.view_mut().unwrap().div_assign_scalar(0),
        Err(Error::DivisionByZero {
            op: "div_assign_scalar"
        })
    ));
    assert_eq!(x.to_vec(), vec![10, 20, 30, 40]);
    // A zero in the source but an empty destination: nothing to divide.
    let mut e = Tensor::<i16>::zeros(&[0, 2]).unwrap();
    e.div_assign(&Tensor::from_vec(vec![0i16, 1], &[2]).unwrap())
        .unwrap();
    // Floats divide by zero.
    let mut f = Tensor::from_vec(vec![1.0f32, -1.0], &[2]).unwrap();
    f.div_assign(&Tensor::from_vec(vec![0.0f32, 0.0], &[2]).unwrap())
        .unwrap();
    assert_eq!(f.to_vec(), vec![f32::INFINITY, f32::NEG_INFINITY]);
}

#[test]
#[should_panic(expected = "div_assign")]
fn integer_division_operator_by_zero_panics() {
    let mut x = Tensor::from_vec(vec![1u8, 2], &[2]).unwrap();
    x /= 0;
}

// ---------------------------------------------------------------------------------------------
// Property 7: large writes (parallel, tiled and streaming kernels)
// ---------------------------------------------------------------------------------------------

/// The source element at `[i, j]`, by the model.
type SrcAt<'a, T> = Box<dyn Fn(usize, usize) -> T + 'a>;

/// `dst` ([rows, cols], row-major) written through its transpose from a [cols, rows] source
/// laid out as `src_kind` says, compared with the model by index.
fn large_transposed_copy<T: Num>(rows: usize, cols: usize, src_kind: usize) {
    let n = rows * cols;
    let mut dst = Tensor::from_vec((0..n).map(T::from_index).collect(), &[rows, cols]).unwrap();
    let sv: Vec<T> = (0..n).map(|i| T::from_index(i + 7)).collect();
    // src_at(i, j): the source element at [i, j] of its [cols, rows] shape.
    let (src, src_at): (Tensor<T>, SrcAt<'_, T>) = match src_kind {
        0 => (
            Tensor::from_vec(sv.clone(), &[cols, rows]).unwrap(),
            Box::new(|i, j| sv[i * rows + j]),
        ),
        1 => (
            // Stored [rows, cols], read transposed.
            Tensor::from_vec(sv.clone(), &[rows, cols])
                .unwrap()
                .t()
                .unwrap(),
            Box::new(|i, j| sv[j * cols + i]),
        ),
        _ => (
            // Stored [cols, rows], read with dim 1 flipped.
            Tensor::from_vec(sv.clone(), &[cols, rows])
                .unwrap()
                .flip(1)
                .unwrap(),
            Box::new(|i, j| sv[i * rows + (rows - 1 - j)]),
        ),
    };
    let (r, report) = audit::record(|| dst.view_mut()?.t()?.copy_from(&src));
    r.unwrap();
    assert_eq!(report.count(), 0);
    let got = dst.to_vec();
    // dst[r, c] = dst.t()[c, r] = src[c, r].
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(
                got[r * cols + c],
                src_at(c, r),
                "dst[{r}, {c}] (source kind {src_kind})"
            );
        }
    }
}

#[test]
fn large_transposed_copy_from_f32() {
    for kind in 0..3 {
        large_transposed_copy::<f32>(300, 700, kind);
    }
    // 300 x 900 f32 (over 1 MiB): the copy runs in parallel.
    large_transposed_copy::<f32>(300, 900, 1);
}

#[test]
fn large_transposed_copy_from_other_sizes() {
    large_transposed_copy::<f64>(300, 700, 0);
    large_transposed_copy::<i16>(700, 800, 2);
    large_transposed_copy::<u8>(1100, 1000, 0);
}

#[test]
fn very_large_transposed_copy_streams() {
    // Destination plus source over 32 MiB: beyond a typical last-level cache.
    large_transposed_copy::<f32>(2048, 2200, 0);
}

#[test]
fn large_add_assign_of_a_transposed_operand() {
    let (rows, cols) = (300, 700);
    let n = rows * cols;
    let dv: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let sv: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 0.5).collect();
    // src is [cols, rows] stored, read as [rows, cols] through its transpose.
    let src = Tensor::from_vec(sv.clone(), &[cols, rows])
        .unwrap()
        .t()
        .unwrap();
    let mut dst = Tensor::from_vec(dv.clone(), &[rows, cols]).unwrap();
    dst.view_mut().unwrap().add_assign(&src).unwrap();
    let got = dst.to_vec();
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(
                got[r * cols + c],
                dv[r * cols + c] + sv[c * rows + r],
                "[{r}, {c}]"
            );
        }
    }
    // A transposed destination and a contiguous operand, then a broadcast column.
    let src2 = Tensor::from_vec(sv.clone(), &[cols, rows]).unwrap();
    let mut dst2 = Tensor::from_vec(dv.clone(), &[rows, cols]).unwrap();
    dst2.view_mut()
        .unwrap()
        .t()
        .unwrap()
        .add_assign(&src2)
        .unwrap();
    let col: Vec<f32> = (0..rows).map(|r| r as f32 + 1.0).collect();
    dst2.mul_assign(&Tensor::from_vec(col.clone(), &[rows, 1]).unwrap())
        .unwrap();
    let got = dst2.to_vec();
    for r in 0..rows {
        for c in 0..cols {
            let want = (dv[r * cols + c] + sv[c * rows + r]) * col[r];
            assert_eq!(got[r * cols + c], want, "[{r}, {c}]");
        }
    }
    // map_inplace and fill on a large strided view.
    let mut x = Tensor::from_vec(dv.clone(), &[rows, cols]).unwrap();
    {
        let v = x.view_mut().unwrap().slice(1, 1, 700, 3).unwrap();
        let (mut a, b) = v.split_at(0, 150).unwrap();
        std::thread::scope(|s| {
            s.spawn(|| a.map_inplace(|y| y * 2.0 + 1.0).unwrap());
            s.spawn(|| b.t().unwrap().fill(-3.0).unwrap());
        });
    }
    let got = x.to_vec();
    for r in 0..rows {
        for c in 0..cols {
            let v = dv[r * cols + c];
            let want = if c % 3 != 1 {
                v
            } else if r < 150 {
                v * 2.0 + 1.0
            } else {
                -3.0
            };
            assert_eq!(got[r * cols + c], want, "[{r}, {c}]");
        }
    }
}

#[test]
fn large_copy_on_write_keeps_the_order() {
    let (rows, cols) = (400, 900);
    let n = rows * cols;
    let a = Tensor::from_vec((0..n).map(|i| i as f32).collect(), &[rows, cols]).unwrap();
    let mut b = a.t().unwrap();
    let (r, report) = audit::record(|| b.add_assign(&Tensor::full(&[], 1.0f32).unwrap()));
    r.unwrap();
    assert_eq!(report.count(), 1);
    assert_eq!(report.bytes(), n * 4);
    assert_eq!(b.strides(), &[1, cols as isize]);
    assert!(!b.shares_storage(&a));
    let got = b.to_vec();
    for i in 0..cols {
        for j in 0..rows {
            assert_eq!(got[i * rows + j], (j * cols + i) as f32 + 1.0);
        }
    }
    assert_eq!(a.get(&[rows - 1, cols - 1]).unwrap(), (n - 1) as f32);
}

#[test]
fn zip_map_inplace_with_another_element_type() {
    let mut acc = Tensor::from_vec((0..6).map(|i| i as f32).collect(), &[2, 3]).unwrap();
    // A u8 mask stored [3, 2], read transposed.
    let mask = Tensor::from_vec(vec![1u8, 0, 0, 1, 1, 1], &[3, 2])
        .unwrap()
        .t()
        .unwrap();
    acc.view_mut()
        .unwrap()
        .zip_map_inplace(&mask, |a, m| if m == 1 { -a } else { a })
        .unwrap();
    // mask.t() row-major: [1, 0, 1, 0, 1, 1].
    assert_eq!(acc.to_vec(), vec![-0.0, 1.0, -2.0, 3.0, -4.0, -5.0]);
    let bad = Tensor::<u8>::zeros(&[2, 2]).unwrap();
    let r = acc.view_mut().unwrap().zip_map_inplace(&bad, |a, _| a);
    assert!(
        matches!(
            r,
            Err(Error::SourceMismatch {
                op: "zip_map_inplace",
                ..
            })
        ),
        "{r:?}"
    );
    assert_eq!(acc.to_vec(), vec![-0.0, 1.0, -2.0, 3.0, -4.0, -5.0]);
}
