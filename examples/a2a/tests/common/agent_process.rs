//! A running agent process for the tests that drive one with another
//! language's client: `text-agent`, or the Python SDK's reference agent;
//! started, the two lines it prints read, ended when dropped (also when
//! the test fails). Mounted with `#[path = "common/agent_process.rs"]`.

use std::process::{Command, Stdio};
use std::time::Duration;

use typed_rpc_test_support::child::ChildGuard;

/// How long an agent may take to print its card URL.
const PATIENCE: Duration = Duration::from_secs(90);

/// A running agent, ended (`SIGTERM`, then `SIGKILL`) when dropped.
pub struct Agent {
    _process: ChildGuard,
    /// `http://ADDR`, from its `listening on` line.
    #[allow(dead_code, reason = "not every test that mounts this reads it")]
    pub base: String,
    /// The card URL, from its `agent card:` line.
    pub card: String,
}

impl Agent {
    /// Starts `text-agent --listen 127.0.0.1:0 <args>` and reads the two lines it prints.
    pub fn start(args: &[&str]) -> Agent {
        let mut command = Command::new(env!("CARGO_BIN_EXE_text-agent"));
        command.args(["--listen", "127.0.0.1:0"]).args(args);
        Agent::spawn(command)
    }

    /// Runs `command`, an agent, and reads the two lines it prints.
    pub fn spawn(mut command: Command) -> Agent {
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut process = ChildGuard::spawn(&mut command).unwrap();
        // Read to the end, long after the two lines are taken: an agent
        // writing to a closed pipe would fail.
        let mut lines = process.stdout_lines().unwrap();
        let base = lines.wait_for("listening on ", PATIENCE).unwrap();
        let card = lines.wait_for("agent card: ", PATIENCE).unwrap();
        assert_eq!(card, format!("{base}/.well-known/agent-card.json"));
        Agent {
            _process: process,
            base,
            card,
        }
    }
}
