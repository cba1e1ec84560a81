//! The process's resident set size, read from `/proc/self/status` (Linux): the figure the soak's memory bound and
//! the load test's per-call memory are stated in.

/// The resident set size in KiB; `None` where `/proc/self/status` is absent or has no `VmRSS` line.
///
/// ```
/// if cfg!(target_os = "linux") {
///     assert!(oa_soak::rss_kib().is_some_and(|kib| kib > 0));
/// }
/// ```
pub fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    read_vm_rss(&status)
}

/// The `VmRSS:` figure of a `/proc/PID/status` text, in KiB.
fn read_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let mut words = line.split_whitespace().skip(1);
    let value: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => Some(value),
        _ => None,
    }
}

/// KiB as MiB, rounded to one decimal for the report.
///
/// ```
/// assert_eq!(oa_soak::mib(1536), 1.5);
/// ```
pub fn mib(kib: u64) -> f64 {
    (kib as f64 / 1024.0 * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_vm_rss_line_and_this_process_has_one() {
        assert_eq!(
            read_vm_rss("Name:\tx\nVmRSS:\t   12345 kB\nVmSwap: 0 kB\n"),
            Some(12345)
        );
        assert_eq!(read_vm_rss("VmRSS: 12 MB\n"), None);
        assert_eq!(read_vm_rss("Name: x\n"), None);
        assert!(rss_kib().is_some_and(|kib| kib > 0));
        assert_eq!(mib(1536), 1.5);
    }
}
