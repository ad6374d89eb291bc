//! A walk through stridex's layouts: which ops are free views, which copy, and what the errors
//! say. Run with `cargo run --release --example tour`.

use stridex::{Error, Storage, Tensor};

fn show<T: stridex::Element>(name: &str, t: &Tensor<T>) {
    println!(
        "{name:<28} shape {:?} strides {:?} offset {} contiguous {}",
        t.shape(),
        t.strides(),
        t.offset(),
        t.is_contiguous()
    );
}

fn main() -> Result<(), Error> {
    println!("== 1. A transpose is a view, and makes the tensor non-contiguous");
    let a = Tensor::arange(0.0f32, 12.0, 1.0)?.view(&[3, 4])?;
    show("a", &a);
    let at = a.t()?;
    show("a.t()", &at);
    println!("a.t() shares a's storage: {}", at.shares_storage(&a));
    println!("{at}");

    println!("\n== 2. view() on it fails with an explanation; reshape() copies");
    match at.view(&[12]) {
        Ok(_) => unreachable!("a transposed matrix cannot be flattened without a copy"),
        Err(e) => println!("a.t().view([12]) -> Err: {e}"),
    }
    let flat = at.reshape(&[12])?;
    show("a.t().reshape([12])", &flat);
    println!(
        "reshape shares storage: {} (it copied)",
        flat.shares_storage(&a)
    );
    println!("values: {:?}", flat.to_vec());

    println!("\n== 3. narrow after transpose stays a view");
    let n = at.narrow(0, 1, 2)?;
    show("a.t().narrow(0, 1, 2)", &n);
    println!(
        "shares storage: {}  values {:?}",
        n.shares_storage(&a),
        n.to_vec()
    );

    println!("\n== 4. as_strided: sliding windows without copying, and a bounds error");
    let signal = Tensor::arange(0i32, 8, 1)?;
    let windows = signal.as_strided(&[6, 3], &[1, 1], 0)?;
    show("windows of 3", &windows);
    println!("{windows}");
    match signal.as_strided(&[6, 3], &[1, 1], 1) {
        Ok(_) => unreachable!("the last window would read past the storage"),
        Err(e) => println!("as_strided past the end -> Err: {e}"),
    }
    let unfolded = signal.unfold(0, 3, 1)?;
    println!(
        "unfold(0, 3, 1) gives the same windows: {}",
        unfolded.to_vec() == windows.to_vec()
    );

    println!("\n== 5. contiguous() on a contiguous tensor shares its storage");
    let c = a.contiguous();
    println!("a.contiguous() shares storage: {}", c.shares_storage(&a));
    let ct = at.contiguous();
    show("a.t().contiguous()", &ct);
    println!(
        "a.t().contiguous() shares storage: {}",
        ct.shares_storage(&a)
    );

    println!("\n== 6. Fresh storage is 64-byte aligned");
    for len in [0usize, 1, 3, 1000, 1 << 20] {
        let s = Storage::full(len, 0u8)?;
        println!(
            "Storage<u8> of {len:>7} elements: address % 64 = {}",
            s.as_ptr() as usize % Storage::<u8>::ALIGN
        );
    }
    println!(
        "copy of a.t(): address % 64 = {}",
        ct.data_ptr() as usize % 64
    );

    println!("\n== 7. flip is a zero-copy view with a negative stride");
    let f = a.flip(1)?;
    show("a.flip(1)", &f);
    println!("shares storage: {}", f.shares_storage(&a));
    println!("{f}");
    let e = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[1, 3])?.expand(&[2, 3])?;
    show("row.expand([2, 3])", &e);
    Ok(())
}
