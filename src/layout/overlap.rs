//! Internal overlap: can two different indices of one layout address the same storage offset?
//!
//! [`Layout::is_non_overlapping`] answers yes or no; [`Layout::overlap`] gives the richer answer
//! ([`Overlap`]) so that an error can say "overlaps" apart from "could not prove it does not".
//!
//! # Note [Exact-or-refuse overlap test]
//!
//! Indices `i != j` address the same offset iff `z = i - j` is a non-zero integer vector with
//! `|z_d| <= n_d - 1` and `sum(s_d * z_d) == 0` (sizes `n`, strides `s`). The box of allowed `z`
//! is symmetric, so the sign of each stride never matters (`z_d -> -z_d`) and we work with
//! `|s_d|`; size-1 dims can only have `z_d = 0` and drop out; a stride 0 on a dim of size > 1
//! is an overlap (`z = e_d`). Deciding this in general is a bounded integer equation, which is
//! NP-hard, so the test has three answers:
//!
//! 1. The fast path, which accepts every layout that transposing, narrowing, slicing, flipping
//!    and the like make of a dense one: sorted by stride, each stride exceeds the span
//!    `sum((n_d - 1) * s_d)` of the smaller ones, so the term of the largest-stride dim with
//!    `z_d != 0` cannot be cancelled. No overlap.
//! 2. Otherwise an exact search, after NumPy's `solve_may_have_internal_overlap`
//!    (`numpy/_core/src/common/mem_overlap.c`). First two reductions that keep the answer:
//!    dims with `s_a == s_b * n_b` merge into one dim (stride `s_b`, size `n_a * n_b`: the same
//!    offsets, one to one), and two dims with one stride overlap (`z = e_a - e_b`). Then a
//!    depth-first search over `z`, largest stride first. By the symmetry `z -> -z` the first
//!    non-zero entry is positive. At each dim the choices are cut by the remaining target `t`:
//!    the rest must be able to reach it (`|t - s_k z_k| <= span of the later dims`) and must
//!    divide it (`s_k z_k == t` modulo the gcd of the later strides, a linear congruence whose
//!    solutions are one arithmetic progression). With two dims left, any choice that survives
//!    both cuts completes to a solution, so the last two dims cost one step.
//! 3. The search counts the choices it tries and stops at [`WORK_BOUND`]: *undecided*.
//!
//! Undecided is reported as overlapping by [`Layout::is_non_overlapping`]. That is always safe:
//! its callers refuse to write through a refused layout (an `OverlappingDestination` error, or
//! a failed assertion in a kernel) before writing anything, and the caller can write into a
//! fresh, contiguous tensor instead. Accepting an overlapping destination is never safe: the
//! kernels' `// SAFETY:` arguments rely on each destination element being written once. So the
//! test never accepts an overlapping layout, and it is exact for every layout the search decides
//! within the bound: all with at most two dims of size > 1 after merging, all the span test
//! passes, and all small ones (`tests/overlap_props.rs` checks sizes up to 5 in 4 dims).

use super::Layout;

/// The most choices the search tries before it answers [`Overlap::Undecided`]. A choice costs
/// about 50 ns (a handful of `i128` divisions), so a call that hits the bound takes about 0.2 ms.
pub(crate) const WORK_BOUND: u32 = 1 << 12;

/// Dims held on the stack by the fast path (more spill to the heap).
const INLINE_DIMS: usize = 8;

/// The answer of the internal-overlap test; see the [note](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Overlap {
    /// No two indices address the same offset.
    None,
    /// Some two different indices address the same offset.
    Overlaps,
    /// The search hit [`WORK_BOUND`]; treat as overlapping.
    Undecided,
}

impl Layout {
    /// Whether different indices can address the same offset: exact, or
    /// [`Overlap::Undecided`] when the search hits its work bound (see the [note](self)).
    pub(crate) fn overlap(&self) -> Overlap {
        if self.numel() <= 1 {
            return Overlap::None;
        }
        overlap_of(self.shape(), self.strides())
    }
}

/// [`Layout::overlap`] on the parts of a layout with at least 2 elements. Sums of
/// `(n_d - 1) * |s_d|` fit in `isize` (invariant 3); the arithmetic is checked anyway.
fn overlap_of(shape: &[usize], strides: &[isize]) -> Overlap {
    let mut inline = [(0usize, 0usize); INLINE_DIMS];
    let mut heap = Vec::new();
    let buf: &mut [(usize, usize)] = if shape.len() <= INLINE_DIMS {
        &mut inline
    } else {
        heap.resize(shape.len(), (0, 0));
        &mut heap
    };
    // (|stride|, size) of the dims of size > 1.
    let mut m = 0;
    for (&n, &s) in shape.iter().zip(strides) {
        if n > 1 {
            if s == 0 {
                return Overlap::Overlaps;
            }
            buf[m] = (s.unsigned_abs(), n);
            m += 1;
        }
    }
    let dims = &mut buf[..m];
    dims.sort_unstable();
    if span_test(dims) {
        return Overlap::None;
    }
    match Search::new(dims) {
        Some(mut search) => search.run(),
        None => Overlap::Overlaps,
    }
}

/// The fast path: with `dims` sorted by stride, whether each stride exceeds everything the
/// smaller dims span. `false` also on overflow (which a valid layout never reaches).
fn span_test(dims: &[(usize, usize)]) -> bool {
    let mut span = 0usize;
    for &(s, n) in dims {
        if s <= span {
            return false;
        }
        match (n - 1).checked_mul(s).and_then(|x| x.checked_add(span)) {
            Some(x) => span = x,
            None => return false,
        }
    }
    true
}

/// Greatest common divisor (`gcd(0, b) == b`) of non-negative numbers.
fn gcd(mut a: i128, mut b: i128) -> i128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The inverse of `a` modulo `m`, for `gcd(a, m) == 1` and `m >= 1` (0 when `m == 1`).
fn inverse_mod(a: i128, m: i128) -> i128 {
    // Extended Euclid on (a mod m, m), tracking only the coefficient of `a`.
    let (mut r0, mut r1) = (a.rem_euclid(m), m);
    let (mut x0, mut x1) = (1i128, 0i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (x0, x1) = (x1, x0 - q * x1);
    }
    // |x0| <= m here, so this cannot overflow.
    x0.rem_euclid(m)
}

/// The exact search of the [note](self), over dims sorted by decreasing stride.
///
/// All values fit easily in `i128`: strides, bounds and spans are below `2^63`, targets stay
/// within a span, and the only products are of two such numbers (below `2^126`).
struct Search {
    /// One entry per dim, strides decreasing, distinct and positive.
    levels: Vec<Level>,
    /// Choices tried so far.
    work: u32,
}

/// What the search needs to know about dim `k` and the dims after it.
struct Level {
    /// The stride `s_k`.
    s: i128,
    /// The bound `n_k - 1 >= 1` on `|z_k|`.
    u: i128,
    /// The span of the later dims: `sum((n_d - 1) * s_d)` over `d > k`.
    rest: i128,
    /// `gcd(s_k, s_(k+1), ..)`.
    g: i128,
    /// `gcd(s_(k+1), ..) / g`: the step between the choices of `z_k` that leave a target the later
    /// strides' gcd divides (1 for the last dim).
    period: i128,
    /// The inverse of `s_k / g` modulo `period`.
    inv: i128,
}

impl Search {
    /// Merges and sorts `dims` (`(|stride|, size)`, sizes > 1, strides > 0); `None` if two
    /// dims share a stride (an overlap).
    fn new(dims: &[(usize, usize)]) -> Option<Search> {
        let mut d: Vec<(i128, i128)> = dims.iter().map(|&(s, n)| (s as i128, n as i128)).collect();
        // Merge (s_b, n_b) with (s_b * n_b, n_a) into (s_b, n_b * n_a). The product of sizes is
        // at most numel, a stride times a size below 2^126.
        'merge: loop {
            for b in 0..d.len() {
                let outer = d[b].0 * d[b].1;
                if let Some(a) = (0..d.len()).find(|&a| a != b && d[a].0 == outer) {
                    d[b].1 *= d[a].1;
                    d.remove(a);
                    continue 'merge;
                }
            }
            break;
        }
        d.sort_unstable_by(|x, y| y.cmp(x));
        if d.windows(2).any(|w| w[0].0 == w[1].0) {
            return None;
        }
        let mut levels = Vec::with_capacity(d.len());
        let (mut rest, mut g_after) = (0i128, 0i128);
        for &(s, n) in d.iter().rev() {
            let g = gcd(s, g_after);
            let period = if g_after == 0 { 1 } else { g_after / g };
            levels.push(Level {
                s,
                u: n - 1,
                rest,
                g,
                period,
                inv: inverse_mod(s / g, period),
            });
            rest += s * (n - 1);
            g_after = g;
        }
        levels.reverse();
        Some(Search { levels, work: 0 })
    }

    /// Counts one choice; `false` once the bound is passed.
    fn tick(&mut self) -> bool {
        self.work += 1;
        self.work <= WORK_BOUND
    }

    /// Tries every position `k` for the first non-zero `z_k` (taken positive by symmetry).
    fn run(&mut self) -> Overlap {
        let m = self.levels.len();
        for k in 0..m.saturating_sub(1) {
            // z_k in 1..=hi with s_k * z_k reachable by, and divisible like, the later dims:
            // with t == 0 the congruence says z_k is a multiple of the period.
            let Level {
                s,
                u,
                rest,
                period: p,
                ..
            } = self.levels[k];
            let hi = u.min(rest / s);
            if k + 2 == m {
                if p <= hi {
                    return Overlap::Overlaps;
                }
                continue;
            }
            let mut z = p;
            while z <= hi {
                if !self.tick() {
                    return Overlap::Undecided;
                }
                match self.solve(k + 1, s * z) {
                    Some(true) => return Overlap::Overlaps,
                    Some(false) => {}
                    None => return Overlap::Undecided,
                }
                z += p;
            }
        }
        Overlap::None
    }

    /// Whether dims `k..` can sum to `t` (`sum(s_d * z_d) == t`, `|z_d| <= u_d`); `None` past
    /// the bound. Requires `0 <= t <= s_k * u_k + rest` and `g | t`, which make the last dim
    /// exact.
    fn solve(&mut self, k: usize, t: i128) -> Option<bool> {
        let m = self.levels.len();
        if k + 1 == m {
            return Some(true);
        }
        let Level {
            s,
            u,
            rest,
            g,
            period: p,
            inv,
        } = self.levels[k];
        // z with |t - s z| <= rest, |z| <= u ...
        let lo = (-u).max(-(rest - t).div_euclid(s));
        let hi = u.min((t + rest).div_euclid(s));
        // ... and s z == t modulo the later strides' gcd, g * p: z == r modulo p.
        let r = (t / g).rem_euclid(p) * inv % p;
        let mut z = lo + (r - lo).rem_euclid(p);
        if k + 2 == m {
            // The last dim takes whatever such a z leaves.
            return Some(z <= hi);
        }
        while z <= hi {
            if !self.tick() {
                return None;
            }
            if self.solve(k + 1, (t - s * z).abs())? {
                return Some(true);
            }
            z += p;
        }
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layout with these shape and strides, its offset just large enough for negative strides.
    fn layout(shape: &[usize], strides: &[isize]) -> Layout {
        let offset: usize = shape
            .iter()
            .zip(strides)
            .filter(|&(&n, &s)| n > 0 && s < 0)
            .map(|(&n, &s)| (n - 1) * s.unsigned_abs())
            .sum();
        Layout::new(shape, strides, offset).unwrap()
    }

    /// The truth, by enumerating every index.
    fn brute_force(l: &Layout) -> Overlap {
        if l.numel() == 0 {
            return Overlap::None;
        }
        let (shape, strides) = (l.shape(), l.strides());
        let mut offsets = Vec::with_capacity(l.numel());
        let mut idx = vec![0usize; l.ndim()];
        // An odometer over the indices, keeping the offset (relative to `l.offset()`) in step.
        let mut off = 0isize;
        'odometer: loop {
            offsets.push(off);
            let mut d = l.ndim();
            loop {
                if d == 0 {
                    break 'odometer;
                }
                d -= 1;
                idx[d] += 1;
                off += strides[d];
                if idx[d] < shape[d] {
                    break;
                }
                off -= strides[d] * shape[d] as isize;
                idx[d] = 0;
            }
        }
        offsets.sort_unstable();
        if offsets.windows(2).any(|w| w[0] == w[1]) {
            Overlap::Overlaps
        } else {
            Overlap::None
        }
    }

    /// A layout whose search needs more than [`WORK_BOUND`] choices: strides `[q, p, 1]`, sizes
    /// `[n0, n1, 2]`, with `q^-1 == (p + 1) / 2 (mod p)`. Overlaps need `q z0` within 1 of a
    /// multiple of `p`, so `z0 == 0, ±q^-1 (mod p)`, all beyond `n0`: it does not overlap, but
    /// the search tries every `z0` up to `n0 - 1`.
    fn beyond_bound() -> Layout {
        let p: i128 = 1_000_003;
        let q = inverse_mod((p + 1) / 2, p) + p;
        let n0 = 4 * WORK_BOUND as usize;
        Layout::new(&[n0, 3 * n0, 2], &[q as isize, p as isize, 1], 0).unwrap()
    }

    #[test]
    fn table() {
        use Overlap::{None as No, Overlaps as Yes};
        #[rustfmt::skip]
        let cases: &[(&[usize], &[isize], Overlap)] = &[
            (&[], &[], No),                           // 0-d
            (&[0, 3], &[0, 0], No),                   // empty
            (&[3, 0], &[1, 1], No),
            (&[1, 1], &[0, 0], No),                   // one element
            (&[5], &[0], Yes),                        // stride 0
            (&[1, 5], &[0, 1], No),                   // stride 0 on a size-1 dim
            (&[3, 4], &[4, 1], No),                   // contiguous
            (&[4, 3], &[1, 4], No),                   // transposed
            (&[3, 2], &[2, 3], No),                   // 0, 3, 2, 5, 4, 7: the span test refuses
            (&[3, 2], &[-2, 3], No),                  // negative strides
            (&[3, 2], &[2, -3], No),
            (&[2, 3], &[3, 2], No),
            (&[3, 3], &[2, 3], No),                   // 3 * 2 == 2 * 3 needs |z_0| == 3
            (&[4, 4], &[2, 3], Yes),
            (&[2, 2], &[1, 1], Yes),                  // equal strides
            (&[2, 2], &[-1, 1], Yes),
            (&[4, 3], &[1, 1], Yes),
            (&[4, 3], &[1, 2], Yes),                  // 2 * 1 == 1 * 2
            (&[2, 3, 4], &[12, 4, 1], No),            // merges to one dim
            (&[2, 3, 4], &[-12, 4, -1], No),
            (&[2, 3, 4], &[1, 2, 6], No),             // merges to one dim of stride 1
            (&[2, 3, 4], &[1, 2, 5], Yes),
            (&[5, 2], &[1, 5], No),                   // merge: the span test would pass too
            (&[31, 10], &[3, 1], Yes),                // unfold with step < size
            (&[3, 3], &[3, 1], No),                   // unfold with step == size
            (&[2, 2, 2], &[3, 5, 7], No),             // 3 + 5 == 8 != 7; 0..=15 all distinct
            (&[2, 2, 2], &[3, 4, 7], Yes),            // 3 + 4 == 7
            (&[3, 2, 2], &[2, 3, 5], Yes),            // 2 + 3 == 5
            (&[2, 3, 2], &[4, 6, 9], No),
            (&[2, 3, 3], &[4, 6, 9], No),
            (&[2, 4, 3], &[4, 6, 9], Yes),            // 6 * 3 == 9 * 2
            (&[3, 3, 3, 3], &[9, 10, 11, 12], Yes),   // 9 + 12 == 10 + 11
        ];
        for &(shape, strides, want) in cases {
            let l = layout(shape, strides);
            assert_eq!(
                brute_force(&l),
                want,
                "brute force disagrees with the table: {l:?}"
            );
            assert_eq!(l.overlap(), want, "{l:?}");
            assert_eq!(l.is_non_overlapping(), want == No, "{l:?}");
        }
    }

    #[test]
    fn the_bound_gives_undecided_and_refuses() {
        let l = beyond_bound();
        assert_eq!(l.overlap(), Overlap::Undecided, "{l:?}");
        assert!(!l.is_non_overlapping());
        // With n0 below the first solution but the search still within the bound, it decides.
        let small = Layout::new(&[100, 300, 2], l.strides(), 0).unwrap();
        assert_eq!(small.overlap(), Overlap::None);
    }

    #[test]
    fn large_two_dim_layouts_are_decided_at_once() {
        // Two dims never search: huge sizes, strides sharing a factor.
        let l = Layout::new(&[1 << 20, 1 << 20], &[(1 << 20) + 2, 1 << 21], 0).unwrap();
        assert_eq!(l.overlap(), Overlap::None); // needs |z_0| == 2^20
        let l = Layout::new(&[1 << 20, 1 << 20], &[3 << 10, 1 << 11], 0).unwrap();
        assert_eq!(l.overlap(), Overlap::Overlaps); // 2 * 3072 == 3 * 2048
        let l = Layout::new(&[1 << 20, 3], &[3 << 20, 1 << 21], 0).unwrap();
        assert_eq!(l.overlap(), Overlap::None); // needs |z_1| == 3
        let l = Layout::new(&[1 << 20, 2], &[3, 1 << 21], 0).unwrap();
        assert_eq!(l.overlap(), Overlap::None);
    }

    #[test]
    fn many_dims_spill_to_the_heap() {
        let l = Layout::contiguous(&[2; 12]).unwrap();
        assert_eq!(l.overlap(), Overlap::None);
        let l = l.transpose(0, 11).unwrap();
        assert_eq!(l.overlap(), Overlap::None);
        let mut strides = l.strides().to_vec();
        strides[3] = strides[4];
        let bad = Layout::new(l.shape(), &strides, 0).unwrap();
        assert_eq!(bad.overlap(), Overlap::Overlaps);
    }

    /// Every shape with `ndim` dims of sizes in `sizes` and strides in `strides`.
    fn grid(
        ndim: usize,
        sizes: &[usize],
        strides: &[isize],
        mut f: impl FnMut(&[usize], &[isize]),
    ) {
        let mut shape = vec![0; ndim];
        let mut st = vec![0; ndim];
        let count = (sizes.len() * strides.len()).pow(ndim as u32);
        for mut code in 0..count {
            for d in 0..ndim {
                shape[d] = sizes[code % sizes.len()];
                code /= sizes.len();
                st[d] = strides[code % strides.len()];
                code /= strides.len();
            }
            f(&shape, &st);
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "50K brute-force layouts: minutes under Miri")]
    fn small_layouts_are_decided_exactly() {
        let mut checked = 0usize;
        let mut check = |shape: &[usize], strides: &[isize]| {
            let l = layout(shape, strides);
            assert_eq!(l.overlap(), brute_force(&l), "{l:?}");
            checked += 1;
        };
        let signed: Vec<isize> = (-4..=4).collect();
        for ndim in 0..=3 {
            grid(ndim, &[0, 1, 2, 3, 4], &signed, &mut check);
        }
        // Signs never matter (tested above), so larger ranks use positive strides.
        grid(4, &[2, 3], &[0, 1, 2, 3, 4, 5], &mut check);
        grid(5, &[2, 3], &[1, 3, 4, 7], &mut check);
        assert!(checked > 50_000);
    }
}
