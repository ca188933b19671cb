//! The card and each skill, blocking and streamed.

use typed_rpc::CallError;
use typed_rpc_a2a::A2aError;
use typed_rpc_a2a::types::*;

use crate::support::*;

#[tokio::test]
async fn the_card_lists_the_jsonrpc_interface_and_the_skills() {
    let addr = start().await;
    let card = fetch_card(addr).await;
    assert_eq!(
        card.jsonrpc_url(),
        Some(format!("http://{addr}/a2a").as_str())
    );
    assert_eq!(card.supported_interfaces[0].protocol_binding, "JSONRPC");
    assert_eq!(card.capabilities.streaming, Some(true));
    assert_eq!(card.capabilities.push_notifications, Some(false));
    let skills: Vec<&str> = card.skills.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(skills, ["hello", "upper", "slow"]);
    assert!(card.security_schemes.is_empty());
}

#[tokio::test]
async fn hello_is_answered_with_a_message_and_no_task() {
    let agent = client(start().await).await;
    let reply = agent.send_message(send(user("hello"))).await.unwrap();
    let SendMessageResponse::Message(message) = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(message.role, Role::Agent);
    assert_eq!(message.first_text(), Some("hello, I am the text agent"));
}

#[tokio::test]
async fn upper_completes_with_the_upper_cased_artifact() {
    let agent = client(start().await).await;
    let done = task(
        agent
            .send_message(send(user("upper make me loud please")))
            .await
            .unwrap(),
    );
    assert_eq!(done.status.state, TaskState::Completed);
    let artifacts = done.artifacts.unwrap();
    assert_eq!(artifacts.len(), 1);
    assert_eq!(
        (
            artifacts[0].artifact_id.as_str(),
            artifacts[0].name.as_deref()
        ),
        ("upper", Some("result"))
    );
    let text: String = artifacts[0]
        .parts
        .iter()
        .map(|p| match &p.content {
            PartContent::Text(t) => t.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(text, "MAKE ME LOUD PLEASE");
}

#[tokio::test]
async fn a_stream_has_the_task_first_then_status_chunks_and_the_terminal_status_last() {
    let agent = client(start().await).await;
    let events = collect(
        agent
            .send_streaming_message(send(user("upper abcdefghijklmnopq")))
            .await
            .unwrap(),
    )
    .await;
    let StreamResponse::Task(first) = &events[0] else {
        panic!("{:?}", events[0])
    };
    assert_eq!(first.status.state, TaskState::Submitted);
    let StreamResponse::StatusUpdate(working) = &events[1] else {
        panic!("{:?}", events[1])
    };
    assert_eq!(working.status.state, TaskState::Working);
    assert_eq!(
        working.status.message.as_ref().unwrap().first_text(),
        Some("upper-casing")
    );
    let chunks: Vec<&TaskArtifactUpdateEvent> = events[2..5]
        .iter()
        .map(|e| match e {
            StreamResponse::ArtifactUpdate(update) => update,
            other => panic!("{other:?}"),
        })
        .collect();
    let texts: Vec<String> = chunks.iter().map(|c| chunk_text(c)).collect();
    assert_eq!(texts, ["ABCDEFGH", "IJKLMNOP", "Q"]);
    let flags: Vec<(bool, bool)> = chunks.iter().map(|c| (c.append, c.last_chunk)).collect();
    assert_eq!(flags, [(false, false), (true, false), (true, true)]);
    let StreamResponse::StatusUpdate(last) = &events[5] else {
        panic!("{:?}", events[5])
    };
    assert_eq!(last.status.state, TaskState::Completed);
    assert_eq!(events.len(), 6);
    assert!(events.iter().all(|e| match e {
        StreamResponse::StatusUpdate(u) => u.task_id == first.id,
        StreamResponse::ArtifactUpdate(u) => u.task_id == first.id,
        _ => true,
    }));
}

#[tokio::test]
async fn slow_reports_each_step_in_order() {
    let agent = client(start().await).await;
    let events = collect(
        agent
            .send_streaming_message(send(user("slow 3")))
            .await
            .unwrap(),
    )
    .await;
    let steps: Vec<(TaskState, Option<String>)> = events[1..]
        .iter()
        .map(|e| match e {
            StreamResponse::StatusUpdate(u) => (
                u.status.state,
                u.status
                    .message
                    .as_ref()
                    .and_then(|m| m.first_text())
                    .map(str::to_owned),
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        steps,
        [
            (TaskState::Working, Some("step 1 of 3".into())),
            (TaskState::Working, Some("step 2 of 3".into())),
            (TaskState::Working, Some("step 3 of 3".into())),
            (TaskState::Completed, None),
        ]
    );
}

#[tokio::test]
async fn a_streamed_hello_is_one_message() {
    let agent = client(start().await).await;
    let events = collect(
        agent
            .send_streaming_message(send(user("hello")))
            .await
            .unwrap(),
    )
    .await;
    assert!(matches!(&events[..], [StreamResponse::Message(m)] if m.role == Role::Agent));
}

#[tokio::test]
async fn an_unclear_request_asks_for_input_and_the_answer_continues_the_task() {
    let agent = client(start().await).await;
    let asked = task(
        agent
            .send_message(send(user("do something")))
            .await
            .unwrap(),
    );
    assert_eq!(asked.status.state, TaskState::InputRequired);
    assert_eq!(status_text(&asked), Some("what should I upper-case?"));

    let mut elsewhere = user("quiet words");
    elsewhere.task_id = Some(asked.id.clone());
    elsewhere.context_id = Some("another conversation".into());
    let refused = agent.send_message(send(elsewhere)).await;
    assert!(
        matches!(refused, Err(CallError::App(A2aError::InvalidParams(_)))),
        "{refused:?}"
    );

    let mut answer = user("quiet words");
    answer.task_id = Some(asked.id.clone());
    answer.context_id = Some(asked.context_id.clone());
    let done = task(agent.send_message(send(answer)).await.unwrap());
    assert_eq!(
        (done.id.as_str(), done.status.state),
        (asked.id.as_str(), TaskState::Completed)
    );
    let artifact = &done.artifacts.unwrap()[0];
    let text: String = artifact
        .parts
        .iter()
        .map(|p| match &p.content {
            PartContent::Text(t) => t.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(text, "QUIET WORDS");
    let history: Vec<Role> = done.history.unwrap().iter().map(|m| m.role).collect();
    assert_eq!(history, [Role::User, Role::Agent, Role::User, Role::Agent]);
}

#[tokio::test]
async fn a_streamed_input_required_turn_ends_at_the_question_and_the_answer_streams_on() {
    let agent = client(start().await).await;
    let asked = collect(
        agent
            .send_streaming_message(send(user("??")))
            .await
            .unwrap(),
    )
    .await;
    let [
        StreamResponse::Task(task),
        StreamResponse::StatusUpdate(question),
    ] = &asked[..]
    else {
        panic!("{asked:?}")
    };
    assert_eq!(question.status.state, TaskState::InputRequired);

    let mut answer = user("ok");
    answer.task_id = Some(task.id.clone());
    let events = collect(agent.send_streaming_message(send(answer)).await.unwrap()).await;
    let StreamResponse::Task(continued) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(
        (continued.id.as_str(), continued.status.state),
        (task.id.as_str(), TaskState::Submitted)
    );
    let Some(StreamResponse::StatusUpdate(last)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(last.status.state, TaskState::Completed);
    let chunks: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            StreamResponse::ArtifactUpdate(update) => Some(chunk_text(update)),
            _ => None,
        })
        .collect();
    assert_eq!(chunks, ["OK"]);
}
