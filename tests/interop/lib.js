'use strict';
// What the Node scripts of the interoperability tests share. Each script
// prints one JSON report on stdout; tests/interop/main.rs makes the assertions.

/** A JSON-RPC error as plain JSON: `code`, `message` and `data` (null when absent). */
function errorObject(err) {
  return { code: err.code, message: err.message, data: err.data === undefined ? null : err.data };
}

/** Runs `main`, prints what it returns as one line of JSON and exits; on
 * failure, prints the error on stderr and exits with 1. */
function run(main) {
  main().then(
    (report) => process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0)),
    (err) => {
      console.error(err && err.stack ? err.stack : String(err));
      process.exit(1);
    },
  );
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads with `read` until `done(value)`, at most `attempts` times 20 ms
 * apart; returns the last value. The servers run notifications concurrently
 * with later requests, so their effects are awaited, not assumed. */
async function eventually(read, done, attempts = 100) {
  let value = await read();
  for (let i = 1; i < attempts && !done(value); i++) {
    await sleep(20);
    value = await read();
  }
  return value;
}

/** Rejects if the promise resolves or takes longer than `ms`. */
function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

module.exports = { errorObject, eventually, run, sleep, within };
