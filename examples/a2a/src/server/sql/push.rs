//! [`PushConfigStore`] on a table: the webhooks of tasks survive a restart
//! and every replica sees them; and the outbox, a row per update not yet
//! delivered to a webhook, naming the process delivering it.
//!
//! An update is held right after its event is appended (not in the same
//! transaction: a process that dies between the two loses that one push)
//! and released once delivered or given up. A process that takes over
//! claims the rows of processes not heard of for a lease with one
//! `UPDATE`, so each row goes to one survivor, and delivers them in the
//! order of the task's log. A delivery the dead process made but had not
//! released yet is made again: at least once across a crash.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sqlx::{AnyPool, Row};

use super::{SqlStore, failed, from_json, micros_now, to_json};
use crate::server::push_store::{PendingPush, PushConfigStore};
use crate::server::store::{Seq, StoreError};
use crate::types::TaskPushNotificationConfig;

/// The push configurations of a [`SqlStore`]'s tasks, in its database,
/// with the outbox of their updates.
#[derive(Clone, Debug)]
pub struct SqlPushConfigStore {
    pool: AnyPool,
    /// This process, as the deliverer of the updates it holds.
    runner: Arc<str>,
    heartbeat: Duration,
    lease: Duration,
    /// The task store has reached the database for a whole lease.
    settled: Arc<AtomicBool>,
}

impl SqlStore {
    /// The store of push configurations beside the tasks, on the same pool.
    pub fn push_configs(&self) -> SqlPushConfigStore {
        SqlPushConfigStore {
            pool: self.pool.clone(),
            runner: self.runner.clone(),
            heartbeat: self.heartbeat,
            lease: self.lease,
            settled: self.settled.clone(),
        }
    }
}

impl SqlPushConfigStore {
    /// Holds `body`, the event `seq` of `task_id`, for each of the task's
    /// webhooks, as `runner`'s to deliver.
    pub(super) async fn hold_for(
        &self,
        runner: &str,
        task_id: &str,
        seq: Seq,
        body: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO a2a_push_outbox (task_id, config_id, seq, body, runner)
             SELECT task_id, id, $2, $3, $4 FROM a2a_push_configs WHERE task_id = $1
             ON CONFLICT DO NOTHING",
        )
        .bind(task_id)
        .bind(i64::try_from(seq).unwrap_or(i64::MAX))
        .bind(body)
        .bind(runner)
        .execute(&self.pool)
        .await
        .map_err(failed)?;
        Ok(())
    }

    /// Drops what the webhook `id` of `task_id` has waiting.
    async fn drop_pending(&self, task_id: &str, id: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM a2a_push_outbox WHERE task_id = $1 AND config_id = $2")
            .bind(task_id)
            .bind(id)
            .execute(&self.pool)
            .await
            .map_err(failed)?;
        Ok(())
    }
}

impl PushConfigStore for SqlPushConfigStore {
    async fn save(&self, config: TaskPushNotificationConfig) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO a2a_push_configs (task_id, id, made, config) VALUES ($1, $2, $3, $4)
             ON CONFLICT (task_id, id) DO UPDATE SET config = excluded.config",
        )
        .bind(config.task_id.clone().unwrap_or_default())
        .bind(config.id.clone().unwrap_or_default())
        .bind(micros_now())
        .bind(to_json(&config)?)
        .execute(&self.pool)
        .await
        .map_err(failed)?;
        // A replaced webhook's waiting updates are not the new one's.
        let (task_id, id) = (
            config.task_id.unwrap_or_default(),
            config.id.unwrap_or_default(),
        );
        self.drop_pending(&task_id, &id).await
    }

    async fn get(
        &self,
        task_id: &str,
        id: &str,
    ) -> Result<Option<TaskPushNotificationConfig>, StoreError> {
        let row = sqlx::query("SELECT config FROM a2a_push_configs WHERE task_id = $1 AND id = $2")
            .bind(task_id)
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(failed)?;
        row.map(|row| from_json(row.try_get::<&str, _>(0).map_err(failed)?))
            .transpose()
    }

    async fn list(&self, task_id: &str) -> Result<Vec<TaskPushNotificationConfig>, StoreError> {
        let rows =
            sqlx::query("SELECT config FROM a2a_push_configs WHERE task_id = $1 ORDER BY made, id")
                .bind(task_id)
                .fetch_all(&self.pool)
                .await
                .map_err(failed)?;
        rows.iter()
            .map(|row| from_json(row.try_get::<&str, _>(0).map_err(failed)?))
            .collect()
    }

    async fn delete(&self, task_id: &str, id: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM a2a_push_configs WHERE task_id = $1 AND id = $2")
            .bind(task_id)
            .bind(id)
            .execute(&self.pool)
            .await
            .map_err(failed)?;
        self.drop_pending(task_id, id).await
    }

    async fn hold(&self, task_id: &str, seq: Seq, body: &str) -> Result<(), StoreError> {
        self.hold_for(&self.runner, task_id, seq, body).await
    }

    async fn release(&self, task_id: &str, config_id: &str, seq: Seq) -> Result<(), StoreError> {
        sqlx::query(
            "DELETE FROM a2a_push_outbox WHERE task_id = $1 AND config_id = $2 AND seq = $3",
        )
        .bind(task_id)
        .bind(config_id)
        .bind(i64::try_from(seq).unwrap_or(i64::MAX))
        .execute(&self.pool)
        .await
        .map_err(failed)?;
        Ok(())
    }

    fn takeover_interval(&self) -> Option<Duration> {
        Some(self.heartbeat)
    }

    async fn take_over(&self) -> Result<Vec<PendingPush>, StoreError> {
        // Not before this process has beaten for a lease: after the
        // database was away, every process is a lease late.
        if !self.settled.load(Ordering::Acquire) {
            return Ok(Vec::new());
        }
        let lease_micros = i64::try_from(self.lease.as_micros()).unwrap_or(i64::MAX);
        let rows = sqlx::query(
            "UPDATE a2a_push_outbox SET runner = $1
             WHERE runner <> $1 AND runner NOT IN (SELECT id FROM a2a_runners WHERE seen >= $2)
             RETURNING task_id, config_id, seq, body",
        )
        .bind(&*self.runner)
        .bind(micros_now().saturating_sub(lease_micros))
        .fetch_all(&self.pool)
        .await
        .map_err(failed)?;
        let mut pending = rows
            .iter()
            .map(|row| {
                let seq: i64 = row.try_get(2).map_err(failed)?;
                Ok(PendingPush {
                    task_id: row.try_get(0).map_err(failed)?,
                    config_id: row.try_get(1).map_err(failed)?,
                    seq: seq as Seq,
                    body: row.try_get(3).map_err(failed)?,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        // Each webhook's updates in the order of its task's log.
        pending.sort_by(|a, b| {
            (&a.task_id, &a.config_id, a.seq).cmp(&(&b.task_id, &b.config_id, b.seq))
        });
        Ok(pending)
    }
}
