//! ndarray interop: zero-copy views of random stridex views (negative and zero strides
//! included) and tensors from arrays of every layout, against the tensor's own `to_vec`.
#![cfg(feature = "ndarray")]

use crate::interop_common;

use interop_common::{Recipe, Sample, arb_recipe, bits, config};
use ndarray::{Array, Axis, IxDyn};
use proptest::prelude::*;
use stridex::Tensor;

fn check_view<T: Sample>(r: &Recipe) -> Result<(), TestCaseError> {
    let t = r.random::<T>();
    let a = t.to_ndarray_view().unwrap();
    prop_assert_eq!(a.shape(), t.shape());
    let from_array: Vec<T> = a.iter().copied().collect();
    prop_assert_eq!(bits(&from_array), bits(&t.to_vec()));
    if t.numel() > 0 {
        // The same memory, described the same way.
        prop_assert_eq!(a.as_ptr(), t.data_ptr());
        for (d, (&n, &s)) in t.shape().iter().zip(t.strides()).enumerate() {
            if n > 1 {
                prop_assert_eq!(a.strides()[d], s, "dim {}", d);
            }
        }
    }
    // And back: a copy from the borrowed view, and a move of an owned copy.
    let back = Tensor::from_ndarray(&a).unwrap();
    prop_assert_eq!(back.shape(), t.shape());
    prop_assert_eq!(bits(&back.to_vec()), bits(&t.to_vec()));
    let owned = Tensor::from_ndarray_owned(a.to_owned()).unwrap();
    prop_assert_eq!(bits(&owned.to_vec()), bits(&t.to_vec()));
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn views_of_random_views_see_the_same_elements(r in arb_recipe()) {
        check_view::<f32>(&r)?;
        check_view::<i8>(&r)?;
        check_view::<half::bf16>(&r)?;
        check_view::<u64>(&r)?;
    }

    #[test]
    fn arrays_of_any_layout_come_back_equal(
        shape in prop::collection::vec(1usize..5, 1..4),
        perm_seed in any::<u64>(),
        flips in prop::collection::vec(any::<bool>(), 3),
    ) {
        let n: usize = shape.iter().product();
        let mut a = Array::from_shape_vec(IxDyn(&shape), (0..n as i32).collect()).unwrap();
        // A random permutation and random flips: layouts ndarray makes, negative strides too.
        let mut axes: Vec<usize> = (0..shape.len()).collect();
        for i in (1..axes.len()).rev() {
            axes.swap(i, (perm_seed as usize >> (i * 4)) % (i + 1));
        }
        a = a.permuted_axes(axes);
        for (d, &f) in flips.iter().enumerate().take(a.ndim()) {
            if f {
                a.invert_axis(Axis(d));
            }
        }
        let logical: Vec<i32> = a.iter().copied().collect();
        let copied = Tensor::from_ndarray(&a).unwrap();
        prop_assert_eq!(copied.shape(), a.shape());
        prop_assert_eq!(copied.to_vec(), logical.clone());
        let at = a.as_ptr();
        let moved = Tensor::from_ndarray_owned(a).unwrap();
        prop_assert_eq!(moved.data_ptr(), at); // adopted, not copied
        prop_assert_eq!(moved.to_vec(), logical);
    }
}

#[test]
fn a_narrowed_array_view_copies_only_its_elements() {
    let a = Array::from_shape_vec((3, 4), (0..12u16).collect()).unwrap();
    let v = a.slice(ndarray::s![1.., ..;2]);
    let t = Tensor::from_ndarray(&v).unwrap();
    assert_eq!(t.shape(), &[2, 2]);
    assert_eq!(t.to_vec(), vec![4, 6, 8, 10]);
    assert_eq!(t.storage().len(), 4);
}

#[test]
fn an_empty_tensor_with_huge_dims_is_an_error_not_a_panic() {
    assert_eq!(
        Tensor::<u8>::zeros(&[0, 3])
            .unwrap()
            .to_ndarray_view()
            .unwrap()
            .shape(),
        &[0, 3]
    );
    // Zero elements, but the other dims multiply past isize::MAX: ndarray cannot hold it.
    if let Ok(t) = Tensor::<u8>::zeros(&[0, 1 << 40, 1 << 40]) {
        let e = t.to_ndarray_view().unwrap_err();
        assert!(
            matches!(
                e,
                stridex::Error::Overflow {
                    op: "to_ndarray_view",
                    ..
                }
            ),
            "{e}"
        );
    }
}
