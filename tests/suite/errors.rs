//! Every error path a user can reach, with the message checked for the operation, the
//! offending argument, the layout and (where one exists) the fix: layouts, views, shapes,
//! constructors, copies and conversions here; the operators, reductions, indexing, building
//! from parts, matrix products and writes in `errors_ops.rs`, whose table this file's
//! [`check_table`] checks too.

use stridex::{Error, Layout, MemoryFormat, NewAxis, Storage, Tensor, broadcast_shapes, s};

/// A `[3, 4]` f32 tensor of `0..12`.
pub(crate) fn m() -> Tensor<f32> {
    Tensor::from_vec((0..12).map(|i| i as f32).collect(), &[3, 4]).unwrap()
}

/// The error's message contains every one of `parts`.
pub(crate) fn says(err: Error, parts: &[&str]) -> Error {
    let msg = err.to_string();
    for p in parts {
        assert!(msg.contains(p), "message {msg:?} lacks {p:?}");
    }
    err
}

#[test]
fn dims_indices_and_ranges() {
    let a = m();
    says(
        a.transpose(0, 5).unwrap_err(),
        &["transpose", "dim 5", "2-dim"],
    );
    says(
        a.select(1, 4).unwrap_err(),
        &["select", "index 4", "dim 1 of size 4"],
    );
    says(a.get(&[1]).unwrap_err(), &["get", "[1]", "[3, 4]"]);
    says(
        a.narrow(0, 2, 2).unwrap_err(),
        &["narrow", "start 2", "length 2", "size 3"],
    );
    says(
        a.slice_step(0, 0..3, 0).unwrap_err(),
        &["slice", "step", "zero"],
    );
    says(
        a.unfold(1, 5, 1).unwrap_err(),
        &["unfold", "window size 5", "size 4"],
    );
    says(
        a.permute(&[1, 1]).unwrap_err(),
        &["permute", "[1, 1]", "exactly once"],
    );
    says(
        a.diagonal_with(0, 1, 1).unwrap_err(),
        &["diagonal", "dim 1", "differ"],
    );
    says(a.squeeze(0).unwrap_err(), &["squeeze", "size 3", "[3, 4]"]);
    says(a.unsqueeze(3).unwrap_err(), &["unsqueeze", "dim 3"]);
    says(
        a.t().unwrap().unsqueeze(0).unwrap().t().unwrap_err(),
        &["t", "2"],
    );
}

#[test]
fn shapes_views_and_broadcasting() {
    let a = m();
    says(
        a.view(&[5, 2]).unwrap_err(),
        &["view", "[5, 2]", "10 elements", "12"],
    );
    says(
        a.t().unwrap().view(&[12]).unwrap_err(),
        &[
            "view [12]",
            "strides [1, 4]",
            "dims 0..=1",
            "merging needs 12",
            "reshape()",
        ],
    );
    says(
        a.expand(&[3, 5]).unwrap_err(),
        &["expand [3, 5]", "dim 1", "size 4", "size-1"],
    );
    says(a.expand(&[4]).unwrap_err(), &["expand", "2", "got 1"]);
    says(
        broadcast_shapes(&[3, 4], &[2, 4]).unwrap_err(),
        &["[3, 4]", "[2, 4]", "dim 0"],
    );
    says(
        Tensor::from_vec(vec![1u8; 5], &[2, 3]).unwrap_err(),
        &["[2, 3]", "6", "5"],
    );
    says(
        a.contiguous_in(MemoryFormat::ChannelsLast).unwrap_err(),
        &["channels_last", "4 dims", "has 2"],
    );
}

#[test]
fn overflow_and_bounds() {
    says(
        Layout::contiguous(&[usize::MAX, 3]).unwrap_err(),
        &["contiguous", "overflows"],
    );
    says(
        Layout::new(&[3], &[isize::MAX], 0).unwrap_err(),
        &["overflows"],
    );
    says(
        Layout::new(&[2], &[-1], 0).unwrap_err(),
        &["offset -1", "before the start"],
    );
    says(
        m().as_strided(&[3, 4], &[4, 1], 1).unwrap_err(),
        &["as_strided", "offset 12", "holds 12 elements"],
    );
    let s = Storage::from_slice(&[0u8; 4]).unwrap();
    says(
        Tensor::from_storage(s, Layout::contiguous(&[5]).unwrap()).unwrap_err(),
        &["from_storage", "offset 4", "holds 4"],
    );
    says(
        Tensor::<f64>::zeros(&[usize::MAX / 4, 4]).unwrap_err(),
        &["overflows"],
    );
    says(
        Tensor::arange(0i32, 10, 0).unwrap_err(),
        &["arange", "zero"],
    );
    says(
        Tensor::arange(0.0f32, f32::INFINITY, 1.0).unwrap_err(),
        &["arange"],
    );
    assert!(matches!(Tensor::arange(0u8, 255, 1), Ok(t) if t.numel() == 255));
}

#[test]
fn writes_into_existing_memory() {
    let a = m();
    let mut buf = vec![0.0f32; 11];
    says(
        a.contiguous_into(&mut buf).unwrap_err(),
        &["contiguous_into", "12", "11"],
    );
    let mut wrong = Tensor::<f32>::zeros(&[4, 3]).unwrap();
    says(
        a.copy_into(&mut wrong).unwrap_err(),
        &["copy_into", "[4, 3]", "[3, 4]"],
    );
    let mut shared = Tensor::<f32>::zeros(&[3, 4]).unwrap();
    let keep = shared.clone();
    says(
        a.copy_into(&mut shared).unwrap_err(),
        &["copy_into", "shared by 2"],
    );
    drop(keep);
    a.copy_into(&mut shared).unwrap();
    assert_eq!(shared.to_vec(), a.to_vec());
    let mut expanded = Tensor::<f32>::zeros(&[1, 4])
        .unwrap()
        .expand(&[3, 4])
        .unwrap();
    says(
        a.copy_into(&mut expanded).unwrap_err(),
        &["copy_into", "strides [0, 1]", "more than once"],
    );
}

#[test]
fn errors_are_values() {
    fn traits<E: std::error::Error + Clone + PartialEq + Send + Sync + 'static>() {}
    traits::<Error>();
    let e = m().view(&[7]).unwrap_err();
    assert_eq!(e.clone(), e);
}

/// A row of a table of errors: the operation the message must name first, the call made
/// wrong (its result, which must be an `Err`), and what its message must contain.
pub(crate) type Row = (&'static str, stridex::Result<()>, Vec<&'static str>);

/// Every row fails, and its message names the operation, then contains each expected part.
pub(crate) fn check_table(rows: Vec<Row>) {
    let mut bad = Vec::new();
    for (op, result, parts) in rows {
        match result {
            Ok(()) => bad.push(format!("{op}: returned Ok")),
            Err(e) => {
                let msg = e.to_string();
                // The operation (or its family, e.g. `sum` for `sum_dim`) comes first.
                if !msg.starts_with(&format!("{op}:")) && !msg.starts_with(&format!("{op} ")) {
                    bad.push(format!("{op}: message {msg:?} does not name the operation"));
                }
                for p in parts {
                    if !msg.contains(p) {
                        bad.push(format!("{op}: message {msg:?} lacks {p:?}"));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// One row per public fallible function of layouts, views, constructors, copies and
/// conversions: the call, made wrong, and what its message must contain: the operation the
/// user called (first), the shapes or arguments, and the fix.
fn table() -> Vec<Row> {
    use stridex::audit;
    let a = m(); // [3, 4] f32
    let l = Layout::contiguous(&[3, 4]).unwrap();
    let huge = Tensor::<f32>::zeros(&[1, 1])
        .unwrap()
        .expand(&[1usize << 31, 1usize << 31])
        .unwrap();
    let e62 = Tensor::<f32>::zeros(&[1])
        .unwrap()
        .expand(&[1usize << 62])
        .unwrap();
    let mut dst = Tensor::<f32>::zeros(&[2, 2]).unwrap();
    vec![
        // Layout.
        (
            "Layout::new",
            Layout::new(&[2], &[1, 1], 0).map(drop),
            vec!["expected 1 stride, got 2", "one stride per dim"],
        ),
        (
            "contiguous",
            Layout::contiguous(&[usize::MAX, 2]).map(drop),
            vec!["[18446744073709551615, 2]", "smaller sizes"],
        ),
        (
            "offset_of",
            l.offset_of(&[3, 0]).map(drop),
            vec!["index 3", "size 3"],
        ),
        (
            "transpose",
            l.transpose(2, 0).map(drop),
            vec!["dim 2", "0..2"],
        ),
        (
            "t",
            Layout::contiguous(&[2, 3, 4]).unwrap().t().map(drop),
            vec!["at most 2 dims, got 3", "transpose(d0, d1)"],
        ),
        (
            "permute",
            l.permute(&[0]).map(drop),
            vec!["[0]", "exactly once"],
        ),
        (
            "narrow",
            l.narrow(1, 3, 2).map(drop),
            vec!["start 3", "length 2", "size 4"],
        ),
        ("slice", l.slice(1, 0, 4, 0).map(drop), vec!["step", "zero"]),
        (
            "select",
            l.select(0, 3).map(drop),
            vec!["index 3", "size 3"],
        ),
        (
            "squeeze",
            l.squeeze(1).map(drop),
            vec!["size 4", "[3, 4]", "only size-1"],
        ),
        ("unsqueeze", l.unsqueeze(4).map(drop), vec!["dim 4"]),
        (
            "expand",
            l.expand(&[4]).map(drop),
            vec!["at least 2 sizes, got 1", "one size per dim"],
        ),
        ("flip", l.flip(2).map(drop), vec!["dim 2"]),
        ("unfold", l.unfold(0, 2, 0).map(drop), vec!["step", "zero"]),
        (
            "diagonal",
            l.diagonal_with(0, 0, 0).map(drop),
            vec!["dim 0", "differ"],
        ),
        (
            "as_strided",
            l.as_strided(&[2], &[1, 1], 0).map(drop),
            vec!["expected 1 stride, got 2", "one stride per dim"],
        ),
        (
            "view",
            l.view(&[5]).map(drop),
            vec!["[5]", "12", "multiply to 12"],
        ),
        ("split_at", l.split_at(0, 4).map(drop), vec!["4", "3"]),
        ("split", l.split(0, 0).map(drop), vec!["0"]),
        ("chunk", l.chunk(0, 0).map(drop), vec!["0"]),
        ("unbind", l.unbind(2).map(drop), vec!["dim 2"]),
        (
            "contiguous_in",
            Layout::contiguous_in(&[3, 4], MemoryFormat::ChannelsLast).map(drop),
            vec!["channels_last", "4 dims", "has 2"],
        ),
        (
            "broadcast",
            broadcast_shapes(&[3], &[4]).map(drop),
            vec!["[3]", "[4]", "neither is 1"],
        ),
        // Constructors.
        (
            "from_slice",
            Tensor::from_slice(&[1u8; 5], &[2, 3]).map(drop),
            vec!["[2, 3]", "6 elements", "give 6 elements"],
        ),
        (
            "zeros",
            Tensor::<f32>::zeros(&[1 << 40, 1 << 40]).map(drop),
            vec!["[1099511627776, 1099511627776]", "overflows"],
        ),
        (
            "full",
            Tensor::full(&[1 << 62], 0.0f32).map(drop),
            vec!["[4611686018427387904]", "overflows", "smaller sizes"],
        ),
        (
            "empty_strided",
            Tensor::<f32>::empty_strided(&[2], &[-1]).map(drop),
            vec!["offset -1", "raise the offset"],
        ),
        (
            "from_storage",
            Tensor::from_storage(
                Storage::from_slice(&[0u8; 2]).unwrap(),
                Layout::contiguous(&[3]).unwrap(),
            )
            .map(drop),
            vec!["offset 2", "holds 2"],
        ),
        (
            "arange",
            Tensor::arange(0.0f32, f32::NAN, 1.0).map(drop),
            vec!["end is NaN", "finite"],
        ),
        (
            "arange",
            Tensor::arange(0.0f32, 1.0, f32::INFINITY).map(drop),
            vec!["step is inf", "finite"],
        ),
        (
            "arange",
            Tensor::arange(1i64, 2, 0).map(drop),
            vec!["step", "zero"],
        ),
        (
            "zeros_in",
            Tensor::<f32>::zeros_in(&[2, 3], MemoryFormat::ChannelsLast).map(drop),
            vec!["channels_last", "has 2"],
        ),
        (
            "full_in",
            Tensor::full_in(&[2], 1u8, MemoryFormat::ChannelsLast3d).map(drop),
            vec!["channels_last_3d", "5 dims"],
        ),
        // Views on tensors.
        (
            "view",
            a.t().unwrap().view(&[12]).map(drop),
            vec!["strides [1, 4]", "reshape()"],
        ),
        ("select", a.select(2, 0).map(drop), vec!["dim 2", "2-dim"]),
        (
            "expand",
            a.expand(&[3, 5]).map(drop),
            vec!["dim 1", "size-1"],
        ),
        // Access and copies.
        ("get", a.get(&[0, 4]).map(drop), vec!["index 4", "size 4"]),
        (
            "to_vec",
            huge.try_to_vec().map(drop),
            vec!["[2147483648, 2147483648]", "overflows"],
        ),
        (
            "contiguous",
            e62.try_contiguous().map(drop),
            vec!["[4611686018427387904]", "overflows"],
        ),
        (
            "contiguous_into",
            a.contiguous_into(&mut [0.0; 3]).map(drop),
            vec!["12 elements", "buffer of exactly 12"],
        ),
        (
            "copy_into",
            a.copy_into(&mut dst).map(drop),
            vec!["[2, 2]", "[3, 4]"],
        ),
        (
            "contiguous_in",
            a.contiguous_in(MemoryFormat::ChannelsLast).map(drop),
            vec!["channels_last", "has 2"],
        ),
        (
            "reshape copy",
            audit::forbid_implicit_copies(|| a.t()?.reshape(&[12])).map(drop),
            vec!["implicit copy forbidden", "contiguous() first"],
        ),
        // Range slicing, multi-dim indices and negative dims in views.
        (
            "slice",
            a.slice(-3, ..).map(drop),
            vec![
                "dim -3",
                "2-dim",
                "to -1",
                "from -1 (the last) to -2 (the first)",
            ],
        ),
        (
            "slice",
            a.slice(2, 0..1).map(drop),
            vec!["dim 2", "valid dims are 0..2"],
        ),
        (
            "slice_step",
            a.slice_step(-1, .., 0).map(drop),
            vec!["step along dim 1", "zero"],
        ),
        (
            "i",
            a.i((0, 5)).map(drop),
            vec!["item 1", "dim 1 of shape [3, 4]", "index 5", "-4..4"],
        ),
        (
            "i",
            a.i(s![NewAxis, ..;0]).map(drop),
            vec!["item 1", "dim 0 of shape [3, 4]", "step", "zero"],
        ),
        (
            "i",
            a.i((0, 0, 0)).map(drop),
            vec!["item 2", "no dim left", "at most 2", "got 3"],
        ),
        (
            "i",
            a.i(-4).map(drop),
            vec!["item 0", "index -4", "size 3", "-3..3"],
        ),
        (
            "permute",
            a.permute(&[-3, 0]).map(drop),
            vec!["dim -3", "2-dim", "to -1"],
        ),
        (
            "permute",
            a.permute(&[-1, 1]).map(drop),
            vec!["[1, 1]", "0..2"],
        ),
        (
            "transpose",
            a.transpose(-3, 0).map(drop),
            vec!["dim -3", "2-dim"],
        ),
        (
            "view",
            a.view(&[-1, 5]).map(drop),
            vec!["[-1, 5]", "12 elements", "does not divide 12"],
        ),
        (
            "view",
            a.view(&[-1, 0]).map(drop),
            vec!["[-1, 0]", "zero-length dim", "give every length"],
        ),
        (
            "reshape",
            a.reshape(&[5, -1]).map(drop),
            vec!["[5, -1]", "12 elements"],
        ),
        // Constructors, conversions, bytes and inferred shapes.
        (
            "from_vec",
            Tensor::from_vec(vec![1u8; 5], &[2, 3]).map(drop),
            vec!["[2, 3]", "5"],
        ),
        (
            "from_fn",
            Tensor::<u8>::from_fn(&[1 << 40, 1 << 40], |_| 0).map(drop),
            vec!["[1099511627776, 1099511627776]"],
        ),
        (
            "from_iter_with_shape",
            Tensor::from_iter_with_shape(&[2, 3], 0..4u8).map(drop),
            vec!["[2, 3]", "4"],
        ),
        (
            "eye",
            Tensor::<f64>::eye(1 << 33).map(drop),
            vec!["[8589934592, 8589934592]"],
        ),
        (
            "linspace",
            Tensor::linspace(0.0f32, f32::NAN, 3).map(drop),
            vec!["NaN", "finite"],
        ),
        (
            "try_from",
            Tensor::try_from(vec![vec![1u8, 2], vec![3]]).map(drop),
            vec!["row 1 has 1 elements", "equal length"],
        ),
        (
            "view_dtype",
            a.t().unwrap().view_dtype::<u8>().map(drop),
            vec!["[4, 3]", "contiguous()"],
        ),
        (
            "view",
            a.view_infer(&[5, -1]).map(drop),
            vec!["[5, -1]", "12 elements"],
        ),
        (
            "reshape",
            a.reshape_infer(&[-1, -1]).map(drop),
            vec!["more than one -1"],
        ),
        (
            "flatten",
            a.flatten(1, 0).map(drop),
            vec!["start dim 1", "start <= end"],
        ),
        (
            "from_byte_owner",
            stridex::Storage::<f32>::from_byte_owner(std::sync::Arc::new(vec![0u8; 6]), 0, 2)
                .map(drop),
            vec!["2 elements", "6 bytes", "inside"],
        ),
    ]
}

#[test]
fn every_public_fallible_function_has_a_message_with_op_shapes_and_fix() {
    check_table(table());
}
