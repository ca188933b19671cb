'use strict';
// A calculator served by vscode-jsonrpc on stdin and stdout with
// Content-Length framing, as a language server is, for our generated client
// to spawn and call. Like a language server it also calls its client back:
// `describe` asks the client for `workspace/configuration` and tells it
// `window/logMessage` before answering.
//
// Usage: node vscode_server.js   (stops when stdin ends)

const rpc = require('vscode-jsonrpc/node');

const connection = rpc.createMessageConnection(
  new rpc.StreamMessageReader(process.stdin),
  new rpc.StreamMessageWriter(process.stdout),
);

/** Integer arguments `names`, from positional params (spread by
 * vscode-jsonrpc, the cancellation token last) or named params. */
function args(names, received) {
  const params = received.slice(0, -1);
  const values =
    params.length === 1 && params[0] !== null && typeof params[0] === 'object'
      ? names.map((name) => params[0][name])
      : params;
  names.forEach((name, i) => {
    if (!Number.isSafeInteger(values[i])) {
      throw new rpc.ResponseError(rpc.ErrorCodes.InvalidParams, 'Invalid params', { param: name });
    }
  });
  return values;
}

let total = 0;

connection.onRequest('subtract', (...received) => {
  const [minuend, subtrahend] = args(['minuend', 'subtrahend'], received);
  return minuend - subtrahend;
});
connection.onRequest('add', (...received) => {
  const [a, b] = args(['a', 'b'], received);
  if (!Number.isSafeInteger(a + b)) {
    throw new rpc.ResponseError(-32000, 'Overflow', [a, b]);
  }
  return a + b;
});
connection.onRequest('sum', (...received) => received.slice(0, -1).reduce((s, v) => s + v, 0));
connection.onRequest('get_data', () => ['hello', 5]);
connection.onRequest('total', () => total);
connection.onNotification('update', (...values) => {
  total += values.reduce((s, v) => s + v, 0);
});
connection.onRequest('describe', async (word) => {
  const style = await connection.sendRequest('workspace/configuration', { section: 'style' });
  await connection.sendNotification('window/logMessage', { type: 3, message: `describing ${word}` });
  return `${word} (${style})`;
});

connection.onClose(() => process.exit(0));
connection.listen();
