'use strict';
// A calculator served by jayson over HTTP, TCP (newline-delimited) or
// WebSocket, for our generated client to call.
// Same methods as examples/common/calculator_api.rs; each accepts params by
// position or by name. Integers stay within JavaScript's safe range, so an
// `add` past 2^53 - 1 fails with the application error -32000 "Overflow".
//
// Usage: node jayson_server.js http [KEEP_ALIVE_MS]
//        node jayson_server.js tcp
//        node jayson_server.js ws
// Prints `listening on <http|tcp|ws>://127.0.0.1:PORT`; stops when stdin ends.
// Over HTTP, an idle kept-alive connection is closed after KEEP_ALIVE_MS
// (Node's default: 5 s).

const jayson = require('jayson');

const INVALID_PARAMS = -32602;

/** The arguments named `names`, from positional or named params; a
 * JSON-RPC error when one is missing or not an integer. */
function args(params, names) {
  const values = Array.isArray(params)
    ? names.map((_, i) => params[i])
    : names.map((name) => (params || {})[name]);
  if (Array.isArray(params) && params.length > names.length) {
    return { error: { code: INVALID_PARAMS, message: 'Invalid params', data: { reason: 'too many params' } } };
  }
  for (let i = 0; i < names.length; i++) {
    if (!Number.isSafeInteger(values[i])) {
      const reason = values[i] === undefined ? 'missing' : 'not an integer';
      return { error: { code: INVALID_PARAMS, message: 'Invalid params', data: { param: names[i], reason } } };
    }
  }
  return { values };
}

/** The whole positional params as integers. */
function integers(params) {
  if (!Array.isArray(params) || !params.every(Number.isSafeInteger)) {
    return { error: { code: INVALID_PARAMS, message: 'Invalid params', data: { reason: 'expected an array of integers' } } };
  }
  return { values: params };
}

/** A handler of `names` arguments computing `f`. */
function method(names, f) {
  return (params, callback) => {
    const { values, error } = args(params, names);
    return error ? callback(error) : f(values, callback);
  };
}

let total = 0;

const server = new jayson.Server({
  subtract: method(['minuend', 'subtrahend'], ([a, b], callback) => callback(null, a - b)),
  add: method(['a', 'b'], ([a, b], callback) => {
    const sum = a + b;
    if (!Number.isSafeInteger(sum)) {
      return callback({ code: -32000, message: 'Overflow', data: [a, b] });
    }
    return callback(null, sum);
  }),
  sum: (params, callback) => {
    const { values, error } = integers(params);
    return error ? callback(error) : callback(null, values.reduce((s, v) => s + v, 0));
  },
  get_data: (_params, callback) => callback(null, ['hello', 5]),
  update: (params, callback) => {
    const { values } = integers(params);
    total += (values || []).reduce((s, v) => s + v, 0);
    callback();
  },
  total: (_params, callback) => callback(null, total),
});

const [transport, keepAlive] = process.argv.slice(2);
const announce = (address, port) =>
  process.stdout.write(`listening on ${transport}://${address}:${port}\n`);
if (transport === 'ws') {
  // Over the `ws` package's server; each text frame is one message.
  const wss = server.websocket({ host: '127.0.0.1', port: 0 });
  wss.on('listening', () => {
    const { address, port } = wss.address();
    announce(address, port);
  });
} else {
  const listener = transport === 'tcp' ? server.tcp() : server.http();
  if (transport === 'http' && keepAlive) {
    listener.keepAliveTimeout = Number(keepAlive);
  }
  listener.listen(0, '127.0.0.1', () => {
    const { address, port } = listener.address();
    announce(address, port);
  });
}
// Whoever started us holds our stdin: when it goes, so do we.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
