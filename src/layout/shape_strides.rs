//! `ShapeStrides`: where a [`Layout`](super::Layout) keeps its shape and strides.
//!
//! Both arrays share one rank and one spill: up to [`INLINE`] dims live inside the value as
//! plain words, so building, cloning, moving and dropping the layout of a tensor of rank <= 4
//! copies a few words and tests one pointer (a view op is then a few dozen nanoseconds, not a
//! few allocations); more dims go to one heap block, cloned out of line. Two separate small
//! arrays ([`Dims`](super::Dims), which the rest of the crate uses for scratch shapes) would
//! each carry a length and a spill, and each clone and drop would test both.

use std::hash::{Hash, Hasher};

use super::dims::INLINE;

/// A shape and its strides, one entry per dim, inline up to [`INLINE`] dims.
///
/// `repr(C)`, in this order: inside a `Tensor` the rank shares a 16-byte piece with the
/// storage pointer, and each pair of sizes or strides fills one piece (see `Tensor`).
#[repr(C)]
pub(crate) struct ShapeStrides {
    /// The number of dims.
    rank: usize,
    /// The sizes when `rank <= INLINE` (the rest are 0).
    shape: [usize; INLINE],
    /// The strides when `rank <= INLINE` (the rest are 0).
    strides: [isize; INLINE],
    /// Both arrays when `rank > INLINE`, else `None`.
    spill: Option<Box<Spilled>>,
}

/// The arrays of a layout of more than [`INLINE`] dims.
#[derive(Clone)]
struct Spilled {
    shape: Box<[usize]>,
    strides: Box<[isize]>,
}

impl ShapeStrides {
    /// `shape` and `strides`, which have one entry per dim each.
    ///
    /// # Panics
    /// If their lengths differ (callers check first: a programming error, not user input).
    #[inline]
    pub(crate) fn new(shape: &[usize], strides: &[isize]) -> ShapeStrides {
        assert_eq!(shape.len(), strides.len(), "one stride per dim");
        let mut s = ShapeStrides::with_zero_strides(shape);
        s.parts_mut().1.copy_from_slice(strides);
        s
    }

    /// `shape` with row-major strides (a size of 0 counts as 1, as in `row_major_strides`), or
    /// `None` if the product of the sizes so counted passes `isize::MAX` (then a stride or the
    /// element count would not fit).
    ///
    /// Up to [`INLINE`] dims the arrays are built in registers by loops of a fixed trip
    /// count: no call to copy a slice of variable length, no store that a wider load must
    /// wait for. This is the layout of every fresh tensor, so its cost is part of every small
    /// op.
    #[inline]
    pub(crate) fn row_major(shape: &[usize]) -> Option<ShapeStrides> {
        let rank = shape.len();
        if rank > INLINE {
            return row_major_spilled(shape);
        }
        let mut sizes = [0usize; INLINE];
        let mut strides = [0isize; INLINE];
        let mut acc: usize = 1;
        for i in (0..INLINE).rev() {
            if let Some(&d) = shape.get(i) {
                sizes[i] = d;
                // Fits: `acc` only grows, and its last value is checked below.
                strides[i] = acc as isize;
                acc = acc.checked_mul(d.max(1))?;
            }
        }
        if acc > isize::MAX as usize {
            return None;
        }
        Some(ShapeStrides {
            rank,
            shape: sizes,
            strides,
            spill: None,
        })
    }

    /// `shape` with every stride 0 (for a caller that fills them in).
    #[inline]
    pub(crate) fn with_zero_strides(shape: &[usize]) -> ShapeStrides {
        let rank = shape.len();
        let mut s = ShapeStrides {
            rank,
            shape: [0; INLINE],
            strides: [0; INLINE],
            spill: None,
        };
        if rank <= INLINE {
            s.shape[..rank].copy_from_slice(shape);
        } else {
            s.spill = Some(Box::new(Spilled {
                shape: shape.into(),
                strides: vec![0; rank].into(),
            }));
        }
        s
    }

    /// The number of dims.
    #[inline]
    pub(crate) fn rank(&self) -> usize {
        self.rank
    }

    /// The sizes.
    #[inline]
    pub(crate) fn shape(&self) -> &[usize] {
        if self.rank <= INLINE {
            &self.shape[..self.rank]
        } else {
            self.spill.as_ref().map_or(&[], |s| &s.shape)
        }
    }

    /// The strides.
    #[inline]
    pub(crate) fn strides(&self) -> &[isize] {
        if self.rank <= INLINE {
            &self.strides[..self.rank]
        } else {
            self.spill.as_ref().map_or(&[], |s| &s.strides)
        }
    }

    /// Both arrays, to edit in place (the rank stays).
    #[inline]
    pub(crate) fn parts_mut(&mut self) -> (&mut [usize], &mut [isize]) {
        if self.rank <= INLINE {
            (&mut self.shape[..self.rank], &mut self.strides[..self.rank])
        } else {
            match &mut self.spill {
                Some(s) => (&mut s.shape, &mut s.strides),
                None => (&mut [], &mut []),
            }
        }
    }

    /// Whether the arrays live on the heap.
    #[cfg(test)]
    fn spilled(&self) -> bool {
        self.spill.is_some()
    }
}

impl Clone for ShapeStrides {
    #[inline]
    fn clone(&self) -> ShapeStrides {
        ShapeStrides {
            rank: self.rank,
            shape: self.shape,
            strides: self.strides,
            spill: self.spill.as_ref().map(|s| clone_spilled(s)),
        }
    }
}

/// [`ShapeStrides::row_major`] for more than [`INLINE`] dims, out of line.
#[cold]
#[inline(never)]
fn row_major_spilled(shape: &[usize]) -> Option<ShapeStrides> {
    let mut s = ShapeStrides::with_zero_strides(shape);
    let mut acc: usize = 1;
    for (st, &d) in s.parts_mut().1.iter_mut().zip(shape).rev() {
        *st = acc as isize;
        acc = acc.checked_mul(d.max(1))?;
    }
    (acc <= isize::MAX as usize).then_some(s)
}

/// A copy of the heap arrays, out of line: rank > 4 is rare, and the inline clone stays a few
/// word copies and one test.
#[cold]
#[inline(never)]
fn clone_spilled(s: &Spilled) -> Box<Spilled> {
    Box::new(s.clone())
}

impl PartialEq for ShapeStrides {
    fn eq(&self, other: &ShapeStrides) -> bool {
        self.shape() == other.shape() && self.strides() == other.strides()
    }
}

impl Eq for ShapeStrides {}

impl Hash for ShapeStrides {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.shape().hash(h);
        self.strides().hash(h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_and_spilled_read_back_and_edit_the_same() {
        for n in 0..=INLINE + 3 {
            let shape: Vec<usize> = (0..n).map(|i| i * 2 + 1).collect();
            let strides: Vec<isize> = (0..n as isize).map(|i| 5 - 3 * i).collect();
            let s = ShapeStrides::new(&shape, &strides);
            assert_eq!((s.rank(), s.spilled()), (n, n > INLINE));
            assert_eq!((s.shape(), s.strides()), (&shape[..], &strides[..]));
            let mut c = s.clone();
            assert!(c == s);
            let (sh, st) = c.parts_mut();
            if n > 0 {
                sh.swap(0, n - 1);
                st[0] = 99;
            }
            // The clone is a copy: editing it leaves the original as it was.
            assert_eq!((s.shape(), s.strides()), (&shape[..], &strides[..]));
            assert_eq!(c == s, n == 0);
            if n > 0 {
                assert_eq!((c.shape()[n - 1], c.strides()[0]), (shape[0], 99));
            }
        }
    }

    #[test]
    fn equality_and_hash_see_only_the_dims() {
        use std::collections::hash_map::DefaultHasher;
        let hash = |s: &ShapeStrides| {
            let mut h = DefaultHasher::new();
            s.hash(&mut h);
            h.finish()
        };
        let a = ShapeStrides::new(&[2, 3], &[3, 1]);
        // A third inline entry left behind: not one of the dims.
        let mut b = ShapeStrides::new(&[2, 3, 4], &[3, 1, 7]);
        b.rank = 2;
        assert!(a == b && hash(&a) == hash(&b));
        // Same entries, split differently between shape and strides: not equal.
        let c = ShapeStrides::new(&[3, 1], &[2, 3]);
        assert!(a != c);
    }
}
