'use strict';
// vscode-jsonrpc, as a language client, over this process's stdin and
// stdout: the test spawned it and serves the Waiter API of
// tests/support/waiter.rs on its pipes, with the LSP cancel preset. It
// cancels a call in flight with a CancellationTokenSource, the way an
// editor gives up on a hover, and sends what it saw back as a `report`
// notification (stdout is the JSON-RPC channel, not the report's).
//
// Usage: node vscode_cancel.js

const rpc = require('vscode-jsonrpc/node');
const { errorObject, within } = require('./lib');

async function main(connection) {
  const call = (...args) => within(connection.sendRequest(...args), 5000, String(args[0]));
  const report = {};
  const source = new rpc.CancellationTokenSource();
  const waiting = connection.sendRequest('wait', source.token);
  // The server's handler is running before the cancel is sent.
  report.started = await call('started', 1);
  source.cancel();
  try {
    report.cancelled = { result: await within(waiting, 5000, 'the cancelled call') };
  } catch (err) {
    if (!(err instanceof rpc.ResponseError)) {
      throw err;
    }
    report.cancelled = errorObject(err);
  }
  report.dropped = await call('dropped', 1);
  // A cancel for a call that was answered already changes nothing.
  const done = new rpc.CancellationTokenSource();
  report.answered = await call('wait', 1, done.token);
  done.cancel();
  report.ping = await call('ping');
  return report;
}

const connection = rpc.createMessageConnection(
  new rpc.StreamMessageReader(process.stdin),
  new rpc.StreamMessageWriter(process.stdout),
);
connection.listen();
main(connection).then(
  async (report) => {
    await connection.sendNotification('report', report);
    process.exit(0);
  },
  (err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exit(1);
  },
);
