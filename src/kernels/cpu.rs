//! What the running CPU reports about itself, and the copy kernel's parameters chosen from it.
//!
//! [`CpuInfo`] is read once per process: vendor and model from CPUID, cache sizes and ways
//! from Linux's sysfs (`/sys/devices/system/cpu/cpu0/cache/index*`), vector extensions from
//! the standard library's feature detection. [`CopyTuning`] turns those facts into the
//! numbers the strided copy uses, in one place (see the Note there).
//!
//! Under Miri, which cannot run CPUID or read sysfs, and on machines that report nothing, the
//! facts are the defaults named on each field; the parameters then match the ones measured on
//! a 2-core AMD EPYC (Zen 4) VM.

use std::sync::OnceLock;

/// Facts about the CPU this process runs on, as reported at run time.
///
/// # Examples
/// ```
/// let cpu = stridex::CpuInfo::get();
/// assert!(cpu.l1d_bytes > 0 && cpu.l2_bytes >= cpu.l1d_bytes);
/// println!("{} ({}): AVX2 {}", cpu.model, cpu.vendor, cpu.avx2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuInfo {
    /// CPUID vendor string, e.g. `AuthenticAMD`, `GenuineIntel` (`unknown` when not reported).
    pub vendor: String,
    /// CPUID brand string, e.g. `AMD EPYC 9654 96-Core Processor` (`unknown` when not
    /// reported).
    pub model: String,
    /// Bytes of a cache line (64 when not reported).
    pub line_bytes: usize,
    /// Bytes of the level-1 data cache of one core (32 KiB when not reported).
    pub l1d_bytes: usize,
    /// Bytes of the level-2 cache of one core (512 KiB when not reported).
    pub l2_bytes: usize,
    /// Ways of the level-2 cache (8 when not reported).
    pub l2_ways: usize,
    /// Bytes of the last-level cache (the highest level sysfs lists; 32 MiB when not
    /// reported).
    pub llc_bytes: usize,
    /// Logical CPUs sharing that last-level cache (sysfs `shared_cpu_list`; 1 when not
    /// reported).
    pub llc_cpus: usize,
    /// Whether the CPU has AVX2.
    pub avx2: bool,
    /// Whether the CPU has AVX-512 F and BW.
    pub avx512bw: bool,
}

impl CpuInfo {
    /// The facts of this CPU, detected on the first call and then kept.
    ///
    /// # Examples
    /// ```
    /// let cpu = stridex::CpuInfo::get();
    /// assert!(cpu.line_bytes.is_power_of_two());
    /// ```
    pub fn get() -> &'static CpuInfo {
        static INFO: OnceLock<CpuInfo> = OnceLock::new();
        INFO.get_or_init(detect)
    }

    /// The facts assumed where nothing is reported (and under Miri).
    pub(crate) fn fallback() -> CpuInfo {
        CpuInfo {
            vendor: "unknown".into(),
            model: "unknown".into(),
            line_bytes: 64,
            l1d_bytes: 32 << 10,
            l2_bytes: 512 << 10,
            l2_ways: 8,
            llc_bytes: 32 << 20,
            llc_cpus: 1,
            avx2: false,
            avx512bw: false,
        }
    }
}

#[cfg(miri)]
fn detect() -> CpuInfo {
    CpuInfo::fallback()
}

#[cfg(not(miri))]
fn detect() -> CpuInfo {
    let mut info = CpuInfo::fallback();
    #[cfg(target_arch = "x86_64")]
    {
        let (vendor, model) = x86_names();
        info.vendor = vendor;
        info.model = model;
        info.avx2 = std::arch::is_x86_feature_detected!("avx2");
        info.avx512bw = std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw");
    }
    for cache in sysfs_caches() {
        match (cache.level, cache.data) {
            (1, true) => info.l1d_bytes = cache.size,
            (2, _) => {
                info.l2_bytes = cache.size;
                if cache.ways > 0 {
                    info.l2_ways = cache.ways;
                }
            }
            _ => {}
        }
        if cache.level >= 2 {
            info.llc_bytes = cache.size;
            info.llc_cpus = cache.cpus.max(1);
        }
        if cache.line.is_power_of_two() {
            info.line_bytes = cache.line;
        }
    }
    info
}

/// The vendor and brand strings from CPUID leaves 0 and 0x8000_0002..=0x8000_0004.
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn x86_names() -> (String, String) {
    use std::arch::x86_64::__cpuid;
    let text = |words: &[u32]| {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        String::from_utf8_lossy(&bytes)
            .trim_matches(|c: char| c == '\0' || c.is_whitespace())
            .to_string()
    };
    let l0 = __cpuid(0);
    let vendor = text(&[l0.ebx, l0.edx, l0.ecx]);
    // The extended leaves are read only when leaf 0x8000_0000 lists them.
    let model = {
        if __cpuid(0x8000_0000).eax >= 0x8000_0004 {
            let words: Vec<u32> = (0x8000_0002u32..=0x8000_0004)
                .flat_map(|leaf| {
                    let r = __cpuid(leaf);
                    [r.eax, r.ebx, r.ecx, r.edx]
                })
                .collect();
            text(&words)
        } else {
            String::new()
        }
    };
    let or_unknown = |s: String| if s.is_empty() { "unknown".into() } else { s };
    (or_unknown(vendor), or_unknown(model))
}

/// One cache of `cpu0` as sysfs lists it.
#[cfg(not(miri))]
struct SysCache {
    level: usize,
    data: bool,
    size: usize,
    ways: usize,
    line: usize,
    cpus: usize,
}

/// The caches of `cpu0`, lowest level first (empty where sysfs is absent).
#[cfg(not(miri))]
fn sysfs_caches() -> Vec<SysCache> {
    let mut caches: Vec<SysCache> = (0..8)
        .filter_map(|i| {
            let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
            let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
            let kind = read("type")?;
            let number = |f: &str| read(f).and_then(|s| s.trim().parse::<usize>().ok());
            Some(SysCache {
                level: number("level")?,
                data: kind.trim() != "Instruction",
                size: parse_size(&read("size")?)?,
                ways: number("ways_of_associativity").unwrap_or(0),
                line: number("coherency_line_size").unwrap_or(0),
                cpus: read("shared_cpu_list").map_or(0, |l| count_cpus(&l)),
            })
        })
        .filter(|c| c.data)
        .collect();
    caches.sort_by_key(|c| c.level);
    caches
}

/// Counts the CPUs of a sysfs CPU list: `0-1`, `0-3,8-11`, `5` (0 for anything else).
#[cfg_attr(miri, allow(dead_code))]
fn count_cpus(list: &str) -> usize {
    let mut n = 0usize;
    for part in list.trim().split(',') {
        let mut ends = part.splitn(2, '-').map(|x| x.trim().parse::<usize>());
        n += match (ends.next(), ends.next()) {
            (Some(Ok(_)), None) => 1,
            (Some(Ok(a)), Some(Ok(b))) if b >= a => b - a + 1,
            _ => return 0,
        };
    }
    n
}

/// Parses a sysfs cache size: `48K`, `2048K`, `32M` or plain bytes.
#[cfg_attr(miri, allow(dead_code))]
fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (num, mul) = if let Some(n) = s.strip_suffix('K') {
        (n, 1 << 10)
    } else if let Some(n) = s.strip_suffix('M') {
        (n, 1 << 20)
    } else {
        (s, 1)
    };
    num.parse::<usize>().ok()?.checked_mul(mul)
}

/// The copy kernel's parameters, chosen from [`CpuInfo`].
///
/// # Note [copy parameters]
///
/// Every number the strided copy (`kernels/copy.rs`, `kernels/tile.rs`) tunes itself with is
/// set here, from the facts of [`CpuInfo`]:
///
/// - `tile_bytes`: bytes of each row of a square tile of in-register blocks (a 4-byte tile is
///   `tile_bytes / 4` words square). Read and written, a tile is `2 * tile_bytes^2 / size`
///   bytes: 256 keeps a 4-byte tile at 32 KiB, inside every L1d of 32 KiB or more; smaller L1s
///   get 128.
/// - `packed_min_bytes`: planes of at least this many bytes go through the packed line-square
///   tiles (each line read and written once, through two 4 KiB buffers); smaller ones stay in
///   the L2 while they are copied, so the square tiles, which skip the buffers, are faster.
///   Half the L2: 512 KiB on a Zen 4 core (1 MiB L2), where 256 x 256 `f32` measured up to
///   twice as fast without the buffers. Only for copies that stay cached: a copy that streams
///   (`stream_min_bytes`) packs every plane of a tile or more, since only the packed tiles
///   write whole lines with non-temporal stores (`permute([0, 2, 1])` of 256 x 512 x 128
///   `f32`, 256 KiB planes: 0.72-0.76x a memcpy with square tiles, 0.91-0.98x packed, on the
///   Xeon VM).
/// - `l2_way_bytes`, `l2_ways`: addresses `l2_way_bytes` apart share an L2 set; more than
///   `l2_ways` source rows in one set evict each other, so a plane whose rows do (the outer
///   dim of a permute, 256 KiB apart) is packed whatever its size.
/// - `stream_min_bytes`: copies whose source and destination together exceed the last-level
///   cache write with non-temporal stores (the destination cannot stay cached anyway, and
///   streaming skips reading each destination line first); below it streaming would evict
///   what the next op reads (2x slower, measured on a 16-core server whose L3 held the copy).
///   At most 32 MiB, whatever the LLC: a virtual machine may report its
///   host's whole L3 (480 MiB on a 2-core Intel Xeon VM), of which one process's copy keeps
///   little, and there a 4096x4096 `f32` transpose without streaming stores ran at 0.27x a
///   memcpy against 1.08x with them.
/// - `prefetch_tiles`: the packed transpose prefetches the source lines of the tile this many
///   tiles ahead along the source rows. A packed tile reads one line from each of `line`
///   source rows (16 rows of 4-byte words, 64 of bytes): more streams than a core's hardware
///   prefetchers follow, so without hints every tile waits on DRAM. AMD and unknown vendors
///   get 1 (the next line of each row), Intel 2. On the 2-core AMD EPYC Zen 2 VM, 1 thread
///   pinned to one CPU, sources on huge pages, 0 / 1 / 2 tiles ahead side by side: 4096 x
///   4096 `f32` 8.6 / 7.85 / 8.4 ms, `f16` 4.7-4.8 / 4.45 / 4.7 ms, 8192 x 8192 `u8` 10.7-10.8
///   / 10.3 / 10.7 ms, 2048 x 4096 `f64` 8.0-8.2 / 7.55 / 7.7-7.8 ms; the 3-dim permutes and
///   NHWC / NCHW within 1% of each other at 1 and 2. (Earlier sweeps on that VM that found
///   no difference timed the copy outside a 1-thread pool, see whole-row blocks below.)
/// - `run_prefetch_bytes`: a streamed copy of row runs (`narrow`, `permute([1, 0, 2])`,
///   `kernels/runs.rs`) prefetches its source this many bytes (8 KiB) ahead, in the order it
///   reads the runs. On a 2-core AMD EPYC Zen 5 (family 26 model 2) VM, 1 thread, reading 12
///   KiB of every 16 KiB (the rows of `narrow(1, 100, 3000)` of 4096 x 4096 `f32`) ran at
///   half the rate of reading the same bytes back to back (3.3 against 1.6 ms for 48 MiB),
///   and so did any gap of 1 KiB or more between runs (gaps up to 256 bytes cost nothing):
///   the hardware prefetchers start over on every run. With the prefetch the `narrow` copy
///   went 5.7-6.9 -> 2.4-3.1 ms and `permute([1, 0, 2])` of 256 x 512 x 128 `f32` (512-byte
///   runs, 4 KiB a source stream) 7.3-7.8 -> 3.6-5.0 ms; 4, 6, 10 and 16 KiB measured no
///   better (16 KiB: 4.3-4.9 ms for `narrow`). Reversed runs (`flip` of the inner dim,
///   `kernels/reversed.rs`) prefetch the same distance downwards: `flip(1)` of 4096 x 4096
///   `f32` 7.4-8.3 -> 3.2-3.4 ms, streamed through a line buffer. Not measured on Intel or
///   older AMD cores.
/// - `group_lines`: packed tiles go in groups of this many side by side along the
///   destination rows, so each destination row is written that many whole lines back to back
///   (at most 16 KiB of tiles: 4 for bytes). A group reads one line from each of
///   `l` source rows per tile (`l` words a line), so the number trades write runs against
///   read streams, and the two vendors' prefetchers want different ones. Measured on a 2-core AMD
///   EPYC Zen 3 VM, a 4096 x 4096 transpose's memory pattern streamed at 0.53-0.62x a memcpy
///   with one line per row (each line written lands in another DRAM row) and 0.9-1.3x with
///   4 to 8, for 1-, 2-, 4- and 8-byte words: AMD and unknown vendors get 8. On a 2-core
///   Intel Xeon (Emerald Rapids, family 6 model 207) VM, with the caches flushed before each
///   run, the same transposes ran at 0.57-0.60x a memcpy with groups of 8 and 1.04-1.25x
///   with 2 (4096 x 4096 `f32` and `f16`, 2048 x 4096 `f64`; 4000 x 4000 `f32`, whose rows
///   spread over the L2 sets, behaved the same, so the limit is the streams one core's
///   prefetchers follow, not cache sets): Intel gets 2.
/// - `group_rows_per_l2_set`: a group also keeps its source rows within this many per L2
///   set, 32 on every CPU (the lines the L2 streamer fetches ahead of each row must survive
///   until the group reads them). A `permute([2, 1, 0])` of 256 x 512 x 128 `f32` reads rows
///   256 KiB apart, all in one set. On the Xeon VM (16-way L2): 0.28x a memcpy with groups of
///   8 (128 rows); with groups of at most 64 rows (`group_max_rows`), a cap of 16 rows (one
///   tile) gave `[2, 1, 0]` and `[1, 2, 0]` 0.86-0.94x, 32 rows 1.12-1.32x and no cap
///   1.14-1.21x, the other copies the same within noise (caches flushed). On a 2-core AMD
///   EPYC Zen 2 (family 23 model 49) VM (512 KiB 8-way L2), 1 thread: no cap (groups of 8
///   tiles, 128 rows) 0.51-0.55x, 16 rows 0.88x / 0.52x (`[1, 2, 0]` / `[2, 1, 0]`), 32
///   rows 1.07-1.09x / 0.78-0.80x, 48 rows 1.02x / 0.72x, 64 rows 0.69x / 0.51x, the 2-D
///   transposes and the other permutes unchanged (their rows spread over 4 or more sets).
///   So the count is the same 32 rows on a 16-way and an 8-way L2, not a multiple of the
///   ways; the Zen 3 VM also measured its best 2-D transposes with 32 rows in an 8-way set.
/// - `group_max_rows`: on Intel, a group reads at most this many source rows (64; at least
///   one tile's `l` whatever the number). On the Xeon VM, with the caches flushed, 64 rows
///   a group streamed and 128 did not, whatever the word: 4096 x 4096 `f16` ran at 0.97-1.02x
///   a memcpy with 2 tiles of 32 rows and 0.59x with 4; an 8192 x 8192 `u8` transpose at
///   0.58x with 2 tiles of 64 rows and 0.69-0.73x with 1; `f32` the same with 2 or 4 tiles
///   of 16 rows. 0 (no limit) elsewhere.
/// - `stage_prefetch_rows`: the elementwise executor, staging a transposed operand through a
///   tile buffer (`kernels/staged.rs`), prefetches the source rows this many rows ahead
///   of the block it transposes (32: the rows of two 16-row blocks of 4-byte words), into
///   the L1, or into the L2 where `stage_prefetch_l2` (Intel, see `stage_row_bytes`).
/// - Whole-row blocks (not a field: `BLOCK_STEPS` and `BLOCK_BYTES` in `kernels/tile.rs`,
///   the rule in `tile::block_steps`): a packed group whose source rows are 2 to 8 lines
///   long in tiles (`permute([0, 2, 1])` and `[2, 0, 1]` of 256 x 512 x 128 `f32`, NHWC to
///   NCHW) reads those rows whole, through 64 KiB buffers, instead of one line a row per
///   pass: on the Zen 2 VM, 0.72x a memcpy -> 0.94x for both permutes, 0.84x -> 0.99x (`f32`)
///   and 0.70x -> 0.94x (`f16`) for NHWC to NCHW. Longer rows keep the passes (a 4096 x 4096
///   transpose in blocks of 8 lines ran 15% slower), and so do rows sharing an L2 set.
///   Measuring these on a 2-vCPU VM: a probe run outside a 1-thread pool splits the copy
///   over rayon's two threads whenever the second wakes in time (5.4 against 10 ms for the
///   same transpose, which once looked like a bimodal machine); and sources on 2 MiB pages
///   (every stridex allocation of 2 MiB or more) put rows 256 KiB apart into the same cache
///   sets physically, so `permute([1, 2, 0])` / `[2, 1, 0]` took 7.1-9.6 ms in one run of
///   the process and 17-20 ms in another minutes later, whatever the kernel.
/// - `read_weight`, `write_weight`: the cost model that orders a packed copy's loops
///   (`kernels/tile_nest.rs`) charges `weight * page / run` per side, where `run` is how many
///   bytes a stream runs before the walk jumps; reads weigh 2, writes 1 (a read waits for
///   DRAM, a streamed whole-line write does not).
/// - `parallel_bytes`: copies moving fewer bytes stay on the calling thread.
/// - `page_bytes`: the longest sequential run the loop-order cost model credits (a 4 KiB
///   page: the hardware prefetchers stop at page boundaries, so longer runs gain nothing).
/// - `run_streams`: a copy of row runs shorter than a page whose source jumps along the dim
///   just outside the runs (`permute([1, 0, 2])`) walks that dim in blocks of rows, a page
///   of runs but at most this many (16), each a sequential source stream
///   (`kernels/runs.rs`). In the destination's order, the 256 x 512 x 128 `f32` permute read
///   256 streams of 512-byte runs at once: 0.49-0.97x a memcpy on the Xeon VM, from one run
///   to the next.
/// - `stage_buffer_bytes`, `stage_row_bytes`: an elementwise op over a transposed operand
///   whose output streams (`a + b.t()` beyond the LLC, `kernels/staged.rs`) stages that
///   operand through a buffer of `stage_buffer_bytes` a thread, in tiles of `stage_row_bytes`
///   of each staged row by as many elements of each output row as the buffer holds (at most
///   4096). The two vendors want opposite shapes.
///   - AMD and unknown vendors: a page of each staged row (`stage_row_bytes` 4096), so both
///     sides read and write page-long runs, through a buffer of half the thread's share of
///     the LLC (size over the CPUs sysfs lists as sharing it), at most 4 MiB, and 0 (the
///     L2-sized tiles of `TILE_J_BYTES` x `TILE_L`) below 2 MiB. On the 2-core AMD EPYC
///     (Zen 2, 16 MiB L3) VM, 4096 x 4096 `f32`, 1 thread, the gather alone read `b` in
///     11-14 ms with 256-byte runs and in 4.7-5.6 ms with 4 KiB runs; the whole op took
///     16.8-19.1 ms with the L2 tiles, 13.1-13.5 ms at 4 KiB x 1024, 14.0 at 2 KiB x 2048,
///     14.8-15.3 at 4 KiB x 2048 (8 MiB), 16.1 at 8 KiB x 512. With page-long runs the
///     gather does not prefetch (the hardware follows a page; prefetching 32 rows ahead
///     measured 2-5% slower).
///   - Intel: two lines of each staged row (`stage_row_bytes` 128) by whole output rows,
///     through a buffer of a quarter of the L2 (32 x 4096 `f32`, 512 KiB, on a 2 MiB L2),
///     prefetching the staged rows into the L2 (`stage_prefetch_l2`). On the 2-core Xeon
///     (Sapphire Rapids class) VM, 4096 x 4096 `f32`, 1 thread pinned, shapes interleaved in
///     runs of one probe: 4 KiB x 1024 (the AMD shape) 29-30 ms, 128 B x 2048 22.3-23.7, 128 B x 4096
///     19.7-20.7 (16 / 24 / 48 / 64 rows: 20.7-26.6 / 18.5-19.2 / 17.5-18.1 / 19.9-20.7
///     with the L2 prefetch), and 16.5-17.3 ms with the rows prefetched into the L2 instead
///     of the L1 (the L1's fill buffers, not DRAM, bound a gather whose every source line
///     lies in another page); 2 threads 13.8-14.1 -> 8.0-8.4 ms (`a + b` 4.9-5.3). There
///     the gather alone took 7.7-8.2 ms and the op alone 8.5; gathering the next tile
///     between the op's rows (two buffers) measured 18.6-20.1 ms, slower again.
///
/// # Examples
/// ```
/// let t = stridex::CopyTuning::get();
/// assert!(t.packed_min_bytes <= stridex::CpuInfo::get().l2_bytes);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyTuning {
    /// Bytes of each row of a square tile of in-register blocks.
    pub tile_bytes: usize,
    /// Smallest plane (bytes of one side) copied through packed line-square tiles.
    pub packed_min_bytes: usize,
    /// Bytes of one way of the L2 cache.
    pub l2_way_bytes: usize,
    /// Ways of the L2 cache.
    pub l2_ways: usize,
    /// Smallest copy (source plus destination bytes) written with non-temporal stores.
    pub stream_min_bytes: usize,
    /// How many packed tiles ahead the transpose prefetches its source lines.
    pub prefetch_tiles: usize,
    /// How many bytes ahead a streamed copy of row runs prefetches its source (0: none).
    pub run_prefetch_bytes: usize,
    /// How many packed tiles a group writes side by side along each destination row.
    pub group_lines: usize,
    /// The most source rows of one packed group that may share an L2 set (0: no limit; 32).
    pub group_rows_per_l2_set: usize,
    /// The most source rows one packed group reads (0: no limit; never below one tile).
    pub group_max_rows: usize,
    /// How many source rows ahead the elementwise staging of a transposed operand prefetches.
    pub stage_prefetch_rows: usize,
    /// Whether that staging prefetches into the L2 rather than the L1.
    pub stage_prefetch_l2: bool,
    /// Weight of a source run in the loop-order cost model.
    pub read_weight: usize,
    /// Weight of a destination run in the loop-order cost model.
    pub write_weight: usize,
    /// Smallest copy (bytes moved) split across threads.
    pub parallel_bytes: usize,
    /// The longest sequential run, in bytes, the loop-order cost model credits.
    pub page_bytes: usize,
    /// The most source streams a blocked runs copy reads at once.
    pub run_streams: usize,
    /// Bytes of the buffers one thread may stage transposed operands through in an
    /// elementwise op that streams its output (0: the L2-sized tiles only).
    pub stage_buffer_bytes: usize,
    /// Bytes of each staged row such an op's tiles read.
    pub stage_row_bytes: usize,
}

/// The largest `stage_buffer_bytes` (see [`CopyTuning`]).
const STAGE_CAP: usize = 4 << 20;

/// `stage_buffer_bytes` for `cpu`: on Intel a quarter of the L2; elsewhere half its share of
/// the last-level cache, at most [`STAGE_CAP`], and 0 below 2 MiB (see
/// [Note [copy parameters]](CopyTuning)).
fn stage_buffer_bytes(cpu: &CpuInfo) -> usize {
    if cpu.vendor == "GenuineIntel" {
        return cpu.l2_bytes / 4;
    }
    let share = cpu.llc_bytes / cpu.llc_cpus.max(1) / 2;
    match share.min(STAGE_CAP) {
        b if b >= 2 << 20 => b,
        _ => 0,
    }
}

/// The largest `stream_min_bytes` (see [`CopyTuning`]).
const STREAM_CAP: usize = 32 << 20;

impl CopyTuning {
    /// The parameters for this CPU, chosen on the first call and then kept.
    ///
    /// # Examples
    /// ```
    /// let t = stridex::CopyTuning::get();
    /// assert!(t.tile_bytes.is_power_of_two() && t.page_bytes >= 4096);
    /// ```
    pub fn get() -> &'static CopyTuning {
        static TUNING: OnceLock<CopyTuning> = OnceLock::new();
        TUNING.get_or_init(|| CopyTuning::for_cpu(CpuInfo::get()))
    }

    /// The parameters for a CPU with the facts `cpu` (see the Note on [`CopyTuning`]).
    pub(crate) fn for_cpu(cpu: &CpuInfo) -> CopyTuning {
        let l2_ways = if cpu.l2_ways == 0 { 8 } else { cpu.l2_ways };
        let intel = cpu.vendor == "GenuineIntel";
        CopyTuning {
            tile_bytes: if cpu.l1d_bytes >= 32 << 10 { 256 } else { 128 },
            packed_min_bytes: (cpu.l2_bytes / 2).max(64 << 10),
            l2_way_bytes: (cpu.l2_bytes / l2_ways).max(4096).next_power_of_two(),
            l2_ways,
            stream_min_bytes: cpu.llc_bytes.min(STREAM_CAP),
            prefetch_tiles: if intel { 2 } else { 1 },
            run_prefetch_bytes: 8 << 10,
            group_lines: if intel { 2 } else { 8 },
            group_rows_per_l2_set: 32,
            group_max_rows: if intel { 64 } else { 0 },
            stage_prefetch_rows: 32,
            stage_prefetch_l2: intel,
            read_weight: 2,
            write_weight: 1,
            parallel_bytes: 1 << 20,
            page_bytes: 4096,
            run_streams: 16,
            stage_buffer_bytes: stage_buffer_bytes(cpu),
            stage_row_bytes: if intel { 128 } else { 4096 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_sizes_parse() {
        assert_eq!(parse_size("48K\n"), Some(48 << 10));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size(&format!("{}M", usize::MAX)), None);
    }

    #[test]
    fn sysfs_cpu_lists_count() {
        assert_eq!(count_cpus("0-1\n"), 2);
        assert_eq!(count_cpus("0-3,8-11"), 8);
        assert_eq!(count_cpus("5"), 1);
        assert_eq!((count_cpus("3-1"), count_cpus("all")), (0, 0));
    }

    #[test]
    fn staging_buffers_take_half_a_threads_llc_share() {
        let with = |llc_bytes: usize, llc_cpus: usize| {
            let cpu = CpuInfo {
                llc_bytes,
                llc_cpus,
                ..CpuInfo::fallback()
            };
            CopyTuning::for_cpu(&cpu).stage_buffer_bytes
        };
        // The Zen 2 VM measured (16 MiB, 2 CPUs), a VM reporting its host's whole L3, a
        // 6 MiB LLC on 2 CPUs, and a 32 MiB L3 shared by 16 CPUs (too small a share).
        assert_eq!(with(16 << 20, 2), 4 << 20);
        assert_eq!(with(480 << 20, 2), 4 << 20);
        assert_eq!(with(6 << 20, 1), 3 << 20);
        assert_eq!(with(32 << 20, 16), 0);
        assert_eq!(with(32 << 20, 0), 4 << 20);
        // Intel stages through its L2 whatever the LLC: a quarter of 2 MiB, in rows of two
        // lines prefetched into the L2.
        let spr = CpuInfo {
            vendor: "GenuineIntel".into(),
            l2_bytes: 2 << 20,
            llc_bytes: 480 << 20,
            llc_cpus: 2,
            ..CpuInfo::fallback()
        };
        let t = CopyTuning::for_cpu(&spr);
        assert_eq!(
            (t.stage_buffer_bytes, t.stage_row_bytes, t.stage_prefetch_l2),
            (512 << 10, 128, true)
        );
        let t = CopyTuning::for_cpu(&CpuInfo::fallback());
        assert_eq!((t.stage_row_bytes, t.stage_prefetch_l2), (4096, false));
    }

    #[test]
    fn tuning_follows_the_caches() {
        let zen4 = CpuInfo {
            l1d_bytes: 32 << 10,
            l2_bytes: 1 << 20,
            l2_ways: 8,
            llc_bytes: 32 << 20,
            ..CpuInfo::fallback()
        };
        let t = CopyTuning::for_cpu(&zen4);
        assert_eq!(
            (t.tile_bytes, t.packed_min_bytes, t.l2_way_bytes),
            (256, 512 << 10, 128 << 10)
        );
        assert_eq!(t.stream_min_bytes, 32 << 20);
        // A VM that reports its host's whole L3: streaming still starts at 32 MiB; a small
        // LLC lowers it.
        let vm = CpuInfo {
            llc_bytes: 480 << 20,
            ..zen4.clone()
        };
        assert_eq!(CopyTuning::for_cpu(&vm).stream_min_bytes, 32 << 20);
        let small_llc = CpuInfo {
            llc_bytes: 8 << 20,
            ..zen4.clone()
        };
        assert_eq!(CopyTuning::for_cpu(&small_llc).stream_min_bytes, 8 << 20);
        // A Skylake-SP core: 1 MiB, 16 ways; a core with a 16 KiB L1d and no ways reported.
        let skx = CpuInfo {
            l2_ways: 16,
            ..zen4.clone()
        };
        assert_eq!(CopyTuning::for_cpu(&skx).l2_way_bytes, 64 << 10);
        let small = CpuInfo {
            l1d_bytes: 16 << 10,
            l2_bytes: 256 << 10,
            l2_ways: 0,
            ..zen4
        };
        let t = CopyTuning::for_cpu(&small);
        assert_eq!(
            (t.tile_bytes, t.packed_min_bytes, t.l2_ways),
            (128, 128 << 10, 8)
        );
        assert_eq!(
            (
                t.group_lines,
                t.group_rows_per_l2_set,
                t.group_max_rows,
                t.prefetch_tiles
            ),
            (8, 32, 0, 1)
        );
        // An Emerald Rapids core: 48 KiB L1d, 2 MiB 16-way L2; Intel's groups are smaller
        // and capped by the L2 sets.
        let emr = CpuInfo {
            vendor: "GenuineIntel".into(),
            l1d_bytes: 48 << 10,
            l2_bytes: 2 << 20,
            l2_ways: 16,
            llc_bytes: 300 << 20,
            ..CpuInfo::fallback()
        };
        let t = CopyTuning::for_cpu(&emr);
        assert_eq!(
            (
                t.l2_way_bytes,
                t.group_lines,
                t.group_rows_per_l2_set,
                t.group_max_rows,
                t.prefetch_tiles
            ),
            (128 << 10, 2, 32, 64, 2)
        );
    }

    #[test]
    fn detected_facts_are_sane() {
        let cpu = CpuInfo::get();
        assert!(cpu.line_bytes.is_power_of_two());
        assert!(cpu.l1d_bytes > 0 && cpu.l2_bytes > 0 && cpu.llc_bytes > 0);
        assert!(!cpu.vendor.is_empty() && !cpu.model.is_empty());
        assert!(!cpu.avx512bw || cpu.avx2 || cfg!(miri));
    }
}
