// Runs @open-rpc/test-coverage against a server with the server's own
// document: `node coverage.js <document.json> <url> [method to skip]...`.
// Every method is called with each of its examples; a call passes when its
// result equals the example's and also fits the method's result schema.
// Prints one line per call; exits 1 if a call fails or none was made.
"use strict";
const fs = require("fs");
const Ajv = require("ajv");
const { isEqual } = require("lodash");
const { dereferenceDocument } = require("@open-rpc/schema-utils-js");
const testCoverage = require("@open-rpc/test-coverage").default;
const ExamplesRule = require("@open-rpc/test-coverage/build/rules/examples-rule").default;

// The stock rule checks the schema only when the result differs from the
// example; this one checks both, every time.
class ExampleAndSchemaRule extends ExamplesRule {
  validateCall(call) {
    if (call.error !== undefined || call.result === undefined) {
      call.valid = false;
      call.reason = `expected a result, got ${JSON.stringify(call.error)}`;
      return call;
    }
    // Formats such as schemars' `int64` are annotations to ajv.
    const ajv = new Ajv({ unknownFormats: "ignore" });
    const fits = ajv.validate(call.resultSchema, call.result);
    const equal = isEqual(call.expectedResult, call.result);
    call.valid = fits && equal;
    if (!call.valid) {
      call.reason = `expected ${JSON.stringify(call.expectedResult)}, got ${JSON.stringify(call.result)}` +
        (fits ? "" : `, which does not fit the result schema: ${JSON.stringify(ajv.errors)}`);
    }
    return call;
  }
}

(async () => {
  const [file, url, ...skip] = process.argv.slice(2);
  const document = JSON.parse(fs.readFileSync(file, "utf8"));
  document.servers = [{ name: "under test", url }];
  // Result schemas are checked on their own, without the document's components.
  const dereferenced = await dereferenceDocument(document);
  const calls = await testCoverage({
    openrpcDocument: dereferenced,
    transport: "http",
    reporters: ["empty"],
    rules: [new ExampleAndSchemaRule({ skip })],
  });
  for (const call of calls) {
    console.log(`${call.valid ? "pass" : "FAIL"} ${call.methodName} ${JSON.stringify(call.params)}` +
      (call.valid ? "" : `: ${call.reason}`));
  }
  const failed = calls.length === 0 || calls.some((call) => !call.valid);
  process.exit(failed ? 1 : 0);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
