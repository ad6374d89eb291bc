//! [`CopyReason`]: why stridex copied element data. A leaf module (it imports nothing of the
//! crate's) so that both the error type, whose `ImplicitCopy` names a reason, and the copy
//! audit, which records one per copy, can use it without importing each other. Re-exported
//! as `stridex::audit::CopyReason`.

use std::fmt;

/// Why stridex copied element data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CopyReason {
    /// `contiguous()` on a non-contiguous tensor (asked for).
    Contiguous,
    /// `contiguous_in(format)` on a tensor not dense in that format (asked for).
    ContiguousIn,
    /// `contiguous_into` into an existing buffer (asked for).
    ContiguousInto,
    /// `copy_into` an existing tensor (asked for).
    CopyInto,
    /// `to_vec()` (asked for).
    ToVec,
    /// `to_owned()`: a private copy, always made (asked for).
    ToOwned,
    /// Building a tensor from a slice or `Vec`, copied into aligned storage (asked for).
    FromSlice,
    /// `reshape` could not be a view and copied (implicit).
    ReshapeCopy,
    /// A write (`view_mut`, `fill`, `copy_from`, `add_assign`, ...) to a tensor whose storage
    /// other tensors share: the writer first gets its own copy, so no other tensor sees the
    /// write (implicit).
    CopyOnWrite,
    /// Building a tensor from parts (`cat`, `stack`, `pad`), asked for.
    Assemble,
    /// A DLPack export that copies (`Tensor::to_dlpack_copy`, Python's `copy=True`, or a
    /// legacy export of memory that must stay read-only), asked for.
    DLPackExport,
}

impl CopyReason {
    /// Whether the user did not ask for this copy by name: the copies
    /// [`forbid_implicit_copies`](crate::audit::forbid_implicit_copies) turns into errors.
    ///
    /// ```
    /// use stridex::audit::CopyReason;
    /// assert!(CopyReason::ReshapeCopy.is_implicit());
    /// assert!(CopyReason::CopyOnWrite.is_implicit());
    /// assert!(!CopyReason::Contiguous.is_implicit());
    /// ```
    pub fn is_implicit(self) -> bool {
        matches!(self, CopyReason::ReshapeCopy | CopyReason::CopyOnWrite)
    }

    /// A short name, e.g. `"reshape copy"`.
    ///
    /// ```
    /// assert_eq!(stridex::audit::CopyReason::ToVec.name(), "to_vec");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            CopyReason::Contiguous => "contiguous",
            CopyReason::ContiguousIn => "contiguous_in",
            CopyReason::ContiguousInto => "contiguous_into",
            CopyReason::CopyInto => "copy_into",
            CopyReason::ToVec => "to_vec",
            CopyReason::ToOwned => "to_owned",
            CopyReason::FromSlice => "from_slice",
            CopyReason::ReshapeCopy => "reshape copy",
            CopyReason::CopyOnWrite => "copy-on-write",
            CopyReason::Assemble => "cat/stack/pad",
            CopyReason::DLPackExport => "dlpack export",
        }
    }
}

impl fmt::Display for CopyReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
