//! `process::run` and `child::ChildGuard`: bounded, drained, ended.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use typed_rpc_test_support::child::ChildGuard;
use typed_rpc_test_support::lines::Lines;
use typed_rpc_test_support::process;

fn shell(script: &str) -> Command {
    let mut command = Command::new("sh");
    command.args(["-c", script]);
    command
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn output_larger_than_a_pipe_holds_is_read_whole() {
    let output = process::run(
        shell("head -c 1000000 /dev/zero; echo done >&2"),
        Duration::from_secs(30),
    )
    .unwrap();
    assert!(output.success());
    assert_eq!(output.stdout.len(), 1_000_000);
    assert_eq!(output.stderr, "done\n");
}

#[test]
fn a_child_past_its_limit_is_ended_and_its_output_kept() {
    let started = Instant::now();
    let err =
        process::run(shell("echo started; sleep 30"), Duration::from_millis(300)).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10), "{err}");
    assert!(err.message().contains("ran longer than 300ms"), "{err}");
    assert!(err.message().contains("started"), "{err}");
}

#[test]
fn a_missing_program_is_an_error_naming_it() {
    let err =
        process::run(Command::new("no-such-program-here"), Duration::from_secs(5)).unwrap_err();
    assert!(err.message().contains("no-such-program-here"), "{err}");
}

#[test]
fn a_guard_ends_its_child_when_dropped() {
    let guard = ChildGuard::spawn(shell("exec sleep 30").stdin(Stdio::null())).unwrap();
    let pid = guard.id();
    assert!(alive(pid));
    let started = Instant::now();
    drop(guard);
    assert!(!alive(pid), "the child was reaped");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "SIGTERM ended it"
    );
}

#[test]
fn a_child_that_ignores_its_stop_signal_is_killed_after_the_grace_period() {
    let mut guard =
        ChildGuard::spawn(shell("trap '' TERM; echo ready; exec sleep 30").stdout(Stdio::piped()))
            .unwrap()
            .grace(Duration::from_millis(300));
    let mut lines = guard.stdout_lines().unwrap();
    lines.wait_for("ready", Duration::from_secs(10)).unwrap();
    let started = Instant::now();
    let status = guard.stop();
    assert!(!status.success());
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn lines_find_the_announcement_and_say_what_came_before_when_it_never_comes() {
    let mut guard = ChildGuard::spawn(
        shell("echo starting; echo 'listening on http://127.0.0.1:1234'; echo bye")
            .stdout(Stdio::piped()),
    )
    .unwrap();
    let mut lines: Lines = guard.stdout_lines().unwrap();
    let url = lines
        .wait_for("listening on ", Duration::from_secs(10))
        .unwrap();
    assert_eq!(url, "http://127.0.0.1:1234");
    let err = lines
        .wait_for("never", Duration::from_secs(10))
        .unwrap_err();
    assert!(
        err.message()
            .contains("ended before a line starting with `never`"),
        "{err}"
    );
    assert!(err.message().ends_with("bye"), "{err}");
}

#[test]
fn a_server_is_started_until_it_announces_itself_and_keeps_its_stdin() {
    // `cat` ends when its stdin does: the server stays up while the guard lives.
    let (mut server, url) = ChildGuard::serve(
        &mut shell("echo 'listening on http://127.0.0.1:9'; exec cat"),
        "listening on ",
        Duration::from_secs(10),
    )
    .unwrap();
    assert_eq!(url, "http://127.0.0.1:9");
    assert!(server.wait_within(Duration::from_millis(200)).is_none());
    let pid = server.id();
    drop(server);
    assert!(!alive(pid));
}
