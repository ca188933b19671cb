//! [`PushConfigStore`] on a table: the webhooks of tasks survive a restart
//! and every replica sees them.

use sqlx::{AnyPool, Row};

use super::{SqlStore, failed, from_json, micros_now, to_json};
use crate::server::push_store::PushConfigStore;
use crate::server::store::StoreError;
use crate::types::TaskPushNotificationConfig;

/// The push configurations of a [`SqlStore`]'s tasks, in its database.
#[derive(Clone, Debug)]
pub struct SqlPushConfigStore {
    pool: AnyPool,
}

impl SqlStore {
    /// The store of push configurations beside the tasks, on the same pool.
    pub fn push_configs(&self) -> SqlPushConfigStore {
        SqlPushConfigStore {
            pool: self.pool.clone(),
        }
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
        Ok(())
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
        Ok(())
    }
}
