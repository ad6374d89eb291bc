//! Sorting and top-k along a dim, line by line ([`super::lines`]).
//!
//! # Note [sort keys]
//!
//! Each element becomes an unsigned integer *key* whose order is the order we sort by
//! ([`sort_key`]): floats by their IEEE bits with the sign flipped in (negative values
//! complemented), with every NaN mapped to the largest key and `-0.0` to `+0.0`'s key;
//! signed integers with the sign bit flipped; unsigned ones as they are. So NaN sorts after
//! `+inf` (PyTorch's order: last ascending, first descending), all NaNs tie, and `-0.0 ==
//! 0.0` ties. The key and the element's position in its line are packed into one integer
//! (`key << 32 | position` in a `u64` for types of up to 4 bytes and lines of up to 2^32
//! elements, a `u128` otherwise); descending order complements the key, not the position.
//! The packed values are all distinct, so *any* correct sort gives the same result, and that
//! result is the stable one (ties keep their positions' order): an unstable integer sort
//! (`sort_unstable`, parallel for a long `u128` line) is as good as a stable comparison sort,
//! and much faster. Long `u64` lines, built in position order, take a stable LSD radix sort
//! of the keys alone, which gives the same order again. Top-k with a small `k` keeps the `k`
//! smallest packed values in one pass. Values are decoded from their keys ([`from_sort_key`]),
//! except zeros and NaNs, whose keys several values share: those are read back from the line
//! by position, so NaN payloads and `-0.0` come out as they went in.

use half::{bf16, f16};

use crate::element::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::Storage;

use super::lines::{LineWalk, fresh_by_lines, fresh_pair_by_lines};
use super::parallel::{par_sort_unstable, threads_for};

/// The order key of `x` (Note \[sort keys\]): 32 significant bits for types of up to 4
/// bytes, 64 for 8-byte types.
#[inline(always)]
pub(crate) fn sort_key<T: Element>(x: T) -> u64 {
    const S32: u32 = 1 << 31;
    // Branch-free (signs are random in most data): a negative value's bits are all flipped,
    // a positive one's sign bit set; NaN and zero are selected, not branched on.
    #[inline(always)]
    fn f32_key(v: f32) -> u64 {
        let bits = if v == 0.0 { 0 } else { v.to_bits() };
        let flip = (((bits as i32) >> 31) as u32) | S32;
        u64::from(if v.is_nan() { u32::MAX } else { bits ^ flip })
    }
    #[inline(always)]
    fn f64_key(v: f64) -> u64 {
        let bits = if v == 0.0 { 0 } else { v.to_bits() };
        let flip = (((bits as i64) >> 63) as u64) | (1 << 63);
        if v.is_nan() { u64::MAX } else { bits ^ flip }
    }
    match T::DTYPE {
        DType::F32 => f32_key(bytemuck::cast::<T, f32>(x)),
        DType::F16 => f32_key(bytemuck::cast::<T, f16>(x).to_f32()),
        DType::BF16 => f32_key(bytemuck::cast::<T, bf16>(x).to_f32()),
        DType::F64 => f64_key(bytemuck::cast::<T, f64>(x)),
        DType::I8 => u64::from(i32::from(bytemuck::cast::<T, i8>(x)) as u32 ^ S32),
        DType::I16 => u64::from(i32::from(bytemuck::cast::<T, i16>(x)) as u32 ^ S32),
        DType::I32 => u64::from(bytemuck::cast::<T, i32>(x) as u32 ^ S32),
        DType::I64 => bytemuck::cast::<T, i64>(x) as u64 ^ (1 << 63),
        DType::U8 => u64::from(bytemuck::cast::<T, u8>(x)),
        DType::U16 => u64::from(bytemuck::cast::<T, u16>(x)),
        DType::U32 => u64::from(bytemuck::cast::<T, u32>(x)),
        DType::U64 => bytemuck::cast::<T, u64>(x),
    }
}

/// The element whose [`sort_key`] is `key`, where only one has it: `None` for the keys of
/// zero (`-0.0` and `0.0` share it) and of NaN (every payload shares it), which the caller
/// reads from the data instead. Floats of 2 bytes come back from their `f32` key exactly
/// (the widening that made it is exact).
#[inline(always)]
pub(crate) fn from_sort_key<T: Element>(key: u64) -> Option<T> {
    const S32: u32 = 1 << 31;
    // The inverse of `f32_key` in `sort_key`: a set top bit marks a positive value.
    #[inline(always)]
    fn f32_of(key: u64) -> Option<f32> {
        let k = key as u32;
        let bits = if k & S32 != 0 { k ^ S32 } else { !k };
        (k != S32 && k != u32::MAX).then_some(f32::from_bits(bits))
    }
    #[inline(always)]
    fn f64_of(key: u64) -> Option<f64> {
        const S64: u64 = 1 << 63;
        let bits = if key & S64 != 0 { key ^ S64 } else { !key };
        (key != S64 && key != u64::MAX).then_some(f64::from_bits(bits))
    }
    let i32_of = |key: u64| (key as u32 ^ S32) as i32;
    Some(match T::DTYPE {
        DType::F32 => bytemuck::cast(f32_of(key)?),
        DType::F16 => bytemuck::cast(f16::from_f32(f32_of(key)?)),
        DType::BF16 => bytemuck::cast(bf16::from_f32(f32_of(key)?)),
        DType::F64 => bytemuck::cast(f64_of(key)?),
        DType::I8 => bytemuck::cast(i32_of(key) as i8),
        DType::I16 => bytemuck::cast(i32_of(key) as i16),
        DType::I32 => bytemuck::cast(i32_of(key)),
        DType::I64 => bytemuck::cast((key ^ (1 << 63)) as i64),
        DType::U8 => bytemuck::cast(key as u8),
        DType::U16 => bytemuck::cast(key as u16),
        DType::U32 => bytemuck::cast(key as u32),
        DType::U64 => bytemuck::cast(key),
    })
}

/// What a line op keeps of each sorted line: all of it (`sort`) or its first `k` (`topk`,
/// then in sorted order or in the positions' order).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SortSpec {
    /// Largest first (NaN first) instead of smallest first (NaN last).
    pub(crate) descending: bool,
    /// Elements kept per line (the line's length for a sort).
    pub(crate) k: usize,
    /// Whether the kept elements come out in sorted order (else in their positions' order).
    pub(crate) sorted: bool,
}

/// Line elements from which a sort of one line is split across threads.
const PAR_SORT_MIN: usize = 1 << 16;

/// Largest `k` for which top-k keeps a sorted list of the best `k` in one pass instead of
/// selecting among all packed values.
const SMALL_K: usize = 32;
/// Elements the small-`k` selection compares with the `k`-th best at once.
const FILTER: usize = 16;

/// Line elements from which a whole `u64`-packed line is radix sorted.
const RADIX_MIN: usize = 512;

/// Sorts packed `key << 32 | position` values that are in position order by their keys
/// alone, with a stable LSD radix sort (four passes of 8 bits over the key, a pass skipped
/// when every key has the same digit there): ties keep their position order, so the result
/// is the sorted order of the whole packed values (Note \[sort keys\]).
fn radix_sort_keys(v: &mut Vec<u64>) {
    let n = v.len();
    let mut counts = [[0usize; 256]; 4];
    for &x in v.iter() {
        let k = (x >> 32) as u32;
        for (p, c) in counts.iter_mut().enumerate() {
            c[(k >> (8 * p)) as usize & 255] += 1;
        }
    }
    let mut other = vec![0u64; n];
    for (p, c) in counts.iter().enumerate() {
        if c.contains(&n) {
            continue;
        }
        let mut next = [0usize; 256];
        let mut sum = 0;
        for (d, &count) in c.iter().enumerate() {
            next[d] = sum;
            sum += count;
        }
        let shift = 32 + 8 * p;
        for &x in v.iter() {
            let d = (x >> shift) as usize & 255;
            other[next[d]] = x;
            next[d] += 1;
        }
        std::mem::swap(v, &mut other);
    }
}

/// The packed `(key, position)` values of one line, as `u64` or `u128` (Note \[sort keys\]).
trait Packed: Ord + Copy + Send + 'static {
    fn pack(key: u64, pos: usize) -> Self;
    fn pos(self) -> usize;
    /// The key as packed (the low 32 bits of it for `u64`).
    fn key(self) -> u64;
    /// `key` as [`Packed::pack`] keeps it: `Self::pack(key, 0).key()`.
    fn kept(key: u64) -> u64;
}

impl Packed for u64 {
    #[inline(always)]
    fn pack(key: u64, pos: usize) -> u64 {
        key << 32 | pos as u64
    }
    #[inline(always)]
    fn pos(self) -> usize {
        (self & u64::from(u32::MAX)) as usize
    }
    #[inline(always)]
    fn key(self) -> u64 {
        self >> 32
    }
    #[inline(always)]
    fn kept(key: u64) -> u64 {
        key & u64::from(u32::MAX)
    }
}

impl Packed for u128 {
    #[inline(always)]
    fn pack(key: u64, pos: usize) -> u128 {
        u128::from(key) << 64 | pos as u128
    }
    #[inline(always)]
    fn pos(self) -> usize {
        self as u64 as usize
    }
    #[inline(always)]
    fn key(self) -> u64 {
        (self >> 64) as u64
    }
    #[inline(always)]
    fn kept(key: u64) -> u64 {
        key
    }
}

/// Sorts (or selects the top `spec.k` of) every line of `layout` along `dim`: the kept values
/// and their positions along `dim`, each line's `spec.k` results contiguous, lines in
/// row-major order of the other dims (`out_shape` is the result's shape, for messages).
///
/// # Errors
/// [`Error::Overflow`](crate::Error::Overflow) / [`Error::Alloc`](crate::Error::Alloc) for
/// the outputs.
pub(crate) fn sort_lines<T: Element>(
    storage: &Storage<T>,
    layout: &Layout,
    dim: usize,
    spec: SortSpec,
    out_shape: &[usize],
) -> Result<(Storage<T>, Storage<i64>)> {
    let walk = LineWalk::new(layout, dim);
    if packs_in_u64::<T>(&walk) {
        values_and_positions::<T, u64>(storage, &walk, spec, out_shape)
    } else {
        values_and_positions::<T, u128>(storage, &walk, spec, out_shape)
    }
}

/// The positions part of [`sort_lines`] (an argsort): each line's kept positions along the
/// line, `spec.k` per line, lines in row-major order of the other dims.
///
/// # Errors
/// As [`sort_lines`].
pub(crate) fn sort_positions<T: Element>(
    storage: &Storage<T>,
    walk: &LineWalk,
    spec: SortSpec,
    out_shape: &[usize],
) -> Result<Storage<i64>> {
    if packs_in_u64::<T>(walk) {
        positions::<T, u64>(storage, walk, spec, out_shape)
    } else {
        positions::<T, u128>(storage, walk, spec, out_shape)
    }
}

/// Whether the lines of `walk` pack a key and a position into a `u64` (Note \[sort keys\]).
fn packs_in_u64<T: Element>(walk: &LineWalk) -> bool {
    T::DTYPE.size() <= 4 && u32::try_from(walk.len).is_ok()
}

/// Whether some element of `block` may beat the `k`-th best value `w` (key `wkey`, as packed,
/// after `flip`): `true` whenever one has a key below `wkey`, and possibly otherwise. Floats
/// compare as floats (`x > w` for the largest, `x < w` for the smallest; a NaN `x` always
/// passes, and every `x` when `w` is NaN), which needs no key per element; other types
/// compare keys. The caller decides each element of a passing block exactly.
#[inline(always)]
fn any_passes<T: Element, P: Packed>(
    block: &[T; FILTER],
    w: T,
    wkey: u64,
    flip: u64,
    descending: bool,
) -> bool {
    /// The float test: some `x` beyond `t` in the direction asked, or NaN; always if `t` is.
    /// Written as an OR of negated comparisons (`!(x <= t)` for the largest), each false only
    /// when both are numbers and `x` is not beyond `t`: packed compares and ORs, one mask
    /// test per block.
    #[inline(always)]
    #[allow(
        clippy::neg_cmp_op_on_partial_ord,
        reason = "the negation is the point: it makes a NaN on either side pass"
    )]
    fn floats<F: num_traits::Float>(xs: &[F; FILTER], t: F, descending: bool) -> bool {
        if descending {
            xs.iter().fold(false, |a, &x| a | !(x <= t))
        } else {
            xs.iter().fold(false, |a, &x| a | !(x >= t))
        }
    }
    match T::DTYPE {
        DType::F32 => floats(
            bytemuck::cast_ref::<[T; FILTER], [f32; FILTER]>(block),
            bytemuck::cast::<T, f32>(w),
            descending,
        ),
        DType::F64 => floats(
            bytemuck::cast_ref::<[T; FILTER], [f64; FILTER]>(block),
            bytemuck::cast::<T, f64>(w),
            descending,
        ),
        _ => block
            .iter()
            .fold(false, |a, &x| a | (P::kept(sort_key(x) ^ flip) < wkey)),
    }
}

/// The packed values of the line at `base` that the op keeps, in output order: its `spec.k`
/// best (smallest packed values, Note \[sort keys\]), sorted, or in position order unless
/// `spec.sorted`. `par_line` lets one long line be sorted by several threads.
fn kept_line<T: Element, P: Packed>(
    data: &[T],
    walk: &LineWalk,
    spec: SortSpec,
    base: isize,
    par_line: bool,
) -> Vec<P> {
    let flip = if spec.descending { u64::MAX } else { 0 };
    let (len, k) = (walk.len, spec.k);
    let mut packed: Vec<P> = if k < len && k <= SMALL_K {
        // One pass keeping the k smallest packed values in order: most elements are
        // rejected by one comparison with the k-th.
        let mut best: Vec<P> = Vec::with_capacity(k + 1);
        let mut worst: Option<P> = None; // the k-th best, once there are k
        let offer = |best: &mut Vec<P>, worst: &mut Option<P>, i: usize, x: T| {
            let p = P::pack(sort_key(x) ^ flip, i);
            if worst.is_some_and(|w| p >= w) {
                return;
            }
            let at = best.partition_point(|&q| q < p);
            best.insert(at, p);
            best.truncate(k);
            if best.len() == k {
                *worst = best.last().copied();
            }
        };
        if k == 0 {
            return best;
        }
        if walk.step == 1 {
            let start = base as usize;
            let xs = &data[start..start + len];
            // The first k elements the exact way; from then on the k-th best `t` bounds
            // the rest: a later element can enter the top k only if its key is below
            // `t`'s (on equal keys its position is the larger, and so is that of any
            // element it would have to displace). One branch-free test per block of
            // FILTER (it vectorises) says whether the block may hold a candidate; each
            // element of such a block goes to `offer`, which decides it exactly, and the
            // bound tightens after every such block, so on random data only about
            // FILTER * k * ln(len / k) elements are ever offered.
            let mut i = 0;
            while worst.is_none() && i < len {
                offer(&mut best, &mut worst, i, xs[i]);
                i += 1;
            }
            if let Some(w) = worst {
                let (mut t, mut tkey) = (xs[w.pos()], w.key());
                while len - i >= FILTER {
                    let block: &[T; FILTER] = xs[i..i + FILTER].try_into().expect("FILTER");
                    if any_passes::<T, P>(block, t, tkey, flip, spec.descending) {
                        for (j, &x) in block.iter().enumerate() {
                            offer(&mut best, &mut worst, i + j, x);
                        }
                        let w = worst.expect("k kept values stay k");
                        (t, tkey) = (xs[w.pos()], w.key());
                    }
                    i += FILTER;
                }
            }
            for (j, &x) in xs[i..].iter().enumerate() {
                offer(&mut best, &mut worst, i + j, x);
            }
        } else {
            for i in 0..len {
                offer(&mut best, &mut worst, i, data[walk.at(base, i)]);
            }
        }
        best
    } else {
        let mut packed: Vec<P> = (0..len)
            .map(|i| P::pack(sort_key(data[walk.at(base, i)]) ^ flip, i))
            .collect();
        if k < len {
            if k > 0 {
                packed.select_nth_unstable(k - 1);
            }
            packed.truncate(k);
        }
        if !spec.sorted {
            // Put in position order below.
        } else if k == len && len >= RADIX_MIN && radix(&mut packed) {
            // Sorted by the radix passes.
        } else if par_line && k == len {
            par_sort_unstable(&mut packed);
        } else {
            packed.sort_unstable();
        }
        packed
    };
    if !spec.sorted {
        packed.sort_unstable_by_key(|p| p.pos());
    }
    packed
}

/// Whether one long line is sorted by several threads (few lines to share among them), and
/// the work per element for the split of lines across threads (a sort costs about
/// `log2(len)` passes per element, so lines are split early).
fn line_work(walk: &LineWalk) -> (bool, usize) {
    let len = walk.len;
    let par_line = len >= PAR_SORT_MIN && walk.lines() < threads_for(len * walk.lines()).max(2);
    (par_line, (usize::BITS - len.leading_zeros()) as usize)
}

/// [`sort_positions`] with packed values of type `P`.
fn positions<T: Element, P: Packed>(
    storage: &Storage<T>,
    walk: &LineWalk,
    spec: SortSpec,
    out_shape: &[usize],
) -> Result<Storage<i64>> {
    let data = storage.as_slice();
    let (par_line, work) = line_work(walk);
    fresh_by_lines(
        "sort",
        out_shape,
        walk.lines(),
        spec.k,
        work,
        |line, out| {
            for p in kept_line::<T, P>(data, walk, spec, walk.base(line), par_line) {
                out.push(p.pos() as i64);
            }
        },
    )
}

/// [`sort_lines`] with packed values of type `P`: positions and values in one pass. Each
/// value is decoded from its key ([`from_sort_key`]) instead of being read back from the
/// line at its position (a random access per element: a cache and TLB miss each on a long
/// or strided line); only keys that several values share (zeros, NaNs) are read back, so
/// `-0.0` and NaN payloads come out as they went in.
fn values_and_positions<T: Element, P: Packed>(
    storage: &Storage<T>,
    walk: &LineWalk,
    spec: SortSpec,
    out_shape: &[usize],
) -> Result<(Storage<T>, Storage<i64>)> {
    let data = storage.as_slice();
    let (par_line, work) = line_work(walk);
    let flip = P::kept(if spec.descending { u64::MAX } else { 0 });
    fresh_pair_by_lines(
        "sort",
        out_shape,
        walk.lines(),
        spec.k,
        work,
        |line, values, out| {
            let base = walk.base(line);
            for p in kept_line::<T, P>(data, walk, spec, base, par_line) {
                out.push(p.pos() as i64);
                let value = from_sort_key::<T>(p.key() ^ flip);
                values.push(value.unwrap_or_else(|| data[walk.at(base, p.pos())]));
            }
        },
    )
}

/// Radix-sorts `packed` if it holds `u64` values (positions in order, as built); `false`
/// for `u128` values, which take the comparison sort.
// A `Vec`, not a slice: the downcast needs a sized type, and the radix passes swap buffers.
#[allow(clippy::ptr_arg)]
fn radix<P: Packed>(packed: &mut Vec<P>) -> bool {
    match (packed as &mut dyn std::any::Any).downcast_mut::<Vec<u64>>() {
        Some(v) => {
            radix_sort_keys(v);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_order_floats_with_nan_last_and_signed_zeros_equal() {
        let xs = [
            f32::NEG_INFINITY,
            -2.5,
            -f32::MIN_POSITIVE,
            0.0,
            f32::MIN_POSITIVE,
            1.0,
            f32::INFINITY,
        ];
        for w in xs.windows(2) {
            assert!(sort_key(w[0]) < sort_key(w[1]), "{w:?}");
        }
        assert_eq!(sort_key(-0.0f32), sort_key(0.0f32));
        assert_eq!(sort_key(f32::NAN), sort_key(-f32::NAN));
        assert!(sort_key(f32::NAN) > sort_key(f32::INFINITY));
        assert!(sort_key(f64::NAN) > sort_key(f64::INFINITY));
        assert!(sort_key(-1.0f64) < sort_key(-0.5f64));
        assert!(sort_key(-0.5f64) < sort_key(0.0f64));
        assert_eq!(sort_key(-0.0f64), sort_key(0.0f64));
        assert!(sort_key(f16::from_f32(-1.0)) < sort_key(f16::from_f32(0.5)));
        assert!(sort_key(bf16::NAN) > sort_key(bf16::INFINITY));
    }

    #[test]
    fn radix_sort_is_the_sort_of_the_packed_values() {
        let keys = [
            7u64,
            0,
            0xffff_ffff,
            7,
            0x0100_0000,
            3,
            0x0001_0000,
            7,
            0,
            0x8000_0000,
        ];
        for len in [0, 1, 5, 600, 5000] {
            let mut v: Vec<u64> = (0..len)
                .map(|i| keys[(i * 7) % keys.len()] << 32 | i as u64)
                .collect();
            let mut want = v.clone();
            want.sort_unstable();
            radix_sort_keys(&mut v);
            assert_eq!(v, want, "len {len}");
        }
        // All keys equal: every pass skipped, the order kept.
        let mut same: Vec<u64> = (0..1000).map(|i| 5u64 << 32 | i).collect();
        let want = same.clone();
        radix_sort_keys(&mut same);
        assert_eq!(same, want);
    }

    #[test]
    fn keys_order_integers() {
        assert!(sort_key(i8::MIN) < sort_key(-1i8) && sort_key(-1i8) < sort_key(0i8));
        assert!(sort_key(i64::MIN) < sort_key(-1i64) && sort_key(-1i64) < sort_key(i64::MAX));
        assert!(sort_key(i32::MAX) < u64::from(u32::MAX) + 1);
        assert!(sort_key(0u64) < sort_key(u64::MAX));
        assert!(sort_key(200u8) > sort_key(100u8));
    }

    /// `from_sort_key` inverts `sort_key` bit for bit wherever it answers, and answers for
    /// every value but zeros and NaNs.
    fn decodes<T: Element + std::fmt::Debug>(xs: impl IntoIterator<Item = T>) {
        for x in xs {
            let key = sort_key(x);
            match from_sort_key::<T>(key) {
                Some(y) => assert_eq!(bytemuck::bytes_of(&y), bytemuck::bytes_of(&x), "{x:?}"),
                None => assert!(
                    key == sort_key(<T as bytemuck::Zeroable>::zeroed())
                        || x.partial_cmp(&x).is_none(),
                    "{x:?} is neither zero nor NaN but was not decoded"
                ),
            }
        }
    }

    #[test]
    fn keys_decode_to_the_values_that_made_them() {
        // Every f16 and bf16 bit pattern, and f32 patterns across the whole range.
        decodes((0..=u16::MAX).map(f16::from_bits));
        decodes((0..=u16::MAX).map(bf16::from_bits));
        decodes((0..=u32::MAX).step_by(65_521).map(f32::from_bits));
        let special = [
            0.0f32,
            -0.0,
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        decodes(
            special
                .into_iter()
                .chain([f32::MIN_POSITIVE, -1e-45, f32::MAX, f32::MIN]),
        );
        decodes((0..=u64::MAX).step_by(1 << 44 | 12_345).map(f64::from_bits));
        decodes([0.0f64, -0.0, f64::NAN, f64::INFINITY, -5e-324, f64::MAX]);
        decodes(i8::MIN..=i8::MAX);
        decodes(u8::MIN..=u8::MAX);
        decodes((0..=u16::MAX).map(|b| b as i16));
        decodes(0..=u16::MAX);
        decodes([i32::MIN, -1, 0, 1, i32::MAX]);
        decodes([u32::MIN, 1, u32::MAX]);
        decodes([i64::MIN, -1, 0, 1, i64::MAX]);
        decodes([u64::MIN, 1, u64::MAX]);
        // Zero and NaN are the keys left to the data.
        assert!(from_sort_key::<f32>(sort_key(-0.0f32)).is_none());
        assert!(from_sort_key::<f64>(sort_key(f64::NAN)).is_none());
        assert!(from_sort_key::<bf16>(sort_key(bf16::NAN)).is_none());
    }
}
