//! Regression tests holding the exact inputs of reported traps: writes to views that were
//! silently copied, advice that did not work, messages that named the wrong op or repeated
//! it, and whole-tensor reductions over huge broadcast views that ran for hours.

use std::panic::{AssertUnwindSafe, catch_unwind};

use stridex::audit::{self, CopyReason};
use stridex::{Error, Tensor};

/// The message of the panic `f` raises.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("expected a panic");
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p
            .downcast_ref::<&str>()
            .map_or(String::new(), |s| s.to_string()),
    }
}

#[test]
fn a_write_to_a_narrowed_view_is_refused_and_names_the_way_that_works() {
    let mut base = Tensor::<f32>::zeros(&[3, 4]).unwrap();
    let mut col = base.narrow(1, 1, 1).unwrap();
    let (r, report) = audit::record(|| col.fill(7.0));
    let err = r.unwrap_err();
    assert!(matches!(
        err,
        Error::WriteToSharedView {
            op: "fill",
            holders: 2,
            ..
        }
    ));
    let msg = err.to_string();
    assert!(msg.starts_with("fill: "), "{msg}");
    assert!(
        msg.contains("view_mut") && msg.contains("to_owned"),
        "{msg}"
    );
    assert_eq!(report.count(), 0, "nothing copied");
    assert_eq!(base.to_vec(), vec![0.0; 12]);
    // The first advice, run: write through the base.
    drop(col);
    base.view_mut()
        .unwrap()
        .narrow(1, 1, 1)
        .unwrap()
        .fill(7.0)
        .unwrap();
    assert_eq!(base.to_vec(), [0.0, 7.0, 0.0, 0.0].repeat(3));
    // The second, run: a private copy to write.
    let col = base.narrow(1, 1, 1).unwrap();
    let mut own = col.to_owned();
    assert!(!own.is_view() && !own.shares_storage(&base));
    own.fill(1.0).unwrap();
    assert_eq!(own.to_vec(), vec![1.0; 3]);
    assert_eq!(col.to_vec(), vec![7.0; 3]);
}

#[test]
fn the_assign_operator_on_a_transposed_view_panics_instead_of_doing_nothing() {
    let a = Tensor::from_vec((0..6).map(|x| x as f32).collect(), &[2, 3]).unwrap();
    let msg = panic_message(|| {
        let mut t = a.t().unwrap();
        t += 1.0;
    });
    assert!(msg.starts_with("add_assign: "), "{msg}");
    assert!(msg.contains("is a view"), "{msg}");
    assert_eq!(a.to_vec(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    // A clone is a value of its own: copy-on-write, as before.
    let mut c = a.clone();
    c += 1.0;
    assert_eq!(c.to_vec(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(a.get(&[0, 0]).unwrap(), 0.0);
    // A view whose base is gone holds its storage alone and is written in place.
    let mut t = a.t().unwrap();
    drop((a, c));
    t += 1.0;
    assert_eq!(t.to_vec(), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
}

#[test]
fn a_reshape_that_copies_gives_a_value_not_a_view() {
    let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    let r = a.t().unwrap().reshape(&[6]).unwrap(); // cannot be a view: copies
    assert!(!r.is_view() && !r.shares_storage(&a));
    let mut r2 = r.clone(); // a clone of a value copies on write
    r2.fill(0).unwrap();
    assert_eq!(r.to_vec(), vec![0, 3, 1, 4, 2, 5]);
    assert!(a.reshape(&[6]).unwrap().is_view()); // a view when one exists
}

#[test]
fn the_copy_on_write_advice_inside_forbid_implicit_copies_is_a_call_that_works() {
    let a = Tensor::<f32>::zeros(&[4]).unwrap();
    let mut x = a.clone();
    let err = audit::forbid_implicit_copies(|| {
        x = x.contiguous(); // already contiguous: the same storage, still shared
        x.fill(1.0)
    })
    .unwrap_err();
    assert!(matches!(
        err,
        Error::ImplicitCopy {
            reason: CopyReason::CopyOnWrite,
            ..
        }
    ));
    let msg = err.to_string();
    assert!(msg.contains(".to_owned()"), "{msg}");
    assert!(!msg.contains("contiguous() first"), "{msg}");
    // Run the advice in the same kind of scope.
    let (r, report) = audit::record(|| {
        audit::forbid_implicit_copies(|| {
            let mut y = x.to_owned();
            y.fill(1.0).map(|()| y)
        })
    });
    assert_eq!(r.unwrap().to_vec(), vec![1.0; 4]);
    assert_eq!(report.count(), 1);
    assert_eq!(report.events()[0].reason, CopyReason::ToOwned);
    assert_eq!(a.to_vec(), vec![0.0; 4]);
}

#[test]
fn shape_errors_name_the_op_the_user_called() {
    let a = Tensor::<f32>::zeros(&[2, 3]).unwrap();
    let b = Tensor::<f32>::zeros(&[4]).unwrap();
    let mask = Tensor::<u8>::zeros(&[4]).unwrap();
    let cases: Vec<(&str, Error)> = vec![
        ("add", (&a + &b).unwrap_err()),
        ("masked_fill", a.masked_fill(&mask, 1.0).unwrap_err()),
        ("masked_select", a.masked_select(&mask).unwrap_err()),
        ("where_cond", Tensor::where_cond(&mask, &a, &a).unwrap_err()),
        ("cmp_ge", a.cmp_ge(&b).unwrap_err()),
        ("pow", a.pow(&b).unwrap_err()),
    ];
    for (op, e) in cases {
        let msg = e.to_string();
        assert!(msg.starts_with(&format!("{op}: shapes [")), "{op}: {msg}");
        assert!(!msg.starts_with("broadcast"), "{msg}");
    }
}

#[test]
fn huge_views_name_save_and_cat_not_contiguous() {
    let big = Tensor::<f32>::zeros(&[1])
        .unwrap()
        .expand(&[1usize << 31, 1usize << 30])
        .unwrap();
    let cat = Tensor::cat(&[&big, &big], 0).unwrap_err().to_string();
    assert!(
        cat.starts_with("cat: shape [4294967296, 1073741824] overflows"),
        "{cat}"
    );
    let stack = Tensor::stack(&[&big], 0).unwrap_err().to_string();
    assert!(stack.starts_with("stack: "), "{stack}");
    let pad = big.pad(&[(0, 1), (0, 0)], 0.0).unwrap_err().to_string();
    assert!(pad.starts_with("pad: "), "{pad}");
    let owned = big.try_to_owned().unwrap_err().to_string();
    assert!(owned.starts_with("to_owned: "), "{owned}");
    // The panicking shorthand says the op once.
    let msg = panic_message(|| drop(big.contiguous()));
    assert!(msg.starts_with("contiguous: shape"), "{msg}");
    assert!(!msg.contains("contiguous: contiguous"), "{msg}");
}

#[test]
fn chunk_and_copy_into_say_what_was_wrong() {
    let a = Tensor::<f32>::zeros(&[2, 3]).unwrap();
    let chunk = a.chunk(0, 1).unwrap_err().to_string();
    assert!(
        chunk.starts_with("chunk: asked for 0 chunks of dim 1"),
        "{chunk}"
    );
    assert!(!chunk.contains("step"), "{chunk}");
    let mut dst = Tensor::<f32>::zeros(&[3]).unwrap();
    let copy = a.copy_into(&mut dst).unwrap_err().to_string();
    assert!(
        copy.contains("destination has shape [3]") && copy.contains("source"),
        "{copy}"
    );
    assert!(copy.contains("has shape [2, 3]"), "{copy}");
}

#[test]
fn assign_operators_name_the_op_once() {
    let msg = panic_message(|| {
        let mut x = Tensor::<f32>::zeros(&[2, 2]).unwrap();
        x += &Tensor::<f32>::zeros(&[3]).unwrap();
    });
    assert!(msg.starts_with("add_assign: source shape [3]"), "{msg}");
    assert!(!msg.contains("add_assign: add_assign"), "{msg}");
    let msg = panic_message(|| {
        let mut x = Tensor::<i32>::zeros(&[2]).unwrap();
        x /= 0;
    });
    assert!(
        msg.starts_with("div_assign: integer division by zero"),
        "{msg}"
    );
    assert!(!msg.contains("div_assign_scalar"), "{msg}");
}

#[test]
fn whole_tensor_reductions_of_a_huge_broadcast_view_cost_its_stored_elements() {
    // 2^62 elements: a walk over every one would take centuries.
    let stored = Tensor::from_vec(vec![1.0f32, 2.0, -3.0], &[3, 1, 1]).unwrap();
    let huge = stored.expand(&[3, 1usize << 31, 1usize << 29]).unwrap();
    let n = 1u64 << 60; // repeats of each stored element
    assert_eq!(huge.sum_all(), 0.0);
    assert_eq!(huge.max_all().unwrap(), 2.0);
    assert_eq!(huge.min_all().unwrap(), -3.0);
    assert_eq!(huge.mean_all(), 0.0);
    assert_eq!(huge.count_nonzero_all() as u64, 3 * n);
    assert!(huge.any_all() && huge.all_all());
    let ones = Tensor::<f64>::ones(&[1])
        .unwrap()
        .expand(&[1usize << 31, 1usize << 31])
        .unwrap();
    assert_eq!(ones.sum_all(), (1u64 << 62) as f64);
    assert_eq!(ones.prod_all(), 1.0);
    // Integers wrap as a plain sum would: 3 * 2^62 mod 2^64.
    let i = Tensor::from_vec(vec![3i64], &[1])
        .unwrap()
        .expand(&[1usize << 62])
        .unwrap();
    assert_eq!(i.sum_all(), 3i64.wrapping_mul(1 << 62));
    assert_eq!(
        Tensor::from_vec(vec![2u8], &[1])
            .unwrap()
            .expand(&[9])
            .unwrap()
            .prod_all(),
        0
    );
    assert_eq!(
        Tensor::from_vec(vec![3u8], &[1])
            .unwrap()
            .expand(&[5])
            .unwrap()
            .prod_all(),
        243
    );
    // == of two huge views compares the stored pairs once; a NaN still makes them unequal.
    let other = Tensor::from_vec(vec![1.0f32, 2.0, -3.0], &[3, 1, 1]).unwrap();
    assert!(huge == other.expand(&[3, 1usize << 31, 1usize << 29]).unwrap());
    let nan = Tensor::from_vec(vec![f32::NAN], &[1])
        .unwrap()
        .expand(&[1usize << 40])
        .unwrap();
    assert!(nan != nan.clone());
    // Small broadcast views agree with their materialised copies.
    let small = stored.expand(&[3, 4, 5]).unwrap();
    let dense = small.to_owned();
    assert_eq!(small.sum_all(), dense.sum_all());
    assert_eq!(small.count_nonzero_all(), dense.count_nonzero_all());
    assert!(small == dense);
}
