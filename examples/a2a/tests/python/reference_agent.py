"""The example text agent, written with the official A2A Python SDK's own server.

The same agent as `text-agent`, skill for skill and line for line: the
"someone else's agent" that our Rust client is tested against, and the server
that `sdk_client.py` is checked against. Built only from the SDK's classes: an
`AgentExecutor`, the `DefaultRequestHandler` with an `InMemoryTaskStore`, and
its JSON-RPC and agent-card routes on a Starlette app served by uvicorn; and
the two things the SDK leaves to an agent's author: the bearer-token check
(an ASGI wrapper) and not running a retried messageId twice.

    python3 reference_agent.py [--listen HOST:PORT] [--token TOKEN]

Prints `listening on http://ADDR` and `agent card: http://ADDR/...`, then
serves until SIGTERM or Ctrl-C.
"""

import argparse
import asyncio
import socket
import sys

import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse

from a2a.helpers.proto_helpers import (
    get_text_parts,
    new_task,
    new_text_message,
    new_text_part,
)
from a2a.server.agent_execution import (
    AgentExecutor,
    RequestContext,
    SimpleRequestContextBuilder,
)
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    GetTaskRequest,
    HTTPAuthSecurityScheme,
    Role,
    SecurityRequirement,
    SecurityScheme,
    StringList,
    SubscribeToTaskRequest,
    TaskState,
)
from a2a.utils.errors import UnsupportedOperationError

RPC_PATH = "/a2a"
CHUNK = 8
# A longer text makes longer chunks, at most this many (as text-agent does).
MAX_CHUNKS = 256
SLOW_STEP_SECONDS = 0.1
QUESTION = "what should I upper-case?"
# Where a blocking SendMessage answers: terminal, or waiting for the user.
SETTLED = {
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
    TaskState.TASK_STATE_INPUT_REQUIRED,
    TaskState.TASK_STATE_AUTH_REQUIRED,
}


class TextAgent(AgentExecutor):
    """The skills: `hello`, `upper <words>`, `slow <n>`, else ask what to upper-case."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = first_text(context.message)
        task = context.current_task
        if task is None and text == "hello":
            await event_queue.enqueue_event(
                new_text_message("hello, I am the text agent", role=Role.ROLE_AGENT)
            )
            return
        if task is None:
            await event_queue.enqueue_event(
                new_task(
                    context.task_id,
                    context.context_id,
                    TaskState.TASK_STATE_SUBMITTED,
                    history=[context.message],
                )
            )
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if task is not None and task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            await upper(updater, text)
        elif text.startswith("upper "):
            await upper(updater, text.removeprefix("upper "))
        elif steps := slow_steps(text):
            await slow(updater, steps)
        else:
            await updater.requires_input(say(updater, QUESTION))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        # The SDK has already cancelled the running `execute`; only the state is left to say.
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def first_text(message) -> str:
    """The message's first text part, which decides the skill."""
    texts = get_text_parts(message.parts) if message is not None else []
    return texts[0] if texts else ""


def say(updater: TaskUpdater, text: str):
    """A status message from the agent."""
    return updater.new_agent_message([new_text_part(text)])


async def upper(updater: TaskUpdater, words: str) -> None:
    await updater.start_work(say(updater, "upper-casing"))
    result = words.upper()
    size = max(CHUNK, -(-len(result) // MAX_CHUNKS))
    chunks = [result[i : i + size] for i in range(0, len(result), size)] or [""]
    for index, chunk in enumerate(chunks):
        await updater.add_artifact(
            [new_text_part(chunk)],
            artifact_id="upper",
            name="result",
            append=index > 0,
            last_chunk=index == len(chunks) - 1,
        )
    await updater.complete()


def slow_steps(text: str) -> int | None:
    """`n` of `slow <n>`, or None when the text is not that skill."""
    head, _, count = text.partition(" ")
    if head != "slow" or not count.isdigit():
        return None
    return int(count)


async def slow(updater: TaskUpdater, steps: int) -> None:
    for step in range(1, steps + 1):
        await updater.start_work(say(updater, f"step {step} of {steps}"))
        await asyncio.sleep(SLOW_STEP_SECONDS)
    await updater.complete()


class FirstTaskOfMessage(SimpleRequestContextBuilder):
    """Remembers which task a message started, so that a retry can find it.

    The SDK starts a new task for every message without a taskId, retried or
    not; the agent-spec says a retried messageId never starts the work twice.
    Recorded when the context is built, before the work runs, so that a retry
    arriving while the first is still working finds it too.
    """

    def __init__(self) -> None:
        super().__init__(should_populate_referred_tasks=False, task_store=None)
        self.started: dict[str, str] = {}

    async def build(self, context, params=None, task_id=None, context_id=None, task=None):
        # Asked before building: the built context writes its new task id into the message.
        starts_a_task = params is not None and not params.message.task_id
        built = await super().build(context, params, task_id, context_id, task)
        if starts_a_task:
            self.started.setdefault(params.message.message_id, built.task_id)
        return built


class DeduplicatingHandler(DefaultRequestHandler):
    """The SDK's handler, answering a retried `SendMessage` with the task it started.

    A blocking retry waits, as the first send does, for that task to end or
    ask for input.
    """

    def __init__(self, builder: FirstTaskOfMessage, **kwargs) -> None:
        super().__init__(request_context_builder=builder, **kwargs)
        self._builder = builder

    async def on_message_send(self, params, context):
        started = self._builder.started.get(params.message.message_id)
        if started is None:
            return await super().on_message_send(params, context)
        if not params.configuration.return_immediately:
            await self._settled(started, context)
        request = GetTaskRequest(id=started)
        if params.configuration.HasField("history_length"):
            request.history_length = params.configuration.history_length
        return await self.on_get_task(request, context)

    async def _settled(self, task_id: str, context) -> None:
        """Returns once the task is in a terminal or interrupted state."""
        task = await self.on_get_task(GetTaskRequest(id=task_id), context)
        if task.status.state in SETTLED:
            return
        try:
            async for event in self.on_subscribe_to_task(
                SubscribeToTaskRequest(id=task_id), context
            ):
                status = getattr(event, "status", None)
                if status is not None and status.state in SETTLED:
                    return
        except UnsupportedOperationError:
            # It ended between the look and the subscription.
            return


def agent_card(base: str, token: str | None) -> AgentCard:
    card = AgentCard(
        name="text agent",
        description="Upper-cases text, slowly if asked; asks when it is unsure.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(
                url=f"{base}{RPC_PATH}", protocol_binding="JSONRPC", protocol_version="1.0"
            )
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(id="hello", name="hello", description="Says who it is.", tags=["greeting"]),
            AgentSkill(
                id="upper",
                name="upper",
                description="Upper-cases the words after `upper`, streamed in chunks.",
                tags=["text"],
            ),
            AgentSkill(
                id="slow",
                name="slow",
                description="Reports `n` steps, one every 100 ms; can be cancelled.",
                tags=["progress"],
            ),
        ],
    )
    if token is not None:
        card.security_schemes["bearer"].CopyFrom(
            SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="bearer"))
        )
        card.security_requirements.append(
            SecurityRequirement(schemes={"bearer": StringList()})
        )
    return card


def bearer_guard(app, token: str):
    """Refuses JSON-RPC requests without the token, before the SDK sees them; the card stays public."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope, receive, send):
        if scope["type"] == "http" and scope["path"].rstrip("/") == RPC_PATH:
            headers = dict(scope["headers"])
            if headers.get(b"authorization") != expected:
                refusal = JSONResponse(
                    {"error": "unauthorized"},
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
                await refusal(scope, receive, send)
                return
        await app(scope, receive, send)

    return guarded


def bind(listen: str) -> socket.socket:
    host, _, port = listen.rpartition(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, int(port)))
    # Listening before the address is printed: a client that reads it at once
    # waits in the backlog instead of being refused while uvicorn starts.
    sock.listen(128)
    return sock


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", default="127.0.0.1:3001")
    parser.add_argument("--token")
    args = parser.parse_args()

    sock = bind(args.listen)
    host, port = sock.getsockname()[:2]
    base = f"http://{host}:{port}"
    card = agent_card(base, args.token)
    handler = DeduplicatingHandler(
        FirstTaskOfMessage(),
        agent_executor=TextAgent(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
    )
    routes = create_agent_card_routes(card)
    # The interface URL is served with and without a trailing slash, as text-agent does.
    for path in (RPC_PATH, f"{RPC_PATH}/"):
        routes += create_jsonrpc_routes(handler, path)
    app = Starlette(routes=routes)
    served = app if args.token is None else bearer_guard(app, args.token)

    print(f"listening on {base}", flush=True)
    print(f"agent card: {base}/.well-known/agent-card.json", flush=True)
    config = uvicorn.Config(served, log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
