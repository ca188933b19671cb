//! The process's resident memory, for the tests that bound what an attack
//! costs: sampled every millisecond on a thread of its own, and the
//! kernel's record of the peak.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The process's resident memory in bytes, sampled every millisecond.
pub struct Rss {
    peak: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

fn status_field(name: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|line| line.starts_with(name)).unwrap();
    let kib: u64 = line[name.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap();
    kib * 1024
}

impl Rss {
    pub fn now() -> u64 {
        status_field("VmRSS:")
    }

    pub fn sample() -> Self {
        // Resets VmHWM, the kernel's own record of the peak.
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let peak = Arc::new(AtomicU64::new(Rss::now()));
        let stop = Arc::new(AtomicBool::new(false));
        let (p, s) = (peak.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                p.fetch_max(Rss::now(), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        Rss { peak, stop }
    }

    /// The peak: the larger of the samples and the kernel's record.
    pub fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.peak
            .load(Ordering::Relaxed)
            .max(status_field("VmHWM:"))
    }
}
