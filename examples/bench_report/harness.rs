//! Timing harness of the bench report: every case is timed interleaved with REF, a
//! single-threaded 64 MiB memcpy into an already-touched buffer, so slow drifts of the machine
//! (frequency, other load) hit both alike and the ratio stays meaningful.

use std::hint::black_box;
use std::time::Instant;

/// Bytes REF copies (read once, written once).
pub const REF_BYTES: usize = 64 << 20;

/// Bytes REF moves per run, read + written: its throughput is counted the way the cases count
/// theirs.
const REF_MOVED: usize = 2 * REF_BYTES;

/// One timed case of a table.
pub struct Row {
    /// What was measured.
    pub case: String,
    /// Bytes moved per run (read + written), for GB/s.
    pub bytes: usize,
    /// stridex, fresh output: median ms.
    pub fresh_ms: f64,
    /// stridex, fresh output with the large-buffer cache off (every output on new pages).
    pub cold_ms: f64,
    /// A memcpy of the output's bytes into new huge-page memory, allocated (2 MiB aligned,
    /// `MADV_HUGEPAGE`) and freed inside the timing: what a cold output must cost at least.
    pub fresh_memcpy_ms: f64,
    /// stridex, into an existing buffer: median ms (if measured).
    pub into_ms: Option<f64>,
    /// The comparison library (ndarray): median ms (if measured).
    pub other_ms: Option<f64>,
    /// REF median ms measured interleaved with this case.
    pub ref_ms: f64,
}

impl Row {
    fn gbps(bytes: usize, ms: f64) -> f64 {
        bytes as f64 / ms / 1e6
    }

    /// Throughput of `ms` for this case as a fraction of REF's throughput.
    pub fn ratio(&self, ms: f64) -> f64 {
        Self::gbps(self.bytes, ms) / Self::gbps(REF_MOVED, self.ref_ms)
    }
}

/// Runs cases and collects rows.
pub struct Harness {
    reps: usize,
    filter: Option<String>,
    ref_src: Vec<u8>,
    ref_dst: Vec<u8>,
    /// The rows measured so far.
    pub rows: Vec<Row>,
}

/// Copies `bytes` bytes of `src` (repeated as needed) into a newly allocated, 2 MiB aligned
/// buffer advised for transparent huge pages, then frees it: the cold-output baseline.
fn fresh_memcpy(src: &[u8], bytes: usize) {
    const HUGE: usize = 2 << 20;
    let size = bytes.max(1).next_multiple_of(HUGE);
    let layout = std::alloc::Layout::from_size_align(size, HUGE).expect("layout");
    // SAFETY: the layout has non-zero size; the buffer is written only inside its `size`
    // bytes below, and freed once with the same layout.
    unsafe {
        let p = std::alloc::alloc(layout);
        assert!(!p.is_null(), "fresh_memcpy: allocation failed");
        #[cfg(target_os = "linux")]
        libc::madvise(p.cast(), size, libc::MADV_HUGEPAGE);
        let mut done = 0;
        while done < bytes {
            let n = (bytes - done).min(src.len());
            std::ptr::copy_nonoverlapping(src.as_ptr(), p.add(done), n);
            done += n;
        }
        black_box(p);
        std::alloc::dealloc(p, layout);
    }
}

fn time_ms(f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

impl Harness {
    /// A harness timing each function `reps` times (median), after one warm-up run.
    pub fn new(reps: usize) -> Harness {
        Harness {
            reps,
            filter: std::env::var("BENCH_FILTER").ok(),
            ref_src: vec![1u8; REF_BYTES],
            ref_dst: vec![0u8; REF_BYTES],
            rows: vec![],
        }
    }

    fn run_ref(&mut self) -> f64 {
        let (src, dst) = (&self.ref_src, &mut self.ref_dst);
        time_ms(&mut || {
            dst.copy_from_slice(black_box(src));
            black_box(&dst);
        })
    }

    /// Times `fresh` (and `into`, `other` when given), each run interleaved with a REF run.
    /// Cases whose name lacks the `BENCH_FILTER` substring (when set) are skipped.
    pub fn case(
        &mut self,
        case: &str,
        bytes: usize,
        fresh: &mut dyn FnMut(),
        mut into: Option<&mut dyn FnMut()>,
        mut other: Option<&mut dyn FnMut()>,
    ) {
        if self
            .filter
            .as_ref()
            .is_some_and(|f| !case.contains(f.as_str()))
        {
            return;
        }
        let (mut refs, mut fr, mut it, mut ot) = (vec![], vec![], vec![], vec![]);
        let (mut cold, mut fm) = (vec![], vec![]);
        fresh();
        if let Some(f) = into.as_mut() {
            f();
        }
        for _ in 0..self.reps {
            stridex::storage::set_buffer_cache_limit(0);
            refs.push(self.run_ref());
            cold.push(time_ms(fresh));
            let src = &self.ref_src;
            fm.push(time_ms(&mut || fresh_memcpy(src, bytes / 2)));
            stridex::storage::set_buffer_cache_limit(256 << 20);
            // One untimed run refills the cache, so the timed one finds last output's pages.
            fresh();
            refs.push(self.run_ref());
            fr.push(time_ms(fresh));
            if let Some(f) = into.as_mut() {
                refs.push(self.run_ref());
                it.push(time_ms(*f));
            }
            if let Some(f) = other.as_mut() {
                ot.push(time_ms(*f));
            }
        }
        let row = Row {
            case: case.to_string(),
            bytes,
            fresh_ms: median(fr),
            cold_ms: median(cold),
            fresh_memcpy_ms: median(fm),
            into_ms: (!it.is_empty()).then(|| median(it)),
            other_ms: (!ot.is_empty()).then(|| median(ot)),
            ref_ms: median(refs),
        };
        eprintln!(
            "  {case}: {:.2} ms ({:.2}x REF)",
            row.fresh_ms,
            row.ratio(row.fresh_ms)
        );
        self.rows.push(row);
    }

    /// The rows as a markdown table for writes into existing memory: the `into` measurement
    /// is the baseline the write must match (its speed over the write's is the last ratio).
    pub fn table_vs_baseline(&self, other_name: &str) -> String {
        let mut s = format!(
            "| case | stridex ms | GB/s | stridex / REF | cold / REF | baseline ms | stridex / \
             baseline | {other_name} ms | speedup vs {other_name} |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        );
        let opt = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map_or("-".into(), f);
        for r in &self.rows {
            s += &format!(
                "| {} | {:.2} | {:.1} | {:.2}x | {:.2}x | {} | {} | {} | {} |\n",
                r.case,
                r.fresh_ms,
                Row::gbps(r.bytes, r.fresh_ms),
                r.ratio(r.fresh_ms),
                r.ratio(r.cold_ms),
                opt(r.into_ms, &|m| format!("{m:.2}")),
                opt(r.into_ms, &|m| format!("{:.2}x", m / r.fresh_ms)),
                opt(r.other_ms, &|m| format!("{m:.1}")),
                opt(r.other_ms, &|m| format!("{:.1}x", m / r.fresh_ms)),
            );
        }
        s + &self.ref_line()
    }

    /// The rows as a markdown table.
    pub fn table(&self, other_name: &str) -> String {
        let mut s = format!(
            "| case | fresh ms | GB/s | fresh / REF | cold / REF | fresh memcpy / REF | cold / \
             fresh memcpy | into ms | into / REF | {other_name} ms | speedup vs {other_name} \
             |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        );
        let opt = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map_or("-".into(), f);
        for r in &self.rows {
            s += &format!(
                "| {} | {:.2} | {:.1} | {:.2}x | {:.2}x | {:.2}x | {:.2}x | {} | {} | {} | {} |\n",
                r.case,
                r.fresh_ms,
                Row::gbps(r.bytes, r.fresh_ms),
                r.ratio(r.fresh_ms),
                r.ratio(r.cold_ms),
                r.ratio(r.fresh_memcpy_ms),
                r.fresh_memcpy_ms / r.cold_ms,
                opt(r.into_ms, &|m| format!("{m:.2}")),
                opt(r.into_ms, &|m| format!("{:.2}x", r.ratio(m))),
                opt(r.other_ms, &|m| format!("{m:.1}")),
                opt(r.other_ms, &|m| format!("{:.1}x", m / r.fresh_ms)),
            );
        }
        s + &self.ref_line()
    }

    /// The closing line naming REF's median over the run.
    fn ref_line(&self) -> String {
        let refs: Vec<f64> = self.rows.iter().map(|r| r.ref_ms).collect();
        if refs.is_empty() {
            return String::new();
        }
        let ref_ms = median(refs);
        format!(
            "\nREF (1-thread memcpy of 64 MiB into a touched buffer): {ref_ms:.2} ms = {:.1} GB/s \
             (read + written), median over the run.\n",
            Row::gbps(REF_MOVED, ref_ms)
        )
    }
}
