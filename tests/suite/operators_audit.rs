//! The operators on an owned operand that holds its storage alone (Note [operand reuse]):
//! `a + &b`, `&b - a`, `a * 2.0`, `2.0 / a` and `-a` write the result into the operand's
//! buffer, so the copy audit records nothing and `data_ptr()` (and the storage) stay the
//! same, for a row-major operand, a transposed one (whose base was a temporary) and an empty
//! one; and since no operator ever copies on write, forbidding implicit copies changes
//! nothing.

use std::sync::Arc;

use stridex::{Storage, Tensor, audit};

/// An operand and how it was made.
struct Case {
    name: &'static str,
    make: fn() -> Tensor<f32>,
    /// The row `&b` of `a + &b` and `&b - a` (broadcast into the operand's shape).
    row: fn() -> Tensor<f32>,
}

fn cases() -> [Case; 3] {
    [
        Case {
            name: "row-major [2, 3]",
            // [[1, 2, 3], [4, 5, 6]]
            make: || Tensor::from_vec((1..=6).map(|v| v as f32).collect(), &[2, 3]).unwrap(),
            row: || Tensor::from_vec(vec![10.0f32, 20.0, 40.0], &[3]).unwrap(),
        },
        Case {
            name: "transposed [3, 2] (its base a temporary)",
            // [[1, 3, 5], [2, 4, 6]], strides [1, 2]
            make: || {
                Tensor::from_vec((1..=6).map(|v| v as f32).collect(), &[3, 2])
                    .unwrap()
                    .t()
                    .unwrap()
            },
            row: || Tensor::from_vec(vec![10.0f32, 20.0, 40.0], &[3]).unwrap(),
        },
        Case {
            name: "empty [0, 3]",
            make: || Tensor::<f32>::zeros(&[0, 3]).unwrap(),
            row: || Tensor::from_vec(vec![10.0f32, 20.0, 40.0], &[3]).unwrap(),
        },
    ]
}

/// The values `f` gives elementwise on the operand (with its row), computed here in plain
/// Rust from the operand's elements, so the operators are only ever compared with arithmetic.
fn expect(a: &Tensor<f32>, row: &Tensor<f32>, f: impl Fn(f32, f32) -> f32) -> Vec<f32> {
    let (xs, r) = (a.to_vec(), row.to_vec());
    let cols = *a.shape().last().unwrap();
    xs.iter()
        .enumerate()
        .map(|(k, &x)| f(x, r[k % cols]))
        .collect()
}

type Op = (
    &'static str,
    fn(Tensor<f32>, &Tensor<f32>) -> Tensor<f32>,
    fn(f32, f32) -> f32,
);

fn ops() -> [Op; 5] {
    [
        ("a + &b", |a, b| (a + b).unwrap(), |x, y| x + y),
        ("&b - a", |a, b| (b - a).unwrap(), |x, y| y - x),
        ("a * 2.0", |a, _| a * 2.0, |x, _| x * 2.0),
        ("2.0 / a", |a, _| 2.0 / a, |x, _| 2.0 / x),
        ("-a", |a, _| -a, |x, _| -x),
    ]
}

#[test]
fn owned_operands_held_alone_take_the_result_without_a_copy() {
    for case in cases() {
        for (sym, op, f) in ops() {
            let (a, row) = ((case.make)(), (case.row)());
            let what = format!("{sym} on {}", case.name);
            let want = expect(&a, &row, f);
            let (shape, strides) = (a.shape().to_vec(), a.strides().to_vec());
            let (ptr, storage) = (a.data_ptr(), Arc::as_ptr(a.storage()));
            let (r, report) = audit::record(|| op(a, &row));
            assert_eq!(report.count(), 0, "{what}: {report}");
            assert_eq!(r.data_ptr(), ptr, "{what}");
            assert!(
                std::ptr::eq::<Storage<f32>>(Arc::as_ptr(r.storage()), storage),
                "{what}: a new storage"
            );
            assert_eq!(
                (r.shape(), r.strides()),
                (&shape[..], &strides[..]),
                "{what}"
            );
            assert_eq!(r.to_vec(), want, "{what}");
            assert!(!r.is_view(), "{what}");
            // The result holds its storage alone, so it can take the next result too.
            let (again, report) = audit::record(|| r * 1.0);
            assert_eq!((again.data_ptr(), report.count()), (ptr, 0), "{what}");
        }
    }
}

#[test]
fn hand_worked_values_of_the_in_place_results() {
    // The transposed case: a = [[1, 3, 5], [2, 4, 6]] (strides [1, 2]), b = [10, 20, 40].
    let t = || {
        Tensor::from_vec((1..=6).map(|v| v as f32).collect(), &[3, 2])
            .unwrap()
            .t()
            .unwrap()
    };
    let b = Tensor::from_vec(vec![10.0f32, 20.0, 40.0], &[3]).unwrap();
    let r = (t() + &b).unwrap();
    assert_eq!(r.to_vec(), vec![11.0, 23.0, 45.0, 12.0, 24.0, 46.0]);
    let r = (&b - t()).unwrap();
    assert_eq!(r.to_vec(), vec![9.0, 17.0, 35.0, 8.0, 16.0, 34.0]);
    assert_eq!((t() * 2.0).to_vec(), vec![2.0, 6.0, 10.0, 4.0, 8.0, 12.0]);
    assert_eq!(
        (2.0 / t()).to_vec(),
        vec![2.0, 2.0 / 3.0, 0.4, 1.0, 0.5, 2.0 / 6.0]
    );
    assert_eq!((-t()).to_vec(), vec![-1.0, -3.0, -5.0, -2.0, -4.0, -6.0]);
    // The buffer of a transposed result keeps the operand's column-major order.
    let r = -t();
    assert_eq!(r.strides(), &[1, 2]);
    assert_eq!(
        r.contiguous().to_vec(),
        vec![-1.0, -3.0, -5.0, -2.0, -4.0, -6.0]
    );
    // Integers too: 6 / a truncates, written in place.
    let i = Tensor::from_vec(vec![1i32, 4, -5], &[3]).unwrap();
    let p = i.data_ptr();
    let (q, report) = audit::record(|| 6 / i);
    assert_eq!(
        (q.to_vec(), q.data_ptr(), report.count()),
        (vec![6, 1, -1], p, 0)
    );
}

#[test]
fn operators_succeed_where_implicit_copies_are_forbidden() {
    for case in cases() {
        for (sym, op, f) in ops() {
            let (a, row) = ((case.make)(), (case.row)());
            let what = format!("{sym} on {}", case.name);
            let want = expect(&a, &row, f);
            // Held alone: in place.
            let ptr = a.data_ptr();
            let r = audit::forbid_implicit_copies(|| op(a, &row));
            assert_eq!((r.data_ptr(), r.to_vec()), (ptr, want.clone()), "{what}");
            // Shared with another tensor: a fresh result, never a copy-on-write of the
            // shared buffer (which forbidding implicit copies would refuse).
            let a = (case.make)();
            let keep = a.clone();
            let before = keep.to_vec();
            let r = audit::forbid_implicit_copies(|| op(a, &row));
            assert_eq!(r.to_vec(), want, "{what} (shared)");
            assert_eq!(keep.to_vec(), before, "{what}: the other holder changed");
            if r.numel() > 0 {
                assert!(!r.shares_storage(&keep), "{what}");
            }
        }
    }
    // Borrowed operands and mixed types, inside the same guard.
    let a = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
    let f = Tensor::from_vec(vec![0.5f32], &[1]).unwrap();
    let r = audit::forbid_implicit_copies(|| -> stridex::Result<Tensor<f32>> {
        let s = (&a + &f)?;
        let d = (a.clone() / &f)?;
        s - d
    })
    .unwrap();
    assert_eq!(r.to_vec(), vec![-0.5, -1.5]);
}
