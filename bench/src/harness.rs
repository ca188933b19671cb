//! What the network benchmark binaries (`runner`, `paired`) share: the
//! servers under test, starting one pinned to the server CPU, running the
//! load generator pinned to the load CPU and reading its output, and a few
//! statistics.
//!
//! The load generator (`loadgen`) prints `START` when its measured window
//! opens, `END` when it closes, then `RESULT key=value ...`; a caller reads
//! the server's CPU time at `START` and `END` ([`measure_window`]) and the
//! counts from the `RESULT` line ([`LoadResult`]).
//!
//! Linux only: pinning goes through `taskset` (util-linux).

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// The CPU the servers are pinned to (`taskset -c`).
pub const SERVER_CPU: &str = "0";
/// The CPU the load generators are pinned to (`taskset -c`).
pub const LOADGEN_CPU: &str = "1";

/// How long a server may take to start listening.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(10);

/// A server under test: how to start it and where it listens.
pub struct ServerSpec {
    /// The name in tables and on the command line (`floor`, `typed-rpc`).
    pub name: &'static str,
    /// The binary (in the same directory as the running benchmark binary).
    pub bin: &'static str,
    /// The server's arguments.
    pub args: Vec<&'static str>,
    /// Where it answers JSON-RPC over HTTP.
    pub http_url: &'static str,
    /// Where it accepts WebSocket connections.
    pub ws_url: &'static str,
}

impl ServerSpec {
    /// The URL for `transport`: `"ws"` for WebSocket, anything else HTTP.
    pub fn url(&self, transport: &str) -> &'static str {
        if transport == "ws" {
            self.ws_url
        } else {
            self.http_url
        }
    }
}

/// Every server under test, in table order: the floor, jsonrpsee, typed-rpc.
/// Their ports differ, so any two can run at once.
pub fn servers() -> Vec<ServerSpec> {
    vec![
        ServerSpec {
            name: "floor",
            bin: "server_floor",
            args: vec!["--http", "127.0.0.1:9101", "--ws", "127.0.0.1:9102"],
            http_url: "http://127.0.0.1:9101/",
            ws_url: "ws://127.0.0.1:9102/",
        },
        ServerSpec {
            name: "jsonrpsee",
            bin: "server_jsonrpsee",
            args: vec!["--addr", "127.0.0.1:9201"],
            http_url: "http://127.0.0.1:9201/",
            ws_url: "ws://127.0.0.1:9201/",
        },
        ServerSpec {
            name: "typed-rpc",
            bin: "server_ours",
            args: vec!["--addr", "127.0.0.1:9301"],
            http_url: "http://127.0.0.1:9301/",
            ws_url: "ws://127.0.0.1:9301/",
        },
    ]
}

/// The server called `name`, if there is one.
pub fn server(name: &str) -> Option<ServerSpec> {
    servers().into_iter().find(|spec| spec.name == name)
}

/// The directory of the running binary, where the servers and `loadgen` are.
pub fn bin_dir() -> PathBuf {
    std::env::current_exe()
        .expect("this binary's path")
        .parent()
        .expect("a directory")
        .to_owned()
}

/// Checks that `taskset` can pin a process to the server CPU and to the
/// load generator CPU, so that a missing `taskset` or a one-CPU machine is
/// reported before anything starts.
pub fn check_pinning() -> Result<(), String> {
    for cpu in [SERVER_CPU, LOADGEN_CPU] {
        let status = Command::new("taskset")
            .args(["-c", cpu, "true"])
            .stderr(Stdio::null())
            .status()
            .map_err(|err| format!("cannot run taskset (util-linux): {err}"))?;
        if !status.success() {
            return Err(format!("taskset cannot pin a process to CPU {cpu}"));
        }
    }
    Ok(())
}

/// A server process, killed (and reaped) on drop.
pub struct Running {
    child: Child,
}

impl Running {
    /// Starts `spec` pinned to [`SERVER_CPU`], without waiting for it to
    /// listen.
    pub fn spawn(dir: &Path, spec: &ServerSpec) -> Result<Running, String> {
        let child = Command::new("taskset")
            .args(["-c", SERVER_CPU])
            .arg(dir.join(spec.bin))
            .args(&spec.args)
            .stdout(Stdio::null())
            .spawn()
            .map_err(|err| format!("start the server with taskset: {err}"))?;
        Ok(Running { child })
    }

    /// The process id, as `/proc` paths want it. `taskset` execs the server,
    /// so this is the server's own.
    pub fn pid(&self) -> String {
        self.child.id().to_string()
    }

    /// Waits until something accepts TCP connections at `url`'s address,
    /// for up to ten seconds; fails early if the server exits.
    pub fn wait_listening(&mut self, url: &str) -> Result<(), String> {
        let addr = url.split("://").nth(1).unwrap_or(url).trim_end_matches('/');
        let deadline = Instant::now() + LISTEN_TIMEOUT;
        while TcpStream::connect(addr).is_err() {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "the server exited ({status}) before listening on {addr}"
                ));
            }
            if Instant::now() >= deadline {
                return Err(format!("the server did not listen on {addr}"));
            }
            sleep(Duration::from_millis(20));
        }
        Ok(())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `spec` pinned to [`SERVER_CPU`] and waits until it listens at `url`.
pub fn start_server(dir: &Path, spec: &ServerSpec, url: &str) -> Result<Running, String> {
    let mut running = Running::spawn(dir, spec)?;
    running
        .wait_listening(url)
        .map_err(|err| format!("{}: {err}", spec.bin))?;
    Ok(running)
}

/// Starts `loadgen` with `args`, pinned to [`LOADGEN_CPU`], with its stdin
/// and stdout piped; returns it and its stdout, line by line.
pub fn spawn_loadgen(
    dir: &Path,
    args: &[String],
) -> Result<(Child, BufReader<ChildStdout>), String> {
    spawn_client(dir, "loadgen", args)
}

/// Starts the client binary `bin` (`loadgen`, `streamgen`) with `args`,
/// pinned to [`LOADGEN_CPU`], with its stdin and stdout piped; returns it
/// and its stdout, line by line.
pub fn spawn_client(
    dir: &Path,
    bin: &str,
    args: &[String],
) -> Result<(Child, BufReader<ChildStdout>), String> {
    let mut child = Command::new("taskset")
        .args(["-c", LOADGEN_CPU])
        .arg(dir.join(bin))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|err| format!("start {bin} with taskset: {err}"))?;
    let stdout = child.stdout.take().ok_or(format!("no stdout from {bin}"))?;
    Ok((child, BufReader::new(stdout)))
}

/// The load generator's settings that stay the same from run to run.
pub struct LoadSettings {
    /// Seconds measured (`-d`).
    pub duration: String,
    /// Seconds of warm-up before the window opens (`--warmup`).
    pub warmup: String,
    /// The HTTP client (`--client raw|hyper`).
    pub client: String,
    /// The WebSocket client (`--ws-client raw|tungstenite`).
    pub ws_client: String,
}

impl LoadSettings {
    /// The defaults: `duration` and `warmup` seconds, the raw clients.
    pub fn new(duration: &str, warmup: &str) -> LoadSettings {
        LoadSettings {
            duration: duration.to_owned(),
            warmup: warmup.to_owned(),
            client: "raw".to_owned(),
            ws_client: "raw".to_owned(),
        }
    }

    /// Takes `flag` with `value` if it is one of these settings' flags
    /// (`--duration`, `--warmup`, `--client`, `--ws-client`); false if not.
    pub fn set(&mut self, flag: &str, value: &str) -> bool {
        let setting = match flag {
            "--duration" => &mut self.duration,
            "--warmup" => &mut self.warmup,
            "--client" => &mut self.client,
            "--ws-client" => &mut self.ws_client,
            _ => return false,
        };
        *setting = value.to_owned();
        true
    }

    /// The load generator's arguments for `conns` connections to `url`.
    pub fn loadgen_args(&self, url: &str, conns: u64) -> Vec<String> {
        [
            "--url",
            url,
            "-c",
            &conns.to_string(),
            "-d",
            &self.duration,
            "--warmup",
            &self.warmup,
            "--client",
            &self.client,
            "--ws-client",
            &self.ws_client,
        ]
        .map(str::to_owned)
        .to_vec()
    }
}

/// What one load generator run measured: the server's CPU time over the
/// window and the generator's `RESULT` line.
pub struct Window {
    /// The server's CPU time between `START` and `END`, in the unit of the
    /// reader given to [`measure_window`].
    pub server_cpu: u64,
    /// Wall time between reading `START` and reading `END`.
    pub wall: Duration,
    /// The `RESULT ...` line.
    pub result: String,
}

/// Runs the load generator for `conns` connections to `url` and reads the
/// server's CPU time with `server_cpu` at its `START` and `END`.
pub fn measure_window(
    dir: &Path,
    load: &LoadSettings,
    url: &str,
    conns: u64,
    server_cpu: impl Fn() -> Option<u64>,
) -> Result<Window, String> {
    let (child, stdout) = spawn_loadgen(dir, &load.loadgen_args(url, conns))?;
    read_window(child, stdout, server_cpu)
}

/// Reads a client's output to its end (`child` and its `stdout`, from
/// [`spawn_client`]), reading the server's CPU time with `server_cpu` at
/// its `START` and `END`, and waits for it to exit.
pub fn read_window(
    mut child: Child,
    stdout: BufReader<ChildStdout>,
    server_cpu: impl Fn() -> Option<u64>,
) -> Result<Window, String> {
    let mut cpu_start = None;
    let mut cpu_used = None;
    let mut result = None;
    for line in stdout.lines() {
        let line = line.map_err(|e| e.to_string())?;
        match line.as_str() {
            "START" => cpu_start = Some((server_cpu(), Instant::now())),
            "END" => {
                if let Some((Some(c0), t0)) = cpu_start {
                    let c1 = server_cpu().unwrap_or(c0);
                    cpu_used = Some((c1.saturating_sub(c0), t0.elapsed()));
                }
            }
            l if l.starts_with("RESULT ") => result = Some(line.clone()),
            _ => {}
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    let result = result.ok_or(format!("the client failed: {status}"))?;
    let (server_cpu, wall) = cpu_used.ok_or("no START/END from the client")?;
    Ok(Window {
        server_cpu,
        wall,
        result,
    })
}

/// The numbers of a load generator's `RESULT` line (NaN where missing).
pub struct LoadResult {
    /// Requests answered correctly inside the window.
    pub requests: f64,
    /// Wrong replies and broken connections.
    pub errors: u64,
    /// Requests per second over the window.
    pub rps: f64,
    /// Median latency, µs.
    pub p50_us: f64,
    /// 99th percentile latency, µs.
    pub p99_us: f64,
    /// The load generator's own CPU time over the window, µs.
    pub loadgen_cpu_us: f64,
    /// The window, seconds.
    pub window_s: f64,
}

impl LoadResult {
    /// Reads a `RESULT key=value ...` line.
    pub fn parse(line: &str) -> LoadResult {
        LoadResult {
            requests: field(line, "requests"),
            errors: field(line, "errors") as u64,
            rps: field(line, "rps"),
            p50_us: field(line, "p50_us"),
            p99_us: field(line, "p99_us"),
            loadgen_cpu_us: field(line, "cpu_us"),
            window_s: field(line, "window_s"),
        }
    }

    /// The load generator's CPU use over the window, in % of one CPU.
    pub fn loadgen_cpu_pct(&self) -> f64 {
        100.0 * self.loadgen_cpu_us / (self.window_s * 1e6)
    }
}

/// The number after `key=` in a line of `key=value` words (NaN if absent).
pub fn field(line: &str, key: &str) -> f64 {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

/// The median of `values` (NaN when empty).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The smallest and largest of `values` (infinities when empty).
pub fn range(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        })
}

/// `--flag value` pairs from command-line arguments (without the program
/// name); an error names a flag with no value.
pub fn flag_pairs(args: impl Iterator<Item = String>) -> Result<Vec<(String, String)>, String> {
    let mut args = args;
    let mut pairs = Vec::new();
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        pairs.push((flag, value));
    }
    Ok(pairs)
}

/// The comma-separated items of `value`.
pub fn list(value: &str) -> Vec<String> {
    value.split(',').map(str::to_owned).collect()
}

/// Comma-separated connection counts, such as `1,16,64`.
pub fn parse_conns(value: &str) -> Result<Vec<u64>, String> {
    value
        .split(',')
        .map(|c| {
            c.parse()
                .map_err(|_| format!("not a connection count: {c}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_reads_a_key_not_a_longer_one() {
        let line = "RESULT requests=10 errors=0 rps=5 p50_us=1.5 cpu_us=7";
        assert_eq!(field(line, "requests"), 10.0);
        assert_eq!(field(line, "p50_us"), 1.5);
        assert_eq!(field(line, "cpu_us"), 7.0);
        assert!(field(line, "cpu").is_nan());
    }

    #[test]
    fn median_and_range() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(Vec::new()).is_nan());
        assert_eq!(range(&[2.0, 0.5, 1.0]), (0.5, 2.0));
    }

    #[test]
    fn flags_and_lists() {
        let args = ["--conns", "1,16", "--runs"].map(str::to_owned).into_iter();
        assert_eq!(flag_pairs(args), Err("--runs needs a value".to_owned()));
        assert_eq!(parse_conns("1,16"), Ok(vec![1, 16]));
        assert!(parse_conns("1,x").is_err());
        assert_eq!(list("http,ws"), ["http", "ws"]);
    }

    #[test]
    fn loadgen_args_carry_the_settings() {
        let mut load = LoadSettings::new("4", "1");
        assert!(load.set("--ws-client", "tungstenite"));
        assert!(!load.set("--runs", "3"));
        let args = load.loadgen_args("ws://127.0.0.1:1/", 16);
        assert_eq!(
            args.join(" "),
            "--url ws://127.0.0.1:1/ -c 16 -d 4 --warmup 1 --client raw --ws-client tungstenite"
        );
    }
}
