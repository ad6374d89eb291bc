//! The crate's one error type.
//!
//! Every variant carries the operation that failed, the argument that was wrong and the layout
//! involved, so that the message alone tells a user what happened and what to do instead.

use std::fmt;

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
    /// negative or not below the size of the dim it indexes.
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
    /// A write to a tensor made by a view op while its storage is still shared with the tensor
    /// it was viewed from (or other views): a copy-on-write would leave that tensor unchanged,
    /// which is almost never what a write to a view means, so it is refused.
    WriteToSharedView {
        /// The write asked for, e.g. `"fill"`.
        op: &'static str,
        /// The view's shape.
        shape: Vec<usize>,
        /// How many tensors (including this view) hold the storage.
        holders: usize,
    },
}

struct Dims<'a, T>(&'a [T]);

impl<T: fmt::Display> fmt::Display for Dims<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::DimOutOfRange { op, dim, ndim } => write!(
                f,
                "{op}: dim {dim} is out of range for a {ndim}-dim layout (valid dims are 0..{ndim})"
            ),
            Error::IndexOutOfRange {
                op,
                dim,
                index,
                size,
            } => write!(
                f,
                "{op}: index {index} is out of range for dim {dim} of size {size}"
            ),
            Error::IndexRank { op, index, shape } => write!(
                f,
                "{op}: index {} has {} entries but the shape {} has {} dims; give one index per dim",
                Dims(index),
                index.len(),
                Dims(shape),
                shape.len()
            ),
            Error::RangeOutOfBounds {
                op,
                dim,
                start,
                len,
                size,
            } => write!(
                f,
                "{op}: range start {start} with length {len} does not fit in dim {dim} of size \
                 {size} (need start + length <= {size})"
            ),
            Error::ZeroStep { op: "chunk", dim } => write!(
                f,
                "chunk: asked for 0 chunks of dim {dim}; ask for at least 1 (chunk(n, dim) \
                 gives at most n pieces)"
            ),
            Error::ZeroStep { op: "split", dim } => write!(
                f,
                "split: pieces of size 0 cannot cover dim {dim}; give a size of at least 1"
            ),
            Error::ZeroStep { op, dim } => {
                write!(f, "{op}: step along dim {dim} must not be zero")
            }
            Error::WindowTooLarge {
                op,
                dim,
                size,
                dim_size,
            } => write!(
                f,
                "{op}: window size {size} is larger than dim {dim} of size {dim_size}"
            ),
            Error::NotAPermutation { dims, ndim } => write!(
                f,
                "permute: {} is not a permutation of 0..{ndim}; name every dim exactly once",
                Dims(dims)
            ),
            Error::DuplicateDim { op, dim } => {
                write!(
                    f,
                    "{op}: dim {dim} was given twice; the two dims must differ"
                )
            }
            Error::SqueezeNonUnit { dim, size, shape } => write!(
                f,
                "squeeze: dim {dim} of shape {} has size {size}, not 1; only size-1 dims can be \
                 squeezed",
                Dims(shape)
            ),
            Error::NumelMismatch {
                op,
                have,
                shape,
                need,
            } => {
                match need {
                    Some(n) => write!(
                        f,
                        "{op}: shape {} needs {n} elements but there are {have}",
                        Dims(shape)
                    )?,
                    None => write!(
                        f,
                        "{op}: shape {} has a size or element count above isize::MAX; there \
                         are {have} elements",
                        Dims(shape)
                    )?,
                }
                match (*op, need) {
                    ("contiguous_into", Some(n)) => {
                        write!(f, "; give a buffer of exactly {n} elements")
                    }
                    ("from_vec" | "from_slice", Some(n)) => write!(
                        f,
                        "; give {n} elements, or a shape whose sizes multiply to {have}"
                    ),
                    _ => write!(f, "; give a shape whose sizes multiply to {have}"),
                }
            }
            Error::ViewNotPossible {
                shape,
                strides,
                requested,
                dims,
            } => {
                let (lo, hi) = *dims;
                write!(
                    f,
                    "view {}: the layout has shape {} and strides {}; dims {lo}..={hi} would \
                     have to be merged but are not contiguous with each other",
                    Dims(requested),
                    Dims(shape),
                    Dims(strides),
                )?;
                if lo < hi && hi < shape.len() {
                    // The stride dim `lo` would need to continue dims lo+1..=hi in storage.
                    let need = shape[lo + 1..=hi]
                        .iter()
                        .fold(strides[hi] as i128, |acc, &d| acc.saturating_mul(d as i128));
                    write!(
                        f,
                        " (dim {lo} has stride {}, merging needs {need})",
                        strides[lo]
                    )?;
                }
                f.write_str("; call reshape() to copy, or contiguous() first")
            }
            Error::ExpandMismatch {
                shape,
                requested,
                dim,
            } => write!(
                f,
                "expand {}: dim {dim} of shape {} has size {} and only size-1 dims can be \
                 expanded",
                Dims(requested),
                Dims(shape),
                shape[*dim]
            ),
            Error::BroadcastMismatch { op, a, b, dim } => write!(
                f,
                "{op}: shapes {} and {} do not broadcast: result dim {dim} has sizes that \
                 differ and neither is 1",
                Dims(a),
                Dims(b)
            ),
            Error::RankMismatch {
                op,
                what,
                expected,
                got,
            } => fmt_rank(f, op, what, *expected, *got),
            Error::Overflow { op, shape, strides } => {
                write!(f, "{op}: shape {}", Dims(shape))?;
                if !strides.is_empty() {
                    write!(f, " with strides {}", Dims(strides))?;
                }
                f.write_str(
                    " overflows: its element count, its size in bytes or a storage offset \
                     exceeds isize::MAX; use smaller sizes (a view this large exists only \
                     through stride-0 dims and cannot be materialised)",
                )
            }
            Error::NegativeOffset {
                op,
                min_offset,
                shape,
                strides,
            } => write!(
                f,
                "{op}: shape {} with strides {} would address storage offset {min_offset}, before \
                 the start of the storage; raise the offset",
                Dims(shape),
                Dims(strides)
            ),
            Error::OutOfBounds {
                op,
                offset,
                storage_len,
                shape,
                strides,
            } => write!(
                f,
                "{op}: shape {} with strides {} addresses storage offset {offset}, but the storage \
                 holds {storage_len} elements",
                Dims(shape),
                Dims(strides)
            ),
            Error::ShapeMismatch {
                op: "copy_into",
                expected,
                got,
            } => write!(
                f,
                "copy_into: the destination has shape {} but the source (the tensor copy_into \
                 is called on) has shape {}; they must be equal (dst.copy_from(&src) \
                 broadcasts the source instead)",
                Dims(expected),
                Dims(got)
            ),
            Error::ShapeMismatch { op, expected, got } => write!(
                f,
                "{op}: expected shape {}, got {}",
                Dims(expected),
                Dims(got)
            ),
            Error::SharedStorage { op, holders } => write!(
                f,
                "{op}: the destination's storage is shared by {holders} tensors; writing would change the others too; drop the other views, or use copy_from / view_mut, which copy on write"
            ),
            Error::ReadOnlyStorage { op } => write!(
                f,
                "{op}: the destination's elements are read in place from bytes another value owns (a memory map, ...), which are never written; write into a copy (to_aligned(), or view_mut / copy_from, which copy on write)"
            ),
            Error::OverlappingDestination { op, shape, strides } => write!(
                f,
                "{op}: destination shape {} with strides {} addresses some elements more than once (or stridex cannot prove it does not), so a write through it is ambiguous; write into contiguous() or a fresh tensor instead",
                Dims(shape),
                Dims(strides)
            ),
            Error::IndexOutOfBounds {
                op,
                dim,
                index,
                size,
            } => write!(
                f,
                "{op}: index {index} is out of range for dim {dim} of size {size}; indices must \
                 be in 0..{size}"
            ),
            Error::InvalidArgument { op, message } => write!(f, "{op}: {message}"),
            Error::SourceMismatch { op, dst, src } => write!(
                f,
                "{op}: source shape {} does not broadcast to the destination shape {} (a write \
                 cannot change the destination's shape); give a source whose dims, counted from \
                 the right, equal the destination's or are 1",
                Dims(src),
                Dims(dst)
            ),
            Error::NoInputs { op } => {
                write!(f, "{op}: needs at least one tensor, got an empty list")
            }
            Error::PartsMismatch {
                op,
                index,
                shape,
                first,
                dim,
            } => match dim {
                Some(dim) => write!(
                    f,
                    "{op}: tensor {index} has shape {} but tensor 0 has shape {}; every tensor \
                     needs the same number of dims and the same sizes on every dim but {dim}",
                    Dims(shape),
                    Dims(first)
                ),
                None => write!(
                    f,
                    "{op}: tensor {index} has shape {} but tensor 0 has shape {}; every tensor \
                     needs the same shape",
                    Dims(shape),
                    Dims(first)
                ),
            },
            Error::EscapesView {
                op,
                shape,
                strides,
                offset,
            } => write!(
                f,
                "{op}: shape {} with strides {} at offset {offset} may reach elements outside \
                 this mutable view, which shares its storage with a sibling from split_at; \
                 call as_strided before splitting, or on a dense view",
                Dims(shape),
                Dims(strides)
            ),
            Error::FormatRank { op, format, ndim } => {
                let need = if *format == "channels_last" { 4 } else { 5 };
                write!(
                    f,
                    "{op}: memory format {format} needs {need} dims (N, C, then spatial), the \
                     layout has {ndim}"
                )
            }
            Error::ImplicitCopy {
                reason,
                bytes,
                location,
            } => {
                write!(
                    f,
                    "{reason}: implicit copy forbidden: {bytes} bytes at {location}; "
                )?;
                match reason {
                    CopyReason::CopyOnWrite => f.write_str(
                        "the storage is shared, so the write would copy it first; make the \
                         copy explicit with .to_owned() and write that (or drop the other \
                         tensors sharing the storage)",
                    ),
                    _ => f.write_str(
                        "make the copy explicit with contiguous() first, or change the layout \
                         so a view suffices",
                    ),
                }
            }
            Error::Alloc { bytes } => write!(
                f,
                "allocation of {bytes} bytes failed: the allocator has no memory for it; free \
                 other tensors, or work on smaller pieces (narrow, chunk)"
            ),
            Error::DivisionByZero { op } => write!(
                f,
                "{op}: integer division by zero; integers have no result for x / 0 (check the \
                 divisor, or divide in a float type)"
            ),
            Error::EmptyReduction { op, dims, shape } => write!(
                f,
                "{op}: reducing dims {} of shape {} covers zero elements, and {op} of nothing \
                 has no value",
                Dims(dims),
                Dims(shape)
            ),
            Error::MatmulMismatch { a, b, a_dim, b_dim } => write!(
                f,
                "matmul: shapes {} and {} cannot be multiplied: contracted dim {a_dim} of the \
                 left (size {}) differs from contracted dim {b_dim} of the right (size {})",
                Dims(a),
                Dims(b),
                a[*a_dim],
                b[*b_dim]
            ),
            Error::MatmulBatchMismatch {
                a,
                b,
                a_batch,
                b_batch,
            } => write!(
                f,
                "matmul: shapes {} and {} cannot be multiplied: batch dims {} and {} do not \
                 broadcast",
                Dims(a),
                Dims(b),
                Dims(a_batch),
                Dims(b_batch)
            ),
            Error::Io {
                op,
                path,
                kind,
                message,
            } => write!(
                f,
                "{op}: cannot access {path}: {message} ({kind}); check the path, its \
                 permissions and the free space"
            ),
            Error::MalformedFile {
                format,
                path,
                message,
            } => {
                write!(f, "malformed {format} file {path}: {message}")
            }
            Error::UnsupportedDType {
                format,
                path,
                dtype,
            } => write!(
                f,
                "{format} file {path} holds elements of type {dtype}, which stridex has no \
                 element type for (it has f16, bf16, f32, f64, i8..i64, u8..u64; bool loads as \
                 u8); convert the data to one of these before saving it"
            ),
            Error::DTypeMismatch { op, expected, got } => write!(
                f,
                "{op}: the tensor holds {got} elements, not {expected}; ask for {got}, or \
                 cast the {got} tensor with .cast::<{expected}>()"
            ),
            Error::WriteToSharedView { op, shape, holders } => write!(
                f,
                "{op}: this tensor (shape {}) is a view that shares its storage with {} other \
                 tensor(s), so the write would go to a private copy and the tensor it was \
                 viewed from would not change; to write into that tensor, borrow it mutably \
                 and apply the same view ops (base.view_mut()?.narrow(..)?.{op}(..)), or, for \
                 a private copy to write, call .to_owned() on the view first",
                Dims(shape),
                holders.saturating_sub(1)
            ),
        }
    }
}

/// `RankMismatch`'s message. `what` names the counted items, optionally followed by
/// `" (at most)"` or `" (at least)"` (e.g. `"dims (at most)"`); without a qualifier one item
/// per dim is expected.
fn fmt_rank(
    f: &mut fmt::Formatter<'_>,
    op: &str,
    what: &str,
    expected: usize,
    got: usize,
) -> fmt::Result {
    let (noun, bound) = if let Some(n) = what.strip_suffix(" (at most)") {
        (n, "at most ")
    } else if let Some(n) = what.strip_suffix(" (at least)") {
        (n, "at least ")
    } else {
        (what, "")
    };
    // "1 dim", "2 dims": the nouns are given in the plural.
    let counted = |n: usize| match noun.strip_suffix('s') {
        Some(one) if n == 1 => format!("{n} {one}"),
        _ => format!("{n} {noun}"),
    };
    write!(f, "{op}: expected {bound}{}, got {got}", counted(expected))?;
    let one = noun.strip_suffix('s').unwrap_or(noun);
    let fix = match (op, noun) {
        ("t", _) => "; t() is for 0-, 1- and 2-dim tensors, use transpose(d0, d1) or permute \
                     to swap dims of a larger one"
            .to_string(),
        ("matmul" | "matmul_into", _) => "; a 0-dim operand has no matrix dims, unsqueeze it \
                                          or multiply elementwise (mul) instead"
            .to_string(),
        ("expand", _) => "; give one size per dim (new dims may be added on the left, never \
                          removed)"
            .to_string(),
        (_, "index dims") if bound.is_empty() => {
            "; the index tensor needs as many dims as the input".to_string()
        }
        (_, "source dims") => "; the source needs as many dims as the input".to_string(),
        (_, "index dims") => "; flatten the index first (reshape it to one dim)".to_string(),
        _ if bound.is_empty() => format!("; give one {one} per dim"),
        _ => String::new(),
    };
    f.write_str(&fix)
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
            | Error::DivisionByZero { op, .. }
            | Error::EmptyReduction { op, .. }
            | Error::Io { op, .. }
            | Error::DTypeMismatch { op, .. }
            | Error::WriteToSharedView { op, .. } => *op = name,
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
            | Error::FormatRank { op, .. } => *op = name,
            _ => {}
        }
        self
    }
}

/// The byte size of `numel` elements of `elem_size` bytes for a fresh result of `shape`, or
/// [`Error::Overflow`] naming `op` and `shape` if it exceeds `isize::MAX` (which no allocation
/// can satisfy: an overflow, not an allocation failure).
pub(crate) fn checked_bytes(
    op: &'static str,
    shape: &[usize],
    numel: usize,
    elem_size: usize,
) -> Result<usize> {
    numel
        .checked_mul(elem_size)
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| Error::Overflow {
            op,
            shape: shape.to_vec(),
            strides: vec![],
        })
}

impl std::error::Error for Error {}
