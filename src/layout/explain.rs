//! `Layout::explain`: a short, readable description of a layout for people debugging copies.

use std::fmt::Write;

use super::{Layout, MemoryFormat};

/// Layouts with at most this many elements get a map of their storage offsets.
const MAP_MAX_ELEMENTS: usize = 64;

impl Layout {
    /// A few lines describing the layout: shape, strides, offset; whether it is contiguous,
    /// dense in a memory format, non-overlapping and dense; which dims are permuted, broadcast
    /// (stride 0) or flipped (negative stride); the contiguous run an inner loop gets; whether
    /// `view` to a flat shape would succeed (and why not); and, for at most 64 elements, a map
    /// of the storage offset each index reads.
    ///
    /// ```
    /// let l = stridex::Layout::contiguous(&[2, 3])?.t()?;
    /// let text = l.explain();
    /// assert!(text.contains("contiguous: no"));
    /// assert!(text.contains("memory order of dims (outer to inner): [1, 0]"));
    /// assert!(text.contains("view as [6]: no"));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn explain(&self) -> String {
        let mut s = String::new();
        let yn = |b: bool| if b { "yes" } else { "no" };
        let _ = write!(
            s,
            "shape {:?}  strides {:?}  offset {}  ({} elements",
            self.shape(),
            self.strides(),
            self.offset(),
            self.numel()
        );
        match self.offset_range() {
            Some((lo, hi)) => {
                let _ = writeln!(s, ", storage offsets {lo}..={hi})");
            }
            None => s.push_str(", addresses no storage)\n"),
        }
        let formats = [
            MemoryFormat::Contiguous,
            MemoryFormat::ChannelsLast,
            MemoryFormat::ChannelsLast3d,
        ];
        let dense_in: Vec<&str> = formats
            .iter()
            .filter(|&&f| self.is_contiguous_in(f))
            .map(|f| f.name())
            .collect();
        let _ = writeln!(
            s,
            "  contiguous: {}  dense in format: {}  non-overlapping and dense: {}",
            yn(self.is_contiguous()),
            if dense_in.is_empty() {
                "none".to_string()
            } else {
                dense_in.join(", ")
            },
            yn(self.is_non_overlapping_and_dense()),
        );
        let suggested = self.suggest_memory_format();
        if suggested != MemoryFormat::Contiguous {
            let _ = writeln!(s, "  strides follow memory format {suggested}");
        }
        let order: Vec<usize> = self
            .iteration_order()
            .into_iter()
            .filter(|&d| self.shape()[d] != 1)
            .collect();
        if order.windows(2).any(|w| w[0] > w[1]) {
            let _ = writeln!(
                s,
                "  permuted: memory order of dims (outer to inner): {order:?}"
            );
        }
        let pick = |pred: &dyn Fn(usize) -> bool| -> Vec<usize> {
            (0..self.ndim())
                .filter(|&d| self.shape()[d] > 1 && pred(d))
                .collect()
        };
        let broadcast = pick(&|d| self.strides()[d] == 0);
        if !broadcast.is_empty() {
            let _ = writeln!(s, "  broadcast (stride 0) dims: {broadcast:?}");
        }
        let flipped = pick(&|d| self.strides()[d] < 0);
        if !flipped.is_empty() {
            let _ = writeln!(s, "  flipped (negative stride) dims: {flipped:?}");
        }
        let c = self.coalesced();
        let run = match (c.shape().last(), c.strides().last()) {
            (Some(&n), Some(&1)) => format!("{n} contiguous elements"),
            (Some(&n), Some(&-1)) => format!("{n} contiguous elements, walked backwards"),
            (Some(_), Some(&st)) => format!("1 element (the innermost dim has stride {st})"),
            _ => format!("{} element(s)", self.numel()),
        };
        let _ = writeln!(
            s,
            "  inner loop runs: {run}; coalesced: shape {:?} strides {:?}",
            c.shape(),
            c.strides()
        );
        match self.view(&[self.numel()]) {
            Ok(v) => {
                let _ = writeln!(
                    s,
                    "  view as [{}]: yes (stride {:?})",
                    self.numel(),
                    v.strides()
                );
            }
            Err(e) => {
                let _ = writeln!(s, "  view as [{}]: no: {e}", self.numel());
            }
        }
        if self.numel() > 0 && self.numel() <= MAP_MAX_ELEMENTS {
            s.push_str("  storage offset of each index:\n");
            self.write_map(&mut s);
        }
        s
    }

    /// The storage offset of every index as nested rows, one line per row of the last dim.
    fn write_map(&self, s: &mut String) {
        let width = self
            .offset_range()
            .map_or(1, |(_, hi)| hi.to_string().len());
        let n = self.ndim();
        let rows = if n == 0 {
            1
        } else {
            self.numel() / self.shape()[n - 1]
        };
        let cols = if n == 0 { 1 } else { self.shape()[n - 1] };
        let mut index = vec![0usize; n];
        for r in 0..rows {
            // Decompose the row number over the leading dims.
            let mut rem = r;
            for d in (0..n.saturating_sub(1)).rev() {
                index[d] = rem % self.shape()[d];
                rem /= self.shape()[d];
            }
            let lead = if n > 1 {
                format!("{:?}", &index[..n - 1])
            } else {
                String::new()
            };
            let _ = write!(s, "    {lead:<10}[");
            for c in 0..cols {
                if n > 0 {
                    index[n - 1] = c;
                }
                let off = self.offset_of(&index).expect("every index is in range");
                let _ = write!(s, "{}{off:>width$}", if c > 0 { " " } else { "" });
            }
            s.push_str("]\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explains_views() {
        let base = Layout::contiguous(&[2, 3]).unwrap();
        let text = base.explain();
        assert!(text.contains("contiguous: yes"), "{text}");
        assert!(
            text.contains("inner loop runs: 6 contiguous elements"),
            "{text}"
        );
        assert!(text.contains("view as [6]: yes"), "{text}");
        assert!(
            text.contains("    []        [0 1 2]\n") || text.contains("[0 1 2]"),
            "{text}"
        );

        let t = base.t().unwrap();
        let text = t.explain();
        assert!(text.contains("permuted"), "{text}");
        assert!(
            text.contains("1 element (the innermost dim has stride 3)"),
            "{text}"
        );
        assert!(text.contains("[0 3]"), "{text}");

        let e = Layout::contiguous(&[1, 3])
            .unwrap()
            .expand(&[2, 3])
            .unwrap()
            .flip(1)
            .unwrap();
        let text = e.explain();
        assert!(text.contains("broadcast (stride 0) dims: [0]"), "{text}");
        assert!(
            text.contains("flipped (negative stride) dims: [1]"),
            "{text}"
        );
        assert!(text.contains("[2 1 0]"), "{text}");

        let cl = Layout::contiguous_in(&[1, 2, 2, 2], MemoryFormat::ChannelsLast).unwrap();
        let text = cl.explain();
        assert!(text.contains("dense in format: channels_last"), "{text}");
        assert!(
            text.contains("strides follow memory format channels_last"),
            "{text}"
        );

        let big = Layout::contiguous(&[100]).unwrap();
        assert!(!big.explain().contains("storage offset of each index"));
        let empty = Layout::contiguous(&[0, 2]).unwrap();
        assert!(empty.explain().contains("addresses no storage"));
    }
}
