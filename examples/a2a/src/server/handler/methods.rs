//! The [`A2a`] methods of the request handler.

use futures_util::stream::{self, BoxStream, Stream, StreamExt};
use typed_rpc::Context;

use super::send::answer;
use super::{RequestHandler, owner};
use crate::api::A2a;
use crate::error::A2aError;
use crate::server::follow::{Ends, follow};
use crate::server::live::TurnState;
use crate::server::store::{TaskQuery, TaskStore, TaskView};
use crate::server::validate::{history_length, page_size};
use crate::server::{AgentExecutor, Caller};
use crate::types::*;

impl<E: AgentExecutor, S: TaskStore> A2a for RequestHandler<E, S> {
    async fn send_message(
        &self,
        cx: &Context,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse, A2aError> {
        let immediately = request
            .configuration
            .as_ref()
            .is_some_and(|c| c.return_immediately);
        let turn = self.send(cx, request, false).await?;
        match answer(turn.state, !immediately).await? {
            TurnState::Replied(message) => Ok(SendMessageResponse::Message(message)),
            TurnState::Task { id, .. } => {
                let view = TaskView {
                    history_length: turn.history_length,
                    without_artifacts: false,
                };
                let answered = self.load(&id, &owner(cx), view).await?;
                Ok(SendMessageResponse::Task(answered.task))
            }
            TurnState::Pending => Err(A2aError::internal("the turn ended without an answer")),
        }
    }

    async fn send_streaming_message(
        &self,
        cx: &Context,
        request: SendMessageRequest,
    ) -> Result<impl Stream<Item = Result<StreamResponse, A2aError>> + Send + 'static, A2aError>
    {
        let turn = self.send(cx, request, true).await?;
        match turn.events {
            Some((events, from)) => Ok(follow(
                self.shared.store.clone(),
                turn.task_id,
                turn.first,
                from,
                events,
                StreamResponse::ends_stream,
            )),
            // A retried message: its turn's answer so far, then what is still to come.
            None => match answer(turn.state, false).await? {
                TurnState::Replied(message) => {
                    Ok(stream::iter([Ok(StreamResponse::Message(message))]).boxed())
                }
                TurnState::Task { id, .. } => self.follow(&id, &owner(cx), true).await,
                TurnState::Pending => Err(A2aError::internal("the turn ended without an answer")),
            },
        }
    }

    async fn get_task(&self, cx: &Context, request: GetTaskRequest) -> Result<Task, A2aError> {
        let view = TaskView {
            history_length: history_length(request.history_length, "historyLength")?,
            without_artifacts: false,
        };
        Ok(self.load(&request.id, &owner(cx), view).await?.task)
    }

    async fn list_tasks(
        &self,
        cx: &Context,
        request: ListTasksRequest,
    ) -> Result<ListTasksResponse, A2aError> {
        let page_size = page_size(request.page_size)?;
        let history_length = history_length(request.history_length, "historyLength")?;
        let status_after = match &request.status_timestamp_after {
            None => None,
            Some(stamp) => Some(
                time::OffsetDateTime::parse(stamp, &time::format_description::well_known::Rfc3339)
                    .map_err(|_| {
                        A2aError::invalid_params(
                            "statusTimestampAfter",
                            "not an ISO-8601 timestamp",
                        )
                    })?,
            ),
        };
        let query = TaskQuery {
            owner: owner(cx),
            context_id: request.context_id.filter(|c| !c.is_empty()),
            state: request.status.filter(|s| *s != TaskState::Unspecified),
            status_after,
            page_size: page_size as usize,
            page_token: request.page_token.filter(|t| !t.is_empty()),
            view: TaskView {
                history_length,
                without_artifacts: !request.include_artifacts.unwrap_or(false),
            },
        };
        let page = self.shared.store.list(&query).await?;
        Ok(ListTasksResponse {
            tasks: page.tasks,
            next_page_token: page.next_page_token.unwrap_or_default(),
            page_size,
            total_size: u32::try_from(page.total_size).unwrap_or(u32::MAX),
        })
    }

    async fn cancel_task(
        &self,
        cx: &Context,
        request: CancelTaskRequest,
    ) -> Result<Task, A2aError> {
        let owner = owner(cx);
        let live = self.live(&request.id, &owner).await?;
        let task = self.load(&request.id, &owner, TaskView::default()).await?;
        if task.task.status.state.is_terminal() {
            return Err(A2aError::task_not_cancelable(&request.id));
        }
        self.shared.agent.cancel(&task.task).await;
        let mut state = live.lock().await;
        if state.status.state.is_terminal() {
            return Err(A2aError::task_not_cancelable(&request.id));
        }
        if let Some(running) = state.running.take() {
            running.abort();
        }
        state
            .set_status(&*self.shared.store, TaskState::Canceled, None)
            .await?;
        Ok(self
            .load(&request.id, &owner, TaskView::default())
            .await?
            .task)
    }

    async fn subscribe_to_task(
        &self,
        cx: &Context,
        request: SubscribeToTaskRequest,
    ) -> Result<impl Stream<Item = Result<StreamResponse, A2aError>> + Send + 'static, A2aError>
    {
        self.follow(&request.id, &owner(cx), false).await
    }

    async fn create_task_push_notification_config(
        &self,
        cx: &Context,
        config: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        let push = self.pusher()?;
        let Some(task_id) = config.task_id.clone().filter(|id| !id.is_empty()) else {
            return Err(A2aError::invalid_params("taskId", "the task is required"));
        };
        let live = self.live(&task_id, &owner(cx)).await?;
        let config = self.checked_webhook(config)?;
        // Under the task's lock, as its updates are pushed: the webhook gets
        // every update after this one, whole.
        let _state = live.lock().await;
        push.keep(config.clone()).await?;
        Ok(config)
    }

    async fn get_task_push_notification_config(
        &self,
        cx: &Context,
        request: TaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        let push = self.pusher()?;
        self.check_owner(&request.task_id, cx).await?;
        push.configs
            .get(&request.task_id, &request.id)
            .await?
            // The specification's answer to a configuration that is not there.
            .ok_or_else(|| A2aError::task_not_found(&request.task_id))
    }

    async fn list_task_push_notification_configs(
        &self,
        cx: &Context,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2aError> {
        let push = self.pusher()?;
        self.check_owner(&request.task_id, cx).await?;
        // One page always holds them all: a task has at most MAX_CONFIGS_PER_TASK.
        let configs = push.configs.list(&request.task_id).await?;
        Ok(ListTaskPushNotificationConfigsResponse {
            configs,
            next_page_token: String::new(),
        })
    }

    async fn delete_task_push_notification_config(
        &self,
        cx: &Context,
        request: TaskPushNotificationConfigRequest,
    ) -> Result<serde_json::Value, A2aError> {
        let push = self.pusher()?;
        let live = self.live(&request.task_id, &owner(cx)).await?;
        // Under the task's lock, as its updates are pushed: once this
        // answers, no update goes to the webhook, not even one on its way.
        let _state = live.lock().await;
        push.configs.delete(&request.task_id, &request.id).await?;
        push.sender.forget(&request.task_id, &request.id);
        Ok(serde_json::Value::Object(serde_json::Map::new()))
    }

    async fn get_extended_agent_card(
        &self,
        cx: &Context,
        _request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, A2aError> {
        let Some(card) = &self.extended_card else {
            // The card says `extendedAgentCard: false`: the specification's
            // answer to a method the agent does not offer.
            return Err(A2aError::unsupported_operation(
                "this agent has no extended card",
            ));
        };
        if self.auth.is_some() && Caller::of(cx).is_none() {
            // Served without the authentication layer in front (a bare
            // service): no one to serve it to.
            return Err(A2aError::extended_agent_card_not_configured());
        }
        let mut card = AgentCard::clone(card);
        // What the handler does is the same whichever card describes it.
        card.capabilities = self.card.capabilities.clone();
        Ok(card)
    }
}

impl<E: AgentExecutor, S: TaskStore> RequestHandler<E, S> {
    /// `-32001` unless the caller of `cx` owns the task `task_id`.
    async fn check_owner(&self, task_id: &str, cx: &Context) -> Result<(), A2aError> {
        let view = TaskView {
            history_length: Some(0),
            without_artifacts: true,
        };
        self.load(task_id, &owner(cx), view).await.map(drop)
    }

    /// The task's stream from now on: the task as it stands, then its
    /// events, until the task ends; for a `retry` of a streamed message,
    /// until its turn ends. A task that has ended is refused (`-32004`),
    /// except to a retry, which gets it as one event.
    async fn follow(
        &self,
        id: &str,
        owner: &str,
        retry: bool,
    ) -> Result<BoxStream<'static, Result<StreamResponse, A2aError>>, A2aError> {
        let live = self.live(id, owner).await?;
        let state = live.lock().await;
        if state.status.state.is_terminal() && !retry {
            return Err(A2aError::unsupported_operation(
                "the task has ended; there is nothing to subscribe to",
            ));
        }
        // Read and subscribed under the task's lock: no event between.
        let now = self.load(id, owner, TaskView::default()).await?;
        let events = state.subscribe();
        // A retry follows its turn, a subscriber the whole task.
        let ends: Ends = if retry {
            StreamResponse::ends_stream
        } else {
            StreamResponse::ends_task
        };
        let first = Some(StreamResponse::Task(now.task));
        let store = self.shared.store.clone();
        Ok(follow(store, id.to_owned(), first, now.seq, events, ends))
    }
}
