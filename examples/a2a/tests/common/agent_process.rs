//! A running agent process for the tests that drive one with another
//! language's client: `text-agent`, or the Python SDK's reference agent;
//! started, the two lines it prints read, killed when dropped (also when
//! the test fails). Mounted with `#[path = "common/agent_process.rs"]`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long an agent may take to print its card URL.
const PATIENCE: Duration = Duration::from_secs(90);

/// A running agent.
pub struct Agent {
    child: Child,
    /// `http://ADDR`, from its `listening on` line.
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
        let shown = format!("{command:?}");
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {shown}: {err}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let (lines_tx, lines) = mpsc::channel();
        // Read to the end, long after the two lines are taken: an agent
        // writing to a closed pipe would fail.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = lines_tx.send(line);
            }
        });
        // Built before reading, so that a failed start still kills the child.
        let mut agent = Agent {
            child,
            base: String::new(),
            card: String::new(),
        };
        let next_line = |what: &str| match lines.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("{shown} printed no `{what}` line within {PATIENCE:?}")
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("{shown} closed its stdout before printing `{what}`")
            }
        };
        let listening = next_line("listening on");
        let card = next_line("agent card:");
        agent.base = listening
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("{shown} first printed {listening:?}"))
            .to_owned();
        agent.card = card
            .strip_prefix("agent card: ")
            .unwrap_or_else(|| panic!("{shown} then printed {card:?}"))
            .to_owned();
        assert_eq!(
            agent.card,
            format!("{}/.well-known/agent-card.json", agent.base)
        );
        agent
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
