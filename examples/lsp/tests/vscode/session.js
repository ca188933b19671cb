'use strict';
// VS Code's client libraries as a language client of tally-lsp: the
// server runs as a child process and vscode-jsonrpc's
// createMessageConnection speaks over its stdin and stdout, with the
// request and notification types of vscode-languageserver-protocol. The
// script walks a whole session (the lifecycle, every feature, the settings
// asked of the editor, progress, cancellation) and prints what it saw as
// one JSON report on stdout; examples/lsp/tests/vscode.rs makes the
// assertions.
//
// Usage: node session.js <tally-lsp> <utf-16|utf-8|utf-32> [full|no-shutdown]

const { spawn } = require('node:child_process');
const lsp = require('vscode-languageserver-protocol/node');
const { rangeOf, positionAt, applyEdit, applyEdits } = require('./positions');

const [binary, encoding = 'utf-16', mode = 'full'] = process.argv.slice(2);
const PATIENCE = 10000;

const URI = 'file:///work/prices.tally';
const MESSY = 'file:///work/messy.tally';
// A combining acute accent, a CJK name, a Hangul name, astral emoji.
const CAFE = 'cafe\u0301';
const SAMPLE = [
  '# Prices 🍎 in Tally',
  'let 🍎 = 3',
  'let 価格 = 🍎 * 2.5',
  `let ${CAFE} = 価格 / 3.2`,
  `let 합계 = ${CAFE} + 🍎`,
  '합계 * 2',
  '',
].join('\n');

/** Everything the server sent, in the order it arrived. */
const events = [];
const waiters = [];
function record(event) {
  events.push(event);
  for (const waiter of [...waiters]) waiter();
}

/** Resolves with the first event that `matches`, waiting for it if need be. */
function until(matches, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`waited for ${what}`)), PATIENCE);
    const check = () => {
      const found = events.find(matches);
      if (found) {
        clearTimeout(timer);
        waiters.splice(waiters.indexOf(check), 1);
        resolve(found);
      }
    };
    waiters.push(check);
    check();
  });
}

function errorObject(err) {
  if (!(err instanceof lsp.ResponseError)) throw err;
  return { code: err.code, message: err.message };
}

/** The error a request is answered with (or its result, if it succeeds). */
async function outcome(promise) {
  try {
    return { result: await promise };
  } catch (err) {
    return { error: errorObject(err) };
  }
}

function start() {
  const child = spawn(binary, ['--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const connection = lsp.createMessageConnection(
    new lsp.StreamMessageReader(child.stdout),
    new lsp.StreamMessageWriter(child.stdin),
  );
  return { connection, exited };
}

/** The editor's settings, as the configuration requests get them. */
let settings = { precision: 2, unusedWarnings: true };

function listen(connection) {
  connection.onRequest(lsp.ConfigurationRequest.type, (params) => {
    record({ request: 'workspace/configuration', sections: params.items.map((i) => i.section) });
    return params.items.map(() => settings);
  });
  connection.onRequest(lsp.WorkDoneProgressCreateRequest.type, (params) => {
    record({ request: 'window/workDoneProgress/create', token: params.token });
    connection.onProgress(lsp.WorkDoneProgress.type, params.token, (value) =>
      record({ progress: value.kind, token: params.token, message: value.message, percentage: value.percentage }),
    );
    return null;
  });
  connection.onNotification(lsp.PublishDiagnosticsNotification.type, (params) =>
    record({
      diagnostics: params.uri,
      version: params.version === undefined ? null : params.version,
      items: params.diagnostics.map((d) => ({ message: d.message, severity: d.severity, range: d.range })),
    }),
  );
  connection.onNotification(lsp.LogMessageNotification.type, (params) =>
    record({ log: params.message, type: params.type }),
  );
  connection.listen();
}

function initializeParams() {
  const general = encoding === 'utf-16' ? undefined : { positionEncodings: [encoding, 'utf-16'] };
  return {
    processId: process.pid,
    rootUri: 'file:///work',
    capabilities: {
      general,
      workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: false } },
      window: { workDoneProgress: true },
      textDocument: { synchronization: { didSave: false }, hover: { contentFormat: ['markdown'] } },
    },
  };
}

const at = (text, needle, nth = 0) => rangeOf(text, needle, encoding, nth).start;
const textDocument = (uri) => ({ uri });

async function fullSession(connection, exited) {
  const report = {};
  // Before initialize: a request is refused, a notification dropped.
  report.beforeInitialize = await outcome(
    connection.sendRequest(lsp.HoverRequest.type, { textDocument: textDocument(URI), position: { line: 0, character: 0 } }),
  );
  await connection.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
    textDocument: { uri: 'file:///work/early.tally', languageId: 'tally', version: 1, text: 'let x = 1' },
  });

  report.initialize = await connection.sendRequest(lsp.InitializeRequest.type, initializeParams());
  report.initializeAgain = await outcome(connection.sendRequest(lsp.InitializeRequest.type, initializeParams()));
  await connection.sendNotification(lsp.InitializedNotification.type, {});
  await until((e) => e.log && e.log.startsWith('settings: precision 2'), 'the settings to be taken in');
  report.earlyDocument = await outcome(connection.sendRequest('tally/documentText', textDocument('file:///work/early.tally')));

  // Open, then change with incremental edits at multi-byte positions.
  let text = SAMPLE;
  await connection.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
    textDocument: { uri: URI, languageId: 'tally', version: 1, text },
  });
  report.opened = await until((e) => e.diagnostics === URI && e.version === 1, 'diagnostics of version 1');
  const changes = [];
  const change = (range, insert) => {
    changes.push({ range, text: insert });
    text = applyEdit(text, { range, text: insert }, encoding);
  };
  change(rangeOf(text, '2.5', encoding), '4');
  const lastLine = positionAt(text, text.indexOf('합계 * 2'), encoding);
  change({ start: lastLine, end: lastLine }, 'let 🍏 = 1; ');
  const end = positionAt(text, text.indexOf('합계 * 2') + '합계 * 2'.length, encoding);
  change({ start: end, end }, ' + 🍐');
  await connection.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri: URI, version: 2 },
    contentChanges: changes,
  });
  report.changed = await until((e) => e.diagnostics === URI && e.version === 2, 'diagnostics of version 2');
  report.expectedRanges = {
    pear: rangeOf(text, '🍐', encoding),
    greenApple: rangeOf(text, '🍏', encoding),
  };
  report.clientText = text;
  report.serverText = await connection.sendRequest('tally/documentText', textDocument(URI));

  // Reading requests, at positions past emoji, CJK and combining marks.
  const position = (needle, nth = 0) => ({ textDocument: textDocument(URI), position: at(text, needle, nth) });
  const hover = await connection.sendRequest(lsp.HoverRequest.type, position(CAFE, 1));
  report.hover = { value: hover.contents.value, range: hover.range, expected: rangeOf(text, CAFE, encoding, 1) };
  const appleUse = text.indexOf('+ 🍎') + 2;
  const appleHover = await connection.sendRequest(lsp.HoverRequest.type, {
    textDocument: textDocument(URI),
    position: positionAt(text, appleUse, encoding),
  });
  report.appleHover = appleHover.contents.value;
  const completion = await connection.sendRequest(lsp.CompletionRequest.type, {
    textDocument: textDocument(URI),
    position: positionAt(text, text.length - 1, encoding),
  });
  report.completion = completion.map((item) => item.label);
  const definition = await connection.sendRequest(lsp.DefinitionRequest.type, position('価格', 1));
  report.definition = { got: definition, expected: { uri: URI, range: rangeOf(text, '価格', encoding, 0) } };
  const symbols = await connection.sendRequest(lsp.DocumentSymbolRequest.type, { textDocument: textDocument(URI) });
  report.symbols = symbols.map((s) => ({ name: s.name, detail: s.detail, selection: s.selectionRange }));
  report.expectedSelections = ['🍎', '価格', CAFE, '합계', '🍏'].map((name) => {
    const start = text.indexOf(`let ${name}`) + 'let '.length;
    return { start: positionAt(text, start, encoding), end: positionAt(text, start + name.length, encoding) };
  });
  const rename = await connection.sendRequest(lsp.RenameRequest.type, { ...position('🍎', 1), newName: 'りんご' });
  report.renamed = applyEdits(text, rename.changes[URI], encoding);
  report.badRename = await outcome(connection.sendRequest(lsp.RenameRequest.type, { ...position('🍎', 1), newName: '1x' }));

  await connection.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
    textDocument: { uri: MESSY, languageId: 'tally', version: 1, text: 'let  x=1+ 2\r\n  x*-x' },
  });
  const edits = await connection.sendRequest(lsp.DocumentFormattingRequest.type, {
    textDocument: textDocument(MESSY),
    options: { tabSize: 4, insertSpaces: true },
  });
  report.formatted = applyEdits('let  x=1+ 2\r\n  x*-x', edits, encoding);

  // New settings: the server asks for them again, and honours them.
  settings = { precision: 0, unusedWarnings: false };
  await connection.sendNotification(lsp.DidChangeConfigurationNotification.type, { settings: null });
  await until((e) => e.log && e.log.startsWith('settings: precision 0'), 'the new settings');
  report.republished = await until(
    (e) => e.diagnostics === URI && e.version === 2 && e.items.every((i) => i.severity !== 2),
    'diagnostics without the unused warning',
  );
  report.roundedHover = (await connection.sendRequest(lsp.HoverRequest.type, position(CAFE, 1))).contents.value;

  // The slow command, with the server's work-done progress.
  report.evaluated = await connection.sendRequest(lsp.ExecuteCommandRequest.type, {
    command: 'tally.evaluate',
    arguments: [{ delayMs: 20 }],
  });
  // Again, cancelled once it has begun.
  const source = new lsp.CancellationTokenSource();
  const slow = connection.sendRequest(
    lsp.ExecuteCommandRequest.type,
    { command: 'tally.evaluate', arguments: [{ delayMs: 5000 }] },
    source.token,
  );
  const begun = events.filter((e) => e.progress === 'begin').length;
  await until((e) => e.progress === 'begin' && events.filter((b) => b.progress === 'begin').length > begun, 'a second progress');
  source.cancel();
  report.cancelled = await outcome(slow);
  await until((e) => e.progress === 'end' && e.message === 'cancelled', 'the cancelled progress to end');

  // `$/` messages the server does not know.
  await connection.sendNotification('$/setTrace', { value: 'verbose' });
  report.unknownDollarRequest = await outcome(connection.sendRequest('$/unknown', {}));
  report.unknownCommand = await outcome(
    connection.sendRequest(lsp.ExecuteCommandRequest.type, { command: 'tally.nothing', arguments: [] }),
  );

  await connection.sendNotification(lsp.DidCloseTextDocumentNotification.type, { textDocument: textDocument(MESSY) });
  report.closed = await until((e) => e.diagnostics === MESSY && e.version === null, 'the closed document cleared');

  report.shutdown = await connection.sendRequest(lsp.ShutdownRequest.type);
  report.afterShutdown = await outcome(connection.sendRequest(lsp.HoverRequest.type, position(CAFE, 1)));
  await connection.sendNotification(lsp.ExitNotification.type);
  report.exitCode = await exited;
  report.events = events;
  return report;
}

/** `exit` without `shutdown`: the process ends with code 1. */
async function exitWithoutShutdown(connection, exited) {
  await connection.sendRequest(lsp.InitializeRequest.type, initializeParams());
  await connection.sendNotification(lsp.InitializedNotification.type, {});
  await connection.sendNotification(lsp.ExitNotification.type);
  return { exitCode: await exited };
}

async function main() {
  const { connection, exited } = start();
  listen(connection);
  const session = mode === 'no-shutdown' ? exitWithoutShutdown : fullSession;
  const timer = setTimeout(() => {
    console.error(`the session took longer than ${PATIENCE * 3} ms; events: ${JSON.stringify(events)}`);
    process.exit(1);
  }, PATIENCE * 3);
  const report = await session(connection, exited);
  clearTimeout(timer);
  return report;
}

main().then(
  (report) => process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0)),
  (err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exit(1);
  },
);
