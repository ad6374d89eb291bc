//! Large fresh storages are backed by transparent huge pages where the system allows it.

/// Kilobytes of `AnonHugePages` in the `/proc/self/smaps` mapping that contains `addr`.
#[cfg(target_os = "linux")]
fn anon_huge_kb(addr: usize) -> Option<usize> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let mut inside = false;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if let Some((lo, hi)) = first.split_once('-') {
            if let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                inside = (lo..hi).contains(&addr);
                continue;
            }
        }
        if inside {
            if let Some(rest) = line.strip_prefix("AnonHugePages:") {
                return rest.trim().trim_end_matches("kB").trim().parse().ok();
            }
        }
    }
    None
}

#[cfg(target_os = "linux")]
#[test]
fn large_fresh_storage_uses_huge_pages() {
    let mode =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if mode.is_empty() || mode.contains("[never]") {
        eprintln!(
            "skipped: transparent huge pages are disabled ({})",
            mode.trim()
        );
        return;
    }
    // A fresh 64 MiB copy: the output storage is allocated by the copy kernel's path.
    let a = stridex::Tensor::<f32>::zeros(&[4096, 4096]).unwrap();
    let c = a.t().unwrap().contiguous();
    let addr = c.data_ptr() as usize;
    assert_eq!(
        addr % (2 << 20),
        0,
        "large storages start on a 2 MiB boundary"
    );
    let kb = anon_huge_kb(addr).expect("the storage's mapping is listed in smaps");
    assert!(
        kb >= 2048,
        "expected huge pages behind a fresh 64 MiB storage, smaps says {kb} kB"
    );
}
