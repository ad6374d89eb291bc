//! The small strided fast path of the binary elementwise ops: operands of any layouts
//! (transposed, sliced, flipped, broadcast) whose output is too small to split across threads
//! and small enough that planning (loop order, coalescing, tiles: a dozen small allocations)
//! would cost more than the loop itself. One odometer walks the output in row-major index
//! order with an inner loop along the last dim, reading and writing by offset (the offsets are
//! in range by the tensor invariant, asserted once per op rather than checked per element).
//!
//! The output layout is the one the planned path gives (`iter::output::output_strides`, Note
//! [output layout]), so which path ran is invisible.

use std::mem::MaybeUninit;

use crate::element::Element;
use crate::error::Result;
use crate::iter::broadcast::broadcast_all;
use crate::iter::output::output_strides;
use crate::layout::Layout;
use crate::storage::Storage;

use super::Src;
use super::parallel::threads_for;

/// Largest output (elements) this path takes. Beyond it the planned path's cache-aware loop
/// order and tiling of transposed operands pay for their planning (bench report, small
/// table: `&a + &a.t()` at 64 x 64 is faster planned).
const MAX_ELEMS: usize = 1024;

/// Most dims this path takes (its odometer lives on the stack).
const MAX_DIMS: usize = 6;

/// The strides of `layout` broadcast to `shape` (at most [`MAX_DIMS`] dims, which it
/// broadcasts to): `iter::broadcast::broadcast_strides` on the stack.
fn broadcast_into(layout: &Layout, shape: &[usize]) -> [isize; MAX_DIMS] {
    let mut out = [0; MAX_DIMS];
    let pad = shape.len() - layout.ndim();
    for (d, (&size, &stride)) in layout.shape().iter().zip(layout.strides()).enumerate() {
        out[pad + d] = if size == shape[pad + d] { stride } else { 0 };
    }
    out
}

/// `f(a, b)` broadcast into a fresh tensor, or `None` when this path does not apply (too big,
/// too many dims, empty, or worth threads); the caller then plans the op.
pub(crate) fn zip<A, B, O, F>(
    a: &Src<'_, A>,
    b: &Src<'_, B>,
    f: &F,
) -> Option<Result<(Storage<O>, Layout)>>
where
    A: Element,
    B: Element,
    O: Element,
    F: Fn(A, B) -> O,
{
    // The broadcast shape: the operands' own when they agree (no allocation), else NumPy's.
    let same = a.layout.shape() == b.layout.shape();
    let broadcast;
    let shape: &[usize] = match same {
        true => a.layout.shape(),
        false => match broadcast_all(&[a.layout, b.layout]) {
            Ok(s) => {
                broadcast = s;
                &broadcast
            }
            Err(e) => return Some(Err(e)),
        },
    };
    // An element count past `usize` is the planned path's error to report.
    let n = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))?;
    let nd = shape.len();
    if n == 0 || n > MAX_ELEMS || nd > MAX_DIMS || threads_for(n) > 1 {
        return None;
    }
    let ins = [
        broadcast_into(a.layout, shape),
        broadcast_into(b.layout, shape),
    ];
    let ins = [&ins[0][..nd], &ins[1][..nd]];
    let out = match Layout::new(shape, &output_strides(shape, &ins), 0) {
        Ok(out) => out,
        Err(e) => return Some(Err(e)),
    };
    let mut fresh = match super::fresh::<O>("elementwise op", shape, n) {
        Ok(fresh) => fresh,
        Err(e) => return Some(Err(e)),
    };
    // SAFETY: `fresh` is a new allocation for exactly `n` elements (Storage invariant 2), seen
    // here as uninitialized slots, not aliased by any input.
    let slots: &mut [MaybeUninit<O>] =
        unsafe { std::slice::from_raw_parts_mut(fresh.as_mut_ptr().cast(), n) };
    let (xa, xb) = (a.storage.as_slice(), b.storage.as_slice());
    assert!(
        a.layout.fits_in(xa.len()) && b.layout.fits_in(xb.len()),
        "elementwise: layout does not fit its storage"
    );
    let so = out.strides();
    let (pa, pb, po) = (xa.as_ptr(), xb.as_ptr(), slots.as_mut_ptr());
    // Per dim: size and the three strides (output, a, b); a 0-dim op is one element.
    let dim = |d: usize| (shape[d], [so[d], ins[0][d], ins[1][d]]);
    let (len, inner) = if nd == 0 { (1, [0; 3]) } else { dim(nd - 1) };
    let mut at = [
        0isize,
        a.layout.offset() as isize,
        b.layout.offset() as isize,
    ];
    let mut index = [0usize; MAX_DIMS];
    loop {
        // The run along the last dim, with the offsets and strides in locals (registers).
        let (mut o, mut i, mut j) = (at[0], at[1], at[2]);
        let [so_in, sa_in, sb_in] = inner;
        for _ in 0..len {
            // SAFETY: `o`, `i`, `j` are the offsets of one index of the shape in the output
            // and in each operand: in range of the slots (the dense output layout maps the
            // shape's indices onto `0..n`) and of `xa` / `xb` (each layout fits its storage,
            // asserted above; broadcast strides address the same offsets). The output is a
            // fresh allocation, so no write reaches an input.
            unsafe {
                let y = f(*pa.offset(i), *pb.offset(j));
                (*po.offset(o)).write(y);
            }
            // Past the run's last element these are never used, and a size-1 dim's stride
            // may be anything (up to `isize::MAX`): wrap instead of overflowing there.
            o = o.wrapping_add(so_in);
            i = i.wrapping_add(sa_in);
            j = j.wrapping_add(sb_in);
        }
        // Advance the odometer over the outer dims, last first.
        let mut d = nd.saturating_sub(1);
        loop {
            if d == 0 {
                // SAFETY: the odometer visited every index of the shape once, and the dense
                // output layout maps those indices one-to-one onto the `n` slots: every slot
                // was written (Storage invariant 3).
                return Some(Ok((unsafe { fresh.assume_init() }, out)));
            }
            d -= 1;
            let (size, strides) = dim(d);
            index[d] += 1;
            if index[d] < size {
                for k in 0..3 {
                    at[k] += strides[k];
                }
                break;
            }
            index[d] = 0;
            for k in 0..3 {
                at[k] -= strides[k] * (size as isize - 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tensor::Tensor;

    #[test]
    fn huge_strides_of_size_one_dims_do_not_overflow() {
        // A size-1 last dim may carry any stride; the run must not step past it (in debug
        // builds the step after the second row's element overflowed `isize`).
        let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
        let col = a.as_strided(&[2, 1], &[2, isize::MAX], 0).unwrap();
        assert!(!col.is_contiguous());
        assert_eq!((&col + &col).unwrap().to_vec(), vec![2.0, 6.0]);
        let row = a.as_strided(&[1, 2], &[isize::MAX, 2], 0).unwrap();
        assert_eq!((&col * &row).unwrap().to_vec(), vec![1.0, 3.0, 3.0, 9.0]);
    }
}
