//! How the packed tiles of a plane (`kernels/tile.rs`) go in groups: the two buffers a
//! group passes through, how many tiles side by side make a group ([`group_tiles`]: the
//! destination lines each row gets back to back, bounded by the source rows that share an L2
//! set), and when a group takes every tile down its columns at once, reading short source
//! rows whole ([`block_steps`]). The numbers behind them are in
//! [Note [copy parameters]](super::cpu::CopyTuning).

use std::mem::MaybeUninit;

use super::cpu::CopyTuning;

/// How many distinct sets of the L2 cache (`tuning.l2_way_bytes` a way) the starts of rows
/// `stride` bytes apart fall into: they repeat every `way / gcd(stride, way)` rows, so a
/// 256 KiB stride (the outer dim of a 3-dim permute) puts every row in one set, a 1 KiB
/// stride (a 256 x 256 `f32` transpose) spreads them over 64 of a 64 KiB way. 0 for a zero
/// stride (every row is the same one).
fn l2_sets(stride: usize, tuning: &CopyTuning) -> usize {
    if stride == 0 {
        return 0;
    }
    let way = tuning.l2_way_bytes;
    let (mut a, mut b) = (stride % way, way);
    while a != 0 {
        (a, b) = (b % a, a);
    }
    way / b
}

/// Whether `rows` rows `stride` bytes apart, read or written side by side, need more lines of
/// one L2 set than it has ways ([`l2_sets`]; `tuning.l2_ways`, see
/// [Note [copy parameters]](super::cpu::CopyTuning)).
pub(super) fn rows_alias_in_l2(stride: usize, rows: usize, tuning: &CopyTuning) -> bool {
    match l2_sets(stride, tuning) {
        0 => false,
        sets => rows.div_ceil(sets) > tuning.l2_ways,
    }
}

/// Bytes of one side of a packed tile: a cache line.
pub(super) const LINE: usize = 64;

/// Words in a cache line: the side of a packed tile (a multiple of every `Word::MK`).
pub(super) const fn line<W>() -> usize {
    LINE / std::mem::size_of::<W>()
}

/// The two buffers a packed group of tiles passes through (on the stack of the thread
/// copying): `a` (one tile, [`TILE_BYTES`]) at the start, and `b` (up to [`GROUP_BYTES`],
/// the group's tiles side by side) [`B_SHIFT`] bytes after `a`'s end. A whole-row block
/// (more than one step, [`block_steps`]) uses a pair of the same shape on the heap instead,
/// each up to [`BLOCK_BYTES`], allocated on its first use.
///
/// Were `b` exactly `LINE * LINE` = 4 KiB after `a`, every row the block transposes write
/// into `b` would share its address bits 0..12 with the row of `a` they read next, which a
/// CPU cannot tell from a store to the same address until the full addresses compare (4K
/// aliasing). The shift keeps the rows apart whatever the compiler does with the stack (a
/// precaution: on the Zen 4 VM measured, 0 and 2048 bytes timed the same).
pub(super) struct Buffers {
    mem: Packed2,
    block: Option<Box<MaybeUninit<Block2>>>,
}

/// Bytes of one packed tile, whatever its word size: `l` words square, `l` words a line.
const TILE_BYTES: usize = LINE * LINE;

/// Bytes of buffer `b`: the most a group of packed tiles holds (half a 32 KiB L1d, so the
/// group stays in L1 between its transposes and its writes beside buffer `a`).
pub(super) const GROUP_BYTES: usize = 16 << 10;

/// Room for both buffers and the shift between them.
#[repr(C, align(64))]
struct Packed2([MaybeUninit<u8>; TILE_BYTES + B_SHIFT + GROUP_BYTES]);

/// Bytes between the end of buffer `a` and the start of buffer `b`: half a page, so rows of
/// `a` and `b` never share their page offsets.
const B_SHIFT: usize = 2048;

/// Bytes of each buffer of a whole-row block: `b` holds the block's `steps x tiles` tiles
/// (64 tiles of `f32` at most, in the L2), `a` one column of `steps` tiles (never more than
/// `b`).
pub(super) const BLOCK_BYTES: usize = 64 << 10;

/// The most tiles down each column of a whole-row block: source rows whose tiled part is
/// longer than 8 lines (512 bytes) are read in groups of one line a row, whose passes along
/// long rows the prefetchers follow (a 4096 x 4096 `f32` transpose ran 15% slower in blocks
/// of 8 lines).
pub(super) const BLOCK_STEPS: usize = 8;

/// Room for both buffers of a whole-row block and the shift between them.
#[repr(C, align(64))]
struct Block2([MaybeUninit<u8>; BLOCK_BYTES + B_SHIFT + BLOCK_BYTES]);

impl Buffers {
    pub(super) fn new() -> Buffers {
        Buffers {
            mem: Packed2([MaybeUninit::uninit(); TILE_BYTES + B_SHIFT + GROUP_BYTES]),
            block: None,
        }
    }

    /// Buffer `a` and buffer `b`, 64-byte aligned, disjoint: for one step, [`TILE_BYTES`]
    /// and [`GROUP_BYTES`] on the stack; for more, [`BLOCK_BYTES`] each on the heap.
    pub(super) fn split(&mut self, steps: usize) -> (*mut u8, *mut u8) {
        if steps <= 1 {
            let base = self.mem.0.as_mut_ptr().cast::<u8>();
            // `b` ends at TILE_BYTES + B_SHIFT + GROUP_BYTES, the end of the array.
            return (base, base.wrapping_add(TILE_BYTES + B_SHIFT));
        }
        let block = self.block.get_or_insert_with(Box::new_uninit);
        let base = block.as_mut_ptr().cast::<u8>();
        // `b` ends at BLOCK_BYTES + B_SHIFT + BLOCK_BYTES, the end of the array.
        (base, base.wrapping_add(BLOCK_BYTES + B_SHIFT))
    }
}

/// The tiles down each column of a packed group (its steps along the source rows) for
/// planes whose full tiles span `rt` rows, in groups of `g` tiles of `W` whose source rows
/// are `src_col` words apart: all `rt / l` of them, reading each source row's tiled part
/// whole, when that is 2 to [`BLOCK_STEPS`] lines, the block's tiles fit [`BLOCK_BYTES`] and
/// the group's rows spread over the L2 sets ([`rows_alias_in_l2`]); else 1 (one line a row
/// per group).
///
/// On the 2-core AMD EPYC (Zen 2) VM of Note [copy parameters], 1 thread, sources on huge
/// pages, groups against blocks side by side: `permute([0, 2, 1])` / `[2, 0, 1]` of 256 x 512
/// x 128 `f32` (8 lines a row) took 11.3-11.7 / 11.4 ms in groups and 9.0-9.8 / 8.9 ms in
/// blocks; NHWC to NCHW of 32 x 56 x 56 x 64 took 3.9-4.0 ms in groups and 3.3-3.4 in blocks
/// (`f32`, 4 lines), 2.2 and 1.7 (`f16`, 2 lines). `permute([2, 1, 0])`, whose rows 256 KiB
/// apart share one L2 set, took 14 ms in blocks against 9.6 or 19.9 ms in groups, as the
/// machine's state changed between runs, so aliasing rows stay in groups. Blocks of fewer
/// steps than a row has lines were slower than groups on every shape.
pub(super) fn block_steps<W>(rt: usize, g: usize, src_col: isize, tuning: &CopyTuning) -> usize {
    let l = line::<W>();
    let steps = rt / l;
    let fits = steps
        .saturating_mul(g)
        .saturating_mul(l * LINE)
        .le(&BLOCK_BYTES);
    let stride = src_col
        .unsigned_abs()
        .saturating_mul(std::mem::size_of::<W>());
    if (2..=BLOCK_STEPS).contains(&steps) && fits && !rows_alias_in_l2(stride, g * l, tuning) {
        steps
    } else {
        1
    }
}

/// The most packed tiles of `W` one group holds for source columns `src_col` words apart:
/// `tuning.group_lines` (the destination lines each row of a group writes back to back), at
/// most what buffer `b` holds, where `tuning.group_max_rows` is set at most that many source
/// rows (`l` a tile), and where `tuning.group_rows_per_l2_set` is set, few enough that the
/// group's source rows put at most that many lines in one L2 set ([`l2_sets`]); at least 1.
pub(super) fn group_tiles<W>(tuning: &CopyTuning, src_col: isize) -> usize {
    let l = line::<W>();
    let mut g = tuning.group_lines.clamp(1, GROUP_BYTES / (l * LINE));
    if tuning.group_max_rows != 0 {
        g = g.min(tuning.group_max_rows / l).max(1);
    }
    let stride = src_col
        .unsigned_abs()
        .saturating_mul(std::mem::size_of::<W>());
    match (tuning.group_rows_per_l2_set, l2_sets(stride, tuning)) {
        (0, _) | (_, 0) => g,
        (per_set, sets) => g.min(sets.saturating_mul(per_set) / l).max(1),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The parameters of a Zen 4 core (1 MiB 8-way L2, 32 MiB L3), whatever this machine is.
    pub(in crate::kernels) fn zen4() -> CopyTuning {
        CopyTuning::for_cpu(&super::super::cpu::CpuInfo {
            l1d_bytes: 32 << 10,
            l2_bytes: 1 << 20,
            l2_ways: 8,
            llc_bytes: 32 << 20,
            ..super::super::cpu::CpuInfo::fallback()
        })
    }

    /// Groups hold `group_lines` tiles (fewer where buffer `b` cannot hold them), and fewer
    /// where the source rows alias in the L2 sets (32 rows a set).
    #[test]
    fn groups_follow_the_tuning_and_the_l2_sets() {
        let z = zen4();
        // 16 KiB rows spread over 8 sets of a 128 KiB way: 8 tiles (128 rows), 16 a set.
        assert_eq!(group_tiles::<u32>(&z, 4096), 8);
        // 256 KiB rows share one set: 32 rows, two tiles.
        assert_eq!(group_tiles::<u32>(&z, 65536), 2);
        assert_eq!(group_tiles::<u8>(&z, 8192), 4);
        let emr = CopyTuning::for_cpu(&super::super::cpu::CpuInfo {
            vendor: "GenuineIntel".into(),
            l1d_bytes: 48 << 10,
            l2_bytes: 2 << 20,
            l2_ways: 16,
            ..super::super::cpu::CpuInfo::fallback()
        });
        // 16 KiB rows spread over 8 sets of a 128 KiB way: 2 tiles (32 rows) fit.
        assert_eq!(group_tiles::<u32>(&emr, 4096), 2);
        // 256 KiB rows share one set: 32 rows, two tiles of 16, or one of
        // 32 two-byte words.
        assert_eq!(group_tiles::<u32>(&emr, 65536), 2);
        assert_eq!(group_tiles::<u16>(&emr, 1 << 17), 1);
        // Byte tiles read 64 rows, Intel's most a group: one tile a group, while 2-byte
        // tiles of 32 rows go two at a time.
        assert_eq!(group_tiles::<u8>(&emr, 8192), 1);
        assert_eq!(group_tiles::<u16>(&emr, 8192), 2);
        // One set and 64-row byte tiles: still one tile, never zero; 8-byte tiles of 8 rows.
        assert_eq!(group_tiles::<u8>(&emr, 1 << 17), 1);
        assert_eq!(group_tiles::<u64>(&emr, 1 << 15), 2);
        assert_eq!(group_tiles::<u64>(&emr, 0), 2);
    }

    /// Whole-row blocks take rows of 2 to 8 lines whose tiles fit the block buffer and whose
    /// rows spread over the L2 sets; anything else stays in groups of one step.
    #[test]
    fn blocks_take_short_rows_that_fit_and_spread() {
        let z = zen4();
        // permute [2, 0, 1] / [0, 2, 1] of 256 x 512 x 128 f32: rows of 8 lines, 512 B apart.
        assert_eq!(block_steps::<u32>(128, 8, 128, &z), 8);
        // NHWC -> NCHW, 64 channels: 4 lines of f32, 2 of f16.
        assert_eq!(block_steps::<u32>(64, 8, 64, &z), 4);
        assert_eq!(block_steps::<u16>(64, 8, 64, &z), 2);
        // One line a row is a group; 9 lines are more than a block spans.
        assert_eq!(block_steps::<u32>(16, 8, 16, &z), 1);
        assert_eq!(block_steps::<u32>(144, 8, 144, &z), 1);
        // Byte tiles are 4 KiB: 4 steps of 4 tiles fill the 64 KiB, 5 do not.
        assert_eq!(block_steps::<u8>(256, 4, 256, &z), 4);
        assert_eq!(block_steps::<u8>(320, 4, 320, &z), 1);
        // Rows 256 KiB apart (permute [2, 1, 0]) share one L2 set: groups.
        assert_eq!(block_steps::<u32>(128, 2, 65536, &z), 1);
        assert_eq!(block_steps::<u32>(128, 2, -65536, &z), 1);
    }
}
