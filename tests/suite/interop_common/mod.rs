//! Shared pieces of the interop tests: random views (transposed, narrowed, flipped, strided,
//! expanded, selected) of random tensors of every element type, and scratch files.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use half::{bf16, f16};
use proptest::prelude::*;
use stridex::{Element, Tensor};

/// The suite's proptest configuration (`PROPTEST_CASES` if set).
pub use crate::common::config;

/// A fresh path in the temp dir, unique per process and call.
pub fn scratch(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("stridex-test-{}-{n}-{name}", std::process::id()))
}

/// Element values for tests: any bit pattern (`from_bits`, NaNs included, compared by bits)
/// or small exact numbers (`from_index`, for formats without NaN).
pub trait Sample: Element {
    fn from_index(i: usize) -> Self;
    fn from_bits(bits: u64) -> Self {
        bytemuck::pod_read_unaligned(&bits.to_le_bytes()[..std::mem::size_of::<Self>()])
    }
}

macro_rules! sample_int {
    ($($t:ty),*) => {$(
        impl Sample for $t {
            fn from_index(i: usize) -> Self { (i % 97) as $t }
        }
    )*};
}
sample_int!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Sample for f32 {
    fn from_index(i: usize) -> Self {
        i as f32 * 0.5 - 7.0
    }
}
impl Sample for f64 {
    fn from_index(i: usize) -> Self {
        i as f64 * 0.25 - 3.0
    }
}
impl Sample for f16 {
    fn from_index(i: usize) -> Self {
        f16::from_f32((i % 200) as f32 * 0.5 - 9.0)
    }
}
impl Sample for bf16 {
    fn from_index(i: usize) -> Self {
        bf16::from_f32((i % 200) as f32 * 0.25 - 5.0)
    }
}

/// The bytes of `values`, for exact comparison (NaN payloads included).
pub fn bits<T: Element>(values: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(values).to_vec()
}

/// A base tensor (shape, values from `seed`) and a chain of view ops on it.
#[derive(Debug, Clone)]
pub struct Recipe {
    pub shape: Vec<usize>,
    pub ops: Vec<(u8, usize, usize)>,
    pub seed: u64,
}

pub fn arb_recipe() -> impl Strategy<Value = Recipe> {
    (
        prop::collection::vec(0usize..5, 0..4),
        prop::collection::vec((0u8..6, 0usize..16, 0usize..16), 0..6),
        any::<u64>(),
    )
        .prop_map(|(shape, ops, seed)| Recipe { shape, ops, seed })
}

impl Recipe {
    /// The view, with element `i` of the base (row-major) given by `value(seed-mixed i)`.
    pub fn view<T: Element>(&self, value: impl Fn(u64) -> T) -> Tensor<T> {
        let n: usize = self.shape.iter().product();
        let data: Vec<T> = (0..n as u64)
            .map(|i| value(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.seed))
            .collect();
        let mut t = Tensor::from_vec(data, &self.shape).unwrap();
        for &(kind, a, b) in &self.ops {
            if let Some(next) = apply(&t, kind, a, b) {
                t = next;
            }
        }
        t
    }

    /// The view with arbitrary bit patterns.
    pub fn random<T: Sample>(&self) -> Tensor<T> {
        self.view(T::from_bits)
    }

    /// The view with small exact values.
    pub fn exact<T: Sample>(&self) -> Tensor<T> {
        self.view(|i| T::from_index((i % 1000) as usize))
    }
}

fn apply<T: Element>(t: &Tensor<T>, kind: u8, a: usize, b: usize) -> Option<Tensor<T>> {
    let nd = t.ndim();
    if nd == 0 && kind != 3 {
        return None;
    }
    let d = a % nd.max(1);
    let size = t.shape().get(d).copied().unwrap_or(1);
    match kind {
        0 => t.transpose(d, b % nd).ok(),
        1 => {
            let start = b % (size + 1);
            t.narrow(d, start, (size - start).min(a % 4)).ok()
        }
        2 => t.flip(d).ok(),
        3 if nd < 5 => {
            let at = a % (nd + 1);
            let u = t.unsqueeze(at).ok()?;
            let mut shape = u.shape().to_vec();
            shape[at] = 1 + b % 3;
            u.expand(&shape).ok()
        }
        4 => {
            let step = [2isize, -1, -2, 3][b % 4];
            t.slice_step(d, .., step).ok()
        }
        5 if nd > 1 && size > 0 => t.select(d, b % size).ok(),
        _ => None,
    }
}
