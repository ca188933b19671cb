//! The durable stores: tasks with their event logs, the de-duplication
//! window and push configurations in SQLite (one machine) or PostgreSQL
//! (shared by replicas), one implementation over sqlx's `Any` driver.
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | [`SqlStore`]: connecting, options, errors |
//! | `schema.rs` | the migrations, applied on connect |
//! | `tasks.rs` | [`TaskStore`](crate::server::TaskStore) on the tables |
//! | `list.rs` | `ListTasks`' filtered, keyset-paged query |
//! | `dedup.rs` | the messages seen lately, shared by replicas |
//! | `lease.rs` | heartbeats, and the tasks of a process that died failed |
//! | `push.rs` | [`PushConfigStore`](crate::server::PushConfigStore) on a table, with its outbox |
//! | `listen.rs` | PostgreSQL's `LISTEN`: other replicas' events as [`Notice`]s |
//!
//! Every event is one transaction: it takes the task's row (an `UPDATE`
//! that moves the task's sequence number on and sets its current status),
//! then inserts the event under that number. The row update is the
//! concurrency control: PostgreSQL holds the row lock it takes until the
//! commit, and SQLite runs one writing transaction at a time, so two
//! replicas appending to one task queue up and get consecutive numbers,
//! never the same one. A row lock rather than a version check because
//! both writers' events are valid (an artifact chunk beside a cancel): they
//! are to be ordered, not refused and retried. An event for a task that has
//! ended matches no row and is refused ([`StoreError::Ended`]), so a task
//! canceled through one replica takes nothing more from the executor on
//! another.

mod dedup;
mod lease;
mod list;
#[cfg(feature = "postgres")]
mod listen;
mod push;
mod schema;
mod tasks;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::{AnyPool, Executor};
use tokio::sync::{broadcast, oneshot};

#[cfg(feature = "postgres")]
use listen::NOTICE_CHANNEL;
pub use push::SqlPushConfigStore;
pub use schema::SCHEMA_VERSION;

use super::dedup::DEFAULT_MAX_AGE;
use super::store::{Notice, StoreError};

/// Which database a store is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// SQLite: a file on this machine (`sqlite:PATH`).
    Sqlite,
    /// PostgreSQL (`postgres://...`), shared by replicas.
    Postgres,
}

/// How a [`SqlStore`] connects and what it keeps.
#[derive(Clone, Debug)]
pub struct SqlOptions {
    /// The most connections the pool opens (10 by default). Each request
    /// holds one for a query or a transaction at a time; PostgreSQL's
    /// `max_connections` must cover every replica's pool.
    pub max_connections: u32,
    /// How long a call waits for a connection before it fails as
    /// unavailable (3 seconds by default).
    pub acquire_timeout: Duration,
    /// How long a `messageId` is remembered for de-duplication (10 minutes
    /// by default).
    pub dedup_window: Duration,
    /// How often this process tells the store it is alive and sweeps for
    /// the tasks of processes that are not (1 second by default).
    pub heartbeat: Duration,
    /// How long a process may go unheard of before the tasks it runs are
    /// failed (5 seconds by default). Longer than a pause of the database
    /// the replicas should ride out.
    pub lease: Duration,
    /// This process's name in the store, for operators: the tasks it runs
    /// say `NAME/<a UUID of this run>` in `a2a_tasks.runner` ("agent" by default).
    pub name: String,
}

impl Default for SqlOptions {
    fn default() -> Self {
        SqlOptions {
            max_connections: 10,
            acquire_timeout: Duration::from_secs(3),
            dedup_window: DEFAULT_MAX_AGE,
            heartbeat: Duration::from_secs(1),
            lease: Duration::from_secs(5),
            name: "agent".into(),
        }
    }
}

/// Tasks, their event logs, recent messages and push configurations in
/// SQLite or PostgreSQL. Cloning shares the pool.
///
/// ```no_run
/// # async fn run() -> Result<(), typed_rpc_a2a::server::StoreError> {
/// use typed_rpc_a2a::server::{RequestHandler, SqlStore};
/// use typed_rpc_a2a::text_agent::{TextAgent, card};
///
/// let store = SqlStore::connect("sqlite:tasks.db").await?;
/// let handler = RequestHandler::new(TextAgent, store.clone(), card("http://127.0.0.1:3001/a2a"))
///     .with_push_notifications(store.push_configs(), Default::default());
/// # let _ = handler;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct SqlStore {
    pool: AnyPool,
    backend: Backend,
    dedup_window: Duration,
    /// Claims made since the window was last swept.
    claims: Arc<AtomicU64>,
    notices: Option<broadcast::Sender<Notice>>,
    /// This process, as the runner of the tasks whose turns it starts.
    runner: Arc<str>,
    /// How often this process beats, and how long another may go unheard of.
    heartbeat: Duration,
    lease: Duration,
    /// This process has reached the store for a whole lease: it may take
    /// over what processes not heard of for a lease left.
    settled: Arc<AtomicBool>,
    /// Dropped with the last clone: the listener and the heartbeat then stop.
    _listening: Option<Arc<oneshot::Sender<()>>>,
    _beating: Option<Arc<oneshot::Sender<()>>>,
}

impl std::fmt::Debug for SqlStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqlStore")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl SqlStore {
    /// Connects to `url` (`sqlite:PATH`, the file made when missing, or
    /// `postgres://USER@HOST:PORT/DB`) with the default options.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, SqlOptions::default()).await
    }

    /// Connects to `url` as `options` say, and migrates its schema to
    /// [`SCHEMA_VERSION`] (refusing a database at a newer version). On
    /// PostgreSQL, also listens for the events other replicas append.
    pub async fn connect_with(url: &str, options: SqlOptions) -> Result<Self, StoreError> {
        sqlx::any::install_default_drivers();
        let (backend, url) = backend_of(url)?;
        let pool = AnyPoolOptions::new()
            .max_connections(options.max_connections)
            .acquire_timeout(options.acquire_timeout)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        // Readers beside the writer; a writer waits its turn.
                        conn.execute("PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000")
                            .await?;
                    }
                    Ok(())
                })
            })
            .connect(&url)
            .await
            .map_err(failed)?;
        let mut conn = pool.acquire().await.map_err(failed)?;
        schema::migrate(&mut conn, backend).await?;
        drop(conn);
        let (notices, listening) = match backend {
            #[cfg(feature = "postgres")]
            Backend::Postgres => {
                let (notices, stop) = listen::start(&url).await?;
                (Some(notices), Some(Arc::new(stop)))
            }
            _ => (None, None),
        };
        let mut store = SqlStore {
            pool,
            backend,
            dedup_window: options.dedup_window,
            claims: Arc::default(),
            notices,
            runner: format!("{}/{}", options.name, crate::server::new_id()).into(),
            heartbeat: options.heartbeat,
            lease: options.lease,
            settled: Arc::default(),
            _listening: listening,
            _beating: None,
        };
        let beating = store.start_leases();
        store._beating = Some(Arc::new(beating));
        Ok(store)
    }

    /// Which database the store is on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Closes the pool's connections; calls made after fail.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// The backend of `url`, and the URL as sqlx takes it.
fn backend_of(url: &str) -> Result<(Backend, String), StoreError> {
    let unsupported = |what: &str| {
        StoreError::Backend(
            format!("{what}: this build has no {url:?} store (cargo feature off)").into(),
        )
    };
    if let Some(path) = url.strip_prefix("sqlite:") {
        if !cfg!(feature = "sqlite") {
            return Err(unsupported("sqlite"));
        }
        let path = path.trim_start_matches("//");
        // Made when missing, as a store on a fresh machine should be.
        let sep = if path.contains('?') { '&' } else { '?' };
        return Ok((Backend::Sqlite, format!("sqlite://{path}{sep}mode=rwc")));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        if !cfg!(feature = "postgres") {
            return Err(unsupported("postgres"));
        }
        return Ok((Backend::Postgres, url.to_owned()));
    }
    Err(StoreError::Backend(
        format!("{url:?} is not a store URL: sqlite:PATH or postgres://...").into(),
    ))
}

/// A database error as a store error: unavailable when the database could
/// not be reached (a retry may succeed), a failure otherwise.
pub(crate) fn failed(err: sqlx::Error) -> StoreError {
    match err {
        sqlx::Error::Io(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => StoreError::Unavailable(Box::new(err)),
        // PostgreSQL shutting down (57P01..57P03) or not taking connections yet.
        sqlx::Error::Database(db) if db.code().is_some_and(|code| code.starts_with("57P")) => {
            StoreError::Unavailable(db.to_string().into())
        }
        err => StoreError::Backend(Box::new(err)),
    }
}

/// Now, in microseconds since the Unix epoch: the stores' clock, which
/// orders `ListTasks` by update. Never the same twice in one process, so
/// updates made here list in the order they were made; between replicas,
/// as their clocks agree.
fn micros_now() -> i64 {
    static LAST: AtomicI64 = AtomicI64::new(0);
    let nanos = time::OffsetDateTime::now_utc().unix_timestamp_nanos();
    let now = i64::try_from(nanos / 1000).unwrap_or(i64::MAX);
    let last = LAST.fetch_max(now, Ordering::Relaxed);
    if last < now {
        return now;
    }
    LAST.fetch_add(1, Ordering::Relaxed) + 1
}

/// `value` as the JSON a column keeps.
fn to_json(value: &impl serde::Serialize) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|err| StoreError::Backend(Box::new(err)))
}

/// A column's JSON read back.
fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|err| StoreError::Backend(Box::new(err)))
}
