//! The `stridex` Python module: `stridex.Tensor` (any element type, read-only views),
//! `stridex.from_dlpack`, the copy audit's totals, and `.npy` / `.safetensors` files.
//!
//! Exchange follows the Python array API's DLPack protocol: `__dlpack__` returns a capsule
//! named `"dltensor_versioned"` (a `DLManagedTensorVersioned`, when the consumer passes
//! `max_version >= (1, 0)`) or `"dltensor"` (the legacy struct); a consumer renames it
//! `"used_..."` once it owns the tensor, and the capsule's destructor calls the deleter only
//! if it was never consumed.
//!
//! Exports share memory and are read-only: the `stridex.Tensor` object itself still holds
//! the storage, so a consumer writing into it would change a tensor stridex treats as
//! immutable. `copy=True` exports a private, writable copy (`IS_COPIED`, one audited copy).
//! The legacy struct cannot say "read-only", so a legacy request copies (`copy=None`) or
//! raises `BufferError` (`copy=False`). Imports read the producer's memory in place and
//! never write it.

use std::ffi::c_void;
use std::path::PathBuf;

use pyo3::exceptions::{PyBufferError, PyIndexError, PyOSError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
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

/// A view op on any element type: `$body` gives a `Result<Tensor<T>>`.
macro_rules! view {
    ($self:expr, $t:ident => $body:expr) => {
        each!(&$self.inner, $t => $body.map(DynTensor::from))
            .map(|inner| PyTensor { inner })
            .map_err(to_py)
    };
}

/// A stridex error as the Python exception that fits it, with stridex's message.
fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::DimOutOfRange { .. } | Error::IndexOutOfRange { .. } => PyIndexError::new_err(msg),
        Error::Io { .. } => PyOSError::new_err(msg),
        _ => PyValueError::new_err(msg),
    }
}

/// A strided tensor of any stridex element type: `shape`, `strides` (in elements), `dtype`,
/// the view ops (each returns a new view of the same memory), `contiguous()`, and the DLPack
/// protocol (`np.from_dlpack(t)`, `torch.from_dlpack(t)` share its memory, read-only).
#[pyclass(name = "Tensor", module = "stridex", frozen)]
struct PyTensor {
    inner: DynTensor,
}

/// Sizes given as `f(2, 3)` or `f((2, 3))` / `f([2, 3])`.
fn sizes(args: &Bound<'_, PyTuple>) -> PyResult<Vec<usize>> {
    if args.len() == 1 {
        if let Ok(v) = args.get_item(0)?.extract::<Vec<usize>>() {
            return Ok(v);
        }
    }
    args.extract::<Vec<usize>>()
}

#[pymethods]
impl PyTensor {
    /// The size of each dim.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.shape())
    }

    /// The stride of each dim, in elements (NumPy's strides are in bytes).
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, each!(&self.inner, t => t.strides().to_vec()))
    }

    /// The element type's name: "f32", "bf16", "i64", ...
    #[getter]
    fn dtype(&self) -> &'static str {
        self.inner.dtype().name()
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

    /// Dims `d0` and `d1` swapped.
    fn transpose(&self, d0: usize, d1: usize) -> PyResult<PyTensor> {
        view!(self, t => t.transpose(d0, d1))
    }

    /// The transpose of a tensor of at most 2 dims.
    fn t(&self) -> PyResult<PyTensor> {
        view!(self, t => t.t())
    }

    /// The dims reordered: `permute(2, 0, 1)` or `permute((2, 0, 1))`.
    #[pyo3(signature = (*dims))]
    fn permute(&self, dims: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        let dims = sizes(dims)?;
        view!(self, t => t.permute(&dims))
    }

    /// `length` indices of dim `dim` from `start`.
    fn narrow(&self, dim: usize, start: usize, length: usize) -> PyResult<PyTensor> {
        view!(self, t => t.narrow(dim, start, length))
    }

    /// `a[start:stop:step]` along `dim` (Python's slice rules, negative steps included).
    #[pyo3(signature = (dim, start=None, stop=None, step=1))]
    fn slice(
        &self,
        dim: usize,
        start: Option<isize>,
        stop: Option<isize>,
        step: isize,
    ) -> PyResult<PyTensor> {
        let start = start.unwrap_or(if step > 0 { 0 } else { -1 });
        let stop = stop.unwrap_or(if step > 0 { isize::MAX } else { isize::MIN });
        view!(self, t => t.slice_step(dim, start..stop, step))
    }

    /// Index `index` of dim `dim`, which is removed.
    fn select(&self, dim: usize, index: usize) -> PyResult<PyTensor> {
        view!(self, t => t.select(dim, index))
    }

    /// Dim `dim` (of size 1) removed; without `dim`, every size-1 dim.
    #[pyo3(signature = (dim=None))]
    fn squeeze(&self, dim: Option<usize>) -> PyResult<PyTensor> {
        match dim {
            Some(d) => view!(self, t => t.squeeze(d)),
            None => view!(self, t => squeeze_all(t)),
        }
    }

    /// A size-1 dim inserted at `dim`.
    fn unsqueeze(&self, dim: usize) -> PyResult<PyTensor> {
        view!(self, t => t.unsqueeze(dim))
    }

    /// Size-1 dims broadcast to `shape` (stride 0), new dims on the left.
    #[pyo3(signature = (*shape))]
    fn expand(&self, shape: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        let shape = sizes(shape)?;
        view!(self, t => t.expand(&shape))
    }

    /// Dim `dim` reversed (a negative stride).
    fn flip(&self, dim: usize) -> PyResult<PyTensor> {
        view!(self, t => t.flip(dim))
    }

    /// The same elements with another shape: a view when possible, else one audited copy.
    #[pyo3(signature = (*shape))]
    fn reshape(&self, shape: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        let shape = sizes(shape)?;
        view!(self, t => t.reshape(&shape))
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
    /// `max_version` >= (1, 0) gives a `"dltensor_versioned"` capsule, read-only unless
    /// `copy=True`; otherwise a legacy `"dltensor"` capsule, which cannot be marked read-only,
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
        format!(
            "stridex.Tensor(shape={:?}, strides={:?}, dtype={})",
            self.inner.shape(),
            each!(&self.inner, t => t.strides().to_vec()),
            self.inner.dtype()
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
/// (NumPy arrays, PyTorch CPU tensors, ...) or a DLPack capsule. No copy is made; stridex
/// never writes the memory, and the producer's writes stay visible.
#[pyfunction]
fn from_dlpack(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    if !obj.hasattr("__dlpack__")? {
        return take_capsule(obj).map(|inner| PyTensor { inner });
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
    take_capsule(&cap).map(|inner| PyTensor { inner })
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
