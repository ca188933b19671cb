//! The durable stores' schema: its migrations, applied in order when a
//! store connects, and refused against a database a newer agent migrated.

use sqlx::AnyConnection;

use super::{Backend, failed};
use crate::server::store::StoreError;

/// The migrations, version `n` at index `n - 1`. Only ever appended to:
/// a database records the latest version it has, and an agent applies the
/// ones after it.
const MIGRATIONS: &[&str] = &[
    // 1: tasks with their current state, their event logs, the messages
    // of the de-duplication window, push configurations.
    "CREATE TABLE a2a_tasks (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        context_id TEXT NOT NULL,
        state TEXT NOT NULL,
        status TEXT NOT NULL,
        status_time BIGINT,
        seq BIGINT NOT NULL,
        updated BIGINT NOT NULL
    );
    CREATE INDEX a2a_tasks_by_update ON a2a_tasks (owner, updated, id);
    CREATE TABLE a2a_events (
        task_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (task_id, seq)
    );
    CREATE TABLE a2a_messages (
        owner TEXT NOT NULL,
        message_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        reply TEXT,
        seen BIGINT NOT NULL,
        PRIMARY KEY (owner, message_id)
    );
    CREATE INDEX a2a_messages_by_age ON a2a_messages (seen);
    CREATE TABLE a2a_push_configs (
        task_id TEXT NOT NULL,
        id TEXT NOT NULL,
        made BIGINT NOT NULL,
        config TEXT NOT NULL,
        PRIMARY KEY (task_id, id)
    );",
    // 2: which process runs each task's turn, and each process's heartbeat,
    // so the turns of a process that died are found and failed.
    "ALTER TABLE a2a_tasks ADD COLUMN runner TEXT;
    CREATE INDEX a2a_tasks_by_runner ON a2a_tasks (runner, state);
    CREATE TABLE a2a_runners (
        id TEXT PRIMARY KEY,
        seen BIGINT NOT NULL
    );",
    // 3: the push notifications not delivered yet, each with the process
    // delivering it, so a survivor delivers those of a process that died.
    "CREATE TABLE a2a_push_outbox (
        task_id TEXT NOT NULL,
        config_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        body TEXT NOT NULL,
        runner TEXT NOT NULL,
        PRIMARY KEY (task_id, config_id, seq)
    );
    CREATE INDEX a2a_push_outbox_by_runner ON a2a_push_outbox (runner);",
];

/// The schema version this build knows.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// A key for PostgreSQL's advisory lock, so replicas starting together
/// migrate one after the other.
const MIGRATION_LOCK: i64 = 0x0a2a_5c4e_3a00;

/// Brings the database to [`SCHEMA_VERSION`], in one transaction: nothing
/// when it is there, an error when a newer agent migrated it further.
pub(super) async fn migrate(conn: &mut AnyConnection, backend: Backend) -> Result<(), StoreError> {
    use sqlx::Connection;

    let mut tx = conn.begin().await.map_err(failed)?;
    if backend == Backend::Postgres {
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(MIGRATION_LOCK)
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
    }
    sqlx::raw_sql("CREATE TABLE IF NOT EXISTS a2a_schema (version BIGINT NOT NULL)")
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    let found: Option<i64> = sqlx::query_scalar("SELECT MAX(version) FROM a2a_schema")
        .fetch_one(&mut *tx)
        .await
        .map_err(failed)?;
    let found = found.unwrap_or(0);
    if found > SCHEMA_VERSION {
        return Err(StoreError::Backend(
            format!(
                "the database's A2A schema is version {found}, newer than version \
                 {SCHEMA_VERSION} this agent knows: a newer agent migrated it; run that \
                 version (or a newer one) against it"
            )
            .into(),
        ));
    }
    for (version, migration) in (1..).zip(MIGRATIONS).skip(found as usize) {
        sqlx::raw_sql(migration)
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
        sqlx::query("INSERT INTO a2a_schema (version) VALUES ($1)")
            .bind(version)
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
    }
    tx.commit().await.map_err(failed)?;
    Ok(())
}
