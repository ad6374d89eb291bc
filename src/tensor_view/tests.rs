use crate::Tensor;

/// Applies the same view op to a tensor and to a view of it: both fail with the same error,
/// or both succeed with the same layout and elements, the view's over the same storage.
macro_rules! same {
    ($base:expr, $($op:tt)*) => {{
        let base: &Tensor<i32> = $base;
        match (base.$($op)*, base.as_view().$($op)*) {
            (Ok(t), Ok(v)) => {
                assert_eq!(t.layout(), v.layout(), "{}", stringify!($($op)*));
                assert_eq!(t.to_vec(), v.to_vec(), "{}", stringify!($($op)*));
                assert!(v.to_tensor().shares_storage(base));
                1
            }
            (Err(e), Err(f)) => {
                assert_eq!(e, f, "{}", stringify!($($op)*));
                0
            }
            (t, v) => panic!("{}: tensor {t:?}, view {v:?}", stringify!($($op)*)),
        }
    }};
}

#[test]
#[allow(clippy::reversed_empty_ranges)] // Python's -1:-9:-2, a backward walk
fn every_view_op_gives_the_tensor_ops_layout() {
    let a = Tensor::from_vec((0..120).collect::<Vec<i32>>(), &[4, 5, 6]).unwrap();
    let bases = [
        a.clone(),
        a.narrow(1, 1, 3).unwrap(),     // an offset
        a.flip(2).unwrap(),             // a negative stride
        a.permute(&[2, 0, 1]).unwrap(), // permuted
        a.select(0, 2).unwrap(),        // 2 dims, offset
        a.narrow(1, 0, 1).unwrap(),     // a size-1 dim
        a.narrow(0, 0, 0).unwrap(),     // empty
        a.select(0, 1)
            .unwrap()
            .expand(&[3, 5, 6])
            .unwrap_or_else(|_| a.clone()),
        a.unsqueeze(0)
            .unwrap()
            .unsqueeze(3)
            .unwrap()
            .unsqueeze(5)
            .unwrap(), // past rank 4
    ];
    let mut ok = 0;
    for b in &bases {
        ok += same!(b, t());
        ok += same!(b, transpose(0, 1));
        ok += same!(b, transpose(0, 9));
        ok += same!(b, permute(&[1, 0]));
        ok += same!(b, permute(&[2, 0, 1]));
        ok += same!(b, narrow(0, 1, 1));
        ok += same!(b, narrow(1, 2, 9));
        ok += same!(b, slice_step(0, -1..-9, -2));
        ok += same!(b, slice_step(1, 0..4, 3));
        ok += same!(b, select(0, 0));
        ok += same!(b, select(1, 7));
        ok += same!(b, squeeze(1));
        ok += same!(b, unsqueeze(1));
        ok += same!(b, unsqueeze(9));
        ok += same!(b, expand(&[2, 4, 5, 6]));
        ok += same!(b, expand(&[4, 1, 6]));
        ok += same!(b, flip(0));
        ok += same!(b, flip(5));
        ok += same!(b, unfold(0, 2, 1));
        ok += same!(b, unfold(1, 9, 1));
        ok += same!(b, diagonal());
        ok += same!(b, diagonal_with(1, 0, 1));
        ok += same!(b, view(&[120]));
        ok += same!(b, view(&[5, 4, 6]));
        ok += same!(b, as_strided(&[2, 2], &[1, 1], 3));
        ok += same!(b, as_strided(&[2], &[1000], 0));
    }
    // Both outcomes occur often: the comparison is not vacuous either way.
    assert!(ok > 60, "{ok} ops succeeded");
}

#[test]
fn chains_reads_and_conversions() {
    let a = Tensor::from_vec((0..24).collect::<Vec<i32>>(), &[4, 6]).unwrap();
    let owned = a.narrow(0, 1, 3).unwrap().t().unwrap().flip(0).unwrap();
    let v = a
        .as_view()
        .narrow(0, 1, 3)
        .unwrap()
        .t()
        .unwrap()
        .flip(0)
        .unwrap();
    assert_eq!(v.layout(), owned.layout());
    assert_eq!(
        (v.shape(), v.strides(), v.offset()),
        (owned.shape(), owned.strides(), 6 + 5)
    );
    assert_eq!(v.numel(), 18);
    assert!(!v.is_contiguous());
    assert_eq!(v.get(&[0, 2]).unwrap(), owned.get(&[0, 2]).unwrap());
    assert!(v.get(&[6, 0]).is_err());
    assert_eq!(v.to_vec(), owned.to_vec());
    // A copy only when the view is not contiguous.
    assert!(!v.contiguous().shares_storage(&a));
    assert_eq!(v.contiguous().to_vec(), owned.to_vec());
    assert!(a.as_view().contiguous().shares_storage(&a));
    let t: Tensor<i32> = v.clone().into();
    assert!(t.shares_storage(&a));
    assert_eq!(t.layout(), owned.layout());
    assert!(format!("{v:?}").contains("strides: [-1, 6]"), "{v:?}");
}

#[test]
fn every_vocabulary_op_gives_the_tensor_ops_layout() {
    use crate::{Ellipsis, s};
    let a = Tensor::from_vec((0..120).collect::<Vec<i32>>(), &[4, 5, 6]).unwrap();
    let bases = [
        a.clone(),
        a.flip(2).unwrap(),
        a.permute(&[2, 0, 1]).unwrap(),
        a.narrow(1, 0, 1).unwrap(),
        a.narrow(0, 0, 0).unwrap(),
        a.select(0, 1).unwrap(),
    ];
    let mut ok = 0;
    for b in &bases {
        ok += same!(b, movedim(0, -1));
        ok += same!(b, movedims(&[0, 1], &[-1, 0]));
        ok += same!(b, swapaxes(0, 1));
        ok += same!(b, swapdims(1, -1));
        ok += same!(b, mt());
        ok += same!(b, flip_dims(&[0, -1]));
        ok += same!(b, flip_dims(&[1, 1]));
        ok += same!(b, fliplr());
        ok += same!(b, flipud());
        ok += same!(b, rot90(1, [0, 1]));
        ok += same!(b, rot90(-3, [1, 0]));
        ok += same!(b, rot90(2, [0, 0]));
        ok += same!(b, unflatten(0, &[2, -1]));
        ok += same!(b, unflatten(1, &[5, 1]));
        ok += same!(b, squeeze_dims(&[1]));
        ok += same!(b, view_f(&[-1]));
        ok += same!(b, view_f(&[6, 5, 4]));
        ok += same!(b, broadcast_to(&[2, 4, 5, 6]));
        ok += same!(b, expand(&[-1, -1, -1]));
        ok += same!(b, expand_as(&a));
        ok += same!(b, sliding_window_view(&[2, 2], &[0, -1]));
        ok += same!(b, narrow(0, -1, 1));
        ok += same!(b, i(s![Ellipsis, 0]));
        let v = b.as_view();
        assert_eq!(
            v.clone().reversed_dims().layout(),
            b.reversed_dims().layout()
        );
        assert_eq!(v.clone().squeeze_all().layout(), b.squeeze_all().layout());
        assert_eq!(v.atleast_3d().layout(), b.atleast_3d().layout());
    }
    // Both outcomes occur often: the comparison is not vacuous either way.
    assert!(ok > 40, "{ok} ops succeeded");
}
