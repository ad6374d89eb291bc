//! The view and shape vocabulary of PyTorch and NumPy: `movedim`, `swapaxes`, `unflatten`,
//! `sliding_window_view`, `broadcast_to` / `expand_as` / `broadcast_tensors`, `expand` with
//! `-1`, `narrow` with a negative start, `flip_dims`, `squeeze_all` / `squeeze_dims`, `mt`,
//! `reversed_dims`, `ravel`, `s![Ellipsis, ..]`, `split_with_sizes`, `tensor_split`, `rot90`,
//! `fliplr` / `flipud`, `atleast_*d`, column-major reshapes, the copy policy and the copies
//! into a chosen memory order.
//!
//! Expected values are written out by hand (from what NumPy / PyTorch print for the same
//! calls). Every view op is checked to share the storage and to record no copy in the audit;
//! every op's errors are checked by variant.

use stridex::MemoryFormat::ChannelsLast;
use stridex::audit::{self, CopyReason};
use stridex::{CopyPolicy, Ellipsis, Error, NewAxis, Tensor, broadcast_shapes_all, s};

/// `0..n` as an `i32` tensor of `shape` (row-major values: each element names its position).
fn arange(shape: &[usize]) -> Tensor<i32> {
    let n: usize = shape.iter().product();
    Tensor::arange(0i32, n as i32, 1)
        .unwrap()
        .view(shape)
        .unwrap()
}

/// Runs a view op on `base` under the copy audit: asserts that it shares the storage and
/// copied nothing, and returns the result's shape and row-major values.
fn viewed(
    base: &Tensor<i32>,
    op: impl FnOnce(&Tensor<i32>) -> stridex::Result<Tensor<i32>>,
) -> (Vec<usize>, Vec<i32>) {
    let (r, report) = audit::record(|| op(base));
    let r = r.unwrap();
    assert_eq!(report.count(), 0, "a view op copied: {:?}", report.events());
    assert!(r.shares_storage(base) || r.numel() == 0);
    (r.shape().to_vec(), r.to_vec())
}

#[test]
fn zero_dim_tensors_flip_and_unfold_as_pytorch() {
    let s = Tensor::from_vec(vec![5i32], &[]).unwrap();
    for dim in [0i32, -1] {
        assert_eq!(viewed(&s, |t| t.flip(dim)), (vec![], vec![5]));
        assert_eq!(viewed(&s, |t| t.flip_dims(&[dim])), (vec![], vec![5]));
    }
    assert_eq!(viewed(&s, |t| t.unfold(0, 1, 1)), (vec![1], vec![5]));
    assert_eq!(viewed(&s, |t| t.unfold(-1, 1, 3)), (vec![1], vec![5]));
    assert_eq!(viewed(&s, |t| t.unfold(0, 0, 1)), (vec![0], vec![]));
    assert!(matches!(s.flip(1), Err(Error::DimOutOfRange { .. })));
    assert!(matches!(
        s.flip(-2),
        Err(Error::NegativeDimOutOfRange { .. })
    ));
    assert!(matches!(
        s.unfold(0, 2, 1),
        Err(Error::WindowTooLarge {
            size: 2,
            dim_size: 1,
            ..
        })
    ));
    assert!(matches!(s.unfold(0, 1, 0), Err(Error::ZeroStep { .. })));
    assert!(matches!(
        s.unfold(1, 1, 1),
        Err(Error::DimOutOfRange { .. })
    ));
    assert!(matches!(
        s.flip_dims(&[0, -1]),
        Err(Error::RepeatedDim { .. })
    ));
    // The other 0-dim cases of the new ops.
    assert_eq!(viewed(&s, |t| Ok(t.reversed_dims())), (vec![], vec![5]));
    assert_eq!(viewed(&s, |t| Ok(t.atleast_2d())), (vec![1, 1], vec![5]));
    assert_eq!(viewed(&s, |t| t.ravel()), (vec![1], vec![5]));
    assert!(matches!(s.mt(), Err(Error::RankMismatch { op: "mt", .. })));
    assert!(matches!(s.flipud(), Err(Error::RankMismatch { .. })));
}

#[test]
fn dim_moves() {
    let a = arange(&[2, 3, 4]);
    // np.moveaxis(np.arange(24).reshape(2, 3, 4), 0, -1): element [i, j, k] is 12k + 4i + j.
    let (shape, v) = viewed(&a, |t| t.movedim(0, -1));
    assert_eq!(shape, vec![3, 4, 2]);
    assert_eq!(&v[..4], &[0, 12, 1, 13]);
    assert_eq!(
        viewed(&a, |t| t.movedims(&[2, 0], &[0, 1])).0,
        vec![4, 2, 3]
    );
    assert_eq!(viewed(&a, |t| t.swapaxes(0, 2)).0, vec![4, 3, 2]);
    assert_eq!(viewed(&a, |t| t.swapdims(-1, 1)).0, vec![2, 4, 3]);
    let m = arange(&[2, 2, 3]);
    let (shape, v) = viewed(&m, |t| t.mt());
    assert_eq!(shape, vec![2, 3, 2]);
    assert_eq!(v, vec![0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11]);
    let (shape, v) = viewed(&arange(&[2, 3]), |t| Ok(t.reversed_dims()));
    assert_eq!((shape, v), (vec![3, 2], vec![0, 3, 1, 4, 2, 5]));
    assert_eq!(viewed(&a, |t| Ok(t.reversed_dims())).0, vec![4, 3, 2]);

    assert!(matches!(a.movedim(0, 3), Err(Error::DimOutOfRange { .. })));
    assert!(matches!(
        a.movedim(-4, 0),
        Err(Error::NegativeDimOutOfRange { .. })
    ));
    assert!(matches!(
        a.movedims(&[0, -3], &[1, 2]),
        Err(Error::RepeatedDim { op: "movedims", .. })
    ));
    assert!(matches!(
        a.movedims(&[0, 1], &[1, 1]),
        Err(Error::RepeatedDim { .. })
    ));
    assert!(matches!(
        a.movedims(&[0, 1], &[1]),
        Err(Error::InvalidArgument { op: "movedims", .. })
    ));
    assert!(matches!(
        arange(&[4]).mt(),
        Err(Error::RankMismatch {
            op: "mt",
            got: 1,
            ..
        })
    ));
}

#[test]
fn shape_changes_that_keep_strides() {
    let a = arange(&[2, 6]);
    let (shape, v) = viewed(&a, |t| t.unflatten(1, &[3, -1]));
    assert_eq!(shape, vec![2, 3, 2]);
    assert_eq!(v, a.to_vec());
    // Unflattening a transposed dim keeps its stride inside.
    let (shape, v) = viewed(&a, |t| t.t()?.unflatten(0, &[2, 3]));
    assert_eq!(shape, vec![2, 3, 2]);
    assert_eq!(v, vec![0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11]);
    assert!(matches!(
        a.unflatten(1, &[4, -1]),
        Err(Error::InvalidArgument {
            op: "unflatten",
            ..
        })
    ));
    assert!(matches!(
        a.unflatten(1, &[4usize, 2]),
        Err(Error::NumelMismatch {
            op: "unflatten",
            ..
        })
    ));
    assert!(matches!(
        a.unflatten(2, &[1]),
        Err(Error::DimOutOfRange { .. })
    ));

    let u = arange(&[1, 3, 1, 2]);
    assert_eq!(viewed(&u, |t| Ok(t.squeeze_all())).0, vec![3, 2]);
    assert_eq!(viewed(&u, |t| t.squeeze_dims(&[0, -2])).0, vec![3, 2]);
    assert_eq!(viewed(&u, |t| t.squeeze_dims(&[2])).0, vec![1, 3, 2]);
    assert!(matches!(
        u.squeeze_dims(&[1]),
        Err(Error::SqueezeNonUnit { dim: 1, .. })
    ));
    assert!(matches!(
        u.squeeze_dims(&[0, -4]),
        Err(Error::RepeatedDim { .. })
    ));
    assert!(matches!(
        u.squeeze_dims(&[4]),
        Err(Error::DimOutOfRange { .. })
    ));

    let v3 = arange(&[3]);
    assert_eq!(viewed(&v3, |t| Ok(t.atleast_1d())).0, vec![3]);
    assert_eq!(viewed(&v3, |t| Ok(t.atleast_2d())).0, vec![1, 3]);
    assert_eq!(viewed(&v3, |t| Ok(t.atleast_3d())).0, vec![1, 3, 1]);
    assert_eq!(viewed(&a, |t| Ok(t.atleast_3d())).0, vec![2, 6, 1]);
    assert_eq!(viewed(&u, |t| Ok(t.atleast_3d())).0, vec![1, 3, 1, 2]);
}

#[test]
fn flips_and_rotations() {
    let a = arange(&[2, 3]);
    assert_eq!(
        viewed(&a, |t| t.flip_dims(&[0, 1])),
        (vec![2, 3], vec![5, 4, 3, 2, 1, 0])
    );
    assert_eq!(viewed(&a, |t| t.fliplr()).1, vec![2, 1, 0, 5, 4, 3]);
    assert_eq!(viewed(&a, |t| t.flipud()).1, vec![3, 4, 5, 0, 1, 2]);
    // np.rot90(np.arange(6).reshape(2, 3), k) for k = 1, 2, 3, -1.
    assert_eq!(
        viewed(&a, |t| t.rot90(1, [0, 1])),
        (vec![3, 2], vec![2, 5, 1, 4, 0, 3])
    );
    assert_eq!(
        viewed(&a, |t| t.rot90(2, [0, 1])),
        (vec![2, 3], vec![5, 4, 3, 2, 1, 0])
    );
    assert_eq!(
        viewed(&a, |t| t.rot90(3, [0, 1])),
        (vec![3, 2], vec![3, 0, 4, 1, 5, 2])
    );
    assert_eq!(
        viewed(&a, |t| t.rot90(-1, [0, 1])),
        viewed(&a, |t| t.rot90(3, [0, 1]))
    );
    assert_eq!(viewed(&a, |t| t.rot90(4, [1, 0])).1, a.to_vec());
    assert!(matches!(
        a.flip_dims(&[1, -1]),
        Err(Error::RepeatedDim {
            op: "flip_dims",
            ..
        })
    ));
    assert!(matches!(
        a.flip_dims(&[2]),
        Err(Error::DimOutOfRange { .. })
    ));
    assert!(matches!(
        a.rot90(1, [0, -2]),
        Err(Error::DuplicateDim { op: "rot90", .. })
    ));
    assert!(matches!(
        a.rot90(1, [0, 2]),
        Err(Error::DimOutOfRange { .. })
    ));
    assert!(matches!(
        arange(&[3]).fliplr(),
        Err(Error::RankMismatch { op: "fliplr", .. })
    ));
}

#[test]
fn windows_and_broadcasts() {
    let a = arange(&[3, 4]);
    // np.lib.stride_tricks.sliding_window_view(np.arange(12).reshape(3, 4), (2, 2))[1, 2]
    // is [[6, 7], [10, 11]].
    let (shape, v) = viewed(&a, |t| t.sliding_window_view(&[2, 2], &[0, 1])?.i((1, 2)));
    assert_eq!((shape, v), (vec![2, 2], vec![6, 7, 10, 11]));
    assert_eq!(
        viewed(&a, |t| t.sliding_window_view(&[3], &[-1])).0,
        vec![3, 2, 3]
    );
    assert!(matches!(
        a.sliding_window_view(&[4], &[0]),
        Err(Error::WindowTooLarge { .. })
    ));
    assert!(matches!(
        a.sliding_window_view(&[2, 2], &[0]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        a.sliding_window_view(&[2], &[2]),
        Err(Error::DimOutOfRange { .. })
    ));

    let row = arange(&[1, 3]);
    assert_eq!(
        viewed(&row, |t| t.broadcast_to(&[2, 3])),
        (vec![2, 3], vec![0, 1, 2, 0, 1, 2])
    );
    assert_eq!(
        viewed(&row, |t| t.expand(&[2, -1])),
        (vec![2, 3], vec![0, 1, 2, 0, 1, 2])
    );
    assert_eq!(viewed(&row, |t| t.expand(&[2, -1, -1])).0, vec![2, 1, 3]);
    let other = Tensor::<f64>::zeros(&[4, 3]).unwrap();
    assert_eq!(viewed(&row, |t| t.expand_as(&other)).0, vec![4, 3]);
    assert!(matches!(
        row.expand(&[-1, 1, 3]),
        Err(Error::InvalidArgument { op: "expand", .. })
    ));
    assert!(matches!(
        row.expand(&[2, -2]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        row.broadcast_to(&[2, 4]),
        Err(Error::ExpandMismatch { .. })
    ));
    assert!(matches!(
        row.expand_as(&Tensor::<u8>::zeros(&[3]).unwrap()),
        Err(Error::RankMismatch { .. })
    ));

    let col = arange(&[2, 1]);
    let (outs, report) = audit::record(|| Tensor::broadcast_tensors([&row, &col, &arange(&[3])]));
    let outs = outs.unwrap();
    assert_eq!(report.count(), 0);
    assert_eq!(outs.len(), 3);
    assert!(outs.iter().all(|t| t.shape() == [2, 3]));
    assert_eq!(outs[1].to_vec(), vec![0, 0, 0, 1, 1, 1]);
    assert!(outs[0].shares_storage(&row) && outs[1].shares_storage(&col));
    assert!(
        Tensor::<i32>::broadcast_tensors(Vec::<Tensor<i32>>::new())
            .unwrap()
            .is_empty()
    );
    assert!(matches!(
        Tensor::broadcast_tensors([&row, &arange(&[2])]),
        Err(Error::BroadcastMismatch {
            op: "broadcast_tensors",
            ..
        })
    ));
    assert_eq!(
        broadcast_shapes_all([&[2, 1][..], &[3], &[4, 1, 1]]).unwrap(),
        vec![4, 2, 3]
    );
}

#[test]
fn narrow_with_a_negative_start() {
    let a = arange(&[2, 5]);
    assert_eq!(viewed(&a, |t| t.narrow(1, -2, 2)).1, vec![3, 4, 8, 9]);
    assert_eq!(viewed(&a, |t| t.narrow(-1, -5, 1)).1, vec![0, 5]);
    assert_eq!(viewed(&a, |t| t.narrow(0, -1, 0)).0, vec![0, 5]);
    let err = a.narrow(1, -6, 1).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { op: "narrow", .. }));
    let msg = err.to_string();
    assert!(msg.contains("-6") && msg.contains("-5"), "{msg}");
    assert!(matches!(
        a.narrow(1, -2, 3),
        Err(Error::RangeOutOfBounds { .. })
    ));
    assert!(matches!(
        a.narrow(2, -1, 1),
        Err(Error::DimOutOfRange { dim: 2, .. })
    ));
}

#[test]
fn ellipsis_in_an_index() {
    let a = arange(&[2, 3, 4]);
    // x[..., :2], x[..., 1], x[0, ..., None], x[1, ..., 2, 3] (the ellipsis stands for no dim).
    let (shape, v) = viewed(&a, |t| t.i(s![Ellipsis, ..2]));
    assert_eq!(shape, vec![2, 3, 2]);
    assert_eq!(&v[..4], &[0, 1, 4, 5]);
    assert_eq!(
        viewed(&a, |t| t.i(s![Ellipsis, 1])).1,
        vec![1, 5, 9, 13, 17, 21]
    );
    assert_eq!(viewed(&a, |t| t.i((0, Ellipsis, NewAxis))).0, vec![3, 4, 1]);
    assert_eq!(
        viewed(&a, |t| t.i(s![1, Ellipsis, 2, 3])),
        (vec![], vec![23])
    );
    assert_eq!(viewed(&a, |t| t.i(s![Ellipsis])).0, vec![2, 3, 4]);
    assert_eq!(
        viewed(&a, |t| t.i(s![NewAxis, Ellipsis, NewAxis, ..;-1])),
        viewed(&a, |t| t.i(s![NewAxis, .., .., NewAxis, ..;-1]))
    );
    let err = a.i(s![Ellipsis, 0, Ellipsis]).unwrap_err();
    assert!(matches!(&err, Error::IndexItem { item: 2, .. }), "{err:?}");
    assert!(matches!(
        a.i(s![0, Ellipsis, 0, 0, 0]),
        Err(Error::IndexItem { .. })
    ));
}

#[test]
fn splits() {
    let a = arange(&[7]);
    let (parts, report) = audit::record(|| a.tensor_split(3, 0));
    let parts = parts.unwrap();
    assert_eq!(report.count(), 0);
    let got: Vec<Vec<i32>> = parts.iter().map(Tensor::to_vec).collect();
    assert_eq!(got, vec![vec![0, 1, 2], vec![3, 4], vec![5, 6]]);
    assert!(parts.iter().all(|p| p.shares_storage(&a)));
    let got: Vec<Vec<i32>> = a
        .tensor_split_indices(&[2, 5, 9], -1)
        .unwrap()
        .iter()
        .map(Tensor::to_vec)
        .collect();
    assert_eq!(got, vec![vec![0, 1], vec![2, 3, 4], vec![5, 6], vec![]]);
    let got: Vec<Vec<i32>> = a
        .split_with_sizes(&[3, 0, 4], 0)
        .unwrap()
        .iter()
        .map(Tensor::to_vec)
        .collect();
    assert_eq!(got, vec![vec![0, 1, 2], vec![], vec![3, 4, 5, 6]]);
    assert!(matches!(
        a.split_with_sizes(&[3, 3], 0),
        Err(Error::InvalidArgument {
            op: "split_with_sizes",
            ..
        })
    ));
    assert!(matches!(a.tensor_split(0, 0), Err(Error::ZeroStep { .. })));
    assert!(matches!(
        a.tensor_split(2, 1),
        Err(Error::DimOutOfRange { .. })
    ));
    assert_eq!(a.tensor_split(9, 0).unwrap().len(), 9);
}

#[test]
fn mutable_views_take_the_ops_that_cannot_overlap() {
    // Writes through rotated, moved and unflattened views land where the view says.
    let mut x = Tensor::<i32>::zeros(&[2, 3]).unwrap();
    x.view_mut()
        .unwrap()
        .rot90(1, [0, 1])
        .unwrap()
        .select(0, 0)
        .unwrap()
        .fill(7)
        .unwrap();
    // The first row of rot90 is the last column.
    assert_eq!(x.to_vec(), vec![0, 0, 7, 0, 0, 7]);
    let mut y = Tensor::<i32>::zeros(&[6]).unwrap();
    let v = y.view_mut().unwrap().unflatten(0, &[2, 3]).unwrap();
    v.movedim(0, 1)
        .unwrap()
        .select(0, 2)
        .unwrap()
        .fill(1)
        .unwrap();
    assert_eq!(y.to_vec(), vec![0, 0, 1, 0, 0, 1]);
    // A borrowed read-only view gives the owned tensor's layouts.
    let a = arange(&[2, 3, 4]);
    let v = a.as_view().sliding_window_view(&[2], &[2]).unwrap();
    assert_eq!(
        v.layout(),
        a.sliding_window_view(&[2], &[2]).unwrap().layout()
    );
    assert_eq!(
        a.as_view().i(s![Ellipsis, 0]).unwrap().layout(),
        a.i(s![.., .., 0]).unwrap().layout()
    );
}

#[test]
fn reshape_with_a_copy_policy() {
    let a = arange(&[2, 3]);
    let t = a.t().unwrap();
    let (r, report) = audit::record(|| t.reshape_with(&[6], CopyPolicy::IfNeeded));
    let r = r.unwrap();
    assert!(r.copied && !r.tensor.shares_storage(&a));
    assert_eq!(r.tensor.to_vec(), vec![0, 3, 1, 4, 2, 5]);
    assert_eq!(report.events()[0].reason, CopyReason::ReshapeCopy);
    let (r, report) = audit::record(|| a.reshape_with(&[3, 2], CopyPolicy::IfNeeded));
    let r = r.unwrap();
    assert!(!r.copied && r.tensor.shares_storage(&a) && report.count() == 0);
    let (r, report) = audit::record(|| a.reshape_with(&[3, -1], CopyPolicy::Always));
    let r = r.unwrap();
    assert!(r.copied && !r.tensor.shares_storage(&a));
    assert_eq!(
        (r.tensor.shape(), r.tensor.to_vec()),
        (&[3, 2][..], a.to_vec())
    );
    assert_eq!(report.events()[0].reason, CopyReason::ToOwned);
    assert_eq!(
        t.reshape_with(&[6], CopyPolicy::Never).unwrap_err(),
        t.view(&[6]).unwrap_err()
    );
    assert!(matches!(
        a.reshape_with(&[4], CopyPolicy::Always),
        Err(Error::NumelMismatch {
            op: "reshape_with",
            ..
        })
    ));
    // Inside a forbidding scope only the implicit copy is refused.
    let refused = audit::forbid_implicit_copies(|| t.reshape_with(&[6], CopyPolicy::IfNeeded));
    assert!(matches!(refused, Err(Error::ImplicitCopy { .. })));
    assert!(audit::forbid_implicit_copies(|| t.reshape_with(&[6], CopyPolicy::Always)).is_ok());

    assert!(!a.contiguous_with(CopyPolicy::Never).unwrap().copied);
    assert!(matches!(
        t.contiguous_with(CopyPolicy::Never),
        Err(Error::InvalidArgument {
            op: "contiguous_with",
            ..
        })
    ));
    let c = t.contiguous_with(CopyPolicy::IfNeeded).unwrap();
    assert!(c.copied && c.tensor.is_contiguous());
    let c = a.contiguous_with(CopyPolicy::Always).unwrap();
    assert!(c.copied && !c.tensor.shares_storage(&a));

    // The same answers in a memory format.
    let x = arange(&[2, 3, 2, 2]);
    let (y, report) = audit::record(|| x.contiguous_in_with(ChannelsLast, CopyPolicy::IfNeeded));
    let y = y.unwrap();
    assert!(y.copied && y.tensor.strides() == [12, 1, 6, 3]);
    assert_eq!(report.events()[0].reason, CopyReason::ContiguousIn);
    let z = y
        .tensor
        .contiguous_in_with(ChannelsLast, CopyPolicy::Never)
        .unwrap();
    assert!(!z.copied && z.tensor.shares_storage(&y.tensor));
    let w = y
        .tensor
        .contiguous_in_with(ChannelsLast, CopyPolicy::Always)
        .unwrap();
    assert!(w.copied && !w.tensor.shares_storage(&y.tensor) && w.tensor.strides() == [12, 1, 6, 3]);
    assert!(matches!(
        x.contiguous_in_with(ChannelsLast, CopyPolicy::Never),
        Err(Error::InvalidArgument {
            op: "contiguous_in_with",
            ..
        })
    ));
    assert!(matches!(
        a.contiguous_in_with(ChannelsLast, CopyPolicy::IfNeeded),
        Err(Error::FormatRank { .. })
    ));
}

#[test]
fn ravel_and_column_major_reshapes() {
    let a = arange(&[2, 3]);
    let (r, report) = audit::record(|| a.ravel());
    assert!(r.unwrap().shares_storage(&a) && report.count() == 0);
    // A reshape(-1) of a strided 1-dim view is a view of stride 2; ravel copies to stride 1.
    let s = a.view(&[6]).unwrap().slice_step(0, .., 2).unwrap();
    assert_eq!(s.reshape(&[-1]).unwrap().strides(), &[2]);
    let (r, report) = audit::record(|| s.ravel());
    let r = r.unwrap();
    assert_eq!((r.strides(), r.to_vec()), (&[1][..], vec![0, 2, 4]));
    assert_eq!(report.events()[0].reason, CopyReason::ReshapeCopy);
    assert_eq!(
        a.t().unwrap().ravel().unwrap().to_vec(),
        vec![0, 3, 1, 4, 2, 5]
    );

    // np.arange(6).reshape(2, 3).reshape(3, 2, order='F') is [[0, 4], [3, 2], [1, 5]].
    let (f, report) = audit::record(|| a.reshape_f(&[3, 2]));
    assert_eq!(f.unwrap().to_vec(), vec![0, 4, 3, 2, 1, 5]);
    assert_eq!(report.count(), 1);
    // np.arange(6).reshape(3, 2, order='F') is [[0, 3], [1, 4], [2, 5]]: a view.
    let v = arange(&[6]);
    assert_eq!(viewed(&v, |t| t.view_f(&[3, 2])).1, vec![0, 3, 1, 4, 2, 5]);
    assert_eq!(
        viewed(&v, |t| t.reshape_f(&[3, -1])).1,
        vec![0, 3, 1, 4, 2, 5]
    );
    // A column-major tensor flattens in column-major order without a copy.
    let f = a.t().unwrap().contiguous().t().unwrap(); // 2 x 3, strides [1, 2]
    assert_eq!(viewed(&f, |t| t.view_f(&[6])).1, vec![0, 3, 1, 4, 2, 5]);
    assert!(matches!(
        a.view_f(&[6]),
        Err(Error::InvalidArgument { op: "view_f", .. })
    ));
    assert!(matches!(
        a.reshape_f(&[4]),
        Err(Error::NumelMismatch {
            op: "reshape_f",
            ..
        })
    ));

    let b = arange(&[2, 3, 4]);
    assert_eq!(viewed(&b, |t| t.flatten_from(1)).0, vec![2, 12]);
    assert_eq!(viewed(&b, |t| t.flatten_from(-1)).0, vec![2, 3, 4]);
    assert!(matches!(
        b.flatten_from(3),
        Err(Error::DimOutOfRange { .. })
    ));
}

#[test]
fn copies_in_a_chosen_memory_order() {
    let a = arange(&[2, 3, 4]);
    // (a) the input's own order: a transposed, narrowed view stays in its order, densely.
    let t = a.permute(&[2, 0, 1]).unwrap().narrow(0, 1, 2).unwrap();
    let (d, report) = audit::record(|| t.contiguous_preserve());
    let d = d.unwrap();
    assert_eq!(d.strides(), &[1, 6, 2]);
    assert_eq!(d.to_vec(), t.to_vec());
    assert_eq!(report.events()[0].reason, CopyReason::ContiguousIn);
    let p = a.permute(&[2, 0, 1]).unwrap();
    assert!(p.contiguous_preserve().unwrap().shares_storage(&a));
    // A flipped view is not dense in its order: the copy has positive strides.
    let f = a.flip(1).unwrap().contiguous_preserve().unwrap();
    assert_eq!(
        (f.strides(), f.to_vec()),
        (&[12, 4, 1][..], a.flip(1).unwrap().to_vec())
    );

    // (b) a given order: channels-last-like, and column-major.
    let c = a.contiguous_in_order(&[0, 2, 1]).unwrap();
    assert_eq!((c.strides(), c.to_vec()), (&[12, 1, 3][..], a.to_vec()));
    let c = a.contiguous_in_order(&[-1, 1, 0]).unwrap();
    assert_eq!(c.strides(), &[1, 2, 6]);
    assert!(
        a.contiguous_in_order(&[0, 1, 2])
            .unwrap()
            .shares_storage(&a)
    );
    assert!(matches!(
        a.contiguous_in_order(&[0, 1]),
        Err(Error::NotAPermutation { .. })
    ));
    assert!(matches!(
        a.contiguous_in_order(&[0, 1, 3]),
        Err(Error::NotAPermutation { .. })
    ));
    assert!(matches!(
        a.contiguous_in_order(&[0, 1, -2]),
        Err(Error::RepeatedDim { .. })
    ));

    // (c) like another tensor: its strides when it is dense.
    let like = Tensor::<f32>::zeros(&[4, 2, 3])
        .unwrap()
        .permute(&[1, 2, 0])
        .unwrap();
    let c = a.contiguous_like(&like).unwrap();
    assert_eq!((c.strides(), c.to_vec()), (like.strides(), a.to_vec()));
    assert!(c.contiguous_like(&like).unwrap().shares_storage(&c));
    assert!(matches!(
        a.contiguous_like(&Tensor::<f32>::zeros(&[3, 2, 4]).unwrap()),
        Err(Error::ShapeMismatch { .. })
    ));
}
