//! Strided tensors with explicit, cheap layouts.
//!
//! Tensor code loses most of its time not in arithmetic but in memory layout: a `transpose()` or
//! `narrow()` quietly makes a tensor non-contiguous, the next op makes a hidden copy, and latency
//! triples. stridex makes layout explicit: every view op is a pure function on a [`Layout`], no
//! view op touches element data, and the copies that remain are few, visible and fast.
//!
//! # Concepts
//!
//! - A [`Layout`] is a shape, strides (in elements, `isize`, may be negative or zero) and an
//!   offset. Element `[i, j, ..]` lives at storage offset
//!   `offset + i * strides[0] + j * strides[1] + ..`. A transpose swaps two strides, a narrow
//!   moves the offset, an expand sets strides to 0, a flip negates one. Layout arithmetic is
//!   checked: overflow is an [`Error`], never a wrap.
//! - A [`Storage`] is a buffer whose first element is 64-byte aligned (2 MiB aligned, on huge
//!   pages, when large). Tensors share it through an `Arc`.
//! - A [`Tensor`] is a storage plus a layout. Cloning and every view op are O(ndim) and share
//!   the storage; [`Tensor::contiguous`] returns the same storage when the layout already is
//!   row-major, and otherwise makes one tiled, vectorised, parallel copy.
//!
//! # Quick start
//!
//! ```
//! use stridex::Tensor;
//!
//! let a = Tensor::arange(0.0f32, 12.0, 1.0)?.view(&[3, 4])?;
//! let t = a.t()?; // a view: shape [4, 3], strides [1, 4], same storage
//! assert!(t.shares_storage(&a) && !t.is_contiguous());
//!
//! // Flattening a transposed matrix cannot be a view; `view` says so and why ...
//! let err = t.view(&[12]).unwrap_err();
//! assert!(err.to_string().contains("call reshape() to copy"));
//! // ... and `reshape` copies instead.
//! assert_eq!(t.reshape(&[12])?.to_vec()[..4], [0.0, 4.0, 8.0, 1.0]);
//!
//! // Views compose without copying: every 2nd column of the last two rows, reversed.
//! let v = a.narrow(0, 1, 2)?.slice(1, -1, isize::MIN, -2)?;
//! assert_eq!(v.to_vec(), vec![7.0, 5.0, 11.0, 9.0]);
//! assert!(v.shares_storage(&a));
//! # Ok::<(), stridex::Error>(())
//! ```
//!
//! # Errors
//!
//! Every fallible operation returns [`Result`] with one error type, [`Error`], whose message
//! names the operation, the argument, the layout and, where one exists, the fix. Nothing in the
//! crate panics on user input; the few remaining panics (allocation failure in the infallible
//! [`Tensor::contiguous`]) are documented where they can occur.
//!
//! # Modules
//!
//! - [`layout`]: shape and stride arithmetic, no element types, no `unsafe`.
//! - [`storage`]: the aligned allocation.
//! - [`element`]: the element types (`f32`, `f64`, `f16`, `bf16`, `i8`..`i64`, `u8`..`u64`).
//! - [`error`]: the error type.
//! - [`audit`]: counting, locating and forbidding copies.
//! - [`matmul`]: matrix products of strided operands, and the element types they support.

#![warn(missing_docs)]

pub mod audit;
pub mod element;
pub mod error;
mod kernels;
pub mod layout;
pub mod matmul;
pub mod storage;
mod tensor;

pub use element::{DType, Element};
pub use error::{Error, Result};
pub use layout::{broadcast_shapes, Layout, MemoryFormat};
pub use storage::Storage;
pub use tensor::{Iter, Tensor};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
