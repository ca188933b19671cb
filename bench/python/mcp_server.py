"""The MCP benchmark's server on the official Python SDK (mcp 2.3,
MCPServer): the same `add` tool as mcp_server_ours. Bare argv serves stdio;
`--http` serves Streamable HTTP (sessions, the SDK's defaults) on a
loopback port of its own and prints `listening on http://ADDR/mcp` first.
The listening socket has TCP_NODELAY (accepted sockets inherit it on
Linux): with Nagle on, every call waits for the client's delayed ACK."""

import socket
import sys

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

mcp = MCPServer("bench-python")


@mcp.tool(description="Adds two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


async def serve_http() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    app = mcp.streamable_http_app(
        streamable_http_path="/mcp",
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    await uvicorn.Server(uvicorn.Config(app, log_level="error")).serve(sockets=[sock])


if __name__ == "__main__":
    if "--http" in sys.argv:
        anyio.run(serve_http)
    else:
        anyio.run(mcp.run_stdio_async)
