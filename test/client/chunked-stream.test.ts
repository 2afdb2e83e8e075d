import { describe, expect, it } from "vitest";
import type { AgUiEvent } from "../../src/ag-ui/ag-ui-events.js";
import { createAgentClient } from "../../src/client/agent-client.js";

/** A fetch answering every run with `events` as one SSE body (one chunk). */
function answeringInOneChunk(events: AgUiEvent[]): typeof fetch {
  const body = events.map((event, index) => `id: ${index + 1}\ndata: ${JSON.stringify(event)}\n\n`).join("");
  return (async () =>
    new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } })) as typeof fetch;
}

const run: AgUiEvent[] = [
  { type: "RUN_STARTED", threadId: "t1", runId: "r1" },
  { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "a" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "b" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "c" },
  { type: "TEXT_MESSAGE_END", messageId: "m1" },
  { type: "RUN_FINISHED", threadId: "t1", runId: "r1" },
];

describe("the client store reading a chunk of many events", () => {
  it("applies each event as its own update: every partial text and event id is seen", async () => {
    const client = createAgentClient({
      url: "http://agent.test/agent",
      threadId: "t1",
      memory: null,
      fetch: answeringInOneChunk(run),
    });
    const partials: string[] = [];
    const ids: number[] = [];
    const finished = new Promise<void>((resolve) => {
      client.subscribe(({ context }) => {
        if (ids.at(-1) !== context.lastEventId) ids.push(context.lastEventId);
        if (context.streaming) partials.push(context.streaming.content ?? "");
        if (context.runId && context.status === "idle") resolve();
      });
    });
    client.trigger.submit({ text: "Go" });
    await finished;
    expect(partials).toEqual(["", "a", "ab", "abc"]);
    expect(ids).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(client.getSnapshot().context.messages.at(-1)).toMatchObject({ id: "m1", content: "abc" });
    client.close();
  });

  it("applies nothing of the chunk after close(), even events already read", async () => {
    const client = createAgentClient({
      url: "http://agent.test/agent",
      threadId: "t1",
      memory: null,
      fetch: answeringInOneChunk(run),
    });
    const closed = new Promise<number>((resolve) => {
      client.subscribe(({ context }) => {
        if (context.streaming?.content !== "a") return;
        client.close();
        resolve(context.lastEventId);
      });
    });
    client.trigger.submit({ text: "Go" });
    const closedAt = await closed;
    // The rest of the chunk was read in the same turn as the update that closed the client.
    expect(closedAt).toBe(3);
    expect(client.getSnapshot().context).toMatchObject({ lastEventId: 3, status: "running" });
    expect(client.getSnapshot().context.streaming?.content).toBe("a");
  });
});
