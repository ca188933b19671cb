"""A JSON-RPC server in the style of the 1.0 era, written with Python's
standard library only: the foreign peer of tests/client_compat.

It binds 127.0.0.1 on a free port, prints the port on one line, then serves
until it is killed. Replies carry `result` and `error` both, one of them
null. On `/` they have no `jsonrpc` member (1.0); on `/v2` they carry
`"jsonrpc": "2.0"` but keep the null member, as many 2.0 servers do.

Methods: `add` (two numbers), `fail` (always an error), `last_request`
(the previous request object exactly as it arrived) and `notified` (the
methods of the notifications received so far, which get no reply).
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

received = []
notifications = []


def outcome(request):
    method = request.get("method")
    params = request.get("params")
    if method == "add":
        return params[0] + params[1], None
    if method == "fail":
        return None, {"code": -5, "message": "Block not found"}
    if method == "last_request":
        return received[-2] if len(received) > 1 else None, None
    if method == "notified":
        return notifications, None
    return None, {"code": -32601, "message": "Method not found"}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length))
        received.append(request)
        if request.get("id") is None:
            notifications.append(request.get("method"))
            self.send_response(204)
            self.end_headers()
            return
        result, error = outcome(request)
        reply = {"result": result, "error": error, "id": request["id"]}
        if self.path == "/v2":
            reply = {"jsonrpc": "2.0", **reply}
        body = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    sys.exit(0)
