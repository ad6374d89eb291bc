//! Placeholder; the interop example is written below.
fn main() {}
