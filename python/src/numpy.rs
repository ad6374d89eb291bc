//! What NumPy asks of an array-like: `np.asarray(t)` / `np.array(t)` (`__array__`, on the
//! DLPack path: no copy unless one is asked for), the buffer protocol (`memoryview(t)`, read
//! only, any strides), NumPy's names for the element types and their buffer format codes,
//! and `tolist()`.

use std::ffi::{c_int, CStr};

use pyo3::exceptions::PyBufferError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::IntoPyObjectExt;
use stridex::interop::DynTensor;
use stridex::{DType, Element, Tensor};

/// NumPy's name of a stridex element type (`np.dtype(name)` accepts it; `"bfloat16"` is
/// `ml_dtypes`' name, which PyTorch prints too).
pub(crate) fn numpy_name(d: DType) -> &'static str {
    match d {
        DType::F16 => "float16",
        DType::BF16 => "bfloat16",
        DType::F32 => "float32",
        DType::F64 => "float64",
        DType::I8 => "int8",
        DType::I16 => "int16",
        DType::I32 => "int32",
        DType::I64 => "int64",
        DType::U8 => "uint8",
        DType::U16 => "uint16",
        DType::U32 => "uint32",
        DType::U64 => "uint64",
        // `DType` may gain variants.
        #[allow(unreachable_patterns)]
        _ => d.name(),
    }
}

/// The `struct` module's format code of an element type (native byte order and size); `None`
/// for bfloat16, which has none.
fn format(d: DType) -> Option<&'static CStr> {
    Some(match d {
        DType::F16 => c"e",
        DType::F32 => c"f",
        DType::F64 => c"d",
        DType::I8 => c"b",
        DType::I16 => c"h",
        DType::I32 => c"i",
        DType::I64 => c"q",
        DType::U8 => c"B",
        DType::U16 => c"H",
        DType::U32 => c"I",
        DType::U64 => c"Q",
        _ => return None,
    })
}

/// `np.asarray(t, dtype, copy)`: NumPy's `__array__` protocol (NumPy 2's signature). Without
/// a copy, the array reads the tensor's memory through DLPack (read-only, keeping the
/// tensor's storage alive); `copy=True` gives a private, writable copy in the tensor's memory
/// order; a `dtype` other than the tensor's converts, which is a copy, so `copy=False` then
/// raises `ValueError` (NumPy's rule).
pub(crate) fn array<'py>(
    slf: &Bound<'py, PyAny>,
    dtype: Option<Bound<'py, PyAny>>,
    copy: Option<bool>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = slf.py();
    let np = py.import("numpy")?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("copy", copy)?;
    let arr = np.call_method("from_dlpack", (slf,), Some(&kwargs))?;
    let Some(dtype) = dtype else {
        return Ok(arr);
    };
    let want = np.call_method1("dtype", (dtype,))?;
    if arr.getattr("dtype")?.eq(&want)? {
        return Ok(arr);
    }
    if copy == Some(false) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "copy=False, but converting {} to {} is a copy",
            arr.getattr("dtype")?,
            want
        )));
    }
    arr.call_method1("astype", (want,))
}

/// Fills `view` for the buffer protocol: the tensor's memory, read-only, with its shape and
/// its strides in bytes (negative and zero strides included; a consumer that asks for no
/// strides gets a C-contiguous tensor or a `BufferError`).
///
/// # Safety
/// `view` is the `Py_buffer` the interpreter passed to `__getbuffer__`; `owner` is the
/// `stridex.Tensor` holding `t`, whose storage then outlives the buffer (the view holds a
/// reference to `owner`, whose tensor never changes: the class is frozen).
pub(crate) unsafe fn fill_buffer(
    view: *mut ffi::Py_buffer,
    flags: c_int,
    t: &DynTensor,
    owner: Bound<'_, PyAny>,
) -> PyResult<()> {
    if view.is_null() {
        return Err(PyBufferError::new_err("the buffer view is NULL"));
    }
    if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE {
        return Err(PyBufferError::new_err(
            "stridex tensors are read-only: np.array(t) (a writable copy) or np.asarray(t) \
             (a read-only view) instead of a writable buffer",
        ));
    }
    let Some(fmt) = format(t.dtype()) else {
        return Err(PyBufferError::new_err(
            "bfloat16 has no buffer format code: exchange it through DLPack (torch.from_dlpack, \
             ml_dtypes) or convert it first",
        ));
    };
    let item = t.dtype().size() as isize;
    let (shape, strides, ptr, contiguous) = crate::each!(t, x => (
        x.shape().iter().map(|&n| n as isize).collect::<Vec<_>>(),
        x.strides().iter().map(|&s| s * item).collect::<Vec<_>>(),
        x.data_ptr().cast::<u8>(),
        x.is_contiguous()
    ));
    let strided = flags & ffi::PyBUF_STRIDES == ffi::PyBUF_STRIDES;
    let want_c = flags & ffi::PyBUF_C_CONTIGUOUS == ffi::PyBUF_C_CONTIGUOUS;
    let want_f = flags & ffi::PyBUF_F_CONTIGUOUS == ffi::PyBUF_F_CONTIGUOUS;
    let want_any = flags & ffi::PyBUF_ANY_CONTIGUOUS == ffi::PyBUF_ANY_CONTIGUOUS;
    if (!strided || want_c || want_f || want_any) && !contiguous {
        return Err(PyBufferError::new_err(
            "this stridex view is not C-contiguous and the consumer asked for a contiguous \
             buffer: call .contiguous() first (one copy), or use np.asarray(t)",
        ));
    }
    if want_f && !want_c && shape.iter().filter(|&&n| n > 1).count() > 1 {
        return Err(PyBufferError::new_err(
            "a Fortran-contiguous buffer was asked for; stridex gives C order: call .t() \
             (a view) and read it in C order",
        ));
    }
    let ndim = shape.len();
    // Shape then strides in one allocation, freed by `release_buffer` through `internal`.
    let mut dims: Box<[isize]> = shape.iter().chain(strides.iter()).copied().collect();
    let numel: isize = shape.iter().product();
    // SAFETY: `view` is a valid, writable `Py_buffer` (the caller's contract, checked non-null
    // above). `buf` points at element [0, 0, ..] of a tensor whose storage `owner` keeps
    // alive until `PyBuffer_Release` drops the reference stored in `obj`; every offset
    // reachable through `shape` and `strides` lies inside that storage (the stridex tensor
    // invariant). `format` is a static C string (consumers never write it). `dims` is leaked
    // into `internal` and reclaimed once by `release_buffer`.
    unsafe {
        (*view).buf = ptr.cast_mut().cast();
        (*view).obj = owner.into_ptr();
        (*view).len = numel * item;
        (*view).itemsize = item;
        (*view).readonly = 1;
        (*view).ndim = ndim as c_int;
        (*view).format = if flags & ffi::PyBUF_FORMAT == ffi::PyBUF_FORMAT {
            fmt.as_ptr().cast_mut()
        } else {
            std::ptr::null_mut()
        };
        let base = dims.as_mut_ptr();
        (*view).shape = if flags & ffi::PyBUF_ND == ffi::PyBUF_ND {
            base
        } else {
            std::ptr::null_mut()
        };
        (*view).strides = if strided {
            base.add(ndim)
        } else {
            std::ptr::null_mut()
        };
        (*view).suboffsets = std::ptr::null_mut();
        (*view).internal = Box::into_raw(Box::new(dims)).cast();
    }
    Ok(())
}

/// Frees what [`fill_buffer`] allocated.
///
/// # Safety
/// `view` is a buffer [`fill_buffer`] filled, released once (the interpreter's contract).
pub(crate) unsafe fn release_buffer(view: *mut ffi::Py_buffer) {
    // SAFETY: `internal` is the `Box<Box<[isize]>>` leaked by `fill_buffer`, taken back once.
    unsafe {
        let internal = (*view).internal;
        if !internal.is_null() {
            drop(Box::from_raw(internal.cast::<Box<[isize]>>()));
            (*view).internal = std::ptr::null_mut();
        }
    }
}

/// `t.tolist()`: nested lists of Python numbers (floats for every float type, ints for
/// integers); a 0-dim tensor gives the number itself.
pub(crate) fn tolist<'py>(py: Python<'py>, t: &DynTensor) -> PyResult<Bound<'py, PyAny>> {
    match t {
        DynTensor::F16(x) => nested(py, x, |v| v.to_f64()),
        DynTensor::BF16(x) => nested(py, x, |v| v.to_f64()),
        DynTensor::F32(x) => nested(py, x, f64::from),
        DynTensor::F64(x) => nested(py, x, |v| v),
        DynTensor::I8(x) => nested(py, x, i64::from),
        DynTensor::I16(x) => nested(py, x, i64::from),
        DynTensor::I32(x) => nested(py, x, i64::from),
        DynTensor::I64(x) => nested(py, x, |v| v),
        DynTensor::U8(x) => nested(py, x, u64::from),
        DynTensor::U16(x) => nested(py, x, u64::from),
        DynTensor::U32(x) => nested(py, x, u64::from),
        DynTensor::U64(x) => nested(py, x, |v| v),
        #[allow(unreachable_patterns)]
        _ => unreachable!("a DynTensor variant without a binding"),
    }
}

/// The elements of `t` in row-major order, converted by `f`, as nested lists.
fn nested<'py, T, P>(
    py: Python<'py>,
    t: &Tensor<T>,
    f: impl Fn(T) -> P,
) -> PyResult<Bound<'py, PyAny>>
where
    T: Element,
    P: IntoPyObject<'py>,
{
    let flat = t.try_to_vec().map_err(crate::to_py)?;
    let mut values = flat.into_iter().map(f);
    build(py, t.shape(), &mut values)
}

fn build<'py, P: IntoPyObject<'py>>(
    py: Python<'py>,
    shape: &[usize],
    values: &mut impl Iterator<Item = P>,
) -> PyResult<Bound<'py, PyAny>> {
    let Some((&n, rest)) = shape.split_first() else {
        let v = values.next().expect("one value per element");
        return v.into_bound_py_any(py);
    };
    let list = PyList::empty(py);
    for _ in 0..n {
        list.append(build(py, rest, values)?)?;
    }
    Ok(list.into_any())
}
