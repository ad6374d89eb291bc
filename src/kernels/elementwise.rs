//! Executing an elementwise [`Plan`]: the runs, the tiles, the threads and the typed inner
//! loops behind `map`, the arithmetic ops, comparisons, `where` and `cast`.
//!
//! The executor ([`execute`]) turns a plan into 1-D runs: for each run, one pointer and one
//! stride per operand and a length. A typed kernel ([`Runs`]) processes a run; its inner loop
//! has a unit-stride fast path written over slices (so the compiler vectorises it) and a
//! broadcast fast path for a stride-0 operand, and falls back to a strided loop that is correct
//! for any stride, negative or zero.
//!
//! Operands are passed as byte pointers with their element sizes so that one executor serves
//! every combination of element types; only the typed kernels know the types.

use std::marker::PhantomData;
use std::mem::{MaybeUninit, size_of};

use crate::element::Element;
use crate::error::Result;
use crate::iter::broadcast::{broadcast_all, broadcast_strides};
use crate::iter::output::output_strides;
use crate::iter::{Plan, element_count};
use crate::layout::Layout;
use crate::storage::Storage;

pub(crate) use super::Src;
use super::dispatch::{with_avx2, with_avx2_for};
use super::parallel::{SharedPtr, for_each_chunk, threads_for};
pub(crate) use super::run_kernel::Runs;
use super::run_kernel::byte_strides;
use super::stream_out::run_one;
use super::unravel::{advance_offsets, unravel_offsets};

/// Runs `kernel` over every element of `plan`, whose operand `k` lives in the allocation at
/// `bases[k]` (the plan's offsets are added here).
///
/// # Safety
/// - Every offset the plan addresses for operand `k` (its offset plus any in-range multiple of
///   its strides) is in bounds of the allocation at `bases[k]`, initialized for inputs;
/// - the output (operand 0) addresses each element at most once and no output element is an
///   input element;
/// - `K::SIZES` are the operands' true element sizes.
pub(crate) unsafe fn execute<const N: usize, K: Runs<N>>(
    plan: &Plan,
    bases: [*mut u8; N],
    kernel: &K,
) {
    if plan.numel() == 0 {
        return;
    }
    // SAFETY: each offset is an addressed element of its operand, in bounds by the contract
    // (and below isize::MAX elements by Layout invariant 3).
    let origin: [*mut u8; N] =
        std::array::from_fn(|k| unsafe { bases[k].add(plan.offsets[k] * K::SIZES[k]) });
    let origin = SharedPtr(origin);
    let threads = threads_for(plan.numel());
    let stream = !K::READS_OUTPUT && super::stream_out::should_stream(plan.numel(), &K::SIZES);
    // A streaming op stages its transposed operands through tiles shaped for the CPU
    // (Note [copy parameters], `stage_buffer_bytes` and `stage_row_bytes`).
    let wide = stream
        .then(|| {
            let tuning = super::cpu::CopyTuning::get();
            let budget = (tuning.stage_buffer_bytes, tuning.stage_row_bytes);
            super::staged::widen(plan, &K::SIZES, budget, threads)
        })
        .flatten()
        .map(|tile| Plan {
            tile: Some(tile),
            ..plan.clone()
        });
    let plan = wide.as_ref().unwrap_or(plan);
    let items = plan.work_items();
    // Each work item writes a disjoint set of output elements (the plan's loop nest visits each
    // index once and the output addresses each element once), so threads never share one.
    for_each_chunk(items, threads, |range| {
        // SAFETY: forwarded from this function's contract; `range` is within the work items.
        unsafe {
            let (o, (lo, hi)) = (origin.get(), (range.start, range.end));
            match &plan.tile {
                None => run_range(plan, o, (lo, hi), kernel, stream),
                Some(tile) => super::staged::run_tiles(plan, tile, o, (lo, hi), kernel, stream),
            }
        }
        if stream {
            super::transpose::store_fence();
        }
    });
}

/// Runs elements `lo..hi` (row-major over the plan's loop nest) as runs along the inner dim.
///
/// # Safety
/// As [`execute`], with `origin` the operands' first elements.
unsafe fn run_range<const N: usize, K: Runs<N>>(
    plan: &Plan,
    origin: [*mut u8; N],
    (lo, hi): (usize, usize),
    kernel: &K,
    stream: bool,
) {
    let inner = plan.inner();
    let len_inner = plan.shape[inner];
    let bstr = byte_strides(plan, &K::SIZES);
    let inner_strides: [isize; N] = std::array::from_fn(|k| plan.strides[k][inner]);
    let outer = &plan.shape[..inner];
    let (mut index, mut row) = unravel_offsets(lo / len_inner, outer, &bstr[..inner]);
    let mut col = lo % len_inner;
    let mut pos = lo;
    while pos < hi {
        let len = (len_inner - col).min(hi - pos);
        // SAFETY: `index` is a valid outer multi-index and `col + len <= len_inner`, so every
        // element of the run is one the plan addresses (in bounds by the contract).
        let ptrs: [*mut u8; N] = std::array::from_fn(|k| unsafe {
            origin[k].offset(row[k] + col as isize * bstr[inner][k])
        });
        // SAFETY: the run's `len` elements per operand are addressed by the plan (above); the
        // output is disjoint from the inputs and addresses each element once (contract).
        unsafe { run_one(kernel, ptrs, inner_strides, len, stream) };
        pos += len;
        col = 0;
        // Next row: advance the odometer over the outer dims.
        advance_offsets(
            &mut index[..inner],
            &outer[..inner],
            &bstr[..inner],
            &mut row,
        );
    }
}

/// The elements a source views, in order, if its layout is row-major (`None` otherwise).
#[inline(always)]
fn row_major_run<'a, T: Element>(src: &Src<'a, T>) -> Option<&'a [T]> {
    let Some(n) = src.layout.row_major_numel() else {
        return (src.layout.numel() == 0).then_some(&[]);
    };
    let start = src.layout.offset();
    src.storage.as_slice().get(start..start.checked_add(n)?)
}

/// The small-and-dense fast path of [`map`] / [`zip`]: when every input is row-major with the
/// output's shape and the op is too small to be split across threads, the general plan would
/// produce one unit-stride run over every operand; this writes that run directly, without
/// planning (the fixed cost that dominates small ops). The output is row-major, as the output
/// layout rule gives for row-major inputs (Note [output layout]). `None` when it does not
/// apply.
#[inline(always)]
fn small_dense<O: Element>(
    shape: &[usize],
    n: usize,
    fill: impl FnOnce(&mut [MaybeUninit<O>]),
) -> Option<Result<(Storage<O>, Layout)>> {
    // Empty outputs keep the general path's layout rule for huge empty shapes; outputs large
    // enough to stream (counting one input of the output's size, the fewest an op reads) take
    // the general path, which writes them with non-temporal stores.
    let size = size_of::<O>();
    if n == 0 || threads_for(n) > 1 || super::stream_out::should_stream(n, &[size, size]) {
        return None;
    }
    let out = match Layout::contiguous(shape) {
        Ok(out) => out,
        Err(e) => return Some(Err(e)),
    };
    let mut fresh = match super::fresh::<O>("elementwise op", shape, n) {
        Ok(fresh) => fresh,
        Err(e) => return Some(Err(e)),
    };
    // SAFETY: `fresh` is a new allocation for exactly `n` elements (Storage invariant 2), seen
    // here as uninitialized slots, not aliased by any input.
    let slots = unsafe { std::slice::from_raw_parts_mut(fresh.as_mut_ptr().cast(), n) };
    fill(slots);
    // SAFETY: `fill` wrote every one of the `n` slots (each caller zips the slots with inputs
    // of exactly `n` elements).
    Some(Ok((unsafe { fresh.assume_init() }, out)))
}

/// Broadcasts `inputs`, allocates the output (see the output layout note) and plans the op.
/// Returns the fresh storage, its layout and the plan over `[output, inputs..]`.
fn prepare<O: Element>(
    inputs: &[&Layout],
    sizes: &[usize],
) -> Result<(crate::storage::UninitStorage<O>, Layout, Plan)> {
    let shape = broadcast_all(inputs)?;
    let in_strides: Vec<Vec<isize>> = inputs
        .iter()
        .map(|l| broadcast_strides(l, &shape))
        .collect();
    let out = Layout::new(&shape, &output_strides(&shape, &in_strides), 0)?;
    let fresh = super::fresh::<O>("elementwise op", out.shape(), element_count(out.shape()))?;
    let mut strides = vec![out.strides().to_vec()];
    strides.extend(in_strides);
    let mut offsets = vec![0];
    offsets.extend(inputs.iter().map(|l| l.offset()));
    let plan = Plan::new(&shape, strides, offsets, sizes);
    Ok((fresh, out, plan))
}

/// `f` applied to every element of `a`, into a fresh tensor.
///
/// # Errors
/// [`Error::Alloc`](crate::Error::Alloc) if the output cannot be allocated.
pub(crate) fn map<A, O, F>(a: Src<'_, A>, f: F) -> Result<(Storage<O>, Layout)>
where
    A: Element,
    O: Element,
    F: Fn(A) -> O + Sync,
{
    if let Some(x) = row_major_run(&a) {
        let fill = |slots: &mut [MaybeUninit<O>]| {
            with_avx2_for(slots.len(), || {
                for (o, &v) in slots.iter_mut().zip(x) {
                    o.write(f(v));
                }
            })
        };
        if let Some(done) = small_dense(a.layout.shape(), x.len(), fill) {
            return done;
        }
    }
    map_general(a, f)
}

/// [`map`] through the general plan, whatever the layout.
fn map_general<A, O, F>(a: Src<'_, A>, f: F) -> Result<(Storage<O>, Layout)>
where
    A: Element,
    O: Element,
    F: Fn(A) -> O + Sync,
{
    let kernel = Map1 {
        f,
        _types: PhantomData,
    };
    let (mut fresh, out, plan) = prepare::<O>(&[a.layout], &Map1::<A, O, F>::SIZES)?;
    // SAFETY: `a.layout` fits its storage (the Tensor invariant, re-checked by `base`), so
    // every offset it addresses is in bounds and initialized (Storage invariant 3); its
    // broadcast strides address the same offsets, and by Layout invariant 3 no offset
    // arithmetic overflows. The output layout is dense over exactly the fresh `numel`
    // elements (Note [output layout]: positive dense strides, offset 0), so it addresses each
    // once, and a fresh allocation (Storage invariant 2) overlaps no input.
    unsafe { execute(&plan, [fresh.as_mut_ptr().cast(), a.base()], &kernel) };
    // SAFETY: Storage invariant 3 holds: the plan visits every output index, and a dense
    // layout's indices cover every element of its storage.
    Ok((unsafe { fresh.assume_init() }, out))
}

/// `f` applied to every pair of elements of `a` and `b` broadcast together.
///
/// # Errors
/// [`Error::BroadcastMismatch`](crate::Error::BroadcastMismatch); `Alloc`.
pub(crate) fn zip<A, B, O, F>(a: Src<'_, A>, b: Src<'_, B>, f: F) -> Result<(Storage<O>, Layout)>
where
    A: Element,
    B: Element,
    O: Element,
    F: Fn(A, B) -> O + Sync,
{
    if a.layout.shape() == b.layout.shape() {
        if let (Some(x), Some(y)) = (row_major_run(&a), row_major_run(&b)) {
            let fill = |slots: &mut [MaybeUninit<O>]| {
                with_avx2_for(slots.len(), || {
                    for ((o, &u), &v) in slots.iter_mut().zip(x).zip(y) {
                        o.write(f(u, v));
                    }
                })
            };
            if let Some(done) = small_dense(a.layout.shape(), x.len(), fill) {
                return done;
            }
        }
    }
    if let Some(done) = super::strided_small::zip(&a, &b, &f) {
        return done;
    }
    zip_general(a, b, f)
}

/// [`zip`] through the general plan, whatever the layouts.
fn zip_general<A, B, O, F>(a: Src<'_, A>, b: Src<'_, B>, f: F) -> Result<(Storage<O>, Layout)>
where
    A: Element,
    B: Element,
    O: Element,
    F: Fn(A, B) -> O + Sync,
{
    let kernel = Map2 {
        f,
        _types: PhantomData,
    };
    let (mut fresh, out, plan) = prepare::<O>(&[a.layout, b.layout], &Map2::<A, B, O, F>::SIZES)?;
    // SAFETY: as in `map`, for each input.
    unsafe {
        execute(
            &plan,
            [fresh.as_mut_ptr().cast(), a.base(), b.base()],
            &kernel,
        )
    };
    // SAFETY: as in `map`.
    Ok((unsafe { fresh.assume_init() }, out))
}

/// `f` applied to every triple of elements of `a`, `b` and `c` broadcast together.
///
/// # Errors
/// [`Error::BroadcastMismatch`](crate::Error::BroadcastMismatch); `Alloc`.
pub(crate) fn zip3<A, B, C, O, F>(
    a: Src<'_, A>,
    b: Src<'_, B>,
    c: Src<'_, C>,
    f: F,
) -> Result<(Storage<O>, Layout)>
where
    A: Element,
    B: Element,
    C: Element,
    O: Element,
    F: Fn(A, B, C) -> O + Sync,
{
    let kernel = Map3 {
        f,
        _types: PhantomData,
    };
    let sizes = Map3::<A, B, C, O, F>::SIZES;
    let (mut fresh, out, plan) = prepare::<O>(&[a.layout, b.layout, c.layout], &sizes)?;
    let bases = [fresh.as_mut_ptr().cast(), a.base(), b.base(), c.base()];
    // SAFETY: as in `map`, for each input.
    unsafe { execute(&plan, bases, &kernel) };
    // SAFETY: as in `map`.
    Ok((unsafe { fresh.assume_init() }, out))
}

/// A unary kernel: `out = f(a)`.
struct Map1<A, O, F> {
    f: F,
    _types: PhantomData<fn(A) -> O>,
}

impl<A: Element, O: Element, F: Fn(A) -> O + Sync> Runs<2> for Map1<A, O, F> {
    const SIZES: [usize; 2] = [size_of::<O>(), size_of::<A>()];

    #[inline]
    unsafe fn run(&self, p: [*mut u8; 2], s: [isize; 2], len: usize) {
        let (o, a) = (p[0].cast::<O>(), p[1].cast::<A>().cast_const());
        // SAFETY: the `Runs` contract: `len` valid elements per operand at these strides, the
        // output disjoint from the input, so the slices below are valid and do not alias.
        unsafe {
            if s == [1, 1] {
                let out = std::slice::from_raw_parts_mut(o.cast::<MaybeUninit<O>>(), len);
                let a = std::slice::from_raw_parts(a, len);
                with_avx2(|| {
                    for (o, &x) in out.iter_mut().zip(a) {
                        o.write((self.f)(x));
                    }
                });
            } else {
                for i in 0..len as isize {
                    o.offset(i * s[0])
                        .write((self.f)(a.offset(i * s[1]).read()));
                }
            }
        }
    }
}

/// A binary kernel: `out = f(a, b)`.
struct Map2<A, B, O, F> {
    f: F,
    _types: PhantomData<fn(A, B) -> O>,
}

impl<A: Element, B: Element, O: Element, F: Fn(A, B) -> O + Sync> Runs<3> for Map2<A, B, O, F> {
    const SIZES: [usize; 3] = [size_of::<O>(), size_of::<A>(), size_of::<B>()];

    #[inline]
    unsafe fn run(&self, p: [*mut u8; 3], s: [isize; 3], len: usize) {
        let o = p[0].cast::<O>();
        let (a, b) = (p[1].cast::<A>().cast_const(), p[2].cast::<B>().cast_const());
        let f = &self.f;
        // SAFETY: the `Runs` contract, as in `Map1::run`; a stride-0 operand is one element.
        unsafe {
            match s {
                [1, 1, 1] => {
                    let out = std::slice::from_raw_parts_mut(o.cast::<MaybeUninit<O>>(), len);
                    let a = std::slice::from_raw_parts(a, len);
                    let b = std::slice::from_raw_parts(b, len);
                    with_avx2(|| {
                        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                            o.write(f(x, y));
                        }
                    });
                }
                [1, 1, 0] => {
                    let out = std::slice::from_raw_parts_mut(o.cast::<MaybeUninit<O>>(), len);
                    let a = std::slice::from_raw_parts(a, len);
                    let y = b.read();
                    with_avx2(|| {
                        for (o, &x) in out.iter_mut().zip(a) {
                            o.write(f(x, y));
                        }
                    });
                }
                [1, 0, 1] => {
                    let out = std::slice::from_raw_parts_mut(o.cast::<MaybeUninit<O>>(), len);
                    let x = a.read();
                    let b = std::slice::from_raw_parts(b, len);
                    with_avx2(|| {
                        for (o, &y) in out.iter_mut().zip(b) {
                            o.write(f(x, y));
                        }
                    });
                }
                _ => {
                    for i in 0..len as isize {
                        let v = f(a.offset(i * s[1]).read(), b.offset(i * s[2]).read());
                        o.offset(i * s[0]).write(v);
                    }
                }
            }
        }
    }
}

/// A ternary kernel: `out = f(a, b, c)`.
struct Map3<A, B, C, O, F> {
    f: F,
    _types: PhantomData<fn(A, B, C) -> O>,
}

impl<A, B, C, O, F> Runs<4> for Map3<A, B, C, O, F>
where
    A: Element,
    B: Element,
    C: Element,
    O: Element,
    F: Fn(A, B, C) -> O + Sync,
{
    const SIZES: [usize; 4] = [
        size_of::<O>(),
        size_of::<A>(),
        size_of::<B>(),
        size_of::<C>(),
    ];

    #[inline]
    unsafe fn run(&self, p: [*mut u8; 4], s: [isize; 4], len: usize) {
        let o = p[0].cast::<O>();
        let a = p[1].cast::<A>().cast_const();
        let b = p[2].cast::<B>().cast_const();
        let c = p[3].cast::<C>().cast_const();
        let f = &self.f;
        // SAFETY: the `Runs` contract, as in `Map1::run`.
        unsafe {
            if s == [1, 1, 1, 1] {
                let out = std::slice::from_raw_parts_mut(o.cast::<MaybeUninit<O>>(), len);
                let a = std::slice::from_raw_parts(a, len);
                let b = std::slice::from_raw_parts(b, len);
                let c = std::slice::from_raw_parts(c, len);
                for (((o, &x), &y), &z) in out.iter_mut().zip(a).zip(b).zip(c) {
                    o.write(f(x, y, z));
                }
            } else {
                for i in 0..len as isize {
                    let (x, y) = (a.offset(i * s[1]).read(), b.offset(i * s[2]).read());
                    o.offset(i * s[0]).write(f(x, y, c.offset(i * s[3]).read()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iter::plan::TILE_L;

    /// Row-major, offset, transposed, flipped, broadcast and stepped views of one storage.
    fn views(n: usize) -> Vec<Layout> {
        let base = Layout::contiguous(&[n + 1, n]).unwrap();
        let m = base.narrow(0, 1, n).unwrap(); // row-major with an offset
        vec![
            Layout::contiguous(&[n, n]).unwrap(),
            m.clone(),
            m.t().unwrap(),
            m.flip(1).unwrap(),
            Layout::contiguous(&[n]).unwrap().expand(&[n, n]).unwrap(),
            base.slice(0, 0, (n + 1) as isize, 2)
                .unwrap()
                .narrow(0, 0, n.div_ceil(2))
                .unwrap(),
        ]
    }

    /// `a + b.t()` through the staged tiles (buffer rows `pitch` apart), as planned and
    /// reshaped for both vendors ([`super::super::staged::widen`]): full and partial tiles along both tiled
    /// dims, and an inner dim longer than one tile row ([`TILE_L`]), against the definition.
    #[test]
    fn staged_transposed_operands_give_the_definition() {
        fn check<T: Element + PartialEq + std::fmt::Debug>(
            rows: usize,
            cols: usize,
            from: fn(usize) -> T,
            f: fn(T, T) -> T,
        ) {
            let data: Vec<T> = (0..rows * cols).map(from).collect();
            let s = Storage::from_slice(&data).unwrap();
            let a = Layout::contiguous(&[rows, cols]).unwrap();
            let bt = Layout::contiguous(&[cols, rows]).unwrap().t().unwrap();
            let plan_tiles = Plan::new(
                &[rows, cols],
                vec![
                    a.strides().to_vec(),
                    a.strides().to_vec(),
                    bt.strides().to_vec(),
                ],
                vec![0, 0, 0],
                &[size_of::<T>(); 3],
            );
            assert!(plan_tiles.tile.is_some(), "{rows}x{cols} is staged");
            // `got` (row-major `rows x cols`) against the definition.
            let check_out = |got: &[T], what: &str| {
                for i in 0..rows {
                    for j in 0..cols {
                        let want = f(data[i * cols + j], data[j * rows + i]);
                        assert_eq!(
                            got[i * cols + j],
                            want,
                            "{what} {rows}x{cols} at ({i}, {j})"
                        );
                    }
                }
            };
            let (out, layout) = zip(
                Src {
                    storage: &s,
                    layout: &a,
                },
                Src {
                    storage: &s,
                    layout: &bt,
                },
                f,
            )
            .unwrap();
            assert!(layout.is_contiguous());
            check_out(out.as_slice(), "planned");
            // The reshaped tiles of a streaming op, at a size that does not stream: AMD's shape
            // (a "page" of twice the planned rows) and Intel's (half the planned rows), each
            // with a budget for 512-element tile rows (under Miri only for the small cases).
            if cfg!(miri) && rows * cols > 4096 {
                return;
            }
            let size = size_of::<T>();
            let planned = plan_tiles.tile.as_ref().unwrap().rows;
            for tile_rows in [2 * planned, planned / 2] {
                let run = tile_rows * size;
                let tile =
                    super::super::staged::widen(&plan_tiles, &[size; 3], (run * 512, run), 1)
                        .expect("a budget for 512 columns reshapes the tile");
                assert_eq!((tile.rows, tile.cols), (tile_rows, 512));
                let wide = Plan {
                    tile: Some(tile),
                    ..plan_tiles.clone()
                };
                let mut got = vec![from(0); rows * cols];
                let kernel = Map2 {
                    f,
                    _types: PhantomData,
                };
                let bases = [
                    got.as_mut_ptr().cast(),
                    s.as_ptr() as *mut u8,
                    s.as_ptr() as *mut u8,
                ];
                // SAFETY: the plan addresses `rows x cols` row-major output elements of `got`
                // and the input elements of `a` and `bt`, which lie in `s`; `got` is not an
                // input.
                unsafe { execute(&wide, bases, &kernel) };
                check_out(&got, &format!("{tile_rows}-row tiles"));
            }
        }
        // 8 rows, the fewest that are staged: one partial tile of rows, two tiles along the
        // inner dim (about two minutes under Miri).
        check::<i32>(
            8,
            TILE_L + 2,
            |i| i as i32 * 3 - 7,
            |x, y| x.wrapping_sub(y.wrapping_mul(2)),
        );
        check::<u8>(9, 37, |i| (i * 7 % 251) as u8, |x, y| x ^ y);
        if cfg!(not(miri)) {
            check::<f32>(70, TILE_L + 100, |i| i as f32 * 0.5, |x, y| x - 2.0 * y);
            check::<u8>(300, 301, |i| (i * 7 % 251) as u8, |x, y| x.wrapping_add(y));
            // Two full widened tiles and a partial one along both dims (128 x 512 of f32).
            check::<f32>(300, 1100, |i| i as f32 * 0.25, |x, y| x * 3.0 - y);
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "many ops on many layouts: too slow")]
    fn the_small_dense_path_matches_the_general_plan() {
        for n in [0usize, 1, 3, 8, 33] {
            let data: Vec<i32> = (0..((n + 1) * n) as i32).map(|i| i * 7 - 5).collect();
            let s = Storage::from_slice(&data).unwrap();
            for a in views(n) {
                let src = || Src {
                    storage: &s,
                    layout: &a,
                };
                // Taken exactly for row-major views.
                assert_eq!(row_major_run(&src()).is_some(), a.is_contiguous(), "{a:?}");
                let (fast, fl) = map(src(), |x: i32| x.wrapping_mul(3)).unwrap();
                let (slow, sl) = map_general(src(), |x: i32| x.wrapping_mul(3)).unwrap();
                assert_eq!((fast.as_slice(), &fl), (slow.as_slice(), &sl), "{a:?}");
                for b in views(n).into_iter().filter(|b| b.shape() == a.shape()) {
                    let other = Src {
                        storage: &s,
                        layout: &b,
                    };
                    let f = |x: i32, y: i32| x.wrapping_sub(y.wrapping_mul(2));
                    let (fast, fl) = zip(src(), other, f).unwrap();
                    let other = Src {
                        storage: &s,
                        layout: &b,
                    };
                    let (slow, sl) = zip_general(src(), other, f).unwrap();
                    assert_eq!(
                        (fast.as_slice(), &fl),
                        (slow.as_slice(), &sl),
                        "{a:?} {b:?}"
                    );
                }
            }
        }
    }
}
