"""The official A2A Python SDK's client against two agent replicas behind nginx.

    python3 replicas_client.py CARD_URL SCENARIO

CARD_URL is nginx's; every call goes through it, round robin over the two
replicas, which share one PostgreSQL store. Prints one JSON object, on its
last line, with what it observed (tests/replicas.rs asserts on it). The
scenarios that need the test to act midway (kill a replica, restart the
database) print one JSON line saying so and wait for a line on stdin.

Scenarios: across, streams, kill, outage.
"""

import asyncio
import json
import sys
import time
import uuid

import httpx

from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    SubscribeToTaskRequest,
)
from a2a.utils.errors import A2AError

import sdk_client
from sdk_client import (
    TERMINAL,
    Agent,
    attempt,
    collect,
    error_summary,
    event_summary,
    new_context,
    send_once,
    send_request,
    task_summary,
    user_message,
    wait_terminal,
)

RUN_LIMIT_SECONDS = 80


def tell(line: dict) -> None:
    """A line for the test, which acts on it and answers on stdin."""
    print(json.dumps(line, separators=(",", ":")), flush=True)


async def heard() -> str:
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


async def attempt_with_details(call):
    """As `attempt`, with the error's `data` (its ErrorInfo details) too."""
    try:
        return await call
    except (A2AError, httpx.HTTPError) as err:
        return {**error_summary(err), "data": getattr(err, "data", None)}


async def across(agent: Agent) -> dict:
    """Tasks made through one replica, read, listed and canceled through the other."""
    client = await agent.client(streaming=False)
    context = new_context()
    slow = lambda: send_request(user_message("slow 50", context), return_immediately=True)  # noqa: E731
    # Consecutive calls alternate between the replicas: the two tasks run on
    # different ones, and of the two cancels (a read between them) one is
    # served by the replica not running its task.
    first = await send_once(client, slow())
    second = await send_once(client, slow())
    reads = [task_summary(await client.get_task(GetTaskRequest(id=first["id"]))) for _ in range(2)]
    listed = await client.list_tasks(ListTasksRequest(context_id=context))
    canceled = [task_summary(await client.cancel_task(CancelTaskRequest(id=first["id"])))]
    await client.get_task(GetTaskRequest(id=first["id"]))
    canceled.append(task_summary(await client.cancel_task(CancelTaskRequest(id=second["id"]))))
    # Long enough for a step of `slow`: a turn still running would have added one.
    await asyncio.sleep(0.5)
    after = [
        task_summary(await client.get_task(GetTaskRequest(id=task["id"])))
        for task in (first, second)
        for _ in range(2)
    ]
    done = await send_once(client, send_request(user_message("upper across replicas", context)))
    done_reads = [
        task_summary(await client.get_task(GetTaskRequest(id=done["id"]))) for _ in range(2)
    ]
    return {
        "started": [first, second],
        "reads": reads,
        "listed": sorted(task.id for task in listed.tasks),
        "canceled": canceled,
        "after": after,
        "completed": done,
        "completedReads": done_reads,
    }


async def streams(agent: Agent) -> dict:
    """Streams and subscriptions receive every event whichever replica serves them."""
    streamer = await agent.client(streaming=True)
    sender = await agent.client(streaming=False)
    streamed = []
    for _ in range(2):
        request = send_request(user_message("slow 4", new_context()))
        streamed.append(await collect(streamer.send_message(request)))
    subscribed = []
    for _ in range(2):
        started = await send_once(
            sender, send_request(user_message("slow 6", new_context()), return_immediately=True)
        )
        events = await collect(streamer.subscribe(SubscribeToTaskRequest(id=started["id"])))
        subscribed.append({"started": started, "events": events})
    return {"streamed": streamed, "subscribed": subscribed}


async def kill(agent: Agent) -> dict:
    """The replica running a streamed task is killed; the client resubscribes."""
    sender = await agent.client(streaming=False)
    streamer = await agent.client(streaming=True)
    before = await send_once(sender, send_request(user_message("upper made before", new_context())))
    seen = []
    stream = streamer.send_message(send_request(user_message("slow 100", new_context())))
    cut = None
    try:
        async for event in stream:
            seen.append(event_summary(event))
            if len(seen) == 3:
                tell({"kill": seen[0]["id"]})
                await heard()
    except (A2AError, httpx.HTTPError) as err:
        cut = type(err).__name__
    task_id = seen[0]["id"]
    resubscribed = await attempt(collect(streamer.subscribe(SubscribeToTaskRequest(id=task_id))))
    final = await wait_terminal(sender, task_id)
    return {
        "before": task_summary(await sender.get_task(GetTaskRequest(id=before["id"]))),
        "seen": seen,
        "cut": cut,
        "resubscribed": resubscribed,
        "final": final,
    }


async def outage(agent: Agent) -> dict:
    """Messages sent by four senders at once while the database stops and starts again."""
    client = await agent.client(streaming=False)
    context = new_context()
    acknowledged, errors = [], []
    began = time.monotonic()
    tell({"restart": True})
    restarted = asyncio.ensure_future(heard())
    deadline = time.monotonic() + 40

    async def sender() -> None:
        while time.monotonic() < deadline and not (restarted.done() and len(acknowledged) >= 40):
            message_id = str(uuid.uuid4())
            text = f"upper message {message_id[:8]}"
            # Until acknowledged, the same message again: it runs at most once.
            while time.monotonic() < deadline:
                request = send_request(user_message(text, context, message_id=message_id))
                answer = await attempt_with_details(send_once(client, request))
                if "error" not in answer:
                    acknowledged.append(answer)
                    break
                errors.append(answer)
                await asyncio.sleep(0.2)

    await asyncio.gather(*(sender() for _ in range(4)))
    await restarted
    took = time.monotonic() - began
    reads = [task_summary(await client.get_task(GetTaskRequest(id=a["id"]))) for a in acknowledged]
    listed = await client.list_tasks(ListTasksRequest(context_id=context, page_size=100))
    streamer = await agent.client(streaming=True)
    after = await collect(streamer.send_message(send_request(user_message("slow 2", context))))
    return {
        "acknowledged": acknowledged,
        "reads": reads,
        "listedIds": sorted(task.id for task in listed.tasks),
        "errors": errors[:5],
        "errorCount": len(errors),
        "seconds": round(took, 1),
        "after": after,
    }


SCENARIOS = {"across": across, "streams": streams, "kill": kill, "outage": outage}


if __name__ == "__main__":
    sys.exit(sdk_client.main(SCENARIOS, __doc__, RUN_LIMIT_SECONDS))
