//! Micro-kernels: `C[m × n] (+)= Ã · B̃` for one register tile, on packed panels.
//!
//! A micro-kernel multiplies an `mr × kc` panel of A by a `kc × nr` panel of B, both packed by
//! [`super::core`] into the order the kernel reads them (A: `mr` values per step of `k`, B: `nr`
//! values per step of `k`, zero-padded to full panels), and writes the `mr × nr` result to `C`
//! at any strides. Only the top-left `m × n` corner is written (edge tiles).
//!
//! One kernel per accumulator type and instruction set, chosen once per call at run time:
//!
//! | acc | ISA          | `mr × nr` | registers                         |
//! |-----|--------------|-----------|-----------------------------------|
//! | f32 | AVX-512F (1) | 12 × 32   | 24 accumulators, 2 B, 1 broadcast |
//! | f64 | AVX-512F (1) | 12 × 16   | 24 accumulators, 2 B, 1 broadcast |
//! | f32 | AVX2 + FMA   | 6 × 16    | 12 accumulators, 2 B, 1 broadcast |
//! | f64 | AVX2 + FMA   | 6 × 8     | 12 accumulators, 2 B, 1 broadcast |
//! | any | portable     | 4 × 4     | (plain Rust, for other machines)  |
//!
//! (1) Built with Rust 1.89 or newer (the build script sets `cfg(stridex_avx512)`; older
//! compilers, down to the crate's minimum version, build the other kernels alone),
//! and not on AMD Zen 4, where they run no faster than AVX2 ([`Accum::best_kernel`]).
//!
//! The blocking sizes next to each kernel (`kc`, `mc`, `nc`) size the packed panels for the
//! caches: a `kc × nr` B panel stays in L1 while the kernel sweeps the `mc × kc` A block in L2.

use std::fmt::Debug;
use std::sync::OnceLock;

/// One register tile of work for a micro-kernel.
pub struct Tile<A> {
    /// Depth of the panels.
    pub kc: usize,
    /// Packed A panel: `kc` groups of `mr` values.
    pub a: *const A,
    /// Packed B panel: `kc` groups of `nr` values.
    pub b: *const A,
    /// Element `(0, 0)` of the C tile.
    pub c: *mut A,
    /// Row stride of C, in elements.
    pub rs_c: isize,
    /// Column stride of C, in elements.
    pub cs_c: isize,
    /// Rows of C to write (`<= mr`).
    pub m: usize,
    /// Columns of C to write (`<= nr`).
    pub n: usize,
    /// Start each element's sum at C's value (`true`) or at zero, overwriting C without
    /// reading it (`false`). Either way the kernel makes `kc` fused multiply-adds per element
    /// on that start, in `k` order, and stores the result: a `k` split into blocks gives the
    /// bits of one pass (Note [canonical order] in `super`).
    pub accumulate: bool,
}

/// A micro-kernel and the blocking that suits it.
#[derive(Clone, Copy)]
pub struct Kernel<A> {
    /// Rows of a register tile.
    pub mr: usize,
    /// Columns of a register tile.
    pub nr: usize,
    /// Depth of a packed block (the `k` step).
    pub kc: usize,
    /// Rows of a packed A block (a multiple of `mr`).
    pub mc: usize,
    /// Columns of a packed B block (a multiple of `nr`).
    pub nc: usize,
    /// Runs one tile.
    ///
    /// # Safety
    /// `a` holds `kc * mr` and `b` holds `kc * nr` readable values; `c + i * rs_c + j * cs_c` is
    /// valid for writes (and reads if `accumulate`) for `i < m <= mr`, `j < n <= nr`, and no
    /// other thread touches those elements during the call; the CPU supports the kernel's
    /// instruction set (the constructors check it).
    pub run: unsafe fn(&Tile<A>),
    /// For benchmarks and diagnostics.
    #[allow(dead_code)]
    pub name: &'static str,
}

/// An accumulator type: what products are summed in (`f32` for every type up to 32 bits, `f64`
/// for `f64`).
pub trait Accum: num_traits::Float + Default + Debug + Send + Sync + 'static {
    /// Every kernel this CPU can run, the portable one first, the widest last.
    fn kernels() -> Vec<Kernel<Self>>;
    /// The kernel products use on this CPU (chosen once): the widest it can run, except that
    /// AVX-512 is passed over where `x86::avx512_is_split` says its 512-bit multiply-adds
    /// run as two 256-bit halves, so it cannot beat AVX2 (see the `avx512` feature's note in
    /// the crate docs, and `build.rs`, which compiles them from Rust 1.89 on).
    fn best_kernel() -> Kernel<Self>;
}

macro_rules! accum {
    ($t:ty, $avx2:ident, $avx512:ident) => {
        impl Accum for $t {
            fn kernels() -> Vec<Kernel<$t>> {
                #[allow(unused_mut)]
                let mut all = vec![portable_kernel()];
                #[cfg(target_arch = "x86_64")]
                {
                    if crate::kernels::dispatch::has_avx2_fma() {
                        all.push(x86::$avx2);
                    }
                    #[cfg(stridex_avx512)]
                    if x86::has_avx512() {
                        all.push(x86::$avx512);
                    }
                }
                all
            }

            fn best_kernel() -> Kernel<$t> {
                // One choice per SIMD level (`crate::simd`), each made once.
                static BEST: [OnceLock<Kernel<$t>>; 3] = [const { OnceLock::new() }; 3];
                let level = crate::simd::simd_level();
                *BEST[level as usize].get_or_init(|| {
                    let all: Vec<Kernel<$t>> = Self::kernels()
                        .into_iter()
                        .filter(|k| kernel_level(k.name) <= level)
                        .collect();
                    #[cfg(all(target_arch = "x86_64", stridex_avx512))]
                    if x86::avx512_is_split() {
                        if let Some(k) = all.iter().rev().find(|k| k.name != x86::$avx512.name) {
                            return *k;
                        }
                    }
                    *all.last().expect("the portable kernel")
                })
            }
        }
    };
}

/// The SIMD level a kernel needs, read from its name.
fn kernel_level(name: &str) -> crate::simd::SimdLevel {
    use crate::simd::SimdLevel;
    if name.starts_with("avx512") {
        SimdLevel::Avx512
    } else if name.starts_with("avx2") {
        SimdLevel::Avx2
    } else {
        SimdLevel::Portable
    }
}

accum!(f32, SGEMM_AVX2, SGEMM_AVX512);
accum!(f64, DGEMM_AVX2, DGEMM_AVX512);

/// The plain-Rust 4 × 4 kernel, for any accumulator type.
pub(crate) fn portable_kernel<A: Accum>() -> Kernel<A> {
    Kernel {
        mr: 4,
        nr: 4,
        kc: 256,
        mc: 64,
        nc: 2048,
        run: portable_4x4::<A>,
        name: "portable 4x4",
    }
}

/// Writes an `mr × nr` row-major result `ab` (row length `nr`) into the tile's C, element by
/// element: the path for edge tiles and C layouts a vector store cannot serve.
///
/// # Safety
/// As [`Kernel::run`] for `t.c`.
unsafe fn store_scalar<A: Accum>(t: &Tile<A>, ab: &[A], nr: usize) {
    for i in 0..t.m {
        for j in 0..t.n {
            // SAFETY: i < m and j < n, so this is an element of the tile the caller vouches for.
            unsafe { *t.c.offset(i as isize * t.rs_c + j as isize * t.cs_c) = ab[i * nr + j] };
        }
    }
}

/// The tile's C as an `mr × nr` row-major array (row length `nr`, zeros outside the `m × n`
/// corner) if `t.accumulate`, zeros otherwise: where each element's sum starts.
///
/// # Safety
/// As [`Kernel::run`] for `t.c`.
unsafe fn load_scalar<A: Accum>(t: &Tile<A>, ab: &mut [A], nr: usize) {
    if !t.accumulate {
        return;
    }
    for i in 0..t.m {
        for j in 0..t.n {
            // SAFETY: i < m and j < n, so this is an element of the tile the caller vouches
            // for, readable when accumulating.
            ab[i * nr + j] = unsafe { *t.c.offset(i as isize * t.rs_c + j as isize * t.cs_c) };
        }
    }
}

/// # Safety
/// As [`Kernel::run`] with `mr = nr = 4`.
unsafe fn portable_4x4<A: Accum>(t: &Tile<A>) {
    let mut ab = [A::zero(); 16];
    // SAFETY: the caller's contract covers the tile.
    unsafe { load_scalar(t, &mut ab, 4) };
    for p in 0..t.kc {
        // SAFETY: p < kc and the panels hold kc groups of 4 (the caller's contract).
        let (a, b) = unsafe {
            (
                std::slice::from_raw_parts(t.a.add(4 * p), 4),
                std::slice::from_raw_parts(t.b.add(4 * p), 4),
            )
        };
        for i in 0..4 {
            for j in 0..4 {
                // Fused, as in the SIMD kernels (a library call where the target has no
                // FMA instruction: slower, the same bits).
                ab[i * 4 + j] = a[i].mul_add(b[j], ab[i * 4 + j]);
            }
        }
    }
    // SAFETY: the caller's contract covers the tile.
    unsafe { store_scalar(t, &ab, 4) }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Kernel, Tile, load_scalar, store_scalar};
    use std::arch::x86_64::*;

    #[cfg(stridex_avx512)]
    pub(super) fn has_avx512() -> bool {
        !cfg!(miri)
            && is_x86_feature_detected!("avx512f")
            && crate::simd::allows(crate::simd::SimdLevel::Avx512)
    }

    /// Whether this CPU is an AMD Zen 4 (family 19h with AVX-512), whose vector units are
    /// 256 bits wide: each 512-bit multiply-add issues as two halves, so the AVX-512 kernels
    /// have the AVX2 kernels' peak. Measured on an EPYC of this family (1024³, one thread,
    /// kernels interleaved, AVX-512 blocking retuned for it: `kc` 512 / 384, `mc` 96 / 48):
    /// AVX-512 96-102 GFLOP/s against AVX2's 99-100 for `f32`, 47-50 against 50-51 for `f64`,
    /// the sign of the difference changing from run to run. The AVX2
    /// kernel is kept there, which also gives the same results as every AVX2-only machine.
    /// Zen 5 (family 1Ah) and Intel's AVX-512 cores have full-width units.
    #[cfg(stridex_avx512)]
    pub(super) fn avx512_is_split() -> bool {
        // `__cpuid` is a safe function in newer toolchains and an unsafe one in older ones.
        // SAFETY: `cpuid` exists on every x86_64 CPU; leaves 0 and 1 always exist.
        #[allow(unused_unsafe)]
        let (vendor, signature) = unsafe { (__cpuid(0), __cpuid(1).eax) };
        let amd = (vendor.ebx, vendor.edx, vendor.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
        // The family is the base family (bits 8..12), plus the extended one (bits 20..28)
        // when the base family is 0xF.
        let base = (signature >> 8) & 0xf;
        let family = if base == 0xf {
            base + ((signature >> 20) & 0xff)
        } else {
            base
        };
        amd && family == 0x19
    }

    /// 12 × 32: 24 of the 32 zmm registers accumulate. `kc = 192` keeps a 192 × 32 B panel
    /// (24 KiB) in a 32 KiB L1. These kernels run only on CPUs with full-width 512-bit units
    /// (see `avx512_is_split`), where this blocking has not been measured; on Zen 4, where
    /// it was, `kc = 512` / `mc = 96` beat it (96-104 against 95-97 GFLOP/s, 1024³ `f32`) but
    /// its 64 KiB B panel assumes Zen 4's split units and 1 MiB L2, so it is not used here.
    #[cfg(stridex_avx512)]
    pub(super) const SGEMM_AVX512: Kernel<f32> = Kernel {
        mr: 12,
        nr: 32,
        kc: 192,
        mc: 240,
        nc: 4080,
        run: sgemm_12x32,
        name: "avx512 12x32 f32",
    };

    #[cfg(stridex_avx512)]
    pub(super) const DGEMM_AVX512: Kernel<f64> = Kernel {
        mr: 12,
        nr: 16,
        kc: 192,
        mc: 120,
        nc: 4080,
        run: dgemm_12x16,
        name: "avx512 12x16 f64",
    };

    /// Blocking measured on Zen 3 (32 KiB L1, 512 KiB L2): `kc = 384` (a 24 KiB B panel)
    /// with `mc = 72` beat BLIS's usual 256 / 144 by about 3% at 1024³.
    pub(super) const SGEMM_AVX2: Kernel<f32> = Kernel {
        mr: 6,
        nr: 16,
        kc: 384,
        mc: 72,
        nc: 4080,
        run: sgemm_6x16,
        name: "avx2 6x16 f32",
    };

    pub(super) const DGEMM_AVX2: Kernel<f64> = Kernel {
        mr: 6,
        nr: 8,
        kc: 384,
        mc: 48,
        nc: 4080,
        run: dgemm_6x8,
        name: "avx2 6x8 f64",
    };

    /// Defines an `$mr`-row kernel whose rows are two SIMD vectors of `$lanes` values: per
    /// step of `k`, two loads of B, `$mr` broadcasts of A and `2 * $mr` FMAs into as many
    /// accumulators. The `k` loop is unrolled by four.
    macro_rules! simd_kernel {
        ($name:ident, $feat:literal, $t:ty, $v:ty, $mr:literal, $lanes:literal, $zero:ident,
         $load:ident, $splat:ident, $fma:ident, $store:ident) => {
            /// # Safety
            /// As [`Kernel::run`] with `mr = $mr`, `nr = 2 * lanes`; needs the CPU features
            /// named in `target_feature`.
            #[target_feature(enable = $feat)]
            #[allow(clippy::incompatible_msrv)] // only under `cfg(stridex_avx512)`; see below
            unsafe fn $name(t: &Tile<$t>) {
                const MR: usize = $mr;
                const NR: usize = 2 * $lanes;
                // SAFETY (whole body): the loads read `kc` groups of MR (A) and NR (B) values,
                // which the caller guarantees exist; the stores touch only the m × n tile the
                // caller vouches for; the features are enabled on this function and were
                // detected before the kernel was chosen.
                unsafe {
                    // Start fetching the C tile now; it is needed after the k loop.
                    for i in 0..t.m {
                        let row = t.c.wrapping_offset(i as isize * t.rs_c);
                        _mm_prefetch::<_MM_HINT_T0>(row.cast());
                        let last = row.wrapping_offset((t.n as isize - 1) * t.cs_c);
                        _mm_prefetch::<_MM_HINT_T0>(last.cast());
                    }
                    let whole = t.m == MR && t.n == NR && t.cs_c == 1;
                    let mut c: [[$v; 2]; MR] = [[$zero(); 2]; MR];
                    if t.accumulate && whole {
                        for (i, row) in c.iter_mut().enumerate() {
                            let p = t.c.offset(i as isize * t.rs_c);
                            *row = [$load(p), $load(p.add($lanes))];
                        }
                    } else if t.accumulate {
                        let mut ab = [0.0 as $t; MR * NR];
                        load_scalar(t, &mut ab, NR);
                        for (i, row) in c.iter_mut().enumerate() {
                            let p = ab.as_ptr().add(i * NR);
                            *row = [$load(p), $load(p.add($lanes))];
                        }
                    }
                    let (mut a, mut b) = (t.a, t.b);
                    macro_rules! step {
                        () => {
                            let b0 = $load(b);
                            let b1 = $load(b.add($lanes));
                            for (i, row) in c.iter_mut().enumerate() {
                                let ai = $splat(*a.add(i));
                                row[0] = $fma(ai, b0, row[0]);
                                row[1] = $fma(ai, b1, row[1]);
                            }
                            a = a.add(MR);
                            b = b.add(NR);
                        };
                    }
                    for _ in 0..t.kc / 4 {
                        step!();
                        step!();
                        step!();
                        step!();
                    }
                    for _ in 0..t.kc % 4 {
                        step!();
                    }
                    if whole {
                        for (i, row) in c.iter().enumerate() {
                            let p = t.c.offset(i as isize * t.rs_c);
                            $store(p, row[0]);
                            $store(p.add($lanes), row[1]);
                        }
                    } else {
                        let mut ab = [0.0 as $t; MR * NR];
                        for (i, row) in c.iter().enumerate() {
                            $store(ab.as_mut_ptr().add(i * NR), row[0]);
                            $store(ab.as_mut_ptr().add(i * NR + $lanes), row[1]);
                        }
                        store_scalar(t, &ab, NR);
                    }
                }
            }
        };
    }

    simd_kernel!(
        sgemm_6x16,
        "avx2,fma",
        f32,
        __m256,
        6,
        8,
        _mm256_setzero_ps,
        _mm256_loadu_ps,
        _mm256_set1_ps,
        _mm256_fmadd_ps,
        _mm256_storeu_ps
    );
    simd_kernel!(
        dgemm_6x8,
        "avx2,fma",
        f64,
        __m256d,
        6,
        4,
        _mm256_setzero_pd,
        _mm256_loadu_pd,
        _mm256_set1_pd,
        _mm256_fmadd_pd,
        _mm256_storeu_pd
    );
    // AVX-512 intrinsics are stable from Rust 1.89, above the crate's MSRV: the kernels are
    // compiled only under `cfg(stridex_avx512)`, which `build.rs` sets from Rust 1.89 on.
    #[cfg(stridex_avx512)]
    simd_kernel!(
        sgemm_12x32,
        "avx512f",
        f32,
        __m512,
        12,
        16,
        _mm512_setzero_ps,
        _mm512_loadu_ps,
        _mm512_set1_ps,
        _mm512_fmadd_ps,
        _mm512_storeu_ps
    );
    #[cfg(stridex_avx512)]
    simd_kernel!(
        dgemm_12x16,
        "avx512f",
        f64,
        __m512d,
        12,
        8,
        _mm512_setzero_pd,
        _mm512_loadu_pd,
        _mm512_set1_pd,
        _mm512_fmadd_pd,
        _mm512_storeu_pd
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chosen_kernel_is_one_this_cpu_runs() {
        let names: Vec<&str> = <f32 as Accum>::kernels().iter().map(|k| k.name).collect();
        let best = <f32 as Accum>::best_kernel().name;
        assert!(names.contains(&best), "{best} not in {names:?}");
        #[cfg(all(target_arch = "x86_64", stridex_avx512))]
        if x86::avx512_is_split() {
            assert!(
                !best.starts_with("avx512"),
                "{best} chosen on a split-AVX-512 CPU"
            );
        } else if x86::has_avx512() {
            assert!(
                best.starts_with("avx512"),
                "{best} chosen on a full AVX-512 CPU"
            );
        }
        #[cfg(target_arch = "x86_64")]
        if crate::kernels::dispatch::has_avx2_fma() {
            assert_ne!(best, "portable 4x4", "the portable kernel on an AVX2 CPU");
        }
    }
}
