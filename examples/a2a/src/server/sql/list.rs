//! `ListTasks` on the tasks table: the query's filters as SQL, the latest
//! updated first, paged by a key (the update time and id the page before
//! ended at), so a page costs its own size whatever page it is.

use sqlx::Row;
use time::OffsetDateTime;

use super::tasks::state_name;
use super::{SqlStore, failed, from_json};
use crate::server::store::{StoreError, TaskPage, TaskQuery};
use crate::types::TaskStatus;

/// A value bound to a query's placeholder.
enum Bind {
    Text(String),
    Int(i64),
}

/// A `WHERE` clause and the values of its placeholders, numbered in order.
#[derive(Default)]
struct Filter {
    sql: String,
    binds: Vec<Bind>,
}

impl Filter {
    /// Adds the condition `sql`, whose placeholders are written `?` and
    /// numbered here, taking `binds` in order.
    fn and(&mut self, sql: &str, binds: impl IntoIterator<Item = Bind>) {
        self.sql.push_str(if self.sql.is_empty() {
            " WHERE "
        } else {
            " AND "
        });
        let mut binds = binds.into_iter();
        for piece in sql.split_inclusive('?') {
            match piece.strip_suffix('?') {
                Some(before) => {
                    self.sql.push_str(before);
                    self.binds.extend(binds.next());
                    self.sql.push_str(&format!("${}", self.binds.len()));
                }
                None => self.sql.push_str(piece),
            }
        }
    }

    /// `sql` with the values bound.
    fn query<'q>(
        &self,
        sql: &'q str,
    ) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
        let mut query = sqlx::query(sql);
        for bind in &self.binds {
            query = match bind {
                Bind::Text(text) => query.bind(text.clone()),
                Bind::Int(int) => query.bind(*int),
            };
        }
        query
    }
}

/// A page token: the update time and id of the last task of the page before.
fn parse_token(token: &str) -> Result<(i64, String), StoreError> {
    let (updated, id) = token.split_once(':').ok_or(StoreError::InvalidPageToken)?;
    let updated = updated.parse().map_err(|_| StoreError::InvalidPageToken)?;
    Ok((updated, id.to_owned()))
}

impl SqlStore {
    /// One page of the tasks `query` matches, and how many match in all.
    pub(super) async fn list_page(&self, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        let after = query.page_token.as_deref().map(parse_token).transpose()?;
        let mut filter = Filter::default();
        filter.and("owner = ?", [Bind::Text(query.owner.clone())]);
        if let Some(context) = &query.context_id {
            filter.and("context_id = ?", [Bind::Text(context.clone())]);
        }
        if let Some(state) = query.state {
            filter.and("state = ?", [Bind::Text(state_name(state))]);
        }
        if let Some(after) = query.status_after {
            filter.and("status_time >= ?", [Bind::Int(micros_of(after))]);
        }
        let count = format!("SELECT COUNT(*) FROM a2a_tasks{}", filter.sql);
        let total: i64 = filter
            .query(&count)
            .fetch_one(&self.pool)
            .await
            .map_err(failed)?
            .try_get(0)
            .map_err(failed)?;
        if let Some((updated, id)) = after {
            filter.and(
                "(updated < ? OR (updated = ? AND id < ?))",
                [Bind::Int(updated), Bind::Int(updated), Bind::Text(id)],
            );
        }
        let page = format!(
            "SELECT id, seq, status, updated FROM a2a_tasks{} \
             ORDER BY updated DESC, id DESC LIMIT {}",
            filter.sql,
            query.page_size.saturating_add(1)
        );
        let rows = filter
            .query(&page)
            .fetch_all(&self.pool)
            .await
            .map_err(failed)?;
        let mut tasks = Vec::with_capacity(rows.len().min(query.page_size));
        let mut next_page_token = None;
        for (index, row) in rows.iter().enumerate() {
            let id: String = row.try_get(0).map_err(failed)?;
            if index == query.page_size {
                next_page_token = tasks
                    .last()
                    .map(|(updated, id): &(i64, String)| format!("{updated}:{id}"));
                break;
            }
            let updated: i64 = row.try_get(3).map_err(failed)?;
            tasks.push((updated, id));
        }
        let mut page = Vec::with_capacity(tasks.len());
        for (row, (_, id)) in rows.iter().zip(&tasks) {
            let seq: i64 = row.try_get(1).map_err(failed)?;
            let status: TaskStatus = from_json(row.try_get::<&str, _>(2).map_err(failed)?)?;
            page.push(self.task_at(id, seq, status, query.view).await?);
        }
        Ok(TaskPage {
            tasks: page,
            next_page_token,
            total_size: usize::try_from(total).unwrap_or(0),
        })
    }
}

/// `time` in microseconds since the Unix epoch, as `status_time` keeps it.
fn micros_of(time: OffsetDateTime) -> i64 {
    i64::try_from(time.unix_timestamp_nanos() / 1000).unwrap_or(i64::MAX)
}
