//! The copy audit on a small inference-style pipeline: first written the way one often writes
//! it, with copies nobody asked for, then fixed to copy nothing; the report shows both.
//! Run with `cargo run --release --example audit`.

use stridex::{Error, Tensor, audit};

/// One dense layer on a batch stored feature-major (`[features, batch]`, as a previous op
/// left it): transpose to `[batch, features]`, multiply by the weights, add the bias, and
/// flatten the activations for the next stage.
fn layer_naive(x: &Tensor<f32>, w: &Tensor<f32>, b: &Tensor<f32>) -> Result<Tensor<f32>, Error> {
    let xt = x.t()?.contiguous(); // "make it contiguous first", out of habit
    let h = xt.matmul(w)?; // [batch, out]
    let h = h.add(b)?; // bias broadcast over the batch
    let h = h.t()?; // the next stage wants [out, batch] ...
    h.reshape(&[h.numel()]) // ... flattened: not a view of a transpose, so it copies
}

/// The same computation with no copy: matmul reads the transposed operand through its
/// strides, and computing `w^T x^T` gives `[out, batch]` directly, already row-major, so the
/// flatten is a view.
fn layer_fixed(x: &Tensor<f32>, w: &Tensor<f32>, b: &Tensor<f32>) -> Result<Tensor<f32>, Error> {
    let h = w.t()?.matmul(x)?; // [out, batch] = w^T x, with x as stored
    let h = h.add(&b.unsqueeze(1)?)?; // bias as a column, broadcast over the batch
    h.view(&[h.numel()])
}

fn main() -> Result<(), Error> {
    let (features, batch, out) = (256, 64, 128);
    let x = Tensor::arange(0.0f32, (features * batch) as f32, 1.0)?
        .view(&[features, batch])?
        .mul_scalar(1e-4);
    let w = Tensor::arange(0.0f32, (features * out) as f32, 1.0)?
        .view(&[features, out])?
        .mul_scalar(1e-5);
    let b = Tensor::full(&[out], 0.5f32)?;

    println!("x: {}", x.layout().explain().lines().next().unwrap_or(""));
    let (naive, report) = audit::record(|| layer_naive(&x, &w, &b));
    let naive = naive?;
    println!("\n== naive layer: {report}");

    let (fixed, report) = audit::record(|| layer_fixed(&x, &w, &b));
    let fixed = fixed?;
    println!("\n== fixed layer: {report}");

    let max_diff = naive
        .iter()
        .zip(fixed.iter())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!("\nsame result: max |difference| = {max_diff:e}");

    // The strict scope turns the naive version's implicit copy into an error.
    match audit::forbid_implicit_copies(|| layer_naive(&x, &w, &b)) {
        Ok(_) => println!("the naive layer made no implicit copy"),
        Err(e) => println!("\nnaive layer under forbid_implicit_copies: Err: {e}"),
    }
    let strict = audit::forbid_implicit_copies(|| layer_fixed(&x, &w, &b));
    println!(
        "fixed layer under forbid_implicit_copies: ok = {}",
        strict.is_ok()
    );
    Ok(())
}
