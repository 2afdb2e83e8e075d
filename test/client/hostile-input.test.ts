import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgUiEvent } from "../../src/ag-ui/ag-ui-events.js";
import { type AgentClient, createAgentClient, type RunMemory } from "../../src/client/agent-client.js";
import {
  type AgentClientContext,
  applyAgUiEvent,
  initialClientContext,
} from "../../src/client/agent-client-state.js";

/** A fetch whose every answer is a 200 event stream with `body`; counts the requests. */
function answering(body: string): typeof fetch & { calls: number } {
  const fake = Object.assign(
    async () => {
      fake.calls++;
      return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
    },
    { calls: 0 },
  );
  return fake as unknown as typeof fetch & { calls: number };
}

/** A memory holding `entries`, recording what is removed. */
function memoryOf(entries: Record<string, string>): RunMemory & { removed: string[] } {
  const store = new Map(Object.entries(entries));
  const removed: string[] = [];
  return {
    removed,
    getItem: (key) => store.get(key) ?? null,
    setItem: (key, value) => void store.set(key, value),
    removeItem: (key) => {
      removed.push(key);
      store.delete(key);
    },
  };
}

/** Resolves with the context once the store's status is "error". */
function failed(client: AgentClient): Promise<AgentClientContext> {
  return new Promise((resolve) => {
    const subscription = client.subscribe(({ context }) => {
      if (context.status !== "error") return;
      subscription.unsubscribe();
      resolve(context);
    });
  });
}

describe("the client store against a stream it cannot read", () => {
  it("gives up with status error after maxReconnectAttempts on frames that are not AG-UI events", async () => {
    const fetchFn = answering("data: <html><body>502 Bad Gateway</body></html>\n\n");
    const memory = memoryOf({});
    const client = createAgentClient({
      url: "http://agent.test/agent",
      threadId: "t1",
      fetch: fetchFn,
      memory,
      maxRetryDelayMs: 1,
      maxReconnectAttempts: 3,
    });
    const ended = failed(client);
    client.trigger.submit({ text: "Hello" });
    const context = await ended;
    expect(context.error).toContain("not an AG-UI event: <html><body>502 Bad Gateway</body></html>");
    expect(context.error).toContain("gave up after 3 reconnection attempts");
    expect(fetchFn.calls).toBe(4);
    expect(memory.getItem("agentchart.run:t1")).toBeNull();
    client.close();
  });

  it("gives up the same way on a page that is no event stream at all, and on JSON that is no event", async () => {
    for (const body of ["<html>Gateway timeout</html>", 'data: {"no":"type"}\n\n', "data: null\n\n"]) {
      const fetchFn = answering(body);
      const client = createAgentClient({
        url: "http://agent.test/agent",
        threadId: "t1",
        fetch: fetchFn,
        memory: null,
        maxRetryDelayMs: 1,
        maxReconnectAttempts: 2,
      });
      const ended = failed(client);
      client.trigger.submit({ text: "Hello" });
      expect((await ended).error).toContain("gave up after 2 reconnection attempts");
      expect(fetchFn.calls).toBe(3);
      client.close();
    }
  });
});

describe("the client store's remembered run", () => {
  it("ignores and forgets a corrupt, null or foreign remembered run instead of throwing or retrying", () => {
    for (const saved of [
      "{not json",
      "null",
      "42",
      JSON.stringify({ threadId: "another", runId: "r1", messages: [] }),
      JSON.stringify({ threadId: "t1", runId: 7, messages: [] }),
    ]) {
      const fetchFn = answering("");
      const memory = memoryOf({ "agentchart.run:t1": saved });
      const client = createAgentClient({
        url: "http://agent.test/agent",
        threadId: "t1",
        fetch: fetchFn,
        memory,
      });
      expect(client.getSnapshot().context.status).toBe("idle");
      expect(memory.removed).toEqual(["agentchart.run:t1"]);
      expect(fetchFn.calls).toBe(0);
      client.close();
    }
  });
});

describe("applyAgUiEvent", () => {
  const TYPES = [
    "RUN_STARTED",
    "RUN_FINISHED",
    "RUN_ERROR",
    "MESSAGES_SNAPSHOT",
    "STATE_SNAPSHOT",
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "REASONING_MESSAGE_START",
    "TOOL_CALL_START",
    "TOOL_CALL_ARGS",
    "TOOL_CALL_END",
    "TOOL_CALL_RESULT",
    "SUBAGENT_STARTED",
    "SUBAGENT_FINISHED",
    "CUSTOM",
  ];

  it("never throws, whatever fields an event has", () => {
    const event = fc.record(
      {
        type: fc.constantFrom(...TYPES),
        messages: fc.anything(),
        snapshot: fc.anything(),
        outcome: fc.anything(),
        toolCallId: fc.anything(),
        messageId: fc.anything(),
        delta: fc.anything(),
        value: fc.anything(),
        subagentRunId: fc.anything(),
        metadata: fc.anything(),
      },
      { requiredKeys: ["type"] },
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 6 }), (events) => {
        let context = initialClientContext("t1");
        for (const next of events) context = applyAgUiEvent(context, next as unknown as AgUiEvent);
      }),
      { numRuns: 300 },
    );
    for (const broken of [null, undefined, 7, "RUN_STARTED", { type: "MESSAGES_SNAPSHOT", messages: [null] }])
      expect(applyAgUiEvent(initialClientContext("t1"), broken as unknown as AgUiEvent)).toEqual(
        initialClientContext("t1"),
      );
  });
});
