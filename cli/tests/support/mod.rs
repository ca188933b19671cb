//! What the CLI's tests share: running the binary, the calculator as a
//! server in the test and as a child process, and a server that records
//! every message it is sent.

#![allow(dead_code)] // each test binary uses its own part

#[path = "../../../examples/common/calculator_api.rs"]
pub mod calculator_api;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::runtime::Runtime;
use typed_rpc::Router;
use typed_rpc::transport::stream::Framing;
use typed_rpc::transport::{Server, ServerHandle};
use typed_rpc_test_support::{cargo, paths, process};

use calculator_api::{Calc, Calculator as _};

/// How long one run of the binary may take before the test calls it hung.
const PATIENCE: Duration = Duration::from_secs(60);

/// What a run of `typed-rpc` printed, and how it ended.
#[derive(Debug)]
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The exit code.
    pub fn code(&self) -> i32 {
        self.status
            .code()
            .expect("typed-rpc exited, not killed by a signal")
    }

    /// Asserts the run ended with exit code `code`, saying `says` on stderr.
    #[track_caller]
    pub fn fails_with(&self, code: i32, says: &str) {
        assert_eq!(self.code(), code, "{self:#?}");
        assert!(
            self.stderr.contains(says),
            "no {says:?} in: {}",
            self.stderr
        );
    }

    /// Asserts a success and returns stdout.
    pub fn ok(&self) -> &str {
        assert_eq!(self.code(), 0, "typed-rpc failed: {self:#?}");
        &self.stdout
    }
}

/// Runs `typed-rpc ARGS`, with a short timeout of its own unless `args` set one.
pub fn typed_rpc(args: &[&str]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_typed-rpc"));
    command.args(args);
    run(command)
}

/// Runs `command` to its end, ending it if it outlives [`PATIENCE`].
pub fn run(command: Command) -> Run {
    let output = process::run(command, PATIENCE).unwrap();
    Run {
        status: output.status,
        stdout: output.stdout,
        stderr: output.stderr,
    }
}

/// The calculator's router, answering `rpc.discover` too.
pub fn calculator_router() -> Router {
    Router::builder()
        .service(Calc::default().into_service())
        .discover("Calculator", "1.0.0")
        .build()
        .expect("the calculator's methods are distinct")
}

/// A router served in this test, over HTTP (and WebSocket on the same
/// port) and newline-delimited TCP.
pub struct Served {
    pub runtime: Runtime,
    http: ServerHandle,
    tcp: ServerHandle,
}

impl Served {
    pub fn start(router: Router) -> Served {
        let runtime = Runtime::new().expect("a tokio runtime");
        let server = Server::new(router);
        let (http, tcp) = runtime.block_on(async {
            let http = server
                .serve_http("127.0.0.1:0")
                .await
                .expect("HTTP listens");
            let tcp = server
                .serve_tcp("127.0.0.1:0", Framing::Lines)
                .await
                .expect("TCP listens");
            (http, tcp)
        });
        Served { runtime, http, tcp }
    }

    /// The calculator, served.
    pub fn calculator() -> Served {
        Served::start(calculator_router())
    }

    pub fn http(&self) -> String {
        format!("http://{}/", self.http.local_addr().expect("a port"))
    }

    pub fn ws(&self) -> String {
        format!("ws://{}/", self.http.local_addr().expect("a port"))
    }

    pub fn tcp(&self) -> String {
        format!("tcp://{}", self.tcp.local_addr().expect("a port"))
    }

    /// Stops serving HTTP and WebSocket, cutting their connections.
    pub fn stop_http(self) {
        self.runtime.block_on(self.http.shutdown());
    }
}

/// A TCP server that answers with the calculator and keeps every message
/// and connection it sees, to show what reached it.
pub struct Recorder {
    pub runtime: Runtime,
    pub url: String,
    seen: Arc<Mutex<Seen>>,
}

#[derive(Default)]
struct Seen {
    connections: usize,
    messages: Vec<String>,
}

impl Recorder {
    pub fn start() -> Recorder {
        let runtime = Runtime::new().expect("a tokio runtime");
        let seen = Arc::new(Mutex::new(Seen::default()));
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("TCP listens");
        let url = format!("tcp://{}", listener.local_addr().expect("a port"));
        let router = calculator_router();
        let recording = seen.clone();
        runtime.spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                recording.lock().unwrap().connections += 1;
                let (router, recording) = (router.clone(), recording.clone());
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut lines = BufReader::new(read).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        recording.lock().unwrap().messages.push(line.clone());
                        if let Some(reply) = router.handle(line.as_bytes()).await
                            && write
                                .write_all(format!("{reply}\n").as_bytes())
                                .await
                                .is_err()
                        {
                            break;
                        }
                    }
                });
            }
        });
        Recorder { runtime, url, seen }
    }

    /// How many connections were accepted.
    pub fn connections(&self) -> usize {
        self.seen.lock().unwrap().connections
    }

    /// The method of every message received, in order.
    pub fn methods(&self) -> Vec<String> {
        let seen = self.seen.lock().unwrap();
        seen.messages
            .iter()
            .map(|line| {
                let message: serde_json::Value = serde_json::from_str(line).expect("JSON");
                message["method"].as_str().unwrap_or("?").to_owned()
            })
            .collect()
    }
}

/// The repository's root.
pub fn repo() -> &'static Path {
    paths::workspace_root()
}

/// The calculator's OpenRPC document, as the repository keeps it.
pub fn calculator_document() -> PathBuf {
    repo().join("tests/schema/calculator.openrpc.json")
}

/// The calculator example's binary, built on first use into the target
/// directory (and profile) this test was built in.
pub fn calculator_binary() -> PathBuf {
    cargo::example("typed-rpc", "calculator").unwrap()
}

/// The example `name` of this crate (the `ticker`), built like the
/// calculator.
pub fn example_binary(name: &str) -> PathBuf {
    cargo::example(env!("CARGO_PKG_NAME"), name).unwrap()
}

/// A file in a fresh directory of this test's own under the target directory.
pub fn scratch_file(name: &str, contents: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("the file is written");
    path
}
