//! Sets `cfg(stridex_avx512)` (the AVX-512 matmul kernels) when the compiler is Rust 1.89 or
//! newer, where the AVX-512 intrinsics are stable, or when the `avx512` feature asks for them.
//! The kernels are still chosen at run time, on CPUs that have AVX-512 (`src/matmul/kernel.rs`);
//! older compilers build the AVX2 and portable kernels alone, so the crate's rust-version stays
//! below 1.89.

use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(stridex_avx512)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=RUSTC");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let minor = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|v| minor_version(&v));
    let feature = std::env::var_os("CARGO_FEATURE_AVX512").is_some();
    if feature || minor.is_some_and(|m| m >= 89) {
        println!("cargo::rustc-cfg=stridex_avx512");
    }
}

/// The minor version of `rustc 1.MINOR.PATCH ...`.
fn minor_version(version: &str) -> Option<u32> {
    let rest = version.strip_prefix("rustc 1.")?;
    rest.split(['.', '-', ' ']).next()?.parse().ok()
}
