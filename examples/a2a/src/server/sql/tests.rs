//! The durable stores against the conformance suite, on SQLite files and
//! on a throwaway PostgreSQL cluster; two stores (two replicas' pools) on
//! one database appending to one task; the schema's version check; and
//! PostgreSQL's notices reaching the other store.

use std::collections::BTreeSet;

#[cfg(feature = "postgres")]
use typed_rpc_test_support::postgres::Postgres;
#[cfg(feature = "sqlite")]
use typed_rpc_test_support::scratch::TempDir;

use super::*;
use crate::server::store::TaskStore;
use crate::server::store_conformance as conformance;
use crate::types::TaskState;

#[cfg(feature = "sqlite")]
/// A store on a new SQLite file in `dir`, named `name`.
async fn sqlite(dir: &TempDir, name: &str) -> SqlStore {
    let path = dir.path().join(format!("{name}.db"));
    SqlStore::connect(&format!("sqlite:{}", path.display()))
        .await
        .unwrap()
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn sqlite_passes_the_conformance_suite() {
    let dir = TempDir::new("a2a-sqlite").unwrap();
    conformance::pages_run_latest_first_and_filter(&sqlite(&dir, "pages").await).await;
    conformance::the_log_numbers_events(&sqlite(&dir, "log").await).await;
    conformance::an_ended_task_takes_no_more_events(&sqlite(&dir, "ended").await).await;
    conformance::chunks_of_an_artifact_read_back_as_one(&sqlite(&dir, "chunks").await).await;
    conformance::a_claimed_message_is_a_retry_after(&sqlite(&dir, "claims").await).await;
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn sqlite_keeps_everything_across_a_reconnect_and_refuses_a_newer_schema() {
    use crate::server::store::{Claim, TaskView};

    let dir = TempDir::new("a2a-sqlite").unwrap();
    let store = sqlite(&dir, "kept").await;
    store
        .create(&conformance::task("t", "x"), "")
        .await
        .unwrap();
    store.claim_message("", "m", "t").await.unwrap();
    store.close().await;
    let store = sqlite(&dir, "kept").await;
    let task = store.load("t", "", TaskView::default()).await.unwrap();
    assert_eq!(task.map(|t| t.seq), Some(1));
    assert!(matches!(
        store.claim_message("", "m", "u").await.unwrap(),
        Claim::Retry { .. }
    ));
    sqlx::query("INSERT INTO a2a_schema (version) VALUES ($1)")
        .bind(SCHEMA_VERSION + 1)
        .execute(&store.pool)
        .await
        .unwrap();
    store.close().await;
    let path = dir.path().join("kept.db");
    let refused = SqlStore::connect(&format!("sqlite:{}", path.display())).await;
    let err = refused.expect_err("a newer schema is refused").to_string();
    assert!(err.contains("newer than version"), "{err}");
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn two_sqlite_pools_appending_to_one_task_take_turns() {
    let dir = TempDir::new("a2a-sqlite").unwrap();
    let (a, b) = (sqlite(&dir, "shared").await, sqlite(&dir, "shared").await);
    appends_interleave_into_one_log(&a, &b).await;
}

/// Two stores on one database append 40 events each to one task at once:
/// the log numbers all 81 events once each, in order.
async fn appends_interleave_into_one_log(a: &SqlStore, b: &SqlStore) {
    a.create(&conformance::task("t", "x"), "").await.unwrap();
    let event = conformance::status("t", TaskState::Working);
    let appends = |store: &SqlStore| {
        let (store, event) = (store.clone(), event.clone());
        tokio::spawn(async move {
            let mut seqs = Vec::new();
            for _ in 0..40 {
                seqs.push(store.append("t", &event).await.unwrap());
            }
            seqs
        })
    };
    let (from_a, from_b) = (appends(a), appends(b));
    let mut seqs: Vec<u64> = from_a.await.unwrap();
    seqs.extend(from_b.await.unwrap());
    let distinct: BTreeSet<u64> = seqs.iter().copied().collect();
    assert_eq!(distinct, (2..=81).collect());
    let log = b.events_after("t", 0, 100).await.unwrap();
    assert_eq!(
        log.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (1..=81).collect::<Vec<_>>()
    );
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn a_stopped_process_outbox_is_taken_over_once_in_order_then_its_task_failure() {
    use std::time::Duration;

    use crate::server::push_store::{PendingPush, PushConfigStore};
    use crate::types::TaskPushNotificationConfig;

    let dir = TempDir::new("a2a-sqlite").unwrap();
    let url = format!("sqlite:{}", dir.path().join("outbox.db").display());
    let options = SqlOptions {
        heartbeat: Duration::from_millis(20),
        lease: Duration::from_millis(200),
        ..SqlOptions::default()
    };
    let dead = SqlStore::connect_with(&url, options.clone()).await.unwrap();
    dead.create(&conformance::task("t", "x"), "").await.unwrap();
    let configs = dead.push_configs();
    for id in ["hook", "gone"] {
        let config = TaskPushNotificationConfig {
            id: Some(id.into()),
            task_id: Some("t".into()),
            url: format!("http://127.0.0.1:9/{id}"),
            token: None,
            authentication: None,
        };
        configs.save(config).await.unwrap();
    }
    let working = conformance::status("t", TaskState::Working);
    assert_eq!(dead.append("t", &working).await.unwrap(), 2);
    assert_eq!(dead.append("t", &working).await.unwrap(), 3);
    for seq in [3, 1, 2] {
        let body = format!("{{\"n\":{seq}}}");
        configs.hold("t", seq, &body).await.unwrap();
    }
    configs.release("t", "hook", 2).await.unwrap();
    configs.delete("t", "gone").await.unwrap();
    assert!(
        configs.take_over().await.unwrap().is_empty(),
        "none of its own"
    );
    dead.close().await;
    drop((dead, configs));

    // The survivor sweeps the task (failed, event 4) and takes the rest over.
    let survivor = SqlStore::connect_with(&url, options).await.unwrap();
    let configs = survivor.push_configs();
    let mut taken: Vec<PendingPush> = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), async {
        while !taken.iter().any(|p| p.body.contains("TASK_STATE_FAILED")) {
            taken.extend(configs.take_over().await.unwrap());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the survivor takes the stopped process's updates over");
    let seqs: Vec<_> = taken
        .iter()
        .map(|p| (p.config_id.as_str(), p.seq))
        .collect();
    assert_eq!(seqs, [("hook", 1), ("hook", 3), ("hook", 4)], "{taken:?}");
    assert_eq!(taken[0].body, r#"{"n":1}"#);
    let again = configs.take_over().await.unwrap();
    assert!(again.is_empty(), "each taken once: {again:?}");
}

#[cfg(feature = "postgres")]
/// A database of its own on `db` for one case.
async fn postgres(db: &Postgres, name: &str) -> SqlStore {
    db.psql(&format!("CREATE DATABASE {name}")).unwrap();
    let url = db.url();
    let base = url.rsplit_once('/').map_or(url.as_str(), |(base, _)| base);
    SqlStore::connect(&format!("{base}/{name}")).await.unwrap()
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_passes_the_suite_orders_two_replicas_and_tells_them_of_each_other() {
    use crate::server::store::Notice;

    let db = Postgres::start().unwrap();
    conformance::pages_run_latest_first_and_filter(&postgres(&db, "pages").await).await;
    conformance::the_log_numbers_events(&postgres(&db, "log").await).await;
    conformance::an_ended_task_takes_no_more_events(&postgres(&db, "ended").await).await;
    conformance::chunks_of_an_artifact_read_back_as_one(&postgres(&db, "chunks").await).await;
    conformance::a_claimed_message_is_a_retry_after(&postgres(&db, "claims").await).await;

    let a = postgres(&db, "shared").await;
    let url = db.url();
    let base = url.rsplit_once('/').map_or(url.as_str(), |(base, _)| base);
    let b = SqlStore::connect(&format!("{base}/shared")).await.unwrap();
    let mut heard = b.notices().expect("PostgreSQL tells of appends");
    appends_interleave_into_one_log(&a, &b).await;
    let first = tokio::time::timeout(std::time::Duration::from_secs(5), heard.recv())
        .await
        .expect("b hears of a's appends")
        .unwrap();
    assert!(
        matches!(first, Notice::Appended { ref task_id, seq: 1 } if task_id == "t"),
        "{first:?}"
    );
}

#[test]
fn the_sql_list_of_ended_states_is_what_is_terminal_says() {
    use super::tasks::{TERMINAL_STATES, state_name};
    use crate::types::TaskState::*;
    for state in [
        Unspecified,
        Submitted,
        Working,
        Completed,
        Failed,
        Canceled,
        InputRequired,
        Rejected,
        AuthRequired,
    ] {
        let listed = TERMINAL_STATES.contains(&format!("'{}'", state_name(state)));
        assert_eq!(listed, state.is_terminal(), "{state:?}");
    }
    // The states the lease sweep and the runner's mark name by hand.
    assert_eq!(state_name(Submitted), "TASK_STATE_SUBMITTED");
    assert_eq!(state_name(Working), "TASK_STATE_WORKING");
}
