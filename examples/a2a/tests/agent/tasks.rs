//! Task methods: GetTask, ListTasks, CancelTask, SubscribeToTask, errors
//! and de-duplication.

use std::time::Duration;

use typed_rpc::CallError;
use typed_rpc_a2a::A2aError;
use typed_rpc_a2a::types::*;

use crate::support::*;

fn immediately(message: Message) -> SendMessageRequest {
    SendMessageRequest {
        configuration: Some(SendMessageConfiguration {
            return_immediately: true,
            ..Default::default()
        }),
        ..send(message)
    }
}

#[tokio::test]
async fn return_immediately_answers_while_the_task_works() {
    let agent = client(start().await).await;
    let started = task(
        agent
            .send_message(immediately(user("slow 5")))
            .await
            .unwrap(),
    );
    assert!(!started.status.state.ends_turn(), "{:?}", started.status);
    let got = agent
        .get_task(GetTaskRequest {
            id: started.id.clone(),
            history_length: None,
        })
        .await
        .unwrap();
    assert_eq!(got.id, started.id);
}

#[tokio::test]
async fn get_task_trims_the_history_to_history_length() {
    let agent = client(start().await).await;
    let done = task(agent.send_message(send(user("slow 3"))).await.unwrap());
    let get = |history_length| GetTaskRequest {
        id: done.id.clone(),
        history_length,
    };
    let all = agent.get_task(get(None)).await.unwrap().history.unwrap();
    assert_eq!(all.len(), 4); // the user's message and three steps
    let last_two = agent.get_task(get(Some(2))).await.unwrap().history.unwrap();
    assert_eq!(last_two, all[2..]);
    assert!(
        agent
            .get_task(get(Some(0)))
            .await
            .unwrap()
            .history
            .is_none()
    );
    let blocking = SendMessageRequest {
        configuration: Some(SendMessageConfiguration {
            history_length: Some(1),
            ..Default::default()
        }),
        ..send(user("slow 2"))
    };
    assert_eq!(
        task(agent.send_message(blocking).await.unwrap())
            .history
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn an_unknown_task_is_task_not_found() {
    let agent = client(start().await).await;
    let missing = agent
        .get_task(GetTaskRequest {
            id: "no-such-task".into(),
            history_length: None,
        })
        .await;
    let Err(CallError::App(error @ A2aError::TaskNotFound(_))) = missing else {
        panic!("{missing:?}")
    };
    let info = error.info().unwrap();
    assert_eq!(
        (info.reason.as_str(), info.domain.as_str()),
        ("TASK_NOT_FOUND", "a2a-protocol.org")
    );
    let cancel = agent
        .cancel_task(CancelTaskRequest {
            id: "no-such-task".into(),
            metadata: None,
        })
        .await;
    assert!(
        matches!(cancel, Err(CallError::App(A2aError::TaskNotFound(_)))),
        "{cancel:?}"
    );
    let subscribe = agent
        .subscribe_to_task(SubscribeToTaskRequest {
            id: "no-such-task".into(),
        })
        .await;
    assert!(
        matches!(subscribe, Err(CallError::App(A2aError::TaskNotFound(_)))),
        "{:?}",
        subscribe.err()
    );
}

#[tokio::test]
async fn list_tasks_pages_latest_first_and_filters() {
    let agent = client(start().await).await;
    let mut ids = Vec::new();
    for words in ["a", "b", "c"] {
        let mut message = user(&format!("upper {words}"));
        message.context_id = Some("ctx-list".into());
        ids.push(task(agent.send_message(send(message)).await.unwrap()).id);
    }
    let asked = task(agent.send_message(send(user("what?"))).await.unwrap());

    let page = |page_token| ListTasksRequest {
        context_id: Some("ctx-list".into()),
        page_size: Some(2),
        page_token,
        ..Default::default()
    };
    let first = agent.list_tasks(page(None)).await.unwrap();
    let first_ids: Vec<&str> = first.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(first_ids, [ids[2].as_str(), ids[1].as_str()]);
    assert_eq!((first.page_size, first.total_size), (2, 3));
    assert!(
        first.tasks.iter().all(|t| t.artifacts.is_none()),
        "artifacts only when asked for"
    );
    assert!(!first.next_page_token.is_empty());
    let second = agent
        .list_tasks(page(Some(first.next_page_token)))
        .await
        .unwrap();
    assert_eq!(
        second
            .tasks
            .iter()
            .map(|t| t.id.as_str())
            .collect::<Vec<_>>(),
        [ids[0].as_str()]
    );
    assert_eq!(second.next_page_token, "");

    let waiting = agent
        .list_tasks(ListTasksRequest {
            status: Some(TaskState::InputRequired),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(
        waiting
            .tasks
            .iter()
            .map(|t| t.id.as_str())
            .collect::<Vec<_>>(),
        [asked.id.as_str()]
    );
    let with_artifacts = agent
        .list_tasks(ListTasksRequest {
            include_artifacts: Some(true),
            ..page(None)
        })
        .await
        .unwrap();
    assert!(with_artifacts.tasks.iter().all(|t| t.artifacts.is_some()));
    let bad = agent.list_tasks(page(Some("not-a-token".into()))).await;
    assert!(
        matches!(bad, Err(CallError::App(A2aError::InvalidParams(_)))),
        "{bad:?}"
    );
}

#[tokio::test]
async fn cancel_stops_a_working_task_and_refuses_a_finished_one() {
    let agent = client(start().await).await;
    let working = task(
        agent
            .send_message(immediately(user("slow 50")))
            .await
            .unwrap(),
    );
    tokio::time::sleep(Duration::from_millis(250)).await;
    let canceled = agent
        .cancel_task(CancelTaskRequest {
            id: working.id.clone(),
            metadata: None,
        })
        .await
        .unwrap();
    assert_eq!(canceled.status.state, TaskState::Canceled);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let later = agent
        .get_task(GetTaskRequest {
            id: working.id.clone(),
            history_length: None,
        })
        .await
        .unwrap();
    assert_eq!(later.status.state, TaskState::Canceled);
    assert_eq!(later.history, canceled.history, "no step after the cancel");

    let again = agent
        .cancel_task(CancelTaskRequest {
            id: working.id.clone(),
            metadata: None,
        })
        .await;
    assert!(
        matches!(again, Err(CallError::App(A2aError::TaskNotCancelable(_)))),
        "{again:?}"
    );
    let done = task(agent.send_message(send(user("upper x"))).await.unwrap());
    let finished = agent
        .cancel_task(CancelTaskRequest {
            id: done.id,
            metadata: None,
        })
        .await;
    assert!(
        matches!(
            finished,
            Err(CallError::App(A2aError::TaskNotCancelable(_)))
        ),
        "{finished:?}"
    );
}

#[tokio::test]
async fn a_finished_task_takes_no_more_messages() {
    let agent = client(start().await).await;
    let done = task(agent.send_message(send(user("upper x"))).await.unwrap());
    let mut more = user("more");
    more.task_id = Some(done.id);
    let refused = agent.send_message(send(more)).await;
    assert!(
        matches!(
            refused,
            Err(CallError::App(A2aError::UnsupportedOperation(_)))
        ),
        "{refused:?}"
    );
}

#[tokio::test]
async fn subscribe_joins_a_running_task_and_a_cancel_ends_the_stream() {
    let agent = client(start().await).await;
    let working = task(
        agent
            .send_message(immediately(user("slow 4")))
            .await
            .unwrap(),
    );
    let events = agent
        .subscribe_to_task(SubscribeToTaskRequest {
            id: working.id.clone(),
        })
        .await
        .unwrap();
    let events = collect(events).await;
    let StreamResponse::Task(first) = &events[0] else {
        panic!("{:?}", events[0])
    };
    assert_eq!(first.id, working.id);
    let Some(StreamResponse::StatusUpdate(last)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(last.status.state, TaskState::Completed);

    let ended = agent
        .subscribe_to_task(SubscribeToTaskRequest {
            id: working.id.clone(),
        })
        .await;
    assert!(
        matches!(
            ended,
            Err(CallError::App(A2aError::UnsupportedOperation(_)))
        ),
        "{:?}",
        ended.err()
    );
}

#[tokio::test]
async fn a_retried_message_id_does_not_run_the_work_twice() {
    let agent = client(start().await).await;
    let message = user("slow 2");
    let (first, second) = tokio::join!(
        agent.send_message(send(message.clone())),
        agent.send_message(send(message.clone())),
    );
    let (first, second) = (task(first.unwrap()), task(second.unwrap()));
    assert_eq!(first.id, second.id);
    let third = task(agent.send_message(send(message)).await.unwrap());
    assert_eq!(third.id, first.id);
    assert_eq!(third.status.state, TaskState::Completed);
    let steps = third
        .history
        .unwrap()
        .iter()
        .filter(|m| m.role == Role::Agent)
        .count();
    assert_eq!(steps, 2, "the steps of one run");
    let all = agent.list_tasks(ListTasksRequest::default()).await.unwrap();
    assert_eq!(all.total_size, 1);
}

#[tokio::test]
async fn a_subscriber_stays_through_an_input_required_turn_until_the_task_ends() {
    let agent = client(start().await).await;
    let asked = task(agent.send_message(send(user("??"))).await.unwrap());
    let events = agent
        .subscribe_to_task(SubscribeToTaskRequest {
            id: asked.id.clone(),
        })
        .await
        .unwrap();
    let mut answer = user("late");
    answer.task_id = Some(asked.id.clone());
    let done = task(agent.send_message(send(answer)).await.unwrap());
    assert_eq!(done.status.state, TaskState::Completed);
    let events = collect(events).await;
    let StreamResponse::Task(first) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(first.status.state, TaskState::InputRequired);
    let Some(StreamResponse::StatusUpdate(last)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(last.status.state, TaskState::Completed);
}

#[tokio::test]
async fn a_message_id_past_the_deduplication_bound_starts_new_work() {
    let addr = start_configured(None, |handler| {
        handler.deduplication_window(2, std::time::Duration::from_secs(600))
    })
    .await;
    let agent = client(addr).await;
    let first = user("upper one");
    let first_task = task(agent.send_message(send(first.clone())).await.unwrap());
    let retried = task(agent.send_message(send(first.clone())).await.unwrap());
    assert_eq!(retried.id, first_task.id, "within the bound a retry joins");
    for text in ["upper two", "upper three"] {
        agent.send_message(send(user(text))).await.unwrap();
    }
    let late = task(agent.send_message(send(first)).await.unwrap());
    assert_ne!(late.id, first_task.id, "two newer messages pushed it out");
    let all = agent.list_tasks(ListTasksRequest::default()).await.unwrap();
    assert_eq!(all.total_size, 4);
}
