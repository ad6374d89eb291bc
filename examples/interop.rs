//! Interop end to end: write a `.safetensors` file, load it, run a matmul on a weight read in
//! place from the loaded file, save the result as `.npy` and read it back.
//!
//! ```text
//! cargo run --release --example interop --features safetensors,npy
//! ```

use stridex::interop::{load_npy, load_safetensors, save_npy, save_safetensors};
use stridex::{Tensor, audit};

fn main() -> Result<(), stridex::Error> {
    let dir = std::env::temp_dir();
    let weights = dir.join(format!(
        "stridex-interop-{}.safetensors",
        std::process::id()
    ));
    let result = dir.join(format!("stridex-interop-{}.npy", std::process::id()));

    // A "model": a 4x3 weight stored transposed (as PyTorch's Linear stores [out, in]), a bias
    // and some token ids of another element type, all in one file.
    let w = Tensor::arange(0.0f32, 12.0, 1.0)?.view(&[3, 4])?.t()?; // [4, 3], not contiguous
    let bias = Tensor::from_vec(vec![0.5f32, -0.5, 1.0], &[3])?;
    let ids = Tensor::from_vec(vec![3i64, 1, 4], &[3])?;
    save_safetensors(&weights, &[("w", &w), ("bias", &bias), ("ids", &ids)])?;
    println!("wrote {}", weights.display());

    // Load: one read of the file; every tensor reads its bytes in place.
    let file = load_safetensors(&weights)?;
    for (name, t) in file.iter() {
        println!("  {name}: {} {:?}", t.dtype(), t.shape());
    }
    let w2 = file.tensor::<f32>("w")?;
    let b2 = file.tensor::<f32>("bias")?;
    assert!(
        !w2.storage().is_writable(),
        "the weight is the file's bytes, not a copy"
    );
    println!(
        "weight read in place: {} (64-byte aligned: {}; to_aligned() would copy it)",
        !w2.storage().is_writable(),
        w2.storage().is_aligned()
    );

    // A layer on the loaded weight: x @ w + bias. The audit shows that nothing was copied to
    // make the operands contiguous; the only new memory is the result.
    let x = Tensor::arange(1.0f32, 9.0, 1.0)?.view(&[2, 4])?;
    let (y, report) =
        audit::record(|| -> Result<Tensor<f32>, stridex::Error> { &x.matmul(&w2)? + &b2 });
    let y = y?;
    println!("y = x @ w + bias:\n{y}");
    println!("copies while computing y: {}", report.count());
    assert_eq!(y.to_vec(), (&x.matmul(&w)? + &bias)?.to_vec());

    // Save the result for NumPy (np.load reads it) and read it back.
    save_npy(&result, &y)?;
    let back = load_npy(&result)?.into_tensor::<f32>()?;
    assert_eq!((back.shape(), back.to_vec()), (y.shape(), y.to_vec()));
    println!(
        "wrote {} and read it back: {:?}",
        result.display(),
        back.shape()
    );

    drop((file, w2, b2));
    std::fs::remove_file(&weights).ok();
    std::fs::remove_file(&result).ok();
    Ok(())
}
