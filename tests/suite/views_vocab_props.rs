//! Property tests of the view vocabulary on random strided inputs (transposed, flipped,
//! broadcast, gapped; shared strategies of `common`), each against index arithmetic written
//! here: `movedim`, `unflatten`, `sliding_window_view`, `rot90` and `tensor_split` map every
//! index of the result to one index of the input, and the element there must be the same
//! (both read with `get`). `reshape_with` is checked against `view`: `Never` fails exactly
//! when `view` fails, `IfNeeded` copies exactly then, `Always` always, and the audit agrees.
//! An index with an `Ellipsis` is checked against the same index with the ellipsis written
//! out as whole-dim ranges.
//!
//! Case counts default to small numbers; set `PROPTEST_CASES` to run more.

use crate::common::{Bytes, all_indices, arb_start_mixed, config, kind, seed, shape_from_seed};
use proptest::prelude::*;
use stridex::audit;
use stridex::{CopyPolicy, Layout, SliceItem, Tensor};

/// A tensor over `0..len` under the layout `(shape, strides, offset)`, each element its
/// storage offset.
fn strided(shape: &[usize], strides: &[isize], offset: usize) -> Tensor<i64> {
    let l = Layout::new(shape, strides, offset).unwrap();
    let len = l.storage_len_needed().max(offset + 1);
    Tensor::arange(0i64, len as i64, 1)
        .unwrap()
        .as_strided(shape, strides, offset)
        .unwrap()
}

/// Asserts that `out[o] == input[map(o)]` for every index `o` of `out`.
fn check_map(
    out: &Tensor<i64>,
    input: &Tensor<i64>,
    map: impl Fn(&[usize]) -> Vec<usize>,
) -> Result<(), TestCaseError> {
    for o in all_indices(out.shape()) {
        let i = map(&o);
        prop_assert_eq!(
            out.get(&o).unwrap(),
            input.get(&i).unwrap(),
            "out {:?} in {:?}",
            o,
            i
        );
    }
    Ok(())
}

/// `k` distinct dims of `0..n` in a random order.
fn distinct_dims(b: &mut Bytes, n: usize, k: usize) -> Vec<usize> {
    let mut all: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        all.swap(i, b.below(i + 1));
    }
    all.truncate(k);
    all
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn movedim_moves_indices((shape, strides, offset) in arb_start_mixed(), s in seed()) {
        let x = strided(&shape, &strides, offset);
        let n = shape.len();
        let mut b = Bytes::new(&s);
        let k = b.below(n + 1);
        let (src, dst) = (distinct_dims(&mut b, n, k), distinct_dims(&mut b, n, k));
        let out = x.movedims(&src, &dst).unwrap();
        prop_assert!(out.shares_storage(&x));
        // Dim dst[i] of the result indexes dim src[i]; the other result positions, in order,
        // index the other input dims, in order.
        let rest_in: Vec<usize> = (0..n).filter(|d| !src.contains(d)).collect();
        let rest_out: Vec<usize> = (0..n).filter(|d| !dst.contains(d)).collect();
        check_map(&out, &x, |o| {
            let mut i = vec![0; n];
            for (&sd, &dd) in src.iter().zip(&dst) {
                i[sd] = o[dd];
            }
            for (&id, &od) in rest_in.iter().zip(&rest_out) {
                i[id] = o[od];
            }
            i
        })?;
        if k == 1 {
            let one = x.movedim(src[0], dst[0]).unwrap();
            prop_assert_eq!(one.layout(), out.layout());
        }
    }

    #[test]
    fn unflatten_splits_an_index((shape, strides, offset) in arb_start_mixed(), s in seed()) {
        prop_assume!(!shape.is_empty());
        let x = strided(&shape, &strides, offset);
        let mut b = Bytes::new(&s);
        let dim = b.below(shape.len());
        // A random factorisation of the dim's length, with size-1 factors mixed in.
        let mut left = shape[dim];
        let mut sizes = vec![];
        for _ in 0..b.below(3) {
            let f = (1..=left.max(1)).filter(|f| left % f == 0).nth(b.below(3)).unwrap_or(1);
            sizes.push(f);
            left /= f.max(1);
        }
        sizes.push(left);
        let out = x.unflatten(dim, &sizes).unwrap();
        prop_assert!(out.shares_storage(&x));
        let k = sizes.len();
        check_map(&out, &x, |o| {
            let merged = o[dim..dim + k].iter().zip(&sizes).fold(0, |acc, (&j, &n)| acc * n + j);
            let mut i = o[..dim].to_vec();
            i.push(merged);
            i.extend_from_slice(&o[dim + k..]);
            i
        })?;
        // With one size inferred.
        let mut spec: Vec<i64> = sizes.iter().map(|&n| n as i64).collect();
        if shape[dim] > 0 {
            let at = b.below(k);
            spec[at] = -1;
            let inferred = x.unflatten(dim, &spec).unwrap();
            prop_assert_eq!(inferred.layout(), out.layout());
        }
    }

    #[test]
    fn sliding_windows_add_offsets((shape, strides, offset) in arb_start_mixed(), s in seed()) {
        prop_assume!(!shape.is_empty());
        let x = strided(&shape, &strides, offset);
        let n = shape.len();
        let mut b = Bytes::new(&s);
        // Up to three windows, a dim possibly twice (NumPy allows it), each fitting what the
        // windows before it left.
        let mut left = shape.clone();
        let (mut window, mut axes) = (vec![], vec![]);
        for _ in 0..1 + b.below(3) {
            let d = b.below(n);
            if left[d] == 0 {
                continue;
            }
            let w = 1 + b.below(left[d]);
            left[d] -= w - 1;
            window.push(w);
            axes.push(d);
        }
        let out = x.sliding_window_view(&window, &axes).unwrap();
        prop_assert!(out.shares_storage(&x) || out.numel() == 0);
        let mut want_shape = left.clone();
        want_shape.extend_from_slice(&window);
        prop_assert_eq!(out.shape(), &want_shape[..]);
        // Input index on dim d: the window position plus every offset into a window on d.
        check_map(&out, &x, |o| {
            let mut i = o[..n].to_vec();
            for (k, &d) in axes.iter().enumerate() {
                i[d] += o[n + k];
            }
            i
        })?;
        // A window longer than the dim is refused.
        let d = b.below(n);
        prop_assert!(x.sliding_window_view(&[shape[d] + 1], &[d]).is_err());
    }

    #[test]
    fn rot90_turns_indices(
        (shape, strides, offset) in arb_start_mixed(),
        s in seed(),
        k in -6i64..=6,
    ) {
        prop_assume!(shape.len() >= 2);
        let x = strided(&shape, &strides, offset);
        let mut b = Bytes::new(&s);
        let dims = distinct_dims(&mut b, shape.len(), 2);
        let (d0, d1) = (dims[0], dims[1]);
        let out = x.rot90(k, [d0, d1]).unwrap();
        prop_assert!(out.shares_storage(&x));
        let (n0, n1) = (shape[d0], shape[d1]);
        check_map(&out, &x, |o| {
            let mut i = o.to_vec();
            match k.rem_euclid(4) {
                0 => {}
                1 => (i[d0], i[d1]) = (o[d1], n1 - 1 - o[d0]),
                2 => (i[d0], i[d1]) = (n0 - 1 - o[d0], n1 - 1 - o[d1]),
                _ => (i[d0], i[d1]) = (n0 - 1 - o[d1], o[d0]),
            }
            i
        })?;
        // Four turns are none; a turn one way then the other is none.
        let back = out.rot90(-k, [d0, d1]).unwrap();
        prop_assert_eq!(back.to_vec(), x.to_vec());
        prop_assert_eq!(back.shape(), x.shape());
    }

    #[test]
    fn tensor_split_pieces_cover_the_dim(
        (shape, strides, offset) in arb_start_mixed(),
        s in seed(),
        sections in 1usize..7,
    ) {
        prop_assume!(!shape.is_empty());
        let x = strided(&shape, &strides, offset);
        let mut b = Bytes::new(&s);
        let dim = b.below(shape.len());
        let len = shape[dim];
        // Sections: exactly that many pieces, sizes differing by at most one, larger first,
        // and together the dim in order.
        let parts = x.tensor_split(sections, dim).unwrap();
        prop_assert_eq!(parts.len(), sections);
        let sizes: Vec<usize> = parts.iter().map(|p| p.shape()[dim]).collect();
        prop_assert_eq!(sizes.iter().sum::<usize>(), len);
        prop_assert!(sizes.windows(2).all(|w| w[0] >= w[1] && w[0] - w[1] <= 1), "{:?}", sizes);
        let mut start = 0;
        for p in &parts {
            check_map(p, &x, |o| {
                let mut i = o.to_vec();
                i[dim] += start;
                i
            })?;
            start += p.shape()[dim];
        }
        // Indices: Python's slices [prev:idx] in order, then [last:].
        let idx: Vec<usize> = (0..b.below(4)).map(|_| b.below(len + 3)).collect();
        let parts = x.tensor_split_indices(&idx, dim).unwrap();
        prop_assert_eq!(parts.len(), idx.len() + 1);
        let bounds = std::iter::once(0).chain(idx.iter().copied());
        let ends = idx.iter().copied().chain(std::iter::once(len));
        for (p, (from, to)) in parts.iter().zip(bounds.zip(ends)) {
            let (from, to) = (from.min(len), to.min(len));
            prop_assert_eq!(p.shape()[dim], to.saturating_sub(from));
            check_map(p, &x, |o| {
                let mut i = o.to_vec();
                i[dim] += from;
                i
            })?;
        }
    }

    #[test]
    fn ellipsis_is_the_dims_the_other_items_leave(
        (shape, strides, offset) in arb_start_mixed(),
        s in seed(),
    ) {
        let x = strided(&shape, &strides, offset);
        let n = shape.len();
        let mut b = Bytes::new(&s);
        // Up to four items (indices, ranges, new axes), sometimes more than the dims take.
        let mut items: Vec<SliceItem> = (0..b.below(5))
            .map(|_| match b.below(4) {
                0 => SliceItem::NewAxis,
                1 => SliceItem::Index(b.below(3) as isize - 1),
                2 => SliceItem::range_step(.., if b.below(2) == 0 { 1 } else { -2 }),
                _ => SliceItem::from(1..),
            })
            .collect();
        let at = b.below(items.len() + 1);
        items.insert(at, SliceItem::Ellipsis);
        let taken = items
            .iter()
            .filter(|it| matches!(it, SliceItem::Index(_) | SliceItem::Range { .. }))
            .count();
        let got = x.i(&items[..]);
        if taken > n {
            prop_assert!(got.is_err());
        } else {
            let mut written: Vec<SliceItem> = items[..at].to_vec();
            written.extend(std::iter::repeat_n(SliceItem::from(..), n - taken));
            written.extend_from_slice(&items[at + 1..]);
            match (got, x.i(&written[..])) {
                (Ok(g), Ok(w)) => {
                    prop_assert_eq!(g.layout(), w.layout());
                    prop_assert!(g.shares_storage(&x));
                }
                (Err(_), Err(_)) => {}
                (g, w) => prop_assert!(false, "{:?} vs {:?}", g, w),
            }
        }
        // A second ellipsis is refused.
        items.push(SliceItem::Ellipsis);
        prop_assert!(x.i(&items[..]).is_err());
    }

    #[test]
    fn reshape_policy_agrees_with_view((shape, strides, offset) in arb_start_mixed(), s in seed()) {
        let x = strided(&shape, &strides, offset);
        let target = shape_from_seed(&shape, x.numel(), &s);
        let view = x.view(&target);
        let never = x.reshape_with(&target, CopyPolicy::Never);
        prop_assert_eq!(never.is_err(), view.is_err());
        if let (Err(v), Err(n)) = (&view, &never) {
            // The same error, but for the op a count mismatch names.
            prop_assert_eq!(kind(v), kind(n));
        }
        let (if_needed, report) = audit::record(|| x.reshape_with(&target, CopyPolicy::IfNeeded));
        match (&view, if_needed) {
            (_, Err(e)) => {
                // Only a count mismatch, which `view` reports too.
                prop_assert!(matches!(e, stridex::Error::NumelMismatch { .. }), "{:?}", e);
                prop_assert!(view.is_err());
            }
            (Ok(v), Ok(r)) => {
                prop_assert!(!r.copied && r.tensor.shares_storage(&x));
                prop_assert_eq!(r.tensor.layout(), v.layout());
                prop_assert_eq!(report.count(), 0);
            }
            (Err(_), Ok(r)) => {
                prop_assert!(r.copied && !r.tensor.shares_storage(&x));
                prop_assert_eq!(r.tensor.shape(), &target[..]);
                prop_assert_eq!(r.tensor.to_vec(), x.to_vec());
                prop_assert_eq!(report.count(), 1);
            }
        }
        if let Ok(r) = x.reshape_with(&target, CopyPolicy::Always) {
            prop_assert!(r.copied && r.tensor.is_contiguous());
            prop_assert_eq!(r.tensor.to_vec(), x.to_vec());
        }
        let c = x.contiguous_with(CopyPolicy::IfNeeded).unwrap();
        prop_assert_eq!(c.copied, !x.is_contiguous());
        prop_assert_eq!(x.contiguous_with(CopyPolicy::Never).is_ok(), x.is_contiguous());
    }
}
