//! The reduction plan: which loops reduce, in what order, into which output element.

use crate::error::{Error, Result};
use crate::layout::{Layout, coalesce_joint};

use super::output::reduction_strides;

/// How to reduce one input over a set of dims into a fresh output.
///
/// The loop nest runs over the *input's* shape with three stride lists: the input's, the
/// output's (0 along reduced dims, so every reduced element lands on its output element) and a
/// virtual `index` operand giving each element's position among the reduced elements in
/// row-major order of the original reduced dims (0 along kept dims), which arg-reductions
/// report. Dims are ordered by decreasing input stride, so the innermost loop reads the input
/// as sequentially as possible, and coalesced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReducePlan {
    /// Loop sizes, outermost first; never empty.
    pub(crate) shape: Vec<usize>,
    /// Input strides per loop dim.
    pub(crate) input: Vec<isize>,
    /// Output strides per loop dim; 0 exactly on the reduced loops.
    pub(crate) output: Vec<isize>,
    /// Logical index strides per loop dim; 0 on kept loops.
    pub(crate) index: Vec<isize>,
    /// The input layout's offset.
    pub(crate) input_offset: usize,
    /// Number of input elements reduced into each output element.
    pub(crate) count: usize,
    /// The fresh output's layout (offset 0, dense).
    pub(crate) out_layout: Layout,
}

/// Which loop runs innermost, deciding the kernel's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReduceKind {
    /// The innermost loop is reduced: each output element reduces runs of the input.
    Inner,
    /// The innermost loop is kept: whole input rows are accumulated into a row of outputs.
    Outer,
}

impl ReducePlan {
    /// Plans reducing `input` over `dims` (each at most once, any order), keeping them as
    /// size-1 dims if `keepdim`. No dims means no reduction: each output is one element.
    ///
    /// # Errors
    /// [`Error::DimOutOfRange`] or [`Error::DuplicateDim`] naming `op`.
    pub(crate) fn new(
        op: &'static str,
        input: &Layout,
        dims: &[usize],
        keepdim: bool,
    ) -> Result<ReducePlan> {
        let ndim = input.ndim();
        let mut reduced = vec![false; ndim];
        for &d in dims {
            if d >= ndim {
                return Err(Error::DimOutOfRange { op, dim: d, ndim });
            }
            if std::mem::replace(&mut reduced[d], true) {
                return Err(Error::DuplicateDim { op, dim: d });
            }
        }
        let shape = input.shape();
        let keep_shape: Vec<usize> = (0..ndim)
            .map(|d| if reduced[d] { 1 } else { shape[d] })
            .collect();
        let keep_strides = reduction_strides(&keep_shape, input);
        let (out_shape, out_strides): (Vec<usize>, Vec<isize>) = (0..ndim)
            .filter(|&d| keepdim || !reduced[d])
            .map(|d| (keep_shape[d], keep_strides[d]))
            .unzip();
        let out_layout = Layout::new(&out_shape, &out_strides, 0)?;
        // Saturating: reduced sizes may multiply past usize only if a kept size is 0 (then no
        // output element exists and the count is never used).
        let count = (0..ndim)
            .filter(|&d| reduced[d])
            .fold(1usize, |c, d| c.saturating_mul(shape[d]));

        // Loop operands: input, output (0 on reduced dims), logical index (0 on kept dims).
        let output: Vec<isize> = (0..ndim)
            .map(|d| if reduced[d] { 0 } else { keep_strides[d] })
            .collect();
        let mut index = vec![0isize; ndim];
        let mut acc: isize = 1;
        for d in (0..ndim).rev().filter(|&d| reduced[d]) {
            index[d] = acc;
            acc = acc.saturating_mul(shape[d] as isize);
        }
        let mut order: Vec<usize> = (0..ndim).collect();
        let st = input.strides();
        order.sort_by_key(|&d| {
            (
                std::cmp::Reverse(st[d].unsigned_abs()),
                std::cmp::Reverse(output[d].unsigned_abs()),
            )
        });
        // Note [canonical order] (kernels/reduce.rs): the kernels fold reduced elements in
        // the order the reduced loops run, which must be their logical (row-major) order
        // whatever the strides. Kept dims stay where the strides put them; the reduced dims
        // take the reduced slots in ascending dim order.
        let mut logical = order
            .iter()
            .copied()
            .filter(|&d| reduced[d])
            .collect::<Vec<_>>();
        logical.sort_unstable();
        let mut next = logical.into_iter();
        for slot in order.iter_mut().filter(|d| reduced[**d]) {
            *slot = next.next().expect("one reduced dim per reduced slot");
        }
        let mut loop_shape: Vec<usize> = order.iter().map(|&d| shape[d]).collect();
        let mut strides: Vec<Vec<isize>> = [st.to_vec(), output, index]
            .iter()
            .map(|s| order.iter().map(|&d| s[d]).collect())
            .collect();
        coalesce_joint(&mut loop_shape, &mut strides);
        if loop_shape.is_empty() {
            loop_shape.push(1);
            for s in &mut strides {
                s.push(0);
            }
        }
        let [input_strides, output, index]: [Vec<isize>; 3] =
            strides.try_into().expect("three operands");
        Ok(ReducePlan {
            shape: loop_shape,
            input: input_strides,
            output,
            index,
            input_offset: input.offset(),
            count,
            out_layout,
        })
    }

    /// Whether the innermost loop reduces or keeps.
    pub(crate) fn kind(&self) -> ReduceKind {
        if self.output[self.shape.len() - 1] == 0 {
            ReduceKind::Inner
        } else {
            ReduceKind::Outer
        }
    }

    /// Whether loop dim `d` is reduced.
    pub(crate) fn is_reduced(&self, d: usize) -> bool {
        self.output[d] == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_columns_of_a_matrix() {
        let m = Layout::contiguous(&[4, 6]).unwrap();
        let p = ReducePlan::new("sum", &m, &[1], false).unwrap();
        assert_eq!(p.kind(), ReduceKind::Inner);
        assert_eq!(
            (p.shape.clone(), p.output.clone()),
            (vec![4, 6], vec![1, 0])
        );
        assert_eq!(p.out_layout.shape(), &[4]);
        assert_eq!(p.count, 6);
        let p = ReducePlan::new("sum", &m, &[0], true).unwrap();
        assert_eq!(p.kind(), ReduceKind::Outer);
        assert_eq!(p.out_layout.shape(), &[1, 6]);
        assert_eq!(p.index, vec![1, 0]);
        // Reducing a transposed matrix over dim 0 reads contiguous runs.
        let p = ReducePlan::new("sum", &m.t().unwrap(), &[0], false).unwrap();
        assert_eq!(p.kind(), ReduceKind::Inner);
        assert_eq!(p.input, vec![6, 1]);
    }

    #[test]
    fn full_reduction_coalesces_to_one_loop() {
        let l = Layout::contiguous(&[3, 4, 5]).unwrap();
        let p = ReducePlan::new("sum", &l, &[0, 1, 2], false).unwrap();
        assert_eq!((p.shape.clone(), p.index.clone()), (vec![60], vec![1]));
        assert_eq!(p.out_layout.ndim(), 0);
        let p = ReducePlan::new("sum", &Layout::contiguous(&[]).unwrap(), &[], false).unwrap();
        assert_eq!((p.shape.clone(), p.count), (vec![1], 1));
    }

    #[test]
    fn logical_index_follows_original_dim_order() {
        // Reduce dims 0 and 2 of a permuted layout: index strides are [3, 1] on those dims
        // whatever the loop order.
        let l = Layout::contiguous(&[3, 4, 5])
            .unwrap()
            .permute(&[2, 1, 0])
            .unwrap();
        let p = ReducePlan::new("argmax", &l, &[0, 2], false).unwrap();
        // Input strides [1, 5, 20] for shape [5, 4, 3]: by strides the loops would run dims
        // 2, 1, 0; the reduced dims 0 and 2 take their slots in logical order instead (Note
        // [canonical order]), so the loops run dims 0, 1, 2 and the positions ascend.
        assert_eq!(p.shape, vec![5, 4, 3]);
        assert_eq!(p.input, vec![1, 5, 20]);
        assert_eq!(p.index, vec![3, 0, 1]);
        assert_eq!(p.count, 15);
    }

    #[test]
    fn bad_dims_are_errors() {
        let l = Layout::contiguous(&[2, 3]).unwrap();
        assert!(matches!(
            ReducePlan::new("sum", &l, &[2], false),
            Err(Error::DimOutOfRange {
                op: "sum",
                dim: 2,
                ndim: 2
            })
        ));
        assert!(matches!(
            ReducePlan::new("sum", &l, &[1, 1], false),
            Err(Error::DuplicateDim { op: "sum", dim: 1 })
        ));
    }

    #[test]
    fn reducing_channels_of_channels_last_data_reads_unit_stride_runs() {
        use crate::layout::MemoryFormat;
        let l = Layout::contiguous_in(&[2, 8, 5, 6], MemoryFormat::ChannelsLast).unwrap();
        let p = ReducePlan::new("sum", &l, &[1], false).unwrap();
        // C has stride 1 in channels-last, so the reduced loop is innermost and unit-stride.
        assert_eq!(p.kind(), ReduceKind::Inner);
        assert_eq!((p.shape.last(), p.input.last()), (Some(&8), Some(&1)));
        // N, H, W coalesce into one kept loop of 60 outputs.
        assert_eq!(p.shape, vec![60, 8]);
    }
}
