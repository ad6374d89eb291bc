//! Property tests of `Layout::is_non_overlapping` against brute force: it never accepts an
//! overlapping layout, it decides small layouts exactly, and it accepts every view that the
//! element-selecting view ops make of a contiguous layout.
//!
//! Case counts default to small numbers so the suite runs in seconds; set `PROPTEST_CASES` to
//! run more.

use crate::common;

use common::*;
use proptest::prelude::*;
use stridex::Layout;

/// Whether two indices of `l` address the same offset, by enumerating every index.
fn brute_force_overlaps(l: &Layout) -> bool {
    let mut offsets: Vec<usize> = all_indices(l.shape())
        .iter()
        .map(|idx| l.offset_of(idx).unwrap())
        .collect();
    offsets.sort_unstable();
    offsets.windows(2).any(|w| w[0] == w[1])
}

/// Small shapes (ndim 0..=4, sizes 0..=5) with strides in -7..=7, zero included, and the
/// offset just large enough for the negative strides.
fn arb_small_layout() -> impl Strategy<Value = Layout> {
    (
        prop::collection::vec((0usize..=5, -7isize..=7), 0..=4),
        0usize..=3,
    )
        .prop_map(|(dims, slack)| {
            let shape: Vec<usize> = dims.iter().map(|p| p.0).collect();
            let strides: Vec<isize> = dims.iter().map(|p| p.1).collect();
            let need: usize = dims
                .iter()
                .filter(|&&(n, s)| n > 0 && s < 0)
                .map(|&(n, s)| (n - 1) * s.unsigned_abs())
                .sum();
            Layout::new(&shape, &strides, need + slack).expect("the offset covers the strides")
        })
}

/// A view op that selects elements without repeating any, its arguments as seeds resolved
/// against the current shape (so every step is valid).
#[derive(Clone, Debug)]
enum Step {
    Transpose(u8, u8),
    Permute(Vec<u8>),
    Narrow(u8, u8, u8),
    /// Start, end and step of a slice: either sign, clamped like NumPy.
    Slice(u8, i8, i8, i8),
    Select(u8, u8),
    Flip(u8),
    Diagonal(i8, u8, u8),
    /// Window size and extra step: windows never share elements (step >= size).
    Unfold(u8, u8, u8),
    Unsqueeze(u8),
    Squeeze(u8),
}

fn arb_step() -> impl Strategy<Value = Step> {
    let s = any::<u8>;
    prop_oneof![
        (s(), s()).prop_map(|(a, b)| Step::Transpose(a, b)),
        prop::collection::vec(s(), 0..6).prop_map(Step::Permute),
        (s(), s(), s()).prop_map(|(d, a, b)| Step::Narrow(d, a, b)),
        (s(), -7i8..=7, -7i8..=7, prop_oneof![-3i8..=-1, 1i8..=3])
            .prop_map(|(d, a, b, st)| Step::Slice(d, a, b, st)),
        (s(), s()).prop_map(|(d, i)| Step::Select(d, i)),
        s().prop_map(Step::Flip),
        (-3i8..=3, s(), s()).prop_map(|(k, a, b)| Step::Diagonal(k, a, b)),
        (s(), s(), s()).prop_map(|(d, a, b)| Step::Unfold(d, a, b)),
        s().prop_map(Step::Unsqueeze),
        s().prop_map(Step::Squeeze),
    ]
}

impl Step {
    /// Applies the step to `l`, or `None` where it needs more dims (or a non-empty dim, or a
    /// size-1 dim) than `l` has.
    fn apply(&self, l: &Layout) -> Option<Layout> {
        let n = l.ndim();
        let dim = |seed: u8| (n > 0).then(|| seed as usize % n);
        let size = |d: usize| l.shape()[d];
        let r = match *self {
            Step::Transpose(a, b) => l.transpose(dim(a)?, dim(b)?),
            Step::Permute(ref seed) => {
                let mut b = Bytes::new(seed);
                let mut p: Vec<usize> = (0..n).collect();
                for i in (1..n).rev() {
                    p.swap(i, b.below(i + 1));
                }
                l.permute(&p)
            }
            Step::Narrow(d, a, b) => {
                let d = dim(d)?;
                let start = a as usize % (size(d) + 1);
                let len = b as usize % (size(d) - start + 1);
                l.narrow(d, start, len)
            }
            Step::Slice(d, a, b, st) => l.slice(dim(d)?, a as isize, b as isize, st as isize),
            Step::Select(d, i) => {
                let d = dim(d)?;
                if size(d) == 0 {
                    return None;
                }
                l.select(d, i as usize % size(d))
            }
            Step::Flip(d) => l.flip(dim(d)?),
            Step::Diagonal(k, a, b) => {
                if n < 2 {
                    return None;
                }
                let d1 = a as usize % n;
                let d2 = (d1 + 1 + b as usize % (n - 1)) % n;
                l.diagonal_with(k as isize, d1, d2)
            }
            Step::Unfold(d, a, b) => {
                let d = dim(d)?;
                let window = a as usize % (size(d) + 1);
                l.unfold(d, window, window.max(1) + b as usize % 3)
            }
            Step::Unsqueeze(d) => l.unsqueeze(d as usize % (n + 1)),
            Step::Squeeze(d) => {
                let d = dim(d)?;
                if size(d) != 1 {
                    return None;
                }
                l.squeeze(d)
            }
        };
        Some(r.unwrap_or_else(|e| panic!("{self:?} on {l:?}: resolved arguments fail: {e:?}")))
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Property 1: never accepts an overlapping layout, and decides small layouts exactly. Exact
    /// because these never reach the work bound: at most 9 choices for each `z_d` and at most
    /// two searched dims (the last two cost one step), far below the bound.
    #[test]
    fn small_layouts_match_brute_force(l in arb_small_layout()) {
        let overlaps = brute_force_overlaps(&l);
        prop_assert!(!(overlaps && l.is_non_overlapping()), "accepted overlapping {:?}", l);
        prop_assert_eq!(l.is_non_overlapping(), !overlaps, "{:?}", l);
    }

    /// Property 2: chains of element-selecting view ops on a contiguous layout never overlap,
    /// and every layout on the way is accepted.
    #[test]
    fn selecting_views_of_contiguous_layouts_are_accepted(
        shape in prop::collection::vec(0usize..=6, 0..=4),
        steps in prop::collection::vec(arb_step(), 0..=8),
    ) {
        let mut l = Layout::contiguous(&shape).unwrap();
        prop_assert!(l.is_non_overlapping(), "{:?}", l);
        for step in &steps {
            if let Some(next) = step.apply(&l) {
                l = next;
                prop_assert!(!brute_force_overlaps(&l), "{:?} made {:?} overlap", step, l);
                prop_assert!(l.is_non_overlapping(), "{:?} made {:?}, refused", step, l);
            }
        }
    }
}

/// The cases the span test alone refused: interleaved dims whose offsets are still distinct.
#[test]
fn interleaved_layouts_are_accepted() {
    for (shape, strides) in [
        (&[3, 2][..], &[2, 3][..]),
        (&[3, 2], &[-2, 3]),
        (&[2, 2, 2], &[3, 5, 7]),
        (&[2, 3, 2], &[4, 6, 9]),
    ] {
        let l = Layout::new(shape, strides, 10).unwrap();
        assert!(!brute_force_overlaps(&l), "{l:?}");
        assert!(l.is_non_overlapping(), "{l:?}");
    }
}
