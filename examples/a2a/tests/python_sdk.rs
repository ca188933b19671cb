//! The official A2A Python SDK (`a2a-sdk` 1.3, from PyPI) as the client of
//! `text-agent`, and as the server our generated client calls
//! (`reference_agent.py`, the same agent on the SDK's own server classes).
//!
//! Each test starts the agent on a loopback port of its own, runs
//! `tests/python/sdk_client.py` with one scenario against the card URL the
//! agent printed, and checks the JSON report of what the SDK's client saw.
//! The pinned packages of `tests/python/requirements.txt` are installed by
//! the test with `pip install --target <target dir>/a2a-python`, unless
//! they are there already. Python 3 with pip must be on `PATH`.

#[path = "common/agent_process.rs"]
mod agent_process;
#[path = "common/report.rs"]
mod report;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use typed_rpc_test_support::pip::PythonPackages;
use typed_rpc_test_support::process;

use agent_process::Agent;
use report::{list, text};

/// How long a scenario may take to run.
const PATIENCE: Duration = Duration::from_secs(90);
const TOKEN: &str = "a2a-test-token";

// ---------------------------------------------------------------------------
// The Python side.

/// `tests/python`: the SDK's client script and the pins of its packages.
fn python_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("python")
}

/// `python3 tests/python/<script>`, with the pinned packages (installed in
/// `<target dir>/a2a-python`) on its path.
fn python(script: &str) -> Command {
    let packages =
        PythonPackages::install(python_dir().join("requirements.txt"), "a2a-python").unwrap();
    let mut command = packages.python(python_dir().join(script));
    command.current_dir(python_dir());
    command
}

// ---------------------------------------------------------------------------
// The agent.

/// Starts `reference_agent.py`, the same agent written with the SDK's own
/// server classes, on a port of its own.
fn reference_agent() -> Agent {
    let mut command = python("reference_agent.py");
    command.args(["--listen", "127.0.0.1:0"]);
    Agent::spawn(command)
}

/// `sdk_client.py <card> <scenario> [--token TOKEN]` against `agent`: what the SDK observed.
fn observe_with(agent: &Agent, scenario: &str, token: Option<&str>) -> Value {
    let mut command = python("sdk_client.py");
    command.args([agent.card.as_str(), scenario]);
    if let Some(token) = token {
        command.args(["--token", token]);
    }
    let output = process::run(command, PATIENCE).unwrap();
    let (stdout, stderr) = (&output.stdout, &output.stderr);
    assert!(
        output.success(),
        "sdk_client.py {scenario} failed:\n{stdout}\n{stderr}"
    );
    let report = stdout.lines().last().unwrap_or_default();
    let report: Value = serde_json::from_str(report).unwrap_or_else(|err| {
        panic!("sdk_client.py {scenario} printed no JSON report ({err}):\n{stdout}\n{stderr}")
    });
    assert_eq!(report["scenario"], scenario);
    report
}

/// The one scenario against an agent of its own.
fn observe(scenario: &str) -> Value {
    observe_with(&Agent::start(&[]), scenario, None)
}

// ---------------------------------------------------------------------------
// Reading the reports.

/// The artifacts of a task summary as `(artifactId, name, text)`.
fn artifacts(task: &Value) -> Vec<(&str, &str, &str)> {
    list(&task["artifacts"])
        .iter()
        .map(|a| (text(&a["artifactId"]), text(&a["name"]), text(&a["text"])))
        .collect()
}

/// Asserts that a task summary is a completed `upper` task whose result is `words`.
fn assert_upper_done(task: &Value, words: &str) {
    assert_eq!(task["kind"], "task", "{task}");
    assert_eq!(task["state"], "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(artifacts(task), [("upper", "result", words)], "{task}");
}

fn assert_error(observed: &Value, class: &str, code: i64) {
    assert_eq!(observed["error"], class, "{observed}");
    assert_eq!(observed["code"], code, "{observed}");
}

fn not_terminal(state: &Value) -> bool {
    matches!(text(state), "TASK_STATE_SUBMITTED" | "TASK_STATE_WORKING")
}

const HELLO: &str = "hello, I am the text agent";

// ---------------------------------------------------------------------------
// The scenarios.

#[test]
fn the_sdk_resolves_the_card_and_picks_the_jsonrpc_interface() {
    let agent = Agent::start(&[]);
    let card = observe_with(&agent, "card", None);
    assert_eq!(
        card["interfaces"],
        serde_json::json!([{
            "url": format!("{}/a2a", agent.base),
            "protocolBinding": "JSONRPC",
            "protocolVersion": "1.0",
        }])
    );
    assert_eq!(card["streaming"], true);
    let skills: Vec<&str> = list(&card["skills"]).iter().map(text).collect();
    for skill in ["hello", "upper", "slow"] {
        assert!(skills.contains(&skill), "no {skill} skill in {skills:?}");
    }
    assert_eq!(card["securitySchemes"], serde_json::json!([]));
    // create_client resolves the card itself, and talks to the interface it names.
    let hello = &card["createClientHello"];
    assert_eq!(hello["kind"], "message", "{hello}");
    assert_eq!(hello["role"], "ROLE_AGENT");
    assert_eq!(hello["text"], HELLO);
}

#[test]
fn a_blocking_send_answers_with_the_finished_task_or_a_message() {
    let sent = observe("send");
    assert_upper_done(&sent["upper"], "HELLO FROM THE SDK");
    assert_eq!(sent["hello"]["kind"], "message", "{sent}");
    assert_eq!(sent["hello"]["text"], HELLO);
}

#[test]
fn return_immediately_answers_before_the_work_is_done() {
    let sent = observe("return-immediately");
    let first = &sent["first"];
    assert_eq!(first["kind"], "task", "{sent}");
    assert!(not_terminal(&first["state"]), "{sent}");
    assert_eq!(sent["final"]["id"], first["id"]);
    assert_eq!(sent["final"]["state"], "TASK_STATE_COMPLETED", "{sent}");
}

#[test]
fn a_stream_is_the_task_then_status_then_chunks_then_the_terminal_status() {
    let streamed = observe("stream");
    let events = list(&streamed["events"]);
    let (first, last) = (&events[0], &events[events.len() - 1]);
    assert_eq!(first["kind"], "task", "{streamed}");
    assert!(not_terminal(&first["state"]), "{streamed}");
    let id = text(&first["id"]);
    assert!(
        events[1..].iter().all(|event| event["taskId"] == id),
        "{streamed}"
    );
    assert_eq!(last["kind"], "status", "{streamed}");
    assert_eq!(last["state"], "TASK_STATE_COMPLETED", "{streamed}");

    let chunks: Vec<&Value> = events
        .iter()
        .filter(|event| event["kind"] == "artifact")
        .collect();
    let first_chunk = events
        .iter()
        .position(|event| event["kind"] == "artifact")
        .expect("artifact chunks");
    let working = |event: &&Value| {
        event["state"] == "TASK_STATE_WORKING"
            && (event["text"] == "upper-casing" || event["statusText"] == "upper-casing")
    };
    assert!(
        events[..first_chunk].iter().any(|event| working(&event)),
        "no `upper-casing` before the first chunk: {streamed}"
    );
    let joined: String = chunks.iter().map(|chunk| text(&chunk["text"])).collect();
    assert_eq!(joined, "STREAMED THROUGH THE OFFICIAL SDK");
    for (i, chunk) in chunks.iter().enumerate() {
        assert_eq!(chunk["artifactId"], "upper", "{chunk}");
        assert!(text(&chunk["text"]).chars().count() <= 8, "{chunk}");
        assert_eq!(chunk["append"], i > 0, "{chunk}");
        assert_eq!(chunk["lastChunk"], i == chunks.len() - 1, "{chunk}");
    }
    // The chunks in one run, and then only the terminal status.
    assert_eq!(first_chunk + chunks.len(), events.len() - 1, "{streamed}");
}

#[test]
fn get_task_trims_history_to_history_length() {
    let got = observe("history");
    assert_eq!(got["task"]["state"], "TASK_STATE_COMPLETED", "{got}");
    let full = list(&got["fullHistory"]);
    assert!(
        full.iter().filter(|role| *role == "ROLE_USER").count() >= 2,
        "both user messages of the turn are in the history: {got}"
    );
    assert_eq!(list(&got["historyLength1"]).len(), 1, "{got}");
    assert_eq!(got["newestKept"], true, "{got}");
}

#[test]
fn list_tasks_pages_newest_first_and_filters() {
    let listed = observe("list");
    let made: Vec<&str> = list(&listed["made"]).iter().map(text).collect();
    let pages = list(&listed["pages"]);
    assert_eq!(list(&pages[0]["ids"]).len(), 2, "{listed}");
    assert_ne!(pages[0]["nextPageToken"], "", "{listed}");
    assert_eq!(pages[1]["nextPageToken"], "", "the last page: {listed}");
    assert_eq!(pages[0]["totalSize"], 4, "{listed}");
    let listed_ids: Vec<&str> = pages
        .iter()
        .flat_map(|page| list(&page["ids"]))
        .map(text)
        .collect();
    let newest_first: Vec<&str> = made.iter().rev().copied().collect();
    assert_eq!(listed_ids, newest_first, "{listed}");
    assert_eq!(
        listed["inputRequired"],
        serde_json::json!([made[3]]),
        "{listed}"
    );
    assert_eq!(listed["otherContext"], serde_json::json!([]), "{listed}");
}

#[test]
fn cancel_stops_a_working_task_and_refuses_a_finished_one() {
    let canceled = observe("cancel");
    assert!(not_terminal(&canceled["started"]["state"]), "{canceled}");
    assert_eq!(
        canceled["canceled"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    assert_eq!(
        canceled["afterCancel"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    assert_error(&canceled["cancelAgain"], "TaskNotCancelableError", -32002);
    assert_upper_done(&canceled["completed"], "FINISHED");
    assert_error(
        &canceled["cancelCompleted"],
        "TaskNotCancelableError",
        -32002,
    );
}

#[test]
fn subscribe_joins_a_running_task_and_follows_it_to_the_end() {
    let joined = observe("subscribe");
    let id = &joined["started"]["id"];
    let events = list(&joined["events"]);
    assert_eq!(events[0]["kind"], "task", "{joined}");
    assert_eq!(&events[0]["id"], id);
    assert!(not_terminal(&events[0]["state"]), "{joined}");
    let (last, steps) = events[1..].split_last().expect("events after the task");
    assert_eq!(last["kind"], "status", "{joined}");
    assert_eq!(last["state"], "TASK_STATE_COMPLETED", "{joined}");
    let numbers: Vec<u32> = steps
        .iter()
        .map(|step| {
            assert_eq!(step["kind"], "status", "{step}");
            assert_eq!(&step["taskId"], id);
            assert_eq!(step["state"], "TASK_STATE_WORKING", "{step}");
            let words = text(&step["text"]);
            let number = words
                .strip_prefix("step ")
                .and_then(|rest| rest.strip_suffix(" of 20"))
                .unwrap_or_else(|| panic!("{words:?} is not `step <i> of 20`"));
            number.parse().expect("a step number")
        })
        .collect();
    assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1), "{numbers:?}");
    assert_eq!(numbers.last(), Some(&20), "{joined}");
}

#[test]
fn an_unknown_task_is_task_not_found() {
    let unknown = observe("unknown-task");
    for call in ["getTask", "cancelTask", "subscribe", "continueTask"] {
        assert_error(&unknown[call], "TaskNotFoundError", -32001);
    }
}

#[test]
fn an_ambiguous_request_asks_for_input_and_the_answer_continues_the_task() {
    let turn = observe("input-required");
    let asked = &turn["asked"];
    assert_eq!(asked["state"], "TASK_STATE_INPUT_REQUIRED", "{turn}");
    assert_eq!(asked["statusText"], "what should I upper-case?", "{turn}");
    assert_eq!(turn["answered"]["id"], asked["id"], "the same task: {turn}");
    assert_upper_done(&turn["answered"], "MAKE IT LOUD");
}

#[test]
fn a_bearer_token_is_required_when_the_agent_has_one() {
    let agent = Agent::start(&["--token", TOKEN]);
    let seen = observe_with(&agent, "auth", Some(TOKEN));
    assert_ne!(seen["securitySchemes"], serde_json::json!([]), "{seen}");
    assert_ne!(
        seen["securityRequirements"],
        serde_json::json!([]),
        "{seen}"
    );
    assert_error(&seen["withoutToken"], "A2AClientError", 401);
    assert_error(&seen["wrongToken"], "A2AClientError", 401);
    assert_upper_done(&seen["withToken"], "LET ME IN");
    assert_eq!(seen["rawStatus"], 401);
    assert!(
        text(&seen["rawWwwAuthenticate"]).starts_with("Bearer"),
        "{seen}"
    );
}

#[test]
fn the_sdk_gets_the_extended_card_with_its_token() {
    let agent = Agent::start(&["--token", TOKEN, "--extended-card"]);
    let seen = observe_with(&agent, "extended-card", Some(TOKEN));
    assert_eq!(seen["publicExtendedAgentCard"], true, "{seen}");
    assert_eq!(seen["publicProvider"], "", "{seen}");
    assert_eq!(seen["extendedProvider"], "typed-rpc examples", "{seen}");
    assert!(
        text(&seen["extendedDescription"]).ends_with("for authenticated callers."),
        "{seen}"
    );
    assert_ne!(seen["publicDescription"], seen["extendedDescription"]);
    assert_error(&seen["withoutToken"], "A2AClientError", 401);
}

#[test]
fn the_sdk_sets_gets_lists_and_deletes_a_webhook_that_gets_the_updates() {
    let seen = observe_with(&Agent::start(&["--push"]), "push-configs", None);
    assert_eq!(seen["pushNotifications"], true, "{seen}");
    let id = text(&seen["createdId"]);
    assert!(!id.is_empty(), "{seen}");
    assert_eq!(seen["gotUrl"], seen["hookUrl"], "{seen}");
    assert_eq!(seen["listed"], serde_json::json!([id]), "{seen}");
    assert_eq!(seen["listedAfterDelete"], serde_json::json!([]), "{seen}");
    assert_error(&seen["getAfterDelete"], "TaskNotFoundError", -32001);
    assert_eq!(seen["tokens"], serde_json::json!(["sdk-token"]), "{seen}");
    assert_eq!(
        seen["authorizations"],
        serde_json::json!(["Bearer sdk-credentials"]),
        "{seen}"
    );
    assert_eq!(seen["taskIds"], serde_json::json!([seen["createdTaskId"]]));
    assert_eq!(seen["lastState"], "TASK_STATE_COMPLETED", "{seen}");
}

#[test]
fn a_retried_message_id_does_not_run_twice() {
    let retried = observe("retry");
    assert_upper_done(&retried["first"], "ONLY ONCE");
    assert_eq!(retried["second"]["id"], retried["first"]["id"], "{retried}");
    // Retried while the first was still working: the same task, waited for.
    let started = &retried["started"];
    assert!(not_terminal(&started["state"]), "{retried}");
    let waited = &retried["retriedWhileWorking"];
    assert_eq!(waited["id"], started["id"], "{retried}");
    assert_eq!(waited["state"], "TASK_STATE_COMPLETED", "{retried}");
    let mut tasks: Vec<&str> = list(&retried["tasksInContext"]).iter().map(text).collect();
    let mut sent = vec![text(&retried["first"]["id"]), text(&started["id"])];
    tasks.sort_unstable();
    sent.sort_unstable();
    assert_eq!(tasks, sent, "one task per message: {retried}");
}

// ---------------------------------------------------------------------------
// Our generated client against the SDK's own agent.

mod our_client {
    use std::time::Duration;

    use typed_rpc_a2a::types::*;

    use super::{Agent, reference_agent};

    fn user(text: &str) -> Message {
        Message::text(Role::User, typed_rpc_a2a::server::new_id(), text)
    }

    fn task(response: SendMessageResponse) -> Task {
        match response {
            SendMessageResponse::Task(task) => task,
            SendMessageResponse::Message(message) => panic!("a message, not a task: {message:?}"),
        }
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// Resolves the card as a client does: `GET` it, pick the JSON-RPC interface.
    async fn client(
        agent: &Agent,
    ) -> typed_rpc_a2a::A2aClient<typed_rpc::transport::http::HttpClient> {
        let card = agent.card.clone();
        let body = tokio::task::spawn_blocking(move || get(&card))
            .await
            .unwrap();
        let card: AgentCard = serde_json::from_str(&body).expect("an A2A 1.0 agent card");
        assert!(card.capabilities.streaming.unwrap_or(false), "{body}");
        typed_rpc_a2a::client::connect(&card, None, |b| b.timeout(Duration::from_secs(20)))
            .expect("the card has a JSON-RPC interface")
    }

    /// The body of `GET url` (plain HTTP/1.0 on loopback).
    fn get(url: &str) -> String {
        use std::io::{Read, Write};
        let rest = url.strip_prefix("http://").unwrap();
        let (host, path) = rest.split_once('/').unwrap();
        let mut stream = std::net::TcpStream::connect(host).unwrap();
        write!(stream, "GET /{path} HTTP/1.0\r\nhost: {host}\r\n\r\n").unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).unwrap();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        assert!(
            head.starts_with("HTTP/1.1 200") || head.starts_with("HTTP/1.0 200"),
            "{head}"
        );
        body.to_owned()
    }

    #[test]
    fn sends_streams_gets_lists_and_cancels_on_the_sdk_s_agent() {
        let agent = reference_agent();
        runtime().block_on(async {
            let client = client(&agent).await;

            // Blocking send: the finished task and its artifact.
            let done = task(
                client
                    .send_message(SendMessageRequest::new(user("upper from our client")))
                    .await
                    .unwrap(),
            );
            assert_eq!(done.status.state, TaskState::Completed);
            let text: String = done
                .artifacts
                .iter()
                .flatten()
                .flat_map(|a| a.parts.iter())
                .filter_map(|p| match &p.content {
                    PartContent::Text(text) => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(text, "FROM OUR CLIENT");

            // Streaming: the task first, the terminal status last, chunks between.
            let mut events = client
                .send_streaming_message(SendMessageRequest::new(user("upper streamed to us")))
                .await
                .unwrap();
            let mut seen = Vec::new();
            while let Some(event) = tokio::time::timeout(Duration::from_secs(20), events.next())
                .await
                .expect("the stream ends")
            {
                seen.push(event.expect("an event"));
            }
            assert!(
                matches!(seen.first(), Some(StreamResponse::Task(_))),
                "{seen:?}"
            );
            let chunks: String = seen
                .iter()
                .filter_map(|e| match e {
                    StreamResponse::ArtifactUpdate(update) => Some(update),
                    _ => None,
                })
                .flat_map(|u| u.artifact.parts.iter())
                .filter_map(|p| match &p.content {
                    PartContent::Text(text) => Some(text.clone()),
                    _ => None,
                })
                .collect();
            assert_eq!(chunks, "STREAMED TO US");
            match seen.last() {
                Some(StreamResponse::StatusUpdate(update)) => {
                    assert_eq!(update.status.state, TaskState::Completed)
                }
                other => panic!("the stream ends with the terminal status, not {other:?}"),
            }

            // Get, with the history trimmed.
            let got = client
                .get_task(GetTaskRequest {
                    id: done.id.clone(),
                    history_length: Some(1),
                })
                .await
                .unwrap();
            assert_eq!(got.id, done.id);
            assert!(got.history.unwrap_or_default().len() <= 1);

            // List, in the first task's conversation.
            let listed = client
                .list_tasks(ListTasksRequest {
                    context_id: Some(done.context_id.clone()),
                    ..Default::default()
                })
                .await
                .unwrap();
            assert!(listed.tasks.iter().any(|t| t.id == done.id), "{listed:?}");

            // Cancel a working task; a finished one cannot be.
            let slow = task(
                client
                    .send_message(SendMessageRequest {
                        configuration: Some(SendMessageConfiguration {
                            return_immediately: true,
                            ..Default::default()
                        }),
                        ..SendMessageRequest::new(user("slow 50"))
                    })
                    .await
                    .unwrap(),
            );
            let cancelled = client
                .cancel_task(CancelTaskRequest {
                    id: slow.id.clone(),
                    metadata: None,
                })
                .await
                .unwrap();
            assert_eq!(cancelled.status.state, TaskState::Canceled);
            let refused = client
                .cancel_task(CancelTaskRequest {
                    id: done.id.clone(),
                    metadata: None,
                })
                .await
                .unwrap_err();
            // The SDK's -32002, recovered as our typed error.
            assert!(
                matches!(
                    refused,
                    typed_rpc::CallError::App(typed_rpc_a2a::A2aError::TaskNotCancelable(_))
                ),
                "{refused:?}"
            );
        });
    }
}
