//! Lines written the way PyTorch and ndarray users write them, each compiling and giving
//! PyTorch's result (expected values worked out by hand from PyTorch's rules).

use stridex::{Error, NewAxis, Tensor, s};

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
    let parts = vec![x.clone(), x.clone()];
    assert_eq!(Tensor::cat(&parts, 0).unwrap().shape(), &[4, 3]);
    // By value and from iterators: torch.cat(list), torch.stack([f(t) for t in ts]).
    let refs: Vec<&Tensor<f32>> = parts.iter().collect();
    assert_eq!(Tensor::cat(refs, 0).unwrap().to_vec(), {
        let mut v = x.to_vec();
        v.extend(x.to_vec());
        v
    });
    let doubled = Tensor::stack(parts.iter().map(|p| p * 2.0), 0).unwrap();
    assert_eq!(doubled.shape(), &[2, 2, 3]);
    assert_eq!(
        doubled.to_vec(),
        x.to_vec()
            .iter()
            .chain(&x.to_vec())
            .map(|v| v * 2.0)
            .collect::<Vec<_>>()
    );
    let c = Tensor::cat(parts, 1).unwrap();
    assert_eq!(c.shape(), &[2, 6]);
    assert_eq!(c.to_vec()[..6], [0.0, 1.0, 2.0, 0.0, 1.0, 2.0]);
    // An empty iterator is the same error as an empty slice.
    let none = Tensor::<f32>::cat(std::iter::empty::<Tensor<f32>>(), 0).unwrap_err();
    assert!(
        matches!(none, stridex::Error::NoInputs { op: "cat" }),
        "{none}"
    );
    let none = Tensor::<f32>::stack(Vec::<&Tensor<f32>>::new(), 0).unwrap_err();
    assert!(
        matches!(none, stridex::Error::NoInputs { op: "stack" }),
        "{none}"
    );
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

// ---------------------------------------------------------------------------------------------
// The table, line by line, written with `?` as user code is
// ---------------------------------------------------------------------------------------------

#[test]
fn operators_on_borrowed_and_owned_operands() -> stridex::Result<()> {
    let a = x(); // [[0, 1, 2], [3, 4, 5]]
    // a + 1.0, 2.0 * a
    assert_eq!((&a + 1.0).to_vec(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!((2.0 * &a).to_vec(), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    assert_eq!((2.0 - &a).to_vec(), vec![2.0, 1.0, 0.0, -1.0, -2.0, -3.0]);
    assert_eq!((-&a).get(&[1, 1])?, -4.0);
    // Integer `/` by an integer scalar keeps the integer type and truncates toward zero:
    // PyTorch's torch.div(i, 3, rounding_mode="trunc"), not its true division `i / 3`
    // (which would give [2.3333, -2.3333, 0.0]) nor floor division `i // 3` ([2, -3, 0]).
    let i = Tensor::from_vec(vec![7i32, -7, 0], &[3])?;
    assert_eq!((&i / 3).to_vec(), vec![2, -2, 0]);
    assert_eq!((&i * 3).to_vec(), vec![21, -21, 0]);
    assert_eq!((100 - &i).to_vec(), vec![93, 107, 100]);
    // a / b and a + b where a and b are owned results of earlier ops.
    let b = Tensor::from_vec(vec![2.0f32, 4.0, 8.0], &[3])?;
    let s = &a + 1.0; // [[1, 2, 3], [4, 5, 6]]
    let q = (s / &b)?; // [[1/2, 2/4, 3/8], [4/2, 5/4, 6/8]]
    assert_eq!(q.to_vec(), vec![0.5, 0.5, 0.375, 2.0, 1.25, 0.75]);
    let r = (q + 2.0 * &a)?; // + [[0, 2, 4], [6, 8, 10]]
    assert_eq!(r.to_vec(), vec![0.5, 2.5, 4.375, 8.0, 9.25, 10.75]);
    let d = ((&a * &a)? - (&a + &a)?)?; // a^2 - 2a
    assert_eq!(d.to_vec(), vec![0.0, -1.0, 0.0, 3.0, 8.0, 15.0]);
    let n = -(d / 2.0 + 1.0);
    assert_eq!(n.to_vec(), vec![-1.0, -0.5, -1.0, -2.5, -5.0, -8.5]);
    // Assignment operators on a tensor.
    let mut acc = a.clone();
    acc += &b;
    acc *= 2.0;
    acc -= &Tensor::full(&[], 1.0f32)?;
    assert_eq!(acc.to_vec(), vec![3.0, 9.0, 19.0, 9.0, 15.0, 25.0]);
    assert_eq!(a.to_vec(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]); // the clone was written
    let mut k = Tensor::from_vec(vec![9i64, -9], &[2])?;
    k /= 2;
    k *= 3;
    assert_eq!(k.to_vec(), vec![12, -12]);
    Ok(())
}

#[test]
fn mixed_element_types_promote_and_convert_as_pytorch_does() -> stridex::Result<()> {
    // x32 + x64 is f64, computed in f64: 2^24 + 1 would round back to 2^24 in f32.
    let x32 = Tensor::from_vec(vec![16_777_216.0f32, 0.5], &[2])?;
    let x64 = Tensor::from_vec(vec![1.0f64, 0.25], &[2])?;
    let r: Tensor<f64> = (&x32 + &x64)?;
    assert_eq!(r.to_vec(), vec![16_777_217.0, 0.75]);
    let r: Tensor<f64> = (&x64 - &x32)?;
    assert_eq!(r.to_vec(), vec![-16_777_215.0, -0.25]);
    // int32 with float32 is float32; uint8 with int8 is int16 (no wrap at 255).
    let i = Tensor::from_vec(vec![3i32, -4], &[2])?;
    let f = Tensor::from_vec(vec![0.5f32], &[1])?;
    let r: Tensor<f32> = (&i * &f)?;
    assert_eq!(r.to_vec(), vec![1.5, -2.0]);
    let u = Tensor::from_vec(vec![255u8, 0], &[2])?;
    let s = Tensor::from_vec(vec![1i8, -128], &[2])?;
    let r: Tensor<i16> = (&u + &s)?;
    assert_eq!(r.to_vec(), vec![256, -128]);
    let r: Tensor<i16> = (u - s)?;
    assert_eq!(r.to_vec(), vec![254, 128]);
    // Same-type uint8 arithmetic wraps, as PyTorch's does.
    let one = Tensor::from_vec(vec![1u8], &[1])?;
    assert_eq!(
        (&one - &Tensor::from_vec(vec![2u8], &[1])?)?.to_vec(),
        vec![255]
    );
    assert_eq!((-&one).to_vec(), vec![255]);
    // A float result divides by an integer zero as floats do: inf, no error.
    let z = Tensor::from_vec(vec![0i32, 0], &[2])?;
    let r: Tensor<f32> = (&Tensor::from_vec(vec![1.0f32, -1.0], &[2])? / &z)?;
    assert_eq!(r.to_vec(), vec![f32::INFINITY, f32::NEG_INFINITY]);
    // x.to(torch.float16): round to nearest, ties to even; past the largest half, inf.
    let h = Tensor::from_vec(vec![0.1f32, 2049.0, 2051.0, 65519.0, 65520.0, -0.0], &[6])?
        .to_dtype::<half::f16>();
    let bits: Vec<u16> = h.to_vec().iter().map(|v| v.to_bits()).collect();
    // 0.1 -> 0x2E66 (0.0999755859375); 2049 -> 2048 (0x6800); 2051 -> 2052 (0x6802);
    // 65519 -> 65504 (0x7BFF, the largest half); 65520 -> inf (0x7C00); -0.0 keeps its sign.
    assert_eq!(bits, vec![0x2E66, 0x6800, 0x6802, 0x7BFF, 0x7C00, 0x8000]);
    assert_eq!(h.shape(), &[6]);
    // x.to(torch.int32) truncates toward zero.
    let t = Tensor::from_vec(vec![-1.7f32, 2.9, -0.5], &[3])?.to_dtype::<i32>();
    assert_eq!(t.to_vec(), vec![-1, 2, 0]);
    Ok(())
}

#[test]
fn dims_views_and_slices_as_written_in_pytorch() -> stridex::Result<()> {
    let x = x(); // [[0, 1, 2], [3, 4, 5]]
    assert_eq!(x.sum_dim(-1, false)?.to_vec(), vec![3.0, 12.0]);
    let kept = x.sum_dim(-1, true)?;
    assert_eq!(
        (kept.shape(), kept.to_vec()),
        (&[2, 1][..], vec![3.0, 12.0])
    );
    // softmax of [0, 1, 2] (and of [3, 4, 5], the same after the shift):
    // e^k / (1 + e + e^2) = 0.0900306, 0.2447285, 0.6652410.
    let p = x.softmax(-1)?;
    let want = [0.090_030_57, 0.244_728_47, 0.665_240_96];
    for (k, v) in p.to_vec().into_iter().enumerate() {
        assert!((v - want[k % 3]).abs() < 1e-6, "softmax[{k}] = {v}");
    }
    // softmax over dim 0: each column is [c, c + 3]: 1 / (1 + e^3) = 0.0474259.
    let p0 = x.softmax(-2)?;
    assert!((p0.get(&[0, 2])? - 0.047_425_87).abs() < 1e-6);
    assert!((p0.get(&[1, 0])? - 0.952_574_13).abs() < 1e-6);
    // view(-1, 4) of 12 elements is [3, 4].
    let y = Tensor::from_vec((0..12).map(|v| v as f32).collect(), &[2, 6])?;
    let v = y.view(&[-1, 4])?;
    assert_eq!(v.shape(), &[3, 4]);
    assert_eq!((v.get(&[2, 0])?, v.get(&[1, 3])?), (8.0, 7.0));
    assert!(v.shares_storage(&y));
    let tt = x.transpose(-2, -1)?;
    assert_eq!((tt.shape(), tt.get(&[2, 1])?), (&[3, 2][..], 5.0));
    // x[1:3] and x[:, 1:] on a [4, 3] tensor.
    let z = y.view(&[4, -1])?;
    assert_eq!(z.shape(), &[4, 3]);
    let rows = z.slice(0, 1..3)?;
    assert_eq!(rows.shape(), &[2, 3]);
    assert_eq!(rows.to_vec(), vec![3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    let all = z.slice(1, ..)?;
    assert_eq!((all.shape(), all.layout()), (z.shape(), z.layout()));
    assert_eq!(
        z.slice(1, -2..)?.to_vec(),
        vec![1.0, 2.0, 4.0, 5.0, 7.0, 8.0, 10.0, 11.0]
    );
    assert_eq!(
        z.slice_step(0, .., -1)?.select(0, 0)?.to_vec(),
        vec![9.0, 10.0, 11.0]
    );
    // c = arange(24).view(2, 3, 4); c[:, 1:3:2, 0, None] and c[1, ::2, 0:4:3].
    let c = Tensor::from_vec((0..24).collect::<Vec<i64>>(), &[2, 3, 4])?;
    let got = c.i(s![.., 1..3;2, 0, NewAxis])?;
    assert_eq!((got.shape(), got.to_vec()), (&[2, 1, 1][..], vec![4, 16]));
    let got = c.i(s![1, ..;2, 0..4;3])?;
    assert_eq!(
        (got.shape(), got.to_vec()),
        (&[2, 2][..], vec![12, 15, 20, 23])
    );
    let got = c.i((.., 1..3))?; // c[:, 1:3]
    assert_eq!(got.shape(), &[2, 2, 4]);
    assert_eq!((got.get(&[0, 0, 0])?, got.get(&[1, 1, 3])?), (4, 23));
    assert!(got.shares_storage(&c));
    Ok(())
}

#[test]
fn reductions_by_their_short_names() -> stridex::Result<()> {
    let w = Tensor::from_vec(vec![3.0f32, -1.0, 7.0, 7.0, 2.0, 6.0], &[2, 3])?;
    assert_eq!(w.sum(), 24.0);
    assert_eq!(w.mean(), 4.0);
    assert_eq!(w.max()?, 7.0);
    assert_eq!(w.min()?, -1.0);
    assert_eq!(w.argmax(1)?.to_vec(), vec![2, 0]);
    assert_eq!(w.argmax(0)?.to_vec(), vec![1, 1, 0]);
    assert_eq!(w.argmin(-1)?.to_vec(), vec![1, 1]);
    // Ties give the first index; NaN is the maximum (and max() is NaN), as in PyTorch.
    let t = Tensor::from_vec(vec![5.0f32, 9.0, 9.0, 1.0, 1.0], &[5])?;
    assert_eq!(
        (t.argmax(0)?.to_vec(), t.argmin(0)?.to_vec()),
        (vec![1], vec![3])
    );
    let n = Tensor::from_vec(vec![1.0f32, f32::NAN, 3.0], &[3])?;
    assert_eq!(n.argmax(0)?.to_vec(), vec![1]);
    assert!(n.max()?.is_nan() && n.sum().is_nan());
    // Integers: sum and max in their own type.
    let i = Tensor::from_vec(vec![4i32, -2, 9, 1], &[2, 2])?;
    assert_eq!((i.sum(), i.max()?, i.min()?), (12, 9, -2));
    assert_eq!(i.argmax(-1)?.to_vec(), vec![0, 0]);
    // An empty tensor: sum 0, mean NaN, no max.
    let e = Tensor::<f32>::zeros(&[0, 3])?;
    assert_eq!(e.sum(), 0.0);
    assert!(e.mean().is_nan());
    assert!(e.max().is_err());
    Ok(())
}

#[test]
fn integer_inputs_to_float_ops_give_f32() -> stridex::Result<()> {
    let i = Tensor::from_vec(vec![0i32, 1, 2, 4], &[2, 2])?;
    let e: Tensor<f32> = i.exp();
    // e^0, e^1, e^2, e^4 = 1, 2.7182817, 7.389056, 54.59815 as f32.
    for (got, want) in
        e.to_vec()
            .into_iter()
            .zip([1.0f32, std::f32::consts::E, 7.389_056, 54.598_15])
    {
        assert!((got - want).abs() <= want * 1e-6, "{got} vs {want}");
    }
    let r: Tensor<f32> = Tensor::from_vec(vec![0u8, 1, 4, 9], &[4])?.sqrt();
    assert_eq!(r.to_vec(), vec![0.0, 1.0, 2.0, 3.0]);
    let m: Tensor<f32> = i.mean_dim(1, false)?;
    assert_eq!(m.to_vec(), vec![0.5, 3.0]);
    let m: Tensor<f32> = i.mean_dim(-2, true)?;
    assert_eq!((m.shape(), m.to_vec()), (&[1, 2][..], vec![1.0, 2.5]));
    let mean: f32 = i.mean();
    assert_eq!(mean, 1.75);
    // The mean of i32::MAX and 1 is 2^30: taken in float, not wrapped in i32.
    let big = Tensor::from_vec(vec![i32::MAX, 1], &[2])?;
    assert_eq!(big.mean(), 1_073_741_824.0f32);
    assert_eq!(big.mean_dim(0, false)?.to_vec(), vec![1_073_741_824.0f32]);
    let sig: Tensor<f32> = Tensor::from_vec(vec![0i64], &[1])?.sigmoid();
    assert_eq!(sig.to_vec(), vec![0.5]);
    let ln: Tensor<f32> = Tensor::from_vec(vec![1u16], &[1])?.ln();
    assert_eq!(ln.to_vec(), vec![0.0]);
    // softmax over a row of equal integers is uniform.
    let p: Tensor<f32> = Tensor::from_vec(vec![7i8; 4], &[1, 4])?.softmax(-1)?;
    assert_eq!(p.to_vec(), vec![0.25; 4]);
    // var over [1, 2] is 0.5 and over [3, 5] is 2 (correction 1).
    let v: Tensor<f32> = Tensor::from_vec(vec![1i32, 2, 3, 5], &[2, 2])?.var_dim(1, false, 1)?;
    assert_eq!(v.to_vec(), vec![0.5, 2.0]);
    Ok(())
}

#[test]
fn masks_indices_views_dot_and_cat() -> stridex::Result<()> {
    let x = x(); // [[0, 1, 2], [3, 4, 5]]
    // x.masked_fill(mask, -1) with a bool mask and with an int32 mask (nonzero is true).
    let mask = Tensor::<u8>::from_bools(&[true, false, true, false, false, true], &[2, 3])?;
    assert_eq!(
        x.masked_fill(&mask, -1.0)?.to_vec(),
        vec![-1.0, 1.0, -1.0, 3.0, 4.0, -1.0]
    );
    let row = Tensor::from_vec(vec![0i32, -5, 0], &[3])?; // broadcast over the rows
    assert_eq!(
        x.masked_fill(&row, 9.0)?.to_vec(),
        vec![0.0, 9.0, 2.0, 3.0, 9.0, 5.0]
    );
    // x.index_select(0, idx) with int32 indices, a row picked twice.
    let idx = Tensor::from_vec(vec![1i32, 0, 1], &[3])?;
    let sel = x.index_select(0, &idx)?;
    assert_eq!(sel.shape(), &[3, 3]);
    assert_eq!(
        sel.to_vec(),
        vec![3.0, 4.0, 5.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    );
    assert_eq!(
        x.index_select(-1, &idx)?.to_vec(),
        vec![1.0, 0.0, 1.0, 4.0, 3.0, 4.0]
    );
    // y.t() += x, written through a binding to the transposed view.
    let mut y = Tensor::<f32>::zeros(&[3, 2])?;
    {
        let mut v = y.view_mut()?.t()?;
        v += &x;
        v -= &Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3])?;
        v /= 2.0;
    }
    // y[j][i] = (x[i][j] - (j + 1)) / 2
    assert_eq!(y.to_vec(), vec![-0.5, 1.0, -0.5, 1.0, -0.5, 1.0]);
    // a.dot(b), also through a reversed (negative-stride) view.
    let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3])?;
    let b = Tensor::from_vec(vec![4.0f32, -5.0, 6.0], &[3])?;
    assert_eq!(a.dot(&b)?, 12.0);
    assert_eq!(a.dot(&b.flip(0)?)?, 8.0);
    let ai = Tensor::from_vec(vec![1i64, 2, 3], &[3])?;
    assert_eq!(ai.dot(&ai)?, 14);
    // torch.cat([a, b], 1) of owned results of operators.
    let c = Tensor::cat(&[&x * 2.0, (&x + &x)?, -&x], 1)?;
    assert_eq!(c.shape(), &[2, 9]);
    assert_eq!(
        c.to_vec(),
        vec![
            0.0, 2.0, 4.0, 0.0, 2.0, 4.0, -0.0, -1.0, -2.0, //
            6.0, 8.0, 10.0, 6.0, 8.0, 10.0, -3.0, -4.0, -5.0
        ]
    );
    let s = Tensor::stack(&[(&x + 1.0), x.clone()], 0)?;
    assert_eq!((s.shape(), s.get(&[0, 1, 2])?), (&[2, 2, 3][..], 6.0));
    Ok(())
}
