//! A child process run to its end within a time limit, its output read as
//! it comes so that a full pipe never blocks it; for tests that drive npm,
//! node or cargo. Light enough to mount alone
//! (`#[path = "../support/process.rs"] mod process;`).

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Runs `command` to its end or kills it at `limit`; its status, stdout and
/// stderr.
pub fn bounded(mut command: Command, limit: Duration) -> (bool, String, String) {
    let shown = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("cannot run {shown}: {err}"));
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            break status;
        }
        if Instant::now() > deadline {
            end(&mut child);
            panic!("{shown} ran longer than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = |rx: mpsc::Receiver<String>| rx.recv().unwrap_or_default();
    (status.success(), text(out), text(err))
}

/// Ends `child`: asked first (`SIGTERM`), so that a driver can close what
/// it started (a browser), killed if it has not ended within 5 s.
fn end(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Reads a pipe to its end on a thread, so a full pipe never blocks the child.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_string(&mut text);
        }
        let _ = tx.send(text);
    });
    rx
}
