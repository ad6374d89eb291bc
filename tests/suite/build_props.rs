//! Property tests of building tensors from parts (`cat`, `stack`, `pad`) and taking them apart
//! (`split`, `chunk`, `unbind`), against models that assemble plain `Vec`s by index, plus the
//! error cases.
//!
//! Inputs get random layouts (transposed, flipped, strided, narrowed, expanded) from
//! `common::build`, whose expected row-major values come from the reference model.
//!
//! Case counts default to small numbers; set `PROPTEST_CASES` to run more.

use crate::common;

use common::*;
use proptest::prelude::*;
use stridex::audit::{self, CopyReason};
use stridex::{Element, Error, MemoryFormat, Tensor};

// ---------------------------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------------------------

/// Row-major `(shape, values)` of the concatenation of `parts` along `dim`, by index.
fn model_cat<T: Copy>(parts: &[(Vec<usize>, Vec<T>)], dim: usize) -> (Vec<usize>, Vec<T>) {
    let mut shape = parts[0].0.clone();
    shape[dim] = parts.iter().map(|p| p.0[dim]).sum();
    let mut out = Vec::new();
    for idx in all_indices(&shape) {
        let mut i = idx[dim];
        let mut k = 0;
        while i >= parts[k].0[dim] {
            i -= parts[k].0[dim];
            k += 1;
        }
        let mut local = idx.clone();
        local[dim] = i;
        out.push(parts[k].1[ravel(&local, &parts[k].0)]);
    }
    (shape, out)
}

/// Row-major `(shape, values)` of `parts` (all of one shape) stacked along a new dim `dim`.
fn model_stack<T: Copy>(shape: &[usize], parts: &[Vec<T>], dim: usize) -> (Vec<usize>, Vec<T>) {
    let mut out_shape = shape.to_vec();
    out_shape.insert(dim, parts.len());
    let out = all_indices(&out_shape)
        .iter()
        .map(|idx| {
            let mut local = idx.clone();
            let k = local.remove(dim);
            parts[k][ravel(&local, shape)]
        })
        .collect();
    (out_shape, out)
}

/// Row-major `(shape, values)` of `x` padded by `pads` with `value`.
fn model_pad<T: Copy>(
    shape: &[usize],
    x: &[T],
    pads: &[(usize, usize)],
    value: T,
) -> (Vec<usize>, Vec<T>) {
    let out_shape: Vec<usize> = shape
        .iter()
        .zip(pads)
        .map(|(&n, &(b, a))| b + n + a)
        .collect();
    let out = all_indices(&out_shape)
        .iter()
        .map(|idx| {
            let inside =
                (0..shape.len()).all(|d| idx[d] >= pads[d].0 && idx[d] < pads[d].0 + shape[d]);
            if inside {
                let local: Vec<usize> = (0..shape.len()).map(|d| idx[d] - pads[d].0).collect();
                x[ravel(&local, shape)]
            } else {
                value
            }
        })
        .collect();
    (out_shape, out)
}

/// The piece sizes PyTorch's `split(size)` gives for a dim of `len` (`None`: an error).
fn split_sizes(len: usize, size: usize) -> Option<Vec<usize>> {
    if len == 0 {
        return Some(vec![0]);
    }
    if size == 0 {
        return None;
    }
    let mut out = vec![size; len / size];
    if len % size != 0 {
        out.push(len % size);
    }
    Some(out)
}

/// The piece sizes PyTorch's `chunk(n)` gives for a dim of `len` (`None`: an error).
fn chunk_sizes(len: usize, n: usize) -> Option<Vec<usize>> {
    if n == 0 {
        return None;
    }
    if len == 0 {
        return Some(vec![0; n]);
    }
    split_sizes(len, len.div_ceil(n))
}

/// A fresh result: its own storage of exactly its elements, dense from offset 0.
fn check_fresh<T: Element>(out: &Tensor<T>, inputs: &[&Tensor<T>]) -> TestResult {
    prop_assert_eq!(out.offset(), 0);
    prop_assert_eq!(out.storage().len(), out.numel());
    prop_assert!(
        out.layout().is_non_overlapping_and_dense(),
        "{:?}",
        out.layout()
    );
    for t in inputs {
        prop_assert!(!out.shares_storage(t));
    }
    Ok(())
}

/// The audit saw one `Assemble` copy per part, of that part's elements.
fn check_assemble_events<T: Element>(
    report: &audit::CopyReport,
    parts: &[&Tensor<T>],
) -> TestResult {
    prop_assert_eq!(report.count(), parts.len(), "{}", report);
    for (e, t) in report.events().iter().zip(parts) {
        prop_assert_eq!(e.reason, CopyReason::Assemble);
        prop_assert_eq!(e.bytes, t.numel() * std::mem::size_of::<T>());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

fn small_size() -> impl Strategy<Value = usize> {
    prop_oneof![1 => Just(0usize), 2 => Just(1usize), 6 => 2usize..=4]
}

/// Shape (ndim 1..=4), dim, and 1..=4 parts: (size along dim, layout).
fn arb_cat() -> impl Strategy<Value = (Vec<usize>, usize, Vec<(usize, Recipe)>)> {
    (1usize..=4).prop_flat_map(|ndim| {
        (
            prop::collection::vec(small_size(), ndim),
            0..ndim,
            prop::collection::vec((small_size(), arb_recipe()), 1..=4),
        )
    })
}

/// Shape (ndim 0..=3), dim in 0..=ndim, and 1..=4 layouts.
fn arb_stack() -> impl Strategy<Value = (Vec<usize>, usize, Vec<Recipe>)> {
    (0usize..=3).prop_flat_map(|ndim| {
        (
            prop::collection::vec(small_size(), ndim),
            0..=ndim,
            prop::collection::vec(arb_recipe(), 1..=4),
        )
    })
}

fn arb_pads() -> impl Strategy<Value = Vec<(usize, usize)>> {
    prop::collection::vec((0usize..=3, 0usize..=3), 4)
}

// ---------------------------------------------------------------------------------------------
// Property bodies
// ---------------------------------------------------------------------------------------------

fn cat_case<T: Val>(shape: &[usize], dim: usize, parts: &[(usize, Recipe)]) -> TestResult {
    let built: Vec<Built<T>> = parts
        .iter()
        .enumerate()
        .map(|(k, (len, r))| {
            let mut s = shape.to_vec();
            s[dim] = *len;
            build::<T>(&s, r, |i| T::from_index(100 * k + i), true)
        })
        .collect();
    let inputs: Vec<&Tensor<T>> = built.iter().map(|b| &b.t).collect();
    let model: Vec<(Vec<usize>, Vec<T>)> = built
        .iter()
        .map(|b| (b.m.shape.clone(), b.values()))
        .collect();
    let (want_shape, want) = model_cat(&model, dim);
    let (out, report) = audit::record(|| Tensor::cat(&inputs, dim));
    let out = okay(out, "cat")?;
    let layouts: Vec<_> = inputs.iter().map(|t| t.layout().clone()).collect();
    prop_assert_eq!(
        out.shape(),
        &want_shape[..],
        "cat of {:?} along {}",
        layouts,
        dim
    );
    prop_assert_eq!(out.to_vec(), want, "cat of {:?} along {}", layouts, dim);
    check_assemble_events(&report, &inputs)?;
    check_fresh(&out, &inputs)?;
    // Row-major, or channels-last when every input is dense channels-last.
    if !out.is_contiguous() {
        prop_assert!(
            out.is_contiguous_in(MemoryFormat::ChannelsLast)
                && inputs
                    .iter()
                    .all(|t| t.is_contiguous_in(MemoryFormat::ChannelsLast)),
            "cat of {:?}: {:?}",
            layouts,
            out.layout()
        );
    }
    Ok(())
}

fn stack_case<T: Val>(shape: &[usize], dim: usize, recipes: &[Recipe]) -> TestResult {
    let built: Vec<Built<T>> = recipes
        .iter()
        .enumerate()
        .map(|(k, r)| build::<T>(shape, r, |i| T::from_index(100 * k + i), true))
        .collect();
    let inputs: Vec<&Tensor<T>> = built.iter().map(|b| &b.t).collect();
    let vals: Vec<Vec<T>> = built.iter().map(|b| b.values()).collect();
    let (want_shape, want) = model_stack(shape, &vals, dim);
    let (out, report) = audit::record(|| Tensor::stack(&inputs, dim));
    let out = okay(out, "stack")?;
    prop_assert_eq!(out.shape(), &want_shape[..]);
    prop_assert_eq!(out.to_vec(), want);
    check_assemble_events(&report, &inputs)?;
    check_fresh(&out, &inputs)?;
    Ok(())
}

fn pad_case<T: Val>(
    shape: &[usize],
    recipe: &Recipe,
    pads: &[(usize, usize)],
    value: T,
) -> TestResult {
    let b = build::<T>(shape, recipe, T::from_index, true);
    let pads = &pads[..shape.len()];
    let (want_shape, want) = model_pad(shape, &b.values(), pads, value);
    let (out, report) = audit::record(|| b.t.pad(pads, value));
    let out = okay(out, "pad")?;
    prop_assert_eq!(out.shape(), &want_shape[..]);
    prop_assert_eq!(out.to_vec(), want, "pad {:?} of {:?}", pads, b.t.layout());
    check_assemble_events(&report, &[&b.t])?;
    check_fresh(&out, &[&b.t])?;
    Ok(())
}

/// `split`, `chunk` and `unbind` along `dim`: piece sizes as in PyTorch, views sharing the
/// storage, each piece's elements those of the model's narrow / select, and the pieces put
/// back together (by the model) give the input.
fn pieces_case<T: Val>(
    shape: &[usize],
    recipe: &Recipe,
    dim: usize,
    size: usize,
    n: usize,
) -> TestResult {
    let b = build::<T>(shape, recipe, T::from_index, true);
    let x = &b.t;
    let xv = b.values();
    let ndim = shape.len();
    if ndim == 0 {
        for r in [x.split(1, 0), x.chunk(1, 0), x.unbind(0)] {
            prop_assert!(
                matches!(r, Err(Error::DimOutOfRange { .. })),
                "{:?}",
                r.map(|_| ())
            );
        }
        return Ok(());
    }
    let d = dim % ndim;
    let len = shape[d];
    let (_, report) = audit::record(|| {
        let _ = x.split(size, d);
        let _ = x.chunk(n, d);
        let _ = x.unbind(d);
    });
    prop_assert_eq!(report.count(), 0, "taking apart copied: {}", report);
    // split and chunk.
    for (what, got, want) in [
        ("split", x.split(size, d), split_sizes(len, size)),
        ("chunk", x.chunk(n, d), chunk_sizes(len, n)),
    ] {
        let Some(want) = want else {
            prop_assert!(
                matches!(&got, Err(Error::ZeroStep { op, .. }) if *op == what),
                "{} by 0 of a dim of {}: {:?}",
                what,
                len,
                got.map(|_| ())
            );
            continue;
        };
        let pieces = okay(got, what)?;
        let sizes: Vec<usize> = pieces.iter().map(|p| p.shape()[d]).collect();
        prop_assert_eq!(
            &sizes,
            &want,
            "{} ({}, {}) of a dim of {}",
            what,
            size,
            n,
            len
        );
        let mut start = 0;
        let mut parts = vec![];
        for p in &pieces {
            prop_assert!(p.shares_storage(x), "{}: a piece copied", what);
            let m = b.m.apply(&Op::Narrow(d, start, p.shape()[d])).unwrap();
            check_layout(p.layout(), &m)?;
            let pv = p.to_vec();
            prop_assert_eq!(
                &pv,
                &m.offs
                    .iter()
                    .map(|&o| b.storage[o as usize])
                    .collect::<Vec<T>>()
            );
            parts.push((p.shape().to_vec(), pv));
            start += p.shape()[d];
        }
        prop_assert_eq!(start, len);
        let (s, v) = model_cat(&parts, d);
        prop_assert_eq!(&s[..], shape);
        prop_assert_eq!(&v, &xv, "{} pieces put together", what);
    }
    // unbind.
    let pieces = okay(x.unbind(d), "unbind")?;
    prop_assert_eq!(pieces.len(), len);
    let mut vals = vec![];
    for (i, p) in pieces.iter().enumerate() {
        prop_assert!(p.shares_storage(x));
        let m = b.m.apply(&Op::Select(d, i)).unwrap();
        check_layout(p.layout(), &m)?;
        vals.push(p.to_vec());
    }
    let mut rest = shape.to_vec();
    rest.remove(d);
    if len > 0 {
        let (s, v) = model_stack(&rest, &vals, d);
        prop_assert_eq!(&s[..], shape);
        prop_assert_eq!(&v, &xv, "unbind pieces stacked");
    }
    // Out-of-range dims.
    for (op, r) in [
        ("split", x.split(1, ndim + dim)),
        ("chunk", x.chunk(1, ndim + dim)),
        ("unbind", x.unbind(ndim + dim)),
    ] {
        let ok =
            matches!(&r, Err(e @ Error::DimOutOfRange { op: o, .. }) if *o == op && names(e, op));
        prop_assert!(ok, "{} along a missing dim: {:?}", op, r.map(|_| ()));
    }
    Ok(())
}

/// A channels-last input (maybe flipped or narrowed) padded is channels-last.
fn pad_channels_last_case(
    shape: [usize; 4],
    pads: &[(usize, usize)],
    flip: Option<usize>,
    narrow: bool,
) -> TestResult {
    let [n, c, h, w] = shape;
    let phys = [n, h, w, c];
    let len = n * c * h * w;
    let vals: Vec<i32> = (0..len as i32).collect();
    let mut x = Tensor::from_vec(vals.clone(), &phys)
        .unwrap()
        .permute(&[0, 3, 1, 2])
        .unwrap();
    let mut m = Model::strided(
        &phys,
        &[(h * w * c) as isize, (w * c) as isize, c as isize, 1],
        0,
    )
    .apply(&Op::Permute(vec![0, 3, 1, 2]))
    .unwrap();
    prop_assert!(x.is_contiguous_in(MemoryFormat::ChannelsLast));
    if let Some(d) = flip {
        x = x.flip(d).unwrap();
        m = m.apply(&Op::Flip(d)).unwrap();
    }
    if narrow && x.shape()[1] > 2 {
        x = x.narrow(1, 1, x.shape()[1] - 1).unwrap();
        m = m.apply(&Op::Narrow(1, 1, c - 1)).unwrap();
    }
    let xv: Vec<i32> = m.offs.iter().map(|&o| vals[o as usize]).collect();
    let out = okay(x.pad(pads, -1), "pad")?;
    let (want_shape, want) = model_pad(x.shape(), &xv, pads, -1);
    prop_assert_eq!(out.shape(), &want_shape[..]);
    prop_assert_eq!(out.to_vec(), want);
    prop_assert!(
        out.is_contiguous_in(MemoryFormat::ChannelsLast),
        "pad {:?} of the channels-last {:?} gave {:?}",
        pads,
        x.layout(),
        out.layout()
    );
    prop_assert_eq!(out.offset(), 0);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(128))]

    /// Property 1: cat of randomly laid out parts matches the model concatenation (f32).
    #[test]
    fn cat_matches_the_model_f32((shape, dim, parts) in arb_cat()) {
        cat_case::<f32>(&shape, dim, &parts)?;
    }

    /// Property 1 for u8, f16 and i64.
    #[test]
    fn cat_matches_the_model_other_types((shape, dim, parts) in arb_cat()) {
        cat_case::<u8>(&shape, dim, &parts)?;
        cat_case::<half::f16>(&shape, dim, &parts)?;
        cat_case::<i64>(&shape, dim, &parts)?;
    }

    /// Property 2: stack (0-dim inputs included, dim in 0..=ndim) matches the model.
    #[test]
    fn stack_matches_the_model((shape, dim, recipes) in arb_stack()) {
        stack_case::<f64>(&shape, dim, &recipes)?;
        stack_case::<i16>(&shape, dim, &recipes)?;
    }

    /// Property 3: pad of randomly laid out inputs (empty dims included) matches the model.
    #[test]
    fn pad_matches_the_model(
        shape in arb_shape(), recipe in arb_recipe(), pads in arb_pads(), value in -5i32..5,
    ) {
        pad_case::<i32>(&shape, &recipe, &pads, value)?;
        pad_case::<f32>(&shape, &recipe, &pads, value as f32 + 0.5)?;
        pad_case::<u8>(&shape, &recipe, &pads, value as u8)?;
    }

    /// Property 3: a channels-last input gives a channels-last result (here every dim of size
    /// 1 stays size 1; see the next test for the others).
    #[test]
    fn pad_keeps_channels_last(
        n in 1usize..=3, c in 2usize..=4, h in 1usize..=4, w in 1usize..=4,
        pads in arb_pads(), flip in prop::option::of(0usize..4), narrow in any::<bool>(),
    ) {
        // [N, C, 1, 1] is row-major as well: not a channels-last case.
        let w = if h * w == 1 { 2 } else { w };
        let shape = [n, c, h, w];
        let pads: Vec<(usize, usize)> = (0..4)
            .map(|d| if shape[d] == 1 { (0, 0) } else { pads[d] })
            .collect();
        pad_channels_last_case(shape, &pads, flip, narrow)?;
    }

    /// Property 3 with size-1 dims padded to more than 1 (N == 1, H == 1 or W == 1 of a
    /// channels-last input, which PyTorch pads to a channels-last result).
    #[test]

    fn pad_keeps_channels_last_when_a_size_1_dim_grows(
        n in 1usize..=3, c in 2usize..=4, h in 1usize..=4, w in 1usize..=4,
        pads in arb_pads(), flip in prop::option::of(0usize..4), narrow in any::<bool>(),
    ) {
        // [N, C, 1, 1] is row-major as well: not a channels-last case.
        let w = if h * w == 1 { 2 } else { w };
        pad_channels_last_case([n, c, h, w], &pads, flip, narrow)?;
    }

    /// Property 4: split, chunk and unbind give PyTorch's pieces, as views.
    #[test]
    fn pieces_match_the_model(
        shape in arb_shape(), recipe in arb_recipe(), dim in 0usize..4,
        size in prop_oneof![1 => Just(0usize), 6 => 1usize..=6], n in prop_oneof![1 => Just(0usize), 6 => 1usize..=6],
    ) {
        pieces_case::<f32>(&shape, &recipe, dim, size, n)?;
        pieces_case::<u8>(&shape, &recipe, dim, size, n)?;
    }

    /// Property 5: cat of parts that do not fit names the first one that does not.
    #[test]
    fn cat_mismatch_names_the_first_bad_part(
        (shape, dim, parts) in arb_cat(), bad in 0usize..8, extra_dim in any::<bool>(),
    ) {
        let mut parts = parts;
        if parts.len() < 2 {
            parts.push(parts[0].clone());
        }
        let bad = 1 + bad % (parts.len() - 1);
        let mut shapes: Vec<Vec<usize>> = parts
            .iter()
            .map(|(len, _)| {
                let mut s = shape.clone();
                s[dim] = *len;
                s
            })
            .collect();
        let other = (dim + 1) % shape.len();
        if extra_dim || other == dim {
            shapes[bad].push(1);
        } else {
            shapes[bad][other] += 1;
        }
        let ts: Vec<Tensor<u8>> = shapes.iter().map(|s| Tensor::zeros(s).unwrap()).collect();
        let refs: Vec<&Tensor<u8>> = ts.iter().collect();
        match Tensor::cat(&refs, dim) {
            Err(e @ Error::PartsMismatch { op: "cat", index, dim: Some(d), .. }) => {
                prop_assert_eq!(index, bad);
                prop_assert_eq!(d, dim);
                let msg = e.to_string();
                prop_assert!(msg.starts_with("cat:") && msg.contains(&format!("tensor {bad}")), "{}", msg);
            }
            other => prop_assert!(false, "cat of {:?} along {}: {:?}", shapes, dim, other.map(|_| ())),
        }
        // A dim out of range is reported first.
        match Tensor::cat(&refs, shape.len() + bad) {
            Err(e @ Error::DimOutOfRange { op: "cat", .. }) => prop_assert!(e.to_string().starts_with("cat:")),
            other => prop_assert!(false, "cat along a missing dim: {:?}", other.map(|_| ())),
        }
        // stack: the first part of another shape.
        match Tensor::stack(&refs, 0) {
            Err(e @ Error::PartsMismatch { op: "stack", dim: None, .. }) => {
                let want = shapes.iter().position(|s| s != &shapes[0]).unwrap();
                let ok = matches!(e, Error::PartsMismatch { index, .. } if index == want);
                prop_assert!(ok, "stack of {:?}: {:?}", shapes, e);
                prop_assert!(e.to_string().starts_with("stack:"));
            }
            Ok(_) => prop_assert!(shapes.iter().all(|s| s == &shapes[0])),
            other => prop_assert!(false, "stack of {:?}: {:?}", shapes, other.map(|_| ())),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Unit tests: formats and errors
// ---------------------------------------------------------------------------------------------

#[test]
fn cat_of_channels_last_parts_is_channels_last() {
    let cl = |n: usize| {
        Tensor::<f32>::full_in(&[n, 3, 2, 2], n as f32, MemoryFormat::ChannelsLast).unwrap()
    };
    let (a, b) = (cl(1), cl(2));
    let out = Tensor::cat(&[&a, &b], 0).unwrap();
    assert!(
        out.is_contiguous_in(MemoryFormat::ChannelsLast),
        "{:?}",
        out.layout()
    );
    assert_eq!(out.to_vec(), [vec![1.0; 12], vec![2.0; 24]].concat());
    // Along C too.
    let out = Tensor::cat(&[&b, &b], 1).unwrap();
    assert_eq!(out.shape(), &[2, 6, 2, 2]);
    assert!(out.is_contiguous_in(MemoryFormat::ChannelsLast));
    // One row-major part: row-major.
    let r = Tensor::<f32>::zeros(&[2, 3, 2, 2]).unwrap();
    let out = Tensor::cat(&[&b, &r], 0).unwrap();
    assert!(out.is_contiguous(), "{:?}", out.layout());
    // stack of channels-last 4-dim inputs along a new dim is 5-dim: row-major.
    let s = Tensor::stack(&[&b, &b], 0).unwrap();
    assert!(s.is_contiguous());
    assert_eq!(s.shape(), &[2, 2, 3, 2, 2]);
}

#[test]
fn pad_of_a_transpose_stays_transposed() {
    let x = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])
        .unwrap()
        .t()
        .unwrap();
    let p = x.pad(&[(1, 0), (0, 2)], 9).unwrap();
    assert_eq!(p.shape(), &[4, 4]);
    assert_eq!(
        p.strides(),
        &[1, 4],
        "the result keeps the transposed order"
    );
    assert_eq!(
        p.to_vec(),
        vec![9, 9, 9, 9, 0, 3, 9, 9, 1, 4, 9, 9, 2, 5, 9, 9]
    );
}

#[test]

fn pad_of_a_channels_last_batch_of_one() {
    // N == 1: the channels-last strides of N are not read, but padding N must still give a
    // channels-last result.
    let x = Tensor::<u8>::full_in(&[1, 3, 2, 2], 1, MemoryFormat::ChannelsLast).unwrap();
    let p = x.pad(&[(1, 1), (0, 0), (0, 0), (0, 0)], 0).unwrap();
    assert_eq!(p.shape(), &[3, 3, 2, 2]);
    assert_eq!(p.to_vec(), [vec![0; 12], vec![1; 12], vec![0; 12]].concat());
    assert!(
        p.is_contiguous_in(MemoryFormat::ChannelsLast),
        "{:?}",
        p.layout()
    );
}

#[test]
fn empty_and_zero_dim_inputs() {
    let s = Tensor::full(&[], 7i64).unwrap();
    let t = Tensor::full(&[], 8i64).unwrap();
    let st = Tensor::stack(&[&s, &t, &s], 0).unwrap();
    assert_eq!(st.shape(), &[3]);
    assert_eq!(st.to_vec(), vec![7, 8, 7]);
    // cat of 0-dim tensors has no dim to join along.
    assert!(matches!(
        Tensor::cat(&[&s, &t], 0),
        Err(Error::DimOutOfRange { op: "cat", .. })
    ));
    // Empty parts along dim contribute nothing; all-empty gives an empty result.
    let e = Tensor::<i64>::zeros(&[0, 3]).unwrap();
    let f = Tensor::from_vec((0..6).collect::<Vec<i64>>(), &[2, 3]).unwrap();
    assert_eq!(
        Tensor::cat(&[&e, &f, &e], 0).unwrap().to_vec(),
        (0..6).collect::<Vec<i64>>()
    );
    let ee = Tensor::cat(&[&e, &e], 0).unwrap();
    assert_eq!(ee.shape(), &[0, 3]);
    // pad of a 0-dim tensor is a copy; pad of an empty dim fills.
    let p = s.pad(&[], 0).unwrap();
    assert_eq!((p.shape(), p.to_vec()), (&[][..], vec![7]));
    assert!(!p.shares_storage(&s));
    assert_eq!(e.pad(&[(1, 0), (0, 0)], 5).unwrap().to_vec(), vec![5, 5, 5]);
    // split / chunk / unbind of an empty dim.
    assert_eq!(e.split(2, 0).unwrap().len(), 1);
    assert_eq!(e.split(0, 0).unwrap().len(), 1);
    assert_eq!(e.chunk(3, 0).unwrap().len(), 3);
    assert_eq!(e.unbind(0).unwrap().len(), 0);
    // chunk may give fewer pieces than asked.
    let x = Tensor::from_vec((0..6).collect::<Vec<i64>>(), &[6]).unwrap();
    let sizes = |v: Vec<Tensor<i64>>| v.iter().map(|p| p.numel()).collect::<Vec<_>>();
    assert_eq!(sizes(x.chunk(4, 0).unwrap()), vec![2, 2, 2]);
    assert_eq!(sizes(x.chunk(5, 0).unwrap()), vec![2, 2, 2]);
    assert_eq!(sizes(x.split(4, 0).unwrap()), vec![4, 2]);
}

/// The error's message starts with the op's name.
fn names(e: &Error, op: &str) -> bool {
    e.to_string().starts_with(&format!("{op}:"))
}

#[test]
fn errors_have_the_right_variant_and_name_the_op() {
    let a = Tensor::<f32>::zeros(&[2, 3]).unwrap();
    let b = Tensor::<f32>::zeros(&[2, 4]).unwrap();
    let c = Tensor::<f32>::zeros(&[2, 3, 1]).unwrap();
    let none: [&Tensor<f32>; 0] = [];

    let e = Tensor::cat(&none, 0).unwrap_err();
    assert!(
        matches!(e, Error::NoInputs { op: "cat" }) && names(&e, "cat"),
        "{e}"
    );
    let e = Tensor::stack(&none, 0).unwrap_err();
    assert!(
        matches!(e, Error::NoInputs { op: "stack" }) && names(&e, "stack"),
        "{e}"
    );

    // Off-dim sizes differ (dim 0), or the number of dims differs.
    let e = Tensor::cat(&[&a, &a, &b], 0).unwrap_err();
    assert!(
        matches!(
            e,
            Error::PartsMismatch {
                op: "cat",
                index: 2,
                dim: Some(0),
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        names(&e, "cat") && e.to_string().contains("tensor 2"),
        "{e}"
    );
    assert!(Tensor::cat(&[&a, &b], 1).is_ok());
    let e = Tensor::cat(&[&a, &c], 0).unwrap_err();
    assert!(
        matches!(
            e,
            Error::PartsMismatch {
                op: "cat",
                index: 1,
                ..
            }
        ),
        "{e:?}"
    );
    let e = Tensor::cat(&[&a, &b], 2).unwrap_err();
    assert!(
        matches!(
            e,
            Error::DimOutOfRange {
                op: "cat",
                dim: 2,
                ndim: 2
            }
        ) && names(&e, "cat"),
        "{e:?}"
    );

    let e = Tensor::stack(&[&a, &a, &b], 0).unwrap_err();
    assert!(
        matches!(
            e,
            Error::PartsMismatch {
                op: "stack",
                index: 2,
                dim: None,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(names(&e, "stack"), "{e}");
    assert!(Tensor::stack(&[&a, &a], 2).is_ok());
    let e = Tensor::stack(&[&a, &a], 3).unwrap_err();
    assert!(
        matches!(
            e,
            Error::DimOutOfRange {
                op: "stack",
                dim: 3,
                ..
            }
        ) && names(&e, "stack"),
        "{e:?}"
    );

    let e = a.pad(&[(1, 1)], 0.0).unwrap_err();
    assert!(
        matches!(
            e,
            Error::RankMismatch {
                op: "pad",
                expected: 2,
                got: 1,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(names(&e, "pad"), "{e}");
    let e = a.pad(&[(0, 0), (0, 0), (0, 0)], 0.0).unwrap_err();
    assert!(
        matches!(
            e,
            Error::RankMismatch {
                op: "pad",
                expected: 2,
                got: 3,
                ..
            }
        ),
        "{e:?}"
    );
    let one = Tensor::<u8>::zeros(&[1]).unwrap();
    // A padded size past usize::MAX: the message blames the pads of that dim, not the input.
    let e = one.pad(&[(usize::MAX, 0)], 0).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { op: "pad", .. }) && names(&e, "pad"),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains(&format!("the pads ({}, 0) of dim 0 (size 1)", usize::MAX)),
        "{e}"
    );
    let e = one.pad(&[(0, usize::MAX)], 0).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { op: "pad", .. }),
        "{e:?}"
    );
    let empty = Tensor::<u8>::zeros(&[0, 2]).unwrap();
    let e = empty
        .pad(&[(usize::MAX / 2 + 1, usize::MAX / 2 + 1), (0, 0)], 0)
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { op: "pad", .. }),
        "{e:?}"
    );
    // A padded tensor too large to allocate is still an Overflow of the padded shape.
    let e = one.pad(&[(usize::MAX / 2, 0)], 0).unwrap_err();
    assert!(matches!(e, Error::Overflow { op: "pad", .. }), "{e:?}");

    let e = a.split(0, 1).unwrap_err();
    assert!(
        matches!(
            e,
            Error::ZeroStep {
                op: "split",
                dim: 1
            }
        ) && names(&e, "split"),
        "{e:?}"
    );
    let e = a.chunk(0, 0).unwrap_err();
    assert!(
        matches!(
            e,
            Error::ZeroStep {
                op: "chunk",
                dim: 0
            }
        ) && names(&e, "chunk"),
        "{e:?}"
    );
    let e = a.split(1, 2).unwrap_err();
    assert!(
        matches!(e, Error::DimOutOfRange { op: "split", .. }) && names(&e, "split"),
        "{e:?}"
    );
    let e = a.chunk(1, 2).unwrap_err();
    assert!(
        matches!(e, Error::DimOutOfRange { op: "chunk", .. }) && names(&e, "chunk"),
        "{e:?}"
    );
    let e = a.unbind(5).unwrap_err();
    assert!(
        matches!(e, Error::DimOutOfRange { op: "unbind", .. }) && names(&e, "unbind"),
        "{e:?}"
    );
}

#[test]
fn failed_builds_copy_nothing() {
    let a = Tensor::<f32>::zeros(&[2, 3]).unwrap();
    let b = Tensor::<f32>::zeros(&[3, 3]).unwrap();
    let (r, report) = audit::record(|| Tensor::cat(&[&a, &b], 1));
    assert!(r.is_err());
    assert_eq!(report.count(), 0, "{report}");
    let (r, report) = audit::record(|| a.pad(&[(0, usize::MAX), (0, 0)], 1.0));
    assert!(r.is_err());
    assert_eq!(report.count(), 0, "{report}");
}
