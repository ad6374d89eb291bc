//! `.safetensors` files (feature `safetensors`).
//!
//! A file is an 8-byte little-endian header length, a JSON header naming each tensor's dtype,
//! shape and byte range, then the data. Loading validates the whole header once, then hands
//! out tensors that read their elements straight from the file's bytes, no copy per tensor:
//! each tensor's storage holds an `Arc` of those bytes ([`Storage::from_byte_owner`]), so every
//! tensor and every view of one keeps them alive. A tensor whose bytes are not aligned to its
//! element type (possible in files from other writers; never in files written by
//! [`save_safetensors`] or Python's `safetensors`) is copied into aligned storage instead.
//!
//! Such tensors are aligned to their element type but, unlike storage stridex allocates, not
//! to 64 bytes ([`Storage::is_aligned`]); [`Tensor::to_aligned`] makes a 64-byte aligned copy
//! when a kernel wants one. They are read-only views of the file: writing to one copies it
//! first (copy-on-write), and the file is never changed.
//!
//! # Reading or mapping
//!
//! [`load_safetensors`] reads the file into one buffer and is safe. [`map_safetensors`]
//! memory-maps it instead (nothing is read until used, and the pages are shared with the OS
//! cache), which is `unsafe`: a mapping shows whatever the file holds at the moment of each
//! read, so another process that writes or truncates the file while tensors are alive would
//! change elements under Rust's feet (undefined behaviour) or make reads fault. This is the
//! caveat of every memory map (it is why `memmap2::Mmap::map` is `unsafe`); stridex does not
//! hide it behind a safe function, it lets the caller promise the file stays unchanged.
//!
//! # Validation
//!
//! The `safetensors` crate parses the JSON header and checks it (known dtypes, byte ranges
//! that follow each other with no gap or overlap, each range the size its shape and dtype
//! need, no overflow); stridex frames it (length field, header size, UTF-8) and checks that
//! the ranges cover exactly the bytes after the header. Every malformed file is an
//! [`Error::MalformedFile`] or [`Error::UnsupportedDType`] saying what was wrong, never a panic.
//!
//! [`Storage::from_byte_owner`]: crate::Storage::from_byte_owner
//! [`Storage::is_aligned`]: crate::Storage::is_aligned
//! [`Tensor::to_aligned`]: crate::Tensor::to_aligned

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use ::safetensors::tensor::{Dtype, Metadata, View};
use half::{bf16, f16};

use super::dynamic::{AsDynTensor, DynTensor, each_dtype};
use super::{LeBytes, io_error, swap_byte_order};
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::{Layout, checked_numel};
use crate::storage::Storage;
use crate::tensor::Tensor;

/// The largest header accepted: the `safetensors` crate's own limit.
const MAX_HEADER: u64 = 100_000_000;

/// The tensors of a `.safetensors` file, by name, and the file's `__metadata__`.
///
/// Made by [`load_safetensors`], [`map_safetensors`] or [`SafeTensorsFile::from_bytes`]. The
/// tensors share the file's bytes (see the [module docs](self)); dropping this value drops
/// nothing a tensor still uses.
///
/// ```
/// use stridex::interop::{load_safetensors, save_safetensors};
/// use stridex::Tensor;
/// let path = std::env::temp_dir().join(format!("stridex-doc-file-{}.safetensors", std::process::id()));
/// let w = Tensor::arange(0.0f32, 6.0, 1.0)?.view(&[2, 3])?;
/// let ids = Tensor::from_vec(vec![7i64, 8], &[2])?;
/// save_safetensors(&path, &[("w", &w), ("ids", &ids)])?;
///
/// let file = load_safetensors(&path)?;
/// assert_eq!(file.names().collect::<Vec<_>>(), ["ids", "w"]);
/// let w2 = file.tensor::<f32>("w")?; // typed, no copy
/// assert_eq!((w2.shape(), w2.to_vec()), (w.shape(), w.to_vec()));
/// assert!(file.tensor::<f32>("ids").is_err()); // it holds i64
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), stridex::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SafeTensorsFile {
    tensors: BTreeMap<String, DynTensor>,
    metadata: BTreeMap<String, String>,
}

impl SafeTensorsFile {
    /// Parses a whole `.safetensors` file held in memory by `bytes` (a `Vec<u8>`, a memory
    /// map, ...); the tensors borrow those bytes, which the `Arc` keeps alive.
    ///
    /// # Errors
    /// [`Error::MalformedFile`] for a file that is not valid (truncated, bad header JSON,
    /// byte ranges out of range, overlapping or of the wrong size, unknown dtype names);
    /// [`Error::UnsupportedDType`] for a dtype stridex does not have (fp8, complex, ...);
    /// [`Error::Alloc`] if a misaligned tensor cannot be copied.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use stridex::interop::SafeTensorsFile;
    /// let header = br#"{"x":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}"#;
    /// let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    /// bytes.extend_from_slice(header);
    /// bytes.extend_from_slice(&[5, 6]);
    /// let file = SafeTensorsFile::from_bytes(Arc::new(bytes.clone()))?;
    /// assert_eq!(file.tensor::<u8>("x")?.to_vec(), vec![5, 6]);
    /// bytes.pop(); // truncated: the header promises 2 data bytes
    /// assert!(SafeTensorsFile::from_bytes(Arc::new(bytes)).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn from_bytes<O>(bytes: Arc<O>) -> Result<SafeTensorsFile>
    where
        O: AsRef<[u8]> + Send + Sync + 'static,
    {
        parse(bytes, "<bytes>")
    }

    /// The tensor names, in sorted order.
    ///
    /// ```
    /// # let file = stridex::interop::SafeTensorsFile::from_bytes(std::sync::Arc::new(
    /// #     b"\x02\0\0\0\0\0\0\0{}".to_vec()))?;
    /// assert_eq!(file.names().count(), 0);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tensors.keys().map(String::as_str)
    }

    /// Number of tensors.
    ///
    /// ```
    /// # let file = stridex::interop::SafeTensorsFile::from_bytes(std::sync::Arc::new(
    /// #     b"\x02\0\0\0\0\0\0\0{}".to_vec()))?;
    /// assert_eq!(file.len(), 0);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.tensors.len()
    }

    /// Whether the file holds no tensor.
    ///
    /// ```
    /// # let file = stridex::interop::SafeTensorsFile::from_bytes(std::sync::Arc::new(
    /// #     b"\x02\0\0\0\0\0\0\0{}".to_vec()))?;
    /// assert!(file.is_empty());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.tensors.is_empty()
    }

    /// The tensor called `name`, of whatever element type it has.
    ///
    /// ```
    /// # let header = br#"{"x":{"dtype":"BF16","shape":[],"data_offsets":[0,2]}}"#;
    /// # let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    /// # bytes.extend_from_slice(header);
    /// # bytes.extend_from_slice(&[0x80, 0x3f]);
    /// # let file = stridex::interop::SafeTensorsFile::from_bytes(std::sync::Arc::new(bytes))?;
    /// assert_eq!(file.get("x").map(|t| t.dtype()), Some(stridex::DType::BF16));
    /// assert!(file.get("y").is_none());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn get(&self, name: &str) -> Option<&DynTensor> {
        self.tensors.get(name)
    }

    /// The tensor called `name` as a `Tensor<T>` (sharing the file's bytes, no copy).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if there is no such tensor (the message lists some names);
    /// [`Error::DTypeMismatch`] if it holds another element type.
    ///
    /// ```
    /// # let header = br#"{"x":{"dtype":"BF16","shape":[],"data_offsets":[0,2]}}"#;
    /// # let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    /// # bytes.extend_from_slice(header);
    /// # bytes.extend_from_slice(&[0x80, 0x3f]);
    /// # let file = stridex::interop::SafeTensorsFile::from_bytes(std::sync::Arc::new(bytes))?;
    /// assert_eq!(file.tensor::<half::bf16>("x")?.get(&[])?, half::bf16::ONE);
    /// assert!(file.tensor::<half::bf16>("y").unwrap_err().to_string().contains("\"x\""));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn tensor<T: Element>(&self, name: &str) -> Result<Tensor<T>> {
        match self.tensors.get(name) {
            Some(t) => t.as_typed::<T>("SafeTensorsFile::tensor").cloned(),
            None => {
                let some: Vec<String> = self.names().take(8).map(|n| format!("{n:?}")).collect();
                let more = if self.len() > some.len() { ", ..." } else { "" };
                Err(Error::InvalidArgument {
                    op: "SafeTensorsFile::tensor",
                    message: format!(
                        "the file has no tensor named {name:?}; it has [{}{more}]",
                        some.join(", ")
                    ),
                })
            }
        }
    }

    /// Every tensor with its name, in sorted name order.
    ///
    /// ```
    /// # let file = stridex::interop::SafeTensorsFile::from_bytes(std::sync::Arc::new(
    /// #     b"\x02\0\0\0\0\0\0\0{}".to_vec()))?;
    /// let total: usize = file.iter().map(|(_, t)| t.numel()).sum();
    /// assert_eq!(total, 0);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&str, &DynTensor)> {
        self.tensors.iter().map(|(n, t)| (n.as_str(), t))
    }

    /// The file's free-form `__metadata__` (string keys and values), empty if it has none.
    ///
    /// ```
    /// # let header = br#"{"__metadata__":{"format":"pt"}}"#;
    /// # let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    /// # bytes.extend_from_slice(header);
    /// # let file = stridex::interop::SafeTensorsFile::from_bytes(std::sync::Arc::new(bytes))?;
    /// assert_eq!(file.metadata().get("format").map(String::as_str), Some("pt"));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn metadata(&self) -> &BTreeMap<String, String> {
        &self.metadata
    }

    /// The tensors by name, taken out of the file value.
    ///
    /// ```
    /// # let file = stridex::interop::SafeTensorsFile::from_bytes(std::sync::Arc::new(
    /// #     b"\x02\0\0\0\0\0\0\0{}".to_vec()))?;
    /// let tensors = file.into_tensors();
    /// assert!(tensors.is_empty());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn into_tensors(self) -> BTreeMap<String, DynTensor> {
        self.tensors
    }
}

/// A file's bytes read into memory, 8-byte aligned so that every tensor a well-formed file
/// holds is aligned to its element type (the header length is a multiple of 8 in files
/// written by the safetensors writers, and tensors are placed largest element first).
struct FileBytes {
    words: Vec<u64>,
    len: usize,
}

impl AsRef<[u8]> for FileBytes {
    fn as_ref(&self) -> &[u8] {
        &bytemuck::cast_slice(&self.words)[..self.len]
    }
}

/// Reads a `.safetensors` file into memory (one read, into one 8-byte aligned buffer) and
/// gives its tensors, which share that buffer: no copy per tensor. Safe; see
/// [`map_safetensors`] to map the file instead of reading it.
///
/// # Errors
/// [`Error::Io`] if the file cannot be read; [`Error::Alloc`] if it does not fit in memory;
/// otherwise as [`SafeTensorsFile::from_bytes`].
///
/// ```
/// use stridex::interop::{load_safetensors, save_safetensors};
/// use stridex::Tensor;
/// let path = std::env::temp_dir().join(format!("stridex-doc-load-{}.safetensors", std::process::id()));
/// let x = Tensor::arange(0u16, 12, 1)?.view(&[3, 4])?;
/// save_safetensors(&path, &[("x", &x.t()?)])?; // any layout; written in logical order
/// let x2 = load_safetensors(&path)?.tensor::<u16>("x")?;
/// assert_eq!((x2.shape(), x2.to_vec()), (&[4, 3][..], x.t()?.to_vec()));
/// assert!(!x2.storage().is_writable()); // it reads the loaded bytes in place
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn load_safetensors(path: impl AsRef<Path>) -> Result<SafeTensorsFile> {
    let path = path.as_ref();
    let label = path.display().to_string();
    let io = |e: std::io::Error| io_error("load_safetensors", &label, &e);
    let mut file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let len = usize::try_from(len)
        .ok()
        .filter(|&l| l <= isize::MAX as usize)
        .ok_or(Error::Alloc {
            op: "load_safetensors",
            bytes: usize::MAX,
        })?;
    let mut words: Vec<u64> = Vec::new();
    words
        .try_reserve_exact(len.div_ceil(8))
        .map_err(|_| Error::Alloc {
            op: "load_safetensors",
            bytes: len,
        })?;
    words.resize(len.div_ceil(8), 0);
    file.read_exact(&mut bytemuck::cast_slice_mut(&mut words)[..len])
        .map_err(io)?;
    parse(Arc::new(FileBytes { words, len }), &label)
}

/// Memory-maps a `.safetensors` file and gives its tensors, which read the mapped pages in
/// place: nothing is read or copied until an element is used.
///
/// # Safety
/// The file must not be written to or truncated, by this process or another, while any
/// tensor from the result (or any view of one) is alive. The tensors read the mapping
/// directly, so a change to the file would change their elements behind Rust's borrow rules
/// (undefined behaviour), and a truncation makes reads of the lost pages fault. Replacing the
/// file with [`save_safetensors`] is fine: it writes a new file and renames it over the old
/// one, whose mapping stays intact. When this cannot be promised, use [`load_safetensors`].
///
/// # Errors
/// [`Error::Io`] if the file cannot be opened or mapped; otherwise as
/// [`SafeTensorsFile::from_bytes`].
///
/// ```
/// use stridex::interop::{map_safetensors, save_safetensors};
/// use stridex::Tensor;
/// let path = std::env::temp_dir().join(format!("stridex-doc-map-{}.safetensors", std::process::id()));
/// save_safetensors(&path, &[("w", &Tensor::<f64>::full(&[2, 2], 0.5)?)])?;
/// // SAFETY: nothing else writes this freshly made file while `w` lives.
/// let file = unsafe { map_safetensors(&path)? };
/// let w = file.tensor::<f64>("w")?;
/// assert_eq!(w.matmul(&w)?.to_vec(), vec![0.5; 4]);
/// # drop((w, file));
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), stridex::Error>(())
/// ```
pub unsafe fn map_safetensors(path: impl AsRef<Path>) -> Result<SafeTensorsFile> {
    let path = path.as_ref();
    let label = path.display().to_string();
    let io = |e: std::io::Error| io_error("map_safetensors", &label, &e);
    let file = File::open(path).map_err(io)?;
    // SAFETY: the caller promises that the file is not modified or truncated while the map
    // (kept alive by the tensors' storages) exists; that is all `Mmap::map` requires.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
    parse(Arc::new(map), &label)
}

/// Writes `tensors` as a `.safetensors` file, replacing any file at `path`.
///
/// Tensors may have any element type and any layout: each is written in logical (row-major)
/// order, straight from its memory when contiguous, after one copy otherwise. The file is
/// written to a temporary file next to `path` and renamed over it, so a mapping of the old
/// file stays valid. The `safetensors` writer places tensors largest element first with an
/// 8-byte padded header, so every tensor in the file is aligned to its element type. To write
/// the file's `__metadata__` string map too, use [`save_safetensors_with_metadata`].
///
/// # Errors
/// [`Error::InvalidArgument`] if two tensors have the same name, a tensor is named
/// `"__metadata__"` (the header's key for the metadata map, so no tensor can have it), or the
/// header would exceed the format's 100 MB limit; [`Error::Io`] if the file cannot be
/// written; [`Error::Alloc`].
///
/// ```
/// use stridex::interop::{load_safetensors, save_safetensors};
/// use stridex::Tensor;
/// let path = std::env::temp_dir().join(format!("stridex-doc-save-{}.safetensors", std::process::id()));
/// let a = Tensor::arange(0i32, 6, 1)?.view(&[2, 3])?;
/// let half = Tensor::<half::f16>::zeros(&[4])?;
/// save_safetensors(&path, &[("a", &a.flip(1)?), ("h", &half)])?;
/// let file = load_safetensors(&path)?;
/// assert_eq!(file.tensor::<i32>("a")?.to_vec(), vec![2, 1, 0, 5, 4, 3]);
/// assert!(save_safetensors(&path, &[("a", &a), ("a", &half)]).is_err()); // one name twice
/// assert!(save_safetensors(&path, &[("__metadata__", &a)]).is_err()); // the reserved key
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn save_safetensors(
    path: impl AsRef<Path>,
    tensors: &[(&str, &dyn AsDynTensor)],
) -> Result<()> {
    write_file(path.as_ref(), tensors, None, "save_safetensors")
}

/// Writes `tensors` as a `.safetensors` file, as [`save_safetensors`] does, with `metadata`
/// as the file's `__metadata__`: free-form string keys and values (Python's
/// `save_file(tensors, path, metadata={...})`; PyTorch checkpoints carry `{"format": "pt"}`).
///
/// `metadata` is any collection of string pairs: a `&HashMap<String, String>`, a
/// `&BTreeMap<String, String>` (such as [`SafeTensorsFile::metadata`] of a loaded file, to
/// keep it when re-saving), or an array such as `[("format", "pt")]`. Reading the file gives
/// it back through [`SafeTensorsFile::metadata`]. An empty map writes no `__metadata__`, the
/// same file as [`save_safetensors`].
///
/// # Errors
/// As [`save_safetensors`], and [`Error::InvalidArgument`] if `metadata` gives a key twice.
///
/// ```
/// use std::collections::HashMap;
/// use stridex::interop::{load_safetensors, save_safetensors_with_metadata};
/// use stridex::Tensor;
/// let path = std::env::temp_dir().join(format!("stridex-doc-meta-{}.safetensors", std::process::id()));
/// let w = Tensor::<f32>::ones(&[2, 2])?;
/// save_safetensors_with_metadata(&path, &[("w", &w)], [("format", "pt"), ("step", "100")])?;
/// let file = load_safetensors(&path)?;
/// assert_eq!(file.metadata().get("format").map(String::as_str), Some("pt"));
/// assert_eq!(file.metadata().len(), 2);
///
/// // A HashMap (or the BTreeMap a loaded file gives) works as well.
/// let meta: HashMap<String, String> = [("author".to_string(), "me".to_string())].into();
/// save_safetensors_with_metadata(&path, &[("w", &w)], &meta)?;
/// assert_eq!(load_safetensors(&path)?.metadata()["author"], "me");
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn save_safetensors_with_metadata<K, V>(
    path: impl AsRef<Path>,
    tensors: &[(&str, &dyn AsDynTensor)],
    metadata: impl IntoIterator<Item = (K, V)>,
) -> Result<()>
where
    K: AsRef<str>,
    V: AsRef<str>,
{
    const OP: &str = "save_safetensors_with_metadata";
    let mut map = HashMap::new();
    for (k, v) in metadata {
        let (k, v) = (k.as_ref(), v.as_ref());
        if map.insert(k.to_string(), v.to_string()).is_some() {
            return Err(Error::InvalidArgument {
                op: OP,
                message: format!(
                    "the metadata key {k:?} is given twice; __metadata__ maps each key to one \
                     string, so give each key once"
                ),
            });
        }
    }
    let map = (!map.is_empty()).then_some(map);
    write_file(path.as_ref(), tensors, map, OP)
}

/// The header key that holds the metadata map, which no tensor may use as its name.
const METADATA_KEY: &str = "__metadata__";

fn write_file(
    path: &Path,
    tensors: &[(&str, &dyn AsDynTensor)],
    metadata: Option<HashMap<String, String>>,
    op: &'static str,
) -> Result<()> {
    let label = path.display().to_string();
    let mut seen = HashSet::new();
    let mut views = Vec::with_capacity(tensors.len());
    for &(name, tensor) in tensors {
        if name == METADATA_KEY {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "a tensor is named {METADATA_KEY:?}, the key a safetensors header keeps \
                     the file's string metadata under, so the file could not be loaded (by \
                     stridex or Python); give the tensor another name, and pass string \
                     metadata to save_safetensors_with_metadata"
                ),
            });
        }
        if !seen.insert(name) {
            return Err(Error::InvalidArgument {
                op,
                message: format!(
                    "the name {name:?} is given twice; a safetensors file holds one tensor per name"
                ),
            });
        }
        views.push((name.to_string(), WriteView::new(&tensor.to_dyn())?));
    }
    ::safetensors::serialize_to_file(views, metadata, path).map_err(|e| match e {
        // The writer's temporary file is its own business: its path (`.tmpXXXX` next to
        // `path`, which the `tempfile` crate appends) is cut from the message.
        ::safetensors::SafeTensorError::IoError(e) => {
            let text = e.to_string();
            let text = text.split(" at path ").next().unwrap_or(&text);
            io_error(op, &label, &std::io::Error::new(e.kind(), text))
        }
        other => Error::InvalidArgument {
            op,
            message: format!("the safetensors writer refused the tensors: {other}"),
        },
    })
}

/// One tensor to write: its safetensors dtype, shape and little-endian bytes.
struct WriteView {
    dtype: Dtype,
    shape: Vec<usize>,
    bytes: Box<dyn LogicalBytes>,
}

/// [`LeBytes`] of any element type.
trait LogicalBytes {
    fn bytes(&self) -> &[u8];
}

impl<T: Element> LogicalBytes for LeBytes<T> {
    fn bytes(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl WriteView {
    fn new(t: &DynTensor) -> Result<WriteView> {
        Ok(WriteView {
            dtype: file_dtype(t.dtype()),
            shape: t.shape().to_vec(),
            bytes: each_dtype!(t, t => Box::new(LeBytes::new(t).map_err(|e| e.named("save_safetensors"))?) as Box<dyn LogicalBytes>),
        })
    }
}

impl View for WriteView {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(self.bytes.bytes())
    }
    fn data_len(&self) -> usize {
        self.bytes.bytes().len()
    }
}

fn file_dtype(d: DType) -> Dtype {
    match d {
        DType::F16 => Dtype::F16,
        DType::BF16 => Dtype::BF16,
        DType::F32 => Dtype::F32,
        DType::F64 => Dtype::F64,
        DType::I8 => Dtype::I8,
        DType::I16 => Dtype::I16,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::U8 => Dtype::U8,
        DType::U16 => Dtype::U16,
        DType::U32 => Dtype::U32,
        DType::U64 => Dtype::U64,
    }
}

/// The stridex element type for a file dtype; `BOOL` (one byte, 0 or 1) loads as `u8`, the
/// type of stridex's masks.
fn element_dtype(d: Dtype) -> Option<DType> {
    Some(match d {
        Dtype::BOOL | Dtype::U8 => DType::U8,
        Dtype::I8 => DType::I8,
        Dtype::I16 => DType::I16,
        Dtype::U16 => DType::U16,
        Dtype::F16 => DType::F16,
        Dtype::BF16 => DType::BF16,
        Dtype::I32 => DType::I32,
        Dtype::U32 => DType::U32,
        Dtype::F32 => DType::F32,
        Dtype::F64 => DType::F64,
        Dtype::I64 => DType::I64,
        Dtype::U64 => DType::U64,
        _ => return None,
    })
}

fn parse<O>(owner: Arc<O>, path: &str) -> Result<SafeTensorsFile>
where
    O: AsRef<[u8]> + Send + Sync + 'static,
{
    let malformed = |message: String| Error::MalformedFile {
        format: "safetensors",
        path: path.to_string(),
        message,
    };
    // The framing is done here rather than by `SafeTensors::read_metadata`, whose final length
    // check (`buffer_end + 8 + n`, safetensors 0.8.0) overflows, a panic in debug builds, on a
    // header whose offsets add up to nearly usize::MAX; the JSON and its validation are the
    // crate's (`Metadata`'s `Deserialize`).
    let bytes: &[u8] = (*owner).as_ref();
    let len_field: [u8; 8] = bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| {
            malformed(format!(
                "it is {} bytes long, shorter than the 8-byte header length that starts every \
                 safetensors file",
                bytes.len()
            ))
        })?;
    let header_len = u64::from_le_bytes(len_field);
    if header_len > MAX_HEADER {
        return Err(malformed(format!(
            "the header length field says {header_len} bytes, above the format's limit of \
             {MAX_HEADER}; is this a safetensors file?"
        )));
    }
    // At most 100 MB, so the sum fits any usize of 32 bits or more.
    let header_end = 8 + header_len as usize;
    let header = bytes.get(8..header_end).ok_or_else(|| {
        malformed(format!(
            "the header length field says {header_len} bytes but only {} follow it; the file \
             is truncated",
            bytes.len() - 8
        ))
    })?;
    let text = std::str::from_utf8(header)
        .map_err(|e| malformed(format!("the header is not UTF-8 text ({e})")))?;
    let metadata: Metadata = serde_json::from_str(text).map_err(|e| {
        // The parser's message names the safetensors crate's private struct; say what it
        // is instead.
        let e = e
            .to_string()
            .replace("struct HashMetadata", "a JSON object of tensors")
            .replace("HashMetadata", "the header");
        malformed(format!(
            "the JSON header is not valid: {e}; each entry needs a dtype, a shape and \
             data_offsets that follow the previous tensor's with no gap or overlap"
        ))
    })?;
    let data = &bytes[header_end..];
    if metadata.data_len() != data.len() {
        return Err(malformed(format!(
            "the header's tensors cover {} data bytes but the file has {} after the header; \
             the file is truncated or has trailing bytes",
            metadata.data_len(),
            data.len()
        )));
    }
    let mut tensors = BTreeMap::new();
    for (name, info) in metadata.tensors() {
        let dtype = element_dtype(info.dtype).ok_or_else(|| Error::UnsupportedDType {
            format: "safetensors",
            path: path.to_string(),
            dtype: format!("{:?} (tensor {name:?})", info.dtype),
        })?;
        let (start, end) = info.data_offsets;
        if start > end || end > data.len() {
            return Err(malformed(format!(
                "tensor {name:?} has data_offsets [{start}, {end}] outside the {} data bytes",
                data.len()
            )));
        }
        let at = Placed {
            owner: &owner,
            byte_offset: header_end + start,
            bytes: end - start,
            shape: &info.shape,
            name: &name,
            path,
        };
        let tensor: DynTensor = match dtype {
            DType::F16 => at.tensor::<f16>()?.into(),
            DType::BF16 => at.tensor::<bf16>()?.into(),
            DType::F32 => at.tensor::<f32>()?.into(),
            DType::F64 => at.tensor::<f64>()?.into(),
            DType::I8 => at.tensor::<i8>()?.into(),
            DType::I16 => at.tensor::<i16>()?.into(),
            DType::I32 => at.tensor::<i32>()?.into(),
            DType::I64 => at.tensor::<i64>()?.into(),
            DType::U8 => at.tensor::<u8>()?.into(),
            DType::U16 => at.tensor::<u16>()?.into(),
            DType::U32 => at.tensor::<u32>()?.into(),
            DType::U64 => at.tensor::<u64>()?.into(),
        };
        tensors.insert(name, tensor);
    }
    let metadata = metadata
        .metadata()
        .iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(SafeTensorsFile { tensors, metadata })
}

/// Where one tensor's bytes are in the file.
struct Placed<'a, O> {
    owner: &'a Arc<O>,
    byte_offset: usize,
    bytes: usize,
    shape: &'a [usize],
    name: &'a str,
    path: &'a str,
}

impl<O: AsRef<[u8]> + Send + Sync + 'static> Placed<'_, O> {
    /// The tensor: on the owner's bytes in place when they are aligned (and in the machine's
    /// byte order), else a copy.
    fn tensor<T: Element>(&self) -> Result<Tensor<T>> {
        let size = std::mem::size_of::<T>();
        let numel = checked_numel(self.shape).filter(|n| n.checked_mul(size) == Some(self.bytes));
        let Some(numel) = numel else {
            return Err(Error::MalformedFile {
                format: "safetensors",
                path: self.path.to_string(),
                message: format!(
                    "tensor {:?} has shape {:?} of {}, which does not take its {} bytes",
                    self.name,
                    self.shape,
                    T::DTYPE,
                    self.bytes
                ),
            });
        };
        let all: &[u8] = (**self.owner).as_ref();
        let raw = &all[self.byte_offset..self.byte_offset + self.bytes];
        let aligned = raw.as_ptr() as usize % std::mem::align_of::<T>() == 0;
        if numel > 0 && aligned && cfg!(target_endian = "little") {
            let storage = Storage::from_byte_owner(self.owner.clone(), self.byte_offset, numel)?;
            return Tensor::from_storage(storage, Layout::contiguous(self.shape)?);
        }
        let mut v = vec![T::zeroed(); numel];
        bytemuck::cast_slice_mut::<T, u8>(&mut v).copy_from_slice(raw);
        if cfg!(target_endian = "big") {
            swap_byte_order(bytemuck::cast_slice_mut(&mut v), size);
        }
        Tensor::from_vec(v, self.shape)
    }
}
