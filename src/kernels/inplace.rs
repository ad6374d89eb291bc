//! Writes into existing memory through a strided layout: the kernels behind
//! [`TensorMut`](crate::TensorMut) (`fill`, `copy_from`, `set`, `map_inplace`, in-place
//! arithmetic) and its reads (`get`, `to_vec`).
//!
//! Every function takes the destination as a [`StorageMut`] plus a layout and relies on the
//! `TensorMut` invariant (`src/tensor_mut/mod.rs`): the layout fits the storage, addresses each
//! element at most once, and nothing else reads or writes those elements while the borrow
//! lives. The fit is asserted here; the other two are what `TensorMut`'s constructors and view
//! ops establish. A source is a shared `&Storage`, which by that invariant is never the
//! destination's storage (a storage borrowed for writing has no shared borrow).
//!
//! Fills and copies run the copy kernel (`copy_strided`, tiled, SIMD, parallel); updates run
//! the elementwise executor with the destination as operand 0, read and written by the same
//! run, so they inherit its loop order, tiling of transposed operands and thread split.

use std::marker::PhantomData;
use std::mem::size_of;

use crate::element::Element;
use crate::iter::Plan;
use crate::iter::broadcast::broadcast_strides;
use crate::layout::Layout;
use crate::storage::StorageMut;

use super::copy::copy_strided;
use super::dispatch::with_avx2;
use super::elementwise::{Runs, Src, execute};
use super::parallel::threads_for;

/// Asserts the part of the `TensorMut` invariant that is cheap to check.
fn check_dst<T: Element>(dst: &StorageMut<'_, T>, layout: &Layout) {
    assert!(
        layout.fits_in(dst.len()),
        "write: layout does not fit its storage"
    );
    debug_assert!(layout.is_non_overlapping(), "write: overlapping layout");
}

/// Sets every element `layout` addresses to `value`.
pub(crate) fn fill<T: Element>(dst: &StorageMut<'_, T>, layout: &Layout, value: T) {
    check_dst(dst, layout);
    let one = [value];
    let src = Layout::new(layout.shape(), &vec![0; layout.ndim()], 0)
        .expect("stride-0 strides over one element always fit");
    // SAFETY: the source is the one element of `one`, which every stride-0 index addresses;
    // the destination fits (asserted) and is non-overlapping and exclusively ours (TensorMut
    // invariant), and `one` is a local, so they cannot overlap.
    unsafe { copy_strided(one.as_ptr(), &src, dst.as_ptr(), layout) }
}

/// Copies `src` (broadcast to `layout`'s shape by the caller: `src_layout` has that shape) to
/// the same indices of the destination.
pub(crate) fn copy_from<T: Element>(
    dst: &StorageMut<'_, T>,
    layout: &Layout,
    src: Src<'_, T>,
    src_layout: &Layout,
) {
    check_dst(dst, layout);
    assert!(
        src_layout.fits_in(src.storage.len()),
        "write: source layout does not fit its storage"
    );
    // SAFETY: both layouts fit their storages (asserted; the source is a Tensor's storage, so
    // every element is initialized); the destination is non-overlapping and exclusively ours
    // (TensorMut invariant), and the source is another allocation (module docs).
    unsafe { copy_strided(src.storage.as_ptr(), src_layout, dst.as_ptr(), layout) }
}

/// The element at storage offset `offset`, which `layout` addresses.
pub(crate) fn read_at<T: Element>(dst: &StorageMut<'_, T>, layout: &Layout, offset: usize) -> T {
    check_dst(dst, layout);
    assert!(offset < dst.len(), "read: offset outside the storage");
    // SAFETY: inside the storage (asserted), initialized (Storage invariant 3), and not being
    // written by anyone else: `offset` is one of this view's elements (the caller computed it
    // from `layout`), which only this borrow reaches.
    unsafe { dst.as_ptr().add(offset).read() }
}

/// Writes `value` at storage offset `offset`, which `layout` addresses.
pub(crate) fn write_at<T: Element>(
    dst: &StorageMut<'_, T>,
    layout: &Layout,
    offset: usize,
    value: T,
) {
    check_dst(dst, layout);
    assert!(offset < dst.len(), "write: offset outside the storage");
    // SAFETY: as in `read_at`; the element is exclusively ours (TensorMut invariant).
    unsafe { dst.as_ptr().add(offset).write(value) }
}

/// The elements `layout` addresses, in row-major order.
pub(crate) fn to_vec<T: Element>(dst: &StorageMut<'_, T>, layout: &Layout) -> Vec<T> {
    check_dst(dst, layout);
    let n = layout.numel();
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return out;
    }
    let row_major = Layout::contiguous(layout.shape()).expect("the shape of a non-empty layout");
    // SAFETY: the source fits (asserted) and its elements are ours to read (TensorMut
    // invariant); `out` has capacity for the `n` elements the row-major layout writes, each
    // once, and is a fresh allocation.
    unsafe {
        copy_strided(
            dst.as_ptr().cast_const(),
            layout,
            out.as_mut_ptr(),
            &row_major,
        );
        out.set_len(n);
    }
    out
}

/// Runs `body` on the destination's elements as one slice, when its layout is row-major and
/// the op is too small to split across threads: the small-and-dense fast path of [`map`] and
/// [`update`], one flat loop without planning (as the elementwise kernels' `small_dense` does
/// for fresh outputs). Returns whether it ran. The slice lives only inside `body`.
fn small_dense_dst<T: Element>(
    dst: &StorageMut<'_, T>,
    layout: &Layout,
    body: impl FnOnce(&mut [T]),
) -> bool {
    let n = layout.numel();
    if !layout.is_contiguous() || n == 0 || threads_for(n) > 1 {
        return false;
    }
    let Some(end) = layout.offset().checked_add(n) else {
        return false;
    };
    assert!(end <= dst.len(), "write: layout does not fit its storage");
    // SAFETY: a row-major layout addresses exactly the `n` consecutive elements from its
    // offset, inside the storage (asserted), initialized (Storage invariant 3), and exclusively
    // ours while `dst` is borrowed (TensorMut invariant); no other reference to them exists
    // while `body` runs.
    body(unsafe { std::slice::from_raw_parts_mut(dst.as_ptr().add(layout.offset()), n) });
    true
}

/// `x = f(x)` for every element `x` of the destination.
pub(crate) fn map<T, F>(dst: &StorageMut<'_, T>, layout: &Layout, f: F)
where
    T: Element,
    F: Fn(T) -> T + Sync,
{
    check_dst(dst, layout);
    if small_dense_dst(dst, layout, |xs| {
        with_avx2(|| xs.iter_mut().for_each(|x| *x = f(*x)))
    }) {
        return;
    }
    let plan = Plan::new(
        layout.shape(),
        vec![layout.strides().to_vec()],
        vec![layout.offset()],
        &[size_of::<T>()],
    );
    let kernel = Update1 {
        f,
        _types: PhantomData,
    };
    // SAFETY: the plan addresses exactly the destination's elements (fits, asserted), each once
    // (TensorMut invariant); there are no inputs. `Update1` reads each output element before
    // writing it, which is fine: it is initialized and ours.
    unsafe { execute(&plan, [dst.as_ptr().cast()], &kernel) }
}

/// `x = f(x, y)` for every element `x` of the destination and the element `y` of `src` at the
/// same index, `src` broadcast to the destination's shape (the caller checked that it
/// broadcasts).
pub(crate) fn update<T, U, F>(dst: &StorageMut<'_, T>, layout: &Layout, src: Src<'_, U>, f: F)
where
    T: Element,
    U: Element,
    F: Fn(T, U) -> T + Sync,
{
    check_dst(dst, layout);
    assert!(
        src.layout.fits_in(src.storage.len()),
        "write: source layout does not fit its storage"
    );
    // A row-major source of the same shape, or a single element, is one flat run too.
    let (n, at) = (src.layout.numel(), src.layout.offset());
    let ys = src.storage.as_slice();
    if src.layout.shape() == layout.shape() && src.layout.is_contiguous() {
        // (An empty source's offset may lie past its storage: `get` leaves it to the plan.)
        let run = at.checked_add(n).and_then(|end| ys.get(at..end));
        if let Some(ys) = run {
            if small_dense_dst(dst, layout, |xs| {
                with_avx2(|| xs.iter_mut().zip(ys).for_each(|(x, &y)| *x = f(*x, y)))
            }) {
                return;
            }
        }
    } else if n == 1 {
        let y = ys[at];
        if small_dense_dst(dst, layout, |xs| {
            with_avx2(|| xs.iter_mut().for_each(|x| *x = f(*x, y)))
        }) {
            return;
        }
    }
    let shape = layout.shape();
    let plan = Plan::new(
        shape,
        vec![
            layout.strides().to_vec(),
            broadcast_strides(src.layout, shape),
        ],
        vec![layout.offset(), src.layout.offset()],
        &[size_of::<T>(), size_of::<U>()],
    );
    let kernel = Update2 {
        f,
        _types: PhantomData,
    };
    let src_base = src.storage.as_ptr().cast_mut().cast();
    // SAFETY: operand 0 addresses the destination's elements, each once, exclusively ours
    // (fits asserted, TensorMut invariant); operand 1 addresses elements of `src` (fits
    // asserted; broadcast strides address the same offsets), initialized, in another
    // allocation (module docs), so no output element is an input element.
    unsafe { execute(&plan, [dst.as_ptr().cast(), src_base], &kernel) }
}

/// `out = f(out)`: the destination is read and written by the same run.
struct Update1<T, F> {
    f: F,
    _types: PhantomData<fn(T) -> T>,
}

impl<T: Element, F: Fn(T) -> T + Sync> Runs<1> for Update1<T, F> {
    const SIZES: [usize; 1] = [size_of::<T>()];
    const READS_OUTPUT: bool = true;

    #[inline]
    unsafe fn run(&self, p: [*mut u8; 1], s: [isize; 1], len: usize) {
        let o = p[0].cast::<T>();
        // SAFETY: the `Runs` contract: `len` elements at this stride, ours alone; they are
        // initialized (the destination of an in-place op), so reading before writing is fine.
        unsafe {
            if s[0] == 1 {
                for x in std::slice::from_raw_parts_mut(o, len) {
                    *x = (self.f)(*x);
                }
            } else {
                for i in 0..len as isize {
                    let q = o.offset(i * s[0]);
                    q.write((self.f)(q.read()));
                }
            }
        }
    }
}

/// `out = f(out, a)`.
struct Update2<T, U, F> {
    f: F,
    _types: PhantomData<fn(T, U) -> T>,
}

impl<T: Element, U: Element, F: Fn(T, U) -> T + Sync> Runs<2> for Update2<T, U, F> {
    const SIZES: [usize; 2] = [size_of::<T>(), size_of::<U>()];
    const READS_OUTPUT: bool = true;

    #[inline]
    unsafe fn run(&self, p: [*mut u8; 2], s: [isize; 2], len: usize) {
        let (o, a) = (p[0].cast::<T>(), p[1].cast::<U>().cast_const());
        let f = &self.f;
        // SAFETY: the `Runs` contract, as in `Update1::run`; the input is another allocation
        // (or a private tile buffer), so the slices do not alias; stride 0 is one element.
        unsafe {
            match s {
                [1, 1] => {
                    let out = std::slice::from_raw_parts_mut(o, len);
                    let a = std::slice::from_raw_parts(a, len);
                    for (x, &y) in out.iter_mut().zip(a) {
                        *x = f(*x, y);
                    }
                }
                [1, 0] => {
                    let y = a.read();
                    for x in std::slice::from_raw_parts_mut(o, len) {
                        *x = f(*x, y);
                    }
                }
                _ => {
                    for i in 0..len as isize {
                        let q = o.offset(i * s[0]);
                        q.write(f(q.read(), a.offset(i * s[1]).read()));
                    }
                }
            }
        }
    }
}
