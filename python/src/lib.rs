//! The `stridex` Python module: `stridex.Tensor` (any element type, read-only views),
//! `stridex.from_dlpack`, the copy audit's totals, and `.npy` / `.safetensors` files.
//!
//! Exchange follows the Python array API's DLPack protocol: `__dlpack__` returns a capsule
//! named `"dltensor_versioned"` (a `DLManagedTensorVersioned`, when the consumer passes
//! `max_version >= (1, 0)`) or `"dltensor"` (the legacy struct); a consumer renames it
//! `"used_..."` once it owns the tensor, and the capsule's destructor calls the deleter only
//! if it was never consumed.
//!
//! Exports share memory and are marked read-only (`DLPACK_FLAG_BITMASK_READ_ONLY`): the
//! `stridex.Tensor` object itself still holds the storage, so a consumer writing into it
//! would change a tensor stridex treats as immutable. NumPy honours the flag (its array is
//! not writeable); PyTorch (2.15 included) ignores it: `torch.from_dlpack(t)` is a writable
//! tensor on the same memory, and writing it changes the stridex tensor. For a tensor to
//! write, ask for a copy: `torch.from_dlpack(t, copy=True)`, `np.from_dlpack(t, copy=True)`.
//! `copy=True` exports a private, writable copy (`IS_COPIED`, one audited copy, in the
//! tensor's memory order: channels-last stays channels-last). The legacy struct cannot say
//! "read-only", so a legacy request copies (`copy=None`) or raises `BufferError`
//! (`copy=False`). Imports read the producer's memory in place and never write it.
//!
//! Beside DLPack: `np.asarray(t)` / `np.array(t)` (`__array__`), the buffer protocol
//! (`memoryview(t)`), `t[...]` ([`index`]), `.T`, `tolist()`, `numpy()`, and `shape`,
//! `strides` (bytes) and `dtype` as NumPy spells them ([`numpy`]).

mod index;
mod numpy;

use std::ffi::{c_int, c_void};
use std::path::PathBuf;

use pyo3::exceptions::{PyBufferError, PyIndexError, PyOSError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PySlice, PyTuple};
use pyo3::IntoPyObjectExt;
use stridex::interop::dlpack::{
    device_type, DLManagedTensor, DLManagedTensorVersioned, DLPackTensor, ManagedTensor,
    DLPACK_VERSION,
};
use stridex::interop::{AsDynTensor, DynTensor};
use stridex::{audit, Element, Error, Tensor};

/// Runs `$body` with `$t` bound to the typed tensor inside a `&DynTensor`.
macro_rules! each {
    ($d:expr, $t:ident => $body:expr) => {
        match $d {
            DynTensor::F16($t) => $body,
            DynTensor::BF16($t) => $body,
            DynTensor::F32($t) => $body,
            DynTensor::F64($t) => $body,
            DynTensor::I8($t) => $body,
            DynTensor::I16($t) => $body,
            DynTensor::I32($t) => $body,
            DynTensor::I64($t) => $body,
            DynTensor::U8($t) => $body,
            DynTensor::U16($t) => $body,
            DynTensor::U32($t) => $body,
            DynTensor::U64($t) => $body,
            // `DynTensor` may gain variants with new element types.
            #[allow(unreachable_patterns)]
            _ => unreachable!("a DynTensor variant without a binding"),
        }
    };
}
pub(crate) use each;

/// A view op on any element type: `$body` gives a `Result<Tensor<T>>`.
macro_rules! view {
    ($self:expr, $t:ident => $body:expr) => {
        each!(&$self.inner, $t => $body.map(DynTensor::from))
            .map(|inner| PyTensor { inner })
            .map_err(to_py)
    };
}

/// A stridex error as the Python exception that fits it, with stridex's message.
pub(crate) fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::DimOutOfRange { .. }
        | Error::NegativeDimOutOfRange { .. }
        | Error::IndexOutOfRange { .. }
        | Error::IndexOutOfBounds { .. } => PyIndexError::new_err(msg),
        Error::Io { .. } => PyOSError::new_err(msg),
        _ => PyValueError::new_err(msg),
    }
}

/// A strided tensor of any stridex element type: `shape`, `strides` (in bytes, as NumPy),
/// `stride()` (in elements, as PyTorch), `dtype` (NumPy's name), the view ops (each returns a
/// new view of the same memory; dims may be negative), `t[...]`, `.T`, `contiguous()`,
/// `tolist()`, `numpy()`, and the DLPack, `__array__` and buffer protocols
/// (`np.from_dlpack(t)`, `np.asarray(t)`, `torch.from_dlpack(t)` share its memory; stridex
/// marks it read-only, which PyTorch ignores: see the module docs).
#[pyclass(name = "Tensor", module = "stridex", frozen)]
struct PyTensor {
    inner: DynTensor,
}

/// Sizes or dims given as `f(2, 3)` or `f((2, 3))` / `f([2, 3])`; negative values are kept
/// (dims from the end, an inferred `-1` length).
fn sizes(args: &Bound<'_, PyTuple>) -> PyResult<Vec<i64>> {
    if args.len() == 1 {
        if let Ok(v) = args.get_item(0)?.extract::<Vec<i64>>() {
            return Ok(v);
        }
    }
    args.extract::<Vec<i64>>()
}

/// `index` of a dim of size `size`, counted from the end if negative (Python's rule).
fn wrap_index(index: i64, size: usize) -> PyResult<usize> {
    let at = if index < 0 {
        index + size as i64
    } else {
        index
    };
    if at < 0 || at >= size as i64 {
        return Err(PyIndexError::new_err(format!(
            "index {index} is out of range for a dim of size {size}"
        )));
    }
    Ok(at as usize)
}

/// The size of dim `dim` (negative from the end) of `t`.
fn dim_size(t: &DynTensor, dim: i64) -> PyResult<usize> {
    let n = t.ndim() as i64;
    let d = if dim < 0 { dim + n } else { dim };
    if d < 0 || d >= n {
        return Err(PyIndexError::new_err(format!(
            "dim {dim} is out of range for a tensor of {n} dim(s)"
        )));
    }
    Ok(t.shape()[d as usize])
}

#[pymethods]
impl PyTensor {
    /// The size of each dim.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.shape())
    }

    /// The stride of each dim in bytes, as NumPy's `strides` (PyTorch's `stride()` counts
    /// elements: [`PyTensor::stride`]).
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let item = self.inner.dtype().size() as isize;
        PyTuple::new(
            py,
            each!(&self.inner, t => t.strides().iter().map(|&s| s * item).collect::<Vec<_>>()),
        )
    }

    /// The stride of each dim in elements (PyTorch's `stride()`), or of dim `dim`.
    #[pyo3(signature = (dim=None))]
    fn stride<'py>(&self, py: Python<'py>, dim: Option<i64>) -> PyResult<Bound<'py, PyAny>> {
        let strides = each!(&self.inner, t => t.strides().to_vec());
        match dim {
            None => PyTuple::new(py, strides).map(Bound::into_any),
            Some(d) => {
                dim_size(&self.inner, d)?;
                let d = if d < 0 { d + strides.len() as i64 } else { d };
                strides[d as usize].into_bound_py_any(py)
            }
        }
    }

    /// The element type, as NumPy names it: "float32", "bfloat16", "int64", ...
    /// (`np.dtype(t.dtype)` accepts every one but "bfloat16", which NumPy lacks).
    #[getter]
    fn dtype(&self) -> &'static str {
        numpy::numpy_name(self.inner.dtype())
    }

    /// Number of dims.
    #[getter]
    fn ndim(&self) -> usize {
        self.inner.ndim()
    }

    /// Number of elements.
    #[getter]
    fn numel(&self) -> usize {
        self.inner.numel()
    }

    /// The storage offset of element [0, 0, ...], in elements.
    #[getter]
    fn offset(&self) -> usize {
        each!(&self.inner, t => t.offset())
    }

    /// The address of element [0, 0, ...] (what DLPack's `data` is).
    #[getter]
    fn data_ptr(&self) -> usize {
        each!(&self.inner, t => t.data_ptr() as usize)
    }

    /// Whether the elements are in row-major order, without gaps.
    fn is_contiguous(&self) -> bool {
        each!(&self.inner, t => t.is_contiguous())
    }

    /// Whether the two tensors view the same storage.
    fn shares_storage(&self, other: &PyTensor) -> bool {
        let a = each!(&self.inner, t => std::sync::Arc::as_ptr(t.storage()).cast::<u8>());
        let b = each!(&other.inner, t => std::sync::Arc::as_ptr(t.storage()).cast::<u8>());
        std::ptr::eq(a, b)
    }

    /// Dims `d0` and `d1` swapped (negative dims count from the end).
    fn transpose(&self, d0: i64, d1: i64) -> PyResult<PyTensor> {
        view!(self, t => t.transpose(d0, d1))
    }

    /// The transpose of a tensor of at most 2 dims.
    fn t(&self) -> PyResult<PyTensor> {
        view!(self, t => t.t())
    }

    /// Every dim reversed (NumPy's `.T`; the transpose of a matrix).
    #[getter(T)]
    fn reversed_dims(&self) -> PyResult<PyTensor> {
        let dims: Vec<usize> = (0..self.inner.ndim()).rev().collect();
        view!(self, t => t.permute(&dims))
    }

    /// The dims reordered: `permute(2, 0, 1)`, `permute((2, 0, 1))`, `permute(-1, 0, 1)`.
    #[pyo3(signature = (*dims))]
    fn permute(&self, dims: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        let dims = sizes(dims)?;
        view!(self, t => t.permute(&dims))
    }

    /// `length` indices of dim `dim` from `start` (both may count from the end).
    fn narrow(&self, dim: i64, start: i64, length: usize) -> PyResult<PyTensor> {
        let size = dim_size(&self.inner, dim)?;
        let start = if start < 0 {
            start + size as i64
        } else {
            start
        };
        let start = usize::try_from(start).map_err(|_| {
            PyIndexError::new_err(format!("narrow: start is out of range for size {size}"))
        })?;
        view!(self, t => t.narrow(dim, start, length))
    }

    /// `a[start:stop:step]` along `dim` (Python's slice rules, negative steps included).
    #[pyo3(signature = (dim, start=None, stop=None, step=1))]
    fn slice(
        &self,
        py: Python<'_>,
        dim: i64,
        start: Option<isize>,
        stop: Option<isize>,
        step: isize,
    ) -> PyResult<PyTensor> {
        let n = self.inner.ndim() as i64;
        dim_size(&self.inner, dim)?;
        let d = if dim < 0 { dim + n } else { dim } as usize;
        let slice = py
            .get_type::<PySlice>()
            .call1((start, stop, step))?
            .cast_into::<PySlice>()?;
        let mut items: Vec<index::Item<'_>> = (0..d)
            .map(|_| index::Item::Slice(PySlice::full(py)))
            .collect();
        items.push(index::Item::Slice(slice));
        self.indexed(&items)
    }

    /// Index `index` of dim `dim` (both may count from the end); the dim is removed.
    fn select(&self, dim: i64, index: i64) -> PyResult<PyTensor> {
        let at = wrap_index(index, dim_size(&self.inner, dim)?)?;
        view!(self, t => t.select(dim, at))
    }

    /// Dim `dim` (of size 1) removed; without `dim`, every size-1 dim.
    #[pyo3(signature = (dim=None))]
    fn squeeze(&self, dim: Option<i64>) -> PyResult<PyTensor> {
        match dim {
            Some(d) => view!(self, t => t.squeeze(d)),
            None => view!(self, t => squeeze_all(t)),
        }
    }

    /// A size-1 dim inserted at `dim` (`-1`: last).
    fn unsqueeze(&self, dim: i64) -> PyResult<PyTensor> {
        view!(self, t => t.unsqueeze(dim))
    }

    /// Size-1 dims broadcast to `shape` (stride 0), new dims on the left; `-1` keeps a size.
    #[pyo3(signature = (*shape))]
    fn expand(&self, shape: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        let want = sizes(shape)?;
        let have = self.inner.shape();
        let lead = want.len().saturating_sub(have.len());
        let shape = want
            .iter()
            .enumerate()
            .map(|(i, &n)| match n {
                -1 if i >= lead => Ok(have[i - lead]),
                n => usize::try_from(n).map_err(|_| {
                    PyValueError::new_err(format!(
                        "expand: size {n} at position {i}: sizes are >= 0, or -1 to keep an \
                         existing dim's size"
                    ))
                }),
            })
            .collect::<PyResult<Vec<usize>>>()?;
        view!(self, t => t.expand(&shape))
    }

    /// Dim `dim` reversed (a negative stride).
    fn flip(&self, dim: i64) -> PyResult<PyTensor> {
        view!(self, t => t.flip(dim))
    }

    /// The same elements with another shape (one length may be `-1`): a view when possible,
    /// else one audited copy.
    #[pyo3(signature = (*shape))]
    fn reshape(&self, shape: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        let shape = sizes(shape)?;
        view!(self, t => t.reshape(&shape))
    }

    /// `t[key]`: ints (negative from the end), slices (any step), `None`, `...`, or a tuple
    /// of them; one view of the same memory (ints alone give a 0-dim tensor, as PyTorch).
    fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        self.indexed(&index::items(key)?)
    }

    /// The elements as nested lists of Python numbers (a number for a 0-dim tensor).
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        numpy::tolist(py, &self.inner)
    }

    /// The one element of a one-element tensor, as a Python number.
    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.inner.numel() != 1 {
            return Err(PyValueError::new_err(format!(
                "item() needs exactly one element; this tensor has shape {:?}",
                self.inner.shape()
            )));
        }
        let flat = view!(self, t => t.reshape(&[1usize; 0]))?;
        numpy::tolist(py, &flat.inner)
    }

    /// A NumPy array on the same memory, read-only (stridex tensors are immutable; PyTorch's
    /// `numpy()` shares a writable one): `np.from_dlpack(t)`. `np.array(t)` is a writable copy.
    fn numpy<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        numpy::array(slf.as_any(), None, Some(false))
    }

    /// NumPy's array protocol: `np.asarray(t)` shares the memory (read-only), `np.array(t)`
    /// and `copy=True` copy it (writable), a different `dtype` converts (a copy, so
    /// `copy=False` then raises `ValueError`).
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        slf: &Bound<'py, Self>,
        dtype: Option<Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        numpy::array(slf.as_any(), dtype, copy)
    }

    /// The buffer protocol (`memoryview(t)`; NumPy's fallback): the memory, read-only, with
    /// its shape and byte strides; consumers that need contiguous memory get a `BufferError`
    /// for a strided view.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        let inner = slf.get().inner.clone();
        // SAFETY: `view` comes from the interpreter; `slf` is the frozen object holding
        // `inner`'s storage, and the view keeps a reference to it.
        unsafe { numpy::fill_buffer(view, flags, &inner, slf.into_any()) }
    }

    /// Frees the shape and strides `__getbuffer__` allocated.
    unsafe fn __releasebuffer__(&self, view: *mut ffi::Py_buffer) {
        // SAFETY: `view` was filled by `__getbuffer__` and is released once.
        unsafe { numpy::release_buffer(view) }
    }

    /// This tensor in row-major order: itself if already contiguous, else one audited copy.
    fn contiguous(&self) -> PyResult<PyTensor> {
        view!(self, t => t.try_contiguous())
    }

    /// The DLPack device: always the CPU, `(1, 0)`.
    fn __dlpack_device__(&self) -> (i32, i32) {
        (device_type::CPU, 0)
    }

    /// A DLPack capsule of this tensor (the array API's protocol).
    ///
    /// `max_version` >= (1, 0) gives a `"dltensor_versioned"` capsule, marked read-only
    /// unless `copy=True` (NumPy honours the mark; PyTorch ignores it, so a consumer that
    /// writes should pass `copy=True`); otherwise a legacy `"dltensor"` capsule, which cannot be marked read-only,
    /// so it is a copy (`copy=None` or `True`) or a `BufferError` (`copy=False`). `stream`
    /// must be None (CPU memory has no stream) and `dl_device` the CPU, `(1, 0)`.
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<Bound<'py, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Some(stream) = stream {
            return Err(PyBufferError::new_err(format!(
                "stridex tensors live in CPU memory, which has no stream; pass stream=None, \
                 not {stream}"
            )));
        }
        if let Some((ty, id)) = dl_device {
            if (ty, id) != (device_type::CPU, 0) {
                return Err(PyBufferError::new_err(format!(
                    "stridex tensors live on the CPU, (1, 0); cannot export to device ({ty}, \
                     {id}): export to the CPU and move the result"
                )));
            }
        }
        let versioned = max_version.is_some_and(|(major, _)| major >= DLPACK_VERSION.major);
        if versioned {
            let managed = if copy == Some(true) {
                each!(&self.inner, t => t.to_dlpack_copy()).map_err(to_py)?
            } else {
                each!(&self.inner, t => t.clone().to_dlpack())
            };
            return capsule(py, managed);
        }
        let managed = match copy {
            Some(true) => each!(&self.inner, t => t.to_dlpack_legacy_copy()),
            _ => match each!(&self.inner, t => t.clone().to_dlpack_legacy()) {
                Ok(shared) => Ok(shared),
                Err(e) if copy == Some(false) => {
                    return Err(PyBufferError::new_err(format!(
                        "copy=False, but a copy is needed: {e}"
                    )))
                }
                Err(_) => each!(&self.inner, t => t.to_dlpack_legacy_copy()),
            },
        };
        capsule(py, managed.map_err(to_py)?)
    }

    fn __repr__(&self) -> String {
        // Python's tuple spelling: `(4,)`, `(2, 3)`.
        let tuple = |v: Vec<String>| match v.len() {
            1 => format!("({},)", v[0]),
            _ => format!("({})", v.join(", ")),
        };
        format!(
            "stridex.Tensor(shape={}, stride={}, dtype={})",
            tuple(self.inner.shape().iter().map(|n| n.to_string()).collect()),
            tuple(each!(&self.inner, t => t.strides().iter().map(|s| s.to_string()).collect())),
            numpy::numpy_name(self.inner.dtype())
        )
    }

    fn __len__(&self) -> PyResult<usize> {
        self.inner
            .shape()
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("len() of a 0-dim tensor"))
    }
}

impl PyTensor {
    /// `self[items]`.
    fn indexed(&self, items: &[index::Item<'_>]) -> PyResult<PyTensor> {
        let inner = each!(&self.inner, t => index::index(t, items).map(DynTensor::from))?;
        Ok(PyTensor { inner })
    }
}

/// Every size-1 dim of `t` removed.
fn squeeze_all<T: Element>(t: &Tensor<T>) -> Result<Tensor<T>, Error> {
    let mut t = t.clone();
    while let Some(d) = t.shape().iter().position(|&n| n == 1) {
        t = t.squeeze(d)?;
    }
    Ok(t)
}

/// A capsule owning `managed`: named as the protocol says, its destructor calls the deleter
/// unless a consumer took the tensor (and renamed the capsule).
fn capsule<H: ManagedTensor>(
    py: Python<'_>,
    managed: DLPackTensor<H>,
) -> PyResult<Bound<'_, PyAny>> {
    let raw = managed.into_raw().as_ptr();
    // SAFETY: `raw` is a live managed tensor owned here; the name is a static C string, so it
    // outlives the capsule; the destructor matches the pointer's type.
    let cap = unsafe {
        ffi::PyCapsule_New(
            raw.cast::<c_void>(),
            H::CAPSULE_NAME.as_ptr(),
            Some(destroy::<H>),
        )
    };
    if cap.is_null() {
        // SAFETY: no capsule took `raw`; it is still owned here, deleted once.
        unsafe { H::delete(raw) };
    }
    // SAFETY: `cap` is a new reference (or null with a Python error set, which becomes Err).
    unsafe { Bound::from_owned_ptr_or_err(py, cap) }
}

/// The destructor of an exported capsule: deletes the tensor if no consumer renamed the
/// capsule (a consumer that did owns it and calls the deleter itself).
///
/// # Safety
/// Called by Python with a capsule `capsule` made, holding a pointer of type `H`.
unsafe extern "C" fn destroy<H: ManagedTensor>(capsule: *mut ffi::PyObject) {
    // SAFETY: `capsule` is a live capsule; IsValid and GetPointer with its current name set
    // no Python error. Still named as made: never consumed, so the tensor is owned here.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, H::CAPSULE_NAME.as_ptr()) == 1 {
            let managed = ffi::PyCapsule_GetPointer(capsule, H::CAPSULE_NAME.as_ptr());
            if !managed.is_null() {
                H::delete(managed.cast::<H>());
            }
        }
    }
}

/// Takes the tensor out of a `"dltensor_versioned"` or `"dltensor"` capsule (renaming it
/// `"used_..."` first, so its destructor no longer deletes it) and imports it in place.
fn take_capsule(obj: &Bound<'_, PyAny>) -> PyResult<DynTensor> {
    let p = obj.as_ptr();
    // SAFETY: `p` is a live object; PyCapsule_IsValid accepts any object and sets no error.
    let is = |name: &std::ffi::CStr| unsafe { ffi::PyCapsule_IsValid(p, name.as_ptr()) == 1 };
    if is(DLManagedTensorVersioned::CAPSULE_NAME) {
        // SAFETY: a valid capsule of that name: its pointer is a managed tensor its producer
        // made; renaming it passes ownership to the import, which deletes it once.
        let result = unsafe { take::<DLManagedTensorVersioned>(p) }?;
        // SAFETY: owned and valid (the DLPack protocol's contract with the producer).
        return unsafe { DynTensor::from_dlpack(result) }.map_err(import_error);
    }
    if is(DLManagedTensor::CAPSULE_NAME) {
        // SAFETY: as above.
        let result = unsafe { take::<DLManagedTensor>(p) }?;
        // SAFETY: as above.
        return unsafe { DynTensor::from_dlpack_legacy(result) }.map_err(import_error);
    }
    if is(DLManagedTensorVersioned::USED_CAPSULE_NAME) || is(DLManagedTensor::USED_CAPSULE_NAME) {
        return Err(PyBufferError::new_err(
            "this DLPack capsule was already consumed (its name starts with 'used_'); ask the \
             producer for a new one (call __dlpack__ again)",
        ));
    }
    Err(PyTypeError::new_err(
        "from_dlpack expects an object with __dlpack__ (a NumPy array, a PyTorch tensor, ...) or \
         a DLPack capsule",
    ))
}

/// The pointer of the capsule at `p`, renamed `"used_..."` so the import owns it.
///
/// # Safety
/// `p` is a valid capsule named `H::CAPSULE_NAME`.
unsafe fn take<H: ManagedTensor>(p: *mut ffi::PyObject) -> PyResult<*mut H> {
    // SAFETY: the caller's guarantee.
    let managed = unsafe { ffi::PyCapsule_GetPointer(p, H::CAPSULE_NAME.as_ptr()) };
    // SAFETY: as above; the new name is a static C string.
    if managed.is_null() || unsafe { ffi::PyCapsule_SetName(p, H::USED_CAPSULE_NAME.as_ptr()) } != 0
    {
        return Err(Python::attach(PyErr::fetch));
    }
    Ok(managed.cast::<H>())
}

fn import_error(e: Error) -> PyErr {
    PyBufferError::new_err(e.to_string())
}

/// A stridex tensor reading `obj`'s memory in place, from any DLPack producer on the CPU
/// (NumPy arrays, PyTorch CPU tensors, ...) or a DLPack capsule, with the array API's
/// keywords: `device` is None or the CPU (`"cpu"`, `(1, 0)`, `torch.device("cpu")`);
/// `copy=None` or `False` reads in place (no copy; stridex never writes the memory, and the
/// producer's writes stay visible), `copy=True` makes a private copy in the producer's memory
/// order (a channels-last tensor stays channels-last; one audited copy).
#[pyfunction]
#[pyo3(signature = (obj, /, *, device=None, copy=None))]
fn from_dlpack(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
    copy: Option<bool>,
) -> PyResult<PyTensor> {
    if let Some(device) = device {
        let cpu = device.extract::<(i32, i32)>().ok() == Some((device_type::CPU, 0))
            || device.str()?.to_str()? == "cpu";
        if !cpu {
            return Err(PyValueError::new_err(format!(
                "from_dlpack: stridex tensors live on the CPU; device={device} is not it (pass \
                 None, \"cpu\" or (1, 0), and move the data to the CPU first)"
            )));
        }
    }
    let inner = import(py, obj)?;
    let inner = match copy {
        Some(true) => each!(&inner, t => owned_copy(t).map(DynTensor::from)).map_err(to_py)?,
        _ => inner,
    };
    Ok(PyTensor { inner })
}

/// A private dense copy of `t` in its memory order (dims by decreasing stride magnitude: a
/// channels-last tensor stays channels-last, as NumPy's and PyTorch's copies keep theirs):
/// the permuted tensor copied row-major (one audited copy), permuted back.
fn owned_copy<T: Element>(t: &Tensor<T>) -> Result<Tensor<T>, Error> {
    let mut order: Vec<usize> = (0..t.ndim()).collect();
    order.sort_by_key(|&d| std::cmp::Reverse(t.strides()[d].unsigned_abs()));
    let mut back = vec![0; order.len()];
    for (i, &d) in order.iter().enumerate() {
        back[d] = i;
    }
    t.permute(&order)?.try_to_owned()?.permute(&back)
}

/// The tensor of `obj` (a producer or a capsule), read in place.
fn import(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<DynTensor> {
    if !obj.hasattr("__dlpack__")? {
        return take_capsule(obj);
    }
    if let Ok(dev) = obj.call_method0("__dlpack_device__") {
        let (ty, id): (i32, i32) = dev.extract()?;
        if ty != device_type::CPU && ty != device_type::CUDA_HOST {
            return Err(PyBufferError::new_err(format!(
                "the object lives on device ({ty}, {id}); stridex reads CPU memory only: move \
                 it to the CPU first (e.g. .cpu() in PyTorch)"
            )));
        }
    }
    let kwargs = PyDict::new(py);
    kwargs.set_item("max_version", (DLPACK_VERSION.major, DLPACK_VERSION.minor))?;
    let cap = match obj.call_method("__dlpack__", (), Some(&kwargs)) {
        Ok(cap) => cap,
        // A producer from before DLPack 1.0 takes no max_version: ask for the legacy capsule.
        Err(e) if e.is_instance_of::<PyTypeError>(py) => obj.call_method0("__dlpack__")?,
        Err(e) => return Err(e),
    };
    take_capsule(&cap)
}

/// Copies stridex made since the module was imported, process-wide: (count, bytes).
#[pyfunction]
fn copy_totals() -> (u64, u64) {
    let t = audit::totals();
    (t.count, t.bytes)
}

/// The tensor in an `.npy` file.
#[pyfunction]
fn load_npy(path: PathBuf) -> PyResult<PyTensor> {
    stridex::interop::load_npy(path)
        .map(|inner| PyTensor { inner })
        .map_err(to_py)
}

/// Writes `tensor` to an `.npy` file.
#[pyfunction]
fn save_npy(path: PathBuf, tensor: &PyTensor) -> PyResult<()> {
    stridex::interop::save_npy(path, &tensor.inner).map_err(to_py)
}

/// The tensors of a `.safetensors` file, by name (aligned tensors read the file's bytes in
/// place).
#[pyfunction]
fn load_safetensors<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let file = stridex::interop::load_safetensors(path).map_err(to_py)?;
    let out = PyDict::new(py);
    for (name, t) in file.into_tensors() {
        out.set_item(name, PyTensor { inner: t })?;
    }
    Ok(out)
}

/// Writes a dict of name -> `stridex.Tensor` to a `.safetensors` file.
#[pyfunction]
fn save_safetensors(path: PathBuf, tensors: &Bound<'_, PyDict>) -> PyResult<()> {
    let mut owned: Vec<(String, DynTensor)> = Vec::with_capacity(tensors.len());
    for (k, v) in tensors.iter() {
        let t = v.cast::<PyTensor>()?;
        owned.push((k.extract()?, t.get().inner.clone()));
    }
    let refs: Vec<(&str, &dyn AsDynTensor)> = owned
        .iter()
        .map(|(k, t)| (k.as_str(), t as &dyn AsDynTensor))
        .collect();
    stridex::interop::save_safetensors(path, &refs).map_err(to_py)
}

/// Strided tensors from Rust, exchanged with NumPy and PyTorch without copies (DLPack).
#[pymodule]
#[pyo3(name = "stridex")]
fn stridex_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    audit::enable_totals();
    m.add_class::<PyTensor>()?;
    m.add_function(wrap_pyfunction!(from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(copy_totals, m)?)?;
    m.add_function(wrap_pyfunction!(load_npy, m)?)?;
    m.add_function(wrap_pyfunction!(save_npy, m)?)?;
    m.add_function(wrap_pyfunction!(load_safetensors, m)?)?;
    m.add_function(wrap_pyfunction!(save_safetensors, m)?)?;
    m.add(
        "DLPACK_VERSION",
        (DLPACK_VERSION.major, DLPACK_VERSION.minor),
    )?;
    Ok(())
}
