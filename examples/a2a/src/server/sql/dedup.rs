//! The messages seen lately, in a table replicas share: a retried
//! `messageId` finds the turn its first copy started, whichever replica
//! it lands on, for as long as the store's de-duplication window.

use std::sync::atomic::Ordering;

use sqlx::Row;

use super::{SqlStore, failed, from_json, micros_now, to_json};
use crate::server::store::{Claim, StoreError};
use crate::types::Message;

/// Claims between two sweeps of the messages past the window.
const SWEEP_EVERY: u64 = 1024;

impl SqlStore {
    /// Claims `message_id` of `owner` for the turn of `task_id`: a new
    /// message, or one whose entry is past the window, takes the entry
    /// (one statement, so two copies racing get one claim between them).
    pub(super) async fn claim(
        &self,
        owner: &str,
        message_id: &str,
        task_id: &str,
    ) -> Result<Claim, StoreError> {
        let now = micros_now();
        let window = i64::try_from(self.dedup_window.as_micros()).unwrap_or(i64::MAX);
        let expired = now.saturating_sub(window);
        if self.claims.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            sqlx::query("DELETE FROM a2a_messages WHERE seen < $1")
                .bind(expired)
                .execute(&self.pool)
                .await
                .map_err(failed)?;
        }
        let claimed = sqlx::query(
            "INSERT INTO a2a_messages (owner, message_id, task_id, seen) VALUES ($1, $2, $3, $4)
             ON CONFLICT (owner, message_id) DO UPDATE
             SET task_id = excluded.task_id, seen = excluded.seen, reply = NULL
             WHERE a2a_messages.seen < $5",
        )
        .bind(owner)
        .bind(message_id)
        .bind(task_id)
        .bind(now)
        .bind(expired)
        .execute(&self.pool)
        .await
        .map_err(failed)?;
        if claimed.rows_affected() == 1 {
            return Ok(Claim::First);
        }
        let row = sqlx::query(
            "SELECT task_id, reply FROM a2a_messages WHERE owner = $1 AND message_id = $2",
        )
        .bind(owner)
        .bind(message_id)
        .fetch_one(&self.pool)
        .await
        .map_err(failed)?;
        let task_id: String = row.try_get(0).map_err(failed)?;
        let reply: Option<String> = row.try_get(1).map_err(failed)?;
        let reply = reply.as_deref().map(from_json).transpose()?.map(Box::new);
        Ok(Claim::Retry { task_id, reply })
    }

    /// Keeps `reply` as the answer of the turn `message_id` of `owner` started.
    pub(super) async fn reply(
        &self,
        owner: &str,
        message_id: &str,
        reply: &Message,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE a2a_messages SET reply = $3 WHERE owner = $1 AND message_id = $2")
            .bind(owner)
            .bind(message_id)
            .bind(to_json(reply)?)
            .execute(&self.pool)
            .await
            .map_err(failed)?;
        Ok(())
    }
}
