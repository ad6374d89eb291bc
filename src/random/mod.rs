//! Seeded random tensors (feature `random`): [`Generator`], a counter-based generator.
//!
//! # Note [counter-based random tensors]
//!
//! Each draw of a [`Generator`] takes the next *stream* number; element `i` (its logical,
//! row-major index) of that draw is computed from the block `philox4x32_10([g, g >> 32,
//! stream, stream >> 32], seed)` with `g = i / G`, where a block of four 32-bit words makes
//! `G` elements (4 `f32` uniforms, 2 `f64` uniforms, 4 `f32` normals from two Box-Muller
//! pairs, 2 `f64` normals from one, 2 integers of 64 random bits). So an element's value is a
//! pure function of the seed, the draw and its logical index: the same for any number of
//! threads, any order of computation, and any memory layout the result is asked in
//! ([`Generator::randn_like`] of a transposed tensor holds, at each logical index, what
//! [`Generator::randn`] holds there). PyTorch's CUDA generator and JAX use the same
//! construction ([`philox4x32_10`]).
//!
//! Distributions: uniforms on `[0, 1)` from the top 24 (`f32`) or 53 (`f64`) bits of the
//! words; normals by Box-Muller on two uniforms, `sqrt(-2 ln(1 - u1)) * (cos, sin)(2 pi
//! u2)`, computed in `f32` for `f32` / `f16` / `bf16` and in `f64` for `f64`; integers in
//! `[low, high)` by the high 64 bits of a 64x64-bit product of 64 random bits and the range
//! (bias below `range / 2^64`). Half-precision results are rounded from `f32`.

mod philox;

pub use philox::philox4x32_10;

use std::f64::consts::TAU;
use std::sync::Arc;

use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::lines::{LineWalk, fresh_by_lines};
use crate::layout::Layout;
use crate::scalar::{FloatElement, IntElement};
use crate::tensor::Tensor;

/// A seeded random generator for tensors (Note \[counter-based random tensors\] in this
/// module): each draw uses the next stream of the seed, and every element is computed from
/// (seed, stream, logical index) alone, so results do not depend on threads or layouts.
///
/// ```
/// use stridex::random::Generator;
/// let mut g = Generator::new(42);
/// let a = g.randn::<f32>(&[2, 3])?;
/// let b = g.rand::<f64>(&[4])?; // the next stream: independent of `a`
/// assert!(b.iter().all(|x| (0.0..1.0).contains(&x)));
/// let again = Generator::new(42).randn::<f32>(&[2, 3])?;
/// assert_eq!(a, again); // same seed, same first draw
/// # Ok::<(), stridex::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generator {
    seed: u64,
    stream: u64,
}

/// What one Philox block of four words becomes: `G` elements (see the module Note).
trait Sampler<T>: Sync {
    /// Elements per block.
    const G: usize;
    /// The `G` elements of `block`, in `out[..G]`.
    fn sample(&self, block: [u32; 4], out: &mut [T; 4]);
}

/// `[0, 1)` from the top 24 bits of a word.
#[inline(always)]
fn unit_f32(w: u32) -> f32 {
    (w >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// `[0, 1)` from the top 53 bits of two words.
#[inline(always)]
fn unit_f64(hi: u32, lo: u32) -> f64 {
    ((u64::from(hi) << 32 | u64::from(lo)) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `f32` converted to a float element type (rounded for `f16` / `bf16`).
#[inline(always)]
fn from_f32<T: FloatElement>(x: f32) -> T {
    <T as num_traits::NumCast>::from(x).unwrap_or_else(T::nan)
}

/// `f64` converted to a float element type.
#[inline(always)]
fn from_f64<T: FloatElement>(x: f64) -> T {
    <T as num_traits::NumCast>::from(x).unwrap_or_else(T::nan)
}

/// Uniform on `[low, low + width)`: `f32` words for every type but `f64`.
struct Uniform<T> {
    low: T,
    width: T,
}

impl<T: FloatElement> Sampler<T> for Uniform<T> {
    const G: usize = if matches!(T::DTYPE, DType::F64) { 2 } else { 4 };

    #[inline(always)]
    fn sample(&self, b: [u32; 4], out: &mut [T; 4]) {
        if Self::G == 2 {
            out[0] = self.low + self.width * from_f64(unit_f64(b[0], b[1]));
            out[1] = self.low + self.width * from_f64(unit_f64(b[2], b[3]));
        } else {
            for (o, w) in out.iter_mut().zip(b) {
                *o = self.low + self.width * from_f32(unit_f32(w));
            }
        }
    }
}

/// Normal with `mean` and `std`, by Box-Muller.
struct Normal<T> {
    mean: T,
    std: T,
}

impl<T: FloatElement> Sampler<T> for Normal<T> {
    const G: usize = if matches!(T::DTYPE, DType::F64) { 2 } else { 4 };

    #[inline(always)]
    fn sample(&self, b: [u32; 4], out: &mut [T; 4]) {
        if Self::G == 2 {
            let r = (-2.0 * (1.0 - unit_f64(b[0], b[1])).ln()).sqrt();
            let (s, c) = (TAU * unit_f64(b[2], b[3])).sin_cos();
            out[0] = self.mean + self.std * from_f64(r * c);
            out[1] = self.mean + self.std * from_f64(r * s);
        } else {
            for pair in 0..2 {
                let (w1, w2) = (b[2 * pair], b[2 * pair + 1]);
                let r = (-2.0 * (1.0 - unit_f32(w1)).ln()).sqrt();
                let (s, c) = (std::f32::consts::TAU * unit_f32(w2)).sin_cos();
                out[2 * pair] = self.mean + self.std * from_f32(r * c);
                out[2 * pair + 1] = self.mean + self.std * from_f32(r * s);
            }
        }
    }
}

/// Integers on `[low, low + range)` from 64 random bits each.
struct Ints {
    low: i128,
    range: u64,
}

impl<T: IntElement + num_traits::NumCast> Sampler<T> for Ints {
    const G: usize = 2;

    #[inline(always)]
    fn sample(&self, b: [u32; 4], out: &mut [T; 4]) {
        for k in 0..2 {
            let bits = u64::from(b[2 * k]) << 32 | u64::from(b[2 * k + 1]);
            let offset = (u128::from(bits) * u128::from(self.range)) >> 64;
            // In range of `T`: `low` and `low + range - 1` were checked to be.
            out[k] =
                <T as num_traits::NumCast>::from(self.low + offset as i128).unwrap_or_else(T::zero);
        }
    }
}

impl Generator {
    /// A generator for `seed`, at its first draw.
    ///
    /// ```
    /// let g = stridex::random::Generator::new(7);
    /// assert_eq!(g.seed(), 7);
    /// ```
    #[must_use]
    pub fn new(seed: u64) -> Generator {
        Generator { seed, stream: 0 }
    }

    /// The seed.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Draws so far: the stream number the next draw uses (set it with
    /// [`Generator::set_stream`] to replay a draw).
    #[must_use]
    pub fn stream(&self) -> u64 {
        self.stream
    }

    /// Makes the next draw use stream `stream` (PyTorch's `set_offset`-like replay).
    ///
    /// ```
    /// use stridex::random::Generator;
    /// let mut g = Generator::new(1);
    /// let a = g.rand::<f32>(&[3])?;
    /// g.set_stream(0);
    /// assert_eq!(g.rand::<f32>(&[3])?, a);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn set_stream(&mut self, stream: u64) {
        self.stream = stream;
    }

    /// Uniform samples on `[0, 1)` (PyTorch's `rand`), row-major.
    ///
    /// # Errors
    /// [`Error::Overflow`] / [`Error::Alloc`] for the shape.
    ///
    /// ```
    /// let mut g = stridex::random::Generator::new(0);
    /// let x = g.rand::<f32>(&[1000])?;
    /// assert!(x.iter().all(|v| (0.0..1.0).contains(&v)));
    /// assert!((x.mean() - 0.5).abs() < 0.05);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn rand<T: FloatElement>(&mut self, shape: &[usize]) -> Result<Tensor<T>> {
        self.uniform(shape, T::zero(), T::one())
    }

    /// Uniform samples on `[low, high)` (PyTorch's `uniform_`, NumPy's `uniform`),
    /// row-major: `low + (high - low) * u` for `u` on `[0, 1)`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `low <= high`, both finite; as [`Generator::rand`].
    ///
    /// ```
    /// let mut g = stridex::random::Generator::new(3);
    /// let x = g.uniform(&[100], -2.0f64, 2.0)?;
    /// assert!(x.iter().all(|v| (-2.0..2.0).contains(&v)));
    /// assert!(g.uniform(&[1], 1.0f32, 0.0).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn uniform<T: FloatElement>(
        &mut self,
        shape: &[usize],
        low: T,
        high: T,
    ) -> Result<Tensor<T>> {
        if !(low.is_finite() && high.is_finite() && low <= high) {
            return Err(Error::InvalidArgument {
                op: "uniform",
                message: format!("needs finite low <= high, got low = {low}, high = {high}"),
            });
        }
        let s = Uniform {
            low,
            width: high - low,
        };
        self.draw("uniform", &Layout::contiguous(shape)?, &s)
    }

    /// Standard normal samples (mean 0, variance 1; PyTorch's `randn`), row-major, by
    /// Box-Muller (module Note).
    ///
    /// # Errors
    /// As [`Generator::rand`].
    ///
    /// ```
    /// let mut g = stridex::random::Generator::new(0);
    /// let x = g.randn::<f64>(&[4000])?;
    /// assert!(x.mean().abs() < 0.1);
    /// assert!((x.std(0)?.get(&[])? - 1.0).abs() < 0.1);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn randn<T: FloatElement>(&mut self, shape: &[usize]) -> Result<Tensor<T>> {
        self.normal(shape, T::zero(), T::one())
    }

    /// Normal samples with `mean` and standard deviation `std` (PyTorch's `normal`),
    /// row-major: `mean + std * z` for a standard normal `z`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `std >= 0` and both are finite; as
    /// [`Generator::rand`].
    ///
    /// ```
    /// let mut g = stridex::random::Generator::new(5);
    /// let x = g.normal(&[2, 2], 10.0f32, 0.0)?;
    /// assert_eq!(x.to_vec(), vec![10.0; 4]);
    /// assert!(g.normal(&[1], 0.0f32, -1.0).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn normal<T: FloatElement>(
        &mut self,
        shape: &[usize],
        mean: T,
        std: T,
    ) -> Result<Tensor<T>> {
        if !(mean.is_finite() && std.is_finite() && std >= T::zero()) {
            return Err(Error::InvalidArgument {
                op: "normal",
                message: format!("needs finite mean and std >= 0, got mean = {mean}, std = {std}"),
            });
        }
        self.draw("normal", &Layout::contiguous(shape)?, &Normal { mean, std })
    }

    /// Standard normal samples in the shape and memory order of `like` (PyTorch's
    /// `randn_like`; its dense order, as [`Layout::dense_like`]): the value at each logical
    /// index is the one [`Generator::randn`] of that shape gives there (module Note).
    ///
    /// # Errors
    /// As [`Generator::rand`].
    ///
    /// ```
    /// use stridex::{Tensor, random::Generator};
    /// let x = Tensor::<f32>::zeros(&[3, 4])?.t()?; // column-major [4, 3]
    /// let r = Generator::new(9).randn_like(&x)?;
    /// assert_eq!(r.strides(), x.strides()); // its memory order
    /// assert_eq!(r, Generator::new(9).randn::<f32>(&[4, 3])?); // the same values
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn randn_like<T: FloatElement>(&mut self, like: &Tensor<T>) -> Result<Tensor<T>> {
        let layout = like.layout().dense_like()?;
        let s = Normal {
            mean: T::zero(),
            std: T::one(),
        };
        self.draw("randn_like", &layout, &s)
    }

    /// Uniform samples on `[0, 1)` in the shape and memory order of `like` (PyTorch's
    /// `rand_like`), as [`Generator::randn_like`] for [`Generator::rand`].
    ///
    /// # Errors
    /// As [`Generator::rand`].
    ///
    /// ```
    /// use stridex::{Tensor, random::Generator};
    /// let x = Tensor::<f64>::zeros(&[2, 5])?.flip(1)?;
    /// let r = Generator::new(2).rand_like(&x)?;
    /// assert_eq!(r, Generator::new(2).rand::<f64>(&[2, 5])?);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn rand_like<T: FloatElement>(&mut self, like: &Tensor<T>) -> Result<Tensor<T>> {
        let layout = like.layout().dense_like()?;
        let s = Uniform {
            low: T::zero(),
            width: T::one(),
        };
        self.draw("rand_like", &layout, &s)
    }

    /// Integers on `[low, high)`, uniform (PyTorch's `randint`), row-major.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `low < high` and both `low` and `high - 1` are
    /// values of `T`; as [`Generator::rand`].
    ///
    /// ```
    /// let mut g = stridex::random::Generator::new(11);
    /// let x = g.randint::<i64>(-3, 3, &[500])?;
    /// assert!(x.iter().all(|v| (-3..3).contains(&v)));
    /// assert!(x.iter().any(|v| v == -3) && x.iter().any(|v| v == 2));
    /// assert!(g.randint::<u8>(0, 300, &[1]).is_err()); // 299 is not a u8
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn randint<T: IntElement + num_traits::NumCast>(
        &mut self,
        low: i64,
        high: i64,
        shape: &[usize],
    ) -> Result<Tensor<T>> {
        let fits = |v: i64| <T as num_traits::NumCast>::from(v).is_some();
        if low >= high || !fits(low) || !fits(high - 1) {
            return Err(Error::InvalidArgument {
                op: "randint",
                message: format!(
                    "needs low < high with low and high - 1 in range of {:?}, got [{low}, {high})",
                    T::DTYPE
                ),
            });
        }
        let s = Ints {
            low: i128::from(low),
            range: (i128::from(high) - i128::from(low)) as u64,
        };
        self.draw("randint", &Layout::contiguous(shape)?, &s)
    }

    /// 1 with probability `probs[i]`, 0 otherwise, for each element (PyTorch's
    /// `bernoulli(probs)`): `u < p` for a uniform `u` on `[0, 1)`, in the shape of `probs`
    /// (row-major), in its element type. `probs` may have any layout (read in place).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if a probability is outside `[0, 1]` (or NaN); as
    /// [`Generator::rand`].
    ///
    /// ```
    /// use stridex::{Tensor, random::Generator};
    /// let p = Tensor::from_vec(vec![0.0f32, 1.0, 0.5, 0.5], &[2, 2])?;
    /// let b = Generator::new(4).bernoulli(&p)?;
    /// assert_eq!((b.get(&[0, 0])?, b.get(&[0, 1])?), (0.0, 1.0));
    /// assert!(b.iter().all(|v| v == 0.0 || v == 1.0));
    /// assert!(Generator::new(4).bernoulli(&Tensor::full(&[1], 1.5f32)?).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn bernoulli<T: FloatElement>(&mut self, probs: &Tensor<T>) -> Result<Tensor<T>> {
        if let Some(p) = probs.iter().find(|p| !(*p >= T::zero() && *p <= T::one())) {
            return Err(Error::InvalidArgument {
                op: "bernoulli",
                message: format!("probabilities must be in [0, 1], got {p}"),
            });
        }
        let u = self.rand::<T>(probs.shape())?;
        u.zip_map(probs, |u, p| if u < p { T::one() } else { T::zero() })
            .map_err(|e| e.named("bernoulli"))
    }

    /// The next stream, used by one draw.
    fn next_stream(&mut self) -> u64 {
        let s = self.stream;
        self.stream = self.stream.wrapping_add(1);
        s
    }

    /// Fills a fresh tensor of the dense `layout` with `sampler`'s elements by logical index.
    fn draw<T: Element, S: Sampler<T>>(
        &mut self,
        op: &'static str,
        layout: &Layout,
        sampler: &S,
    ) -> Result<Tensor<T>> {
        let stream = self.next_stream();
        let key = [self.seed as u32, (self.seed >> 32) as u32];
        let block = |g: u64| {
            philox4x32_10(
                [
                    g as u32,
                    (g >> 32) as u32,
                    stream as u32,
                    (stream >> 32) as u32,
                ],
                key,
            )
        };
        let (shape, strides) = (layout.shape(), layout.strides());
        // The logical (row-major) index of each element, as a layout over the dims in the
        // order of `layout`'s memory (outermost first): walking it row-major walks memory.
        let logical = crate::layout::row_major_strides(shape).ok_or(Error::Overflow {
            op,
            shape: shape.to_vec(),
            strides: vec![],
        })?;
        let mut order: Vec<usize> = (0..shape.len()).collect();
        order.sort_by_key(|&d| std::cmp::Reverse(strides[d]));
        let mut perm_shape: Vec<usize> = order.iter().map(|&d| shape[d]).collect();
        let mut perm_logical: Vec<isize> = order.iter().map(|&d| logical[d]).collect();
        if perm_shape.is_empty() {
            (perm_shape, perm_logical) = (vec![1], vec![1]);
        }
        let walk_layout = Layout::new(&perm_shape, &perm_logical, 0)?;
        let walk = LineWalk::new(&walk_layout, perm_shape.len() - 1);
        let g = S::G as u64;
        let storage = fresh_by_lines(op, shape, walk.lines(), walk.len, 8, |line, out| {
            let base = walk.base(line);
            let mut cached = u64::MAX;
            let mut values = [T::zeroed(); 4];
            for j in 0..walk.len {
                let i = walk.at(base, j) as u64;
                if i / g != cached {
                    cached = i / g;
                    sampler.sample(block(cached), &mut values);
                }
                out.push(values[(i % g) as usize]);
            }
        })?;
        Ok(Tensor::from_parts(Arc::new(storage), layout.clone()))
    }
}
