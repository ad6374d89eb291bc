//! Memory formats: which physical order of the dims a dense layout uses, as in PyTorch's
//! `torch.memory_format`. The logical shape stays NCHW (NCDHW); only the strides change.

use super::{Layout, checked_numel};
use crate::error::{Error, Result};

/// A physical order of the dims of a dense tensor.
///
/// ```
/// use stridex::{Layout, MemoryFormat};
/// let l = Layout::contiguous_in(&[2, 3, 4, 5], MemoryFormat::ChannelsLast)?;
/// assert_eq!(l.strides(), &[60, 1, 15, 3]); // (H*W*C, 1, W*C, C)
/// assert!(l.is_contiguous_in(MemoryFormat::ChannelsLast) && !l.is_contiguous());
/// # Ok::<(), stridex::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryFormat {
    /// Row-major: the last dim varies fastest (any number of dims).
    Contiguous,
    /// NHWC order of a 4-dim NCHW tensor: strides `(H*W*C, 1, W*C, C)`.
    ChannelsLast,
    /// NDHWC order of a 5-dim NCDHW tensor: strides `(D*H*W*C, 1, H*W*C, W*C, C)`.
    ChannelsLast3d,
}

impl MemoryFormat {
    /// The dims from outermost to innermost in memory, or `None` for [`MemoryFormat::Contiguous`]
    /// (whose order is `0..ndim` for any ndim).
    fn order(self) -> Option<&'static [usize]> {
        match self {
            MemoryFormat::Contiguous => None,
            MemoryFormat::ChannelsLast => Some(&[0, 2, 3, 1]),
            MemoryFormat::ChannelsLast3d => Some(&[0, 2, 3, 4, 1]),
        }
    }

    /// The number of dims the format needs, or `None` for any.
    ///
    /// ```
    /// assert_eq!(stridex::MemoryFormat::ChannelsLast.ndim(), Some(4));
    /// ```
    pub fn ndim(self) -> Option<usize> {
        self.order().map(<[usize]>::len)
    }

    /// The format's name as PyTorch spells it.
    ///
    /// ```
    /// assert_eq!(stridex::MemoryFormat::ChannelsLast3d.name(), "channels_last_3d");
    /// ```
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            MemoryFormat::Contiguous => "contiguous",
            MemoryFormat::ChannelsLast => "channels_last",
            MemoryFormat::ChannelsLast3d => "channels_last_3d",
        }
    }

    /// `Err` unless a layout of `ndim` dims can be in this format.
    pub(crate) fn check_ndim(self, op: &'static str, ndim: usize) -> Result<()> {
        match self.ndim() {
            Some(n) if n != ndim => Err(Error::FormatRank {
                op,
                format: self.name(),
                ndim,
            }),
            _ => Ok(()),
        }
    }
}

impl std::fmt::Display for MemoryFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The dims of an `ndim`-dim layout in `format`'s memory order, outermost first.
fn memory_order(format: MemoryFormat, ndim: usize) -> Vec<usize> {
    format
        .order()
        .map_or_else(|| (0..ndim).collect(), <[usize]>::to_vec)
}

impl Layout {
    /// A dense layout of `shape` in `format` (offset 0). Strides follow the same convention as
    /// [`Layout::contiguous`]: each is the product of the sizes of the dims inside it in memory
    /// order, with sizes of 0 counted as 1.
    ///
    /// # Errors
    /// [`Error::FormatRank`] if `shape` has the wrong number of dims for `format`,
    /// [`Error::Overflow`] if the element count overflows.
    ///
    /// ```
    /// use stridex::{Layout, MemoryFormat};
    /// let l = Layout::contiguous_in(&[1, 2, 3, 4, 5], MemoryFormat::ChannelsLast3d)?;
    /// assert_eq!(l.strides(), &[120, 1, 40, 10, 2]);
    /// assert!(Layout::contiguous_in(&[2, 3], MemoryFormat::ChannelsLast).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn contiguous_in(shape: &[usize], format: MemoryFormat) -> Result<Layout> {
        format.check_ndim("contiguous_in", shape.len())?;
        Layout::dense_in_order("contiguous_in", shape, &memory_order(format, shape.len()))
    }

    /// A dense layout of `shape` (offset 0) whose dims sit in memory in `order`, outermost
    /// first; strides as in [`Layout::contiguous_in`].
    pub(crate) fn dense_in_order(
        op: &'static str,
        shape: &[usize],
        order: &[usize],
    ) -> Result<Layout> {
        debug_assert_eq!(order.len(), shape.len());
        let overflow = || Error::Overflow {
            op,
            shape: shape.to_vec(),
            strides: vec![],
        };
        checked_numel(shape).ok_or_else(overflow)?;
        let mut strides = vec![0isize; shape.len()];
        let mut acc: isize = 1;
        for &d in order.iter().rev() {
            strides[d] = acc;
            // Fits: the product of the sizes (0 counted as 1) is at most the checked count,
            // or, with empty dims, at most the count of the non-empty ones.
            acc = acc
                .checked_mul(shape[d].max(1) as isize)
                .ok_or_else(overflow)?;
        }
        Layout::checked(op, shape, &strides, 0)
    }

    /// A dense layout of this shape (offset 0) that keeps this layout's memory order: dims
    /// ordered by decreasing `|stride|` (ties in dim order), all strides positive.
    /// A row-major layout gives row-major strides, a transposed one transposed strides, a
    /// channels-last one channels-last strides; a narrowed or flipped view gives the dense
    /// layout of the same order without the gaps and signs. Size-1 dims are placed by their
    /// strides as well (ties in dim order), so a channels-last batch of one stays channels-last
    /// when the batch grows. Empty layouts give row-major.
    ///
    /// This is the layout a copy-on-write copy gets (see `Tensor::view_mut`), and the layout
    /// `pad` gives its result.
    ///
    /// # Errors
    /// [`Error::Overflow`] only for an empty layout whose other sizes are so large that even
    /// row-major strides overflow.
    ///
    /// ```
    /// use stridex::{Layout, MemoryFormat};
    /// let t = Layout::contiguous(&[4, 6])?.t()?.narrow(0, 1, 3)?;
    /// assert_eq!(t.dense_like()?.strides(), &[1, 3]);
    /// let cl = Layout::contiguous_in(&[2, 3, 4, 5], MemoryFormat::ChannelsLast)?.flip(2)?;
    /// assert!(cl.dense_like()?.is_contiguous_in(MemoryFormat::ChannelsLast));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn dense_like(&self) -> Result<Layout> {
        self.dense_like_with_shape(self.shape())
    }

    /// A dense layout of `shape` (same ndim as this layout) in this layout's memory order
    /// ([`Layout::dense_like`]), for results that change sizes but keep the format (`pad`, `cat`).
    pub(crate) fn dense_like_with_shape(&self, shape: &[usize]) -> Result<Layout> {
        debug_assert_eq!(shape.len(), self.ndim());
        if self.numel() == 0 {
            return Layout::contiguous(shape);
        }
        // By decreasing |stride|, ties in dim order. Size-1 dims are placed by their strides
        // too: a channels-last batch of one keeps N outermost (stride C*H*W), and a size-1 dim
        // with the conventional stride of `contiguous` / `unsqueeze` (that of the dim after it
        // times its size) ties with the dim before it and stays after it, so a row-major layout
        // stays row-major when the size-1 dim grows (`pad`, `cat`).
        let mut order: Vec<usize> = (0..self.ndim()).collect();
        order.sort_by_key(|&d| std::cmp::Reverse(self.strides()[d].unsigned_abs()));
        Layout::dense_in_order("dense_like", shape, &order)
    }

    /// Whether the layout is dense in `format`'s memory order: walking the dims from the
    /// innermost in that order, every dim of size > 1 has exactly the stride of the elements
    /// inside it. Strides of size-1 dims are ignored and empty layouts qualify, as for
    /// [`Layout::is_contiguous`]; a layout with the wrong number of dims never does.
    ///
    /// ```
    /// use stridex::{Layout, MemoryFormat};
    /// let nchw = Layout::contiguous(&[2, 3, 4, 5])?;
    /// let nhwc = nchw.permute(&[0, 2, 3, 1])?;                 // physical order N, H, W, C
    /// let cl = Layout::new(&[2, 3, 4, 5], &[60, 1, 15, 3], 0)?; // what contiguous_in gives
    /// assert!(cl.is_contiguous_in(MemoryFormat::ChannelsLast));
    /// assert!(!nchw.is_contiguous_in(MemoryFormat::ChannelsLast));
    /// assert!(!nhwc.is_contiguous_in(MemoryFormat::ChannelsLast)); // its logical dims are NHWC
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn is_contiguous_in(&self, format: MemoryFormat) -> bool {
        if format.check_ndim("is_contiguous_in", self.ndim()).is_err() {
            return false;
        }
        if self.numel() == 0 {
            return true;
        }
        let mut expected: isize = 1;
        for &d in memory_order(format, self.ndim()).iter().rev() {
            let size = self.shape()[d];
            if size != 1 {
                if self.strides()[d] != expected {
                    return false;
                }
                expected *= size as isize;
            }
        }
        true
    }

    /// The memory format whose order the strides follow, by PyTorch's rules (see the note
    /// below): [`MemoryFormat::ChannelsLast`] for 4-dim layouts whose strides grow in NHWC
    /// order, [`MemoryFormat::ChannelsLast3d`] likewise for 5-dim NDHWC, otherwise
    /// [`MemoryFormat::Contiguous`]. The layout need not be dense (a narrowed channels-last
    /// tensor still suggests channels-last).
    ///
    /// # Note on ambiguous strides
    ///
    /// Strides of size-1 dims are never read, so some layouts are dense in *both* formats and
    /// the strides alone cannot say which the user meant. Two rules break the ties, the same
    /// ones PyTorch applies, so that tensors round-trip between the libraries:
    ///
    /// - **C == 1**: `[N, 1, H, W]` is row-major contiguous either way. Its strides decide:
    ///   channels-last strides `(H*W, 1, W, 1)` suggest channels-last, row-major strides
    ///   `(H*W, H*W, W, 1)` suggest contiguous (C's stride `H*W` is larger than W's, so the
    ///   walk from C outwards fails at W).
    /// - **H == W == 1**: `[N, C, 1, 1]` likewise: strides `(C, 1, C, C)` suggest
    ///   channels-last, `(C, 1, 1, 1)` contiguous (W's stride 1 is below the C extent).
    /// - When C, H and W all have size 1 and every stride inside N equals C's stride, there is
    ///   no evidence for channels-last, and the answer is contiguous. A stride-0 C dim, or any
    ///   size-0 dim, also means contiguous.
    ///
    /// ```
    /// use stridex::{Layout, MemoryFormat};
    /// let cl = Layout::contiguous_in(&[8, 3, 4, 4], MemoryFormat::ChannelsLast)?;
    /// assert_eq!(cl.suggest_memory_format(), MemoryFormat::ChannelsLast);
    /// assert_eq!(cl.narrow(1, 0, 2)?.suggest_memory_format(), MemoryFormat::ChannelsLast);
    /// let nchw = Layout::contiguous(&[8, 3, 4, 4])?;
    /// assert_eq!(nchw.suggest_memory_format(), MemoryFormat::Contiguous);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn suggest_memory_format(&self) -> MemoryFormat {
        for format in [MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d] {
            if self.strides_follow(format) {
                return format;
            }
        }
        MemoryFormat::Contiguous
    }

    /// Whether the strides grow along `format`'s memory order from the innermost dim (C) out,
    /// each dim stepping at least past the extent of the dims inside it; see the note on
    /// [`Layout::suggest_memory_format`].
    fn strides_follow(&self, format: MemoryFormat) -> bool {
        let Some(order) = format.order() else {
            return false;
        };
        if self.ndim() != order.len() || self.strides()[1] == 0 {
            return false;
        }
        // The smallest stride the next dim out may have: the extent of the dims walked so far.
        let mut floor: i128 = 0;
        for &d in order.iter().rev() {
            let (size, stride) = (self.shape()[d], self.strides()[d] as i128);
            if size == 0 || stride < floor {
                return false;
            }
            // Reaching N with no growth since C: C, H, W carry no evidence (all size 1).
            if d == 0 && floor == self.strides()[1] as i128 {
                return false;
            }
            floor = if size > 1 {
                stride * size as i128
            } else {
                stride
            };
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MemoryFormat::*;

    fn l(shape: &[usize], strides: &[isize]) -> Layout {
        Layout::new(shape, strides, 0).unwrap()
    }

    #[test]
    fn dense_like_keeps_the_memory_order() {
        // (shape, strides, offset) -> dense strides in the same order.
        type Case<'a> = (&'a [usize], &'a [isize], usize, &'a [isize]);
        #[rustfmt::skip]
        let cases: &[Case] = &[
            (&[2, 3], &[3, 1], 0, &[3, 1]),            // row-major stays row-major
            (&[3, 2], &[1, 3], 0, &[1, 3]),            // transposed stays transposed
            (&[2, 3], &[10, 2], 5, &[3, 1]),           // gaps closed, offset 0
            (&[2, 3], &[-3, 1], 3, &[3, 1]),           // flipped: positive strides
            (&[4, 1, 5], &[5, 5, 1], 0, &[5, 5, 1]),   // size-1 dims: stride of the dim after
            (&[5, 1, 4], &[1, 99, 5], 0, &[1, 20, 5]), // size-1 dim before a permuted dim
            (&[2, 1], &[1, 7], 0, &[1, 2]),            // size-1 dims placed by stride too
            (&[1, 3, 2, 2], &[12, 1, 6, 3], 0, &[12, 1, 6, 3]), // channels-last, batch of one
            (&[1, 1], &[3, 9], 0, &[1, 1]),
            (&[2, 0, 3], &[0, 1, 5], 0, &[3, 3, 1]),   // empty: row-major
            (&[], &[], 4, &[]),
        ];
        for &(shape, strides, offset, want) in cases {
            let got = Layout::new(shape, strides, offset)
                .unwrap()
                .dense_like()
                .unwrap();
            assert_eq!(got.strides(), want, "{shape:?} {strides:?}");
            assert_eq!(got.offset(), 0);
            assert!(got.is_non_overlapping_and_dense());
        }
        let cl = Layout::contiguous_in(&[2, 3, 4, 5], ChannelsLast).unwrap();
        let v = cl.narrow(2, 1, 2).unwrap().flip(3).unwrap();
        assert!(v.dense_like().unwrap().is_contiguous_in(ChannelsLast));
    }

    #[test]
    fn format_strides() {
        let s = Layout::contiguous_in(&[2, 3, 4, 5], ChannelsLast).unwrap();
        assert_eq!(s.strides(), &[60, 1, 15, 3]);
        let s = Layout::contiguous_in(&[2, 3, 4, 5], Contiguous).unwrap();
        assert_eq!(s.strides(), &[60, 20, 5, 1]);
        let s = Layout::contiguous_in(&[2, 0, 4, 5], ChannelsLast).unwrap();
        assert_eq!(s.strides(), &[20, 1, 5, 1]);
        assert_eq!(
            Layout::contiguous_in(&[1, 2, 3], ChannelsLast3d),
            Err(Error::FormatRank {
                op: "contiguous_in",
                format: "channels_last_3d",
                ndim: 3
            })
        );
    }

    #[test]
    fn ambiguous_c_equals_one() {
        let cl = Layout::contiguous_in(&[2, 1, 4, 5], ChannelsLast).unwrap();
        assert_eq!(cl.strides(), &[20, 1, 5, 1]);
        assert!(cl.is_contiguous() && cl.is_contiguous_in(ChannelsLast));
        assert_eq!(cl.suggest_memory_format(), ChannelsLast);
        let rm = Layout::contiguous(&[2, 1, 4, 5]).unwrap();
        assert!(rm.is_contiguous() && rm.is_contiguous_in(ChannelsLast));
        assert_eq!(rm.suggest_memory_format(), Contiguous);
    }

    #[test]
    fn ambiguous_h_w_equal_one() {
        let cl = Layout::contiguous_in(&[2, 3, 1, 1], ChannelsLast).unwrap();
        assert_eq!(cl.strides(), &[3, 1, 3, 3]);
        assert_eq!(cl.suggest_memory_format(), ChannelsLast);
        let rm = Layout::contiguous(&[2, 3, 1, 1]).unwrap();
        assert_eq!(rm.strides(), &[3, 1, 1, 1]);
        assert!(rm.is_contiguous_in(ChannelsLast));
        assert_eq!(rm.suggest_memory_format(), Contiguous);
    }

    #[test]
    fn no_evidence_and_degenerate_cases() {
        // C, H, W all size 1 with equal strides: N111 carries no evidence.
        assert_eq!(
            l(&[4, 1, 1, 1], &[1, 1, 1, 1]).suggest_memory_format(),
            Contiguous
        );
        assert_eq!(
            l(&[4, 1, 1, 1], &[7, 7, 7, 7]).suggest_memory_format(),
            Contiguous
        );
        // Stride-0 channels and empty dims.
        assert_eq!(
            l(&[2, 3, 4, 5], &[20, 0, 5, 1]).suggest_memory_format(),
            Contiguous
        );
        assert_eq!(
            l(&[0, 3, 4, 5], &[60, 1, 15, 3]).suggest_memory_format(),
            Contiguous
        );
        // A 1C1W permutation is not channels-last.
        assert_eq!(
            l(&[1, 4, 1, 3], &[12, 1, 3, 3]).suggest_memory_format(),
            Contiguous
        );
        // 3-d.
        let cl3 = Layout::contiguous_in(&[2, 3, 4, 5, 6], ChannelsLast3d).unwrap();
        assert_eq!(cl3.suggest_memory_format(), ChannelsLast3d);
        assert!(!cl3.is_contiguous_in(ChannelsLast));
    }
}
