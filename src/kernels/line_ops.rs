//! The kernels of `tril` / `triu`, `repeat`, `roll`, `diff` and `one_hot`: each reads its
//! input in place through its strides and fills a fresh output line by line
//! ([`super::lines`]). Results are row-major, except `diff`, whose differenced dim is
//! innermost (see [`diff`]).

use crate::element::Element;
use crate::error::Result;
use crate::layout::Layout;
use crate::scalar::Numeric;
use crate::storage::Storage;

use super::lines::{LineWalk, fresh_by_lines, push_logical};

/// `tril` (`upper = false`: keep column `j <= i + k` of row `i`) or `triu` (`upper`: keep
/// `j >= i + k`) of the last two dims, zeros elsewhere, into a row-major storage. Needs
/// `layout.ndim() >= 2`.
///
/// # Errors
/// [`Error::Alloc`](crate::Error::Alloc) / [`Error::Overflow`](crate::Error::Overflow).
pub(crate) fn triangle<T: Element>(
    op: &'static str,
    storage: &Storage<T>,
    layout: &Layout,
    k: i64,
    upper: bool,
) -> Result<Storage<T>> {
    let nd = layout.ndim();
    let rows = layout.shape()[nd - 2];
    let walk = LineWalk::new(layout, nd - 1);
    let (data, cols, zero) = (storage.as_slice(), walk.len, T::zeroed());
    let clamp = |j: i64| j.clamp(0, cols as i64) as usize;
    fresh_by_lines(op, layout.shape(), walk.lines(), cols, 1, |line, out| {
        let i = (line % rows) as i64;
        let base = walk.base(line);
        if upper {
            let first = clamp(i.saturating_add(k));
            out.fill(zero, first);
            walk.push_range(data, base, first..cols, out);
        } else {
            let end = clamp(i.saturating_add(k).saturating_add(1));
            walk.push_range(data, base, 0..end, out);
            out.fill(zero, cols - end);
        }
    })
}

/// The input tiled `out_shape[d] / shape[d]` times along each dim `d` (`layout` of rank
/// `out_shape.len() >= 1`, dims already padded with size-1 dims in front), row-major.
///
/// # Errors
/// As [`triangle`].
pub(crate) fn repeat<T: Element>(
    storage: &Storage<T>,
    layout: &Layout,
    out_shape: &[usize],
) -> Result<Storage<T>> {
    let nd = layout.ndim();
    let walk = LineWalk::new(layout, nd - 1);
    let (shape, strides) = (layout.shape(), layout.strides());
    let (data, n) = (storage.as_slice(), walk.len);
    let lines: usize = out_shape[..nd - 1].iter().product();
    let line_len = out_shape[nd - 1];
    fresh_by_lines("repeat", out_shape, lines, line_len, 1, |line, out| {
        let (mut rest, mut base) = (line, layout.offset() as isize);
        for d in (0..nd - 1).rev() {
            let i = rest % out_shape[d];
            rest /= out_shape[d];
            base += (i % shape[d]) as isize * strides[d];
        }
        for _ in 0..line_len / n {
            walk.push_range(data, base, 0..n, out);
        }
    })
}

/// The input rolled by `shifts[d]` (already in `0..shape[d]`) along each dim, row-major:
/// element `i` of a rolled dim moves to `(i + shift) % size`. Needs `layout.ndim() >= 1`.
///
/// # Errors
/// As [`triangle`].
pub(crate) fn roll<T: Element>(
    storage: &Storage<T>,
    layout: &Layout,
    shifts: &[usize],
) -> Result<Storage<T>> {
    let nd = layout.ndim();
    let walk = LineWalk::new(layout, nd - 1);
    let (shape, strides) = (layout.shape(), layout.strides());
    let (data, n, s) = (storage.as_slice(), walk.len, shifts[nd - 1]);
    fresh_by_lines("roll", shape, walk.lines(), n, 1, |line, out| {
        let (mut rest, mut base) = (line, layout.offset() as isize);
        for d in (0..nd - 1).rev() {
            let i = rest % shape[d];
            rest /= shape[d];
            base += ((i + shape[d] - shifts[d]) % shape[d]) as isize * strides[d];
        }
        // Output element j reads input element (j - s) mod n.
        walk.push_range(data, base, n - s..n, out);
        walk.push_range(data, base, 0..n - s, out);
    })
}

/// The input flattened in row-major order, rolled by `shift` (in `0..numel`), in its own
/// shape (row-major). Needs `layout.ndim() >= 1`.
///
/// # Errors
/// As [`triangle`].
pub(crate) fn roll_flat<T: Element>(
    storage: &Storage<T>,
    layout: &Layout,
    shift: usize,
) -> Result<Storage<T>> {
    let shape = layout.shape();
    let (numel, len) = (layout.numel(), shape[shape.len() - 1]);
    let lines = numel.checked_div(len).unwrap_or(0);
    let data = storage.as_slice();
    fresh_by_lines("roll", shape, lines, len, 1, |line, out| {
        // Output positions p in line*len.. read input position (p - shift) mod numel.
        let from = (line * len + numel - shift) % numel;
        let first = len.min(numel - from);
        push_logical(data, layout, from, first, out);
        push_logical(data, layout, 0, len - first, out);
    })
}

/// The `n`-th forward difference along `dim` (`n < size`, `n >= 1`): `n` passes of `a[i + 1]
/// - a[i]` (wrapping for integers), `size - n` results per line, lines laid out with `dim`
/// innermost (as `kernels::lines` fills them).
///
/// # Errors
/// As [`triangle`].
pub(crate) fn diff<T: Numeric>(
    storage: &Storage<T>,
    layout: &Layout,
    dim: usize,
    n: usize,
    out_shape: &[usize],
) -> Result<Storage<T>> {
    let walk = LineWalk::new(layout, dim);
    let data = storage.as_slice();
    let keep = walk.len - n;
    fresh_by_lines("diff", out_shape, walk.lines(), keep, n, |line, out| {
        let mut v = Vec::with_capacity(walk.len);
        walk.gather(data, line, &mut v);
        for pass in 1..=n {
            for i in 0..walk.len - pass {
                v[i] = v[i + 1].elem_sub(v[i]);
            }
        }
        out.extend_from_slice(&v[..keep]);
    })
}

/// One-hot rows: for each class index in `classes` (all below `num_classes`), a row of
/// `num_classes` zeros with a 1 at the index, row-major.
///
/// # Errors
/// As [`triangle`].
pub(crate) fn one_hot(
    classes: &[usize],
    num_classes: usize,
    out_shape: &[usize],
) -> Result<Storage<i64>> {
    fresh_by_lines(
        "one_hot",
        out_shape,
        classes.len(),
        num_classes,
        1,
        |line, out| {
            let c = classes[line];
            out.fill(0, c);
            out.push(1);
            out.fill(0, num_classes - c - 1);
        },
    )
}
