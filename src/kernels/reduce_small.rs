//! The direct path for small reductions over one dim of a row-major tensor.
//!
//! At a few hundred elements, planning a reduction (ordering and coalescing the loops,
//! building the output layout, the kernels' index vectors) costs more than the arithmetic. A
//! row-major input reduced over one dim `d` is always the same loop nest, `[outer, len,
//! inner]` with `len` the reduced size, so this path reads it straight off the shape and calls
//! the planned kernels' own folds ([`tree`] for `inner == 1`, [`row_tree`] otherwise) with
//! the space the plan would have built, or, for rows short enough to be one leaf of `tree`,
//! [`reduce_rows`], which folds them in `tree`'s order without its per-group set-up. Results,
//! output layout included, are bit-identical to the planned path's; the tests below compare
//! the two on every shape they try.

use crate::element::Element;
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::Storage;

use super::parallel::PAR_MIN_ELEMS;
use super::reduce::{GROUP, ROW_LEAF, reduce_rows, tree};
use super::reduce_order::Reduced;
use super::reduce_outer::{RowScratch, Rows, row_tree};
use super::reducers::Reducer;

/// Largest input, in elements, the direct path takes: far below the size at which the planned
/// path would use a second thread, and where its planning is no longer a visible cost.
pub(crate) const SMALL_REDUCE: usize = 1 << 14;

/// Output columns whose accumulators the `inner > 1` form keeps on the stack.
const STACK_COLS: usize = 64;

/// Reduces dim `dim` of `layout` (viewing `storage`) with `r` into a fresh row-major storage,
/// keeping the dim as size 1 if `keepdim`; returns the storage and its layout. `None` when the
/// direct path does not apply: the layout is not row-major, has more than 4 dims, is empty or
/// larger than [`SMALL_REDUCE`], `dim` is out of range, or the reduced dim has fewer than 2
/// elements (the plan drops such a dim, so its order of folds differs).
///
/// # Errors
/// [`Error::Alloc`](crate::Error::Alloc) if the output cannot be allocated.
///
/// # Panics
/// If `layout` does not fit `storage` (the tensor invariant; checked before any access).
pub(crate) fn reduce_dim_small<T: Element, R: Reducer<T>>(
    storage: &Storage<T>,
    layout: &Layout,
    dim: usize,
    keepdim: bool,
    r: &R,
) -> Option<Result<(Storage<R::Out>, Layout)>> {
    let shape = layout.shape();
    let numel = layout.numel();
    // Rows of at most one leaf, reduced along the last dim, go through the row sums at any
    // size below the threads' threshold: the planned path would fold them one leaf each too,
    // with more set-up per group.
    let short_rows = shape.last().is_some_and(|&last| last <= ROW_LEAF)
        && dim == shape.len() - 1
        && numel < PAR_MIN_ELEMS;
    let applies = shape.len() <= 4
        && dim < shape.len()
        && shape[dim] >= 2
        && numel > 0
        && (numel <= SMALL_REDUCE || short_rows)
        && layout.is_contiguous();
    if !applies {
        return None;
    }
    assert!(
        layout.fits_in(storage.len()),
        "reduce: layout does not fit its storage"
    );
    let len = shape[dim];
    let outer: usize = shape[..dim].iter().product();
    let inner: usize = shape[dim + 1..].iter().product();
    let mut kept = [0usize; 4];
    let mut rank = 0;
    for (d, &size) in shape.iter().enumerate() {
        if d != dim || keepdim {
            kept[rank] = if d == dim { 1 } else { size };
            rank += 1;
        }
    }
    Some(run(storage, layout, &kept[..rank], [outer, len, inner], r))
}

/// The direct path once it applies: `[outer, len, inner]` is the input as a loop nest.
fn run<T: Element, R: Reducer<T>>(
    storage: &Storage<T>,
    layout: &Layout,
    out_shape: &[usize],
    [outer, len, inner]: [usize; 3],
    r: &R,
) -> Result<(Storage<R::Out>, Layout)> {
    let out_layout = Layout::contiguous(out_shape)?;
    let n_out = outer * inner;
    let mut fresh = super::fresh::<R::Out>("reduction", out_shape, n_out)?;
    let out = fresh.as_mut_ptr();
    // SAFETY: the layout has elements (numel > 0, checked by the caller), so its offset is an
    // addressed element, in bounds by the fit the caller asserted.
    let input = unsafe { storage.as_ptr().add(layout.offset()) };
    // The row-major input is `outer` blocks of `len * inner` elements from `input`; element
    // `(k, i, w)` is at `(k * len + i) * inner + w`, inside the storage (the layout fits), and
    // its output element `k * inner + w` is below `n_out`, the fresh allocation's length.
    if inner == 1 && len <= ROW_LEAF {
        // SAFETY: the `outer` rows of `len <= ROW_LEAF` elements from `input` are the input
        // (above), and `out` holds `n_out = outer` elements.
        unsafe { reduce_rows(r, input, len, outer, out) };
    } else if inner == 1 {
        // What the plan builds here: one reduced run of `len` contiguous elements per output.
        let space = Reduced {
            shape: Vec::new(),
            strides: Vec::new(),
            run: (len, 1, 1),
            len,
        };
        let mut k = 0;
        while k < outer {
            if outer - k >= GROUP {
                // SAFETY: rows `k..k + GROUP` are rows of the input (above).
                let bases: [*const T; GROUP] =
                    std::array::from_fn(|i| unsafe { input.add((k + i) * len) });
                // SAFETY: each base starts a row of `len` readable, initialized elements.
                let accs = unsafe { tree(r, &space, bases, 0, len, false) };
                for (i, acc) in accs.into_iter().enumerate() {
                    // SAFETY: output element `k + i < outer = n_out`, written once.
                    unsafe { out.add(k + i).write(r.finish(acc, len)) };
                }
                k += GROUP;
            } else {
                // SAFETY: as for a group, for row `k` alone.
                let [acc] = unsafe { tree(r, &space, [input.add(k * len)], 0, len, false) };
                // SAFETY: as for a group.
                unsafe { out.add(k).write(r.finish(acc, len)) };
                k += 1;
            }
        }
    } else {
        // What the plan builds here: `len` rows of `inner` contiguous elements per output
        // block, row `i` at input stride `inner` and reduced position `i`.
        let strides = [[inner as isize, 1]];
        let rows = Rows {
            shape: &[len],
            strides: &strides,
            stride: 1,
        };
        let mut on_stack = [r.identity(); STACK_COLS];
        let mut on_heap = Vec::new();
        let acc: &mut [R::Acc] = if inner <= STACK_COLS {
            &mut on_stack[..inner]
        } else {
            on_heap.resize(inner, r.identity());
            &mut on_heap
        };
        let mut scratch = RowScratch::new();
        for k in 0..outer {
            // SAFETY: block `k` holds `len` rows of `inner` readable, initialized elements
            // (above); `row_tree` reads exactly those.
            unsafe {
                row_tree(
                    r,
                    &rows,
                    input.add(k * len * inner),
                    0,
                    len,
                    acc,
                    &mut scratch,
                    false,
                );
            }
            for (w, &a) in acc.iter().enumerate() {
                // SAFETY: output element `k * inner + w < outer * inner = n_out`, written once.
                unsafe { out.add(k * inner + w).write(r.finish(a, len)) };
            }
        }
    }
    // SAFETY: Storage invariant 3 holds: the loops above wrote each of the `n_out` output
    // elements (`outer` rows, or `outer` blocks of `inner`).
    Ok((unsafe { fresh.assume_init() }, out_layout))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iter::ReducePlan;
    use crate::kernels::reduce::reduce;
    use crate::kernels::reducers::{ArgExtreme, Extreme, Mean, Sum};

    /// Runs both paths on `layout` over `storage` and asserts identical bits and layouts.
    fn same<T: Element, R: Reducer<T>>(
        storage: &Storage<T>,
        layout: &Layout,
        dim: usize,
        keepdim: bool,
        r: &R,
    ) -> bool
    where
        R::Out: bytemuck::Pod,
    {
        let Some(fast) = reduce_dim_small(storage, layout, dim, keepdim, r) else {
            return false;
        };
        let (fast, fast_layout) = fast.unwrap();
        let plan = ReducePlan::new("sum", layout, &[dim], keepdim).unwrap();
        let planned = reduce(storage, layout, &plan, r).unwrap();
        assert_eq!(fast_layout, plan.out_layout, "{layout:?} dim {dim}");
        assert_eq!(
            bytemuck::cast_slice::<R::Out, u8>(fast.as_slice()),
            bytemuck::cast_slice::<R::Out, u8>(planned.as_slice()),
            "{layout:?} dim {dim} keepdim {keepdim}"
        );
        true
    }

    #[test]
    fn the_direct_path_matches_the_planned_path_bit_for_bit() {
        let shapes: &[&[usize]] = &[
            &[2],
            &[7],
            &[600],
            &[4, 4],
            &[3, 1],
            &[1, 5],
            &[5, 9],
            &[2, 700],
            &[700, 3],
            &[2, 3, 4],
            &[3, 1, 2],
            &[1, 40, 70],
            &[2, 3, 4, 5],
            &[2, 2, 1, 3],
            // Rows for the intrinsics: every residue of the row length mod 8 and of the row
            // count mod 4, the longest row they take (512) and one past it.
            &[64, 64],
            &[5, 8],
            &[6, 15],
            &[7, 17],
            &[3, 30],
            &[9, 511],
            &[4, 512],
            &[3, 513],
            &[2, 3, 12],
        ];
        // Under Miri, which interprets every addition, the small shapes only.
        let shapes: Vec<&[usize]> = shapes
            .iter()
            .copied()
            .filter(|s| !cfg!(miri) || s.iter().product::<usize>() <= 64)
            .collect();
        let mut taken = 0;
        for &shape in &shapes {
            let n: usize = shape.iter().product();
            // Values with rounding to expose any change in the order of additions, a -0.0
            // and ties for the arg-reductions.
            let data: Vec<f32> = (0..n + 3)
                .map(|i| match i % 11 {
                    0 => -0.0,
                    5 => 3.0,
                    _ => ((i * 7919) % 1013) as f32 * 0.1 - 40.0,
                })
                .collect();
            let storage = Storage::from_slice(&data).unwrap();
            // The same values in `f64`, with room for `f64`'s rounding: the 1e16 swallows
            // small terms in some lanes and not in others; and a few infinities.
            let wide: Vec<f64> = data
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    match i % 13 {
                        4 => 1e16,
                        // Infinities in a few rows, both signs in some (their sum is NaN).
                        9 if i % 7 == 0 => f64::INFINITY,
                        9 if i % 5 == 0 => f64::NEG_INFINITY,
                        _ => f64::from(x) / 3.0,
                    }
                })
                .collect();
            let wide = Storage::from_slice(&wide).unwrap();
            // Offsets 0 and 3: the row-major view may start anywhere.
            for offset in [0, 3] {
                let l = Layout::contiguous(shape).unwrap();
                let layout = Layout::new(shape, l.strides(), offset).unwrap();
                for (dim, &size) in shape.iter().enumerate() {
                    for keepdim in [false, true] {
                        let took = same(&storage, &layout, dim, keepdim, &Sum);
                        assert_eq!(took, size >= 2 && n <= SMALL_REDUCE);
                        taken += usize::from(took);
                        same(&storage, &layout, dim, keepdim, &Mean);
                        same(&wide, &layout, dim, keepdim, &Sum);
                        same(&wide, &layout, dim, keepdim, &Mean);
                        same(&storage, &layout, dim, keepdim, &Extreme::<true>);
                        same(&storage, &layout, dim, keepdim, &ArgExtreme::<false>);
                    }
                }
            }
        }
        assert!(taken > 20, "the direct path ran {taken} times");
        // Integers too (wrapping sums).
        let data: Vec<i32> = (0..60).map(|i| i * 1_000_003 - 7).collect();
        let storage = Storage::from_slice(&data).unwrap();
        let layout = Layout::contiguous(&[3, 4, 5]).unwrap();
        for dim in 0..3 {
            assert!(same(&storage, &layout, dim, false, &Sum));
        }
    }

    #[test]
    fn the_direct_path_declines_what_it_does_not_cover() {
        let storage = Storage::from_slice(&[1.0f32; 64]).unwrap();
        let t = Layout::contiguous(&[4, 8]).unwrap().t().unwrap();
        assert!(reduce_dim_small(&storage, &t, 0, false, &Sum).is_none());
        let five = Layout::contiguous(&[2, 2, 2, 2, 2]).unwrap();
        assert!(reduce_dim_small(&storage, &five, 0, false, &Sum).is_none());
        // A dim out of range (any value) declines, never overflows.
        let rows = Layout::contiguous(&[8, 8]).unwrap();
        assert!(reduce_dim_small(&storage, &rows, usize::MAX, false, &Sum).is_none());
        assert!(reduce_dim_small(&storage, &rows, 2, false, &Sum).is_none());
        let flat = Layout::contiguous(&[64]).unwrap();
        assert!(reduce_dim_small(&storage, &flat, 1, false, &Sum).is_none());
        let empty = Layout::contiguous(&[0, 4]).unwrap();
        assert!(reduce_dim_small(&storage, &empty, 1, false, &Sum).is_none());
        let unit = Layout::contiguous(&[4, 1]).unwrap();
        assert!(reduce_dim_small(&storage, &unit, 1, false, &Sum).is_none());
    }
}
