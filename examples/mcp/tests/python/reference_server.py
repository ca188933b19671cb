"""A server written with the official MCP Python SDK (`MCPServer`), for
our typed client to talk to: `reference_server.py` serves stdio,
`reference_server.py --http` serves Streamable HTTP on a loopback port of
its own and prints `listening on http://127.0.0.1:PORT/mcp` first.

Its `poem` tool samples the client's model: with a request to the client
in the classic generation, with an input_required result in 2026-07-28.
"""

import socket
import sys

import anyio
import mcp_types as types
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.transport_security import TransportSecuritySettings

mcp = MCPServer("python-reference")


@mcp.tool(description="Adds two numbers.")
def add(a: float, b: float) -> float:
    return a + b


def sampling_request(topic: str) -> types.CreateMessageRequest:
    return types.CreateMessageRequest(
        params=types.CreateMessageRequestParams(
            messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text=f"A poem about {topic}"))],
            max_tokens=100,
        )
    )


@mcp.tool(description="Writes a poem with the client's model.")
async def poem(topic: str, ctx: Context) -> str | types.InputRequiredResult:
    if ctx.protocol_version == "2026-07-28":
        answers = ctx.input_responses or {}
        if "sample" not in answers:
            return types.InputRequiredResult(input_requests={"sample": sampling_request(topic)})
        answer = answers["sample"]
        return f"poem: {answer.content.text}"
    result = await ctx.session.create_message(  # pyright: ignore[reportDeprecated]
        messages=sampling_request(topic).params.messages, max_tokens=100
    )
    return f"poem: {result.content.text}"


async def serve_http() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    app = mcp.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=False,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    server = uvicorn.Server(uvicorn.Config(app, log_level="error"))
    print(f"listening on http://127.0.0.1:{port}/mcp", flush=True)
    await server.serve(sockets=[sock])


if __name__ == "__main__":
    if "--http" in sys.argv:
        anyio.run(serve_http)
    else:
        anyio.run(mcp.run_stdio_async)
