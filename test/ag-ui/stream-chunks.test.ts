import { describe, expect, it } from "vitest";
import type { AgUiEvent } from "../../src/ag-ui/ag-ui-events.js";
import { readSseChunks } from "../../src/client/sse-reader.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import { runInput, scriptedAgents } from "../support/ag-ui-server.js";

/** The run's response body as the handler hands it over: each chunk's events, in order. */
async function chunksOfRun(reply: ScriptedReply): Promise<AgUiEvent[][]> {
  const { handler } = scriptedAgents(() => [reply]);
  const response = await handler(
    new Request("http://agent.test/agent", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(runInput("t1", "r1", "Go")),
    }),
  );
  const chunks: AgUiEvent[][] = [];
  // The body's own chunks (no socket between): readSseChunks gives one array per chunk.
  for await (const messages of readSseChunks(response.body as ReadableStream<Uint8Array>))
    chunks.push(messages.map((message) => JSON.parse(message.data) as AgUiEvent));
  return chunks;
}

describe("the endpoint's event stream", () => {
  it("sends the frames of a burst as one chunk: whole frames, every id once, in order", async () => {
    const chunks = await chunksOfRun({ text: "abcdefghijklmnopqrst", deltas: 20 });
    const events = chunks.flat();
    const deltas = events.filter((event) => event.type === "TEXT_MESSAGE_CONTENT");
    expect(deltas.map((event) => (event as { delta: string }).delta).join("")).toBe("abcdefghijklmnopqrst");
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");
    expect(chunks.length).toBeLessThan(events.length);
  });

  it("does not hold a frame back for the next one: a delta the model paces goes out before the next", async () => {
    const chunks = await chunksOfRun({ text: "abc", deltas: 3, delayMs: 20 });
    const deltasPerChunk = chunks
      .map((events) => events.filter((event) => event.type === "TEXT_MESSAGE_CONTENT").length)
      .filter((count) => count > 0);
    expect(deltasPerChunk).toEqual([1, 1, 1]);
  });
});
