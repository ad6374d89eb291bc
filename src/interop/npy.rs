//! NumPy `.npy` files (feature `npy`).
//!
//! The format is small: a magic string, a version, a header that is a Python dict literal
//! (`{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`), then the elements. The
//! header has its own module (`npy_header.rs`): parsed strictly (exactly those three keys,
//! each once, with the types NumPy writes; every error names the field that was wrong and
//! what was found) and written byte for byte as NumPy does.
//!
//! Reading accepts versions 1.0, 2.0 and 3.0, C and Fortran order (a Fortran-order file
//! becomes a column-major view of the data as read, with no reordering copy; call
//! `contiguous()` for row-major), little- and big-endian data (swapped to the machine's order
//! once, in place), and the element types `f2 f4 f8 i1..i8 u1..u8`; NumPy's `bool` (`|b1`)
//! loads as `u8`, which is what stridex's masks use. Writing produces the same bytes NumPy's
//! `np.save` does: version 1.0 (2.0 for huge headers), the header padded for 64-byte
//! alignment, little-endian data.
//!
//! NumPy has no `bfloat16`, so a `bf16` tensor is written as `float32` (`<f4`): a lossless
//! widening that every NumPy reads, done on the bits (each `f32` is the `bf16`'s 16 bits
//! followed by 16 zero bits), so every value is kept exactly, NaN payloads and signalling NaNs
//! included. Reading it back gives an `f32` tensor: `.cast::<bf16>()` restores every value
//! (a NaN stays a NaN, quieted, as any float conversion does); the exact bits of every element
//! are each `f32`'s top 16 bits (`(x.to_bits() >> 16) as u16`). `f16` is written as NumPy's
//! `float16` (`<f2`), its bits unchanged.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use half::{bf16, f16};

use super::dynamic::{AsDynTensor, DynTensor, each_dtype};
use super::npy_header::{Header, HeaderError, MAGIC, header_bytes, parse_header};
use super::{LeBytes, io_error, swap_byte_order};
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::checked_numel;
use crate::tensor::Tensor;

/// The largest header read (NumPy's own headers are about 100 bytes).
const MAX_HEADER: usize = 1 << 20;
/// Bytes read per step from a stream of unknown length, so a header that promises more data
/// than the stream has costs no more memory than the data that is there.
const READ_CHUNK: usize = 1 << 24;

/// Reads a `.npy` file: the tensor, with the element type the file's header names.
///
/// One read into the tensor's buffer, which the tensor adopts; see the
/// [module docs](self) for the dtypes, orders and byte orders accepted.
///
/// # Errors
/// [`Error::Io`] if the file cannot be read; [`Error::MalformedFile`] if it is not a valid
/// `.npy` file (bad magic, version or header, truncated data), naming what was wrong;
/// [`Error::UnsupportedDType`] for element types stridex does not have (complex, strings,
/// objects, structured); [`Error::Alloc`].
///
/// ```
/// use stridex::interop::{load_npy, save_npy};
/// use stridex::Tensor;
/// let path = std::env::temp_dir().join(format!("stridex-doc-load-{}.npy", std::process::id()));
/// save_npy(&path, &Tensor::arange(0i16, 6, 1)?.view(&[2, 3])?)?;
/// let t = load_npy(&path)?.into_tensor::<i16>()?;
/// assert_eq!((t.shape(), t.to_vec()), (&[2, 3][..], vec![0, 1, 2, 3, 4, 5]));
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn load_npy(path: impl AsRef<Path>) -> Result<DynTensor> {
    let path = path.as_ref();
    let label = path.display().to_string();
    let file = File::open(path).map_err(|e| io_error("load_npy", &label, &e))?;
    let len = file
        .metadata()
        .map_err(|e| io_error("load_npy", &label, &e))?
        .len();
    read_from(&mut BufReader::new(file), "load_npy", &label, Some(len))
}

/// Reads a `.npy` file's bytes from any reader (a file, a network stream, a `&[u8]`); the
/// reader is left just after the data.
///
/// # Errors
/// As [`load_npy`], with `"<reader>"` in place of the path.
///
/// ```
/// use stridex::interop::{read_npy, write_npy};
/// use stridex::Tensor;
/// let mut bytes = Vec::new();
/// write_npy(&mut bytes, &Tensor::from_vec(vec![1.5f32, -2.0], &[2])?)?;
/// let t = read_npy(&bytes[..])?.into_tensor::<f32>()?;
/// assert_eq!(t.to_vec(), vec![1.5, -2.0]);
/// assert!(read_npy(&bytes[..bytes.len() - 1]).is_err()); // truncated
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn read_npy<R: Read>(mut reader: R) -> Result<DynTensor> {
    read_from(&mut reader, "read_npy", "<reader>", None)
}

/// Writes `tensor` as a `.npy` file, replacing any file at `path`.
///
/// The file holds the elements in logical order, as `np.save` writes them: a contiguous
/// tensor's memory is written as it is, a column-major one (e.g. a transposed matrix) is
/// written as it is with `fortran_order: True`, any other layout is copied once into
/// row-major order first. `bf16` is written as `float32` (NumPy has no `bfloat16`; see the
/// [module docs](self)).
///
/// # Errors
/// [`Error::Io`] if the file cannot be written; [`Error::Alloc`].
///
/// ```
/// use stridex::interop::{load_npy, save_npy};
/// use stridex::Tensor;
/// let path = std::env::temp_dir().join(format!("stridex-doc-save-{}.npy", std::process::id()));
/// let w = Tensor::arange(0.0f64, 6.0, 1.0)?.view(&[2, 3])?;
/// save_npy(&path, &w.t()?)?; // written column-major, no copy
/// let back = load_npy(&path)?.into_tensor::<f64>()?;
/// assert_eq!(back.to_vec(), w.t()?.to_vec());
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn save_npy(path: impl AsRef<Path>, tensor: &(impl AsDynTensor + ?Sized)) -> Result<()> {
    let path = path.as_ref();
    let label = path.display().to_string();
    let file = File::create(path).map_err(|e| io_error("save_npy", &label, &e))?;
    let mut w = BufWriter::new(file);
    write_dyn(&mut w, &tensor.to_dyn(), "save_npy", &label)?;
    w.flush().map_err(|e| io_error("save_npy", &label, &e))
}

/// Writes `tensor` as `.npy` bytes to any writer, as [`save_npy`] does to a file.
///
/// # Errors
/// [`Error::Io`] if the writer fails; [`Error::Alloc`].
///
/// ```
/// use stridex::interop::write_npy;
/// let mut bytes = Vec::new();
/// write_npy(&mut bytes, &stridex::Tensor::<u8>::zeros(&[3])?)?;
/// assert!(bytes.starts_with(b"\x93NUMPY\x01\x00"));
/// assert_eq!(bytes.len(), 128 + 3); // header padded to 64-byte alignment, then the data
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn write_npy<W: Write>(mut writer: W, tensor: &(impl AsDynTensor + ?Sized)) -> Result<()> {
    write_dyn(&mut writer, &tensor.to_dyn(), "write_npy", "<writer>")
}

fn write_dyn<W: Write>(w: &mut W, d: &DynTensor, op: &'static str, path: &str) -> Result<()> {
    match d {
        // NumPy has no bfloat16: widen to float32 by bits (a bf16 is the top half of an f32),
        // exact for every value; `bf16::to_f32` would quiet signalling NaNs.
        DynTensor::BF16(t) => write_typed(w, &t.try_map(widen_bf16)?, op, path),
        _ => each_dtype!(d, t => write_typed(w, t, op, path)),
    }
}

/// The `f32` whose top 16 bits are `x`'s bits and whose low 16 bits are zero: the same value,
/// NaN payloads and signalling bits included.
fn widen_bf16(x: bf16) -> f32 {
    f32::from_bits(u32::from(x.to_bits()) << 16)
}

fn write_typed<T: Element, W: Write>(
    w: &mut W,
    t: &Tensor<T>,
    op: &'static str,
    path: &str,
) -> Result<()> {
    // A column-major tensor is the row-major tensor of its reversed dims: write that memory
    // as it is, with `fortran_order: True`.
    let reversed: Vec<usize> = (0..t.ndim()).rev().collect();
    let (dense, fortran) = match t.permute(&reversed) {
        Ok(r) if !t.is_contiguous() && r.is_contiguous() => (r, true),
        _ => (t.clone(), false),
    };
    let bytes = LeBytes::new(&dense).map_err(|e| e.named(op))?;
    let header = header_bytes(T::DTYPE, fortran, t.shape());
    let io = |e: std::io::Error| io_error(op, path, &e);
    w.write_all(&header).map_err(io)?;
    w.write_all(bytes.as_bytes()).map_err(io)
}

fn read_from<R: Read>(
    r: &mut R,
    op: &'static str,
    path: &str,
    file_len: Option<u64>,
) -> Result<DynTensor> {
    let malformed = |message: String| Error::MalformedFile {
        format: "npy",
        path: path.to_string(),
        message,
    };
    let eof_or_io = |what: &str, e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            malformed(format!("the file ends inside the {what}; it is truncated"))
        } else {
            io_error(op, path, &e)
        }
    };
    let mut preamble = [0u8; 8];
    r.read_exact(&mut preamble)
        .map_err(|e| eof_or_io("8-byte magic and version", e))?;
    if &preamble[..6] != MAGIC {
        return Err(malformed(format!(
            "it starts with {:?}, not the magic \\x93NUMPY; is it a .npy file (not .npz)?",
            String::from_utf8_lossy(&preamble[..6])
        )));
    }
    let len_bytes = match (preamble[6], preamble[7]) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        (major, minor) => {
            return Err(malformed(format!(
                "format version {major}.{minor} is not one of 1.0, 2.0, 3.0"
            )));
        }
    };
    let mut len = [0u8; 4];
    r.read_exact(&mut len[..len_bytes])
        .map_err(|e| eof_or_io("header length", e))?;
    let header_len = u32::from_le_bytes(len) as usize;
    if header_len > MAX_HEADER {
        return Err(malformed(format!(
            "the header length is {header_len} bytes, above the {MAX_HEADER} bytes stridex \
             reads (NumPy's headers are about 100 bytes)"
        )));
    }
    let mut raw = Vec::new();
    r.by_ref()
        .take(header_len as u64)
        .read_to_end(&mut raw)
        .map_err(|e| io_error(op, path, &e))?;
    if raw.len() < header_len {
        return Err(malformed(format!(
            "the header is {header_len} bytes long but the file ends after {}",
            raw.len()
        )));
    }
    // Versions 1.0 and 2.0 are latin-1, 3.0 is UTF-8; valid headers are ASCII in both.
    let text = std::str::from_utf8(&raw)
        .map_err(|_| malformed("the header is not ASCII text".to_string()))?;
    let header = parse_header(text).map_err(|e| match e {
        HeaderError::Malformed(m) => malformed(m),
        HeaderError::Unsupported(dtype) => Error::UnsupportedDType {
            format: "npy",
            path: path.to_string(),
            dtype,
        },
    })?;
    let Header {
        descr,
        fortran_order,
        shape,
    } = header;
    let numel = checked_numel(&shape)
        .ok_or_else(|| malformed(format!("shape {shape:?} has more than isize::MAX elements")))?;
    let data_bytes = numel
        .checked_mul(descr.dtype.size())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| malformed(format!("shape {shape:?} needs more than isize::MAX bytes")))?;
    if let Some(file_len) = file_len {
        let have = file_len.saturating_sub((8 + len_bytes + header_len) as u64);
        if have < data_bytes as u64 {
            return Err(malformed(format!(
                "shape {shape:?} of {} needs {data_bytes} data bytes but the file has {have} \
                 after the header; it is truncated",
                descr.dtype
            )));
        }
    }
    let read = ReadSpec {
        numel,
        shape: &shape,
        fortran_order,
        big_endian: descr.big_endian,
        exact: file_len.is_some(),
        op,
    };
    let data_err = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            malformed(format!(
                "the data ends before the {data_bytes} bytes that shape {shape:?} of {} needs; \
                 it is truncated",
                descr.dtype
            ))
        } else {
            io_error(op, path, &e)
        }
    };
    Ok(match descr.dtype {
        DType::F16 => read.tensor::<f16, _>(r, data_err)?.into(),
        DType::BF16 => read.tensor::<bf16, _>(r, data_err)?.into(),
        DType::F32 => read.tensor::<f32, _>(r, data_err)?.into(),
        DType::F64 => read.tensor::<f64, _>(r, data_err)?.into(),
        DType::I8 => read.tensor::<i8, _>(r, data_err)?.into(),
        DType::I16 => read.tensor::<i16, _>(r, data_err)?.into(),
        DType::I32 => read.tensor::<i32, _>(r, data_err)?.into(),
        DType::I64 => read.tensor::<i64, _>(r, data_err)?.into(),
        DType::U8 => read.tensor::<u8, _>(r, data_err)?.into(),
        DType::U16 => read.tensor::<u16, _>(r, data_err)?.into(),
        DType::U32 => read.tensor::<u32, _>(r, data_err)?.into(),
        DType::U64 => read.tensor::<u64, _>(r, data_err)?.into(),
    })
}

/// How to read the data once the header is known.
struct ReadSpec<'a> {
    numel: usize,
    shape: &'a [usize],
    fortran_order: bool,
    big_endian: bool,
    /// The data is known to be there (the file is long enough): allocate it in one piece.
    exact: bool,
    /// The function the user called (`load_npy`, `read_npy`), named in shape errors.
    op: &'static str,
}

impl ReadSpec<'_> {
    fn tensor<T: Element, R: Read>(
        &self,
        r: &mut R,
        data_err: impl Fn(std::io::Error) -> Error,
    ) -> Result<Tensor<T>> {
        let mut v: Vec<T> = Vec::new();
        let chunk = if self.exact {
            self.numel
        } else {
            (READ_CHUNK / std::mem::size_of::<T>()).max(1)
        };
        while v.len() < self.numel {
            let old = v.len();
            let n = chunk.min(self.numel - old);
            v.try_reserve_exact(n).map_err(|_| Error::Alloc {
                op: self.op,
                bytes: n.saturating_mul(std::mem::size_of::<T>()),
            })?;
            v.resize(old + n, T::zeroed());
            r.read_exact(bytemuck::cast_slice_mut(&mut v[old..]))
                .map_err(&data_err)?;
        }
        if self.big_endian != cfg!(target_endian = "big") {
            swap_byte_order(bytemuck::cast_slice_mut(&mut v), std::mem::size_of::<T>());
        }
        if !self.fortran_order || self.shape.len() < 2 {
            return Tensor::from_vec(v, self.shape).map_err(|e| e.with_op(self.op));
        }
        // Column-major data is the row-major tensor of the reversed shape; reversing its dims
        // again gives the logical tensor as a view, with no reordering copy.
        let reversed_shape: Vec<usize> = self.shape.iter().rev().copied().collect();
        let dims: Vec<usize> = (0..self.shape.len()).rev().collect();
        Tensor::from_vec(v, &reversed_shape)
            .map_err(|e| e.with_op(self.op))?
            .permute(&dims)
    }
}
