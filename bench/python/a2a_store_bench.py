"""The Python SDK's task stores doing the work of bench/a2a-stores, for its comparison.

    python3 a2a_store_bench.py STORE WORKERS SECONDS

STORE is `memory` (the SDK's InMemoryTaskStore) or a SQLAlchemy async URL
(its DatabaseTaskStore: sqlite+aiosqlite:///PATH, postgresql+asyncpg://...).
Per task, as the SDK's TaskManager does for an agent's turn: the task saved
with its first message, then a working status, eight 64-byte artifact
chunks (the first new, the rest appended) and the completed status, each
applied to the task and the task saved again; then one read. WORKERS tasks
at once, one second of warm-up, SECONDS measured. Prints one JSON line:
tasks/s, writes/s, writes per CPU-second of this process.
"""

import asyncio
import json
import sys
import time
import uuid

from a2a.helpers.proto_helpers import new_text_part
from a2a.server.context import ServerCallContext
from a2a.server.tasks.database_task_store import DatabaseTaskStore
from a2a.server.tasks.inmemory_task_store import InMemoryTaskStore
from a2a.server.tasks.task_manager import append_artifact_to_task
from a2a.types.a2a_pb2 import (
    Artifact,
    Message,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
)
from sqlalchemy.ext.asyncio import create_async_engine

WRITES_PER_TASK = 11
CHUNKS = 8
CHUNK_BYTES = 64


async def one_task(store, context: ServerCallContext) -> None:
    first = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER)
    first.parts.append(new_text_part("upper a few words"))
    task = Task(
        id=str(uuid.uuid4()),
        context_id=str(uuid.uuid4()),
        status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
        history=[first],
    )
    task.status.timestamp.GetCurrentTime()
    await store.save(task, context)
    task.status.CopyFrom(TaskStatus(state=TaskState.TASK_STATE_WORKING))
    task.status.timestamp.GetCurrentTime()
    await store.save(task, context)
    for index in range(CHUNKS):
        artifact = Artifact(artifact_id="result", name="result")
        artifact.parts.append(new_text_part("x" * CHUNK_BYTES))
        event = TaskArtifactUpdateEvent(
            task_id=task.id,
            context_id=task.context_id,
            artifact=artifact,
            append=index > 0,
            last_chunk=index + 1 == CHUNKS,
        )
        append_artifact_to_task(task, event)
        await store.save(task, context)
    task.status.CopyFrom(TaskStatus(state=TaskState.TASK_STATE_COMPLETED))
    task.status.timestamp.GetCurrentTime()
    await store.save(task, context)
    read = await store.get(task.id, context)
    assert read is not None and read.status.state == TaskState.TASK_STATE_COMPLETED


async def measure(store, workers: int, seconds: float) -> dict:
    context = ServerCallContext()
    state = {"measuring": False, "stop": False, "done": 0}

    async def worker() -> None:
        while not state["stop"]:
            await one_task(store, context)
            if state["measuring"]:
                state["done"] += 1
            # The in-memory store never waits: let the clock's task run.
            await asyncio.sleep(0)

    running = [asyncio.ensure_future(worker()) for _ in range(workers)]
    await asyncio.sleep(1)
    began, cpu = time.monotonic(), time.process_time()
    state["measuring"] = True
    await asyncio.sleep(seconds)
    state["measuring"] = False
    wall, cpu = time.monotonic() - began, time.process_time() - cpu
    state["stop"] = True
    await asyncio.gather(*running)
    writes = state["done"] * WRITES_PER_TASK
    return {
        "tasksPerSec": state["done"] / wall,
        "writesPerSec": writes / wall,
        "writesPerCpuSec": writes / cpu,
    }


async def main(url: str, workers: int, seconds: float) -> dict:
    if url == "memory":
        return await measure(InMemoryTaskStore(), workers, seconds)
    engine = create_async_engine(url, pool_size=workers)
    store = DatabaseTaskStore(engine)
    await store.initialize()
    try:
        return await measure(store, workers, seconds)
    finally:
        await engine.dispose()


if __name__ == "__main__":
    url, workers, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    print(json.dumps(asyncio.run(main(url, workers, seconds))), flush=True)
