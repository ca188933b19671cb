//! The in-process columns and cases, shared by the criterion bench
//! (`benches/inprocess.rs`) and the interleaved one (`bin/inproc_ab.rs`).
//!
//! - `ours`: `Router::handle`;
//! - `jsonrpsee`: `RpcModule::raw_json_request` for single calls; for batches
//!   and notifications, which `raw_json_request` cannot take, jsonrpsee's own
//!   HTTP service (`TowerService`) called in-process, no socket;
//! - `floor`: the hand-written minimum in [`crate::floor`].
//!
//! Every column is driven the same way: one poll with a no-op waker
//! ([`run_ready`]).

use std::hint::black_box;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use jsonrpsee::server::{Server, stop_channel};
use tower::Service;

use crate::api::{jsonrpsee_api, ours};
use crate::exec::run_ready;
use crate::floor;
use crate::payloads::{self, check_batch, check_error, check_result};

/// jsonrpsee's HTTP service, called in-process.
pub type Tower =
    jsonrpsee::server::TowerService<tower::layer::util::Identity, tower::layer::util::Identity>;

/// jsonrpsee's HTTP service for the benchmark API.
pub fn tower_service() -> Tower {
    let (stop, handle) = stop_channel();
    // The server stays "running" for the whole process.
    std::mem::forget(handle);
    Server::builder()
        .to_service_builder()
        .build(jsonrpsee_api::module(), stop)
}

/// One POST through jsonrpsee's HTTP service; the body text. jsonrpsee
/// answers a notification with `200` and the body `null`.
pub async fn tower_call(service: &mut Tower, body: &'static str) -> String {
    String::from_utf8(tower_bytes(service, body).await.to_vec()).expect("UTF-8")
}

/// One POST through jsonrpsee's HTTP service; the body bytes.
pub async fn tower_bytes(service: &mut Tower, body: &'static str) -> Bytes {
    let request = hyper::Request::post("/")
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(body.as_bytes())))
        .expect("a valid request");
    let response = service.call(request).await.expect("an HTTP response");
    response
        .into_body()
        .collect()
        .await
        .expect("a body")
        .to_bytes()
}

/// The three implementations, ready to be called.
pub struct Columns {
    router: typed_rpc::Router,
    module: jsonrpsee::RpcModule<()>,
    tower: Tower,
}

impl Default for Columns {
    fn default() -> Self {
        Columns {
            router: ours::router(),
            module: jsonrpsee_api::module(),
            tower: tower_service(),
        }
    }
}

impl Columns {
    /// typed-rpc.
    pub fn ours(&self, request: &str) -> Option<String> {
        run_ready(self.router.handle(request.as_bytes()))
    }

    /// jsonrpsee's in-process call (single calls only).
    pub fn jsonrpsee(&self, request: &str) -> String {
        let (reply, _subscriptions) =
            run_ready(self.module.raw_json_request(request, 1)).expect("a valid request");
        reply.get().to_owned()
    }

    /// jsonrpsee through its HTTP service; `None` for an empty or `null` body.
    pub fn jsonrpsee_tower(&mut self, request: &'static str) -> Option<String> {
        Some(run_ready(tower_call(&mut self.tower, request)))
            .filter(|t| !t.is_empty() && t != "null")
    }

    /// The floor.
    pub fn floor(&self, request: &str) -> Option<String> {
        run_ready(async { floor::handle(request.as_bytes()) })
    }

    /// Runs `column` on `request` for timing: each column's own output is
    /// dropped as it comes (jsonrpsee's `Box<RawValue>` or body bytes are not
    /// converted to a `String`, so the harness adds no work to any column).
    #[inline]
    pub fn time(&mut self, column: Column, request: &'static str) {
        match column {
            Column::Ours => drop(black_box(run_ready(self.router.handle(request.as_bytes())))),
            Column::Jsonrpsee => drop(black_box(
                run_ready(self.module.raw_json_request(request, 1)).expect("a valid request"),
            )),
            Column::JsonrpseeTower => {
                drop(black_box(run_ready(tower_bytes(&mut self.tower, request))))
            }
            Column::Floor => drop(black_box(run_ready(async {
                floor::handle(request.as_bytes())
            }))),
        }
    }

    /// Runs `column` on `request`, for the checks.
    pub fn run(&mut self, column: Column, request: &'static str) -> Option<String> {
        match column {
            Column::Ours => self.ours(request),
            Column::Jsonrpsee => Some(self.jsonrpsee(request)),
            Column::JsonrpseeTower => self.jsonrpsee_tower(request),
            Column::Floor => self.floor(request),
        }
    }
}

/// A column of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// typed-rpc.
    Ours,
    /// jsonrpsee, `raw_json_request`.
    Jsonrpsee,
    /// jsonrpsee, its HTTP service in-process.
    JsonrpseeTower,
    /// The hand-written floor.
    Floor,
}

impl Column {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Column::Ours => "ours",
            Column::Jsonrpsee | Column::JsonrpseeTower => "jsonrpsee",
            Column::Floor => "floor",
        }
    }
}

/// One in-process case.
pub struct Case {
    /// Its name.
    pub name: &'static str,
    /// The request text.
    pub request: &'static str,
    /// How jsonrpsee is called for it.
    pub jsonrpsee: Column,
    /// Checks a reply (`None`: nothing sent back).
    pub check: fn(Option<&str>) -> Result<(), String>,
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The in-process cases, in table order.
pub fn cases() -> Vec<Case> {
    fn add3(r: Option<&str>) -> Result<(), String> {
        check_result(r.ok_or("no reply")?, 1, 3)
    }
    vec![
        Case {
            name: "add_positional",
            request: payloads::ADD_POSITIONAL,
            jsonrpsee: Column::Jsonrpsee,
            check: add3,
        },
        Case {
            name: "add_named",
            request: payloads::ADD_NAMED,
            jsonrpsee: Column::Jsonrpsee,
            check: add3,
        },
        Case {
            name: "add_struct",
            request: payloads::ADD_STRUCT,
            jsonrpsee: Column::Jsonrpsee,
            check: add3,
        },
        Case {
            name: "invalid_params",
            request: payloads::ADD_WRONG_TYPE,
            jsonrpsee: Column::Jsonrpsee,
            check: |r| check_error(r.ok_or("no reply")?, 1, -32602),
        },
        Case {
            name: "batch_add_100",
            request: leak(payloads::batch_add(100)),
            jsonrpsee: Column::JsonrpseeTower,
            check: |r| check_batch(r.ok_or("no reply")?, 100, |i| 2 * i as i64),
        },
        Case {
            name: "notification",
            request: payloads::NOTIFY,
            jsonrpsee: Column::JsonrpseeTower,
            check: |r| match r {
                None => Ok(()),
                Some(r) => Err(format!("a notification was answered: {r}")),
            },
        },
    ]
}
