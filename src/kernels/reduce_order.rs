//! The canonical order's pieces shared by every reduction path (Note [canonical order] in
//! `reduce.rs`): the lane and leaf sizes, where a range splits, how a run folds into lanes and
//! how lanes combine. A leaf module: the inner, outer, staged and small paths all import it,
//! and it imports none of them.

use crate::element::Element;
use crate::iter::ReducePlan;

use super::canonical;
use super::reducers::Reducer;

pub(super) use super::canonical::{LANES, LEAF};

/// The reduced loops of a plan in the inner kernel: outer reduced dims plus the run dim.
pub(super) struct Reduced {
    /// Sizes of the reduced loops except the innermost.
    pub(super) shape: Vec<usize>,
    /// Their `[input, index]` strides.
    pub(super) strides: Vec<[isize; 2]>,
    /// Length, input stride and index stride of the innermost (run) loop.
    pub(super) run: (usize, isize, isize),
    /// Number of reduced elements per output element.
    pub(super) len: usize,
}

/// The kept loops of `plan` (dims `kept`, in order): their sizes and `[input, output]`
/// strides, as the inner and outer kernels walk their output elements.
pub(super) fn kept_loops(plan: &ReducePlan, kept: &[usize]) -> (Vec<usize>, Vec<[isize; 2]>) {
    let shape = kept.iter().map(|&d| plan.shape[d]).collect();
    let strides = kept
        .iter()
        .map(|&d| [plan.input[d], plan.output[d]])
        .collect();
    (shape, strides)
}

/// Where the tree splits `lo..hi` (longer than a leaf): [`canonical::mid`], the one rule every
/// kernel shares.
#[inline(always)]
pub(super) fn split_point(lo: usize, hi: usize) -> usize {
    canonical::mid(lo, hi)
}

/// One output's [`LANES`] accumulators combined pairwise: lane `k` with lane `k + width / 2`
/// for width 8, 4, 2. Every path of the inner kernel ends a leaf with this.
#[inline(always)]
pub(super) fn combine_lanes<T: Element, R: Reducer<T>>(r: &R, l: [R::Acc; LANES]) -> R::Acc {
    canonical::combine_lanes(l, |a, b| r.combine(a, b))
}

/// Folds `len` elements at each of `runs` (stride `stride`) into that run's lanes, element
/// `i` into lane `(lane + i) % LANES` (its reduced position's lane: `lane` is the lane of the
/// run's first element), with position `first_index + i * index_stride`. The runs are walked
/// side by side, one chunk of [`LANES`] elements of each in turn.
///
/// # Safety
/// The `len` elements of every run must be readable and initialized.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn fold_runs<T: Element, R: Reducer<T>, const M: usize>(
    r: &R,
    lanes: &mut [[R::Acc; LANES]; M],
    runs: [*const T; M],
    stride: isize,
    len: usize,
    first_index: usize,
    index_stride: isize,
    lane: usize,
) {
    let at = |i: usize| (first_index as isize + i as isize * index_stride) as usize;
    if stride == 1 {
        // SAFETY: contract: `len` contiguous initialized elements per run.
        let xs = runs.map(|p| unsafe { std::slice::from_raw_parts(p, len) });
        // Elements up to the next lane-0 position (a run that starts mid-lane), folded into
        // `lanes` itself: their lane is a run-time index, which would keep the local copy
        // below out of registers.
        let head = ((LANES - lane) % LANES).min(len);
        for m in 0..M {
            for (i, &x) in xs[m][..head].iter().enumerate() {
                lanes[m][lane + i] = r.fold(lanes[m][lane + i], x, at(i));
            }
        }
        // The lanes in a local copy, so the compiler keeps them in registers instead of
        // storing and reloading them through `lanes` on every chunk; from here on every
        // chunk starts at lane 0.
        let mut acc = *lanes;
        let full = head + (len - head) / LANES * LANES;
        for i in (head..full).step_by(LANES) {
            for m in 0..M {
                let chunk: &[T; LANES] = xs[m][i..i + LANES].try_into().expect("LANES elements");
                for k in 0..LANES {
                    acc[m][k] = r.fold(acc[m][k], chunk[k], at(i + k));
                }
            }
        }
        for m in 0..M {
            for (k, &x) in xs[m][full..].iter().enumerate() {
                acc[m][k] = r.fold(acc[m][k], x, at(full + k));
            }
        }
        *lanes = acc;
    } else {
        for (m, &p) in runs.iter().enumerate() {
            for i in 0..len {
                // SAFETY: contract: element `i < len` at the given stride.
                let x = unsafe { p.offset(i as isize * stride).read() };
                let k = (lane + i) % LANES;
                lanes[m][k] = r.fold(lanes[m][k], x, at(i));
            }
        }
    }
}
