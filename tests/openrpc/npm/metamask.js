// MetaMask's API document (@metamask/api-specs) for tests/openrpc/metamask.rs.
//
//   node metamask.js examples          prints every example of every method,
//                                      its params in the order of the method's
//                                      params, and whether ajv finds its
//                                      params and result valid under their
//                                      schemas (JSON, one line)
//   node metamask.js serve <port>      a replay server on 127.0.0.1: a call
//                                      whose params equal an example's is
//                                      answered with that example's result;
//                                      any other call with -32602 saying what
//                                      came; prints "listening" when ready
"use strict";
const http = require("http");
const Ajv = require("ajv");
const addFormats = require("ajv-formats");

const documentPath = require.resolve("@metamask/api-specs/dist/build/openrpc.json");
const document = require(documentPath);

function follow(value) {
  while (value && typeof value === "object" && typeof value.$ref === "string") {
    value = value.$ref
      .slice(2)
      .split("/")
      .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((node, part) => node[part], document);
  }
  return value;
}

// `#/components/schemas/X` as `#/definitions/X` beside each schema.
const definitions = JSON.parse(
  JSON.stringify(document.components.schemas || {}).split("#/components/schemas/").join("#/definitions/"),
);
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
function valid(schema, value) {
  const local = JSON.parse(JSON.stringify(schema).split("#/components/schemas/").join("#/definitions/"));
  const whole = typeof local === "object" ? { ...local, definitions } : local;
  return ajv.validate(whole, value);
}

// Every example: its params as the method's params in order (`null` where
// the example leaves one out), and whether each part is valid.
function examples() {
  const cases = [];
  for (const method of document.methods.map(follow)) {
    const params = (method.params || []).map(follow);
    for (const example of (method.examples || []).map(follow)) {
      const given = Object.fromEntries((example.params || []).map(follow).map((p) => [p.name, p.value]));
      const values = params.map((p) => (p.name in given ? given[p.name] : null));
      const paramsValid = params.every((p, i) =>
        p.name in given ? valid(p.schema, values[i]) : !p.required,
      );
      const result = example.result === undefined ? undefined : follow(example.result).value;
      const resultValid = method.result === undefined || valid(follow(method.result).schema, result);
      cases.push({ method: method.name, example: example.name, values, paramsValid, result, resultValid });
    }
  }
  return cases;
}

// JSON text with every object's members in order: members have no order.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}

function serve(port) {
  const cases = examples();
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const call = JSON.parse(body);
      const method = follow(document.methods.find((m) => follow(m).name === call.method));
      const names = ((method && method.params) || []).map((p) => follow(p).name);
      // By position, trailing `null`s are left-out optional params.
      const sent = Array.isArray(call.params)
        ? names.map((_, i) => (i < call.params.length ? call.params[i] : null))
        : names.map((name) => (call.params && name in call.params ? call.params[name] : null));
      const match = cases.find(
        (c) => c.method === call.method && canonical(c.values) === canonical(sent),
      );
      const reply = match
        ? { jsonrpc: "2.0", id: call.id, result: match.result === undefined ? null : match.result }
        : { jsonrpc: "2.0", id: call.id, error: { code: -32602, message: "no example has these params", data: call.params } };
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(reply));
    });
  });
  server.listen(Number(port), "127.0.0.1", () => console.log("listening"));
}

const [mode, port] = process.argv.slice(2);
if (mode === "examples") {
  console.log(JSON.stringify({ document: documentPath, cases: examples() }));
} else if (mode === "serve") {
  serve(port);
} else {
  console.error("usage: node metamask.js examples | serve <port>");
  process.exit(2);
}
