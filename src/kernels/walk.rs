//! Odometer walks over strided index spaces, yielding storage offsets.

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
    let n = shape.len();
    let mut index = vec![0usize; n];
    let (mut a, mut b) = (0isize, 0isize);
    loop {
        f(a, b);
        // Advance the odometer from the innermost dim; a stride is added only when its index
        // really moves, so size-1 dims never touch the offsets.
        let mut d = n;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            if index[d] + 1 < shape[d] {
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
    }
}
