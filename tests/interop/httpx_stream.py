"""httpx, as a user calls with it: a streaming method with httpx's default
headers (`Accept: */*`), then as a client that takes JSON and not events
(`Accept: application/json`).

Usage: python3 httpx_stream.py http://HOST:PORT/
Prints one JSON report on stdout; tests/interop/main.rs makes the assertions.
"""

import json
import sys

import httpx


def call(method, params, id):
    return {"jsonrpc": "2.0", "method": method, "params": params, "id": id}


def events(text):
    """The data of each Server-Sent Event, its data lines joined."""
    found = []
    for event in text.split("\n\n"):
        lines = [line[len("data:"):].lstrip(" ") for line in event.splitlines() if line.startswith("data:")]
        if lines:
            found.append(json.loads("\n".join(lines)))
    return found


def main(url):
    with httpx.Client(timeout=10) as client:
        report = {"default_accept": client.build_request("POST", url).headers["accept"]}

        streamed = client.post(url, json=call("count", [0, 3], 1))
        report["default"] = {
            "status": streamed.status_code,
            "content_type": streamed.headers["content-type"],
            "results": [event.get("result") for event in events(streamed.text)],
        }

        json_only = {"accept": "application/json"}
        refused = client.post(url, json=call("count", [0, 3], 2), headers=json_only)
        report["json_only_refused"] = {
            "content_type": refused.headers["content-type"],
            "reply": refused.json(),
        }
        last = client.post(url, json=call("job", [4, False], 3), headers=json_only)
        report["json_only_last_item"] = {
            "content_type": last.headers["content-type"],
            "reply": last.json(),
        }
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1])
