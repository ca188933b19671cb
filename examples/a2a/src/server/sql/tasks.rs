//! [`TaskStore`] on the tables: a task's row holds its owner, current
//! status and runner (the process whose turn it runs: the one that made it
//! or submitted its latest turn), its log holds every event; a read folds
//! the log up to the row's sequence number, an append is one transaction
//! of two statements (three when the task has webhooks: the outbox rows of
//! its pushes, see `push.rs`).

use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::{SqlStore, failed, from_json, micros_now, push, to_json};
use crate::server::store::{
    Claim, Notice, Seq, Snapshot, StoreError, StoredEvent, TaskEvent, TaskPage, TaskQuery,
    TaskStore, TaskView,
};
use crate::types::{Message, StreamResponse, Task, TaskState, TaskStatus};

/// The states `is_terminal` names, as a SQL list: a row in one of them
/// takes no more events.
pub(super) const TERMINAL_STATES: &str = "('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', \
     'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED')";

/// The count of the task's webhooks a `RETURNING` clause reads, so an
/// event of a task without any costs no statement more.
const WEBHOOKS: &str = "(SELECT COUNT(*) FROM a2a_push_configs WHERE task_id = $1)";

/// A state as the `state` column keeps it: its proto JSON name.
pub(super) fn state_name(state: TaskState) -> String {
    match serde_json::to_value(state) {
        Ok(serde_json::Value::String(name)) => name,
        _ => String::new(),
    }
}

/// A status timestamp as the `status_time` column keeps it, microseconds.
pub(super) fn status_micros(status: &TaskStatus) -> Option<i64> {
    let stamp = status.timestamp.as_deref()?;
    let time = OffsetDateTime::parse(stamp, &Rfc3339).ok()?;
    i64::try_from(time.unix_timestamp_nanos() / 1000).ok()
}

impl TaskStore for SqlStore {
    async fn create(&self, task: &Task, owner: &str) -> Result<(), StoreError> {
        let event = to_json(&TaskEvent::Created(task.clone()))?;
        let mut tx = self.pool.begin().await.map_err(failed)?;
        // A webhook may be kept before its task is made (`SendMessage`'s
        // configuration): the row says whether the task has any.
        let row = sqlx::query(
            "INSERT INTO a2a_tasks
             (id, owner, context_id, state, status, status_time, seq, updated, runner)
             VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8)
             RETURNING (SELECT COUNT(*) FROM a2a_push_configs WHERE task_id = $1)",
        )
        .bind(&task.id)
        .bind(owner)
        .bind(&task.context_id)
        .bind(state_name(task.status.state))
        .bind(to_json(&task.status)?)
        .bind(status_micros(&task.status))
        .bind(micros_now())
        .bind(&*self.runner)
        .fetch_one(&mut *tx)
        .await
        .map_err(failed)?;
        self.log(&mut tx, &task.id, 1, event).await?;
        if has_webhooks(&row)? {
            let update = StreamResponse::Task(task.clone());
            push::hold(&mut tx, &self.runner, &task.id, 1, &update).await?;
        }
        tx.commit().await.map_err(failed)
    }

    async fn append(&self, task_id: &str, event: &TaskEvent) -> Result<Seq, StoreError> {
        self.append_as(&self.runner, task_id, event).await
    }

    async fn load(
        &self,
        id: &str,
        owner: &str,
        view: TaskView,
    ) -> Result<Option<Snapshot>, StoreError> {
        let row = sqlx::query("SELECT owner, seq, status FROM a2a_tasks WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(failed)?;
        let Some(row) = row else { return Ok(None) };
        let stored_owner: String = row.try_get(0).map_err(failed)?;
        if stored_owner != owner {
            return Ok(None);
        }
        let seq: i64 = row.try_get(1).map_err(failed)?;
        let status: TaskStatus = from_json(row.try_get::<&str, _>(2).map_err(failed)?)?;
        let task = self.task_at(id, seq, status, view).await?;
        Ok(Some(Snapshot {
            task,
            seq: seq as Seq,
        }))
    }

    async fn events_after(
        &self,
        task_id: &str,
        after: Seq,
        limit: usize,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, event FROM a2a_events WHERE task_id = $1 AND seq > $2
             ORDER BY seq LIMIT $3",
        )
        .bind(task_id)
        .bind(i64::try_from(after).unwrap_or(i64::MAX))
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await
        .map_err(failed)?;
        if rows.is_empty() {
            let exists = sqlx::query("SELECT 1 FROM a2a_tasks WHERE id = $1")
                .bind(task_id)
                .fetch_optional(&self.pool)
                .await
                .map_err(failed)?;
            if exists.is_none() {
                return Err(StoreError::NotFound);
            }
        }
        rows.iter()
            .map(|row| {
                let seq: i64 = row.try_get(0).map_err(failed)?;
                let event = from_json(row.try_get::<&str, _>(1).map_err(failed)?)?;
                Ok(StoredEvent {
                    seq: seq as Seq,
                    event,
                })
            })
            .collect()
    }

    async fn list(&self, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        self.list_page(query).await
    }

    async fn claim_message(
        &self,
        owner: &str,
        message_id: &str,
        task_id: &str,
    ) -> Result<Claim, StoreError> {
        self.claim(owner, message_id, task_id).await
    }

    async fn record_reply(
        &self,
        owner: &str,
        message_id: &str,
        reply: &Message,
    ) -> Result<(), StoreError> {
        self.reply(owner, message_id, reply).await
    }

    fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<Notice>> {
        self.notices.as_ref().map(|sender| sender.subscribe())
    }
}

impl SqlStore {
    /// Appends `event` to the task `task_id` in one transaction with its
    /// pushes: each webhook the task has gets the update in the outbox, as
    /// `holder`'s to deliver (this process's, or a dead one's for its
    /// survivor to deliver after the rest).
    pub(super) async fn append_as(
        &self,
        holder: &str,
        task_id: &str,
        event: &TaskEvent,
    ) -> Result<Seq, StoreError> {
        let encoded = to_json(event)?;
        let mut tx = self.pool.begin().await.map_err(failed)?;
        // Takes the task's row until the commit: appends to one task queue up.
        let row = match event {
            TaskEvent::Status(update) => {
                sqlx::query(&format!(
                    "UPDATE a2a_tasks SET seq = seq + 1, updated = $2, state = $3, status = $4,
                     status_time = $5,
                     runner = CASE WHEN $3 = 'TASK_STATE_SUBMITTED' THEN $6 ELSE runner END
                     WHERE id = $1 AND state NOT IN {TERMINAL_STATES} RETURNING seq, {WEBHOOKS}"
                ))
                .bind(task_id)
                .bind(micros_now())
                .bind(state_name(update.status.state))
                .bind(to_json(&update.status)?)
                .bind(status_micros(&update.status))
                .bind(&*self.runner)
                .fetch_optional(&mut *tx)
                .await
            }
            _ => {
                sqlx::query(&format!(
                    "UPDATE a2a_tasks SET seq = seq + 1, updated = $2
                     WHERE id = $1 AND state NOT IN {TERMINAL_STATES} RETURNING seq, {WEBHOOKS}"
                ))
                .bind(task_id)
                .bind(micros_now())
                .fetch_optional(&mut *tx)
                .await
            }
        }
        .map_err(failed)?;
        let Some(row) = row else {
            let exists = sqlx::query("SELECT 1 FROM a2a_tasks WHERE id = $1")
                .bind(task_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(failed)?;
            return Err(match exists {
                Some(_) => StoreError::Ended,
                None => StoreError::NotFound,
            });
        };
        let seq: i64 = row.try_get(0).map_err(failed)?;
        self.log(&mut tx, task_id, seq, encoded).await?;
        if has_webhooks(&row)?
            && let Some(update) = event.clone().into_stream()
        {
            push::hold(&mut tx, holder, task_id, seq, &update).await?;
        }
        tx.commit().await.map_err(failed)?;
        Ok(seq as Seq)
    }

    /// Inserts the event `seq` of `task_id`, and on PostgreSQL tells the
    /// listening replicas at the commit.
    async fn log(
        &self,
        tx: &mut Transaction<'static, Any>,
        task_id: &str,
        seq: i64,
        event: String,
    ) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO a2a_events (task_id, seq, event) VALUES ($1, $2, $3)")
            .bind(task_id)
            .bind(seq)
            .bind(event)
            .execute(&mut **tx)
            .await
            .map_err(failed)?;
        #[cfg(feature = "postgres")]
        if self.notices.is_some() {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(super::NOTICE_CHANNEL)
                .bind(format!("{seq} {task_id}"))
                .execute(&mut **tx)
                .await
                .map_err(failed)?;
        }
        Ok(())
    }

    /// The task `id` as its events up to `seq` make it, with `status` (its
    /// row's), as `view` asks. A view without history or artifacts reads
    /// only the first event.
    pub(super) async fn task_at(
        &self,
        id: &str,
        seq: i64,
        status: TaskStatus,
        view: TaskView,
    ) -> Result<Task, StoreError> {
        let upto = match view {
            TaskView {
                history_length: Some(0),
                without_artifacts: true,
            } => 1,
            _ => seq,
        };
        let rows = sqlx::query(
            "SELECT event FROM a2a_events WHERE task_id = $1 AND seq <= $2 ORDER BY seq",
        )
        .bind(id)
        .bind(upto)
        .fetch_all(&self.pool)
        .await
        .map_err(failed)?;
        let mut task: Option<Task> = None;
        for row in &rows {
            match (&mut task, from_json(event_text(row)?)?) {
                (None, TaskEvent::Created(created)) => task = Some(created),
                (Some(task), event) => event.apply_to(task),
                (None, _) => break,
            }
        }
        let Some(mut task) = task else {
            return Err(StoreError::Backend(
                format!("the log of task {id} does not start with its creation").into(),
            ));
        };
        task.status = status;
        Ok(view.copy_of(&task))
    }
}

/// Whether a row's last column, a count of the task's push configurations,
/// says it has webhooks.
fn has_webhooks(row: &AnyRow) -> Result<bool, StoreError> {
    let configs: i64 = row.try_get(row.len() - 1).map_err(failed)?;
    Ok(configs > 0)
}

fn event_text(row: &AnyRow) -> Result<&str, StoreError> {
    row.try_get::<&str, _>(0).map_err(failed)
}
