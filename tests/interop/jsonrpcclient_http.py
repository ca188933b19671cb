"""jsonrpcclient builds the requests and reads the replies, requests carries
them over HTTP: single calls with both params shapes, notifications, errors
and batches against the calculator.

Usage: python3 jsonrpcclient_http.py http://HOST:PORT/
Prints one JSON report on stdout; tests/interop/main.rs makes the assertions.
"""

import json
import sys
import time

import requests
from jsonrpcclient import Error, Ok, notification, parse, request

I64_MAX = 2**63 - 1


def outcome(response):
    """A parsed response as plain JSON."""
    if isinstance(response, Ok):
        return {"ok": response.result, "id": response.id}
    if isinstance(response, Error):
        return {
            "error": {"code": response.code, "message": response.message, "data": response.data},
            "id": response.id,
        }
    raise TypeError(f"not a response: {response!r}")


def main(url):
    session = requests.Session()

    def post(message):
        reply = session.post(url, json=message, timeout=5)
        reply.raise_for_status()
        return reply

    def call(method, params=None):
        sent = request(method, params=params)
        got = outcome(parse(post(sent).json()))
        got["sent_id"] = sent["id"]
        return got

    def notify(method, params):
        reply = post(notification(method, params=params))
        return {"status": reply.status_code, "body": reply.text}

    report = {
        "subtract_positional": call("subtract", (42, 23)),
        "subtract_named": call("subtract", {"minuend": 42, "subtrahend": 23}),
        "sum": call("sum", (1, 2, 4)),
        "get_data": call("get_data"),
        "notification": notify("update", (1, 2, 3)),
        "unknown_method": call("multiply", (6, 7)),
        "wrong_type": call("subtract", {"minuend": 42, "subtrahend": "23"}),
        # Python's integers are unbounded: the largest i64 is sent exactly.
        "overflow": call("add", (I64_MAX, 1)),
    }

    batch = [
        request("sum", params=(10, 20)),
        request("get_data"),
        notification("update", params=(4,)),
        request("subtract", params={"minuend": 1}),
    ]
    reply = post(batch)
    report["batch"] = {
        "status": reply.status_code,
        "sent_ids": [entry.get("id") for entry in batch],
        "replies": [outcome(response) for response in parse(reply.json())],
    }
    reply = post([notification("update", params=(5,)), notification("notify_sum", params=(6,))])
    report["notification_batch"] = {"status": reply.status_code, "body": reply.text}

    # 1 + 2 + 3, then 4, 5 and 6; notifications may still be running.
    for _ in range(100):
        report["total"] = call("total")
        if report["total"].get("ok") == 21:
            break
        time.sleep(0.02)
    return report


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
