//! The error paths of the operators, reductions, indexing, building from parts, matrix
//! products and writes (the layouts, views and constructors are in `errors.rs`): a table of
//! messages checked by [`check_table`], then the operators through every ownership form with
//! the error each gives.

use stridex::{Error, Tensor};

use crate::errors::{Row, check_table, m};

/// One row per public fallible operation: the call, made wrong, and what its message must
/// contain: the operation the user called (first), the shapes or arguments, and the fix.
fn table() -> Vec<Row> {
    use stridex::Norm;
    let a = m(); // [3, 4] f32
    let i = |v: Vec<i64>, s: &[usize]| Tensor::from_vec(v, s).unwrap();
    let mask = Tensor::from_vec(vec![1u8; 5], &[5]).unwrap();
    let e62 = Tensor::<f32>::zeros(&[1])
        .unwrap()
        .expand(&[1usize << 62])
        .unwrap();
    let mut owned = m();
    let mut owned2 = m();
    let mut owned3 = Tensor::<i32>::zeros(&[2]).unwrap();
    let mut dst = Tensor::<f32>::zeros(&[2, 2]).unwrap();
    vec![
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
            a.pow(Tensor::zeros(&[5]).unwrap()).map(drop),
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
        ("sum_dim", a.sum_dim(2, false).map(drop), vec!["dim 2"]),
        (
            "sum_dims",
            a.sum_dims(&[0, 3], false).map(drop),
            vec!["dim 3"],
        ),
        ("prod_dim", a.prod_dim(2, false).map(drop), vec!["dim 2"]),
        (
            "prod_dims",
            a.prod_dims(&[5], false).map(drop),
            vec!["dim 5"],
        ),
        ("mean_dim", a.mean_dim(2, false).map(drop), vec!["dim 2"]),
        (
            "mean_dims",
            a.mean_dims(&[2], false).map(drop),
            vec!["dim 2"],
        ),
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
        ("max_dim", a.max_dim(2, false).map(drop), vec!["dim 2"]),
        (
            "max_dims",
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
        ("min_dim", a.min_dim(2, false).map(drop), vec!["dim 2"]),
        ("min_dims", a.min_dims(&[2], false).map(drop), vec!["dim 2"]),
        (
            "min",
            Tensor::<i32>::zeros(&[3, 0]).unwrap().min_all().map(drop),
            vec!["[3, 0]"],
        ),
        (
            "argmax_dim",
            a.argmax_dim(2, false).map(drop),
            vec!["dim 2"],
        ),
        (
            "argmax_dims",
            a.argmax_dims(&[2], false).map(drop),
            vec!["dim 2"],
        ),
        (
            "argmax",
            Tensor::<f32>::zeros(&[0]).unwrap().argmax_all().map(drop),
            vec!["zero elements"],
        ),
        (
            "argmin_dim",
            a.argmin_dim(2, false).map(drop),
            vec!["dim 2"],
        ),
        (
            "argmin_dims",
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
        // Negative dims out of range, integer inputs, indices of other integer types.
        (
            "sum_dims",
            a.sum_dims(&[-1, -3], false).map(drop),
            vec![
                "dim -3",
                "2-dim",
                "to -1",
                "from -1 (the last) to -2 (the first)",
            ],
        ),
        (
            "mean_dims",
            a.mean_dims(&[-3], false).map(drop),
            vec!["dim -3", "2-dim"],
        ),
        (
            "sum_dim",
            a.sum_dim(-3, true).map(drop),
            vec!["dim -3", "2-dim"],
        ),
        (
            "mean_dim",
            Tensor::from_vec(vec![1i32, 2], &[2])
                .unwrap()
                .mean_dim(-2, false)
                .map(drop),
            vec!["dim -2", "1-dim", "to -1"],
        ),
        (
            "softmax",
            Tensor::<u8>::zeros(&[2, 2]).unwrap().softmax(-3).map(drop),
            vec!["dim -3", "2-dim"],
        ),
        ("argmax", a.argmax(-3).map(drop), vec!["dim -3", "2-dim"]),
        (
            "var_dim",
            a.var_dim(-3, false, 1).map(drop),
            vec!["dim -3", "2-dim"],
        ),
        (
            "index_select",
            a.index_select(0, &Tensor::from_vec(vec![0i32, 3], &[2]).unwrap())
                .map(drop),
            vec!["index 3", "dim 0 of size 3", "0..3"],
        ),
        (
            "index_select",
            a.index_select(0, &Tensor::from_vec(vec![-1i32], &[1]).unwrap())
                .map(drop),
            vec!["index -1", "0..3"],
        ),
        (
            "gather",
            a.gather(1, &Tensor::from_vec(vec![4i32], &[1, 1]).unwrap())
                .map(drop),
            vec!["index 4", "dim 1 of size 4"],
        ),
        (
            "take",
            a.take(&Tensor::from_vec(vec![12i32], &[1]).unwrap())
                .map(drop),
            vec!["index 12", "0..12"],
        ),
        (
            "index_select",
            a.index_select(1, &Tensor::from_vec(vec![1u64 << 63], &[1]).unwrap())
                .map(drop),
            vec!["index 9223372036854775808", "isize::MAX", "0..4"],
        ),
        (
            "scatter",
            a.scatter(
                1,
                &Tensor::from_vec(vec![i64::MAX as u64 + 1], &[1, 1]).unwrap(),
                &a,
            )
            .map(drop),
            vec!["index 9223372036854775808", "isize::MAX"],
        ),
        (
            "masked_fill",
            a.masked_fill(&Tensor::from_bools(&[true; 3], &[3]).unwrap(), 0.0)
                .map(drop),
            vec!["[3]", "[3, 4]", "do not broadcast"],
        ),
        (
            "masked_fill",
            a.masked_fill(&Tensor::from_vec(vec![1i32; 2], &[2, 1]).unwrap(), 0.0)
                .map(drop),
            vec!["[2, 1]", "[3, 4]"],
        ),
        (
            "cat",
            Tensor::cat(&[m(), Tensor::zeros(&[3, 5]).unwrap()], 0).map(drop),
            vec!["tensor 1", "[3, 5]", "[3, 4]", "every dim but 0"],
        ),
        (
            "cat",
            Tensor::cat(&[m(), m()], -3).map(drop),
            vec!["dim -3"],
        ),
        (
            "dot",
            a.dot(&Tensor::zeros(&[4]).unwrap()).map(drop),
            vec!["expected 1 dim, got 2"],
        ),
    ]
}

#[test]
fn every_fallible_op_has_a_message_with_op_shapes_and_fix() {
    check_table(table());
}

/// The operators between tensors name themselves (`add`, `sub`, `mul`, `div`) in every
/// ownership form, whichever operand is owned and whether or not it could take the result.
fn operator_table() -> Vec<Row> {
    let a = m(); // [3, 4] f32
    let own = m; // a fresh [3, 4], holding its storage alone
    let b = || Tensor::<f32>::zeros(&[5]).unwrap();
    let mut rows: Vec<Row> = Vec::new();
    macro_rules! forms {
        ($name:literal, $op:tt) => {{
            let ab = vec!["[3, 4] and [5]", "do not broadcast", "neither is 1"];
            let ba = vec!["[5] and [3, 4]", "do not broadcast"];
            rows.extend([
                ($name, (&a $op &b()).map(drop), ab.clone()),
                ($name, (own() $op &b()).map(drop), ab.clone()),
                ($name, (&a $op b()).map(drop), ab.clone()),
                ($name, (own() $op b()).map(drop), ab.clone()),
                ($name, (a.clone() $op &b()).map(drop), ab),
                ($name, (&b() $op &a).map(drop), ba.clone()),
                ($name, (b() $op own()).map(drop), ba.clone()),
                ($name, (&b() $op own()).map(drop), ba),
            ]);
        }};
    }
    forms!("add", +);
    forms!("sub", -);
    forms!("mul", *);
    forms!("div", /);
    // Promoted element types: i32 with f32, u8 with i8 (to i16), u64 with i64 (to f64).
    let ints = Tensor::<i32>::zeros(&[2, 1]).unwrap();
    rows.push(("mul", (&a * &ints).map(drop), vec!["[3, 4] and [2, 1]"]));
    rows.push(("sub", (ints - own()).map(drop), vec!["[2, 1] and [3, 4]"]));
    let u = || Tensor::<u8>::zeros(&[2]).unwrap();
    let i8s = || Tensor::<i8>::zeros(&[3]).unwrap();
    rows.push(("add", (u() + i8s()).map(drop), vec!["[2] and [3]"]));
    let u64s = Tensor::<u64>::zeros(&[4]).unwrap();
    rows.push((
        "div",
        (&u64s / &Tensor::<i64>::zeros(&[2]).unwrap()).map(drop),
        vec!["[4] and [2]"],
    ));
    // Integer division by zero, on every path: fresh, into the owned dividend, into the
    // owned divisor, and a broadcast zero.
    let zero = vec!["integer division by zero", "divide in a float type"];
    let n = Tensor::from_vec(vec![6i32, 6, 6], &[3]).unwrap();
    let num = || Tensor::from_vec(vec![6i32, 6, 6], &[3]).unwrap();
    let z = || Tensor::from_vec(vec![1i32, 0, 2], &[3]).unwrap();
    let z1 = || Tensor::from_vec(vec![0i32], &[1]).unwrap();
    rows.extend([
        ("div", (&n / &z()).map(drop), zero.clone()),
        ("div", (num() / &z()).map(drop), zero.clone()),
        ("div", (&n / z()).map(drop), zero.clone()),
        ("div", (num() / z()).map(drop), zero.clone()),
        ("div", (n.clone() / &z()).map(drop), zero.clone()),
        ("div", (num() / &z1()).map(drop), zero.clone()),
        ("div", (&n / z1()).map(drop), zero.clone()),
        (
            "div",
            (num() / Tensor::full(&[], 0i32).unwrap()).map(drop),
            zero.clone(),
        ),
        // Promoted integer results: u8 with i8 is i16, i64 with u32 is i64.
        (
            "div",
            (Tensor::from_vec(vec![1u8], &[1]).unwrap() / Tensor::<i8>::zeros(&[1]).unwrap())
                .map(drop),
            zero.clone(),
        ),
        (
            "div",
            (&Tensor::from_vec(vec![5i64, 5], &[2]).unwrap()
                / Tensor::from_vec(vec![1u32, 0], &[2]).unwrap())
            .map(drop),
            zero,
        ),
    ]);
    rows
}

#[test]
fn operators_name_themselves_in_every_ownership_form() {
    check_table(operator_table());
}

#[test]
fn operator_errors_are_values_with_both_shapes_and_the_dim() {
    let a = m; // [3, 4]
    let b = || {
        Tensor::<f32>::zeros(&[4, 1])
            .unwrap()
            .expand(&[4, 4])
            .unwrap()
    };
    let want = |op| Error::BroadcastMismatch {
        op,
        a: vec![3, 4],
        b: vec![4, 4],
        dim: 0,
    };
    assert_eq!((&a() + &b()).unwrap_err(), want("add"));
    assert_eq!((a() - &b()).unwrap_err(), want("sub"));
    assert_eq!((&a() * b()).unwrap_err(), want("mul"));
    assert_eq!((a() / b()).unwrap_err(), want("div"));
    // The operand on the left is the error's first shape, whichever is owned.
    let e = (b() - a()).unwrap_err();
    assert_eq!(
        e,
        Error::BroadcastMismatch {
            op: "sub",
            a: vec![4, 4],
            b: vec![3, 4],
            dim: 0
        }
    );
    // A division by zero is refused before anything is computed, also where the dividend
    // is borrowed and stays readable.
    let n = Tensor::from_vec(vec![6i16, -6], &[2]).unwrap();
    let z = Tensor::from_vec(vec![3i16, 0], &[2]).unwrap();
    assert_eq!(
        (&n / z.clone()).unwrap_err(),
        Error::DivisionByZero { op: "div" }
    );
    assert_eq!(
        (n.clone() / &z).unwrap_err(),
        Error::DivisionByZero { op: "div" }
    );
    assert_eq!(n.to_vec(), vec![6, -6]);
    // Empty operands have nothing to divide: no error, as in PyTorch.
    let e = Tensor::<i32>::zeros(&[0]).unwrap();
    assert_eq!((&e / &e).unwrap().shape(), &[0]);
    assert_eq!((&e / 0).shape(), &[0]);
}

/// The panic message of `f`, which must panic.
fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let payload = std::panic::catch_unwind(f).expect_err("no panic");
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p
            .downcast_ref::<&str>()
            .map_or_else(String::new, |s| s.to_string()),
    }
}

#[test]
fn integer_division_by_a_zero_scalar_panics_naming_div() {
    let i = || Tensor::from_vec(vec![7i32, 0], &[2]).unwrap();
    let msgs = [
        ("&i / 0", panic_message(|| drop(&i() / 0))),
        ("i / 0", panic_message(|| drop(i() / 0))),
        ("1 / &i", panic_message(|| drop(1 / &i()))),
        ("1 / i", panic_message(|| drop(1 / i()))),
    ];
    for (form, msg) in msgs {
        assert!(
            msg.starts_with("div: integer division by zero"),
            "{form}: {msg:?}"
        );
    }
    let msg = panic_message(|| {
        let mut x = i();
        x /= 0;
    });
    assert!(
        msg.starts_with("div_assign: integer division by zero"),
        "{msg:?}"
    );
    let msg = panic_message(|| {
        let mut x = i();
        let mut v = x.view_mut().unwrap().t().unwrap();
        v /= &Tensor::from_vec(vec![0i32], &[1]).unwrap();
    });
    assert!(
        msg.starts_with("div_assign: integer division by zero"),
        "{msg:?}"
    );
}

/// `dot` of two vectors of different lengths names `matmul` in its message, not `dot`, the
/// operation the user called (the rank check names `dot`).
#[test]
fn dot_length_mismatch_names_dot() {
    let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
    let b = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    check_table(vec![("dot", a.dot(&b).map(drop), vec!["[3]", "[4]"])]);
}
