//! `t[key]` the NumPy / PyTorch way: integers (negative from the end), slices (any step,
//! negative ones included), `None` (a new size-1 dim) and `...` (as many full slices as the
//! other items leave), alone or in a tuple. Every item is a view op, so the result shares
//! the tensor's memory; integers give a 0-dim tensor, as in PyTorch.

use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyEllipsis, PySlice, PyTuple};
use stridex::{Element, Error, Tensor};

/// One item of an index.
pub(crate) enum Item<'py> {
    Int(i64),
    Slice(Bound<'py, PySlice>),
    NewAxis,
    Ellipsis,
}

impl Item<'_> {
    /// How many dims of the tensor the item consumes.
    fn consumes(&self) -> usize {
        match self {
            Item::Int(_) | Item::Slice(_) => 1,
            Item::NewAxis | Item::Ellipsis => 0,
        }
    }
}

/// The items of `key`: one item, or a tuple of them.
pub(crate) fn items<'py>(key: &Bound<'py, PyAny>) -> PyResult<Vec<Item<'py>>> {
    match key.cast::<PyTuple>() {
        Ok(tuple) => tuple.iter().map(|k| item(&k)).collect(),
        Err(_) => Ok(vec![item(key)?]),
    }
}

fn item<'py>(k: &Bound<'py, PyAny>) -> PyResult<Item<'py>> {
    if k.is_none() {
        return Ok(Item::NewAxis);
    }
    if k.is_instance_of::<PyEllipsis>() {
        return Ok(Item::Ellipsis);
    }
    if let Ok(s) = k.cast::<PySlice>() {
        return Ok(Item::Slice(s.clone()));
    }
    // Python ints and anything with __index__ (NumPy integers); not floats or bools' cousins.
    if let Ok(i) = k.extract::<i64>() {
        return Ok(Item::Int(i));
    }
    Err(PyTypeError::new_err(format!(
        "stridex.Tensor indices are ints, slices, None and ... (or a tuple of them), not {}",
        k.get_type().name()?
    )))
}

/// `t[items]` as one view.
pub(crate) fn index<T: Element>(t: &Tensor<T>, items: &[Item<'_>]) -> PyResult<Tensor<T>> {
    let ndim = t.ndim();
    let used: usize = items.iter().map(Item::consumes).sum();
    let ellipses = items.iter().filter(|i| matches!(i, Item::Ellipsis)).count();
    if ellipses > 1 {
        return Err(PyIndexError::new_err(
            "an index can only have a single ellipsis ('...')",
        ));
    }
    if used > ndim {
        return Err(PyIndexError::new_err(format!(
            "too many indices for a tensor of {ndim} dim(s): {used} were given"
        )));
    }
    let mut out = t.clone();
    let mut dim = 0usize; // the dim of `out` the next item applies to
    for it in items {
        out = match it {
            Item::Ellipsis => {
                dim += ndim - used;
                continue;
            }
            Item::NewAxis => {
                dim += 1;
                out.unsqueeze(dim - 1).map_err(crate::to_py)?
            }
            Item::Int(i) => {
                let size = out.shape()[dim];
                let at = if *i < 0 { *i + size as i64 } else { *i };
                if at < 0 || at >= size as i64 {
                    return Err(PyIndexError::new_err(format!(
                        "index {i} is out of range for dim {dim} of size {size}"
                    )));
                }
                out.select(dim, at as usize).map_err(crate::to_py)?
            }
            Item::Slice(s) => {
                let size = out.shape()[dim];
                let v = s.indices(size as isize)?;
                dim += 1;
                sliced(&out, dim - 1, v.start, v.step, v.slicelength).map_err(crate::to_py)?
            }
        };
    }
    Ok(out)
}

/// Elements `start, start + step, ..` (`n` of them; Python's resolved slice) of dim `dim`.
fn sliced<T: Element>(
    t: &Tensor<T>,
    dim: usize,
    start: isize,
    step: isize,
    n: usize,
) -> Result<Tensor<T>, Error> {
    if n == 0 {
        return t.narrow(dim, 0, 0);
    }
    // The first and the last element taken, in increasing order of index.
    let last = start + (n as isize - 1) * step;
    let (lo, hi) = if step > 0 {
        (start, last)
    } else {
        (last, start)
    };
    let up = t.slice_step(dim, lo..hi + 1, step.abs())?;
    if step > 0 {
        Ok(up)
    } else {
        up.flip(dim)
    }
}
