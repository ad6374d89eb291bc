//! `Dims`: the small array a [`Layout`](super::Layout) keeps its shape and strides in.
//!
//! Up to [`INLINE`] entries live inside the value itself, so building, cloning and dropping the
//! layout of a tensor of rank <= 4 allocates nothing (a view op is then a few dozen
//! nanoseconds, not a few allocations); more entries go to a `Vec`. It reads as a slice
//! (`Deref<Target = [T]>`), so layout code indexes, iterates and compares it as one.

use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

/// Entries kept inline before spilling to the heap: every common tensor rank.
pub(crate) const INLINE: usize = 4;

/// A short sequence of sizes or strides, inline up to [`INLINE`] entries.
///
/// Every field is word-sized, so moving a `Dims` (as every view op does, several times) is a
/// few full-width copies, never a mix of narrow stores and wide loads.
#[derive(Clone)]
pub(crate) struct Dims<T: Copy + Default> {
    /// The number of entries.
    len: usize,
    /// The entries when `len <= INLINE` (the rest are `T::default()`).
    buf: [T; INLINE],
    /// The entries when `len > INLINE`, else `None`.
    spill: Option<Box<[T]>>,
}

impl<T: Copy + Default> Dims<T> {
    /// No entries.
    fn empty() -> Dims<T> {
        Dims {
            len: 0,
            buf: [T::default(); INLINE],
            spill: None,
        }
    }

    /// `len` entries, each `T::default()`.
    #[inline]
    pub(crate) fn zeroed(len: usize) -> Dims<T> {
        Dims {
            len,
            buf: [T::default(); INLINE],
            spill: (len > INLINE).then(|| vec![T::default(); len].into_boxed_slice()),
        }
    }

    /// Whether the entries live on the heap.
    #[cfg(test)]
    fn spilled(&self) -> bool {
        self.spill.is_some()
    }

    /// Appends `value`.
    pub(crate) fn push(&mut self, value: T) {
        if self.len < INLINE {
            self.buf[self.len] = value;
        } else {
            let mut v = self.to_vec();
            v.push(value);
            self.spill = Some(v.into_boxed_slice());
        }
        self.len += 1;
    }

    /// Removes and returns entry `i`, shifting the rest down.
    ///
    /// # Panics
    /// If `i >= len` (callers check dims first), as `Vec::remove`.
    pub(crate) fn remove(&mut self, i: usize) -> T {
        let mut v = self.to_vec();
        let x = v.remove(i);
        *self = Dims::from(v);
        x
    }

    /// Inserts `value` at position `i`, shifting the rest up.
    ///
    /// # Panics
    /// If `i > len` (callers check dims first), as `Vec::insert`.
    pub(crate) fn insert(&mut self, i: usize, value: T) {
        assert!(i <= self.len, "insert at {i} past the end ({})", self.len);
        self.push(value);
        let n = self.len;
        self[i..n].rotate_right(1);
    }
}

impl<'a, T: Copy + Default> IntoIterator for &'a Dims<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> std::slice::Iter<'a, T> {
        self.iter()
    }
}

impl<T: Copy + Default> Deref for Dims<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match &self.spill {
            None => &self.buf[..self.len],
            Some(v) => v,
        }
    }
}

impl<T: Copy + Default> DerefMut for Dims<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.spill {
            None => &mut self.buf[..self.len],
            Some(v) => v,
        }
    }
}

impl<T: Copy + Default> From<&[T]> for Dims<T> {
    fn from(s: &[T]) -> Dims<T> {
        let mut d = Dims::empty();
        if s.len() <= INLINE {
            for (b, &x) in d.buf.iter_mut().zip(s) {
                *b = x;
            }
        } else {
            d.spill = Some(s.into());
        }
        d.len = s.len();
        d
    }
}

impl<T: Copy + Default> From<Vec<T>> for Dims<T> {
    fn from(v: Vec<T>) -> Dims<T> {
        if v.len() <= INLINE {
            Dims::from(&v[..])
        } else {
            Dims {
                len: v.len(),
                buf: [T::default(); INLINE],
                spill: Some(v.into_boxed_slice()),
            }
        }
    }
}

impl<T: Copy + Default> FromIterator<T> for Dims<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Dims<T> {
        let mut d = Dims::empty();
        for x in items {
            d.push(x);
        }
        d
    }
}

impl<T: Copy + Default + PartialEq> PartialEq for Dims<T> {
    fn eq(&self, other: &Dims<T>) -> bool {
        self[..] == other[..]
    }
}

impl<T: Copy + Default + Eq> Eq for Dims<T> {}

impl<T: Copy + Default + Hash> Hash for Dims<T> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self[..].hash(h);
    }
}

impl<T: Copy + Default + std::fmt::Debug> std::fmt::Debug for Dims<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self[..].fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_and_heap_read_the_same() {
        for n in 0..=INLINE + 3 {
            let v: Vec<isize> = (0..n as isize).map(|i| i * 3 - 2).collect();
            let a = Dims::from(v.clone());
            let b = Dims::from(&v[..]);
            let c: Dims<isize> = v.iter().copied().collect();
            assert_eq!((&a[..], &b[..], &c[..]), (&v[..], &v[..], &v[..]));
            assert_eq!(a, c);
            assert_eq!(a.spilled(), n > INLINE);
            let z = Dims::<isize>::zeroed(n);
            assert_eq!((z.len(), z.spilled()), (n, n > INLINE));
            assert!(z.iter().all(|&x| x == 0));
            let mut d: Dims<isize> = std::iter::repeat_n(7, n).collect();
            d.push(1);
            assert_eq!(d.len(), n + 1);
            assert_eq!(d[n], 1);
            assert!(d[..n].iter().all(|&x| x == 7));
            // insert / remove behave as Vec's, across the inline/heap boundary.
            for i in 0..=n {
                let mut want = v.clone();
                let mut got = Dims::from(v.clone());
                want.insert(i, 99);
                got.insert(i, 99);
                assert_eq!(&got[..], &want[..]);
                assert_eq!(got.remove(i), want.remove(i));
                assert_eq!(&got[..], &want[..]);
            }
        }
    }

    #[test]
    fn equality_and_hash_ignore_the_representation() {
        use std::collections::hash_map::DefaultHasher;
        let v = vec![1usize, 2, 3];
        let inline = Dims::from(v.clone());
        let heap = Dims {
            len: 3,
            buf: [0; INLINE],
            spill: Some(v.into_boxed_slice()),
        };
        assert_eq!(inline, heap);
        let hash = |d: &Dims<usize>| {
            let mut h = DefaultHasher::new();
            d.hash(&mut h);
            h.finish()
        };
        assert_eq!(hash(&inline), hash(&heap));
    }
}
