//! Lines written the way PyTorch and ndarray users write them, each compiling and giving
//! PyTorch's result (expected values worked out by hand from PyTorch's rules).

use stridex::{Error, Tensor};

fn x() -> Tensor<f32> {
    // [[0, 1, 2], [3, 4, 5]]
    Tensor::from_vec((0..6).map(|v| v as f32).collect(), &[2, 3]).unwrap()
}

#[test]
fn negative_dims_count_from_the_end() {
    let x = x();
    assert_eq!(
        x.transpose(-2, -1).unwrap().to_vec(),
        vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    );
    assert_eq!(x.sum_dim(-1, false).unwrap().to_vec(), vec![3.0, 12.0]);
    assert_eq!(x.sum_dim(-2, true).unwrap().shape(), &[1, 3]);
    assert_eq!(
        x.narrow(-1, 1, 2).unwrap().to_vec(),
        vec![1.0, 2.0, 4.0, 5.0]
    );
    assert_eq!(x.select(-2, 1).unwrap().to_vec(), vec![3.0, 4.0, 5.0]);
    assert_eq!(x.unsqueeze(-1).unwrap().shape(), &[2, 3, 1]);
    assert_eq!(x.unsqueeze(-3).unwrap().shape(), &[1, 2, 3]);
    assert_eq!(
        x.flip(-1).unwrap().to_vec(),
        vec![2.0, 1.0, 0.0, 5.0, 4.0, 3.0]
    );
    assert_eq!(
        x.cumsum(-1).unwrap().to_vec(),
        vec![0.0, 1.0, 3.0, 3.0, 7.0, 12.0]
    );
    let p = x.softmax(-1).unwrap();
    let row: f32 = p.select(0, 0).unwrap().sum();
    assert!((row - 1.0).abs() < 1e-6);
    assert_eq!(x.argmax(-1).unwrap().to_vec(), vec![2, 2]);
    assert_eq!(x.flatten(0, -1).unwrap().shape(), &[6]);
    let d: usize = 1;
    assert_eq!(x.sum_dim(d, false).unwrap().to_vec(), vec![3.0, 12.0]);
    // Out of range: an `Err` naming the dim given and the dim it wraps to.
    let err = x.sum_dim(-3, false).unwrap_err();
    assert!(matches!(
        err,
        Error::NegativeDimOutOfRange {
            op: "sum_dim",
            dim: -3,
            ndim: 2
        }
    ));
    let msg = err.to_string();
    assert!(msg.contains("dim -3") && msg.contains("to -1"), "{msg}");
    assert!(matches!(
        x.transpose(0, 2),
        Err(Error::DimOutOfRange { dim: 2, .. })
    ));
}

#[test]
fn view_and_reshape_infer_one_length() {
    let x = x();
    assert_eq!(x.view(&[-1, 2]).unwrap().shape(), &[3, 2]);
    assert_eq!(x.reshape(&[3, -1]).unwrap().shape(), &[3, 2]);
    assert_eq!(
        x.t().unwrap().reshape(&[-1]).unwrap().to_vec(),
        vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    );
    assert!(x.view(&[-1, -1]).is_err());
    assert!(x.view(&[4, -1]).is_err());
    let shape = vec![6usize];
    assert_eq!(x.view(&shape).unwrap().shape(), &[6]);
    assert_eq!(x.view(x.shape()).unwrap().shape(), &[2, 3]);
}

#[test]
fn the_names_users_type() {
    let x = x();
    assert_eq!(x.sum(), 15.0);
    assert_eq!(x.mean(), 2.5);
    assert_eq!((x.max().unwrap(), x.min().unwrap()), (5.0, 0.0));
    assert_eq!(x.argmax(1).unwrap().to_vec(), vec![2, 2]);
    assert_eq!(x.argmin(0).unwrap().to_vec(), vec![0, 0, 0]);
    let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0], &[3]).unwrap();
    assert_eq!(a.dot(&a).unwrap(), 14.0);
    assert_eq!(x.to_dtype::<i32>().to_vec(), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(
        x.to_dtype::<half::f16>().get(&[1, 2]).unwrap(),
        half::f16::from_f32(5.0)
    );
}

#[test]
fn cat_and_stack_take_owned_results() {
    let x = x();
    let c = Tensor::cat(&[x.t().unwrap(), x.t().unwrap()], 1).unwrap();
    assert_eq!(c.shape(), &[3, 4]);
    assert_eq!(
        c.to_vec(),
        vec![0.0, 3.0, 0.0, 3.0, 1.0, 4.0, 1.0, 4.0, 2.0, 5.0, 2.0, 5.0]
    );
    let s = Tensor::stack(&[x.clone(), x.clone()], -1).unwrap();
    assert_eq!(s.shape(), &[2, 3, 2]);
    assert_eq!(Tensor::cat(&[&x, &x], -2).unwrap().shape(), &[4, 3]);
    let parts = vec![x.clone(), x];
    assert_eq!(Tensor::cat(&parts, 0).unwrap().shape(), &[4, 3]);
}

#[test]
fn scalar_operators_on_either_side_and_assignment_through_views() {
    let a = x();
    assert_eq!((&a + 1.0).to_vec(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!((2.0 * &a).get(&[1, 2]).unwrap(), 10.0);
    assert_eq!((&a / 2.0).get(&[1, 0]).unwrap(), 1.5);
    assert_eq!((1.0 - &a).get(&[0, 2]).unwrap(), -1.0);
    let i = Tensor::from_vec(vec![5i64, -5], &[2]).unwrap();
    // Integer `/` truncates as Rust's does (PyTorch would promote to float: not done yet).
    assert_eq!((&i / 3).to_vec(), vec![1, -1]);
    let mut y = Tensor::<f32>::zeros(&[3, 2]).unwrap();
    let mut v = y.view_mut().unwrap().t().unwrap();
    v += &a; // y.t() += a
    v *= 2.0;
    assert_eq!(y.to_vec(), vec![0.0, 6.0, 2.0, 8.0, 4.0, 10.0]);
}
