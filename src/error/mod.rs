//! The crate's one error type.
//!
//! Every variant carries the operation that failed, the argument that was wrong and the layout
//! involved, so that the message alone tells a user what happened and what to do instead.

mod message;
mod or_panic;

pub(crate) use or_panic::OrPanic;

use crate::copy_reason::CopyReason;

/// Shorthand for `std::result::Result<T, stridex::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in stridex.
///
/// Messages name the operation, the offending argument, the layout and, where there is one, the
/// fix:
///
/// ```
/// use stridex::Tensor;
/// let t = Tensor::<f32>::zeros(&[4, 6])?.t()?;
/// let err = t.view(&[24]).unwrap_err();
/// assert!(err.to_string().contains("call reshape()"));
/// # Ok::<(), stridex::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A dimension argument was `>= ndim` (or `> ndim` where a new dim may be appended).
    DimOutOfRange {
        /// The operation, e.g. `"transpose"`.
        op: &'static str,
        /// The dimension asked for.
        dim: usize,
        /// The number of dimensions the layout has (or accepts for this op).
        ndim: usize,
    },
    /// An index along a dimension was out of range.
    IndexOutOfRange {
        /// The operation, e.g. `"select"`.
        op: &'static str,
        /// The dimension indexed.
        dim: usize,
        /// The index asked for.
        index: usize,
        /// The size of that dimension.
        size: usize,
    },
    /// A multi-index had the wrong number of entries.
    IndexRank {
        /// The operation, e.g. `"get"`.
        op: &'static str,
        /// The multi-index given.
        index: Vec<usize>,
        /// The shape it was meant for.
        shape: Vec<usize>,
    },
    /// A range `start..start + len` did not fit in a dimension.
    RangeOutOfBounds {
        /// The operation, e.g. `"narrow"`.
        op: &'static str,
        /// The dimension.
        dim: usize,
        /// First index of the range.
        start: usize,
        /// Length of the range.
        len: usize,
        /// Size of the dimension.
        size: usize,
    },
    /// A step (slice step, unfold step) of zero.
    ZeroStep {
        /// The operation, e.g. `"slice"`.
        op: &'static str,
        /// The dimension.
        dim: usize,
    },
    /// A window larger than the dimension it slides over.
    WindowTooLarge {
        /// The operation (`"unfold"`).
        op: &'static str,
        /// The dimension.
        dim: usize,
        /// The window size asked for.
        size: usize,
        /// The size of the dimension.
        dim_size: usize,
    },
    /// `permute` was given something that is not a permutation of `0..ndim`.
    NotAPermutation {
        /// The dims given.
        dims: Vec<usize>,
        /// The number of dims of the layout.
        ndim: usize,
    },
    /// Two dim arguments that must differ were the same (e.g. `diagonal_with`).
    DuplicateDim {
        /// The operation.
        op: &'static str,
        /// The dim given twice.
        dim: usize,
    },
    /// `squeeze(dim)` on a dimension whose size is not 1.
    SqueezeNonUnit {
        /// The dimension.
        dim: usize,
        /// Its size.
        size: usize,
        /// The full shape.
        shape: Vec<usize>,
    },
    /// Two element counts that had to agree did not (view/reshape, from_vec).
    NumelMismatch {
        /// The operation, e.g. `"view"` or `"from_vec"`.
        op: &'static str,
        /// Number of elements available.
        have: usize,
        /// The shape asked for.
        shape: Vec<usize>,
        /// Number of elements that shape needs (`None` if a size or the count exceeds
        /// `isize::MAX`).
        need: Option<usize>,
    },
    /// `view` cannot express the new shape with strides over the same storage elements.
    ViewNotPossible {
        /// The shape of the layout being viewed.
        shape: Vec<usize>,
        /// Its strides.
        strides: Vec<isize>,
        /// The shape asked for.
        requested: Vec<usize>,
        /// First and last input dim of the group that would have to be merged (inclusive).
        dims: (usize, usize),
    },
    /// `expand` asked to change a dimension whose size is not 1.
    ExpandMismatch {
        /// The shape being expanded.
        shape: Vec<usize>,
        /// The shape asked for.
        requested: Vec<usize>,
        /// The input dim that would change.
        dim: usize,
    },
    /// Two shapes that cannot be broadcast together (NumPy rules).
    BroadcastMismatch {
        /// The operation, e.g. `"add"` (`"broadcast"` where no op is known).
        op: &'static str,
        /// First shape.
        a: Vec<usize>,
        /// Second shape.
        b: Vec<usize>,
        /// The dim of the broadcast result (counted from the left of the result) that conflicts.
        dim: usize,
    },
    /// Two lists that must have one entry per dim had different lengths.
    RankMismatch {
        /// The operation, e.g. `"as_strided"`.
        op: &'static str,
        /// What was expected, e.g. `"strides"`.
        what: &'static str,
        /// The expected length.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A size, element count, stride or offset computation overflowed.
    Overflow {
        /// The operation.
        op: &'static str,
        /// The shape involved.
        shape: Vec<usize>,
        /// The strides involved (empty if not yet known).
        strides: Vec<isize>,
    },
    /// A layout would address a negative storage offset.
    NegativeOffset {
        /// The operation.
        op: &'static str,
        /// The lowest offset the layout would address.
        min_offset: i128,
        /// The shape involved.
        shape: Vec<usize>,
        /// The strides involved.
        strides: Vec<isize>,
    },
    /// A layout addresses storage past its end.
    OutOfBounds {
        /// The operation.
        op: &'static str,
        /// The highest storage offset the layout needs (or the offset of an empty layout).
        offset: usize,
        /// The storage length in elements.
        storage_len: usize,
        /// The shape involved.
        shape: Vec<usize>,
        /// The strides involved.
        strides: Vec<isize>,
    },
    /// Two shapes that must be equal were not (copy source and destination).
    ShapeMismatch {
        /// The operation, e.g. `"copy_into"`.
        op: &'static str,
        /// The shape the operation needed.
        expected: Vec<usize>,
        /// The shape given.
        got: Vec<usize>,
    },
    /// A write needs the destination's storage to itself, but other tensors share it.
    SharedStorage {
        /// The operation.
        op: &'static str,
        /// How many tensors (including the destination) hold the storage.
        holders: usize,
    },
    /// A write needs to change the destination's storage in place, but its elements are
    /// foreign bytes that belong to another value (a memory-mapped file, ...), never written.
    ReadOnlyStorage {
        /// The operation.
        op: &'static str,
    },
    /// A destination layout addresses some storage element more than once (e.g. an expanded,
    /// stride-0 dim), so writing through it is ambiguous.
    OverlappingDestination {
        /// The operation.
        op: &'static str,
        /// The destination's shape.
        shape: Vec<usize>,
        /// The destination's strides.
        strides: Vec<isize>,
    },
    /// An index read from an index tensor (`index_select`, `gather`, `scatter`, `take`, ...) is
    /// negative or not below the size of the dim it indexes; or an integer item of a
    /// multi-dim index (`i`, the cause of an [`Error::IndexItem`]) is outside `-size..size`.
    IndexOutOfBounds {
        /// The operation.
        op: &'static str,
        /// The dim indexed (0 for a flat index).
        dim: usize,
        /// The offending index.
        index: i64,
        /// The size of that dim (the element count for a flat index).
        size: usize,
    },
    /// An argument outside the values an operation accepts (e.g. a negative tolerance, a
    /// norm order that is not 1, 2 or infinity); the message says which and why.
    InvalidArgument {
        /// The operation.
        op: &'static str,
        /// What was wrong and what to pass instead.
        message: String,
    },
    /// A write's source does not broadcast to the destination's shape (a write never changes
    /// the destination's shape).
    SourceMismatch {
        /// The operation, e.g. `"copy_from"`.
        op: &'static str,
        /// The destination's shape.
        dst: Vec<usize>,
        /// The source's shape.
        src: Vec<usize>,
    },
    /// An operation that builds a tensor from parts (`cat`, `stack`) was given no parts.
    NoInputs {
        /// The operation.
        op: &'static str,
    },
    /// The parts given to `cat` or `stack` do not fit together.
    PartsMismatch {
        /// The operation.
        op: &'static str,
        /// Position of the offending part in the list.
        index: usize,
        /// Its shape.
        shape: Vec<usize>,
        /// The shape of part 0.
        first: Vec<usize>,
        /// For `cat`, the dim along which sizes may differ; `None` for `stack` (all must match).
        dim: Option<usize>,
    },
    /// `as_strided` on a mutable view that shares its storage with a sibling view (from
    /// `split_at`) would reach elements outside the view.
    EscapesView {
        /// The operation.
        op: &'static str,
        /// The shape asked for.
        shape: Vec<usize>,
        /// The strides asked for.
        strides: Vec<isize>,
        /// The storage offset asked for.
        offset: usize,
    },
    /// A memory format asked of a layout with the wrong number of dims.
    FormatRank {
        /// The operation.
        op: &'static str,
        /// The format's name (`"channels_last"`, `"channels_last_3d"`).
        format: &'static str,
        /// The number of dims given.
        ndim: usize,
    },
    /// A copy the user did not ask for, inside
    /// [`forbid_implicit_copies`](crate::audit::forbid_implicit_copies).
    ImplicitCopy {
        /// Why the operation would have copied.
        reason: CopyReason,
        /// Bytes it would have copied.
        bytes: usize,
        /// The user's source line.
        location: &'static std::panic::Location<'static>,
    },
    /// The allocator could not provide the memory.
    Alloc {
        /// The operation that allocated, e.g. `"zeros"` or `"contiguous"` (`"allocate"` where
        /// no op is known).
        op: &'static str,
        /// Bytes requested.
        bytes: usize,
    },
    /// An integer division had a zero divisor (integers have no value for `x / 0`).
    DivisionByZero {
        /// The operation, e.g. `"div"`.
        op: &'static str,
    },
    /// A reduction with no identity (max, min, argmax, argmin) over zero elements.
    EmptyReduction {
        /// The operation, e.g. `"max"`.
        op: &'static str,
        /// The dims reduced.
        dims: Vec<usize>,
        /// The shape of the input.
        shape: Vec<usize>,
    },
    /// `matmul`: the contracted dims of the two operands differ in size.
    MatmulMismatch {
        /// Shape of the left operand.
        a: Vec<usize>,
        /// Shape of the right operand.
        b: Vec<usize>,
        /// The contracted dim of `a` (its last).
        a_dim: usize,
        /// The contracted dim of `b` (its second to last, or its only dim).
        b_dim: usize,
    },
    /// `matmul`: the batch dims (all but the two matrix dims) of the operands do not broadcast.
    MatmulBatchMismatch {
        /// Shape of the left operand.
        a: Vec<usize>,
        /// Shape of the right operand.
        b: Vec<usize>,
        /// The batch dims of `a`.
        a_batch: Vec<usize>,
        /// The batch dims of `b`.
        b_batch: Vec<usize>,
    },
    /// Reading or writing a file failed in the operating system (not found, no permission,
    /// disk full, ...).
    Io {
        /// The operation, e.g. `"load_npy"`.
        op: &'static str,
        /// The file, or `"<reader>"` / `"<writer>"` for a stream.
        path: String,
        /// The kind of failure.
        kind: std::io::ErrorKind,
        /// The operating system's message.
        message: String,
    },
    /// A file's contents do not follow its format (truncated, bad header, offsets out of
    /// range, ...).
    MalformedFile {
        /// The format, e.g. `"npy"` or `"safetensors"`.
        format: &'static str,
        /// The file, or `"<reader>"` for a stream.
        path: String,
        /// What was expected and what was found.
        message: String,
    },
    /// A file holds elements of a type stridex has no [`Element`](crate::Element) for
    /// (complex, strings, fp8, ...).
    UnsupportedDType {
        /// The format, e.g. `"npy"` or `"safetensors"`.
        format: &'static str,
        /// The file, or `"<reader>"` for a stream.
        path: String,
        /// The type as the file names it, e.g. `"<c16"` or `"F8_E4M3"`.
        dtype: String,
    },
    /// A dynamically typed tensor holds another element type than the one asked for.
    DTypeMismatch {
        /// The operation.
        op: &'static str,
        /// The element type asked for.
        expected: crate::DType,
        /// The element type the tensor holds.
        got: crate::DType,
    },
    /// A negative dim (counted from the end, PyTorch's rule) that counts back past the first
    /// dim.
    NegativeDimOutOfRange {
        /// The operation, e.g. `"sum_dim"`.
        op: &'static str,
        /// The dim given.
        dim: i64,
        /// The number of dims it counts back from.
        ndim: usize,
    },
    /// A list of dims (`sum_dims`, `mean_dims`, ...) named one dim twice: in one form
    /// (`[1, 1]`), or in two (`[1, -1]` of a 2-dim tensor, where `-1` is dim 1 as well).
    RepeatedDim {
        /// The operation, e.g. `"sum_dims"`.
        op: &'static str,
        /// The two entries as given, in list order (equal, or one counted from the end).
        given: (i64, i64),
        /// The dim both name.
        dim: usize,
        /// The number of dims of the tensor.
        ndim: usize,
    },
    /// An index read from a `u64` index tensor is greater than `i64::MAX` (so greater than
    /// `isize::MAX`, beyond any size): out of range for every dim. Smaller out-of-range
    /// indices are [`Error::IndexOutOfBounds`].
    IndexTooLarge {
        /// The operation.
        op: &'static str,
        /// The dim indexed (0 for a flat index).
        dim: usize,
        /// The offending index.
        index: u64,
        /// The size of that dim (the element count for a flat index).
        size: usize,
    },
    /// A write to a tensor made by a view op while its storage is still held by a tensor
    /// other than its own clones (the tensor it was viewed from, another view): a
    /// copy-on-write would leave that tensor unchanged, which is almost never what a write to
    /// a view means, so it is refused. The message's two ways out, run:
    ///
    /// ```
    /// use stridex::{Error, Tensor};
    /// let mut base = Tensor::<f32>::zeros(&[3, 4])?;
    /// let col = base.narrow(1, 1, 1)?;
    /// let mut refused = col.clone();
    /// assert!(matches!(refused.fill(7.0), Err(Error::WriteToSharedView { .. })));
    /// drop(refused);
    /// // A private copy to write:
    /// let mut private = col.to_owned();
    /// private.fill(7.0)?;
    /// assert_eq!(private.to_vec(), vec![7.0; 3]);
    /// // Or write into the base through the same view ops:
    /// drop(col);
    /// base.view_mut()?.narrow(1, 1, 1)?.fill(7.0)?;
    /// assert_eq!(base.get(&[2, 1])?, 7.0);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    WriteToSharedView {
        /// The write asked for, e.g. `"fill"`.
        op: &'static str,
        /// The view's shape.
        shape: Vec<usize>,
        /// How many holders the storage has, this view included (its clones, the tensors
        /// that are not, and `Weak` references).
        holders: usize,
    },
    /// An item of a multi-dim index (`i`, [`s!`](crate::s)) that does not fit the layout:
    /// `cause` says how ([`Error::ZeroStep`], [`Error::IndexOutOfBounds`],
    /// [`Error::RankMismatch`] for more items than dims, [`Error::Overflow`]), and is this
    /// error's [`source`](std::error::Error::source).
    IndexItem {
        /// The operation (`"i"`).
        op: &'static str,
        /// The position of the item in the index, from 0 ([`NewAxis`](crate::NewAxis)
        /// items included).
        item: usize,
        /// The dim it applies to (the number of dims when none is left).
        dim: usize,
        /// The shape indexed.
        shape: Vec<usize>,
        /// What is wrong with the item.
        cause: Box<Error>,
    },
}

impl Error {
    /// This error with its op renamed to `name`, the method the user called, whatever the
    /// variant (the helper that failed inside it named itself); errors without an op, and
    /// an implicit copy (named by its reason), are unchanged.
    pub(crate) fn named(mut self, name: &'static str) -> Error {
        match &mut self {
            Error::DimOutOfRange { op, .. }
            | Error::IndexOutOfRange { op, .. }
            | Error::IndexRank { op, .. }
            | Error::RangeOutOfBounds { op, .. }
            | Error::ZeroStep { op, .. }
            | Error::WindowTooLarge { op, .. }
            | Error::DuplicateDim { op, .. }
            | Error::NumelMismatch { op, .. }
            | Error::BroadcastMismatch { op, .. }
            | Error::RankMismatch { op, .. }
            | Error::Overflow { op, .. }
            | Error::NegativeOffset { op, .. }
            | Error::OutOfBounds { op, .. }
            | Error::ShapeMismatch { op, .. }
            | Error::SharedStorage { op, .. }
            | Error::ReadOnlyStorage { op, .. }
            | Error::OverlappingDestination { op, .. }
            | Error::IndexOutOfBounds { op, .. }
            | Error::InvalidArgument { op, .. }
            | Error::SourceMismatch { op, .. }
            | Error::NoInputs { op, .. }
            | Error::PartsMismatch { op, .. }
            | Error::EscapesView { op, .. }
            | Error::FormatRank { op, .. }
            | Error::Alloc { op, .. }
            | Error::DivisionByZero { op, .. }
            | Error::EmptyReduction { op, .. }
            | Error::Io { op, .. }
            | Error::DTypeMismatch { op, .. }
            | Error::NegativeDimOutOfRange { op, .. }
            | Error::RepeatedDim { op, .. }
            | Error::IndexTooLarge { op, .. }
            | Error::WriteToSharedView { op, .. }
            | Error::IndexItem { op, .. } => *op = name,
            _ => {}
        }
        self
    }

    /// The same error reported for `op`, the public operation the user called, when an inner
    /// step (e.g. `Layout::contiguous` inside `zeros`) named itself instead (shape and size
    /// errors only).
    pub(crate) fn with_op(mut self, name: &'static str) -> Error {
        match &mut self {
            Error::Overflow { op, .. }
            | Error::NumelMismatch { op, .. }
            | Error::RankMismatch { op, .. }
            | Error::NegativeOffset { op, .. }
            | Error::OutOfBounds { op, .. }
            | Error::FormatRank { op, .. }
            | Error::Alloc { op, .. } => *op = name,
            _ => {}
        }
        self
    }
}

/// The byte size of `numel` elements of `elem_size` bytes for a fresh result of `shape`, or
/// [`Error::Overflow`] naming `op` and `shape` if it exceeds `isize::MAX` (which no allocation
/// can satisfy: an overflow, not an allocation failure).
#[inline]
pub(crate) fn checked_bytes(
    op: &'static str,
    shape: &[usize],
    numel: usize,
    elem_size: usize,
) -> Result<usize> {
    match numel.checked_mul(elem_size) {
        Some(b) if b <= isize::MAX as usize => Ok(b),
        _ => Err(bytes_overflow(op, shape)),
    }
}

/// The error of [`checked_bytes`], out of line.
#[cold]
fn bytes_overflow(op: &'static str, shape: &[usize]) -> Error {
    Error::Overflow {
        op,
        shape: shape.to_vec(),
        strides: vec![],
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::IndexItem { cause, .. } => Some(&**cause),
            _ => None,
        }
    }
}
