// Compiles every tool's inputSchema and outputSchema with Ajv's JSON
// Schema 2020-12 validator in strict mode (unknown keywords and formats
// are errors, but for MCP's `x-mcp-header`), as the strictest hosts
// do: `node validate_schemas.mjs TOOLS.json`, where TOOLS.json is a
// tools/list result. Prints
// {"checked": n, "refused": [{tool, which, error}]}.

import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const tools = JSON.parse(readFileSync(process.argv[2], "utf8")).tools;
const refused = [];
let checked = 0;
for (const tool of tools) {
  for (const which of ["inputSchema", "outputSchema"]) {
    const schema = tool[which];
    if (schema === undefined) continue;
    // A fresh validator per schema: `$id`s and anchors must not clash.
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    // The protocol's own annotation (2026-07-28): a host of that revision knows it.
    ajv.addKeyword("x-mcp-header");
    try {
      ajv.compile(schema);
      checked += 1;
    } catch (err) {
      refused.push({ tool: tool.name, which, error: String(err.message ?? err) });
    }
  }
}
console.log(JSON.stringify({ checked, refused }));
