//! A child process that ends with its guard: asked to stop first (with the
//! signal it expects), killed when it has not within a grace period.

use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::lines::Lines;
use crate::{Error, Result};

/// How a child is asked to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// `SIGTERM`: what most programs take as "stop now, cleanly".
    Terminate,
    /// `SIGINT`: PostgreSQL's fast shutdown.
    Interrupt,
    /// `SIGQUIT`: nginx's graceful shutdown.
    Quit,
    /// `SIGKILL`: no asking.
    Kill,
}

impl Signal {
    fn name(self) -> &'static str {
        match self {
            Signal::Terminate => "TERM",
            Signal::Interrupt => "INT",
            Signal::Quit => "QUIT",
            Signal::Kill => "KILL",
        }
    }
}

/// A running child process, ended when the guard drops, also when a test
/// panics: sent its stop signal (`SIGTERM` unless set), killed if it has
/// not exited within the grace period (5 s unless set).
///
/// ```no_run
/// use std::process::{Command, Stdio};
/// use std::time::Duration;
/// use typed_rpc_test_support::child::ChildGuard;
///
/// let mut server = ChildGuard::spawn(
///     Command::new("node").arg("server.js").stdout(Stdio::piped()),
/// )
/// .unwrap();
/// let mut lines = server.stdout_lines().unwrap();
/// let url = lines.wait_for("listening on ", Duration::from_secs(30)).unwrap();
/// # let _ = url;
/// // ...
/// drop(server); // SIGTERM, then SIGKILL 5 s later if need be
/// ```
#[derive(Debug)]
pub struct ChildGuard {
    child: Child,
    shown: String,
    signal: Signal,
    grace: Duration,
    status: Option<ExitStatus>,
}

impl ChildGuard {
    /// Starts `command`; set its stdio first (what is not set is inherited).
    pub fn spawn(command: &mut Command) -> Result<ChildGuard> {
        let shown = format!("{command:?}");
        let child = command
            .spawn()
            .map_err(|err| Error::new(format!("cannot start {shown}: {err}")))?;
        Ok(ChildGuard {
            child,
            shown,
            signal: Signal::Terminate,
            grace: Duration::from_secs(5),
            status: None,
        })
    }

    /// Starts a server and waits (up to `limit`) for the line on its stdout
    /// that starts with `announcement` (`listening on `, say); the guard,
    /// and the rest of that line. Its stdin stays open while it runs (some
    /// servers end with it), and its stdout is read on to its end.
    ///
    /// ```no_run
    /// use std::process::Command;
    /// use std::time::Duration;
    /// use typed_rpc_test_support::child::ChildGuard;
    ///
    /// let mut command = Command::new("node");
    /// command.arg("jayson_server.js").arg("http");
    /// let (server, url) = ChildGuard::serve(&mut command, "listening on ", Duration::from_secs(60)).unwrap();
    /// # let _ = (server, url);
    /// ```
    pub fn serve(
        command: &mut Command,
        announcement: &str,
        limit: Duration,
    ) -> Result<(ChildGuard, String)> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
        let mut server = ChildGuard::spawn(command)?;
        let rest = server.stdout_lines()?.wait_for(announcement, limit)?;
        Ok((server, rest))
    }

    /// Asks the child to stop with `signal` instead of `SIGTERM`.
    pub fn stop_signal(mut self, signal: Signal) -> ChildGuard {
        self.signal = signal;
        self
    }

    /// How long the child may take to stop once asked before it is killed.
    pub fn grace(mut self, grace: Duration) -> ChildGuard {
        self.grace = grace;
        self
    }

    /// The command, as `Debug` shows it: for messages.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The child's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The child itself: its pipes, its status.
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Its stdout (which must have been piped), read line by line.
    pub fn stdout_lines(&mut self) -> Result<Lines> {
        match self.child.stdout.take() {
            Some(pipe) => Ok(Lines::read(pipe, format!("{} (stdout)", self.shown))),
            None => Err(Error::new(format!("{}: stdout is not piped", self.shown))),
        }
    }

    /// Its stderr (which must have been piped), read line by line.
    pub fn stderr_lines(&mut self) -> Result<Lines> {
        match self.child.stderr.take() {
            Some(pipe) => Ok(Lines::read(pipe, format!("{} (stderr)", self.shown))),
            None => Err(Error::new(format!("{}: stderr is not piped", self.shown))),
        }
    }

    /// Its exit status if it has exited.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = self.child.try_wait().ok().flatten();
        }
        self.status
    }

    /// Waits up to `limit` for the child to exit on its own: its status, or
    /// `None` if it still runs.
    pub fn wait_within(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Sends `signal` to the child now, whatever its stop signal is.
    pub fn signal(&mut self, signal: Signal) {
        if self.try_wait().is_some() {
            return;
        }
        let sent = Command::new("kill")
            .args(["-s", signal.name(), &self.child.id().to_string()])
            .status()
            .is_ok_and(|status| status.success());
        // Without a `kill` program, only the kill std can send is left.
        if !sent {
            let _ = self.child.kill();
        }
    }

    /// Stops the child: its stop signal, then `SIGKILL` if it has not
    /// exited within the grace period. Its exit status.
    pub fn stop(&mut self) -> ExitStatus {
        if let Some(status) = self.try_wait() {
            return status;
        }
        self.signal(self.signal);
        if let Some(status) = self.wait_within(self.grace) {
            return status;
        }
        let _ = self.child.kill();
        let status = self.child.wait().expect("waiting for a killed child");
        self.status = Some(status);
        status
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        self.stop();
    }
}
