//! Shared pieces of the property tests: an independent reference model of strided views, the
//! random view-op chains, and the strategies that generate them.
//!
//! The model never looks at strides after construction: a view is the explicit list of the
//! storage offsets of its elements in row-major order (plus its shape), and every view op is
//! implemented on that list by plain index manipulation. The code under test is only ever
//! compared against it.
#![allow(dead_code)]

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use stridex::{Element, Error, Layout, Tensor};

/// Proptest configuration: `PROPTEST_CASES` if set, otherwise `default_cases` (kept small so the
/// suite stays fast in debug builds). No regression files are written into the source tree.
pub fn config(default_cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(default_cases);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

pub type TestResult = Result<(), TestCaseError>;

// ---------------------------------------------------------------------------------------------
// Index arithmetic
// ---------------------------------------------------------------------------------------------

/// The true element count (a product with a zero is zero, whatever the other sizes), or `None`
/// if it exceeds `isize::MAX`.
pub fn true_numel(shape: &[usize]) -> Option<usize> {
    // Every size must fit in isize (Layout invariant 2), whatever the count.
    if shape.iter().any(|&d| d > isize::MAX as usize) {
        return None;
    }
    if shape.contains(&0) {
        return Some(0);
    }
    let mut p: u128 = 1;
    for &d in shape {
        p = p.checked_mul(d as u128)?;
        if p > isize::MAX as u128 {
            return None;
        }
    }
    Some(p as usize)
}

/// Every multi-index of `shape`, in row-major order (last index fastest).
pub fn all_indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n = true_numel(shape).expect("small shape");
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return out;
    }
    let mut idx = vec![0usize; shape.len()];
    loop {
        out.push(idx.clone());
        let mut d = shape.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Row-major flat position of `idx` in `shape`.
pub fn ravel(idx: &[usize], shape: &[usize]) -> usize {
    assert_eq!(idx.len(), shape.len());
    idx.iter().zip(shape).fold(0, |acc, (&i, &d)| {
        assert!(i < d);
        acc * d + i
    })
}

// ---------------------------------------------------------------------------------------------
// Error kinds
// ---------------------------------------------------------------------------------------------

/// The variant name of an error, so the model can say which errors are acceptable.
pub fn kind(e: &Error) -> &'static str {
    match e {
        Error::DimOutOfRange { .. } => "DimOutOfRange",
        Error::IndexOutOfRange { .. } => "IndexOutOfRange",
        Error::IndexRank { .. } => "IndexRank",
        Error::RangeOutOfBounds { .. } => "RangeOutOfBounds",
        Error::ZeroStep { .. } => "ZeroStep",
        Error::WindowTooLarge { .. } => "WindowTooLarge",
        Error::NotAPermutation { .. } => "NotAPermutation",
        Error::DuplicateDim { .. } => "DuplicateDim",
        Error::SqueezeNonUnit { .. } => "SqueezeNonUnit",
        Error::NumelMismatch { .. } => "NumelMismatch",
        Error::ViewNotPossible { .. } => "ViewNotPossible",
        Error::ExpandMismatch { .. } => "ExpandMismatch",
        Error::BroadcastMismatch { .. } => "BroadcastMismatch",
        Error::RankMismatch { .. } => "RankMismatch",
        Error::Overflow { .. } => "Overflow",
        Error::NegativeOffset { .. } => "NegativeOffset",
        Error::OutOfBounds { .. } => "OutOfBounds",
        Error::Alloc { .. } => "Alloc",
        _ => "Other",
    }
}

/// Why the model rejects an op: every error kind that the arguments justify.
pub type Reasons = Vec<&'static str>;

/// Model of `Layout::new`'s checks (the documented invariants), computed on the true element
/// count and exact (i128) offsets.
pub fn layout_new_model(shape: &[usize], strides: &[isize], offset: usize) -> Result<(), Reasons> {
    if shape.len() != strides.len() {
        return Err(vec!["RankMismatch"]);
    }
    let numel = true_numel(shape).ok_or_else(|| vec!["Overflow"])?;
    if offset > isize::MAX as usize {
        return Err(vec!["Overflow"]);
    }
    if numel == 0 {
        return Ok(());
    }
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&d, &s) in shape.iter().zip(strides) {
        let span = (d as i128 - 1)
            .checked_mul(s as i128)
            .ok_or_else(|| vec!["Overflow"])?;
        if span < 0 {
            lo = lo.checked_add(span).ok_or_else(|| vec!["NegativeOffset"])?;
        } else {
            hi = hi.checked_add(span).ok_or_else(|| vec!["Overflow"])?;
        }
    }
    match (lo < 0, hi > isize::MAX as i128) {
        (true, true) => Err(vec!["NegativeOffset", "Overflow"]),
        (true, false) => Err(vec!["NegativeOffset"]),
        (false, true) => Err(vec!["Overflow"]),
        (false, false) => Ok(()),
    }
}

/// (lo, hi) of a valid layout's offsets computed from its parts in i128, without enumerating;
/// `None` if it is empty.
pub fn extent(shape: &[usize], strides: &[isize], offset: usize) -> Option<(i128, i128)> {
    if shape.contains(&0) {
        return None;
    }
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&d, &s) in shape.iter().zip(strides) {
        let span = (d as i128 - 1) * s as i128;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    Some((lo, hi))
}

// ---------------------------------------------------------------------------------------------
// The reference model
// ---------------------------------------------------------------------------------------------

/// A view as an explicit map from each row-major multi-index to its storage offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    pub shape: Vec<usize>,
    /// Storage offset of every element, in row-major order of `shape`.
    pub offs: Vec<i128>,
}

pub type MResult = Result<Model, Reasons>;

impl Model {
    /// The model of a shape/strides/offset triple, by enumerating every index.
    pub fn strided(shape: &[usize], strides: &[isize], offset: usize) -> Model {
        let offs = all_indices(shape)
            .iter()
            .map(|idx| {
                idx.iter()
                    .zip(strides)
                    .fold(offset as i128, |acc, (&i, &s)| acc + i as i128 * s as i128)
            })
            .collect();
        Model {
            shape: shape.to_vec(),
            offs,
        }
    }

    pub fn numel(&self) -> usize {
        self.offs.len()
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// A new view of `shape` whose element `idx` is this view's element `map(idx)`.
    fn gather(&self, shape: Vec<usize>, map: impl Fn(&[usize]) -> Vec<usize>) -> Model {
        let offs = all_indices(&shape)
            .iter()
            .map(|idx| self.offs[ravel(&map(idx), &self.shape)])
            .collect();
        Model { shape, offs }
    }

    /// (min, max) storage offset, `None` if empty.
    pub fn range(&self) -> Option<(i128, i128)> {
        let lo = *self.offs.iter().min()?;
        let hi = *self.offs.iter().max()?;
        Some((lo, hi))
    }

    /// Row-major with no gaps: offsets are `o, o + 1, o + 2, ...`.
    pub fn is_contiguous(&self) -> bool {
        self.offs
            .iter()
            .enumerate()
            .all(|(i, &o)| o == self.offs[0] + i as i128)
    }

    /// The offset step of moving one along `dim` (from the first element), if that dim has >= 2
    /// elements and the view is non-empty.
    pub fn step(&self, dim: usize) -> Option<i128> {
        if self.numel() == 0 || self.shape[dim] < 2 {
            return None;
        }
        let mut e = vec![0; self.ndim()];
        e[dim] = 1;
        Some(self.offs[ravel(&e, &self.shape)] - self.offs[0])
    }

    /// Non-overlapping and dense (a permuted contiguous layout): the offsets are `numel`
    /// distinct consecutive integers, and every dim of size > 1 steps forward (positive stride).
    pub fn is_non_overlapping_and_dense(&self) -> bool {
        if self.numel() == 0 {
            return true;
        }
        let mut sorted = self.offs.clone();
        sorted.sort_unstable();
        let consecutive = sorted.windows(2).all(|w| w[1] == w[0] + 1);
        let forward = (0..self.ndim()).all(|d| self.step(d).is_none_or(|s| s > 0));
        consecutive && forward
    }

    fn dim_ok(&self, d: usize) -> bool {
        d < self.ndim()
    }

    /// Applies a (resolved) view op. `Err` lists every error kind the arguments justify.
    pub fn apply(&self, op: &Op) -> MResult {
        let n = self.ndim();
        let res = match op {
            Op::Transpose(d0, d1) => {
                let (d0, d1) = (*d0, *d1);
                if !self.dim_ok(d0) || !self.dim_ok(d1) {
                    return Err(vec!["DimOutOfRange"]);
                }
                let mut shape = self.shape.clone();
                shape.swap(d0, d1);
                self.gather(shape, |i| {
                    let mut o = i.to_vec();
                    o.swap(d0, d1);
                    o
                })
            }
            Op::T => match n {
                0 | 1 => self.clone(),
                2 => return self.apply(&Op::Transpose(0, 1)),
                _ => return Err(vec!["RankMismatch"]),
            },
            Op::Permute(p) => {
                let mut sorted = p.clone();
                sorted.sort_unstable();
                if sorted != (0..n).collect::<Vec<_>>() {
                    return Err(vec!["NotAPermutation"]);
                }
                let shape = p.iter().map(|&d| self.shape[d]).collect();
                self.gather(shape, |i| {
                    let mut o = vec![0; n];
                    for (k, &d) in p.iter().enumerate() {
                        o[d] = i[k];
                    }
                    o
                })
            }
            Op::Narrow(dim, start, len) => {
                let (dim, start, len) = (*dim, *start, *len);
                if !self.dim_ok(dim) {
                    return Err(vec!["DimOutOfRange"]);
                }
                if start as u128 + len as u128 > self.shape[dim] as u128 {
                    return Err(vec!["RangeOutOfBounds"]);
                }
                let mut shape = self.shape.clone();
                shape[dim] = len;
                self.gather(shape, |i| {
                    let mut o = i.to_vec();
                    o[dim] += start;
                    o
                })
            }
            Op::Slice(dim, start, end, step) => {
                let dim = *dim;
                let mut why = vec![];
                if !self.dim_ok(dim) {
                    why.push("DimOutOfRange");
                }
                if *step == 0 {
                    why.push("ZeroStep");
                }
                if !why.is_empty() {
                    return Err(why);
                }
                let picks = python_slice(self.shape[dim], *start, *end, *step);
                let mut shape = self.shape.clone();
                shape[dim] = picks.len();
                self.gather(shape, |i| {
                    let mut o = i.to_vec();
                    o[dim] = picks[i[dim]];
                    o
                })
            }
            Op::Select(dim, index) => {
                let (dim, index) = (*dim, *index);
                if !self.dim_ok(dim) {
                    return Err(vec!["DimOutOfRange"]);
                }
                if index >= self.shape[dim] {
                    return Err(vec!["IndexOutOfRange"]);
                }
                let mut shape = self.shape.clone();
                shape.remove(dim);
                self.gather(shape, |i| {
                    let mut o = i.to_vec();
                    o.insert(dim, index);
                    o
                })
            }
            Op::Squeeze(dim) => {
                let dim = *dim;
                if !self.dim_ok(dim) {
                    return Err(vec!["DimOutOfRange"]);
                }
                if self.shape[dim] != 1 {
                    return Err(vec!["SqueezeNonUnit"]);
                }
                let mut shape = self.shape.clone();
                shape.remove(dim);
                self.gather(shape, |i| {
                    let mut o = i.to_vec();
                    o.insert(dim, 0);
                    o
                })
            }
            Op::SqueezeAll => {
                let shape = self.shape.iter().copied().filter(|&d| d != 1).collect();
                self.gather(shape, |i| {
                    let mut it = i.iter();
                    self.shape
                        .iter()
                        .map(|&d| if d == 1 { 0 } else { *it.next().unwrap() })
                        .collect()
                })
            }
            Op::Unsqueeze(dim) => {
                let dim = *dim;
                if dim > n {
                    return Err(vec!["DimOutOfRange"]);
                }
                let mut shape = self.shape.clone();
                shape.insert(dim, 1);
                self.gather(shape, |i| {
                    let mut o = i.to_vec();
                    o.remove(dim);
                    o
                })
            }
            Op::Expand(target) => {
                if target.len() < n {
                    return Err(vec!["RankMismatch"]);
                }
                let pad = target.len() - n;
                for d in 0..n {
                    if self.shape[d] != target[pad + d] && self.shape[d] != 1 {
                        return Err(vec!["ExpandMismatch"]);
                    }
                }
                if true_numel(target).is_none() {
                    return Err(vec!["Overflow"]);
                }
                self.gather(target.clone(), |i| {
                    (0..n)
                        .map(|d| if self.shape[d] == 1 { 0 } else { i[pad + d] })
                        .collect()
                })
            }
            Op::Flip(dim) => {
                let dim = *dim;
                // A 0-dim view takes dim 0 as a dim of one element: its own flip (PyTorch).
                if self.ndim() == 0 && dim == 0 {
                    return Ok(self.clone());
                }
                if !self.dim_ok(dim) {
                    return Err(vec!["DimOutOfRange"]);
                }
                let size = self.shape[dim];
                self.gather(self.shape.clone(), |i| {
                    let mut o = i.to_vec();
                    o[dim] = size - 1 - i[dim];
                    o
                })
            }
            Op::Unfold(dim, size, step) => {
                let (dim, size, step) = (*dim, *size, *step);
                // A 0-dim view takes dim 0 as a dim of one element, and gives the window alone:
                // `size` (0 or 1) copies of its element (PyTorch).
                if self.ndim() == 0 && dim == 0 {
                    let mut why = vec![];
                    if step == 0 {
                        why.push("ZeroStep");
                    }
                    if size > 1 {
                        why.push("WindowTooLarge");
                    }
                    if !why.is_empty() {
                        return Err(why);
                    }
                    return Ok(Model {
                        shape: vec![size],
                        offs: vec![self.offs[0]; size],
                    });
                }
                let mut why = vec![];
                if !self.dim_ok(dim) {
                    why.push("DimOutOfRange");
                }
                if step == 0 {
                    why.push("ZeroStep");
                }
                if self.dim_ok(dim) && size > self.shape[dim] {
                    why.push("WindowTooLarge");
                }
                if !why.is_empty() {
                    return Err(why);
                }
                // Windows w = 0, 1, .. while the window [w * step, w * step + size) fits.
                let dim_size = self.shape[dim] as u128;
                let mut windows = 0usize;
                while windows as u128 * step as u128 + size as u128 <= dim_size {
                    windows += 1;
                }
                let mut shape = self.shape.clone();
                shape[dim] = windows;
                shape.push(size);
                self.gather(shape, |i| {
                    let mut o = i[..n].to_vec();
                    o[dim] = i[dim] * step + i[n];
                    o
                })
            }
            Op::Diagonal => return self.apply(&Op::DiagonalWith(0, 0, 1)),
            Op::DiagonalWith(k, d1, d2) => {
                let (k, d1, d2) = (*k as i128, *d1, *d2);
                if !self.dim_ok(d1) || !self.dim_ok(d2) {
                    return Err(vec!["DimOutOfRange"]);
                }
                if d1 == d2 {
                    return Err(vec!["DuplicateDim"]);
                }
                // Every (row, col) with col - row == k, in order of row.
                let cols = self.shape[d2] as i128;
                let pairs: Vec<(usize, usize)> = (0..self.shape[d1])
                    .filter_map(|r| {
                        let c = r as i128 + k;
                        (0..cols).contains(&c).then_some((r, c as usize))
                    })
                    .collect();
                let others: Vec<usize> = (0..n).filter(|&d| d != d1 && d != d2).collect();
                let mut shape: Vec<usize> = others.iter().map(|&d| self.shape[d]).collect();
                shape.push(pairs.len());
                self.gather(shape, |i| {
                    let mut o = vec![0; n];
                    for (k, &d) in others.iter().enumerate() {
                        o[d] = i[k];
                    }
                    let (r, c) = pairs[i[others.len()]];
                    o[d1] = r;
                    o[d2] = c;
                    o
                })
            }
            Op::AsStrided(shape, strides, offset) => {
                layout_new_model(shape, strides, *offset)?;
                Model::strided(shape, strides, *offset)
            }
            Op::View(shape) => return self.view(shape),
        };
        Ok(res)
    }

    /// `view` by brute force: the candidate stride of each dim of size >= 2 is the offset step of
    /// its unit vector in the row-major list; then every element is checked.
    pub fn view(&self, shape: &[usize]) -> MResult {
        if true_numel(shape) != Some(self.numel()) {
            return Err(vec!["NumelMismatch"]);
        }
        if self.numel() == 0 {
            // A new empty shape gets row-major strides, which must fit in isize.
            if shape != self.shape.as_slice() && row_major_overflows(shape) {
                return Err(vec!["Overflow"]);
            }
            return Ok(Model {
                shape: shape.to_vec(),
                offs: vec![],
            });
        }
        let base = self.offs[0];
        let cand: Vec<i128> = (0..shape.len())
            .map(|d| {
                if shape[d] < 2 {
                    return 0;
                }
                let mut e = vec![0; shape.len()];
                e[d] = 1;
                self.offs[ravel(&e, shape)] - base
            })
            .collect();
        let ok = all_indices(shape).iter().enumerate().all(|(flat, idx)| {
            let o = idx
                .iter()
                .zip(&cand)
                .map(|(&i, &c)| i as i128 * c)
                .sum::<i128>()
                + base;
            o == self.offs[flat]
        });
        if ok {
            Ok(Model {
                shape: shape.to_vec(),
                offs: self.offs.clone(),
            })
        } else {
            Err(vec!["ViewNotPossible"])
        }
    }
}

/// The indices Python's `range(n)[start:end:step]` selects (NumPy basic slicing), by walking.
pub fn python_slice(n: usize, start: isize, end: isize, step: isize) -> Vec<usize> {
    assert!(step != 0);
    let (n, start, end, step) = (n as i128, start as i128, end as i128, step as i128);
    let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let adjust = |x: i128| if x < 0 { (x + n).max(lo) } else { x.min(hi) };
    let (s, e) = (adjust(start), adjust(end));
    let mut out = vec![];
    let mut i = s;
    while (step > 0 && i < e) || (step < 0 && i > e) {
        out.push(i as usize);
        i += step;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// View ops: resolved ops, random generators, and application to Layout / Tensor
// ---------------------------------------------------------------------------------------------

/// A view op with concrete arguments.
#[derive(Clone, Debug)]
pub enum Op {
    Transpose(usize, usize),
    T,
    Permute(Vec<usize>),
    Narrow(usize, usize, usize),
    Slice(usize, isize, isize, isize),
    Select(usize, usize),
    Squeeze(usize),
    SqueezeAll,
    Unsqueeze(usize),
    Expand(Vec<usize>),
    Flip(usize),
    Unfold(usize, usize, usize),
    Diagonal,
    DiagonalWith(isize, usize, usize),
    AsStrided(Vec<usize>, Vec<isize>, usize),
    View(Vec<usize>),
}

/// A generated op: either concrete, or a seed turned into arguments that fit the current shape
/// (so that permutations, expansions and views are valid often enough to matter).
#[derive(Clone, Debug)]
pub enum OpGen {
    Fixed(Op),
    Permute(Vec<u8>),
    Expand(Vec<u8>),
    View(Vec<u8>),
}

/// Cycles through seed bytes (0 forever if there are none).
pub struct Bytes<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Bytes { b, i: 0 }
    }
    pub fn next(&mut self) -> u8 {
        if self.b.is_empty() {
            return 0;
        }
        let v = self.b[self.i % self.b.len()];
        self.i += 1;
        v
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { self.next() as usize % n }
    }
}

fn prime_factors(mut n: usize) -> Vec<usize> {
    let mut out = vec![];
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            out.push(p);
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        out.push(n);
    }
    out
}

/// A new shape for viewing a layout of shape `cur` (with `numel` elements): usually the same
/// element count, obtained by merging, splitting and inserting/removing size-1 dims of `cur` or
/// by a random factorisation; sometimes a different count.
pub fn shape_from_seed(cur: &[usize], numel: usize, seed: &[u8]) -> Vec<usize> {
    let mut b = Bytes::new(seed);
    match b.below(8) {
        // Perturb the current shape.
        0..=3 => {
            let mut s = cur.to_vec();
            let steps = 1 + b.below(4);
            for _ in 0..steps {
                match b.below(4) {
                    0 if s.len() >= 2 => {
                        let d = b.below(s.len() - 1);
                        let m = s[d].saturating_mul(s[d + 1]);
                        s.splice(d..d + 2, [m]);
                    }
                    1 if !s.is_empty() => {
                        let d = b.below(s.len());
                        let divs: Vec<usize> =
                            (2..s[d].min(10_000)).filter(|f| s[d] % f == 0).collect();
                        if divs.is_empty() {
                            s.insert(d + b.below(2), 1);
                        } else {
                            let f = divs[b.below(divs.len())];
                            s.splice(d..d + 1, [f, s[d] / f]);
                        }
                    }
                    2 => {
                        let at = b.below(s.len() + 1);
                        s.insert(at, 1);
                    }
                    _ => {
                        if let Some(p) = s.iter().position(|&d| d == 1) {
                            s.remove(p);
                        }
                    }
                }
            }
            s
        }
        // A random factorisation of the element count.
        4..=6 => {
            if numel == 0 {
                let mut s: Vec<usize> = (0..b.below(4)).map(|_| b.below(4)).collect();
                let at = b.below(s.len() + 1);
                s.insert(at, 0);
                return s;
            }
            if numel > 1_000_000 {
                return vec![numel];
            }
            let mut factors = prime_factors(numel);
            // Shuffle, then group runs into dims and sprinkle in size-1 dims.
            for i in (1..factors.len()).rev() {
                factors.swap(i, b.below(i + 1));
            }
            let mut s = vec![];
            let mut acc = 1;
            for f in factors {
                acc *= f;
                if b.below(2) == 0 {
                    s.push(acc);
                    acc = 1;
                }
                if b.below(5) == 0 {
                    s.push(1);
                }
            }
            if acc > 1 || s.is_empty() && b.below(2) == 0 {
                s.push(acc);
            }
            s
        }
        // A different element count (or, rarely, the same by coincidence).
        _ => {
            let mut s = cur.to_vec();
            if s.is_empty() || b.below(3) == 0 {
                s.push(2 + b.below(2));
            } else {
                let d = b.below(s.len());
                s[d] = s[d].wrapping_add(1);
            }
            s
        }
    }
}

impl OpGen {
    /// Concrete arguments for the current shape.
    pub fn resolve(&self, shape: &[usize]) -> Op {
        let n = shape.len();
        match self {
            OpGen::Fixed(op) => match op.clone() {
                Op::Transpose(a, b) => Op::Transpose(rel(a, n), rel(b, n)),
                Op::Narrow(d, s, l) => Op::Narrow(rel(d, n), s, l),
                Op::Slice(d, s, e, st) => Op::Slice(rel(d, n), s, e, st),
                Op::Select(d, i) => Op::Select(rel(d, n), i),
                Op::Squeeze(d) => Op::Squeeze(rel(d, n)),
                Op::Unsqueeze(d) => Op::Unsqueeze(rel(d, n + 1)),
                Op::Flip(d) => Op::Flip(rel(d, n)),
                Op::Unfold(d, s, st) => Op::Unfold(rel(d, n), s, st),
                Op::DiagonalWith(k, a, b) => Op::DiagonalWith(k, rel(a, n), rel(b, n)),
                op => op,
            },
            OpGen::Permute(seed) => {
                let mut b = Bytes::new(seed);
                let mut p: Vec<usize> = (0..n).collect();
                for i in (1..n).rev() {
                    p.swap(i, b.below(i + 1));
                }
                match b.below(10) {
                    0 => p.push(n),
                    1 if n >= 2 => p[0] = p[1],
                    2 => {
                        p.pop();
                    }
                    _ => {}
                }
                Op::Permute(p)
            }
            OpGen::Expand(seed) => {
                let mut b = Bytes::new(seed);
                let mut t: Vec<usize> = (0..b.below(3))
                    .map(|_| [1, 2, 3, 2, 0][b.below(5)])
                    .collect();
                for &d in shape {
                    t.push(match (d, b.below(10)) {
                        (1, k) => [1, 2, 3, 1, 2, 3, 0][k % 7],
                        (d, 0) => d.wrapping_add(1),
                        (d, _) => d,
                    });
                }
                if b.below(12) == 0 && !t.is_empty() {
                    t.remove(b.below(t.len()));
                }
                // Keep the model cheap: never expand to more than a few thousand elements.
                if true_numel(&t).is_none_or(|m| m > 3000) {
                    t = shape.to_vec();
                }
                Op::Expand(t)
            }
            OpGen::View(seed) => {
                let numel = true_numel(shape).unwrap_or(0);
                Op::View(shape_from_seed(shape, numel, seed))
            }
        }
    }
}

pub fn apply_layout(l: &Layout, op: &Op) -> Result<Layout, Error> {
    match op {
        Op::Transpose(a, b) => l.transpose(*a, *b),
        Op::T => l.t(),
        Op::Permute(p) => l.permute(p),
        Op::Narrow(d, s, n) => l.narrow(*d, *s, *n),
        Op::Slice(d, s, e, st) => l.slice(*d, *s, *e, *st),
        Op::Select(d, i) => l.select(*d, *i),
        Op::Squeeze(d) => l.squeeze(*d),
        Op::SqueezeAll => Ok(l.squeeze_all()),
        Op::Unsqueeze(d) => l.unsqueeze(*d),
        Op::Expand(s) => l.expand(s),
        Op::Flip(d) => l.flip(*d),
        Op::Unfold(d, s, st) => l.unfold(*d, *s, *st),
        Op::Diagonal => l.diagonal(),
        Op::DiagonalWith(k, a, b) => l.diagonal_with(*k, *a, *b),
        Op::AsStrided(s, st, o) => l.as_strided(s, st, *o),
        Op::View(s) => l.view(s),
    }
}

/// The same op through the `Tensor` methods (`SqueezeAll` has no tensor method; it squeezes
/// size-1 dims one at a time instead).
pub fn apply_tensor<T: Element>(t: &Tensor<T>, op: &Op) -> Result<Tensor<T>, Error> {
    match op {
        Op::Transpose(a, b) => t.transpose(*a, *b),
        Op::T => t.t(),
        Op::Permute(p) => t.permute(p),
        Op::Narrow(d, s, n) => t.narrow(*d, *s, *n),
        Op::Slice(d, s, e, st) => t.slice_step(*d, *s..*e, *st),
        Op::Select(d, i) => t.select(*d, *i),
        Op::Squeeze(d) => t.squeeze(*d),
        Op::SqueezeAll => {
            let mut out = t.clone();
            while let Some(d) = out.shape().iter().position(|&s| s == 1) {
                out = out.squeeze(d)?;
            }
            Ok(out)
        }
        Op::Unsqueeze(d) => t.unsqueeze(*d),
        Op::Expand(s) => t.expand(s),
        Op::Flip(d) => t.flip(*d),
        Op::Unfold(d, s, st) => t.unfold(*d, *s, *st),
        Op::Diagonal => t.diagonal(),
        Op::DiagonalWith(k, a, b) => t.diagonal_with(*k, *a, *b),
        Op::AsStrided(s, st, o) => t.as_strided(s, st, *o),
        Op::View(s) => t.view(s),
    }
}

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

pub fn huge_usize() -> impl Strategy<Value = usize> {
    prop_oneof![
        3 => Just(usize::MAX),
        1 => Just(usize::MAX - 1),
        1 => Just(usize::MAX / 2),
        2 => Just(isize::MAX as usize),
        1 => Just(isize::MAX as usize + 1),
        1 => Just(1usize << 32),
        2 => any::<usize>(),
    ]
}

pub fn huge_isize() -> impl Strategy<Value = isize> {
    prop_oneof![
        Just(isize::MIN),
        Just(isize::MIN + 1),
        Just(isize::MAX),
        Just(isize::MAX - 1),
        Just(1isize << 32),
        Just(-(1isize << 32)),
        any::<isize>(),
    ]
}

/// A dim argument: usually small (often out of range for the layout), sometimes huge.
/// Dim arguments in `REL..REL + 256` are *relative*: `resolve` maps them into `0..ndim` (or
/// `0..=ndim` for `unsqueeze`), so most generated ops name an existing dim.
pub const REL: usize = 1 << 20;

fn rel(d: usize, n: usize) -> usize {
    if (REL..REL + 256).contains(&d) {
        (d - REL) % n.max(1)
    } else {
        d
    }
}

/// A dim argument: usually relative (valid if the layout has dims), sometimes a small absolute
/// dim (often out of range), sometimes huge.
pub fn dim_arg() -> impl Strategy<Value = usize> {
    prop_oneof![14 => REL..REL + 256, 3 => 0usize..6, 1 => huge_usize()]
}

/// A size/index/start argument: usually small, sometimes huge.
pub fn size_arg() -> impl Strategy<Value = usize> {
    prop_oneof![12 => 0usize..3, 3 => 3usize..7, 1 => huge_usize()]
}

/// A length (narrow, unfold window): rarely 0, usually 1..4, sometimes larger or huge.
pub fn len_arg() -> impl Strategy<Value = usize> {
    prop_oneof![2 => Just(0usize), 12 => 1usize..4, 3 => 4usize..7, 1 => huge_usize()]
}

/// A slice bound: usually small (either sign), sometimes extreme.
pub fn bound_arg() -> impl Strategy<Value = isize> {
    prop_oneof![8 => -4isize..=4, 3 => -8isize..=8, 1 => huge_isize()]
}

/// A slice step: usually small (either sign, sometimes 0), sometimes extreme.
pub fn step_arg() -> impl Strategy<Value = isize> {
    prop_oneof![6 => prop_oneof![Just(1isize), Just(-1)], 6 => -4isize..=4, 1 => huge_isize()]
}

pub fn seed() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 1..12)
}

/// Small random as_strided arguments (valid or not: negative offsets, rank mismatches).
pub fn as_strided_args() -> impl Strategy<Value = Op> {
    (
        prop::collection::vec((0usize..5, -4isize..=4), 0..=3),
        prop::bool::weighted(0.1),
        0usize..40,
    )
        .prop_map(|(dims, bad_rank, offset)| {
            let shape: Vec<usize> = dims.iter().map(|p| p.0).collect();
            let mut strides: Vec<isize> = dims.iter().map(|p| p.1).collect();
            if bad_rank {
                strides.push(1);
            }
            Op::AsStrided(shape, strides, offset)
        })
}

/// One random view op.
pub fn arb_op() -> impl Strategy<Value = OpGen> {
    use OpGen::Fixed;
    prop_oneof![
        3 => (dim_arg(), dim_arg()).prop_map(|(a, b)| Fixed(Op::Transpose(a, b))),
        1 => Just(Fixed(Op::T)),
        3 => seed().prop_map(OpGen::Permute),
        3 => (dim_arg(), size_arg(), len_arg()).prop_map(|(d, s, n)| Fixed(Op::Narrow(d, s, n))),
        4 => (dim_arg(), bound_arg(), bound_arg(), step_arg())
            .prop_map(|(d, s, e, st)| Fixed(Op::Slice(d, s, e, st))),
        3 => (dim_arg(), size_arg()).prop_map(|(d, i)| Fixed(Op::Select(d, i))),
        2 => dim_arg().prop_map(|d| Fixed(Op::Squeeze(d))),
        1 => Just(Fixed(Op::SqueezeAll)),
        2 => dim_arg().prop_map(|d| Fixed(Op::Unsqueeze(d))),
        3 => seed().prop_map(OpGen::Expand),
        3 => dim_arg().prop_map(|d| Fixed(Op::Flip(d))),
        3 => (dim_arg(), len_arg(), prop_oneof![2 => Just(0usize), 12 => 1usize..5, 1 => huge_usize()])
            .prop_map(|(d, s, st)| Fixed(Op::Unfold(d, s, st))),
        1 => Just(Fixed(Op::Diagonal)),
        3 => (prop_oneof![10 => -4isize..=4, 1 => huge_isize()], dim_arg(), dim_arg())
            .prop_map(|(k, a, b)| Fixed(Op::DiagonalWith(k, a, b))),
        1 => as_strided_args().prop_map(Fixed),
        3 => seed().prop_map(OpGen::View),
    ]
}

pub fn arb_chain() -> impl Strategy<Value = Vec<OpGen>> {
    prop::collection::vec(arb_op(), 1..=6)
}

/// A stride: mostly small, of either sign, often zero; sometimes larger.
pub fn stride_arg() -> impl Strategy<Value = isize> {
    prop_oneof![6 => -6isize..=6, 2 => Just(0isize), 1 => -40isize..=40]
}

/// A random starting layout (shape, strides, offset): ndim 0..=4, dims 0..=5, strides of
/// either sign and zero, the offset just large enough (plus some slack) to keep every offset
/// non-negative.
pub fn arb_start_with(
    stride: impl Strategy<Value = isize>,
    slack: impl Strategy<Value = usize>,
) -> impl Strategy<Value = (Vec<usize>, Vec<isize>, usize)> {
    (
        prop::collection::vec((start_dim(), stride), 4),
        start_ndim(),
        slack,
    )
        .prop_map(|(mut dims, ndim, extra)| {
            dims.truncate(ndim);
            let shape: Vec<usize> = dims.iter().map(|p| p.0).collect();
            let strides: Vec<isize> = dims.iter().map(|p| p.1).collect();
            let need: usize = dims
                .iter()
                .map(|&(d, s)| {
                    if s < 0 && d > 0 {
                        (d - 1) * s.unsigned_abs()
                    } else {
                        0
                    }
                })
                .sum();
            (shape, strides, need + extra)
        })
}

/// A start dim size: sometimes 0, often 1, usually 2..=5.
pub fn start_dim() -> impl Strategy<Value = usize> {
    prop_oneof![1 => Just(0usize), 4 => Just(1usize), 14 => 2usize..=5]
}

/// A start ndim in 0..=4, mostly 2..=4.
pub fn start_ndim() -> impl Strategy<Value = usize> {
    prop_oneof![1 => 0usize..=1, 6 => 2usize..=4]
}

pub fn arb_start() -> impl Strategy<Value = (Vec<usize>, Vec<isize>, usize)> {
    arb_start_with(stride_arg(), 0usize..=6)
}

/// A permuted row-major layout (sometimes with one dim flipped, and arbitrary strides on its
/// size-1 dims), so that contiguous and dense views are common.
pub fn arb_dense_start() -> impl Strategy<Value = (Vec<usize>, Vec<isize>, usize)> {
    (
        prop::collection::vec(start_dim(), 4),
        start_ndim(),
        seed(),
        prop::option::weighted(0.2, 0usize..4),
        -9isize..=9,
        0usize..=4,
    )
        .prop_map(|(mut shape, ndim, perm_seed, flip, junk, extra)| {
            shape.truncate(ndim);
            let n = shape.len();
            let mut b = Bytes::new(&perm_seed);
            let mut order: Vec<usize> = (0..n).collect();
            if b.below(2) == 0 {
                for i in (1..n).rev() {
                    order.swap(i, b.below(i + 1));
                }
            }
            // order[0] is the outermost dim in storage.
            let mut strides = vec![0isize; n];
            let mut acc = 1isize;
            for &d in order.iter().rev() {
                strides[d] = acc;
                acc *= shape[d].max(1) as isize;
            }
            for d in 0..n {
                if shape[d] == 1 {
                    strides[d] = junk;
                }
            }
            let mut offset = extra;
            if let Some(f) = flip.filter(|&f| f < n && shape[f] > 1) {
                offset += (shape[f] - 1) * strides[f] as usize;
                strides[f] = -strides[f];
            }
            (shape, strides, offset)
        })
}

/// Random or dense starting layouts.
pub fn arb_start_mixed() -> impl Strategy<Value = (Vec<usize>, Vec<isize>, usize)> {
    prop_oneof![arb_start(), arb_dense_start()]
}

/// Whether the row-major strides of `shape` (sizes of 0 counted as 1) overflow `isize`, so an
/// empty shape has no contiguous layout.
pub fn row_major_overflows(shape: &[usize]) -> bool {
    shape
        .iter()
        .try_fold(1isize, |a, &d| {
            a.checked_mul(isize::try_from(d.max(1)).ok()?)
        })
        .is_none()
}

// ---------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------

/// Everything a `Layout` must agree with its model on.
pub fn check_layout(l: &Layout, m: &Model) -> TestResult {
    prop_assert_eq!(l.shape(), &m.shape[..], "shape of {:?}", l);
    prop_assert_eq!(l.strides().len(), l.ndim());
    prop_assert_eq!(l.ndim(), m.ndim());
    prop_assert_eq!(l.numel(), m.numel(), "numel of {:?}", l);
    for (k, idx) in all_indices(&m.shape).iter().enumerate() {
        let got = l.offset_of(idx);
        prop_assert_eq!(
            got.clone().ok(),
            Some(m.offs[k] as usize),
            "offset_of({:?}) in {:?}",
            idx,
            l
        );
        prop_assert!(m.offs[k] >= 0);
    }
    match m.range() {
        None => {
            prop_assert_eq!(l.offset_range(), None);
            prop_assert_eq!(l.storage_len_needed(), 0);
            prop_assert!(l.fits_in(0));
        }
        Some((lo, hi)) => {
            prop_assert_eq!(
                l.offset_range(),
                Some((lo as usize, hi as usize)),
                "{:?}",
                l
            );
            prop_assert_eq!(l.offset(), m.offs[0] as usize, "first element of {:?}", l);
            prop_assert_eq!(l.storage_len_needed(), hi as usize + 1);
            prop_assert!(l.fits_in(hi as usize + 1) && !l.fits_in(hi as usize));
        }
    }
    // Out-of-range and wrong-rank indices are errors.
    let mut wrong_rank = vec![0; l.ndim()];
    wrong_rank.push(0);
    prop_assert!(
        matches!(l.offset_of(&wrong_rank), Err(Error::IndexRank { .. })),
        "offset_of with a wrong rank in {:?}",
        l
    );
    for d in 0..l.ndim() {
        let mut idx = vec![0; l.ndim()];
        idx[d] = l.shape()[d];
        prop_assert!(
            matches!(l.offset_of(&idx), Err(Error::IndexOutOfRange { .. })),
            "offset_of({:?}) in {:?}",
            idx,
            l
        );
    }
    // The layout is one `Layout::new` accepts (the constructor's invariants hold).
    prop_assert!(rebuilds(l), "Layout::new rejects the parts of {:?}", l);
    Ok(())
}

/// Whether `Layout::new` accepts the parts of `l` (so it satisfies the invariants) and gives
/// back an equal layout.
pub fn rebuilds(l: &Layout) -> bool {
    Layout::new(l.shape(), l.strides(), l.offset()).is_ok_and(|r| &r == l)
}

/// Compares the outcome of an op on the code under test with the model's verdict. Returns the
/// model to continue with (the new one on success, `None` when both rejected the op).
pub fn compare<X>(
    what: &str,
    op: &Op,
    got: &Result<X, Error>,
    want: &MResult,
) -> Result<Option<Model>, TestCaseError> {
    match (got, want) {
        (Ok(_), Ok(m)) => Ok(Some(m.clone())),
        (Ok(_), Err(why)) => Err(TestCaseError::fail(format!(
            "{what}: succeeded, but the model rejects it ({why:?})"
        ))),
        (Err(e), Ok(m)) => {
            // Only a genuine overflow may fail where the model succeeds: offsets beyond
            // isize::MAX, or (documented for slice, unfold and diagonal) a new stride that
            // overflows, which matters only when the result is empty and its strides are
            // arbitrary (otherwise a stride spanning two addressed offsets cannot overflow).
            let overflows = m.range().is_some_and(|(_, hi)| hi > isize::MAX as i128);
            let stride_op = matches!(
                op,
                Op::Slice(..) | Op::Unfold(..) | Op::Diagonal | Op::DiagonalWith(..)
            );
            if kind(e) == "Overflow" && (overflows || (m.numel() == 0 && stride_op)) {
                Ok(None)
            } else {
                Err(TestCaseError::fail(format!(
                    "{what}: failed with {e:?}, but the model accepts it: {m:?}"
                )))
            }
        }
        (Err(e), Err(why)) => {
            prop_assert!(
                why.contains(&kind(e)),
                "{}: error {:?} is not one of the model's reasons {:?}",
                what,
                e,
                why
            );
            Ok(None)
        }
    }
}

/// The model of a starting layout, which must be accepted by `Layout::new`.
pub fn start_layout(shape: &[usize], strides: &[isize], offset: usize) -> (Layout, Model) {
    let l = Layout::new(shape, strides, offset).expect("generated start layouts are valid");
    (l, Model::strided(shape, strides, offset))
}

/// Runs a chain of ops on a layout and on the model side by side, checking every step, and calls
/// `each` on every layout reached (the start included).
pub fn run_chain(
    start: (&[usize], &[isize], usize),
    ops: &[OpGen],
    mut each: impl FnMut(&Layout, &Model) -> TestResult,
) -> TestResult {
    let (mut l, mut m) = start_layout(start.0, start.1, start.2);
    check_layout(&l, &m)?;
    each(&l, &m)?;
    for r#gen in ops {
        let op = r#gen.resolve(l.shape());
        let got = apply_layout(&l, &op);
        let want = m.apply(&op);
        let what = format!("{op:?} on {l:?}");
        if let Some(next) = compare(&what, &op, &got, &want)? {
            l = got.unwrap();
            m = next;
            check_layout(&l, &m)?;
            each(&l, &m)?;
        }
    }
    Ok(())
}

/// Element types with a value per storage position (distinct as far as the type allows).
pub trait Val: Element {
    fn from_index(i: usize) -> Self;
}

impl Val for f32 {
    fn from_index(i: usize) -> Self {
        i as f32
    }
}
impl Val for f64 {
    fn from_index(i: usize) -> Self {
        i as f64 + 0.5
    }
}
impl Val for u8 {
    fn from_index(i: usize) -> Self {
        (i % 251) as u8
    }
}
impl Val for i64 {
    fn from_index(i: usize) -> Self {
        -(i as i64) - 1
    }
}
impl Val for half::f16 {
    fn from_index(i: usize) -> Self {
        half::f16::from_f32((i % 2048) as f32)
    }
}
impl Val for half::bf16 {
    fn from_index(i: usize) -> Self {
        half::bf16::from_f32((i % 256) as f32)
    }
}

// ---------------------------------------------------------------------------------------------
// Tensors of a given shape with a random layout (write and build property tests)
// ---------------------------------------------------------------------------------------------

impl Val for i32 {
    fn from_index(i: usize) -> Self {
        i as i32
    }
}
impl Val for i16 {
    fn from_index(i: usize) -> Self {
        (i % 30_000) as i16
    }
}

/// `Ok` of a library result, or a test failure naming `what`.
pub fn okay<X>(r: Result<X, Error>, what: impl std::fmt::Display) -> Result<X, TestCaseError> {
    r.map_err(|e| TestCaseError::fail(format!("{what}: {e}")))
}

/// Whether a model view addresses each storage offset at most once.
pub fn distinct(offs: &[i128]) -> bool {
    let mut s = offs.to_vec();
    s.sort_unstable();
    s.windows(2).all(|w| w[0] != w[1])
}

/// How to lay out a tensor of a given shape: a storage order of the dims (a permutation, from
/// `perm`) and per dim a mode (from `modes[d] % 10`): 0..=3 plain, 4..=5 flipped, 6 every
/// second element of a twice as long dim, 7 the same backwards, 8 narrowed from a longer dim,
/// 9 expanded from size 1 (only when expanding is allowed, else plain).
#[derive(Clone, Debug)]
pub struct Recipe {
    pub perm: Vec<u8>,
    pub modes: Vec<u8>,
}

pub fn arb_recipe() -> impl Strategy<Value = Recipe> {
    (seed(), prop::collection::vec(any::<u8>(), 6)).prop_map(|(perm, modes)| Recipe { perm, modes })
}

/// A tensor built by [`build`]: the tensor (sole holder of its storage), its model (offsets
/// into the storage) and the storage contents.
pub struct Built<T: Element> {
    pub t: Tensor<T>,
    pub m: Model,
    pub storage: Vec<T>,
}

impl<T: Element> Built<T> {
    /// The tensor's elements in row-major order, by the model.
    pub fn values(&self) -> Vec<T> {
        self.m
            .offs
            .iter()
            .map(|&o| self.storage[o as usize])
            .collect()
    }
}

/// A tensor of `shape` laid out as `r` says over a fresh storage holding `val(0), val(1), ..`;
/// every view op is applied to the tensor and to the model alike.
pub fn build<T: Element>(
    shape: &[usize],
    r: &Recipe,
    val: impl Fn(usize) -> T,
    allow_expand: bool,
) -> Built<T> {
    let n = shape.len();
    let modes: Vec<u8> = (0..n)
        .map(|d| {
            let m = r.modes.get(d).copied().unwrap_or(0) % 10;
            if m == 9 && !allow_expand { 0 } else { m }
        })
        .collect();
    let logical: Vec<usize> = (0..n)
        .map(|d| match modes[d] {
            6 | 7 => 2 * shape[d],
            8 => shape[d] + 2,
            9 => 1,
            _ => shape[d],
        })
        .collect();
    let mut b = Bytes::new(&r.perm);
    let mut perm: Vec<usize> = (0..n).collect();
    if b.below(2) == 0 {
        for i in (1..n).rev() {
            perm.swap(i, b.below(i + 1));
        }
    }
    // Storage dim k holds logical dim perm[k].
    let physical: Vec<usize> = perm.iter().map(|&d| logical[d]).collect();
    let len = true_numel(&physical).expect("small shape");
    let storage: Vec<T> = (0..len).map(val).collect();
    let mut t = Tensor::from_vec(storage.clone(), &physical).expect("from_vec");
    let row_major = Layout::contiguous(&physical).expect("contiguous");
    let mut m = Model::strided(&physical, row_major.strides(), 0);
    let mut inv = vec![0; n];
    for (k, &d) in perm.iter().enumerate() {
        inv[d] = k;
    }
    let mut ops = vec![Op::Permute(inv)];
    for d in 0..n {
        let s = shape[d] as isize;
        match modes[d] {
            4 | 5 => ops.push(Op::Flip(d)),
            6 => ops.push(Op::Slice(d, 0, 2 * s, 2)),
            7 => ops.push(Op::Slice(d, 2 * s - 1, -2 * s - 1, -2)),
            8 => ops.push(Op::Narrow(d, 1, shape[d])),
            _ => {}
        }
    }
    if modes.contains(&9) {
        ops.push(Op::Expand(shape.to_vec()));
    }
    for op in &ops {
        t = apply_tensor(&t, op).unwrap_or_else(|e| panic!("build: {op:?} on {t:?}: {e}"));
        m = m
            .apply(op)
            .unwrap_or_else(|e| panic!("build: model {op:?}: {e:?}"));
    }
    assert_eq!(t.shape(), shape, "build: shape");
    assert_eq!(m.shape, shape, "build: model shape");
    Built { t, m, storage }
}

/// A shape of ndim 0..=4 with sizes 0..=5 (mostly 2..=5).
pub fn arb_shape() -> impl Strategy<Value = Vec<usize>> {
    (prop::collection::vec(start_dim(), 4), start_ndim()).prop_map(|(mut s, n)| {
        s.truncate(n);
        s
    })
}
