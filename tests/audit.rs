//! The copy audit: each copying path reports exactly one event with its reason and the
//! caller's line, views report nothing, and the strict scope turns implicit copies into errors.

use proptest::prelude::*;
use stridex::audit::{self, CopyReason, CopyReport};
use stridex::{Error, MemoryFormat, Tensor};

fn m() -> Tensor<f32> {
    Tensor::from_vec((0..24).map(|i| i as f32).collect(), &[4, 6]).unwrap()
}

/// The single event of `report`, checked against the reason, bytes and source line.
fn one(report: &CopyReport, reason: CopyReason, bytes: usize, line: u32) {
    assert_eq!(report.count(), 1, "{report}");
    let e = &report.events()[0];
    assert_eq!(e.reason, reason, "{report}");
    assert_eq!(e.bytes, bytes);
    assert_eq!(report.bytes(), bytes);
    assert_eq!(e.location.line(), line, "{report}");
    assert!(
        e.location.file().ends_with("audit.rs"),
        "{}",
        e.location.file()
    );
}

#[test]
fn each_copying_path_reports_one_event_at_the_callers_line() {
    let a = m();
    let t = a.t().unwrap();

    let ((_, line), r) = audit::record(|| (t.contiguous(), line!()));
    one(&r, CopyReason::Contiguous, 96, line);
    assert_eq!(r.events()[0].src_strides, vec![1, 6]);
    assert_eq!(r.events()[0].dst_strides, vec![4, 1]);

    let ((_, line), r) = audit::record(|| (t.try_contiguous().unwrap(), line!()));
    one(&r, CopyReason::Contiguous, 96, line);

    let ((_, line), r) = audit::record(|| (t.reshape(&[24]).unwrap(), line!()));
    one(&r, CopyReason::ReshapeCopy, 96, line);

    let ((_, line), r) = audit::record(|| (t.to_vec(), line!()));
    one(&r, CopyReason::ToVec, 96, line);

    let mut buf = vec![0.0; 24];
    let ((_, line), r) = audit::record(|| (t.contiguous_into(&mut buf).unwrap(), line!()));
    one(&r, CopyReason::ContiguousInto, 96, line);

    let mut dst = Tensor::<f32>::zeros(&[6, 4]).unwrap();
    let ((_, line), r) = audit::record(|| (t.copy_into(&mut dst).unwrap(), line!()));
    one(&r, CopyReason::CopyInto, 96, line);

    let x = Tensor::<u8>::zeros(&[1, 2, 3, 4]).unwrap();
    let cl = MemoryFormat::ChannelsLast;
    let ((_, line), r) = audit::record(|| (x.contiguous_in(cl).unwrap(), line!()));
    one(&r, CopyReason::ContiguousIn, 24, line);

    let ((_, line), r) = audit::record(|| (Tensor::from_slice(&[1i64, 2], &[2]).unwrap(), line!()));
    one(&r, CopyReason::FromSlice, 16, line);
    // from_vec adopts the Vec's buffer: no copy.
    let (_, r) = audit::record(|| Tensor::from_vec(vec![1u16; 3], &[3]).unwrap());
    assert_eq!(r.count(), 0, "{r}");
}

#[test]
fn operations_that_do_not_copy_report_nothing() {
    let a = m();
    let (_, r) = audit::record(|| {
        let c = a.contiguous(); // already contiguous: shared, no copy
        let r = a.reshape(&[2, 12]).unwrap(); // a view
        let z = Tensor::<f32>::zeros(&[3]).unwrap(); // a fill, not a copy
        let g = a.get(&[1, 1]).unwrap();
        let s: f32 = a.t().unwrap().iter().sum();
        (c, r, z, g, s)
    });
    assert_eq!(r.count(), 0, "{r}");
    assert_eq!(r.to_string(), "0 copies, 0 B");
}

#[test]
fn strict_scope_turns_implicit_copies_into_errors() {
    let a = m();
    let (res, line) = audit::forbid_implicit_copies(|| (a.t().unwrap().reshape(&[24]), line!()));
    match res {
        Err(Error::ImplicitCopy {
            reason,
            bytes,
            location,
        }) => {
            assert_eq!(reason, CopyReason::ReshapeCopy);
            assert_eq!(bytes, 96);
            assert_eq!(location.line(), line);
        }
        other => panic!("expected ImplicitCopy, got {other:?}"),
    }
    // Explicit copies stay allowed and are recorded by an enclosing scope.
    let (res, report) = audit::record(|| {
        audit::forbid_implicit_copies(|| {
            let c = a.t()?.contiguous();
            let flat = c.reshape(&[24])?; // a view now
            assert!(a.t()?.reshape(&[24]).is_err());
            Ok::<_, Error>(flat.to_vec())
        })
    });
    assert_eq!(res.unwrap().len(), 24);
    let reasons: Vec<CopyReason> = report.events().iter().map(|e| e.reason).collect();
    assert_eq!(reasons, vec![CopyReason::Contiguous, CopyReason::ToVec]);
    // Outside the scope, reshape copies again.
    assert!(a.t().unwrap().reshape(&[24]).is_ok());
}

#[test]
fn scopes_nest_and_group_by_location() {
    let t = m().t().unwrap();
    let (inner, outer) = audit::record(|| {
        let (_, inner) = audit::record(|| {
            for _ in 0..3 {
                let _ = t.contiguous();
            }
        });
        t.to_vec();
        inner
    });
    assert_eq!(inner.count(), 3);
    assert_eq!(outer.count(), 4);
    let groups = outer.by_location();
    assert_eq!(groups.len(), 2);
    assert_eq!((groups[0].count, groups[0].bytes), (3, 288));
    assert_eq!((groups[1].count, groups[1].bytes), (1, 96));
    let text = outer.to_string();
    assert!(text.starts_with("4 copies, 384 B"), "{text}");
    assert!(
        text.contains("by location:") && text.contains("events:"),
        "{text}"
    );
}

#[test]
fn scopes_are_per_thread_and_survive_panics() {
    let t = m().t().unwrap();
    let (_, r) = audit::record(|| {
        std::thread::scope(|s| {
            s.spawn(|| t.contiguous()).join().unwrap();
        });
    });
    assert_eq!(
        r.count(),
        0,
        "another thread's copies are not in this scope"
    );
    // A large copy fans out to rayon workers but reports once, on the calling thread.
    let big = Tensor::<f32>::zeros(&[1024, 1024]).unwrap().t().unwrap();
    let (_, r) = audit::record(|| big.contiguous());
    assert_eq!(r.count(), 1);
    // A panic inside a scope leaves no scope behind.
    let caught = std::panic::catch_unwind(|| audit::forbid_implicit_copies(|| panic!("boom")));
    assert!(caught.is_err());
    assert!(m().t().unwrap().reshape(&[24]).is_ok());
}

#[test]
fn totals_count_every_copy_once_enabled() {
    audit::enable_totals();
    let before = audit::totals();
    let _ = m().t().unwrap().contiguous();
    let after = audit::totals();
    // Other tests may copy concurrently, so only lower bounds are exact.
    assert!(after.count > before.count); // contiguous() (m()'s from_vec adopts, no copy)
    assert!(after.bytes >= before.bytes + 96);
}

/// A random chain of view ops on a 3-dim tensor; `None` where an op fails.
fn apply(t: &Tensor<f32>, op: u8, a: usize, b: usize) -> Option<Tensor<f32>> {
    let n = t.ndim().max(1);
    match op % 10 {
        0 => t.transpose(a % n, b % n).ok(),
        1 => t.narrow(a % n, 0, b % 3).ok(),
        2 => {
            let step = if b % 2 == 0 { 2 } else { -1 };
            t.slice_step(a % n, (b as isize % 4 - 2)..isize::MAX, step)
                .ok()
        }
        3 => t.flip(a % n).ok(),
        4 => t.unsqueeze(a % (t.ndim() + 1)).ok(),
        5 => t.squeeze(a % n).ok(),
        6 => t.select(a % n, b % 2).ok(),
        7 => t.view(&[t.numel()]).ok(),
        8 => t.unfold(a % n, 1 + b % 2, 1 + a % 2).ok(),
        _ => t.permute(&(0..t.ndim()).rev().collect::<Vec<_>>()).ok(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256)
    ))]

    #[test]
    fn view_op_chains_never_copy(ops in proptest::collection::vec((any::<u8>(), 0usize..8, 0usize..8), 1..8)) {
        let base = Tensor::<f32>::zeros(&[3, 4, 5]).unwrap();
        let (last, report) = audit::record(|| {
            let mut t = base.clone();
            for &(op, a, b) in &ops {
                if let Some(next) = apply(&t, op, a, b) {
                    t = next;
                }
            }
            t
        });
        prop_assert_eq!(report.count(), 0);
        prop_assert!(last.shares_storage(&base));
    }
}
