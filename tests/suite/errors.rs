//! Every error path a user can reach, with the message checked for the operation, the
//! offending argument, the layout and (where one exists) the fix.

use stridex::{Error, Layout, MemoryFormat, Storage, Tensor, broadcast_shapes};

fn m() -> Tensor<f32> {
    Tensor::from_vec((0..12).map(|i| i as f32).collect(), &[3, 4]).unwrap()
}

/// The error's message contains every one of `parts`.
fn says(err: Error, parts: &[&str]) -> Error {
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

/// One row per public fallible function: the call, made wrong, and what its message must
/// contain: the operation the user called (first), the shapes or arguments, and the fix.
fn table() -> Vec<(&'static str, stridex::Result<()>, Vec<&'static str>)> {
    use stridex::Norm;
    use stridex::audit;
    let a = m(); // [3, 4] f32
    let i = |v: Vec<i64>, s: &[usize]| Tensor::from_vec(v, s).unwrap();
    let mask = Tensor::from_vec(vec![1u8; 5], &[5]).unwrap();
    let l = Layout::contiguous(&[3, 4]).unwrap();
    let huge = Tensor::<f32>::zeros(&[1, 1])
        .unwrap()
        .expand(&[1 << 31, 1 << 31])
        .unwrap();
    let e62 = Tensor::<f32>::zeros(&[1])
        .unwrap()
        .expand(&[1 << 62])
        .unwrap();
    let mut owned = m();
    let mut owned2 = m();
    let mut owned3 = Tensor::<i32>::zeros(&[2]).unwrap();
    let mut dst = Tensor::<f32>::zeros(&[2, 2]).unwrap();
    let rows: Vec<(&'static str, stridex::Result<()>, Vec<&'static str>)> = vec![
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
        // Elementwise ops.
        (
            "elementwise op",
            (e62.try_map(|x| x)).map(drop),
            vec!["[4611686018427387904]", "overflows"],
        ),
        (
            "add",
            a.add(&Tensor::zeros(&[3]).unwrap()).map(drop),
            vec!["[3, 4]", "[3]"],
        ),
        (
            "sub",
            a.sub(&Tensor::zeros(&[2]).unwrap()).map(drop),
            vec!["[2]"],
        ),
        (
            "mul",
            a.mul(&Tensor::zeros(&[2, 1]).unwrap()).map(drop),
            vec!["[2, 1]"],
        ),
        (
            "div",
            a.div(&Tensor::zeros(&[5]).unwrap()).map(drop),
            vec!["[5]"],
        ),
        (
            "maximum",
            a.maximum(&Tensor::zeros(&[5]).unwrap()).map(drop),
            vec!["[5]"],
        ),
        (
            "minimum",
            a.minimum(&Tensor::zeros(&[5]).unwrap()).map(drop),
            vec!["[5]"],
        ),
        (
            "pow",
            a.pow(&Tensor::zeros(&[5]).unwrap()).map(drop),
            vec!["[5]"],
        ),
        (
            "rem",
            a.rem(&Tensor::zeros(&[5]).unwrap()).map(drop),
            vec!["[5]"],
        ),
        (
            "cmp_eq",
            a.cmp_eq(Tensor::<f32>::zeros(&[5]).unwrap()).map(drop),
            vec!["[5]"],
        ),
        (
            "zip_map",
            a.zip_map(&Tensor::<u8>::zeros(&[5]).unwrap(), |x, _| x)
                .map(drop),
            vec!["[5]"],
        ),
        (
            "where_cond",
            Tensor::where_cond(&mask, &a, &a).map(drop),
            vec!["[5]"],
        ),
        (
            "div",
            Tensor::<i32>::zeros(&[2]).unwrap().div_scalar(0).map(drop),
            vec!["division by zero", "check the divisor"],
        ),
        (
            "div",
            Tensor::<i32>::zeros(&[2])
                .unwrap()
                .div(&Tensor::zeros(&[2]).unwrap())
                .map(drop),
            vec!["division by zero"],
        ),
        (
            "allclose",
            a.allclose(&a, -1.0, 0.0).map(drop),
            vec!["rtol"],
        ),
        // Reductions and statistics.
        ("sum", a.sum_dim(2, false).map(drop), vec!["dim 2"]),
        ("sum", a.sum_dims(&[0, 3], false).map(drop), vec!["dim 3"]),
        ("prod", a.prod_dim(2, false).map(drop), vec!["dim 2"]),
        ("prod", a.prod_dims(&[5], false).map(drop), vec!["dim 5"]),
        ("mean", a.mean_dim(2, false).map(drop), vec!["dim 2"]),
        ("mean", a.mean_dims(&[2], false).map(drop), vec!["dim 2"]),
        (
            "sum_dims",
            a.sum_dims(&[1, -1], false).map(drop),
            vec!["dims 1 and -1", "dim 1 of a 2-dim", "once"],
        ),
        (
            "mean_dims",
            Tensor::<i32>::zeros(&[2, 2])
                .unwrap()
                .mean_dims(&[0, 0], false)
                .map(drop),
            vec!["dim 0 is given twice", "once"],
        ),
        (
            "argmax_dims",
            a.argmax_dims(&[-3], false).map(drop),
            vec!["dim -3", "2-dim"],
        ),
        ("max", a.max_dim(2, false).map(drop), vec!["dim 2"]),
        (
            "max",
            Tensor::<f32>::zeros(&[0, 2])
                .unwrap()
                .max_dims(&[0], false)
                .map(drop),
            vec!["[0, 2]", "zero elements"],
        ),
        (
            "max",
            Tensor::<f32>::zeros(&[0]).unwrap().max_all().map(drop),
            vec!["zero elements"],
        ),
        ("min", a.min_dim(2, false).map(drop), vec!["dim 2"]),
        ("min", a.min_dims(&[2], false).map(drop), vec!["dim 2"]),
        (
            "min",
            Tensor::<i32>::zeros(&[3, 0]).unwrap().min_all().map(drop),
            vec!["[3, 0]"],
        ),
        ("argmax", a.argmax_dim(2, false).map(drop), vec!["dim 2"]),
        (
            "argmax",
            a.argmax_dims(&[2], false).map(drop),
            vec!["dim 2"],
        ),
        (
            "argmax",
            Tensor::<f32>::zeros(&[0]).unwrap().argmax_all().map(drop),
            vec!["zero elements"],
        ),
        ("argmin", a.argmin_dim(2, false).map(drop), vec!["dim 2"]),
        (
            "argmin",
            a.argmin_dims(&[2], false).map(drop),
            vec!["dim 2"],
        ),
        (
            "argmin",
            Tensor::<f32>::zeros(&[0]).unwrap().argmin_all().map(drop),
            vec!["zero elements"],
        ),
        (
            "max_dim_with_indices",
            a.max_dim_with_indices(2, false).map(drop),
            vec!["dim 2"],
        ),
        (
            "min_dim_with_indices",
            a.min_dim_with_indices(2, false).map(drop),
            vec!["dim 2"],
        ),
        ("any", a.any_dim(2, false).map(drop), vec!["dim 2"]),
        ("all", a.all_dim(2, false).map(drop), vec!["dim 2"]),
        (
            "count_nonzero",
            a.count_nonzero_dim(2, false).map(drop),
            vec!["dim 2"],
        ),
        ("softmax", a.softmax(2).map(drop), vec!["dim 2"]),
        ("log_softmax", a.log_softmax(2).map(drop), vec!["dim 2"]),
        (
            "logsumexp",
            a.logsumexp_dim(2, false).map(drop),
            vec!["dim 2"],
        ),
        ("var", a.var_dim(2, false, 1).map(drop), vec!["dim 2"]),
        ("std", a.std_dim(2, false, 1).map(drop), vec!["dim 2"]),
        (
            "norm",
            a.norm_dim(2, false, Norm::L2).map(drop),
            vec!["dim 2"],
        ),
        ("norm", a.norm_all(3.0).map(drop), vec!["3"]),
        ("cumsum", a.cumsum(2).map(drop), vec!["dim 2"]),
        ("cumprod", a.cumprod(2).map(drop), vec!["dim 2"]),
        // Indexing.
        (
            "index_select",
            a.index_select(0, &i(vec![3], &[1])).map(drop),
            vec!["index 3", "size 3", "0..3"],
        ),
        (
            "index_select",
            a.index_select(0, &i(vec![0], &[1, 1])).map(drop),
            vec!["at most 1 index dim, got 2", "flatten"],
        ),
        (
            "gather",
            a.gather(1, &i(vec![4], &[1, 1])).map(drop),
            vec!["index 4", "size 4"],
        ),
        (
            "scatter",
            a.scatter(0, &i(vec![0], &[1]), &a).map(drop),
            vec!["expected 2 index dims, got 1", "as many dims"],
        ),
        (
            "masked_fill",
            a.masked_fill(&mask, 0.0).map(drop),
            vec!["[5]"],
        ),
        (
            "masked_select",
            a.masked_select(&mask).map(drop),
            vec!["[5]"],
        ),
        (
            "take",
            a.take(&i(vec![-1], &[1])).map(drop),
            vec!["index -1", "0..12"],
        ),
        (
            "take",
            a.take(&Tensor::from_vec(vec![u64::MAX], &[1]).unwrap())
                .map(drop),
            vec!["index 18446744073709551615", "isize::MAX", "0..12"],
        ),
        (
            "index_select",
            a.index_select(1, &Tensor::from_vec(vec![-2i8], &[1]).unwrap())
                .map(drop),
            vec!["index -2", "dim 1 of size 4", "0..4"],
        ),
        (
            "masked_select",
            a.masked_select(&Tensor::from_vec(vec![1i32; 5], &[5]).unwrap())
                .map(drop),
            vec!["[5]"],
        ),
        (
            "from_bools",
            Tensor::from_bools(&[true, false], &[3]).map(drop),
            vec!["[3]"],
        ),
        (
            "softmax",
            Tensor::<i32>::zeros(&[2]).unwrap().softmax(1).map(drop),
            vec!["dim 1"],
        ),
        // Building from parts.
        (
            "cat",
            Tensor::<f32>::cat(&[] as &[&Tensor<f32>], 0).map(drop),
            vec!["at least one tensor"],
        ),
        (
            "cat",
            Tensor::cat(&[&a, &Tensor::zeros(&[2, 5]).unwrap()], 0).map(drop),
            vec!["[2, 5]", "[3, 4]", "every dim but 0"],
        ),
        (
            "stack",
            Tensor::stack(&[&a, &a.t().unwrap()], 0).map(drop),
            vec!["[4, 3]", "same shape"],
        ),
        (
            "pad",
            a.pad(&[(1, 1)], 0.0).map(drop),
            vec![
                "expected 2 (before, after) pairs, got 1",
                "one (before, after) pair per dim",
            ],
        ),
        ("split", a.split(0, 0).map(drop), vec!["0"]),
        ("chunk", a.chunk(0, 0).map(drop), vec!["0"]),
        ("unbind", a.unbind(2).map(drop), vec!["dim 2"]),
        // Matrix products.
        (
            "matmul",
            a.matmul(&a).map(drop),
            vec!["[3, 4]", "size 4", "size 3"],
        ),
        (
            "matmul",
            Tensor::<f32>::zeros(&[]).unwrap().matmul(&a).map(drop),
            vec!["at least 1 dim, got 0", "unsqueeze"],
        ),
        (
            "matmul",
            Tensor::<f32>::zeros(&[1 << 40, 0])
                .unwrap()
                .matmul(&Tensor::zeros(&[0, 1 << 40]).unwrap())
                .map(drop),
            vec!["[1099511627776, 1099511627776]", "overflows"],
        ),
        (
            "matmul",
            Tensor::<f32>::zeros(&[2, 3, 4])
                .unwrap()
                .matmul(&Tensor::zeros(&[3, 4, 5]).unwrap())
                .map(drop),
            vec!["batch dims [2] and [3]"],
        ),
        (
            "matmul_into",
            a.matmul_into(&a.t().unwrap(), &mut dst, false).map(drop),
            vec!["[2, 2]", "[3, 3]"],
        ),
        // Writes.
        (
            "view_mut",
            a.expand(&[2, 3, 4]).unwrap().view_mut().map(drop),
            vec!["more than once", "contiguous()"],
        ),
        (
            "fill",
            a.expand(&[2, 3, 4]).unwrap().fill(1.0),
            vec!["more than once"],
        ),
        (
            "copy_from",
            owned.copy_from(&Tensor::zeros(&[5]).unwrap()),
            vec!["[5]", "[3, 4]", "broadcast"],
        ),
        ("set", owned2.set(&[3, 0], 1.0), vec!["index 3", "size 3"]),
        (
            "add_assign",
            owned2.add_assign(&Tensor::zeros(&[5]).unwrap()),
            vec!["[5]", "[3, 4]"],
        ),
        (
            "sub_assign",
            owned2.sub_assign(&Tensor::zeros(&[5]).unwrap()),
            vec!["[5]"],
        ),
        (
            "mul_assign",
            owned2.mul_assign(&Tensor::zeros(&[5]).unwrap()),
            vec!["[5]"],
        ),
        (
            "div_assign",
            owned3.div_assign(&Tensor::zeros(&[2]).unwrap()),
            vec!["division by zero"],
        ),
        (
            "map_inplace",
            a.expand(&[2, 3, 4]).unwrap().map_inplace(|x| x),
            vec!["more than once"],
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
    ];
    rows
}

/// Every row fails, and its message names the operation, then contains each expected part.
#[test]
fn every_public_fallible_function_has_a_message_with_op_shapes_and_fix() {
    let mut bad = Vec::new();
    for (op, result, parts) in table() {
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
