import { afterEach, describe, expect, it } from "vitest";
import type { RunAgentInput } from "../../src/ag-ui/ag-ui-events.js";
import {
  type AgentClient,
  createAgentClient,
  type FrontendTool,
  NOT_ANSWERED_TEXT,
  type RunMemory,
} from "../../src/client/agent-client.js";
import type { AgentClientContext } from "../../src/client/agent-client-state.js";
import type { ScriptedTurn } from "../../src/providers/scripted/scripted-model.js";
import { scriptedAgents, serveOnLoopback } from "../support/ag-ui-server.js";
import { colourScript, lastResult, pickColour } from "../support/colour-tool.js";
import { texts } from "../support/harness-support.js";

const servers: { close(): Promise<void> }[] = [];
const clients: AgentClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: () => ScriptedTurn[]) {
  const setup = scriptedAgents(script);
  const served = await serveOnLoopback(setup.handler);
  servers.push(served);
  return { ...setup, url: served.url };
}

/** A fetch that records the run inputs it sends. */
function recordingFetch() {
  const inputs: RunAgentInput[] = [];
  const fetchFn: typeof fetch = (url, init) => {
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    if (!("command" in body)) inputs.push(body as unknown as RunAgentInput);
    return fetch(url, init);
  };
  return { inputs, fetchFn };
}

function clientOf(
  url: string,
  threadId: string,
  options: { tools?: FrontendTool[]; memory?: RunMemory; fetch?: typeof fetch } = {},
): AgentClient {
  const client = createAgentClient({
    url,
    threadId,
    memory: options.memory ?? null,
    tools: options.tools ?? [pickColour],
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  clients.push(client);
  return client;
}

/** Resolves with the first context for which `predicate` holds. */
function when(
  client: AgentClient,
  predicate: (context: AgentClientContext) => boolean,
): Promise<AgentClientContext> {
  return new Promise((resolve) => {
    const check = ({ context }: { context: AgentClientContext }) => {
      if (!predicate(context)) return;
      subscription.unsubscribe();
      resolve(context);
    };
    const subscription = client.subscribe(check);
    check(client.getSnapshot());
  });
}

const waitingForClient = (context: AgentClientContext) =>
  context.status === "waiting" && context.toolCalls.call_c?.status === "awaiting-client";
const finished = (context: AgentClientContext) =>
  context.status === "idle" &&
  context.toolCalls.call_c?.status !== undefined &&
  context.clientAnswers.length === 0 &&
  context.messages.at(-1)?.role === "assistant" &&
  context.awaitingClient.length === 0 &&
  context.toolCalls.call_c.status !== "awaiting-client";

/** A RunMemory in a Map (what localStorage is to a page). */
function memoryMap(): RunMemory & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

describe("frontend tools in the client store", () => {
  it("declares the page's tools, holds the call in awaiting-client, and answerTool continues the run to its end", async () => {
    const { url, agents } = await serve(colourScript);
    const { inputs, fetchFn } = recordingFetch();
    const client = clientOf(url, "cf1", { fetch: fetchFn });
    client.trigger.submit({ text: "Pick a colour for me" });
    const waiting = await when(client, waitingForClient);
    expect(inputs[0]?.tools).toEqual([pickColour]);
    expect(waiting.awaitingClient).toEqual([
      { toolCallId: "call_c", toolName: "pick_colour", args: { choices: ["teal", "plum"] } },
    ]);
    expect(waiting.toolCalls.call_c).toMatchObject({
      args: '{"choices":["teal","plum"]}',
      result: undefined,
    });

    client.trigger.answerTool({ toolCallId: "call_c", result: "teal" });
    const done = await when(client, finished);
    expect(inputs).toHaveLength(2);
    expect(inputs[1]?.tools).toEqual([pickColour]);
    expect(inputs[1]?.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "call_c", content: "teal" });
    expect(done.toolCalls.call_c).toMatchObject({ status: "done", result: "teal" });
    expect(done.messages.map((message) => [message.role, message.content])).toEqual([
      ["user", "Pick a colour for me"],
      ["assistant", "Let me ask."],
      ["tool", "teal"],
      ["assistant", "You picked teal."],
    ]);
    expect(texts(agents.get("cf1")!.state.messages)).toEqual([
      "Pick a colour for me",
      "Let me ask.[toolCall]",
      "teal",
      "You picked teal.",
    ]);
  });

  it("answers by itself with the tool's execute, once per call", async () => {
    const { url } = await serve(colourScript);
    const seen: unknown[] = [];
    const client = clientOf(url, "cf2", {
      tools: [
        {
          ...pickColour,
          execute: async (args) => {
            seen.push(args);
            return (args as { choices: string[] }).choices[1];
          },
        },
      ],
    });
    client.trigger.submit({ text: "Pick a colour for me" });
    const done = await when(client, finished);
    expect(seen).toEqual([{ choices: ["teal", "plum"] }]);
    expect(done.messages.at(-1)).toMatchObject({ role: "assistant", content: "You picked plum." });
  });

  it("an execute that throws answers with an error result the model sees", async () => {
    const { url } = await serve(colourScript);
    const client = clientOf(url, "cf3", {
      tools: [{ ...pickColour, execute: () => Promise.reject(new Error("no display")) }],
    });
    client.trigger.submit({ text: "Pick" });
    const done = await when(client, finished);
    expect(done.toolCalls.call_c).toMatchObject({ status: "error", result: "no display" });
    expect(done.messages.at(-1)).toMatchObject({ content: "You picked no display." });
  });

  it("after a reload, a new store for the thread sees the waiting call and answers it", async () => {
    const { url } = await serve(colourScript);
    const memory = memoryMap();
    const before = clientOf(url, "cf4", { memory });
    before.trigger.submit({ text: "Pick a colour for me" });
    await when(before, waitingForClient);
    before.close(); // the page goes away
    expect(memory.items.has("agentchart.run:cf4")).toBe(true);

    const after = clientOf(url, "cf4", { memory });
    const waiting = await when(after, waitingForClient);
    expect(waiting.awaitingClient.map((call) => call.toolCallId)).toEqual(["call_c"]);
    after.trigger.answerTool({ toolCallId: "call_c", result: "plum" });
    const done = await when(after, finished);
    expect(done.messages.map((message) => message.content)).toEqual([
      "Pick a colour for me",
      "Let me ask.",
      "plum",
      "You picked plum.",
    ]);
    expect(memory.items.has("agentchart.run:cf4")).toBe(false);
  });

  it("submit while a call waits answers it 'not answered' and sends the new message after the result", async () => {
    const { url, agents } = await serve(() => [
      colourScript()[0]!,
      (context) => ({ text: `Fine (${lastResult(context)}): ${texts(context.messages).at(-1)}` }),
    ]);
    const client = clientOf(url, "cf5");
    client.trigger.submit({ text: "Pick" });
    await when(client, waitingForClient);
    client.trigger.submit({ text: "Choose for me" });
    const done = await when(client, finished);
    expect(done.toolCalls.call_c).toMatchObject({ status: "error", result: NOT_ANSWERED_TEXT });
    expect(done.messages.map((message) => [message.role, message.content])).toEqual([
      ["user", "Pick"],
      ["assistant", "Let me ask."],
      ["tool", NOT_ANSWERED_TEXT],
      ["user", "Choose for me"],
      ["assistant", `Fine (${NOT_ANSWERED_TEXT}): Choose for me`],
    ]);
    expect(agents.get("cf5")!.state.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "user",
      "assistant",
    ]);
  });

  it("answerTool for a call that does not wait sets error and sends nothing", async () => {
    const { url } = await serve(colourScript);
    const { inputs, fetchFn } = recordingFetch();
    const client = clientOf(url, "cf6", { fetch: fetchFn });
    client.trigger.submit({ text: "Pick" });
    await when(client, waitingForClient);
    client.trigger.answerTool({ toolCallId: "call_nope", result: "?" });
    expect(client.getSnapshot().context).toMatchObject({
      error: 'No call "call_nope" waits for the client\'s answer',
      status: "waiting",
    });
    expect(inputs).toHaveLength(1);
  });
});
