'use strict';
// vscode-jsonrpc, the JSON-RPC library under VS Code's language clients,
// starts the calculator as a child process and talks to it over stdio with
// Content-Length framing, as an editor talks to a language server.
//
// Usage: node vscode_stdio.js CALCULATOR_BINARY

const { spawn } = require('node:child_process');
const rpc = require('vscode-jsonrpc/node');
const { errorObject, eventually, run, within } = require('./lib');

/** The ResponseError a call must fail with. */
async function failure(call) {
  try {
    const result = await call;
    throw new Error(`expected an error, got the result ${JSON.stringify(result)}`);
  } catch (err) {
    if (!(err instanceof rpc.ResponseError)) {
      throw err;
    }
    return errorObject(err);
  }
}

run(async () => {
  const binary = process.argv[2];
  const child = spawn(binary, ['--stdio', '--framing', 'content-length'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  // However this script ends, the server does not outlive it.
  process.on('exit', () => child.kill('SIGKILL'));

  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );
  connection.listen();
  const call = (...args) => within(connection.sendRequest(...args), 5000, String(args[0]));

  const report = {};
  report.subtract_positional = await call('subtract', 42, 23);
  report.subtract_typed = await call(new rpc.RequestType2('subtract'), 23, 42);
  report.subtract_named = await call(
    new rpc.RequestType('subtract', rpc.ParameterStructures.byName),
    { subtrahend: 23, minuend: 42 },
  );
  report.sum = await call('sum', 1, 2, 4);
  report.get_data = await call('get_data');

  // Many calls at once: the replies may come in any order and are matched by id.
  const pairs = Array.from({ length: 20 }, (_, i) => [100 + 2 * i, i]);
  report.concurrent = await Promise.all(pairs.map(([a, b]) => call('subtract', a, b)));

  await connection.sendNotification('update', 1, 2, 3);
  await connection.sendNotification('update', 4);
  report.total = await eventually(() => call('total'), (total) => total === 10);

  report.unknown_method = await failure(call('multiply', 6, 7));
  report.missing_param = await failure(call('subtract', 42));
  report.wrong_type = await failure(
    call(new rpc.RequestType('subtract', rpc.ParameterStructures.byName), {
      minuend: 'forty-two',
      subtrahend: 23,
    }),
  );
  // Content-Length counts bytes: the reason quotes this string back.
  report.non_ascii = await failure(call('subtract', 'сорок два 🎉', 23));
  // 5e18 + 5e18 overflows the server's i64; 5e18 is exact as a double and in JSON.
  report.overflow = await failure(call('add', 5e18, 5e18));

  // End the session as an editor does: the server exits when stdin ends.
  connection.dispose();
  child.stdin.end();
  report.exit = await within(exited, 5000, 'the server exiting');
  return report;
});
