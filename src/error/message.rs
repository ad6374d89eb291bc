//! The messages of [`Error`]: what was asked, what the layout is, and what to do instead.
//! Kept apart from the enum so that the variants (what a caller matches on) read in one
//! sitting.

use std::fmt;

use super::Error;
use crate::copy_reason::CopyReason;

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

/// The constructors, whose overflow is of the shape asked for (no stride-0 view behind it).
const CONSTRUCTORS: &[&str] = &[
    "zeros",
    "ones",
    "full",
    "from_vec",
    "from_slice",
    "from_fn",
    "from_bools",
    "empty_strided",
    "arange",
    "linspace",
    "eye",
    "eye_rect",
    "from_iter_with_shape",
    "zeros_like",
    "ones_like",
    "full_like",
    "load_npy",
    "read_npy",
    "deserialize",
];

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NegativeDimOutOfRange { op, dim, ndim } => write!(
                f,
                "{op}: dim {dim} counts back from the end of a {ndim}-dim layout to {}, before \
                 the first dim; negative dims go from -1 (the last) to -{ndim} (the first)",
                *dim as i128 + *ndim as i128
            ),
            // `diagonal()` takes no dim: say what it needs instead of naming its dim 1.
            Error::DimOutOfRange {
                op: "diagonal",
                ndim,
                ..
            } if *ndim < 2 => write!(
                f,
                "diagonal: a {ndim}-dim tensor has no diagonal; diagonal() reads dims 0 and 1 \
                 of a tensor of at least 2 dims (unsqueeze a 1-dim one, or use \
                 diagonal_with(k, dim1, dim2))"
            ),
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
                op: "split_at",
                dim,
                start,
                size,
                ..
            } => write!(
                f,
                "split_at: index {start} is past the end of dim {dim} of size {size}; split at \
                 an index in 0..={size} (the first part takes the indices before it)"
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
            Error::ZeroStep { op: "arange", .. } => f.write_str(
                "arange: the step is 0, so the values never reach the end; give a non-zero \
                 step (negative to count down)",
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
                     exceeds isize::MAX; use smaller sizes",
                )?;
                // A constructor makes what it is asked for; only an op's result can come from
                // a huge view of few elements.
                match CONSTRUCTORS.contains(op) {
                    true => Ok(()),
                    false => f.write_str(
                        " (a view this large exists only through stride-0 dims and cannot be \
                         materialised)",
                    ),
                }
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
                op: "i",
                dim,
                index,
                size,
            } => write!(
                f,
                "i: index {index} is out of range for dim {dim} of size {size}; indices must \
                 be in -{size}..{size} (negative ones count from the end)"
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
            Error::Alloc { op, bytes } => write!(
                f,
                "{op}: allocation of {bytes} bytes failed: the allocator has no memory for it; free \
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
            Error::RepeatedDim {
                op,
                given: (a, b),
                dim,
                ndim,
            } => {
                if a == b {
                    write!(f, "{op}: dim {a} is given twice; name each dim once")
                } else {
                    write!(
                        f,
                        "{op}: dims {a} and {b} both name dim {dim} of a {ndim}-dim layout \
                         (negative dims count from the end); name each dim once"
                    )
                }
            }
            Error::IndexTooLarge {
                op,
                dim,
                index,
                size,
            } => write!(
                f,
                "{op}: index {index} is out of range for dim {dim} of size {size} (it exceeds \
                 isize::MAX, so no dim can be that large); indices must be in 0..{size}"
            ),
            Error::WriteToSharedView { op, shape, holders } => write!(
                f,
                "{op}: this tensor (shape {}) is a view, and a tensor other than its own \
                 clones (the tensor it was viewed from, or another view of it; {} holder(s) \
                 of the storage besides this one) still holds its storage, so the write would \
                 go to a private copy and that tensor would not change; to write into the \
                 tensor it was viewed from, borrow it mutably and apply the same view ops \
                 (for `let col = base.narrow(1, 1, 1)?`: \
                 `base.view_mut()?.narrow(1, 1, 1)?.fill(7.0)?`), or, for a private copy to \
                 write, call `.to_owned()` on the view first (`let mut col = \
                 col.to_owned(); col.fill(7.0)?`)",
                Dims(shape),
                holders.saturating_sub(1)
            ),
            Error::IndexItem {
                op,
                item,
                dim,
                shape,
                cause,
            } => {
                write!(f, "{op}: item {item} of the index ")?;
                if *dim < shape.len() {
                    write!(f, "(dim {dim} of shape {})", Dims(shape))?;
                } else {
                    write!(f, "(no dim left in shape {})", Dims(shape))?;
                }
                // The cause names the same op: say it once.
                let text = cause.to_string();
                let short = text.strip_prefix(op).and_then(|c| c.strip_prefix(": "));
                write!(f, ": {}", short.unwrap_or(&text))
            }
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
        ("dot", _) => "; dot is the inner product of two 1-dim tensors: flatten them, or use \
                       matmul for matrices"
            .to_string(),
        ("expand", _) => "; give one size per dim (new dims may be added on the left, never \
                          removed)"
            .to_string(),
        (_, "index dims") if bound.is_empty() => {
            "; the index tensor needs as many dims as the input".to_string()
        }
        (_, "source dims") => "; the source needs as many dims as the input".to_string(),
        (_, "indexed dims") => "; ranges and integers take one dim each (NewAxis none), and \
                                dims after the last item are kept whole"
            .to_string(),
        (_, "index dims") => "; flatten the index first (reshape it to one dim)".to_string(),
        _ if bound.is_empty() => format!("; give one {one} per dim"),
        _ => String::new(),
    };
    f.write_str(&fix)
}
