"""The official MCP Python SDK as the client of `mcp-server`.

`sdk_client.py SCENARIO TARGET [ROOT]` runs one scenario against the server
(TARGET is the `mcp-server` binary for the stdio scenarios, the endpoint URL
for the HTTP ones) and prints one JSON object: what the SDK saw. The Rust
test asserts on it.
"""

import json
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

SAMPLED_ANSWER = "Paris, said the test's model"


class Recorder:
    """Sits between a transport and the session, keeping every message the
    server sent, to check what came after a cancel."""

    def __init__(self, read_stream):
        self.inner = read_stream
        self.messages: list[dict[str, Any]] = []
        self.send, self.receive = anyio.create_memory_object_stream(100)

    async def run(self):
        async with self.send:
            async for item in self.inner:
                if not isinstance(item, Exception):
                    self.messages.append(item.message.model_dump(by_alias=True, exclude_none=True))
                await self.send.send(item)

    def responses_to(self, request_id) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("id") == request_id and "method" not in m]


async def sampling(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    asked = params.messages[0].content
    text = getattr(asked, "text", "")
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=f"{SAMPLED_ANSWER} (asked: {text})"),
        model="test-model",
        stop_reason="endTurn",
    )


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def tools_report(session: ClientSession, recorder: Recorder | None) -> dict[str, Any]:
    """Lists and calls the tutorial tools: progress, a cancelled call, an
    error result and a bad argument."""
    report: dict[str, Any] = {}
    tools = await session.list_tools()
    report["tools"] = {tool.name: tool.model_dump(by_alias=True, exclude_none=True) for tool in tools.tools}
    added = await session.call_tool("add", {"a": 2, "b": 3.5})
    report["add"] = {"text": text_of(added), "structured": added.structured_content, "is_error": added.is_error}

    progress: list[list[Any]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append([value, total, message])

    slow = await session.call_tool("slow", {"seconds": 0.3, "steps": 3}, progress_callback=on_progress)
    report["slow"] = {"text": text_of(slow), "progress": progress}

    failed = await session.call_tool("fail", {})
    report["fail"] = {"is_error": failed.is_error, "text": text_of(failed)}

    try:
        await session.call_tool("add", {"a": 1, "b": "two"})
        report["bad_argument"] = {"raised": False}
    except MCPError as err:
        report["bad_argument"] = {"raised": True, "code": err.error.code, "data": err.error.data}

    try:
        await session.call_tool("nope", {})
        report["unknown_tool"] = {"raised": False}
    except MCPError as err:
        report["unknown_tool"] = {"raised": True, "code": err.error.code, "message": err.error.message}

    # A call given up on after 0.3 s: the SDK cancels it; the server must
    # never answer it, and must go on serving.
    cancelled: dict[str, Any] = {}
    before = len(recorder.messages) if recorder else 0
    try:
        await session.call_tool("slow", {"seconds": 1.2, "steps": 2}, read_timeout_seconds=0.3)
        cancelled["raised"] = False
    except MCPError as err:
        cancelled["raised"] = True
        cancelled["error"] = err.error.message
    await anyio.sleep(1.5)
    if recorder:
        after = recorder.messages[before:]
        cancelled["late"] = [m for m in after if "method" not in m]
    again = await session.call_tool("add", {"a": 1, "b": 1})
    cancelled["served_after"] = text_of(again)
    report["cancelled"] = cancelled
    return report


async def resources_report(session: ClientSession) -> dict[str, Any]:
    report: dict[str, Any] = {}
    resources = await session.list_resources()
    report["resources"] = sorted(resource.uri for resource in resources.resources)
    notes = next(r.uri for r in resources.resources if r.uri.endswith("notes.txt"))
    read = await session.read_resource(notes)
    report["read"] = [content.model_dump(by_alias=True, exclude_none=True) for content in read.contents]
    prompts = await session.list_prompts()
    report["prompts"] = {p.name: p.model_dump(by_alias=True, exclude_none=True) for p in prompts.prompts}
    prompt = await session.get_prompt("review_file", {"path": "notes.txt"})
    report["prompt"] = prompt.model_dump(by_alias=True, exclude_none=True)
    return report


async def stdio_session(binary: str, root: str) -> dict[str, Any]:
    params = StdioServerParameters(command=binary, args=["--fixtures", "--root", root])
    async with stdio_client(params) as (read, write):
        recorder = Recorder(read)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(recorder.run)
            async with ClientSession(recorder.receive, write) as session:
                initialized = await session.initialize()
                report = {
                    "protocol_version": initialized.protocol_version,
                    "server": initialized.server_info.name,
                    "capabilities": initialized.capabilities.model_dump(by_alias=True, exclude_none=True),
                }
                report.update(await tools_report(session, recorder))
                report.update(await resources_report(session))
            tasks.cancel_scope.cancel()
    return report


async def stdio_auto(binary: str, root: str) -> dict[str, Any]:
    """The high-level client in its default mode: `server/discover` first."""
    params = StdioServerParameters(command=binary, args=["--fixtures", "--root", root])
    async with Client(params) as client:
        session = client.session
        added = await client.call_tool("add", {"a": 20, "b": 22})
        tools = await client.list_tools()
        return {
            "discovered": session.discover_result is not None,
            "initialized": session.initialize_result is not None,
            "supported_versions": session.discover_result.supported_versions if session.discover_result else None,
            "add": text_of(added),
            "tools": [tool.name for tool in tools.tools],
        }


async def http_session(url: str) -> dict[str, Any]:
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write, sampling_callback=sampling) as session:
            initialized = await session.initialize()
            report = {"protocol_version": initialized.protocol_version}
            report.update(await tools_report(session, None))
            sampled = await session.call_tool("test_sampling", {"prompt": "What is the capital of France?"})
            report["sampling"] = text_of(sampled)
            return report


async def http_auto(url: str) -> dict[str, Any]:
    async with Client(url, sampling_callback=sampling) as client:
        session = client.session
        added = await client.call_tool("add", {"a": 20, "b": 22})
        sampled = await client.call_tool("test_sampling", {"prompt": "What is the capital of France?"})
        return {
            "discovered": session.discover_result is not None,
            "add": text_of(added),
            "sampling": text_of(sampled),
        }


SCENARIOS = {
    "stdio-session": stdio_session,
    "stdio-auto": stdio_auto,
    "http-session": http_session,
    "http-auto": http_auto,
}


def main() -> None:
    scenario, *args = sys.argv[1:]
    report = anyio.run(SCENARIOS[scenario], *args)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
