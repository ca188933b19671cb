// Compiles every schema of each OpenRPC document named on the command line
// with ajv 8 in its default strict mode (and the standard formats of
// ajv-formats): each param's, each result's, each stream item's and each
// error's `data`, with the document's `components/schemas` beside it.
// Prints one line per document; exits 1 if a schema does not compile.
"use strict";
const fs = require("fs");
const Ajv = require("ajv");
const addFormats = require("ajv-formats");

function schemasOf(document) {
  const found = [];
  for (const method of document.methods) {
    (method.params || []).forEach((p, i) => found.push([`${method.name} params/${i}`, p.schema]));
    if (method.result) found.push([`${method.name} result`, method.result.schema]);
    if (method["x-stream"]) found.push([`${method.name} x-stream/item`, method["x-stream"].item]);
    for (const [code, schema] of Object.entries(method["x-error-data"] || {})) {
      found.push([`${method.name} x-error-data/${code}`, schema]);
    }
  }
  return found;
}

let failed = false;
for (const file of process.argv.slice(2)) {
  // `#/components/schemas/X` is `#/definitions/X` beside each schema.
  const text = fs.readFileSync(file, "utf8").split("#/components/schemas/").join("#/definitions/");
  const document = JSON.parse(text);
  const definitions = (document.components && document.components.schemas) || {};
  const problems = [];
  let count = 0;
  for (const [where, schema] of schemasOf(document)) {
    const ajv = new Ajv();
    addFormats(ajv);
    const whole = typeof schema === "object" ? { ...schema, definitions } : schema;
    try {
      ajv.compile(whole);
      count += 1;
    } catch (error) {
      problems.push(`${where}: ${error.message}`);
    }
  }
  failed = failed || problems.length > 0;
  console.log(problems.length === 0 ? `strict ${file}: ${count} schemas` : `refused ${file}:\n  ${problems.join("\n  ")}`);
}
process.exit(failed ? 1 : 0);
