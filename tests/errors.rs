//! Every error path a user can reach, with the message checked for the operation, the
//! offending argument, the layout and (where one exists) the fix.

use stridex::{broadcast_shapes, Error, Layout, MemoryFormat, Storage, Tensor};

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
    says(a.slice(0, 0, 3, 0).unwrap_err(), &["slice", "step", "zero"]);
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
