//! stridex
pub mod element;
pub mod error;
mod kernels;
pub mod layout;
pub mod matmul;
pub mod storage;
mod tensor;

pub use element::{DType, Element};
pub use error::{Error, Result};
pub use layout::{broadcast_shapes, Layout};
pub use storage::Storage;
pub use tensor::{Iter, Tensor};
