//! Reading a process's CPU time and memory from `/proc` (Linux only).

use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// Clock ticks per second (`getconf CLK_TCK`, 100 on every common Linux).
pub fn clock_ticks() -> u64 {
    static TICKS: OnceLock<u64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|out| String::from_utf8(out.stdout).ok())
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(100)
    })
}

/// User plus system CPU time of `pid` (`"self"` for this process), in microseconds.
pub fn cpu_micros(pid: &str) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces; the fields after it start past ')'.
    let after = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after.split(' ').collect();
    // Fields 14 and 15 of stat(5) are utime and stime; `after` starts at field 3.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) * 1_000_000 / clock_ticks())
}

/// CPU time of `pid` (`"self"` for this process), in nanoseconds: the sum
/// over its threads of the first field of `/proc/PID/task/TID/schedstat`,
/// the time the scheduler accounted on a CPU. Unlike [`cpu_micros`], which
/// counts clock ticks (10 ms each), this is exact to the nanosecond.
///
/// A thread that exits is no longer counted, so this suits processes whose
/// threads live as long as they do. `None` if the process is gone or the
/// kernel has no schedstat (`CONFIG_SCHED_INFO`).
pub fn cpu_nanos(pid: &str) -> Option<u64> {
    let tasks = fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut read_any = false;
    let mut total = 0;
    for task in tasks.flatten() {
        // A thread may exit between the listing and the read: skip it.
        if let Some(nanos) = task_nanos(&task.path().join("schedstat")) {
            read_any = true;
            total += nanos;
        }
    }
    read_any.then_some(total)
}

/// The first field of one thread's `schedstat`: nanoseconds on a CPU.
fn task_nanos(schedstat: &Path) -> Option<u64> {
    let text = fs::read_to_string(schedstat).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// A `Vm*` line of `/proc/PID/status` (`VmRSS`, `VmHWM`), in KiB.
pub fn status_kib(pid: &str, key: &str) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|line| {
        let rest = line.strip_prefix(key)?.strip_prefix(':')?;
        rest.trim().trim_end_matches("kB").trim().parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hint::black_box;
    use std::time::{Duration, Instant};

    #[test]
    fn cpu_nanos_grows_with_busy_work() {
        let before = cpu_nanos("self").expect("schedstat of this process");
        let started = Instant::now();
        let mut x = 0u64;
        while started.elapsed() < Duration::from_millis(100) {
            x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let after = cpu_nanos("self").expect("schedstat of this process");
        // 100 ms of spinning: at least 10 ms of it on a CPU, even on a
        // machine busy with other work.
        assert!(after - before >= 10_000_000, "{before} -> {after}");
    }

    #[test]
    fn cpu_nanos_of_no_process_is_none() {
        assert_eq!(cpu_nanos("no-such-pid"), None);
    }
}
