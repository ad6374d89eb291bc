//! Writes to an owned `Tensor`: the outcome (in place, copy-on-write, refused) depends only on
//! who holds the storage at the time of the write, never on which op made the tensor
//! (Note [writes to views] in `src/tensor_mut/owned.rs`). Every construction path crossed
//! with every kind of sharing, as one table.

use stridex::audit::{self, CopyReason};
use stridex::{Error, Tensor};

/// Who else holds the storage when the write happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sharing {
    /// Nobody: the base was dropped (or was a temporary) and there is no clone.
    Alone,
    /// Only a clone of the written tensor (a snapshot), the base dropped.
    CloneAlive,
    /// The tensor it was made from.
    BaseAlive,
    /// A clone of the base, the base itself dropped: a value sharing the storage.
    BaseCloneAlive,
    /// Another view of the same base, the base dropped.
    SiblingAlive,
}

const SHARINGS: [Sharing; 5] = [
    Sharing::Alone,
    Sharing::CloneAlive,
    Sharing::BaseAlive,
    Sharing::BaseCloneAlive,
    Sharing::SiblingAlive,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    InPlace,
    CopyOnWrite,
    Refused,
}

/// A construction path: from the base `[3, 4]` tensor `0, 1, .., 11`, the tensor written.
struct Path {
    name: &'static str,
    make: fn(&Tensor<f32>) -> Tensor<f32>,
    /// Whether `make` is a view op (shares the base's storage).
    view: bool,
}

fn paths() -> Vec<Path> {
    fn path(name: &'static str, view: bool, make: fn(&Tensor<f32>) -> Tensor<f32>) -> Path {
        Path { name, make, view }
    }
    vec![
        path("narrow", true, |b| b.narrow(1, 1, 2).unwrap()),
        path("t", true, |b| b.t().unwrap()),
        path("transpose", true, |b| b.transpose(-1, -2).unwrap()),
        path("permute", true, |b| b.permute(&[1, 0]).unwrap()),
        path("select", true, |b| b.select(0, 1).unwrap()),
        path("slice_step", true, |b| b.slice_step(1, 0..4, 2).unwrap()),
        path("flip", true, |b| b.flip(0).unwrap()),
        path("unsqueeze", true, |b| b.unsqueeze(0).unwrap()),
        path("squeeze", true, |b| {
            b.unsqueeze(0).unwrap().squeeze(0).unwrap()
        }),
        path("view", true, |b| b.view(&[2, 6]).unwrap()),
        path("reshape (a view)", true, |b| b.reshape(&[12]).unwrap()),
        path("diagonal", true, |b| b.diagonal().unwrap()),
        path("as_strided", true, |b| {
            b.as_strided(&[2, 2], &[4, 1], 1).unwrap()
        }),
        path("split", true, |b| b.split(2, 1).unwrap().remove(0)),
        path("chunk", true, |b| b.chunk(3, 0).unwrap().remove(1)),
        path("unbind", true, |b| b.unbind(0).unwrap().remove(2)),
        path("as_view().to_tensor()", true, |b| {
            b.as_view().t().unwrap().to_tensor()
        }),
        path("clone of a view", true, |b| {
            b.narrow(0, 0, 2).unwrap().clone()
        }),
        path("reshape (a copy)", false, |b| {
            b.t().unwrap().reshape(&[12]).unwrap()
        }),
        path("an op's result", false, |b| b.add(b).unwrap()),
        path("to_owned", false, |b| b.t().unwrap().to_owned()),
        path("contiguous of a view (a copy)", false, |b| {
            b.t().unwrap().contiguous()
        }),
        path("clone of a value", false, |b| b.clone()),
    ]
}

/// The rule: anyone but the written tensor's own clones holding the storage refuses a write to
/// a view; otherwise a shared storage is copied, a storage held alone written in place.
fn expected(path: &Path, sharing: Sharing) -> Outcome {
    match sharing {
        Sharing::Alone => Outcome::InPlace,
        Sharing::CloneAlive => Outcome::CopyOnWrite,
        // A copy or a clone of a value: the base is just another value.
        _ if !path.view => {
            if path.name == "clone of a value" {
                Outcome::CopyOnWrite
            } else {
                Outcome::InPlace
            }
        }
        Sharing::BaseAlive | Sharing::BaseCloneAlive | Sharing::SiblingAlive => Outcome::Refused,
    }
}

fn base() -> Tensor<f32> {
    Tensor::from_vec((0..12).map(|i| i as f32).collect(), &[3, 4]).unwrap()
}

/// Makes the tensor by `path` under `sharing`, writes `+= 100` through `add_assign`, and says
/// what happened, checking that no other tensor saw the write.
fn run(path: &Path, sharing: Sharing) -> Outcome {
    let what = format!("{} / {sharing:?}", path.name);
    let base = base();
    let mut t = (path.make)(&base);
    let before = t.to_vec();
    let sibling = (sharing == Sharing::SiblingAlive).then(|| base.narrow(0, 2, 1).unwrap());
    let base_clone = (sharing == Sharing::BaseCloneAlive).then(|| base.clone());
    let snapshot = (sharing == Sharing::CloneAlive).then(|| t.clone());
    let base = (sharing == Sharing::BaseAlive).then_some(base);
    let others: Vec<(Tensor<f32>, Vec<f32>)> = [base, base_clone, sibling, snapshot]
        .into_iter()
        .flatten()
        .map(|o| {
            let v = o.to_vec();
            (o, v)
        })
        .collect();
    let ptr = t.data_ptr();
    let hundred = Tensor::full(&[], 100.0f32).unwrap();
    let (r, report) = audit::record(|| t.add_assign(&hundred));
    for (o, v) in &others {
        assert_eq!(&o.to_vec(), v, "{what}: another tensor saw the write");
    }
    let outcome = match r {
        Err(Error::WriteToSharedView { op, .. }) => {
            assert_eq!(op, "add_assign", "{what}");
            assert_eq!(report.count(), 0, "{what}: copied before refusing");
            assert_eq!(t.to_vec(), before, "{what}");
            return Outcome::Refused;
        }
        Err(e) => panic!("{what}: {e}"),
        Ok(()) if report.count() == 0 => {
            assert_eq!(t.data_ptr(), ptr, "{what}: no copy, yet moved");
            Outcome::InPlace
        }
        Ok(()) => {
            assert_eq!(report.count(), 1, "{what}");
            assert_eq!(report.events()[0].reason, CopyReason::CopyOnWrite, "{what}");
            assert!(!t.is_view(), "{what}: a copy is a value of its own");
            Outcome::CopyOnWrite
        }
    };
    let want: Vec<f32> = before.iter().map(|v| v + 100.0).collect();
    assert_eq!(t.to_vec(), want, "{what}");
    outcome
}

#[test]
fn the_outcome_of_a_write_depends_only_on_who_holds_the_storage() {
    let mut wrong = Vec::new();
    for path in paths() {
        assert_eq!((path.make)(&base()).is_view(), path.view, "{}", path.name);
        for sharing in SHARINGS {
            let (got, want) = (run(&path, sharing), expected(&path, sharing));
            if got != want {
                wrong.push(format!(
                    "{} / {sharing:?}: {got:?}, expected {want:?}",
                    path.name
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A view of a view: while the middle tensor (the write's base) is alive, refused even though
/// the first base is gone; once it is dropped too, a value.
#[test]
fn a_view_of_a_view_is_refused_while_its_own_base_lives() {
    let mid = base().view(&[2, 6]).unwrap();
    let mut col = mid.narrow(1, 0, 1).unwrap();
    assert!(matches!(
        col.fill(1.0),
        Err(Error::WriteToSharedView { holders: 2, .. })
    ));
    let snapshot = col.clone();
    drop(mid);
    col.fill(1.0).unwrap();
    assert_eq!(col.to_vec(), vec![1.0, 1.0]);
    assert_eq!(snapshot.to_vec(), vec![0.0, 6.0]);
}

/// The issue's two examples, exactly: a snapshot clone of a view whose base was a temporary.
#[test]
fn a_snapshot_of_a_view_whose_base_is_gone_copies_on_write() -> Result<(), Error> {
    let mut img = Tensor::arange(0.0f32, 12.0, 1.0)?.view(&[3, 4])?;
    let snapshot = img.clone();
    img += 1.0;
    assert_eq!(img.to_vec(), (1..13).map(|i| i as f32).collect::<Vec<_>>());
    assert_eq!(
        snapshot.to_vec(),
        (0..12).map(|i| i as f32).collect::<Vec<_>>()
    );

    let mut w = Tensor::from_vec(vec![1.0f32; 6], &[6])?.view(&[2, 3])?;
    let w_old = w.clone();
    w -= &(&Tensor::<f32>::ones(&[2, 3])? * 0.1);
    assert_eq!(w.to_vec(), vec![0.9; 6]);
    assert_eq!(w_old.to_vec(), vec![1.0; 6]);
    Ok(())
}

/// The issue's stride dependence: `reshape(&[12])` is a view of a contiguous tensor and a copy
/// of its transpose; with a clone alive, both now copy on write.
#[test]
fn reshape_as_a_view_or_a_copy_writes_the_same() -> Result<(), Error> {
    let a = Tensor::arange(0.0f32, 12.0, 1.0)?.view(&[3, 4])?;
    let mut copied = a.t()?.reshape(&[12])?;
    let mut viewed = a.reshape(&[12])?;
    drop(a);
    assert!(!copied.is_view() && viewed.is_view());
    let (c1, c2) = (copied.clone(), viewed.clone());
    copied.fill(0.0)?;
    viewed.fill(0.0)?;
    assert_eq!(copied.to_vec(), viewed.to_vec());
    assert_eq!(c2.to_vec(), (0..12).map(|i| i as f32).collect::<Vec<_>>());
    assert_eq!(c1.get(&[1])?, 4.0);
    Ok(())
}

/// A loaded `.npy` file is a value: in place alone, copy-on-write with a clone alive; a view
/// of it follows the view rule.
#[cfg(feature = "npy")]
#[test]
fn loaded_files_follow_the_same_rule() -> Result<(), Error> {
    let mut bytes = Vec::new();
    stridex::interop::write_npy(&mut bytes, &base())?;
    let load = || {
        stridex::interop::read_npy(&bytes[..])
            .unwrap()
            .into_tensor::<f32>()
            .unwrap()
    };
    let mut alone = load();
    let at = alone.data_ptr();
    alone.fill(1.0)?;
    assert_eq!(alone.data_ptr(), at);
    let mut loaded = load();
    let snapshot = loaded.clone();
    loaded.fill(1.0)?;
    assert_eq!(snapshot.get(&[2, 3])?, 11.0);
    let file = load();
    let mut col = file.narrow(1, 0, 1)?;
    assert!(col.fill(1.0).is_err());
    drop(file);
    let snapshot = col.clone();
    col.fill(1.0)?;
    assert_eq!(snapshot.to_vec(), vec![0.0, 4.0, 8.0]);
    Ok(())
}

/// Memory-mapped (foreign) bytes are never written: a view of them copies on write even when
/// it holds them alone, and is refused while the loaded tensor lives.
#[cfg(feature = "safetensors")]
#[test]
fn foreign_bytes_copy_on_write_when_alone() -> Result<(), Error> {
    use std::sync::Arc;
    // The header padded with spaces so that the data starts 128 bytes in: aligned, so the
    // tensor reads the bytes in place (foreign, not writable) instead of copying them.
    let mut header = br#"{"x":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}"#.to_vec();
    header.resize(120, b' ');
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(&header);
    for v in [1.0f32, 2.0, 3.0, 4.0] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let file = stridex::interop::SafeTensorsFile::from_bytes(Arc::new(bytes))?;
    let x = file.tensor::<f32>("x")?;
    // f32 data 128 bytes into a Vec (whose allocator aligns it to at least 8): read in place.
    assert!(!x.storage().is_writable(), "read in place, not copied");
    let mut t = x.t()?;
    assert!(matches!(t.fill(0.0), Err(Error::WriteToSharedView { .. })));
    drop((x, file));
    let (r, report) = audit::record(|| t.fill(0.0));
    r?;
    // Whether the file's own handle still holds the bytes or not, the write copies.
    assert_eq!(report.count(), 1);
    assert_eq!(t.to_vec(), vec![0.0; 4]);
    Ok(())
}
