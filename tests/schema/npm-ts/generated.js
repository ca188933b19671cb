// Generates a TypeScript client of an OpenRPC document with
// @open-rpc/generator, transpiles it, and calls a server with it:
//
//   node generated.js <document.json> <url> <out dir> [method to skip]...
//
// Each method is called with its first example's params (by position, or
// by name where the document says `by-name`: the generated client decides);
// the generated client checks them against the document's schemas first;
// a call passes when the result equals the example's (a notification when
// it is sent). Prints one line per call; exits 1 if a call fails or none
// was made.
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require("typescript");
const { isEqual, zipObject } = require("lodash");
const generate = require("@open-rpc/generator").default;

(async () => {
  const [file, url, out, ...skip] = process.argv.slice(2);
  const document = JSON.parse(fs.readFileSync(file, "utf8"));
  fs.rmSync(out, { recursive: true, force: true });
  await generate({
    openrpcDocument: file,
    outDir: out,
    components: [{ type: "client", language: "typescript", name: "generated" }],
  });
  const source = path.join(out, "client/typescript/src/index.ts");
  // The client runs on the versions its generated package.json pins:
  // schema-utils-js 1.15.0 (installed as `client-schema-utils`, beside the
  // 2.x the generator itself reads OpenRPC 1.3 with).
  const pinned = JSON.parse(fs.readFileSync(path.join(out, "client/typescript/package.json"), "utf8"));
  if (pinned.dependencies["@open-rpc/schema-utils-js"] !== "1.15.0") {
    throw new Error(`the generated client pins schema-utils-js ${pinned.dependencies["@open-rpc/schema-utils-js"]}`);
  }
  const typescript = fs
    .readFileSync(source, "utf8")
    .replace('from "@open-rpc/schema-utils-js"', 'from "client-schema-utils"');
  const { outputText } = ts.transpileModule(typescript, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2019, esModuleInterop: true },
  });
  // In the out dir: its imports find the installed packages through
  // NODE_PATH, which the test sets, so nothing is written beside this script.
  const compiled = path.join(out, "client.js");
  fs.writeFileSync(compiled, outputText);
  const Client = require(compiled).default;
  const { hostname, port } = new URL(url);
  const client = new Client({ transport: { type: "http", host: hostname, port: Number(port) } });
  // The generated client checks a by-name method's arguments against the
  // schemas by name while they are still a list (so it refuses every
  // by-name call with params before sending it: a bug of the generator's
  // template, with schema-utils-js 1.15.0 and 2.2.1 alike); here they are
  // checked as the object it then sends.
  const validator = client.validator;
  client.validator = {
    validate(name, params) {
      const method = document.methods.find((m) => m.name === name);
      const byName = method && method.paramStructure === "by-name";
      return validator.validate(name, byName ? zipObject(method.params.map((p) => p.name), params) : params);
    },
  };

  let failed = 0;
  let made = 0;
  for (const method of document.methods) {
    if (skip.includes(method.name)) continue;
    const example = (method.examples || [])[0];
    const params = example
      ? method.params.map((p) => (example.params.find((e) => e.name === p.name) || {}).value)
      : method.params.map(() => 1);
    const call = client[method.name.replace(/[^A-Za-z0-9_]/g, "_")];
    made += 1;
    try {
      const result = await call(...params);
      const expected = method.result ? example && example.result.value : undefined;
      const pass = !method.result || isEqual(result, expected);
      failed += pass ? 0 : 1;
      console.log(`${pass ? "pass" : "FAIL"} ${method.name} ${JSON.stringify(params)}` +
        (pass ? "" : `: expected ${JSON.stringify(expected)}, got ${JSON.stringify(result)}`));
    } catch (error) {
      failed += 1;
      console.log(`FAIL ${method.name} ${JSON.stringify(params)}: ${JSON.stringify(error.message || error)}`);
    }
  }
  process.exit(failed > 0 || made === 0 ? 1 : 0);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
