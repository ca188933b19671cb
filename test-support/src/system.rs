//! Facts about the machine and the running user: root or not, a user to run
//! a server as, a free loopback port.

use std::net::TcpListener;

use crate::{Error, Result};

/// Whether this process runs as root (its effective user id is 0).
pub(crate) fn is_root() -> bool {
    effective_uid() == Some(0)
}

/// The effective user id, from `/proc/self/status` (`Uid: real effective ...`).
fn effective_uid() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("Uid:"))?;
    line.split_whitespace().nth(2)?.parse().ok()
}

/// A user a server that refuses root (PostgreSQL) can run as: Debian's
/// `postgres` user where the packages made one, else `nobody`. Its user and
/// group ids.
pub(crate) fn unprivileged_user() -> Result<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd")
        .map_err(|err| Error::new(format!("cannot read /etc/passwd: {err}")))?;
    let ids = |wanted: &str| {
        passwd.lines().find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            match fields[..] {
                [name, _, uid, gid, ..] if name == wanted => {
                    Some((uid.parse().ok()?, gid.parse().ok()?))
                }
                _ => None,
            }
        })
    };
    ids("postgres").or_else(|| ids("nobody")).ok_or_else(|| {
        Error::new("no unprivileged user (`postgres` or `nobody`) in /etc/passwd to run as")
    })
}

/// A loopback port no one listens on now. Another process may take it
/// before the caller does: callers retry on "address in use".
pub(crate) fn free_port() -> Result<u16> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(|err| Error::new(format!("no free loopback port: {err}")))
}
