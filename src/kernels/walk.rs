//! Odometer walks over strided index spaces, yielding storage offsets.

use crate::layout::Dims;

/// Calls `f(a, b)` for every multi-index of `shape` in row-major order, where `a` and `b` are
/// the offsets `Σ i_k * strides_a[k]` and `Σ i_k * strides_b[k]` (relative to index 0).
///
/// Offsets are updated incrementally, one add per step plus a carry per wrapped dim. Callers
/// pass strides of valid layouts, for which every partial sum is an addressed offset minus the
/// base, so no step overflows.
pub(crate) fn for_each_offset2(
    shape: &[usize],
    strides_a: &[isize],
    strides_b: &[isize],
    mut f: impl FnMut(isize, isize),
) {
    if shape.contains(&0) {
        return;
    }
    let Some((&inner, outer)) = shape.split_last() else {
        f(0, 0);
        return;
    };
    let (ia, ib) = (strides_a[outer.len()], strides_b[outer.len()]);
    if let [rows] = *outer {
        // Two dims (the common small case): two plain loops, no odometer.
        let (ra, rb) = (strides_a[0], strides_b[0]);
        for r in 0..rows as isize {
            let (a, b) = (r * ra, r * rb);
            for i in 0..inner as isize {
                f(a + i * ia, b + i * ib);
            }
        }
        return;
    }
    let mut index = Dims::<usize>::zeroed(outer.len());
    let (mut a, mut b) = (0isize, 0isize);
    loop {
        // The innermost dim as a plain loop: `i * stride` is an addressed offset's distance
        // from the row's first, so it does not overflow.
        for i in 0..inner as isize {
            f(a + i * ia, b + i * ib);
        }
        // Advance the odometer over the outer dims; a stride is added only when its index
        // really moves, so size-1 dims never touch the offsets.
        let mut d = outer.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            if index[d] + 1 < outer[d] {
                index[d] += 1;
                a += strides_a[d];
                b += strides_b[d];
                break;
            }
            let back = index[d] as isize;
            a -= back * strides_a[d];
            b -= back * strides_b[d];
            index[d] = 0;
        }
    }
}

/// Calls `f(k, x)` for every element of the `n`-element run at `xr` (stride `rx`), with a
/// slice loop the compiler vectorises when the run is contiguous.
///
/// # Safety
/// The run's `n` elements are initialized input elements.
#[inline(always)]
pub(crate) unsafe fn for_run<T: Copy>(
    xr: *const T,
    rx: isize,
    n: usize,
    mut f: impl FnMut(usize, T),
) {
    if rx == 1 {
        // SAFETY: contract; `n` contiguous elements.
        let xs = unsafe { std::slice::from_raw_parts(xr, n) };
        for (k, &v) in xs.iter().enumerate() {
            f(k, v);
        }
    } else {
        for k in 0..n {
            // SAFETY: element `k < n` of the run (contract).
            f(k, unsafe { xr.offset(k as isize * rx).read() });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visits_row_major_offsets() {
        let mut seen = vec![];
        for_each_offset2(&[2, 3], &[3, 1], &[1, -2], |a, b| seen.push((a, b)));
        assert_eq!(
            seen,
            vec![(0, 0), (1, -2), (2, -4), (3, 1), (4, -1), (5, -3)]
        );
        let mut count = 0;
        for_each_offset2(&[], &[], &[], |_, _| count += 1);
        assert_eq!(count, 1);
        for_each_offset2(&[3, 0], &[1, 1], &[1, 1], |_, _| count += 1);
        assert_eq!(count, 1);
        // Rank 1, and rank 6 (the odometer index spills to the heap), against a direct count.
        let mut seen = vec![];
        for_each_offset2(&[3], &[-2], &[5], |a, b| seen.push((a, b)));
        assert_eq!(seen, vec![(0, 0), (-2, 5), (-4, 10)]);
        let shape = [2, 1, 3, 1, 2, 2];
        let strides = [24, 99, 4, 7, 2, 1];
        let mut offsets = vec![];
        for_each_offset2(&shape, &strides, &[0; 6], |a, b| {
            assert_eq!(b, 0);
            offsets.push(a);
        });
        let want: Vec<isize> = (0..2)
            .flat_map(|i| (0..3).flat_map(move |j| (0..4).map(move |k| 24 * i + 4 * j + k)))
            .collect();
        assert_eq!(offsets, want);
    }
}
