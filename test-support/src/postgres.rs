//! A throwaway PostgreSQL cluster: made with `initdb` in a temporary
//! directory (as an unprivileged user when the tests run as root, since
//! PostgreSQL refuses root), served on a free loopback port with its unix
//! socket in that directory, stopped and started again on demand, and
//! removed with everything in it when dropped.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::child::{ChildGuard, Signal};
use crate::scratch::TempDir;
use crate::{Error, Result, process, system};

/// The cluster's superuser, trusted on loopback without a password.
const SUPERUSER: &str = "postgres";
/// The database made for the test.
const DATABASE: &str = "test";
/// How long the server may take to start, or to stop after a fast shutdown.
const PATIENCE: Duration = Duration::from_secs(60);

/// A PostgreSQL server of its own for a test, on `127.0.0.1`.
///
/// Durability is traded for speed (`fsync=off`): data survives a stop and
/// a restart, not a crash of the machine.
///
/// ```no_run
/// use typed_rpc_test_support::postgres::Postgres;
///
/// let mut db = Postgres::start().unwrap();
/// assert_eq!(db.psql("select 1").unwrap(), "1");
/// let url = db.url(); // postgres://postgres@127.0.0.1:PORT/test
/// db.stop().unwrap(); // fast shutdown: clients are cut off
/// assert!(db.psql("select 1").is_err());
/// db.restart().unwrap(); // the same port, the same data
/// assert_eq!(db.psql("select 1").unwrap(), "1");
/// # let _ = url;
/// ```
pub struct Postgres {
    // Dropped first: the server stops before its directory goes.
    server: Option<ChildGuard>,
    bin: PathBuf,
    /// The user and group the server runs as when we are root.
    user: Option<(u32, u32)>,
    port: u16,
    dir: TempDir,
}

impl Postgres {
    /// Makes a cluster, starts it on a free loopback port and makes the
    /// database `test`. Needs PostgreSQL's server binaries (Debian's
    /// `postgresql`, found under `/usr/lib/postgresql/*/bin`, or on `PATH`).
    pub fn start() -> Result<Postgres> {
        let bin = bin_dir()?;
        let dir = TempDir::new("pg")?;
        let user = match system::is_root() {
            true => Some(system::unprivileged_user()?),
            false => None,
        };
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).map_err(|err| {
                Error::new(format!("cannot chown {}: {err}", dir.path().display()))
            })?;
        }
        let mut db = Postgres {
            server: None,
            bin,
            user,
            port: 0,
            dir,
        };
        db.initdb()?;
        // Another process may take the free port first: then another one.
        let mut attempts = 0;
        loop {
            db.port = system::free_port()?;
            match db.launch() {
                Ok(()) => break,
                Err(err) if err.message().contains("already in use") && attempts < 3 => {
                    attempts += 1;
                }
                Err(err) => return Err(err),
            }
        }
        db.psql_in("postgres", &format!("create database {DATABASE}"))?;
        Ok(db)
    }

    /// `postgres://postgres@127.0.0.1:PORT/test`: trusted, no password.
    pub fn url(&self) -> String {
        format!("postgres://{SUPERUSER}@127.0.0.1:{}/{DATABASE}", self.port)
    }

    /// The loopback port it listens on, the same after a restart.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The directory of its unix socket (`.s.PGSQL.<port>`).
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// Whether the server runs.
    pub fn is_running(&mut self) -> bool {
        self.server
            .as_mut()
            .is_some_and(|server| server.try_wait().is_none())
    }

    /// Stops the server with a fast shutdown (`SIGINT`: clients are cut
    /// off, the data is written), waiting until it has exited.
    pub fn stop(&mut self) -> Result<()> {
        let Some(mut server) = self.server.take() else {
            return Ok(());
        };
        let status = server.stop();
        match status.success() {
            true => Ok(()),
            false => Err(Error::new(format!(
                "PostgreSQL did not shut down cleanly: {status}"
            ))),
        }
    }

    /// Starts the server again on the same port with the same data,
    /// stopping it first if it runs.
    pub fn restart(&mut self) -> Result<()> {
        self.stop()?;
        self.launch()
    }

    /// Runs `sql` in the database `test` with `psql`; what it printed,
    /// unaligned and without headers (`select 1` gives `1`). An error of
    /// the server, or a server that is down, is an `Err`.
    pub fn psql(&self, sql: &str) -> Result<String> {
        self.psql_in(DATABASE, sql)
    }

    fn psql_in(&self, database: &str, sql: &str) -> Result<String> {
        let mut psql = Command::new(self.bin.join("psql"));
        psql.args(["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1"])
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(["-U", SUPERUSER, "-d", database, "-c", sql])
            .env("PGCONNECT_TIMEOUT", "10");
        let output = process::run(psql, PATIENCE)?;
        match output.success() {
            true => Ok(output.stdout.trim().to_owned()),
            false => Err(Error::new(format!(
                "psql `{sql}` failed ({}): {}",
                output.status,
                output.stderr.trim()
            ))),
        }
    }

    /// One of the cluster's programs, run as its owner, in its directory.
    fn command(&self, program: &str) -> Command {
        use std::os::unix::process::CommandExt;
        let mut command = Command::new(self.bin.join(program));
        command.current_dir(self.dir.path());
        if let Some((uid, gid)) = self.user {
            command.uid(uid).gid(gid);
        }
        command
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn initdb(&self) -> Result<()> {
        let mut initdb = self.command("initdb");
        initdb
            .arg("-D")
            .arg(self.data_dir())
            .args(["-U", SUPERUSER, "-A", "trust", "-E", "UTF8", "--locale=C"])
            .arg("--no-sync");
        let output = process::run(initdb, PATIENCE)?;
        match output.success() {
            true => Ok(()),
            false => Err(Error::new(format!(
                "initdb failed ({}):\n{}{}",
                output.status, output.stdout, output.stderr
            ))),
        }
    }

    /// Starts the server and waits until it accepts connections.
    fn launch(&mut self) -> Result<()> {
        let mut postgres = self.command("postgres");
        postgres
            .arg("-D")
            .arg(self.data_dir())
            .args(["-p", &self.port.to_string(), "-h", "127.0.0.1", "-k"])
            .arg(self.dir.path())
            .args(["-c", "fsync=off", "-c", "synchronous_commit=off"])
            .args(["-c", "full_page_writes=off", "-c", "shared_buffers=16MB"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut server = ChildGuard::spawn(&mut postgres)?
            .stop_signal(Signal::Interrupt)
            .grace(PATIENCE);
        // Read to the end, on its thread, long after this: the server logs
        // to stderr and must never block on it.
        let mut log = server.stderr_lines()?;
        log.wait_until("`ready to accept connections`", PATIENCE, |line| {
            line.contains("ready to accept connections").then_some(())
        })?;
        self.server = Some(server);
        Ok(())
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// The directory of PostgreSQL's server programs: the newest under
/// Debian's `/usr/lib/postgresql/<version>/bin`, else the one on `PATH`.
fn bin_dir() -> Result<PathBuf> {
    let debian = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version: u32 = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .max_by_key(|(version, _)| *version)
        .map(|(_, bin)| bin);
    let on_path = || {
        std::env::split_paths(&std::env::var_os("PATH")?)
            .find(|dir| dir.join("initdb").is_file() && dir.join("postgres").is_file())
    };
    debian.or_else(on_path).ok_or_else(|| {
        Error::new(
            "PostgreSQL's server programs (initdb, postgres) are neither under \
             /usr/lib/postgresql/*/bin nor on PATH: install them \
             (Debian: `apt-get install -y postgresql`)",
        )
    })
}
