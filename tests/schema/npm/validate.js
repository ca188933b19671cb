// Validates each OpenRPC document named on the command line with
// @open-rpc/schema-utils-js against the OpenRPC meta-schema, then checks
// that every `$ref` points at a schema of the document. Prints one line per
// document; exits 1 if any fails.
//
// The package's own `dereferenceDocument` never returns on a recursive
// schema (a tree type), so the references are followed here instead.
"use strict";
const fs = require("fs");
const { validateOpenRPCDocument } = require("@open-rpc/schema-utils-js");

// The `$ref`s inside `value` that do not resolve in `document`.
function unresolved(document, value, found = []) {
  if (Array.isArray(value)) {
    value.forEach((item) => unresolved(document, item, found));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") {
        if (!item.startsWith("#/") || resolve(document, item.slice(2)) === undefined) {
          found.push(item);
        }
      } else {
        unresolved(document, item, found);
      }
    }
  }
  return found;
}

function resolve(document, pointer) {
  return pointer
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((node, part) => (node === undefined ? undefined : node[part]), document);
}

async function check(file) {
  const document = JSON.parse(fs.readFileSync(file, "utf8"));
  const verdict = validateOpenRPCDocument(document);
  if (verdict !== true) {
    return `invalid ${file}: ${verdict.message}`;
  }
  const dangling = unresolved(document, document);
  if (dangling.length > 0) {
    return `unresolved $ref in ${file}: ${dangling.join(", ")}`;
  }
  return null;
}

(async () => {
  let failed = false;
  for (const file of process.argv.slice(2)) {
    const problem = await check(file);
    failed = failed || problem !== null;
    console.log(problem || `valid ${file}`);
  }
  process.exit(failed ? 1 : 0);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
