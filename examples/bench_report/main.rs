//! The bench report: one markdown table per thread count (1, and all cores) of stridex's
//! materialising copies as ratios to REF (a 1-thread memcpy of 64 MiB into a touched buffer),
//! then elementwise ops and sums, then writes through views, `cat` and `pad`, with ndarray side
//! by side, sorting / top-k / `tril` / `randn` against plain loops, and last the same ops
//! called from `main` on the global pool against one thread.
//! Run with `cargo run --release --example bench_report`.

mod copy_cases;
mod elementwise;
mod harness;
mod ops_index;
mod ops_reduce;
mod ops_sort;
mod outside;
mod small;
mod sums;
mod writes;

fn main() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let reps = std::env::var("BENCH_REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    // BENCH_THREADS="1,2,4" picks the thread counts (default: 1 and all cores).
    let counts: Vec<usize> = match std::env::var("BENCH_THREADS") {
        Ok(list) => list
            .split(',')
            .filter_map(|s| s.trim().parse().ok())
            .collect(),
        Err(_) if cores > 1 => vec![1, cores],
        Err(_) => vec![1],
    };
    println!("# stridex bench report\n");
    let (cpu, t) = (stridex::CpuInfo::get(), stridex::CopyTuning::get());
    println!(
        "CPU: {} ({}); L1d {} KiB, L2 {} KiB ({}-way), LLC {} MiB ({} CPUs); AVX2 {}, AVX-512BW {}.\n\
         Copy parameters: tile rows {} B, packed planes from {} KiB, L2 way {} KiB, streaming \
         stores above {} MiB, prefetch {} tiles ahead, groups of {} tiles (at most {} rows, {} per L2 set; 0: no limit), row runs blocked {} \
         at a time, parallel from {} KiB, runs credited up to {} B, transposed operands staged \
         through {} KiB a thread when the output streams (0: L2 tiles only), {} B of each \
         staged row a tile, prefetched into the {}.\n",
        cpu.model,
        cpu.vendor,
        cpu.l1d_bytes >> 10,
        cpu.l2_bytes >> 10,
        cpu.l2_ways,
        cpu.llc_bytes >> 20,
        cpu.llc_cpus,
        cpu.avx2,
        cpu.avx512bw,
        t.tile_bytes,
        t.packed_min_bytes >> 10,
        t.l2_way_bytes >> 10,
        t.stream_min_bytes >> 20,
        t.prefetch_tiles,
        t.group_lines,
        t.group_max_rows,
        t.group_rows_per_l2_set,
        t.run_streams,
        t.parallel_bytes >> 10,
        t.page_bytes,
        t.stage_buffer_bytes >> 10,
        t.stage_row_bytes,
        if t.stage_prefetch_l2 { "L2" } else { "L1" },
    );
    println!(
        "{cores} cores; medians of {reps} runs; REF measured interleaved with every case. \
         ndarray is single-threaded in every table.\n"
    );
    for threads in counts {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        let mut h = harness::Harness::new(reps);
        eprintln!("{threads} thread(s):");
        pool.install(|| copy_cases::all(&mut h));
        println!(
            "## {threads} thread(s): copies (`contiguous()` fresh, `contiguous_into` into a reused buffer)\n"
        );
        println!("{}", h.table("ndarray"));
        println!(
            "fresh: `contiguous()` into a new storage (after the first run, the large-buffer \
             cache hands back the previous output's pages); cold: the same with the cache off, \
             so every output lands on fresh huge pages the kernel must fault in and zero; fresh \
             memcpy: a memcpy of the output's bytes into a newly allocated 2 MiB aligned buffer \
             advised for huge pages (allocation, faults and free inside the timing), the floor \
             for a cold output, and cold / fresh memcpy the cold copy's speed as a fraction of \
             it; into: `contiguous_into` a reused `Vec`, placed 16 bytes past a cache line \
             (where glibc's large allocations start). ndarray allocates normally (4 KiB \
             pages).\n"
        );
        let mut h = harness::Harness::new(reps);
        pool.install(|| elementwise::all(&mut h));
        println!("## {threads} thread(s): elementwise ops and sums (fresh outputs)\n");
        println!("{}", h.table("ndarray"));
        let mut h = harness::Harness::new(reps);
        pool.install(|| writes::all(&mut h));
        println!("## {threads} thread(s): writes through views, cat and pad\n");
        println!("{}", h.table_vs_baseline("ndarray"));
        println!(
            "baseline: the operation the write must match, timed in the same run: \
             `x.t().contiguous_into` into a reused buffer for the copies, a plain slice fill of \
             the same bytes for the fill; none for cat and pad (REF is theirs). cold: the \
             large-buffer cache off (matters only for cat and pad, which allocate).\n"
        );
        let mut h = harness::Harness::new(reps);
        pool.install(|| {
            ops_reduce::all(&mut h);
            ops_index::all(&mut h);
        });
        let mut hs = harness::Harness::new(reps);
        pool.install(|| ops_sort::all(&mut hs));
        if !hs.rows.is_empty() {
            println!(
                "## {threads} thread(s): sort, topk, tril and randn (`cargo run --release \
                 --example bench_report --features random` for randn)\n"
            );
            println!("{}", hs.table_vs_baseline("ndarray"));
            println!(
                "baseline: the plain loop (values only: `sort_unstable_by` / \
                 `select_nth_unstable_by` over a contiguous copy of each line, a triangle written \
                 into `vec![0.0; n]`, one thread of Philox + Box-Muller); stridex also returns \
                 the indices of `sort` and `topk`.\n"
            );
        }
        let small = pool.install(small::table);
        if small.lines().count() > 2 {
            println!(
                "## {threads} thread(s): small tensors (ns per call; the ratios are stridex's \
                 time over ndarray's, below 1 is faster)\n"
            );
            println!("{small}");
        }
        if !h.rows.is_empty() {
            println!(
                "## {threads} thread(s): softmax, scans, variance and indexing (fresh outputs)\n"
            );
            println!("{}", h.table("ndarray"));
        }
    }
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let sums = one.install(|| sums::table(reps));
    if !sums.is_empty() {
        println!(
            "## 1 thread: sums in the canonical order against plain loops (Note [canonical \
             order])\n"
        );
        println!("{sums}");
    }
    if let Some(t) = outside::table() {
        println!(
            "## Calls from outside the pool (ns per call; ratio: from main over one thread, \
             above 1 is slower)\n"
        );
        println!("{t}");
    }
}
