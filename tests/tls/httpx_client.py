"""Calls a JSON-RPC server over HTTPS with httpx, trusting only the CA given.

Usage: httpx_client.py URL CA_PEM [http2|http1]

Prints one JSON line: the HTTP version httpx spoke, the status and the
JSON-RPC reply of a `subtract` call; or, when the certificate is refused,
the error's class name.
"""

import json
import ssl
import sys

import httpx


def main() -> None:
    url, ca, version = sys.argv[1], sys.argv[2], sys.argv[3]
    call = {"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}
    try:
        trust = ssl.create_default_context(cafile=ca)
        with httpx.Client(verify=trust, http2=version == "http2", http1=True, timeout=10) as client:
            response = client.post(url, json=call)
    except httpx.ConnectError as err:
        print(json.dumps({"error": type(err).__name__, "detail": str(err)}))
        return
    print(json.dumps({
        "http_version": response.http_version,
        "status": response.status_code,
        "reply": response.json(),
    }))


if __name__ == "__main__":
    main()
