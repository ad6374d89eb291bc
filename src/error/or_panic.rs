//! The one way the panicking shorthands (`to_vec`, `contiguous`, `add_scalar`, `cast`, the
//! operators, ...) turn an `Err` into a panic: the message names the method the user called,
//! and the location is the user's line.
//!
//! `#[track_caller]` reaches through `#[track_caller]` functions only: a panic inside a closure
//! (`r.unwrap_or_else(|e| panic!("{e}"))`) reports the closure's line inside stridex, whatever
//! the attributes of the function around it. So the panic is made here, in a `#[track_caller]`
//! method, and every shorthand that calls it is `#[track_caller]` too, down from the public
//! method.

use super::{Error, Result};

/// `unwrap` for the panicking shorthands; see the module docs.
pub(crate) trait OrPanic<T> {
    /// The value, or a panic whose message is the error named for `op` (the public method
    /// the user called), located at the caller of the outermost `#[track_caller]` function.
    fn or_panic(self, op: &'static str) -> T;
}

impl<T> OrPanic<T> for Result<T> {
    #[track_caller]
    #[inline]
    fn or_panic(self, op: &'static str) -> T {
        match self {
            Ok(v) => v,
            Err(e) => fail(op, e),
        }
    }
}

/// The panic of [`OrPanic::or_panic`], out of line.
#[cold]
#[track_caller]
fn fail(op: &'static str, e: Error) -> ! {
    let msg = e.named(op).to_string();
    // Errors with an op field now start with `op: `; the others (an allocation failure) get
    // the prefix here.
    match msg
        .strip_prefix(op)
        .is_some_and(|rest| rest.starts_with(": "))
    {
        true => panic!("{msg}"),
        false => panic!("{op}: {msg}"),
    }
}
