//! A CPU quota for benchmark processes through a Linux cgroup: the v1 `cpu`
//! controller (`/sys/fs/cgroup/cpu/<group>`) or cgroup v2
//! (`/sys/fs/cgroup/<group>`), whichever the machine has. Needs root.
//!
//! The quota is a share of one CPU per 10 ms period: at 40 %, the processes
//! of the group run at most 4 ms in every 10 ms, and are then throttled
//! until the next period begins.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::thread::sleep;
use std::time::Duration;

/// The scheduling period of the quota, µs.
pub const PERIOD_US: u64 = 10_000;

/// Where the v1 `cpu` controller is mounted on common systems.
const V1_ROOT: &str = "/sys/fs/cgroup/cpu";
/// Where the cgroup v2 hierarchy is mounted on common systems.
const V2_ROOT: &str = "/sys/fs/cgroup";

/// The cgroup interface in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// cgroup v1, `cpu.cfs_period_us` and `cpu.cfs_quota_us`.
    V1,
    /// cgroup v2, `cpu.max`.
    V2,
}

impl Version {
    /// Finds the interface: v1 if its `cpu` controller is mounted, else v2
    /// if its hierarchy offers the `cpu` controller.
    pub fn detect() -> Result<Version, String> {
        if Path::new(V1_ROOT).join("cpu.cfs_quota_us").exists() {
            return Ok(Version::V1);
        }
        let controllers = Path::new(V2_ROOT).join("cgroup.controllers");
        match fs::read_to_string(&controllers) {
            Ok(list) if has_word(&list, "cpu") => Ok(Version::V2),
            Ok(_) => Err(format!(
                "cgroup v2 is mounted but its cpu controller is not available ({})",
                controllers.display()
            )),
            Err(_) => Err(format!(
                "no cgroup cpu controller: neither {V1_ROOT}/cpu.cfs_quota_us (v1) nor {} (v2) exists",
                controllers.display()
            )),
        }
    }

    /// `"v1"` or `"v2"`.
    pub fn name(self) -> &'static str {
        match self {
            Version::V1 => "v1",
            Version::V2 => "v2",
        }
    }
}

/// A cgroup whose processes share a CPU quota; removed on drop, once the
/// processes put in it have exited.
pub struct CpuQuota {
    dir: PathBuf,
    version: Version,
}

impl CpuQuota {
    /// Creates (or reuses, if a run was interrupted) the group `name`,
    /// capped at `percent` % of one CPU (10 to 100).
    pub fn create(version: Version, name: &str, percent: u32) -> Result<CpuQuota, String> {
        if !(10..=100).contains(&percent) {
            return Err(format!("a quota of {percent} %: it must be 10 to 100"));
        }
        let quota_us = u64::from(percent) * PERIOD_US / 100;
        let root = match version {
            Version::V1 => V1_ROOT,
            Version::V2 => {
                enable_v2_cpu_controller()?;
                V2_ROOT
            }
        };
        let dir = Path::new(root).join(name);
        match fs::create_dir(&dir) {
            Ok(()) => {}
            Err(err) if err.kind() == ErrorKind::AlreadyExists => {}
            Err(err) => return Err(explain(&format!("create {}", dir.display()), &err)),
        }
        let group = CpuQuota { dir, version };
        match version {
            Version::V1 => {
                group.write("cpu.cfs_period_us", &PERIOD_US.to_string())?;
                group.write("cpu.cfs_quota_us", &quota_us.to_string())?;
            }
            Version::V2 => group.write("cpu.max", &format!("{quota_us} {PERIOD_US}"))?,
        }
        Ok(group)
    }

    /// Moves process `pid`, with all its threads, into the group.
    pub fn add(&self, pid: &str) -> Result<(), String> {
        self.write("cgroup.procs", pid)
    }

    /// The group's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cgroup interface the group belongs to.
    pub fn version(&self) -> Version {
        self.version
    }

    fn write(&self, file: &str, value: &str) -> Result<(), String> {
        write_file(&self.dir.join(file), value)
    }
}

impl Drop for CpuQuota {
    /// Removes the group. A process that was just killed may take a moment
    /// to leave it, so a busy group is retried for up to a second.
    fn drop(&mut self) {
        let mut result = fs::remove_dir(&self.dir);
        for _ in 0..100 {
            match &result {
                Err(err) if err.kind() == ErrorKind::ResourceBusy => {
                    sleep(Duration::from_millis(10));
                    result = fs::remove_dir(&self.dir);
                }
                _ => break,
            }
        }
        if let Err(err) = result {
            eprintln!("# could not remove cgroup {}: {err}", self.dir.display());
        }
    }
}

/// Makes the root's children able to use the v2 `cpu` controller
/// (`+cpu` in its `cgroup.subtree_control`), if they cannot yet.
fn enable_v2_cpu_controller() -> Result<(), String> {
    let control = Path::new(V2_ROOT).join("cgroup.subtree_control");
    let enabled = fs::read_to_string(&control)
        .map_err(|err| explain(&format!("read {}", control.display()), &err))?;
    if has_word(&enabled, "cpu") {
        return Ok(());
    }
    write_file(&control, "+cpu")
}

fn write_file(path: &Path, value: &str) -> Result<(), String> {
    fs::write(path, value)
        .map_err(|err| explain(&format!("write {value:?} to {}", path.display()), &err))
}

/// `what` failed with `err`, with a hint when root is needed.
fn explain(what: &str, err: &std::io::Error) -> String {
    let hint = if err.kind() == ErrorKind::PermissionDenied {
        " (cgroups need root)"
    } else {
        ""
    };
    format!("{what}: {err}{hint}")
}

fn has_word(text: &str, word: &str) -> bool {
    text.split_whitespace().any(|w| w == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quota_out_of_range_is_refused_before_any_change() {
        assert!(CpuQuota::create(Version::V1, "typed-rpc-bench-test", 5).is_err());
        assert!(CpuQuota::create(Version::V2, "typed-rpc-bench-test", 101).is_err());
    }

    #[test]
    fn controller_lists_are_matched_by_word() {
        assert!(has_word("cpuset cpu io\n", "cpu"));
        assert!(!has_word("cpuset io\n", "cpu"));
    }
}
