"""The official A2A Python SDK's client against an agent, one scenario at a time.

    python3 sdk_client.py CARD_URL SCENARIO [--token TOKEN]

Drives `A2ACardResolver`, `ClientFactory` / `create_client` and
`ClientConfig(streaming=...)` through SCENARIO and prints one JSON object, on
one line, with what it observed (tests/python_sdk.rs asserts on it). Errors
are observed as `{"error": <SDK exception class>, "code": <JSON-RPC code or
HTTP status>}`. Every task a scenario makes is in a context of its own, so
scenarios can share one agent in any order.

Scenarios: card, send, return-immediately, stream, history, list, cancel,
subscribe, unknown-task, input-required, auth, retry, extended-card,
push-configs.
"""

import argparse
import asyncio
import json
import re
import sys
import uuid

import httpx

from a2a.client import (
    A2ACardResolver,
    A2AClientError,
    ClientConfig,
    ClientFactory,
    create_client,
)
from a2a.helpers.proto_helpers import get_text_parts, new_text_part
from a2a.types.a2a_pb2 import (
    AuthenticationInfo,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    Message,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.errors import JSON_RPC_ERROR_CODE_MAP, A2AError

CARD_PATH = "/.well-known/agent-card.json"
# The whole run, so that an agent that never answers fails the scenario instead of hanging it.
RUN_LIMIT_SECONDS = 60
REQUEST_TIMEOUT_SECONDS = 20
TERMINAL = {
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
}


class Agent:
    """The agent under test: its card, and clients made from it with the SDK's factory."""

    def __init__(self, card_url: str, token: str | None) -> None:
        if not card_url.endswith(CARD_PATH):
            raise SystemExit(f"{card_url} is not a URL ending in {CARD_PATH}")
        self.base = card_url.removesuffix(CARD_PATH)
        self.token = token
        self.card = None
        self._http: list[httpx.AsyncClient] = []

    def http(self, token: str | None) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        client = httpx.AsyncClient(headers=headers, timeout=REQUEST_TIMEOUT_SECONDS)
        self._http.append(client)
        return client

    async def resolve(self):
        resolver = A2ACardResolver(self.http(None), self.base, CARD_PATH)
        self.card = await resolver.get_agent_card()
        return self.card

    async def client(self, streaming: bool, token: str | None = None):
        """A client from the resolved card; with the agent's token unless told otherwise."""
        if self.card is None:
            await self.resolve()
        http = self.http(token if token is not None else self.token)
        config = ClientConfig(streaming=streaming, httpx_client=http)
        return ClientFactory(config).create(self.card)

    async def close(self) -> None:
        for client in self._http:
            await client.aclose()


def user_message(text: str, context_id: str, task_id: str = "", message_id: str = "") -> Message:
    return Message(
        message_id=message_id or str(uuid.uuid4()),
        role=Role.ROLE_USER,
        parts=[new_text_part(text)],
        context_id=context_id,
        task_id=task_id,
    )


def send_request(message: Message, **configuration) -> SendMessageRequest:
    return SendMessageRequest(
        message=message, configuration=SendMessageConfiguration(**configuration)
    )


def new_context() -> str:
    return f"sdk-client-{uuid.uuid4()}"


def text_of(message) -> str:
    return "".join(get_text_parts(message.parts))


def state_name(state: int) -> str:
    return TaskState.Name(state)


def task_summary(task) -> dict:
    return {
        "id": task.id,
        "contextId": task.context_id,
        "state": state_name(task.status.state),
        "statusText": text_of(task.status.message) if task.status.HasField("message") else None,
        "artifacts": [
            {
                "artifactId": artifact.artifact_id,
                "name": artifact.name,
                "text": "".join(get_text_parts(artifact.parts)),
            }
            for artifact in task.artifacts
        ],
        "historyLength": len(task.history),
    }


def event_summary(event) -> dict:
    """One StreamResponse, by the one field it holds."""
    if event.HasField("task"):
        return {"kind": "task", **task_summary(event.task)}
    if event.HasField("message"):
        message = event.message
        return {"kind": "message", "role": Role.Name(message.role), "text": text_of(message)}
    if event.HasField("status_update"):
        update = event.status_update
        status = update.status
        return {
            "kind": "status",
            "taskId": update.task_id,
            "state": state_name(status.state),
            "text": text_of(status.message) if status.HasField("message") else None,
        }
    if event.HasField("artifact_update"):
        update = event.artifact_update
        return {
            "kind": "artifact",
            "taskId": update.task_id,
            "artifactId": update.artifact.artifact_id,
            "name": update.artifact.name,
            "text": "".join(get_text_parts(update.artifact.parts)),
            "append": update.append,
            "lastChunk": update.last_chunk,
        }
    return {"kind": "empty"}


def error_summary(err: Exception) -> dict:
    """The SDK's exception, with the code it came from: JSON-RPC code, or HTTP status."""
    code = JSON_RPC_ERROR_CODE_MAP.get(type(err))
    if code is None and isinstance(err, A2AClientError):
        found = re.search(r"(?:JSON-RPC Error|HTTP Error) (-?\d+)", str(err))
        code = int(found.group(1)) if found else None
    return {"error": type(err).__name__, "code": code, "message": str(err)}


async def attempt(call):
    """The awaited result, or the error it raised, observed instead of raised."""
    try:
        return await call
    except (A2AError, httpx.HTTPError) as err:
        return error_summary(err)


async def collect(events) -> list[dict]:
    return [event_summary(event) async for event in events]


async def send_once(client, request) -> dict:
    """A non-streaming send: the SDK yields exactly one response."""
    return (await collect(client.send_message(request)))[0]


async def wait_terminal(client, task_id: str) -> dict:
    for _ in range(200):
        task = await client.get_task(GetTaskRequest(id=task_id))
        if task.status.state in TERMINAL:
            return task_summary(task)
        await asyncio.sleep(0.05)
    return task_summary(task)


# ---------------------------------------------------------------------------
# Scenarios. Each returns the observations to print.


async def card(agent: Agent) -> dict:
    card = await agent.resolve()
    # The other way in: create_client resolves the card itself.
    client = await create_client(
        agent.base, ClientConfig(streaming=False, httpx_client=agent.http(agent.token))
    )
    hello = await send_once(client, send_request(user_message("hello", new_context())))
    return {
        "name": card.name,
        "interfaces": [
            {"url": i.url, "protocolBinding": i.protocol_binding, "protocolVersion": i.protocol_version}
            for i in card.supported_interfaces
        ],
        "streaming": card.capabilities.streaming,
        "pushNotifications": card.capabilities.push_notifications,
        "skills": [skill.id for skill in card.skills],
        "securitySchemes": sorted(card.security_schemes.keys()),
        "createClientHello": hello,
    }


async def send(agent: Agent) -> dict:
    client = await agent.client(streaming=False)
    upper = await send_once(
        client, send_request(user_message("upper hello from the sdk", new_context()))
    )
    hello = await send_once(client, send_request(user_message("hello", new_context())))
    return {"upper": upper, "hello": hello}


async def return_immediately(agent: Agent) -> dict:
    client = await agent.client(streaming=False)
    request = send_request(user_message("slow 3", new_context()), return_immediately=True)
    first = await send_once(client, request)
    final = await wait_terminal(client, first["id"]) if first["kind"] == "task" else None
    return {"first": first, "final": final}


async def stream(agent: Agent) -> dict:
    client = await agent.client(streaming=True)
    request = send_request(user_message("upper streamed through the official sdk", new_context()))
    return {"events": await collect(client.send_message(request))}


async def history(agent: Agent) -> dict:
    client = await agent.client(streaming=False)
    # An input-required turn: the task's history holds at least both user messages.
    context = new_context()
    asked = await send_once(client, send_request(user_message("make it loud", context)))
    answer = user_message("make it loud", context, task_id=asked["id"])
    await send_once(client, send_request(answer))
    full = await client.get_task(GetTaskRequest(id=asked["id"]))
    one = await client.get_task(GetTaskRequest(id=asked["id"], history_length=1))
    return {
        "task": task_summary(full),
        "fullHistory": [Role.Name(m.role) for m in full.history],
        "historyLength1": [Role.Name(m.role) for m in one.history],
        "newestKept": one.history[-1].message_id == full.history[-1].message_id
        if one.history and full.history
        else None,
    }


async def list_tasks(agent: Agent) -> dict:
    client = await agent.client(streaming=False)
    context = new_context()
    made = []
    for word in ("one", "two", "three"):
        task = await send_once(client, send_request(user_message(f"upper {word}", context)))
        made.append(task["id"])
    asking = await send_once(client, send_request(user_message("something vague", context)))
    first = await client.list_tasks(ListTasksRequest(context_id=context, page_size=2))
    second = await client.list_tasks(
        ListTasksRequest(context_id=context, page_size=2, page_token=first.next_page_token)
    )
    waiting = await client.list_tasks(
        ListTasksRequest(context_id=context, status=TaskState.TASK_STATE_INPUT_REQUIRED)
    )
    elsewhere = await client.list_tasks(ListTasksRequest(context_id=new_context()))
    return {
        "made": made + [asking["id"]],
        "pages": [
            {
                "ids": [task.id for task in page.tasks],
                "nextPageToken": page.next_page_token,
                "pageSize": page.page_size,
                "totalSize": page.total_size,
            }
            for page in (first, second)
        ],
        "inputRequired": [task.id for task in waiting.tasks],
        "otherContext": [task.id for task in elsewhere.tasks],
    }


async def cancel(agent: Agent) -> dict:
    client = await agent.client(streaming=False)
    started = await send_once(
        client, send_request(user_message("slow 50", new_context()), return_immediately=True)
    )
    canceled = await attempt(client.cancel_task(CancelTaskRequest(id=started["id"])))
    after = await client.get_task(GetTaskRequest(id=started["id"]))
    again = await attempt(client.cancel_task(CancelTaskRequest(id=started["id"])))
    done = await send_once(client, send_request(user_message("upper finished", new_context())))
    finished = await attempt(client.cancel_task(CancelTaskRequest(id=done["id"])))
    return {
        "started": started,
        "canceled": task_summary(canceled) if not isinstance(canceled, dict) else canceled,
        "afterCancel": task_summary(after),
        "cancelAgain": again,
        "completed": done,
        "cancelCompleted": finished,
    }


async def subscribe(agent: Agent) -> dict:
    sender = await agent.client(streaming=False)
    started = await send_once(
        sender, send_request(user_message("slow 20", new_context()), return_immediately=True)
    )
    listener = await agent.client(streaming=True)
    events = await collect(listener.subscribe(SubscribeToTaskRequest(id=started["id"])))
    return {"started": started, "events": events}


async def unknown_task(agent: Agent) -> dict:
    client = await agent.client(streaming=True)
    missing = f"no-such-task-{uuid.uuid4()}"
    return {
        "getTask": await attempt(client.get_task(GetTaskRequest(id=missing))),
        "cancelTask": await attempt(client.cancel_task(CancelTaskRequest(id=missing))),
        "subscribe": await attempt(collect(client.subscribe(SubscribeToTaskRequest(id=missing)))),
        "continueTask": await attempt(
            send_once(client, send_request(user_message("more", new_context(), task_id=missing)))
        ),
    }


async def input_required(agent: Agent) -> dict:
    client = await agent.client(streaming=False)
    context = new_context()
    asked = await send_once(client, send_request(user_message("make it loud", context)))
    answer = user_message("make it loud", context, task_id=asked["id"])
    answered = await send_once(client, send_request(answer))
    return {"asked": asked, "answered": answered}


async def auth(agent: Agent) -> dict:
    if not agent.token:
        raise SystemExit("the auth scenario needs --token")
    card = await agent.resolve()
    message = lambda: send_request(user_message("upper let me in", new_context()))  # noqa: E731
    anonymous = await agent.client(streaming=False, token="")
    wrong = await agent.client(streaming=False, token=f"not-{agent.token}")
    right = await agent.client(streaming=False)
    # What the SDK does not show: the HTTP answer itself.
    raw = await agent.http(None).post(
        card.supported_interfaces[0].url,
        json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}},
        headers={"A2A-Version": "1.0"},
    )
    return {
        "securitySchemes": sorted(card.security_schemes.keys()),
        "securityRequirements": [sorted(r.schemes.keys()) for r in card.security_requirements],
        "withoutToken": await attempt(send_once(anonymous, message())),
        "wrongToken": await attempt(send_once(wrong, message())),
        "withToken": await attempt(send_once(right, message())),
        "rawStatus": raw.status_code,
        "rawWwwAuthenticate": raw.headers.get("www-authenticate"),
    }


async def retry(agent: Agent) -> dict:
    client = await agent.client(streaming=False)
    context = new_context()
    done_id = str(uuid.uuid4())
    first = await send_once(
        client, send_request(user_message("upper only once", context, message_id=done_id))
    )
    second = await send_once(
        client, send_request(user_message("upper only once", context, message_id=done_id))
    )
    # A retry while the first is still working, as after a timeout: it waits for the same task.
    working_id = str(uuid.uuid4())
    started = await send_once(
        client,
        send_request(
            user_message("slow 3", context, message_id=working_id), return_immediately=True
        ),
    )
    retried = await send_once(
        client, send_request(user_message("slow 3", context, message_id=working_id))
    )
    tasks = await client.list_tasks(ListTasksRequest(context_id=context))
    return {
        "first": first,
        "second": second,
        "started": started,
        "retriedWhileWorking": retried,
        "tasksInContext": [t.id for t in tasks.tasks],
    }


async def extended_card(agent: Agent) -> dict:
    if not agent.token:
        raise SystemExit("the extended-card scenario needs --token")
    public = await agent.resolve()
    client = await agent.client(streaming=False)
    extended = await client.get_extended_agent_card(GetExtendedAgentCardRequest())
    anonymous = await agent.client(streaming=False, token="")
    return {
        "publicExtendedAgentCard": public.capabilities.extended_agent_card,
        "publicDescription": public.description,
        "publicProvider": public.provider.organization,
        "extendedDescription": extended.description,
        "extendedProvider": extended.provider.organization,
        "withoutToken": await attempt(
            anonymous.get_extended_agent_card(GetExtendedAgentCardRequest())
        ),
    }


class Webhook:
    """A webhook on loopback, in plain asyncio: every POST it answers 200, keeping its headers and JSON."""

    def __init__(self) -> None:
        self.posts: list[dict] = []
        self.terminal = asyncio.Event()
        self.url = ""
        self._server = None

    async def start(self) -> "Webhook":
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/hook"
        return self

    async def _serve(self, reader, writer) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        name, value = line.split(":", 1)
                        headers[name.strip().lower()] = value.strip()
                body = json.loads(await reader.readexactly(int(headers.get("content-length", "0"))))
                self.posts.append({"headers": headers, "body": body})
                state = body.get("statusUpdate", {}).get("status", {}).get("state")
                if state in ("TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED"):
                    self.terminal.set()
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def close(self) -> None:
        self._server.close()


async def push_configs(agent: Agent) -> dict:
    hook = await Webhook().start()
    try:
        card = await agent.resolve()
        client = await agent.client(streaming=False)
        started = await send_once(
            client, send_request(user_message("slow 6", new_context()), return_immediately=True)
        )
        task_id = started["id"]
        created = await client.create_task_push_notification_config(
            TaskPushNotificationConfig(
                task_id=task_id,
                url=hook.url,
                token="sdk-token",
                authentication=AuthenticationInfo(scheme="Bearer", credentials="sdk-credentials"),
            )
        )
        got = await client.get_task_push_notification_config(
            GetTaskPushNotificationConfigRequest(task_id=task_id, id=created.id)
        )
        listed = await client.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=task_id)
        )
        await asyncio.wait_for(hook.terminal.wait(), 20)
        await client.delete_task_push_notification_config(
            DeleteTaskPushNotificationConfigRequest(task_id=task_id, id=created.id)
        )
        after = await client.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=task_id)
        )
        gone = await attempt(
            client.get_task_push_notification_config(
                GetTaskPushNotificationConfigRequest(task_id=task_id, id=created.id)
            )
        )
        return {
            "pushNotifications": card.capabilities.push_notifications,
            "createdId": created.id,
            "createdTaskId": created.task_id,
            "gotUrl": got.url,
            "hookUrl": hook.url,
            "listed": [c.id for c in listed.configs],
            "listedAfterDelete": [c.id for c in after.configs],
            "getAfterDelete": gone,
            "tokens": sorted({p["headers"].get("x-a2a-notification-token", "") for p in hook.posts}),
            "authorizations": sorted({p["headers"].get("authorization", "") for p in hook.posts}),
            "taskIds": sorted(
                {next(iter(p["body"].values())).get("taskId", "") for p in hook.posts if "task" not in p["body"]}
            ),
            "lastState": hook.posts[-1]["body"]["statusUpdate"]["status"]["state"],
        }
    finally:
        await hook.close()


SCENARIOS = {
    "card": card,
    "send": send,
    "return-immediately": return_immediately,
    "stream": stream,
    "history": history,
    "list": list_tasks,
    "cancel": cancel,
    "subscribe": subscribe,
    "unknown-task": unknown_task,
    "input-required": input_required,
    "auth": auth,
    "retry": retry,
    "extended-card": extended_card,
    "push-configs": push_configs,
}


async def run(args, scenarios: dict, limit: float) -> dict:
    agent = Agent(args.card_url, getattr(args, "token", None))
    try:
        observed = await asyncio.wait_for(scenarios[args.scenario](agent), limit)
    finally:
        await agent.close()
    return {"scenario": args.scenario, **observed}


def main(scenarios: dict = SCENARIOS, doc: str = __doc__, limit: float = RUN_LIMIT_SECONDS) -> None:
    """Runs the scenario the command line names among `scenarios` and prints its report."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("card_url")
    parser.add_argument("scenario", choices=sorted(scenarios))
    if scenarios is SCENARIOS:
        parser.add_argument("--token")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args, scenarios, limit)), separators=(",", ":")), flush=True)


if __name__ == "__main__":
    sys.exit(main())
