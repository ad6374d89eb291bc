//! The names PyTorch users type: `gt` / `ge` / `lt` / `le` / `eq` / `ne` as inherent methods
//! (and `==` still whole-tensor equality), `pow` with a scalar, `norm()`, `std(dim)` /
//! `var(dim)`, scalars in either branch of `where_cond`, on strided inputs against naive
//! loops over `to_vec()`.

use stridex::{Error, Tensor};

fn strided() -> Tensor<f32> {
    // A transposed, flipped view with NaN: [4, 3] logical.
    let base = Tensor::from_vec(
        vec![
            0.5f32,
            -1.0,
            2.0,
            f32::NAN,
            0.0,
            3.5,
            -2.0,
            1.0,
            0.5,
            4.0,
            -0.5,
            0.25,
        ],
        &[3, 4],
    )
    .unwrap();
    base.t().unwrap().flip(0).unwrap()
}

#[test]
fn comparison_names_are_the_elementwise_comparisons() {
    let x = strided();
    let v = x.to_vec();
    let naive =
        |f: fn(f32, f32) -> bool| -> Vec<u8> { v.iter().map(|&a| u8::from(f(a, 0.5))).collect() };
    assert_eq!(x.gt(0.5).unwrap().to_vec(), naive(|a, b| a > b));
    assert_eq!(x.ge(0.5).unwrap().to_vec(), naive(|a, b| a >= b));
    assert_eq!(x.lt(0.5).unwrap().to_vec(), naive(|a, b| a < b));
    assert_eq!(x.le(0.5).unwrap().to_vec(), naive(|a, b| a <= b));
    assert_eq!(x.eq(0.5).unwrap().to_vec(), naive(|a, b| a == b));
    assert_eq!(x.ne(0.5).unwrap().to_vec(), naive(|a, b| a != b));
    // Against a tensor of another type, broadcast.
    let row = Tensor::from_vec(vec![0i32, 1, 2], &[3]).unwrap();
    let want: Vec<u8> = v
        .iter()
        .enumerate()
        .map(|(i, &a)| u8::from(a > (i % 3) as f32))
        .collect();
    assert_eq!(x.gt(&row).unwrap().to_vec(), want);
    // `==` is still one bool for the whole tensor.
    let y = x.to_owned();
    assert!(x.eq(&y).is_ok());
    assert!(x != y); // the NaN differs from itself
    assert!(matches!(
        x.ge(Tensor::<f32>::zeros(&[2]).unwrap()),
        Err(Error::BroadcastMismatch { op: "ge", .. })
    ));
}

#[test]
fn pow_takes_a_scalar_or_a_tensor() {
    let x = strided();
    let want: Vec<u32> = x.to_vec().iter().map(|a| a.powf(3.0).to_bits()).collect();
    let got: Vec<u32> = x
        .pow(3.0)
        .unwrap()
        .to_vec()
        .iter()
        .map(|a| a.to_bits())
        .collect();
    assert_eq!(got, want);
    let e = Tensor::full(&[], 3.0f32).unwrap();
    assert_eq!(
        x.pow(&e)
            .unwrap()
            .to_vec()
            .iter()
            .map(|a| a.to_bits())
            .collect::<Vec<_>>(),
        want
    );
    assert_eq!(x.pow(e).unwrap().shape(), &[4, 3]);
}

#[test]
fn norm_std_and_var_by_their_short_names() {
    let x = Tensor::from_vec(vec![3.0f64, 1.0, -4.0, 5.0, 0.0, 2.0], &[2, 3]).unwrap();
    let xt = x.t().unwrap(); // [3, 2]
    let v = x.to_vec();
    assert_eq!(xt.norm(), v.iter().map(|a| a * a).sum::<f64>().sqrt());
    // std / var along dim 1 of the transposed view = along the columns of x.
    let cols: Vec<[f64; 2]> = (0..3).map(|j| [v[j], v[3 + j]]).collect();
    let var: Vec<f64> = cols
        .iter()
        .map(|c| {
            let m = (c[0] + c[1]) / 2.0;
            ((c[0] - m).powi(2) + (c[1] - m).powi(2)) / 1.0
        })
        .collect();
    let got_var = xt.var(1).unwrap().to_vec();
    let got_std = xt.std(-1).unwrap().to_vec();
    for j in 0..3 {
        assert!((got_var[j] - var[j]).abs() < 1e-12);
        assert!((got_std[j] - var[j].sqrt()).abs() < 1e-12);
    }
    assert!(matches!(xt.std(2), Err(Error::DimOutOfRange { .. })));
    assert_eq!(Tensor::<f32>::zeros(&[0]).unwrap().norm(), 0.0);
}

#[test]
fn where_cond_takes_scalars_in_either_branch() {
    let x = strided();
    let mask = x.gt(0.0).unwrap();
    let v = x.to_vec();
    let a = Tensor::where_cond(&mask, &x, 0.0).unwrap();
    let b = Tensor::where_cond(&mask, -1.0, &x).unwrap();
    let c = Tensor::where_cond(&mask, 1.0f32, 0.0).unwrap();
    for (i, &e) in v.iter().enumerate() {
        let pos = e > 0.0;
        assert_eq!(a.to_vec()[i].to_bits(), if pos { e } else { 0.0 }.to_bits());
        assert_eq!(
            b.to_vec()[i].to_bits(),
            if pos { -1.0 } else { e }.to_bits()
        );
        assert_eq!(c.to_vec()[i], if pos { 1.0 } else { 0.0 });
    }
    assert_eq!(c.shape(), x.shape());
}
