//! The `std::ops` operators on tensors, as PyTorch and ndarray users write them: `&a + &b`,
//! `a * &b`, `&a - b`, `a / b` between tensors of any two element types (promoted), and
//! `&a + 1.0`, `2.0 * a`, `-a` with a scalar. The assignment operators (`+=`, ...) are with the
//! writes, in `tensor_mut/`.
//!
//! Between two tensors an operator returns a `Result` (shapes may not broadcast); with a
//! scalar it returns the tensor (nothing can mismatch). The methods of the same names
//! ([`Tensor::add`], ...) borrow their operands and take one element type.
//!
//! A name clash to know about: `std::ops::Add` is not in the prelude, so `a.add(&b)` calls
//! the method [`Tensor::add`], which borrows `a`. In a module that imports `std::ops::Add`,
//! `a.add(&b)` on an owned `a` is the operator, which consumes `a` (Rust picks a by-value
//! trait method before an autoref'd inherent one); write `(&a).add(&b)` or `Tensor::add(&a,
//! &b)` there to keep `a`.
//!
//! # Note [operand reuse]
//!
//! An owned operand is a buffer nobody else can see once it is moved into the operator. When
//! it holds its storage alone (no other tensor, no `Weak`, not foreign bytes), addresses each
//! element once, already has the result's shape (the other operand broadcasts into it) and
//! the result's element type, the result is written into it in place: no allocation, no copy
//! (the copy audit records nothing), and the result is a value of its own (not a view), laid
//! out as the operand was. The left operand is tried first, then the right one
//! (`&a - b` writes `a - b` into `b`). Anything else gets a fresh output, exactly as
//! `&a op &b`. Which path ran never changes the values, only where they live.

mod binary;
pub(crate) mod compare;
mod compare_names;
pub(crate) mod promote;
mod scalar;

use std::any::Any;
use std::borrow::Cow;
use std::sync::Arc;

use crate::element::Element;
use crate::error::Result;
use crate::kernels::dispatch::with_avx2;
use crate::kernels::parallel::threads_for;
use crate::scalar::Numeric;
use crate::storage::Storage;
use crate::tensor::Tensor;
use crate::tensor_mut::check_divisor;

/// The four operators.
#[derive(Clone, Copy)]
pub(super) enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

impl Op {
    pub(super) fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Sub => "sub",
            Op::Mul => "mul",
            Op::Div => "div",
        }
    }

    /// `a op b` into a fresh tensor.
    pub(super) fn fresh<O: Numeric>(self, a: &Tensor<O>, b: &Tensor<O>) -> Result<Tensor<O>> {
        match self {
            Op::Add => a.add(b),
            Op::Sub => a.sub(b),
            Op::Mul => a.mul(b),
            Op::Div => a.div(b),
        }
    }

    /// `dst = dst op src`, in place (`src` broadcasts into `dst`).
    pub(super) fn into_left<O: Numeric>(self, dst: &mut Tensor<O>, src: &Tensor<O>) -> Result<()> {
        let op = self.name();
        match self {
            Op::Add => update(dst, src, O::elem_add),
            Op::Sub => update(dst, src, O::elem_sub),
            Op::Mul => update(dst, src, O::elem_mul),
            Op::Div => {
                // Refuse an integer 0 divisor before anything is written.
                check_divisor(op, dst.numel(), src)?;
                update(dst, src, |x, y| x.elem_div(y).unwrap_or(x))
            }
        }
        .map_err(|e| e.named(op))
    }

    /// `dst = src op dst`, in place (`src` broadcasts into `dst`).
    pub(super) fn into_right<O: Numeric>(self, dst: &mut Tensor<O>, src: &Tensor<O>) -> Result<()> {
        let op = self.name();
        match self {
            Op::Add => update(dst, src, O::elem_add),
            Op::Mul => update(dst, src, O::elem_mul),
            Op::Sub => update(dst, src, |x, y| y.elem_sub(x)),
            Op::Div => {
                // `dst` holds the divisors.
                check_divisor(op, dst.numel(), dst)?;
                update(dst, src, |x, y| y.elem_div(x).unwrap_or(x))
            }
        }
        .map_err(|e| e.named(op))
    }
}

/// `x = f(x, y)` for every element `x` of `dst` and `y` of `src` broadcast into it: one flat
/// loop when both are row-major (or `src` is one element) and the op is too small for threads,
/// the general in-place kernel otherwise.
fn update<O: Numeric>(
    dst: &mut Tensor<O>,
    src: &Tensor<O>,
    f: impl Fn(O, O) -> O + Sync + Copy,
) -> Result<()> {
    if threads_for(dst.numel()) == 1 {
        if let Some(ys) = src.as_slice() {
            let same = src.shape() == dst.shape();
            if same || ys.len() == 1 {
                if let Some(xs) = dst.unique_slice_mut() {
                    with_avx2(|| match same {
                        true => xs.iter_mut().zip(ys).for_each(|(x, &y)| *x = f(*x, y)),
                        false => xs.iter_mut().for_each(|x| *x = f(*x, ys[0])),
                    });
                    return Ok(());
                }
            }
        }
    }
    dst.view_mut()?.zip_map_inplace(src, f)
}

/// `x = f(x)` for every element of `dst`, which can take it in place ([`reusable`]): one flat
/// loop when it is row-major and small, the general in-place kernel otherwise.
fn map_in_place<O: Numeric>(dst: &mut Tensor<O>, f: impl Fn(O) -> O + Sync) -> Result<()> {
    if threads_for(dst.numel()) == 1 {
        if let Some(xs) = dst.unique_slice_mut() {
            with_avx2(|| xs.iter_mut().for_each(|x| *x = f(*x)));
            return Ok(());
        }
    }
    dst.map_inplace(f)
}

/// `t` as the promoted type: itself when it already is (no copy), converted otherwise.
pub(super) fn promoted<X: Element, O: Element>(
    t: &Tensor<X>,
    convert: fn(X) -> O,
) -> Cow<'_, Tensor<O>> {
    match (t as &dyn Any).downcast_ref::<Tensor<O>>() {
        Some(same) => Cow::Borrowed(same),
        None => Cow::Owned(t.map(convert)),
    }
}

/// Whether `src` broadcasts into `dst` without changing `dst`'s shape.
pub(super) fn broadcasts_into(src: &[usize], dst: &[usize]) -> bool {
    src.len() <= dst.len()
        && src
            .iter()
            .rev()
            .zip(dst.iter().rev())
            .all(|(&s, &d)| s == d || s == 1)
}

/// `t` itself as the result's buffer, if it can take it in place (Note [operand reuse]):
/// the result type, held alone, non-overlapping, and `other` broadcasts into its shape.
pub(super) fn reusable<'t, X: Element, O: Element>(
    t: &'t mut Tensor<X>,
    other: &[usize],
) -> Option<&'t mut Tensor<O>> {
    if !broadcasts_into(other, t.shape()) {
        return None;
    }
    let out = (t as &mut dyn Any).downcast_mut::<Tensor<O>>()?;
    let alone = Storage::exclusive(out.storage_and_layout_mut().0).is_some();
    // (A contiguous layout never overlaps: checked first, it is the cheaper test.)
    let once = out.is_contiguous() || out.layout().is_non_overlapping();
    (alone && once).then_some(out)
}

/// The operand written in place, rewrapped as a value of its own (the caller drops the
/// operand, so the result holds the storage alone again).
pub(super) fn result_of<O: Element>(t: &Tensor<O>) -> Tensor<O> {
    Tensor::from_parts(Arc::clone(t.storage()), t.layout().clone())
}

/// An operand as the operator got it.
pub(super) enum Arg<'a, T: Element> {
    Owned(Tensor<T>),
    Borrowed(&'a Tensor<T>),
}

impl<T: Element> Arg<'_, T> {
    pub(super) fn get(&self) -> &Tensor<T> {
        match self {
            Arg::Owned(t) => t,
            Arg::Borrowed(t) => t,
        }
    }
}
