//! Channels-last (NHWC) in stridex: convert a batch, look at the strides, run an op that keeps
//! the format, and time the conversion next to a memcpy of the same bytes.
//! Run with `cargo run --release --example channels_last`.

use std::hint::black_box;
use std::time::Instant;

use stridex::{Error, MemoryFormat, Tensor};

fn median_ms(mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..7)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[3]
}

fn main() -> Result<(), Error> {
    let shape = [32, 64, 56, 56];
    let n: usize = shape.iter().product();
    let x = Tensor::from_vec((0..n).map(|i| (i % 1000) as f32).collect(), &shape)?;
    println!("batch NCHW {:?}", x.shape());
    println!(
        "  strides {:?}  suggest_memory_format: {}",
        x.strides(),
        x.suggest_memory_format()
    );

    let y = x.contiguous_in(MemoryFormat::ChannelsLast)?;
    println!(
        "after contiguous_in(ChannelsLast): shape {:?} (unchanged)",
        y.shape()
    );
    println!(
        "  strides {:?}  suggest_memory_format: {}",
        y.strides(),
        y.suggest_memory_format()
    );
    println!(
        "  same values at every index: {}",
        y.get(&[3, 17, 5, 9])? == x.get(&[3, 17, 5, 9])?
    );
    println!(
        "  converting again copies nothing: {}",
        y.contiguous_in(MemoryFormat::ChannelsLast)?
            .shares_storage(&y)
    );

    // Elementwise ops allocate their output in the inputs' dense order: channels-last stays
    // channels-last, with no copy of the operands.
    let z = y.mul_scalar(2.0).add(&y)?;
    println!(
        "y * 2 + y: strides {:?}  channels-last: {}",
        z.strides(),
        z.is_contiguous_in(MemoryFormat::ChannelsLast)
    );
    let per_pixel = y.sum_dim(1, true)?; // reduces C, unit-stride runs in channels-last
    println!("sum over C: shape {:?}", per_pixel.shape());

    // View ops keep the format's physical order: a crop of the spatial dims is still
    // channels-last (not dense any more, but the strides still say NHWC).
    let crop = y.narrow(2, 4, 48)?.narrow(3, 4, 48)?;
    println!(
        "a 48x48 crop is a view with strides {:?}: suggest_memory_format {}",
        crop.strides(),
        crop.suggest_memory_format()
    );
    let dense_crop = crop.contiguous_in(MemoryFormat::ChannelsLast)?;
    println!(
        "  made dense in channels-last again: strides {:?}",
        dense_crop.strides()
    );

    let bytes = n * std::mem::size_of::<f32>();
    let src = vec![1.0f32; n];
    let mut dst = vec![0.0f32; n];
    let memcpy = median_ms(|| dst.copy_from_slice(black_box(&src)));
    let to_nhwc = median_ms(|| {
        black_box(x.contiguous_in(MemoryFormat::ChannelsLast).unwrap());
    });
    let to_nchw = median_ms(|| {
        black_box(y.contiguous());
    });
    println!(
        "\ntimes for {} MiB (median of 7, all cores of the rayon pool):",
        bytes >> 20
    );
    println!("  memcpy into a touched buffer   {memcpy:7.2} ms");
    println!(
        "  NCHW -> NHWC (fresh output)    {to_nhwc:7.2} ms  ({:.2}x memcpy speed)",
        memcpy / to_nhwc
    );
    println!(
        "  NHWC -> NCHW (fresh output)    {to_nchw:7.2} ms  ({:.2}x memcpy speed)",
        memcpy / to_nchw
    );
    Ok(())
}
