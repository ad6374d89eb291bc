//! `Debug` and `Display` for tensors: nested brackets like NumPy and PyTorch, with large
//! tensors summarised to their first and last few entries per dim.
//!
//! Printing is bounded by the number of elements printed, not by the tensor's size: a
//! summarised tensor shows at most [`PRINT_BUDGET`] elements (an expanded view of 10^12
//! elements prints as fast as a small one), and elements are formatted straight into the
//! formatter, twice (once to measure the column width, once to write), never collected.

use std::fmt::{self, Write as _};

use super::Tensor;
use crate::element::Element;

/// Tensors with more elements than this print summarised.
const SUMMARY_THRESHOLD: usize = 1000;
/// Entries kept at each end of a summarised dim.
const EDGE: usize = 3;
/// At most this many elements are printed for a summarised tensor: if keeping `EDGE` entries
/// at each end of every long dim would print more (many dims), the outermost dims are cut to
/// fewer entries, down to one (`[x, ...]`), until the count fits.
const PRINT_BUDGET: usize = 1000;

/// Which indices of each dim are printed: `None` prints all of them, `Some((head, tail))` the
/// first `head` and the last `tail`, with `...` between.
fn print_plan(shape: &[usize], summarise: bool) -> Vec<Option<(usize, usize)>> {
    let mut plan: Vec<Option<(usize, usize)>> = shape
        .iter()
        .map(|&n| (summarise && n > 2 * EDGE).then_some((EDGE, EDGE)))
        .collect();
    if !summarise {
        return plan;
    }
    let shown = |p: &Option<(usize, usize)>, n: usize| p.map_or(n, |(h, t)| h + t);
    let printed = |plan: &[Option<(usize, usize)>]| {
        plan.iter().zip(shape).fold(1u128, |acc, (p, &n)| {
            acc.saturating_mul(shown(p, n) as u128)
        })
    };
    for d in 0..shape.len() {
        while printed(&plan) > PRINT_BUDGET as u128 && shown(&plan[d], shape[d]) > 1 {
            let c = shown(&plan[d], shape[d]) - 1;
            plan[d] = Some((c.div_ceil(2), c / 2));
        }
    }
    plan
}

/// Indices of a dim of size `n` to print under `plan`, `None` standing for the `...` gap.
fn shown(n: usize, plan: Option<(usize, usize)>) -> impl Iterator<Item = Option<usize>> {
    let (head, gap, tail) = match plan {
        Some((h, t)) if h + t < n => (0..h, true, n - t..n),
        _ => (0..n, false, n..n),
    };
    head.map(Some)
        .chain(gap.then_some(None))
        .chain(tail.map(Some))
}

/// Counts the bytes written through it, to measure a cell without storing it.
struct Measure(usize);

impl fmt::Write for Measure {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// What to print and how: the plan per dim and the precision.
struct Printer<'t, T: Element> {
    tensor: &'t Tensor<T>,
    plan: Vec<Option<(usize, usize)>>,
    precision: Option<usize>,
}

impl<T: Element> Printer<'_, T> {
    /// The element at `index`, one of the printed (in-range) indices.
    fn value(&self, index: &[usize]) -> T {
        let off = self
            .tensor
            .layout
            .offset_of(index)
            .expect("printed indices are in range");
        self.tensor.storage.as_slice()[off]
    }

    fn cell(&self, out: &mut impl fmt::Write, index: &[usize]) -> fmt::Result {
        let v = self.value(index);
        match self.precision {
            Some(p) => write!(out, "{v:.p$}"),
            None => write!(out, "{v}"),
        }
    }

    /// The widest printed cell, in bytes.
    fn width(&self, index: &mut Vec<usize>) -> usize {
        let dim = index.len();
        if dim == self.tensor.ndim() {
            let mut m = Measure(0);
            let _ = self.cell(&mut m, index);
            return m.0;
        }
        let mut w = 0;
        for i in shown(self.tensor.shape()[dim], self.plan[dim]).flatten() {
            index.push(i);
            w = w.max(self.width(index));
            index.pop();
        }
        w
    }

    fn write_dim(
        &self,
        f: &mut fmt::Formatter<'_>,
        index: &mut Vec<usize>,
        width: usize,
        indent: usize,
    ) -> fmt::Result {
        let (dim, ndim) = (index.len(), self.tensor.ndim());
        if dim == ndim {
            let mut cell = Measure(0);
            self.cell(&mut cell, index)?;
            write!(f, "{:1$}", "", width.saturating_sub(cell.0))?;
            return self.cell(f, index);
        }
        f.write_str("[")?;
        let inner_is_last = dim + 1 == ndim;
        for (k, i) in shown(self.tensor.shape()[dim], self.plan[dim]).enumerate() {
            if k > 0 {
                if inner_is_last {
                    f.write_str(", ")?;
                } else {
                    f.write_str(",")?;
                    for _ in 0..ndim - dim - 1 {
                        f.write_char('\n')?;
                    }
                    write!(f, "{:indent$}", "", indent = indent + dim + 1)?;
                }
            }
            match i {
                Some(i) => {
                    index.push(i);
                    self.write_dim(f, index, width, indent)?;
                    index.pop();
                }
                None => f.write_str("...")?,
            }
        }
        f.write_str("]")
    }
}

/// `tensor([[0, 1], [2, 3]], shape=[2, 2], dtype=i32)`-style output, one row per line;
/// tensors of more than 1000 elements show 3 entries at each end of every dim, and fewer on
/// the outer dims if that would still print more than 1000 elements. A precision (`{:.2}`)
/// applies to every element.
///
/// ```
/// let a = stridex::Tensor::from_vec((0..4).collect::<Vec<i32>>(), &[2, 2])?;
/// assert_eq!(a.to_string(), "tensor([[0, 1],\n        [2, 3]], shape=[2, 2], dtype=i32)");
/// # Ok::<(), stridex::Error>(())
/// ```
impl<T: Element> fmt::Display for Tensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tensor(")?;
        if self.numel() == 0 {
            // Nothing to show, and the dims may be too large to walk.
            f.write_str("[]")?;
        } else {
            let printer = Printer {
                tensor: self,
                plan: print_plan(self.shape(), self.numel() > SUMMARY_THRESHOLD),
                precision: f.precision(),
            };
            let width = printer.width(&mut Vec::with_capacity(self.ndim()));
            printer.write_dim(
                f,
                &mut Vec::with_capacity(self.ndim()),
                width,
                "tensor(".len(),
            )?;
        }
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

    /// Issue 14, item 7: `Tensor::<u8>::zeros(&[1; 16])?.expand(&[6; 16])?` (2.8e12 elements,
    /// one stored) was formatted element by element and never finished.
    #[test]
    fn many_short_dims_print_within_the_budget() {
        let t = Tensor::<u8>::zeros(&[1; 16])
            .unwrap()
            .expand(&[6; 16])
            .unwrap();
        let s = t.to_string();
        let zeros = s.matches('0').count();
        assert!(zeros <= super::PRINT_BUDGET, "{zeros} elements printed");
        assert!(s.contains("..."));
        assert!(s.ends_with("shape=[6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6], dtype=u8)"));
        assert!(format!("{t:?}").contains("strides: [0, 0"));
        // [6; 4] has 1296 elements: the outer dim is cut to 4 entries, the inner ones kept.
        let t = Tensor::<u8>::zeros(&[1; 4])
            .unwrap()
            .expand(&[6; 4])
            .unwrap();
        let s = t.to_string();
        assert_eq!(s.matches('0').count(), 4 * 6 * 6 * 6);
        assert!(s.starts_with("tensor([[[[0, 0, 0, 0, 0, 0],"));
    }

    #[test]
    fn print_plan_cuts_outer_dims_first() {
        use super::print_plan;
        assert_eq!(print_plan(&[2000], true), vec![Some((3, 3))]);
        assert_eq!(print_plan(&[6, 6, 6, 6], false), vec![None; 4]);
        assert_eq!(
            print_plan(&[6, 6, 6, 6], true),
            vec![Some((2, 2)), None, None, None]
        );
        let deep = print_plan(&[6; 16], true);
        assert_eq!(deep[0], Some((1, 0)));
        assert_eq!(deep[15], None);
        let count: usize = deep.iter().map(|p| p.map_or(6, |(h, t)| h + t)).product();
        assert!(count <= super::PRINT_BUDGET);
    }
}
