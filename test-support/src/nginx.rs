//! nginx as a reverse proxy on a free loopback port in front of given
//! upstreams (round robin), as users deploy it: HTTP/1.1 to the upstreams,
//! WebSocket upgrades passed on, `X-Forwarded-*` headers set, and
//! `proxy_buffering off` so that Server-Sent Events arrive as they are
//! sent. Its config and files live in a temporary directory; it runs in
//! the foreground and stops when dropped.

use std::fmt::Write as _;
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::child::ChildGuard;
use crate::lines::Lines;
use crate::scratch::TempDir;
use crate::{Error, Result, debian, system};

/// How long nginx may take to listen.
const PATIENCE: Duration = Duration::from_secs(30);

/// A running nginx, stopped (fast shutdown) when dropped.
///
/// ```no_run
/// use typed_rpc_test_support::nginx::Nginx;
///
/// # let (replica_a, replica_b) = ("127.0.0.1:8001".parse().unwrap(), "127.0.0.1:8002".parse().unwrap());
/// let proxy = Nginx::proxy([replica_a, replica_b])
///     .directive("client_max_body_size 1m")
///     .start()
///     .unwrap();
/// let url = proxy.url(); // http://127.0.0.1:PORT, round robin over both
/// # let _ = url;
/// ```
pub struct Nginx {
    // Dropped first: nginx stops before its directory goes.
    server: ChildGuard,
    addr: SocketAddr,
    _dir: TempDir,
}

/// An nginx to start: its upstreams and any directives of its own.
#[derive(Clone, Debug)]
pub struct Proxy {
    upstreams: Vec<SocketAddr>,
    directives: Vec<String>,
}

impl Nginx {
    /// A proxy in front of `upstreams`, taken in turn (round robin).
    pub fn proxy(upstreams: impl IntoIterator<Item = SocketAddr>) -> Proxy {
        Proxy {
            upstreams: upstreams.into_iter().collect(),
            directives: Vec::new(),
        }
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Its process, to signal it (`SIGHUP` to reload, say) or check it runs.
    pub fn process(&mut self) -> &mut ChildGuard {
        &mut self.server
    }
}

impl Proxy {
    /// Adds `directive` (without its `;`) to the proxying `location`, e.g.
    /// `proxy_read_timeout 5s` or `client_max_body_size 1m`.
    pub fn directive(mut self, directive: impl Into<String>) -> Proxy {
        self.directives.push(directive.into());
        self
    }

    /// Starts nginx (installing Debian's `nginx` first when it is missing
    /// and we are root) and waits until it listens.
    pub fn start(self) -> Result<Nginx> {
        if self.upstreams.is_empty() {
            return Err(Error::new("nginx needs at least one upstream"));
        }
        let nginx = debian::binary("nginx", "/usr/sbin/nginx")?;
        let dir = TempDir::new("nginx")?;
        // Another process may take the free port first: then another one.
        let mut attempts = 0;
        loop {
            let addr = SocketAddr::from(([127, 0, 0, 1], system::free_port()?));
            let config = dir.path().join("nginx.conf");
            std::fs::write(&config, self.config(dir.path(), addr))
                .map_err(|err| Error::new(format!("cannot write {}: {err}", config.display())))?;
            let mut command = Command::new(&nginx);
            command
                .arg("-p")
                .arg(dir.path())
                .arg("-c")
                .arg(&config)
                .args(["-e", "stderr", "-g", "daemon off;"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
            let mut server = ChildGuard::spawn(&mut command)?;
            let mut log = server.stderr_lines()?;
            match listening(&mut server, &mut log, addr) {
                Ok(()) => {
                    return Ok(Nginx {
                        server,
                        addr,
                        _dir: dir,
                    });
                }
                Err(err) if err.message().contains("already in use") && attempts < 3 => {
                    attempts += 1;
                }
                Err(err) => return Err(err),
            }
        }
    }

    /// The whole config: one worker, every path in `dir`, one server.
    fn config(&self, dir: &Path, addr: SocketAddr) -> String {
        let dir = dir.display();
        let mut upstreams = String::new();
        for upstream in &self.upstreams {
            let _ = writeln!(upstreams, "        server {upstream};");
        }
        let mut extra = String::new();
        for directive in &self.directives {
            let _ = writeln!(extra, "            {directive};");
        }
        // The root's default worker user, `nobody`, has no group of that
        // name on Debian.
        let user = match system::is_root() {
            true => "user nobody nogroup;\n",
            false => "",
        };
        format!(
            "{user}worker_processes 1;\n\
             pid {dir}/nginx.pid;\n\
             error_log stderr warn;\n\
             events {{ worker_connections 256; }}\n\
             http {{\n    \
                 access_log off;\n    \
                 client_body_temp_path {dir}/client_body;\n    \
                 proxy_temp_path {dir}/proxy;\n    \
                 fastcgi_temp_path {dir}/fastcgi;\n    \
                 uwsgi_temp_path {dir}/uwsgi;\n    \
                 scgi_temp_path {dir}/scgi;\n    \
                 map $http_upgrade $connection_upgrade {{ default upgrade; '' ''; }}\n    \
                 upstream replicas {{\n{upstreams}    }}\n    \
                 server {{\n        \
                     listen {addr};\n        \
                     location / {{\n            \
                         proxy_pass http://replicas;\n            \
                         proxy_http_version 1.1;\n            \
                         proxy_buffering off;\n            \
                         proxy_cache off;\n            \
                         proxy_set_header Host $http_host;\n            \
                         proxy_set_header Upgrade $http_upgrade;\n            \
                         proxy_set_header Connection $connection_upgrade;\n            \
                         proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n            \
                         proxy_set_header X-Forwarded-Proto $scheme;\n            \
                         proxy_set_header X-Real-IP $remote_addr;\n\
                         {extra}        \
                     }}\n    \
                 }}\n\
             }}\n"
        )
    }
}

/// Waits until nginx accepts connections on `addr`; an error with what it
/// logged if it exits first.
fn listening(server: &mut ChildGuard, log: &mut Lines, addr: SocketAddr) -> Result<()> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if let Some(status) = server.try_wait() {
            // Its stderr is closed: every line is in.
            std::thread::sleep(Duration::from_millis(50));
            return Err(Error::new(format!(
                "nginx exited ({status}) before listening on {addr}:\n{}",
                log.take_all().join("\n")
            )));
        }
        if Instant::now() > deadline {
            return Err(Error::new(format!(
                "nginx did not listen on {addr} within {PATIENCE:?}:\n{}",
                log.take_all().join("\n")
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
