//! Regression tests for the defects of issue 14 ("Hardening"), each with the exact input from
//! the issue. (Item 6, `from_vec` copying, is tested with the storage backings; item 7 is
//! `tensor::fmt::tests::many_short_dims_print_within_the_budget` and item 9
//! `layout::coalesce::tests::sizes_whose_product_overflows_stay_unmerged`, next to the code.)

use stridex::{Error, Tensor, audit};

/// `zeros(&[1])?.expand(&[1usize << 62])`: 2^62 f32 elements, one stored.
fn e62() -> Tensor<f32> {
    Tensor::<f32>::zeros(&[1])
        .unwrap()
        .expand(&[1usize << 62])
        .unwrap()
}

fn overflow_of(r: stridex::Result<impl Sized>, op: &str, shape: &[usize]) {
    match r.map(drop) {
        Err(Error::Overflow {
            op: got, shape: s, ..
        }) => {
            assert_eq!((got, &s[..]), (op, shape));
        }
        other => panic!("{op}: expected Overflow of {shape:?}, got {other:?}"),
    }
}

/// Item 1: `to_vec()` of a huge expanded view panicked with "capacity overflow"; now
/// `try_to_vec` returns an overflow naming the shape, and `to_vec` panics with that message
/// (its documented panic).
#[test]
fn item1_to_vec_of_a_huge_view() {
    let h = Tensor::<f32>::zeros(&[1, 1])
        .unwrap()
        .expand(&[1usize << 31, 1usize << 31])
        .unwrap();
    overflow_of(h.try_to_vec(), "to_vec", &[1 << 31, 1 << 31]);
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.to_vec())).unwrap_err();
    let msg = panic.downcast_ref::<String>().unwrap();
    assert!(
        msg.starts_with("to_vec: shape [2147483648, 2147483648]"),
        "{msg}"
    );
    // The fallible form still works on ordinary tensors.
    let t = Tensor::from_vec((0..6).collect::<Vec<u8>>(), &[2, 3]).unwrap();
    assert_eq!(t.t().unwrap().try_to_vec().unwrap(), vec![0, 3, 1, 4, 2, 5]);
}

/// Item 2: results whose byte size overflows were reported as an allocation of
/// 18446744073709551615 bytes; they are overflows naming the shape.
#[test]
fn item2_byte_size_overflow_is_an_overflow() {
    let e = e62();
    let shape = [1usize << 62];
    overflow_of(&e + &e, "add", &shape);
    overflow_of(e.add(&e), "add", &shape);
    overflow_of(e.try_contiguous(), "contiguous", &shape);
    overflow_of(e.try_map(|x| x + 1.0), "elementwise op", &shape);
    let col = e.unsqueeze(1).unwrap();
    let one = Tensor::<f32>::zeros(&[1, 1]).unwrap();
    overflow_of(col.matmul(&one), "matmul", &[1 << 62, 1]);
    let msg = e.try_contiguous().unwrap_err().to_string();
    assert!(!msg.contains("allocation"), "{msg}");
    assert!(msg.contains("[4611686018427387904]") && msg.contains("smaller sizes"));
}

/// Item 3: messages named the wrong operation.
#[test]
fn item3_messages_name_the_called_operation() {
    overflow_of(
        Tensor::<f32>::zeros(&[1 << 40, 1 << 40]),
        "zeros",
        &[1 << 40, 1 << 40],
    );
    overflow_of(
        Tensor::full(&[1 << 40, 1 << 40], 1u8),
        "full",
        &[1 << 40, 1 << 40],
    );
    let a = Tensor::<f32>::zeros(&[1 << 40, 0]).unwrap();
    let b = Tensor::<f32>::zeros(&[0, 1 << 40]).unwrap();
    overflow_of(a.matmul(&b), "matmul", &[1 << 40, 1 << 40]);
}

/// Item 4: "t: expected 2 dims (at most) (one per dim), got 3" and "expected 1 dims (at least)
/// (one per dim), got 0".
#[test]
fn item4_rank_wording() {
    let t = Tensor::<f32>::zeros(&[2, 3, 4])
        .unwrap()
        .t()
        .unwrap_err()
        .to_string();
    assert!(t.starts_with("t: expected at most 2 dims, got 3; "), "{t}");
    assert!(
        t.contains("transpose(d0, d1)") && !t.contains("one per dim"),
        "{t}"
    );
    let s = Tensor::<f32>::zeros(&[]).unwrap();
    let m = s.matmul(&s).unwrap_err().to_string();
    assert!(
        m.starts_with("matmul: expected at least 1 dim, got 0; "),
        "{m}"
    );
    assert!(!m.contains("(at least)") && !m.contains("1 dims"), "{m}");
}

/// Item 5: `Tensor::arange(0.0f32, f32::NAN, 1.0)` blamed an overflow.
#[test]
fn item5_arange_non_finite_arguments() {
    for (r, what) in [
        (Tensor::arange(0.0f32, f32::NAN, 1.0), "end is NaN"),
        (Tensor::arange(f32::NEG_INFINITY, 0.0, 1.0), "start is -inf"),
        (Tensor::arange(0.0f32, 1.0, f32::NAN), "step is NaN"),
    ] {
        match r {
            Err(Error::InvalidArgument {
                op: "arange",
                message,
            }) => {
                assert!(message.starts_with(what), "{message}");
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    assert_eq!(
        Tensor::arange(0.0f32, 1.0, 0.5).unwrap().to_vec(),
        vec![0.0, 0.5]
    );
}

/// Item 8: `audit::record(|| h.try_contiguous())` on a 2^62-element f32 view panicked in debug
/// builds ("attempt to multiply with overflow") and reported "1 copy of 0 bytes" in release;
/// a copy that fails is not counted now.
#[test]
fn item8_failed_copies_are_not_counted() {
    let h = e62();
    let (r, report) = audit::record(|| h.try_contiguous());
    assert!(matches!(r, Err(Error::Overflow { .. })));
    assert_eq!((report.count(), report.bytes()), (0, 0));
    let (r, report) = audit::record(|| h.try_to_vec());
    assert!(r.is_err());
    assert_eq!(report.count(), 0);
    // Inside a forbidding scope the refusal reports the (saturated) size, without overflow.
    let r = audit::forbid_implicit_copies(|| h.unsqueeze(0)?.t()?.reshape(&[1usize << 62]));
    assert!(r.is_ok(), "a view suffices: {r:?}");
    // A copy that succeeds is still counted, once, with its bytes.
    let small = Tensor::<f32>::zeros(&[3, 2]).unwrap();
    let (_, report) = audit::record(|| small.t().unwrap().try_contiguous());
    assert_eq!((report.count(), report.bytes()), (1, 24));
}
