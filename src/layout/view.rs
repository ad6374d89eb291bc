//! `view`: a new shape over the same storage elements, in the same row-major order, without
//! copying.
//!
//! # Note on when a view exists
//!
//! Read the old layout's dims from the innermost outwards and cut them into *chunks*: maximal runs
//! of adjacent dims where each outer dim's stride equals the inner dim's `size * stride`, so the
//! chunk walks storage like one long dim with the innermost dim's stride (its *base*). Size-1 dims
//! never cut a chunk, since their strides are never read. A new shape is a view exactly when its
//! dims, read the same way, can be cut at the same places: each chunk of `n` elements is covered by
//! a run of new dims whose sizes multiply to `n`. Inside a chunk the new strides are then
//! `base * (product of the sizes of the new dims inside it)`. This is the rule of PyTorch's
//! `computeStride` and NumPy's no-copy reshape; it works on any strides, including negative and
//! zero ones, because it only compares strides for equality.

use super::{Layout, checked_numel, row_major_strides};
use crate::error::{Error, Result};

impl Layout {
    /// The same elements, in the same row-major order, under a new shape, without copying.
    ///
    /// Succeeds exactly when strides exist that reproduce this layout's row-major list of storage
    /// offsets (see the note in `src/layout/view.rs`); otherwise use `reshape`, which copies, or make the data
    /// contiguous first. An empty layout can be viewed as any shape with zero elements.
    ///
    /// # Errors
    /// [`Error::NumelMismatch`] if the element counts differ, [`Error::ViewNotPossible`] naming
    /// the dims that would need merging when they are not contiguous with each other.
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[2, 3, 4])?;
    /// assert_eq!(l.view(&[6, 4])?.strides(), &[4, 1]);
    /// // Splitting the transposed dims works; merging them does not.
    /// let t = l.transpose(1, 2)?; // shape [2, 4, 3], strides [12, 1, 4]
    /// assert_eq!(t.view(&[2, 2, 2, 3])?.strides(), &[12, 2, 1, 4]);
    /// assert!(t.view(&[2, 12]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn view(&self, shape: &[usize]) -> Result<Layout> {
        let numel = self.numel();
        let need = checked_numel(shape);
        if need != Some(numel) {
            return Err(Error::NumelMismatch {
                op: "view",
                have: numel,
                shape: shape.to_vec(),
                need,
            });
        }
        let strides = if numel == 0 {
            if shape == self.shape() {
                self.strides().to_vec()
            } else {
                // Sizes of 0 count as 1 in row-major strides, so they can overflow even though
                // the element count is 0.
                row_major_strides(shape).ok_or_else(|| Error::Overflow {
                    op: "view",
                    shape: shape.to_vec(),
                    strides: vec![],
                })?
            }
        } else {
            view_strides(self.shape(), self.strides(), shape).map_err(|dims| {
                Error::ViewNotPossible {
                    shape: self.shape().to_vec(),
                    strides: self.strides().to_vec(),
                    requested: shape.to_vec(),
                    dims,
                }
            })?
        };
        Layout::checked("view", shape, &strides, self.offset())
    }
}

/// Strides for `new_shape` over a non-empty layout, or the (first, last) old dims that a new dim
/// would have to merge across a chunk boundary.
fn view_strides(
    old_shape: &[usize],
    old_strides: &[isize],
    new_shape: &[usize],
) -> Result<Vec<isize>, (usize, usize)> {
    let mut new_strides = vec![1isize; new_shape.len()];
    let Some(last) = old_shape.len().checked_sub(1) else {
        // 0-dim: one element, so every new dim has size 1 and any stride will do.
        return Ok(new_strides);
    };
    // New dims not yet given a stride are new_shape[..pending].
    let mut pending = new_shape.len();
    let mut chunk_last = last;
    let mut base = old_strides[last];
    let (mut chunk_numel, mut new_numel) = (1usize, 1usize);
    for d in (0..old_shape.len()).rev() {
        // No overflow: chunk_numel divides the layout's element count.
        chunk_numel *= old_shape[d];
        let closes = d == 0
            || (old_shape[d - 1] != 1
                && (chunk_numel as i128) * (base as i128) != old_strides[d - 1] as i128);
        if !closes {
            continue;
        }
        while pending > 0 && (new_numel < chunk_numel || new_shape[pending - 1] == 1) {
            // For a dim of size >= 2 this stride spans addressed offsets, so it fits; only a
            // trailing size-1 dim can overflow, and its stride is never read.
            new_strides[pending - 1] = (new_numel as isize).checked_mul(base).unwrap_or(base);
            new_numel *= new_shape[pending - 1];
            pending -= 1;
        }
        if new_numel != chunk_numel {
            return Err((d.saturating_sub(1), chunk_last));
        }
        if d > 0 {
            base = old_strides[d - 1];
            chunk_last = d - 1;
            chunk_numel = 1;
            new_numel = 1;
        }
    }
    if pending != 0 {
        return Err((0, last));
    }
    Ok(new_strides)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (shape, strides, requested shape, expected strides or `None` if no view exists).
    type ViewCase = (
        &'static [usize],
        &'static [isize],
        &'static [usize],
        Option<&'static [isize]>,
    );

    /// The specification of `view`, one row per case.
    #[rustfmt::skip]
    const VIEW_TABLE: &[ViewCase] = &[
        // Contiguous layouts: every shape with the same count is a view.
        (&[2, 3, 4],  &[12, 4, 1],  &[24],         Some(&[1])),
        (&[2, 3, 4],  &[12, 4, 1],  &[4, 6],       Some(&[6, 1])),
        (&[24],       &[1],         &[2, 3, 4],    Some(&[12, 4, 1])),
        (&[2, 3],     &[3, 1],      &[1, 6, 1],    Some(&[6, 1, 1])),
        (&[6],        &[1],         &[1, 1, 6],    Some(&[6, 6, 1])),
        // Size-1 dims never block merging, whatever their stride.
        (&[3, 1, 4],  &[4, 99, 1],  &[12],         Some(&[1])),
        (&[1, 4],     &[-7, 1],     &[2, 2],       Some(&[2, 1])),
        // Transposed: splitting a dim works, merging across the transpose does not.
        (&[4, 3],     &[1, 4],      &[2, 2, 3],    Some(&[2, 1, 4])),
        (&[4, 3],     &[1, 4],      &[12],         None),
        (&[2, 4, 3],  &[12, 1, 4],  &[8, 3],       None),
        (&[2, 4, 3],  &[12, 1, 4],  &[2, 12],      None),
        // Narrowed rows: the outer dim no longer merges with the inner one.
        (&[2, 3],     &[5, 1],      &[6],          None),
        (&[2, 3],     &[5, 1],      &[2, 3, 1],    Some(&[5, 1, 1])),
        (&[4, 2, 3],  &[12, 3, 1],  &[2, 2, 6],    Some(&[24, 12, 1])),
        (&[4, 2, 3],  &[6, 3, 1],   &[8, 3],       Some(&[3, 1])),
        // Stepped slice: strides scale but chunks stay intact.
        (&[3, 4],     &[8, 2],      &[12],         Some(&[2])),
        (&[3, 4],     &[8, 2],      &[6, 2],       Some(&[4, 2])),
        // Negative strides (flip) merge like positive ones.
        (&[2, 3],     &[-3, -1],    &[6],          Some(&[-1])),
        (&[2, 3],     &[3, -1],     &[6],          None),
        (&[2, 3],     &[-3, -1],    &[3, 2],       Some(&[-2, -1])),
        // Expanded (stride 0) dims: merge with each other, split into stride-0 dims.
        (&[4, 5],     &[0, 0],      &[20],         Some(&[0])),
        (&[4, 5],     &[0, 1],      &[20],         None),
        (&[4, 5],     &[0, 1],      &[2, 2, 5],    Some(&[0, 0, 1])),
        // 0-dim and all-ones.
        (&[],         &[],          &[1, 1],       Some(&[1, 1])),
        (&[1, 1],     &[5, 7],      &[],           Some(&[])),
        (&[1],        &[3],         &[1],          Some(&[3])),
    ];

    #[test]
    fn view_table() {
        for &(shape, strides, new, expected) in VIEW_TABLE {
            let l = Layout::new(shape, strides, 100).unwrap();
            let got = l.view(new);
            match expected {
                Some(s) => {
                    let v = got.unwrap_or_else(|e| panic!("{shape:?}/{strides:?} -> {new:?}: {e}"));
                    assert_eq!(v.strides(), s, "{shape:?}/{strides:?} -> {new:?}");
                    assert_eq!(v.offset(), 100);
                }
                None => assert!(
                    matches!(got, Err(Error::ViewNotPossible { .. })),
                    "{shape:?}/{strides:?} -> {new:?} should not be a view, got {got:?}"
                ),
            }
        }
    }

    #[test]
    fn view_errors_name_the_dims() {
        let l = Layout::new(&[2, 4, 3], &[12, 1, 4], 0).unwrap();
        let err = l.view(&[8, 3]).unwrap_err();
        assert_eq!(
            err,
            Error::ViewNotPossible {
                shape: vec![2, 4, 3],
                strides: vec![12, 1, 4],
                requested: vec![8, 3],
                dims: (0, 1),
            }
        );
        let msg = err.to_string();
        assert!(msg.contains("dims 0..=1"), "{msg}");
        assert!(msg.contains("[12, 1, 4]"), "{msg}");
        assert!(msg.contains("reshape()"), "{msg}");
        assert!(matches!(
            l.view(&[5, 5]),
            Err(Error::NumelMismatch {
                have: 24,
                need: Some(25),
                ..
            })
        ));
        assert!(matches!(
            l.view(&[usize::MAX, 2]),
            Err(Error::NumelMismatch { need: None, .. })
        ));
    }

    #[test]
    fn empty_views() {
        let l = Layout::new(&[0, 3], &[3, 1], 0).unwrap();
        assert_eq!(l.view(&[0, 3]).unwrap().strides(), &[3, 1]);
        assert_eq!(l.view(&[3, 0, 2]).unwrap().strides(), &[2, 2, 1]);
        assert!(l.view(&[1]).is_err());
    }
}
