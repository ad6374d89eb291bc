//! The names most programs use, for one glob import: `use stridex::prelude::*;`.
//!
//! The tensor types, the error type, the index macro and its items, the traits users name
//! as bounds ([`Element`], [`Numeric`], [`Dim`]), and [`TensorResult`], which chains fallible
//! steps with one `?` (`a.t().matmul(&b)?`).
//!
//! ```
//! use stridex::prelude::*;
//! let a = Tensor::from_vec((0..6).map(|v| v as f32).collect(), &[2, 3])?;
//! let b = a.i(s![.., 1..]).t().matmul(&a)?;
//! assert_eq!(b.shape(), &[2, 3]);
//! # Ok::<(), stridex::Error>(())
//! ```

pub use crate::element::{DType, Element};
pub use crate::error::{Error, Result};
pub use crate::layout::{Dim, NewAxis, SliceItem};
pub use crate::s;
pub use crate::scalar::Numeric;
pub use crate::tensor::{Tensor, TensorResult};
pub use crate::tensor_mut::TensorMut;
pub use crate::tensor_view::TensorView;
