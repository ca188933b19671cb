"""Checks every tool's inputSchema and outputSchema against the JSON Schema
2020-12 meta-schema with `jsonschema` (the validator the Python SDK uses),
and that the input schema is what MCP asks for: `type: object` at the root,
every `$ref` local and resolvable. `validate_schemas.py TOOLS.json` prints
{"checked": n, "refused": [{tool, which, error}]}."""

import json
import sys

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012


def refs(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs(item)


def main() -> None:
    tools = json.load(open(sys.argv[1]))["tools"]
    refused = []
    checked = 0
    for tool in tools:
        for which in ("inputSchema", "outputSchema"):
            schema = tool.get(which)
            if schema is None:
                continue
            try:
                Draft202012Validator.check_schema(schema)
                if which == "inputSchema" and schema.get("type") != "object":
                    raise SchemaError("the root is not type: object")
                resource = Resource(contents=schema, specification=DRAFT202012)
                resolver = Registry().with_resource("urn:tool", resource).resolver(base_uri="urn:tool")
                for ref in refs(schema):
                    if not ref.startswith("#"):
                        raise SchemaError(f"a $ref leaves the schema: {ref}")
                    resolver.lookup(ref)
                checked += 1
            except Exception as err:  # noqa: BLE001 - any failure is a refusal
                refused.append({"tool": tool["name"], "which": which, "error": str(err)})
    print(json.dumps({"checked": checked, "refused": refused}))


if __name__ == "__main__":
    main()
