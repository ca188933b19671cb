'use strict';
// jayson's HTTP, TCP or WebSocket client calls the calculator: single calls
// with both params shapes, notifications, errors and batches.
//
// Usage: node jayson_client.js http://HOST:PORT/
//        node jayson_client.js tcp://HOST:PORT
//        node jayson_client.js ws://HOST:PORT/

const jayson = require('jayson');
const { eventually, run, within } = require('./lib');

/** jayson's client for `url`, once it can send. */
async function connect(url) {
  switch (url.protocol) {
    case 'http:':
      return jayson.Client.http(url.href);
    case 'tcp:':
      return jayson.Client.tcp({ host: url.hostname, port: Number(url.port) });
    case 'ws:': {
      // Over the `ws` package; sending before the handshake is done throws.
      const client = jayson.Client.websocket({ url: url.href });
      await within(
        new Promise((resolve, reject) => {
          client.ws.once('open', resolve);
          client.ws.once('error', reject);
        }),
        5000,
        `connecting to ${url.href}`,
      );
      return client;
    }
    default:
      throw new Error(`unsupported URL ${url.href}`);
  }
}

/** Closes a WebSocket client's connection with 1000 and resolves to what
 * the server's close frame said, once the connection has ended. */
function closeWebSocket(client) {
  return within(
    new Promise((resolve) => {
      client.ws.once('close', (code, reason) => resolve({ code, reason: String(reason) }));
      client.ws.close(1000, 'done');
    }),
    5000,
    'closing the WebSocket',
  );
}

run(async () => {
  const url = new URL(process.argv[2]);
  const http = url.protocol === 'http:';
  const client = await connect(url);

  /** Sends `request` (a request object, or an array for a batch) as it is
   * and resolves to the raw reply: a response object, an array, or
   * undefined when the server sends nothing. */
  const send = (request) =>
    within(
      new Promise((resolve, reject) => {
        client.request(request, (err, response) => (err ? reject(err) : resolve(response)));
      }),
      5000,
      JSON.stringify(request),
    );
  /** A request object with a fresh id (jayson's: a UUID string). */
  const request = (method, params) => client.request(method, params);
  /** A notification object: jayson leaves out the id when it is null. */
  const notification = (method, params) => client.request(method, params, null);
  /** Sends a request and returns what was sent beside what came back. */
  const exchange = async (method, params) => {
    const sent = request(method, params);
    return { sent_id: sent.id, reply: await send(sent) };
  };

  const report = { transport: url.protocol.replace(':', '') };
  report.subtract_positional = await exchange('subtract', [42, 23]);
  report.subtract_named = await exchange('subtract', { subtrahend: 23, minuend: 42 });
  report.sum = await exchange('sum', [1, 2, 4]);
  report.get_data = await exchange('get_data');
  report.notification_reply = (await send(notification('update', [1, 2, 3]))) ?? null;

  report.unknown_method = await exchange('multiply', [6, 7]);
  report.missing_param = await exchange('subtract', { minuend: 42 });
  report.overflow = await exchange('add', [5e18, 5e18]);

  // One message (one POST, or one line): two requests, a notification and
  // a request that fails.
  const batch = [
    request('sum', [10, 20]),
    request('get_data'),
    notification('update', [4]),
    request('subtract', [1]),
  ];
  report.batch = {
    sent_ids: batch.map((entry) => entry.id ?? null),
    reply: await send(batch),
  };
  const notifications = [notification('update', [5]), notification('notify_sum', [6])];
  if (http) {
    report.notification_batch_reply = (await send(notifications)) ?? null;
  } else {
    // Nothing answers a batch of notifications, and jayson's TCP and
    // WebSocket clients wait for a reply: send them one by one.
    for (const entry of notifications) {
      await send(entry);
    }
  }
  // 1 + 2 + 3, then 4, 5 and 6.
  report.total = await eventually(
    async () => (await send(request('total'))).result,
    (total) => total === 21,
  );
  if (url.protocol === 'ws:') {
    report.close = await closeWebSocket(client);
  }
  return report;
});
