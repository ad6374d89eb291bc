//! The `std::ops` operators between tensors: every ownership form (`&a op &b`, `a op &b`,
//! `&a op b`, `a op b`) gives the values of the method on borrowed operands; element types
//! promote by PyTorch's rules; an owned operand that can take the result is written in place
//! (same buffer, nothing in the copy audit), and one that cannot (shared, broadcast, wrong
//! type or shape) is left alone.

use half::{bf16, f16};
use proptest::prelude::*;
use stridex::{Error, Tensor, audit};

use crate::common;

fn t<T: stridex::Element>(v: Vec<T>, shape: &[usize]) -> Tensor<T> {
    Tensor::from_vec(v, shape).unwrap()
}

#[test]
fn promotion_gives_pytorchs_types_and_values() {
    let i = t(vec![1i32, -2], &[2]);
    let f = t(vec![0.5f32, 0.25], &[2]);
    let d = t(vec![0.5f64], &[1]);
    let u = t(vec![200u8, 255], &[2]);
    let s = t(vec![-1i8, 1], &[2]);
    let h = t(vec![f16::from_f32(1.5)], &[1]);
    let b = t(vec![bf16::from_f32(2.0)], &[1]);
    let r: Tensor<f32> = (&i + &f).unwrap();
    assert_eq!(r.to_vec(), vec![1.5, -1.75]);
    let r: Tensor<f64> = (&f * &d).unwrap();
    assert_eq!(r.to_vec(), vec![0.25, 0.125]);
    // u8 with i8 is i16: 200 + -1 and 255 + 1 need no wrap.
    let r: Tensor<i16> = (&u + &s).unwrap();
    assert_eq!(r.to_vec(), vec![199, 256]);
    // f16 with bf16 is f32.
    let r: Tensor<f32> = (&h * &b).unwrap();
    assert_eq!(r.to_vec(), vec![3.0]);
    // An integer with f16 is f16.
    let r: Tensor<f16> = (&i - &h).unwrap();
    assert_eq!(r.to_vec(), vec![f16::from_f32(-0.5), f16::from_f32(-3.5)]);
    // u64 with i64 is f64 (NumPy).
    let r: Tensor<f64> = (&t(vec![u64::MAX], &[1]) / &t(vec![-1i64], &[1])).unwrap();
    assert_eq!(r.to_vec(), vec![-(u64::MAX as f64)]);
    // Integer division truncates in the promoted integer type.
    let r: Tensor<i64> = (&t(vec![-7i64], &[1]) / &t(vec![2u32], &[1])).unwrap();
    assert_eq!(r.to_vec(), vec![-3]);
}

#[test]
fn every_form_gives_the_same_values() {
    let a = || t((0..6).map(|x| x as f32 + 1.0).collect(), &[2, 3]);
    let row = || t(vec![10.0f32, 20.0, 30.0], &[3]);
    let want_add = vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0];
    let want_sub = vec![9.0, 18.0, 27.0, 6.0, 15.0, 24.0]; // row - a
    assert_eq!((&a() + &row()).unwrap().to_vec(), want_add);
    assert_eq!((a() + &row()).unwrap().to_vec(), want_add);
    assert_eq!((&a() + row()).unwrap().to_vec(), want_add);
    assert_eq!((a() + row()).unwrap().to_vec(), want_add);
    assert_eq!((&row() - &a()).unwrap().to_vec(), want_sub);
    assert_eq!((row() - a()).unwrap().to_vec(), want_sub);
    assert_eq!((&row() - a()).unwrap().to_vec(), want_sub);
    assert_eq!((row() - &a()).unwrap().to_vec(), want_sub);
    let q = (&row() / a()).unwrap().to_vec();
    assert_eq!(q, vec![10.0, 10.0, 10.0, 2.5, 4.0, 5.0]);
    // Chains of results, as users write them.
    let x = a();
    let y = ((&x * 2.0 + &row()).unwrap() - &x).unwrap() / 2.0;
    assert_eq!(y.to_vec(), vec![5.5, 11.0, 16.5, 7.0, 12.5, 18.0]);
}

#[test]
fn an_owned_operand_that_can_take_the_result_is_written_in_place() {
    let a = t((0..12).map(|x| x as f32).collect(), &[3, 4]);
    let b = t(vec![1.0f32; 4], &[4]);
    let p = a.data_ptr();
    let (c, report) = audit::record(|| (a + &b).unwrap());
    assert_eq!(c.data_ptr(), p);
    assert_eq!(report.count(), 0, "{report}");
    assert!(!c.is_view());
    assert_eq!(c.get(&[2, 3]).unwrap(), 12.0);
    // The right operand takes `&row - a` when the left is borrowed.
    let q = c.data_ptr();
    let (d, report) = audit::record(|| (&b - c).unwrap());
    assert_eq!((d.data_ptr(), report.count()), (q, 0));
    assert_eq!(d.get(&[0, 0]).unwrap(), 0.0);
    assert_eq!(d.get(&[2, 3]).unwrap(), -11.0);
    // A transposed owned operand is written through its strides and keeps them.
    // (Its base is a temporary, so the transpose holds the storage alone.)
    let tr = t((0..6).collect(), &[3, 2]).t().unwrap();
    assert_eq!(tr.strides(), &[1, 2]);
    let p = tr.data_ptr();
    let r = (tr + &t(vec![100i32], &[1])).unwrap();
    assert_eq!((r.strides(), r.data_ptr()), (&[1isize, 2][..], p));
    assert_eq!(r.to_vec(), vec![100, 102, 104, 101, 103, 105]);
}

#[test]
fn an_owned_operand_that_cannot_take_the_result_is_left_alone() {
    let a = t(vec![1.0f32, 2.0], &[2]);
    // Shared with another tensor.
    let other = a.clone();
    let c = (a + &t(vec![1.0f32], &[1])).unwrap();
    assert_ne!(c.data_ptr(), other.data_ptr());
    assert_eq!(other.to_vec(), vec![1.0, 2.0]);
    assert_eq!(c.to_vec(), vec![2.0, 3.0]);
    // The result has a bigger shape than the owned operand.
    let small = t(vec![1.0f32, 2.0], &[2]);
    let p = small.data_ptr();
    let big = (small + &t(vec![0.0f32; 6], &[3, 2])).unwrap();
    assert_ne!(big.data_ptr(), p);
    assert_eq!(big.shape(), &[3, 2]);
    // Another element type: i32 + f32 is f32, written to a fresh buffer.
    let ints = t(vec![1i32, 2], &[2]);
    let r: Tensor<f32> = (ints + &t(vec![0.5f32], &[1])).unwrap();
    assert_eq!(r.to_vec(), vec![1.5, 2.5]);
    // A broadcast (stride-0) operand addresses an element twice: never written.
    let e = t(vec![5i64], &[1]).expand(&[3]).unwrap();
    let r = (e + &t(vec![1i64, 2, 3], &[3])).unwrap();
    assert_eq!(r.to_vec(), vec![6, 7, 8]);
    // A view of a storage still shared is not written either.
    let base = t(vec![1.0f64, 2.0, 3.0], &[3]);
    let view = base.narrow(0, 1, 2).unwrap();
    let r = (view + &t(vec![1.0f64], &[1])).unwrap();
    assert_eq!(
        (r.to_vec(), base.to_vec()),
        (vec![3.0, 4.0], vec![1.0, 2.0, 3.0])
    );
}

#[test]
fn operator_errors_name_the_operator_and_leave_no_partial_write() {
    let a = t(vec![1i32, 2, 3], &[3]);
    let err = (a.clone() + &t(vec![1i32, 2], &[2])).unwrap_err();
    assert!(
        matches!(&err, Error::BroadcastMismatch { op: "add", .. }),
        "{err:?}"
    );
    let err = (&t(vec![1.0f32; 3], &[3]) * t(vec![1i8, 2], &[2])).unwrap_err();
    assert!(
        matches!(&err, Error::BroadcastMismatch { op: "mul", .. }),
        "{err:?}"
    );
    // Integer division by zero, on each path: an `Err` naming `div`.
    let zero = || t(vec![1i32, 0, 2], &[3]);
    let own = t(vec![6i32, 6, 6], &[3]);
    assert_eq!(
        (own / &zero()).unwrap_err(),
        Error::DivisionByZero { op: "div" }
    );
    assert_eq!(
        (&a / zero()).unwrap_err(),
        Error::DivisionByZero { op: "div" }
    );
    assert_eq!(
        (&a / &zero()).unwrap_err(),
        Error::DivisionByZero { op: "div" }
    );
    assert_eq!(a.to_vec(), vec![1, 2, 3]);
}

/// A shape of at most 3 dims of size <= 4 and a second shape that broadcasts with it.
fn shapes() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    proptest::collection::vec(1usize..=4, 0..=3).prop_flat_map(|s| {
        let n = s.len();
        let other = proptest::collection::vec(any::<bool>(), n).prop_map({
            let s = s.clone();
            move |ones| {
                s.iter()
                    .zip(ones)
                    .map(|(&d, one)| if one { 1 } else { d })
                    .collect::<Vec<_>>()
            }
        });
        (Just(s), other, 0..=n).prop_map(|(s, o, drop)| (s, o[drop..].to_vec()))
    })
}

fn fill<T: stridex::Element>(shape: &[usize], f: impl Fn(usize) -> T) -> Tensor<T> {
    let n = shape.iter().product();
    Tensor::from_vec((0..n).map(f).collect(), shape).unwrap()
}

proptest! {
    #![proptest_config(common::config(64))]

    /// Every ownership form of every operator, in both argument orders and with a transposed
    /// left operand, equals the method on borrowed operands of the promoted type.
    #[test]
    fn ownership_forms_agree((big, small) in shapes(), flip in any::<bool>()) {
        let x = fill(&big, |i| (i % 7) as i16 - 3);
        let y = fill(&small, |i| (i % 5) as f32 + 0.5);
        let (xf, yf): (Tensor<f32>, Tensor<f32>) = (x.cast(), y.clone());
        type F = fn(&Tensor<f32>, &Tensor<f32>) -> stridex::Result<Tensor<f32>>;
        let methods: [(F, &str); 4] = [
            (Tensor::add, "+"), (Tensor::sub, "-"), (Tensor::mul, "*"), (Tensor::div, "/"),
        ];
        for (method, sym) in methods {
            let (want_xy, want_yx) = (method(&xf, &yf).unwrap(), method(&yf, &xf).unwrap());
            let (got_xy, got_yx): (Vec<Tensor<f32>>, Vec<Tensor<f32>>) = match sym {
                "+" => (vec![(&x + &y).unwrap(), (x.clone() + &y).unwrap(), (&x + y.clone()).unwrap(),
                             (x.clone() + y.clone()).unwrap()],
                        vec![(&y + &x).unwrap(), (y.clone() + x.clone()).unwrap()]),
                "-" => (vec![(&x - &y).unwrap(), (x.clone() - &y).unwrap(), (&x - y.clone()).unwrap(),
                             (x.clone() - y.clone()).unwrap()],
                        vec![(&y - &x).unwrap(), (y.clone() - x.clone()).unwrap()]),
                "*" => (vec![(&x * &y).unwrap(), (x.clone() * &y).unwrap(), (&x * y.clone()).unwrap(),
                             (x.clone() * y.clone()).unwrap()],
                        vec![(&y * &x).unwrap(), (y.clone() * x.clone()).unwrap()]),
                _ => (vec![(&x / &y).unwrap(), (x.clone() / &y).unwrap(), (&x / y.clone()).unwrap(),
                           (x.clone() / y.clone()).unwrap()],
                      vec![(&y / &x).unwrap(), (y.clone() / x.clone()).unwrap()]),
            };
            for g in got_xy {
                prop_assert_eq!(g.shape(), want_xy.shape());
                prop_assert_eq!(g.to_vec(), want_xy.to_vec(), "x {} y", sym);
            }
            for g in got_yx {
                prop_assert_eq!(g.to_vec(), want_yx.to_vec(), "y {} x", sym);
            }
        }
        // Same-type owned operands that can take the result (fresh, alone): in place.
        let own = if flip && big.len() == 2 {
            fill(&[big[1], big[0]], |i| i as f32).t().unwrap()
        } else {
            fill(&big, |i| i as f32)
        };
        let want = (&own + &y).unwrap().to_vec();
        let p = own.data_ptr();
        let r = (own + &y).unwrap();
        prop_assert_eq!(r.to_vec(), want);
        if r.numel() > 0 {
            prop_assert_eq!(r.data_ptr(), p);
        }
    }
}
