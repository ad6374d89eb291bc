//! The canonical order of Note [canonical order] (`src/kernels/reduce.rs`), for the kernels
//! that reduce outside the generic reduction kernel: softmax's sums and the moments kernel.
//!
//! The reduced positions `0..n` of one output (its logical order along the dim) are cut into
//! leaves of [`LEAF`] positions (leaf `i / LEAF`); inside a leaf, position `i` is folded into
//! lane `i % LANES`, each lane in increasing `i` from the op's identity, and the lanes end the
//! leaf combined by [`combine_lanes`]; leaves are combined pairwise over `[0, n)`, a node
//! `[lo, hi)` longer than a leaf splitting at [`mid`]. The order depends on `n` alone, so
//! every kernel path (a line in memory, rows side by side, strided or contiguous, AVX2 or
//! portable) that evaluates it with the same operations gets the same bits.
//!
//! [`tree`] evaluates the pairwise combination for scalars (or arrays of a few outputs),
//! [`row_tree`] for rows of outputs side by side (one accumulator per output column).

/// Lanes of a leaf: position `i` goes to lane `i % LANES`.
pub(crate) const LANES: usize = 8;
/// Positions per leaf: leaves start at multiples of `LEAF`.
pub(crate) const LEAF: usize = 512;

/// Where the node `[lo, hi)` (longer than a leaf) splits: `lo` plus half its length rounded
/// up to a whole number of leaves.
#[inline]
pub(crate) fn mid(lo: usize, hi: usize) -> usize {
    lo + ((hi - lo) / 2).div_ceil(LEAF) * LEAF
}

/// A leaf's lanes combined: `l[k] = combine(l[k], l[k + w])` for `w = 4, 2, 1`.
#[inline(always)]
pub(crate) fn combine_lanes<A: Clone>(mut l: [A; LANES], combine: impl Fn(A, A) -> A) -> A {
    let mut w = LANES;
    while w > 1 {
        w /= 2;
        for k in 0..w {
            l[k] = combine(l[k].clone(), l[k + w].clone());
        }
    }
    l[0].clone()
}

/// Most nested nodes of a tree: each split at least halves a node, so `64` levels cover any
/// `usize` length.
const DEPTH: usize = 64;

/// The value of positions `0..n` (`n >= 1`): `leaf(lo, hi)` for each node of at most one
/// leaf, and `combine(left, right, left_len, right_len)` for the halves of longer nodes,
/// split at [`mid`]. Evaluated without recursion (an explicit stack), so it inlines into its
/// caller, and `leaf` with it: a caller compiled for AVX2 runs its leaves compiled for AVX2.
#[inline(always)]
pub(crate) fn tree<A: Copy>(
    n: usize,
    mut leaf: impl FnMut(usize, usize) -> A,
    combine: impl Fn(A, A, usize, usize) -> A,
) -> A {
    // Nodes whose left half is being evaluated (`None`) or has this value.
    let mut frames = [(0usize, 0usize, 0usize); DEPTH];
    let mut lefts = [None::<A>; DEPTH];
    let mut depth = 0;
    let (mut lo, mut hi) = (0, n);
    loop {
        while hi - lo > LEAF {
            let m = mid(lo, hi);
            frames[depth] = (lo, m, hi);
            lefts[depth] = None;
            depth += 1;
            hi = m;
        }
        let mut v = leaf(lo, hi);
        loop {
            if depth == 0 {
                return v;
            }
            let (flo, fm, fhi) = frames[depth - 1];
            match lefts[depth - 1] {
                None => {
                    lefts[depth - 1] = Some(v);
                    (lo, hi) = (fm, fhi);
                    break;
                }
                Some(left) => {
                    v = combine(left, v, fm - flo, fhi - fm);
                    depth -= 1;
                }
            }
        }
    }
}

/// [`tree`] for a row of outputs side by side: `leaf(lo, hi, row)` writes the leaf's value
/// of every column into `row`, `combine(left, right, left_len, right_len)` combines a right
/// half into the left one in place; the value of `0..n` ends in `acc`. `stack` holds the
/// left halves' rows (reused across calls; `init` fills new ones).
#[inline(always)]
pub(crate) fn row_tree<A: Copy>(
    n: usize,
    acc: &mut [A],
    init: A,
    stack: &mut Vec<Vec<A>>,
    mut leaf: impl FnMut(usize, usize, &mut [A]),
    combine: impl Fn(&mut [A], &[A], usize, usize),
) {
    let w = acc.len();
    // Nodes whose left half is being evaluated (`false`) or is in `stack[level]` (`true`).
    let mut frames = [(0usize, 0usize, 0usize, false); DEPTH];
    let mut depth = 0;
    let (mut lo, mut hi) = (0, n);
    loop {
        while hi - lo > LEAF {
            let m = mid(lo, hi);
            frames[depth] = (lo, m, hi, false);
            depth += 1;
            hi = m;
        }
        leaf(lo, hi, acc);
        loop {
            if depth == 0 {
                return;
            }
            let (flo, fm, fhi, saved) = frames[depth - 1];
            if stack.len() < depth {
                stack.resize_with(depth, Vec::new);
            }
            let left = &mut stack[depth - 1];
            if saved {
                combine(left, acc, fm - flo, fhi - fm);
                acc.copy_from_slice(left);
                depth -= 1;
            } else {
                left.clear();
                left.resize(w, init);
                left.copy_from_slice(acc);
                frames[depth - 1].3 = true;
                (lo, hi) = (fm, fhi);
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order written out: a sum of `1 << i`-weighted tags cannot tell orders apart, so
    /// the tree builds the expression as text and the test compares it with the rule.
    #[test]
    fn leaves_lanes_and_splits_follow_the_rule() {
        assert_eq!(mid(0, 513), 512);
        assert_eq!(mid(0, 1536), 1024);
        assert_eq!(mid(0, 2048), 1024);
        assert_eq!(mid(512, 2000), 1536);
        let lanes: [String; LANES] = std::array::from_fn(|k| k.to_string());
        let c = combine_lanes(lanes, |a, b| format!("({a}+{b})"));
        assert_eq!(c, "(((0+4)+(2+6))+((1+5)+(3+7)))");
        // Values are indices into `text`, the expression each node stands for.
        let text = std::cell::RefCell::new(Vec::<String>::new());
        let node = |t: String| {
            text.borrow_mut().push(t);
            text.borrow().len() - 1
        };
        let expr = |n| {
            let t = tree(
                n,
                |lo, hi| node(format!("{lo}..{hi}")),
                |a, b, _, _| {
                    let s = format!("[{} {}]", text.borrow()[a], text.borrow()[b]);
                    node(s)
                },
            );
            text.borrow()[t].clone()
        };
        assert_eq!(expr(100), "0..100");
        assert_eq!(expr(1300), "[[0..512 512..1024] 1024..1300]");
        assert_eq!(
            expr(2600),
            "[[[0..512 512..1024] 1024..1536] [[1536..2048 2048..2560] 2560..2600]]"
        );
        let mut acc = vec![0usize; 3];
        let mut stack = Vec::new();
        row_tree(
            2600,
            &mut acc,
            0,
            &mut stack,
            |lo, hi, a: &mut [usize]| a.iter_mut().for_each(|v| *v = hi - lo),
            |a: &mut [usize], b: &[usize], l, r| {
                assert_eq!(a[0] + b[0], l + r);
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
            },
        );
        assert_eq!(acc, vec![2600; 3]);
    }
}
