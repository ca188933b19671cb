// The official A2A JS SDK's client (@a2a-js/sdk, pinned in package.json)
// against an agent, one scenario at a time:
//
//     node sdk_client.mjs CARD_URL SCENARIO
//
// Resolves the card with the SDK's ClientFactory, drives SCENARIO and prints
// one JSON object, on one line, with what it observed (tests/js_sdk.rs
// asserts on it). Errors are observed as {"error": <SDK error class>,
// "reason": <its ErrorInfo reason>}. Scenarios: card, send, stream, get,
// cancel.
import { randomUUID } from "node:crypto";

import { Role, TaskState, roleToJSON, taskStateToJSON } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";

const CARD_PATH = "/.well-known/agent-card.json";
// The whole run, so that an agent that never answers fails the scenario
// instead of hanging it.
const RUN_LIMIT_MS = 60000;
const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

function userMessage(text) {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
    taskId: "",
    contextId: "",
    extensions: [],
    metadata: undefined,
    referenceTaskIds: [],
  };
}

function sendRequest(text, configuration) {
  return { tenant: "", message: userMessage(text), configuration, metadata: undefined };
}

function textOf(parts) {
  return parts
    .filter((part) => part.content?.$case === "text")
    .map((part) => part.content.value)
    .join("");
}

function taskSummary(task) {
  return {
    kind: "task",
    id: task.id,
    state: taskStateToJSON(task.status.state),
    statusText: task.status.message ? textOf(task.status.message.parts) : null,
    artifacts: task.artifacts.map((a) => ({ artifactId: a.artifactId, parts: a.parts.length, text: textOf(a.parts) })),
    historyLength: task.history.length,
  };
}

/** A `sendMessage` result: a Task, or a Message. */
function resultSummary(result) {
  if (result.status !== undefined) {
    return taskSummary(result);
  }
  return { kind: "message", role: roleToJSON(result.role), text: textOf(result.parts) };
}

function eventSummary(event) {
  const payload = event.payload;
  switch (payload?.$case) {
    case "task":
      return taskSummary(payload.value);
    case "message":
      return { kind: "message", text: textOf(payload.value.parts) };
    case "statusUpdate":
      return {
        kind: "status",
        taskId: payload.value.taskId,
        state: taskStateToJSON(payload.value.status.state),
      };
    case "artifactUpdate":
      return {
        kind: "artifact",
        taskId: payload.value.taskId,
        artifactId: payload.value.artifact.artifactId,
        text: textOf(payload.value.artifact.parts),
        append: payload.value.append,
        lastChunk: payload.value.lastChunk,
      };
    default:
      return { kind: "empty" };
  }
}

/** The awaited result, or the SDK's error, observed instead of thrown. */
async function attempt(promise) {
  try {
    return await promise;
  } catch (err) {
    return { error: err.constructor.name, reason: err.reason ?? null, message: String(err.message) };
  }
}

async function waitTerminal(client, id) {
  for (let i = 0; i < 200; i++) {
    const task = await client.getTask({ tenant: "", id });
    if (TERMINAL.has(task.status.state)) {
      return taskSummary(task);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`task ${id} did not end`);
}

const scenarios = {
  async card(client) {
    const card = await client.getAgentCard();
    const hello = await client.sendMessage(sendRequest("hello"));
    return {
      name: card.name,
      interfaces: card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion]),
      streaming: card.capabilities.streaming,
      skills: card.skills.map((skill) => skill.id),
      protocolVersion: client.protocolVersion,
      hello: resultSummary(hello),
    };
  },

  async send(client) {
    return {
      upper: resultSummary(await client.sendMessage(sendRequest("upper hello from javascript"))),
      hello: resultSummary(await client.sendMessage(sendRequest("hello"))),
    };
  },

  async stream(client) {
    const events = [];
    for await (const event of client.sendMessageStream(sendRequest("upper streamed to the js sdk"))) {
      events.push(eventSummary(event));
    }
    return { events };
  },

  async get(client) {
    // An input-required turn and its answer: two user messages in the history.
    const asked = await client.sendMessage(sendRequest("make it loud"));
    const answer = sendRequest("make it loud");
    answer.message.taskId = asked.id;
    await client.sendMessage(answer);
    const full = await client.getTask({ tenant: "", id: asked.id });
    const one = await client.getTask({ tenant: "", id: asked.id, historyLength: 1 });
    const missing = await attempt(client.getTask({ tenant: "", id: `no-such-task-${randomUUID()}` }));
    return {
      task: taskSummary(full),
      roles: full.history.map((m) => roleToJSON(m.role)),
      historyLength1: one.history.length,
      newestKept: one.history[0]?.messageId === full.history.at(-1)?.messageId,
      missing,
    };
  },

  async cancel(client) {
    const started = await client.sendMessage(sendRequest("slow 50", { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true }));
    const canceled = await client.cancelTask({ tenant: "", id: started.id, metadata: undefined });
    const after = await waitTerminal(client, started.id);
    const again = await attempt(client.cancelTask({ tenant: "", id: started.id, metadata: undefined }));
    return { started: taskSummary(started), canceled: taskSummary(canceled), after, again };
  },
};

async function main() {
  const [cardUrl, scenario] = process.argv.slice(2);
  if (!cardUrl?.endsWith(CARD_PATH) || !scenarios[scenario]) {
    throw new Error(`usage: node sdk_client.mjs CARD_URL (${Object.keys(scenarios).join("|")})`);
  }
  const client = await new ClientFactory().createFromUrl(cardUrl.slice(0, -CARD_PATH.length));
  const observed = await scenarios[scenario](client);
  process.stdout.write(JSON.stringify({ scenario, ...observed }) + "\n");
}

setTimeout(() => {
  console.error(`sdk_client.mjs: still running after ${RUN_LIMIT_MS} ms`);
  process.exit(3);
}, RUN_LIMIT_MS).unref();

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
