//! Shared pieces of the write property tests (`writes_props`, `cow_props`): the model's element
//! arithmetic, random writes applied both to the code under test and to a plain `Vec` model by
//! index, and random chains of `TensorMut` and `Tensor` view ops run against the view model of
//! `common`.
#![allow(dead_code)]

use crate::common::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use stridex::audit::{self, CopyReason};
use stridex::{Element, Error, Layout, Numeric, Tensor, TensorMut};

// ---------------------------------------------------------------------------------------------
// The model's element arithmetic (native Rust operations, not the library's)
// ---------------------------------------------------------------------------------------------

pub trait Num: Val + Numeric {
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
pub fn map_fn<T: Num>(x: T) -> T {
    T::m_add(T::m_mul(x, T::small(2)), T::small(0))
}

/// The function given to `zip_map_inplace`: `x * 1.0 - y` (floats) or `x * 2 - y`.
pub fn zip_fn<T: Num>(x: T, y: T) -> T {
    T::m_sub(T::m_mul(x, T::small(1)), y)
}

// ---------------------------------------------------------------------------------------------
// Random writes
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WKind {
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
pub struct SrcGen {
    pub drop: usize,
    pub ones: u8,
    pub recipe: Recipe,
}

#[derive(Clone, Debug)]
pub struct WriteGen {
    pub kind: WKind,
    pub value: usize,
    pub index: Vec<u8>,
    pub src: SrcGen,
    /// Use the `std::ops` operator instead of the method (Tensor writes only).
    pub operator: bool,
}

pub fn arb_src() -> impl Strategy<Value = SrcGen> {
    (
        prop_oneof![3 => Just(0usize), 1 => 1usize..=2],
        prop_oneof![2 => Just(0u8), 1 => any::<u8>()],
        arb_recipe(),
    )
        .prop_map(|(drop, ones, recipe)| SrcGen { drop, ones, recipe })
}

pub fn arb_kind() -> impl Strategy<Value = WKind> {
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

pub fn arb_write() -> impl Strategy<Value = WriteGen> {
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
pub struct Prepared<T: Element> {
    pub kind: WKind,
    pub value: T,
    /// For `Set`: the index (an invalid one, all zeros, if the destination is empty).
    pub index: Vec<usize>,
    /// `Set` on an empty destination: must fail with `IndexOutOfRange`.
    pub expect_err: bool,
    pub src: Option<Tensor<T>>,
    /// The source broadcast to the destination's shape, row-major, by the model.
    pub src_vals: Vec<T>,
    pub operator: bool,
}

/// The shape of the source `g` describes for destination shape `v`.
pub fn src_shape(g: &SrcGen, v: &[usize]) -> Vec<usize> {
    let mut s = v[g.drop.min(v.len())..].to_vec();
    for (d, x) in s.iter_mut().enumerate() {
        if d < 8 && g.ones & (1 << d) != 0 {
            *x = 1;
        }
    }
    s
}

pub fn prepare<T: Num>(w: &WriteGen, shape: &[usize]) -> Prepared<T> {
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
pub fn model_write<T: Num>(p: &Prepared<T>, buf: &mut [T], offs: &[i128], shape: &[usize]) {
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
pub fn mut_write<T: Num>(p: &Prepared<T>, v: &mut TensorMut<'_, T>) -> stridex::Result<()> {
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
pub fn tensor_write<T: Num>(
    p: &Prepared<T>,
    t: &mut Tensor<T>,
    operator: bool,
) -> stridex::Result<()> {
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
pub fn check_outcome<T: Element>(
    p: &Prepared<T>,
    r: stridex::Result<()>,
    what: &str,
) -> TestResult {
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
pub fn kind2(e: &Error) -> &'static str {
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
pub fn arb_mut_op() -> impl Strategy<Value = OpGen> {
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

pub fn arb_mut_chain() -> impl Strategy<Value = Vec<OpGen>> {
    prop::collection::vec(arb_mut_op(), 0..=6)
}

pub fn apply_mut<'a, T: Element>(
    v: TensorMut<'a, T>,
    op: &Op,
) -> stridex::Result<TensorMut<'a, T>> {
    match op {
        Op::Transpose(a, b) => v.transpose(*a, *b),
        Op::T => v.t(),
        Op::Permute(p) => v.permute(p),
        Op::Narrow(d, s, n) => v.narrow(*d, *s, *n),
        Op::Slice(d, s, e, st) => v.slice_step(*d, *s..*e, *st),
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
pub fn model_as_strided(
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
pub fn compare_mut<X>(
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
pub fn run_mut_chain<'a, T: Element>(
    mut v: TensorMut<'a, T>,
    mut m: Model,
    ops: &[OpGen],
    len: usize,
    half: bool,
) -> Result<(TensorMut<'a, T>, Model), TestCaseError> {
    check_layout(v.layout(), &m)?;
    for r#gen in ops {
        let op = r#gen.resolve(v.shape());
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
pub fn run_tensor_chain<T: Element>(
    mut t: Tensor<T>,
    mut m: Model,
    ops: &[OpGen],
    len: usize,
) -> Result<(Tensor<T>, Model), TestCaseError> {
    for r#gen in ops {
        let op = r#gen.resolve(t.shape());
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

pub fn values<T: Element>(m: &Model, buf: &[T]) -> Vec<T> {
    m.offs.iter().map(|&o| buf[o as usize]).collect()
}

/// The dense strides (positive, no gaps) that keep the memory order of `l`: the dims of size
/// > 1 ordered by decreasing |stride|. Size-1 dims are left as `None` (any stride).
pub fn dense_strides_like(l: &Layout) -> Vec<Option<isize>> {
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
// Property 2: copy-on-write
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holders {
    /// `a` stays alive.
    Shared,
    /// `a` and a clone of `b` stay alive.
    SharedAndClone,
    /// `a` is dropped, a clone of `b` stays alive.
    CloneOnly,
    /// `a` is dropped: `b` holds its storage alone.
    Alone,
}

pub fn arb_holders() -> impl Strategy<Value = Holders> {
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
pub fn cow_write<T: Num>(
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
    // At least one view op (the identity permutation), so that b is a view of a and not a
    // clone of it even when the chain is empty: a clone of a view shares its writes' rule.
    let b = {
        let chained = b; // dropped here: only a and its clones hold the storage
        chained
            .permute(&(0..chained.ndim()).collect::<Vec<_>>())
            .unwrap()
    };
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

    if matches!(holders, Holders::Shared | Holders::SharedAndClone) && !p.expect_err {
        // A view of a storage its base still holds: the write is refused before any copy
        // (Note [writes to views]) and changes nothing. With only its own clone left
        // (`CloneOnly`) it is a value: copy-on-write.
        let (r, report) = audit::record(|| tensor_write(&p, &mut b, false));
        prop_assert!(
            matches!(r, Err(Error::WriteToSharedView { .. })),
            "write {:?} to the shared view {:?} gave {:?}",
            p.kind,
            before,
            r
        );
        prop_assert_eq!(report.count(), 0, "copied before refusing: {}", report);
        prop_assert_eq!(b.layout(), &before);
        prop_assert_eq!(b.storage().as_ptr(), ptr);
        prop_assert_eq!(b.to_vec(), b_vals.clone());
        // The same layout as a value of its own over the shared storage copies on write.
        b = Tensor::from_storage(b.storage().clone(), before.clone()).unwrap();
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
