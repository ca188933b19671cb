//! What the tests against other implementations share: the pinned Python
//! packages, a scratch directory to serve, and `mcp-server` over HTTP.

#![allow(dead_code, reason = "each test binary uses its own part")]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::Duration;

use typed_rpc_test_support::paths::target_dir;
use typed_rpc_test_support::pip::PythonPackages;
use typed_rpc_test_support::process;

/// How long a server may take to say where it listens.
const START_LIMIT: Duration = Duration::from_secs(60);
/// How long installing pinned packages may take.
const INSTALL_LIMIT: Duration = Duration::from_secs(600);

/// The `mcp-server` binary.
pub fn server_binary() -> &'static str {
    env!("CARGO_BIN_EXE_mcp-server")
}

/// This crate's `tests/` directory.
pub fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// A directory of a few files for the server to serve, removed on drop.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("mcp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).expect("a scratch directory");
        std::fs::write(
            dir.join("notes.txt"),
            "hello notes\nsecond line mentions Paris\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("sub").join("main.rs"),
            "fn main() {\n    println!(\"Paris\");\n}\n",
        )
        .unwrap();
        Scratch(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `<target>/mcp-python`, holding the pinned Python SDK. Installed on
/// first use by test-support (Python 3 with pip on `PATH`, and PyPI,
/// needed).
pub fn python_sdk() -> &'static PythonPackages {
    static INSTALLED: OnceLock<PythonPackages> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let requirements = tests_dir().join("python").join("requirements.txt");
        PythonPackages::install(requirements, "mcp-python").unwrap_or_else(|err| panic!("{err}"))
    })
}

/// `<target>/mcp-js`: the pinned JavaScript peers of `tests/js` (and the
/// Node.js 22 they run on, from the npm registry's `node` package),
/// installed on first use with `npm ci` (npm must be on `PATH`, and the
/// npm registry reachable).
pub fn js_packages() -> &'static Path {
    static INSTALLED: OnceLock<PathBuf> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let source = tests_dir().join("js");
        let lock =
            std::fs::read(source.join("package-lock.json")).expect("tests/js/package-lock.json");
        let target = target_dir().join("mcp-js");
        let fresh_enough = |dir: &Path| {
            std::fs::read(dir.join("package-lock.json")).is_ok_and(|installed| installed == lock)
                && dir
                    .join("node_modules")
                    .join(".package-lock.json")
                    .is_file()
                && dir.join("node_modules").join(".bin").join("node").is_file()
        };
        if fresh_enough(&target) {
            return target;
        }
        let fresh = target_dir().join(format!("mcp-js.{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&fresh);
        std::fs::create_dir_all(&fresh).expect("a directory for the npm packages");
        for file in ["package.json", "package-lock.json"] {
            std::fs::copy(source.join(file), fresh.join(file)).expect("the npm package files");
        }
        let mut npm = Command::new("npm");
        npm.args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&fresh);
        let (ok, _, stderr) = bounded(npm, INSTALL_LIMIT);
        assert!(
            ok,
            "npm ci in {} failed (npm, and the npm registry, needed):\n{stderr}",
            fresh.display()
        );
        let _ = std::fs::remove_dir_all(&target);
        if std::fs::rename(&fresh, &target).is_err() {
            let _ = std::fs::remove_dir_all(&fresh);
        }
        assert!(
            fresh_enough(&target),
            "{} lacks the npm packages",
            target.display()
        );
        target
    })
}

/// Runs `node <script> <args>` with the pinned Node.js 22 (the script,
/// from `tests/js`, runs beside the installed packages) and parses the
/// JSON it prints.
pub fn node(script: &str, args: &[&str], limit: Duration) -> serde_json::Value {
    let (ok, stdout, stderr) = node_raw(script, args, limit);
    assert!(ok, "{script} {args:?} failed:\n{stderr}\n{stdout}");
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|err| panic!("{script} printed no JSON ({err}):\n{stdout}\n{stderr}"))
}

/// Runs `node <script> <args>`, `script` a file of `tests/js` or a path
/// inside the installed packages: its status, stdout and stderr.
pub fn node_raw(script: &str, args: &[&str], limit: Duration) -> (bool, String, String) {
    let dir = js_packages();
    let ours = tests_dir().join("js").join(script);
    let script = match ours.is_file() {
        true => {
            let copy = dir.join(script);
            std::fs::copy(&ours, &copy).expect("the script copied beside its packages");
            copy
        }
        false => dir.join(script),
    };
    let bin = dir.join("node_modules").join(".bin");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new(bin.join("node"));
    command
        .current_dir(dir)
        .env("PATH", path)
        .arg(script)
        .args(args);
    bounded(command, limit)
}

/// Runs `tests/python/<script> <args>` and parses the JSON it prints.
pub fn python(script: &str, args: &[&str], limit: Duration) -> serde_json::Value {
    let mut command = python_sdk().python(tests_dir().join("python").join(script));
    command.args(args);
    let (ok, stdout, stderr) = bounded(command, limit);
    assert!(ok, "{script} {args:?} failed:\n{stderr}\n{stdout}");
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|err| panic!("{script} printed no JSON ({err}):\n{stdout}\n{stderr}"))
}

/// Runs `mcp-server <args>` over stdio: sends `initialize`, then each of
/// `requests` (JSON-RPC requests, their ids 2, 3, ...), and returns the
/// responses to them in order.
pub fn stdio_exchange(args: &[&str], requests: &[serde_json::Value]) -> Vec<serde_json::Value> {
    use std::io::Write;
    let mut child = Command::new(server_binary())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mcp-server starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
    let mut send =
        |message: serde_json::Value| writeln!(stdin, "{message}").expect("the server reads");
    let mut reply = |id: usize| loop {
        let line = lines.next().expect("a reply").expect("a line");
        let message: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        if message["id"] == id {
            return message;
        }
    };
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}),
    );
    reply(1);
    send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut replies = Vec::new();
    for (offset, request) in requests.iter().enumerate() {
        let mut request = request.clone();
        request["jsonrpc"] = "2.0".into();
        request["id"] = (offset + 2).into();
        send(request);
        replies.push(reply(offset + 2));
    }
    // The end of stdin: the server exits.
    drop(stdin);
    let _ = child.wait();
    replies
}

/// A running `mcp-server --http 127.0.0.1:0`, killed on drop.
pub struct HttpServer {
    child: Child,
    /// `http://ADDR/mcp`.
    pub url: String,
    /// `ADDR`.
    pub addr: String,
}

impl HttpServer {
    /// Starts `mcp-server --http 127.0.0.1:0 <args>` and reads where it listens.
    pub fn start(args: &[&str]) -> Self {
        let mut child = Command::new(server_binary())
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp-server starts");
        let stderr = child.stderr.take().expect("piped stderr");
        let (lines_tx, lines) = mpsc::channel();
        // Read to the end: a server writing to a closed pipe would fail.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = lines_tx.send(line);
            }
        });
        let mut server = HttpServer {
            child,
            url: String::new(),
            addr: String::new(),
        };
        loop {
            let line = lines
                .recv_timeout(START_LIMIT)
                .expect("mcp-server prints where it listens");
            if let Some(url) = line.strip_prefix("mcp-server: listening on ") {
                server.url = url.trim().to_owned();
                server.addr = server
                    .url
                    .trim_start_matches("http://")
                    .trim_end_matches("/mcp")
                    .to_owned();
                return server;
            }
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `command` to its end within `limit`: whether it succeeded, its
/// stdout and its stderr.
pub fn bounded(command: Command, limit: Duration) -> (bool, String, String) {
    let output = process::run(command, limit).unwrap();
    (output.success(), output.stdout, output.stderr)
}
