//! stridex
pub mod error;
pub mod layout;
pub use error::{Error, Result};
pub use layout::{broadcast_shapes, Layout};
