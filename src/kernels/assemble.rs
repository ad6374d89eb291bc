//! Building a fresh tensor from parts in one pass: `cat` (and `stack`, a `cat` of unsqueezed
//! views) and `pad`.
//!
//! The output is allocated uninitialized and written exactly once: each part is copied by the
//! copy kernel into its region of the output, and `pad`'s border is filled by it from a
//! one-element source. The regions are computed here, from the output layout, so the proof
//! that they cover every output element exactly once (which `assume_init` needs) sits next to
//! the code that relies on it.

use crate::element::Element;
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::{Storage, UninitStorage};

use super::copy::copy_strided;
use super::elementwise::Src;

/// Asserts that `out` is a dense layout from offset 0 (so it addresses every element of a
/// fresh storage of `numel` elements exactly once) and allocates that storage.
fn fresh_for<T: Element>(out: &Layout) -> Result<UninitStorage<T>> {
    assert!(
        out.offset() == 0 && out.is_non_overlapping_and_dense(),
        "assemble: the output must be dense"
    );
    super::fresh::<T>("cat/stack/pad", out.shape(), out.numel())
}

/// Copies every part into `region` of the fresh output.
///
/// # Panics
/// If a part does not fit its storage or its shape differs from the region's.
fn copy_part<T: Element>(fresh: &mut UninitStorage<T>, part: Src<'_, T>, region: &Layout) {
    assert!(
        part.layout.fits_in(part.storage.len()),
        "assemble: a part does not fit its storage"
    );
    // SAFETY: the part fits its storage (asserted), whose elements are initialized; the
    // region is a narrow of the dense output (caller), so it fits the fresh allocation and
    // addresses each element once; a fresh allocation overlaps no source. Shapes are checked
    // by `copy_strided`.
    unsafe {
        copy_strided(
            part.storage.as_ptr(),
            part.layout,
            fresh.as_mut_ptr(),
            region,
        )
    }
}

/// Fills `region` of the fresh output with `value`.
fn fill_region<T: Element>(fresh: &mut UninitStorage<T>, region: &Layout, value: T) {
    let one = [value];
    let src = Layout::new(region.shape(), &vec![0; region.ndim()], 0)
        .expect("stride-0 strides over one element always fit");
    // SAFETY: every index of the stride-0 source is `one[0]`; the region is a narrow of the
    // dense output (caller), so it fits the fresh allocation and addresses each element once.
    unsafe { copy_strided(one.as_ptr(), &src, fresh.as_mut_ptr(), region) }
}

/// The parts laid side by side along `dim` in the dense layout `out`.
///
/// # Panics
/// If `out` is not dense from offset 0, a part's shape differs from `out`'s off `dim`, or the
/// parts' sizes along `dim` do not add up to `out`'s (callers check and return `Err` first).
pub(crate) fn cat<T: Element>(
    parts: &[Src<'_, T>],
    dim: usize,
    out: &Layout,
) -> Result<Storage<T>> {
    let mut fresh = fresh_for::<T>(out)?;
    let mut start = 0usize;
    for part in parts {
        let len = part.layout.shape()[dim];
        let region = out
            .narrow(dim, start, len)
            .expect("the parts' sizes add up to the output's");
        copy_part(&mut fresh, *part, &region);
        start += len;
    }
    assert_eq!(
        start,
        out.shape()[dim],
        "cat: parts do not cover the output"
    );
    // SAFETY: the regions `start..start + len` of `dim` are consecutive and end at the
    // output's size (asserted), so they partition the dense output's indices, hence (dense,
    // offset 0) every element of the fresh storage; each was written by its part's copy.
    Ok(unsafe { fresh.assume_init() })
}

/// `src` with `pads[d] = (before, after)` elements of `value` added around each dim `d`, in the
/// dense layout `out`.
///
/// # Panics
/// If `out` is not dense from offset 0 or its shape is not `before + size + after` per dim.
pub(crate) fn pad<T: Element>(
    src: Src<'_, T>,
    pads: &[(usize, usize)],
    value: T,
    out: &Layout,
) -> Result<Storage<T>> {
    let shape = src.layout.shape();
    assert!(pads.len() == shape.len() && out.ndim() == shape.len());
    for (d, &(b, a)) in pads.iter().enumerate() {
        assert_eq!(
            out.shape()[d],
            b + shape[d] + a,
            "pad: output size of dim {d}"
        );
    }
    let mut fresh = fresh_for::<T>(out)?;
    // Output index i is in the interior when before_d <= i_d < before_d + size_d for every d;
    // otherwise let d be the first dim where it is not: it lies in border region (d, side),
    // whose dims before d are narrowed to the interior, dim d to one side, and later dims are
    // whole. Every index is in exactly one of these regions or in the interior.
    let mut interior = out.clone();
    for d in 0..shape.len() {
        let (before, after) = pads[d];
        let (lo, hi) = (
            interior.narrow(d, 0, before).expect("inside the output"),
            interior
                .narrow(d, before + shape[d], after)
                .expect("inside the output"),
        );
        fill_region(&mut fresh, &lo, value);
        fill_region(&mut fresh, &hi, value);
        interior = interior
            .narrow(d, before, shape[d])
            .expect("inside the output");
    }
    copy_part(&mut fresh, src, &interior);
    // SAFETY: the interior and the border regions partition the output's indices (comment
    // above), hence every element of the dense fresh storage; each region was written once.
    Ok(unsafe { fresh.assume_init() })
}
