//! A child process run to its end within a time limit, its stdout and
//! stderr read as they come so that a full pipe never blocks it; for tests
//! that drive npm, node, python or cargo.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::child::ChildGuard;
use crate::{Error, Result};

/// How long a finished child's pipes may stay open (held by a grandchild it
/// left behind) before the output read so far is taken as all of it.
const LINGER: Duration = Duration::from_secs(2);

/// What a finished child did.
#[derive(Debug)]
pub struct Output {
    /// How it exited.
    pub status: ExitStatus,
    /// All it wrote to stdout, lossily UTF-8.
    pub stdout: String,
    /// All it wrote to stderr, lossily UTF-8.
    pub stderr: String,
}

impl Output {
    /// Whether it exited with status 0.
    pub fn success(&self) -> bool {
        self.status.success()
    }
}

/// Runs `command` (stdin empty, stdout and stderr captured) to its end;
/// at `limit` it is ended (`SIGTERM`, then `SIGKILL` 5 s later, so that a
/// driver can close the browser it started) and the error holds what it
/// had written.
///
/// ```
/// use std::process::Command;
/// use std::time::{Duration, Instant};
/// use typed_rpc_test_support::process;
///
/// let mut echo = Command::new("echo");
/// echo.arg("hello");
/// let output = process::run(echo, Duration::from_secs(10)).unwrap();
/// assert!(output.success());
/// assert_eq!(output.stdout, "hello\n");
/// ```
pub fn run(mut command: Command, limit: Duration) -> Result<Output> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = ChildGuard::spawn(&mut command)?;
    let stdout = Drain::start(child.child_mut().stdout.take());
    let stderr = Drain::start(child.child_mut().stderr.take());
    let Some(status) = child.wait_within(limit) else {
        child.stop();
        let linger = Instant::now() + LINGER;
        return Err(Error::new(format!(
            "{} ran longer than {limit:?}; it wrote:\n{}\n{}",
            child.shown(),
            stdout.finish(linger),
            stderr.finish(linger)
        )));
    };
    let linger = Instant::now() + LINGER;
    Ok(Output {
        status,
        stdout: stdout.finish(linger),
        stderr: stderr.finish(linger),
    })
}

/// A pipe read to its end on a thread of its own.
struct Drain {
    text: Arc<Mutex<Vec<u8>>>,
    ended: mpsc::Receiver<()>,
}

impl Drain {
    fn start(pipe: Option<impl Read + Send + 'static>) -> Drain {
        let text = Arc::new(Mutex::new(Vec::new()));
        let (ended_tx, ended) = mpsc::channel();
        let sink = text.clone();
        std::thread::spawn(move || {
            let mut buf = [0; 8192];
            if let Some(mut pipe) = pipe {
                while let Ok(n @ 1..) = pipe.read(&mut buf) {
                    sink.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .extend_from_slice(&buf[..n]);
                }
            }
            let _ = ended_tx.send(());
        });
        Drain { text, ended }
    }

    /// What was read, once the pipe closed or `deadline` passed.
    fn finish(self, deadline: Instant) -> String {
        let _ = self
            .ended
            .recv_timeout(deadline.saturating_duration_since(Instant::now()));
        let text = self.text.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&text).into_owned()
    }
}
