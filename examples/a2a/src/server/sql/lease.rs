//! Leases: a process that runs turns says so in the store every
//! [`SqlOptions::heartbeat`](super::SqlOptions::heartbeat), and marks its
//! tasks as its own when their turns start. Every process also sweeps: a
//! task still submitted or working whose runner has not been heard of for
//! [`SqlOptions::lease`](super::SqlOptions::lease) is failed, with a
//! status message saying why, through an ordinary append (one sweeper wins
//! it, the others find the task ended). A process sweeps only once it has
//! reached the store for a whole lease, so a database that was away fails
//! no one's tasks for the beats it could not take.
//!
//! The failed status goes to the task's webhooks after the updates the
//! dead process left in the outbox (see `push.rs`).
//!
//! Failing rather than resuming: the agent's work between its last event
//! and the crash is gone, and an executor run twice could do its side
//! effects twice.

use std::sync::atomic::Ordering;
use std::time::Duration;

use sqlx::Row;
use tokio::sync::oneshot;

use super::{SqlStore, failed, micros_now, to_json};
use crate::server::store::{Seq, StoreError, TaskEvent, TaskStore};
use crate::types::{Message, Role, TaskState, TaskStatus, TaskStatusUpdateEvent};

impl SqlStore {
    /// Beats and sweeps every heartbeat until `stop` is dropped.
    pub(super) fn start_leases(&self) -> oneshot::Sender<()> {
        let (stop, mut stopped) = oneshot::channel();
        let store = self.clone();
        let (heartbeat, lease) = (self.heartbeat, self.lease);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(heartbeat);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // Since when this process has reached the store without a miss.
            let mut reached_since = None;
            loop {
                tokio::select! {
                    _ = ticks.tick() => {}
                    _ = &mut stopped => return,
                }
                if store.beat().await.is_err() {
                    reached_since = None;
                    store.settled.store(false, Ordering::Release);
                    continue;
                }
                let since = *reached_since.get_or_insert_with(tokio::time::Instant::now);
                // After the database was away, every process gets a whole
                // lease to beat again before anyone's tasks are failed.
                if since.elapsed() >= lease {
                    store.settled.store(true, Ordering::Release);
                    let _ = store.sweep(lease).await;
                }
            }
        });
        stop
    }

    /// Tells the store this process is alive.
    async fn beat(&self) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO a2a_runners (id, seen) VALUES ($1, $2)
             ON CONFLICT (id) DO UPDATE SET seen = excluded.seen",
        )
        .bind(&*self.runner)
        .bind(micros_now())
        .execute(&self.pool)
        .await
        .map_err(failed)?;
        Ok(())
    }

    /// Fails the running tasks of processes not heard of for `lease`.
    async fn sweep(&self, lease: Duration) -> Result<(), StoreError> {
        let lease_micros = i64::try_from(lease.as_micros()).unwrap_or(i64::MAX);
        let expired = micros_now().saturating_sub(lease_micros);
        let orphans = sqlx::query(
            "SELECT t.id, t.context_id, t.runner FROM a2a_tasks t LEFT JOIN a2a_runners r ON r.id = t.runner
             WHERE t.runner IS NOT NULL AND t.state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')
             AND (r.seen IS NULL OR r.seen < $1) LIMIT 100",
        )
        .bind(expired)
        .fetch_all(&self.pool)
        .await
        .map_err(failed)?;
        for orphan in orphans {
            let task_id: String = orphan.try_get(0).map_err(failed)?;
            let context_id: String = orphan.try_get(1).map_err(failed)?;
            let runner: String = orphan.try_get(2).map_err(failed)?;
            let why = format!(
                "the agent process running this task stopped (not heard of for {}s); \
                 the task failed and may be sent again",
                lease.as_secs()
            );
            let message = Message {
                task_id: Some(task_id.clone()),
                context_id: Some(context_id.clone()),
                ..Message::text(Role::Agent, crate::server::new_id(), why)
            };
            let failed_status = TaskEvent::Status(TaskStatusUpdateEvent {
                task_id: task_id.clone(),
                context_id,
                status: TaskStatus {
                    state: TaskState::Failed,
                    message: Some(message),
                    timestamp: Some(crate::server::now()),
                },
                metadata: None,
            });
            // Another sweeper may have been first: the task has ended then.
            match self.append(&task_id, &failed_status).await {
                Ok(seq) => self.hold_as(&runner, &task_id, seq, failed_status).await?,
                Err(StoreError::Ended) => {}
                Err(err) => return Err(err),
            }
        }
        Ok(())
    }

    /// Puts the event `seq` of `task_id` in the outbox of the task's
    /// webhooks as the dead `runner`'s, for the process that takes over
    /// its other updates to deliver after them.
    async fn hold_as(
        &self,
        runner: &str,
        task_id: &str,
        seq: Seq,
        event: TaskEvent,
    ) -> Result<(), StoreError> {
        let Some(update) = event.into_stream() else {
            return Ok(());
        };
        self.push_configs()
            .hold_for(runner, task_id, seq, &to_json(&update)?)
            .await
    }
}
