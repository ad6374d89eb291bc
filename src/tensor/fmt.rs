//! `Debug` and `Display` for tensors: nested brackets like NumPy and PyTorch, with large
//! tensors summarised to their first and last few entries per dim.

use std::fmt;

use super::Tensor;
use crate::element::Element;

/// Tensors with more elements than this print summarised.
const SUMMARY_THRESHOLD: usize = 1000;
/// Entries kept at each end of a summarised dim.
const EDGE: usize = 3;

impl<T: Element> Tensor<T> {
    /// Indices of `dim` to print: all of them, or the first and last `EDGE` with a gap (`None`).
    fn shown(&self, dim: usize, summarise: bool) -> Vec<Option<usize>> {
        let n = self.shape()[dim];
        if summarise && n > 2 * EDGE {
            (0..EDGE)
                .map(Some)
                .chain([None])
                .chain((n - EDGE..n).map(Some))
                .collect()
        } else {
            (0..n).map(Some).collect()
        }
    }

    fn fmt_dim(
        &self,
        f: &mut fmt::Formatter<'_>,
        index: &mut Vec<usize>,
        cells: &mut std::slice::Iter<'_, String>,
        width: usize,
        indent: usize,
        summarise: bool,
    ) -> fmt::Result {
        let dim = index.len();
        if self.numel() == 0 {
            // Nothing to show, and the dims may be too large to walk.
            return f.write_str("[]");
        }
        if dim == self.ndim() {
            let cell = cells.next().map(String::as_str).unwrap_or("?");
            return write!(f, "{cell:>width$}");
        }
        f.write_str("[")?;
        let inner_is_last = dim + 1 == self.ndim();
        for (k, i) in self.shown(dim, summarise).into_iter().enumerate() {
            if k > 0 {
                if inner_is_last {
                    f.write_str(", ")?;
                } else {
                    f.write_str(",")?;
                    let blank = self.ndim() - dim - 1;
                    write!(f, "{}", "\n".repeat(blank))?;
                    write!(f, "{:indent$}", "", indent = indent + dim + 1)?;
                }
            }
            match i {
                Some(i) => {
                    index.push(i);
                    self.fmt_dim(f, index, cells, width, indent, summarise)?;
                    index.pop();
                }
                None => f.write_str("...")?,
            }
        }
        f.write_str("]")
    }

    /// Every element that will be printed, formatted, in printing order.
    fn cells(&self, summarise: bool, precision: Option<usize>) -> Vec<String> {
        let mut out = Vec::new();
        if self.numel() == 0 {
            return out;
        }
        let mut index = Vec::with_capacity(self.ndim());
        self.collect_cells(&mut index, summarise, precision, &mut out);
        out
    }

    fn collect_cells(
        &self,
        index: &mut Vec<usize>,
        summarise: bool,
        precision: Option<usize>,
        out: &mut Vec<String>,
    ) {
        if index.len() == self.ndim() {
            let v = self.get(index).expect("printed indices are in range");
            out.push(match precision {
                Some(p) => format!("{v:.p$}"),
                None => format!("{v}"),
            });
            return;
        }
        for i in self.shown(index.len(), summarise).into_iter().flatten() {
            index.push(i);
            self.collect_cells(index, summarise, precision, out);
            index.pop();
        }
    }
}

/// `tensor([[0, 1], [2, 3]], shape=[2, 2], dtype=i32)`-style output, one row per line;
/// tensors of more than 1000 elements show 3 entries at each end of every dim. A precision
/// (`{:.2}`) applies to every element.
///
/// ```
/// let a = stridex::Tensor::from_vec((0..4).collect::<Vec<i32>>(), &[2, 2])?;
/// assert_eq!(a.to_string(), "tensor([[0, 1],\n        [2, 3]], shape=[2, 2], dtype=i32)");
/// # Ok::<(), stridex::Error>(())
/// ```
impl<T: Element> fmt::Display for Tensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let summarise = self.numel() > SUMMARY_THRESHOLD;
        let cells = self.cells(summarise, f.precision());
        let width = cells.iter().map(String::len).max().unwrap_or(0);
        f.write_str("tensor(")?;
        self.fmt_dim(
            f,
            &mut Vec::new(),
            &mut cells.iter(),
            width,
            "tensor(".len(),
            summarise,
        )?;
        write!(f, ", shape={:?}, dtype={})", self.shape(), T::DTYPE)
    }
}

/// The layout (shape, strides, offset, storage length) followed by the values as in `Display`.
///
/// ```
/// let a = stridex::Tensor::from_vec(vec![1u8, 2], &[2])?;
/// assert!(format!("{a:?}").contains("strides: [1]"));
/// # Ok::<(), stridex::Error>(())
/// ```
impl<T: Element> fmt::Debug for Tensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tensor<{}> {{ shape: {:?}, strides: {:?}, offset: {}, storage_len: {}, values: {} }}",
            T::DTYPE,
            self.shape(),
            self.strides(),
            self.offset(),
            self.storage.len(),
            self
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::Tensor;

    #[test]
    fn prints_nested_and_summarised() {
        let a = Tensor::from_vec((0..8).collect::<Vec<i32>>(), &[2, 2, 2]).unwrap();
        assert_eq!(
            a.to_string(),
            "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]], \
             shape=[2, 2, 2], dtype=i32)"
        );
        let s = Tensor::from_vec(vec![7u8], &[]).unwrap();
        assert_eq!(s.to_string(), "tensor(7, shape=[], dtype=u8)");
        let e = Tensor::<f32>::zeros(&[0, 3]).unwrap();
        assert_eq!(e.to_string(), "tensor([], shape=[0, 3], dtype=f32)");
        let big = Tensor::from_vec((0..2000).collect::<Vec<i64>>(), &[2000]).unwrap();
        assert_eq!(
            big.to_string(),
            "tensor([   0,    1,    2, ..., 1997, 1998, 1999], shape=[2000], dtype=i64)"
        );
        let f = Tensor::from_vec(vec![1.0f32, 2.5], &[2]).unwrap();
        assert_eq!(
            format!("{f:.2}"),
            "tensor([1.00, 2.50], shape=[2], dtype=f32)"
        );
    }
}
