//! The integration tests, in one binary: each file below was a test crate of its own, and as
//! separate binaries each linked and optimised its own copy of every kernel it used, which made
//! a fresh `cargo test --release` spend most of its time compiling. Tests are named by file,
//! so `cargo test --test suite -- writes_props::` runs one of them.
//!
//! Left as binaries of their own: `audit.rs` (process-wide copy totals), `concurrency.rs`
//! (the process-wide buffer cache limit), `huge_pages.rs` (reads this process's memory map)
//! and `interop_serde_memory.rs` (a counting global allocator), whose checks other tests
//! running in the same process would disturb.

mod common;
#[cfg(any(
    feature = "dlpack",
    feature = "ndarray",
    feature = "npy",
    feature = "safetensors",
    feature = "serde"
))]
mod interop_common;
mod writes_common;

mod backings;
mod build_props;
mod cow_props;
mod errors;
mod errors_ops;
mod habits;
mod hardening;
mod index_props;
mod interop_dlpack;
mod interop_ndarray;
mod interop_npy;
mod interop_safetensors;
mod interop_serde;
mod invariance;
mod layout_props;
mod line_ops;
mod math_props;
mod matmul_props;
mod memory_format_props;
mod messages_named;
mod operators;
mod operators_audit;
mod ops_props;
mod overlap_props;
mod panic_locations;
mod promotion;
mod random;
mod regressions;
mod robustness;
mod slicing;
mod sort_ops;
mod spellings;
mod stats_props;
mod tensor_props;
mod view_writes;
mod views_vocab;
mod views_vocab_props;
mod writes_props;
