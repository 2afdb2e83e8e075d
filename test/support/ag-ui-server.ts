import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import type { AgUiEvent, RunAgentInput } from "../../src/ag-ui/ag-ui-events.js";
import { createAgUiHandler, type FetchHandler } from "../../src/ag-ui/ag-ui-handler.js";
import { toNodeListener } from "../../src/ag-ui/node-listener.js";
import { Agent } from "../../src/agent/agent.js";
import { readSse } from "../../src/client/sse-reader.js";
import type { AddressedCommand } from "../../src/commands/addressed-command.js";
import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { testModel } from "./loop-harness.js";

/** A loopback HTTP server serving a fetch handler; `close()` ends it and its connections. */
export async function serveOnLoopback(
  handler: FetchHandler,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/agent`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A tool that needs approval and answers with its input reversed. */
export const reverseTool = defineTool({
  name: "reverse",
  description: "Reverses a text",
  parameters: z.object({ text: z.string() }),
  requiresApproval: true,
  execute: async ({ text }) => ({ content: [{ type: "text", text: [...text].reverse().join("") }] }),
});

/** A tool that runs without approval. */
export const upperTool = defineTool({
  name: "upper",
  description: "Upper-cases a text",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ content: [{ type: "text", text: text.toUpperCase() }] }),
});

/** A handler over one Agent per thread, each with its own scripted model made by `script(threadId)`. */
export function scriptedAgents(script: (threadId: string) => ScriptedTurn[]) {
  const agents = new Map<string, Agent>();
  const models = new Map<string, ReturnType<typeof scriptedModel>>();
  const handler = createAgUiHandler({
    agentFor: (threadId) => {
      const model = scriptedModel(script(threadId));
      const agent = new Agent({ model: testModel, streamFn: model, tools: [reverseTool, upperTool] });
      agents.set(threadId, agent);
      models.set(threadId, model);
      return agent;
    },
  });
  return { handler, agents, models };
}

/** A RunAgentInput with one user message. */
export function runInput(
  threadId: string,
  runId: string,
  text: string,
  extra: Partial<RunAgentInput> = {},
): RunAgentInput {
  return {
    threadId,
    runId,
    messages: [{ id: `u-${runId}`, role: "user", content: text }],
    tools: [],
    context: [],
    ...extra,
  };
}

/** Posts a run request and returns the response (status checked by the caller). */
export function postRun(
  url: string,
  input: RunAgentInput,
  options: { lastEventId?: number; signal?: AbortSignal } = {},
) {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...(options.lastEventId ? { "last-event-id": String(options.lastEventId) } : {}),
    },
    body: JSON.stringify(input),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** Reads a run's SSE events with their ids; `onEvent` may return true to stop reading there. */
export async function readRun(
  response: Response,
  // biome-ignore lint/suspicious/noConfusingVoidType: callbacks that return nothing keep reading
  onEvent: (event: AgUiEvent, id: number) => boolean | void = () => {},
): Promise<{ id: number; event: AgUiEvent }[]> {
  const events: { id: number; event: AgUiEvent }[] = [];
  if (!response.body) throw new Error(`No body (status ${response.status})`);
  for await (const message of readSse(response.body)) {
    const entry = { id: Number(message.id), event: JSON.parse(message.data) as AgUiEvent };
    events.push(entry);
    if (onEvent(entry.event, entry.id) === true) break;
  }
  return events;
}

/** Sends a command; resolves with the response. */
export function postCommand(
  url: string,
  threadId: string,
  command: AddressedCommand | Record<string, unknown>,
) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ threadId, command }),
  });
}
