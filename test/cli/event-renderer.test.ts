import { describe, expect, it } from "vitest";
import { EventRenderer } from "../../src/cli/event-renderer.js";
import { terminalStyle } from "../../src/cli/terminal-style.js";
import type { ScriptedReply } from "../../src/testing.js";
import { scriptedModel } from "../../src/testing.js";
import type { AssistantMessageEvent } from "../../src/types/stream.js";
import { collectEvents } from "../support/collect-events.js";
import { testModel } from "../support/loop-harness.js";

const CLEAR_LINE = "\r\x1b[2K";

/**
 * Streams `reply` from the scripted model into a renderer, as `message_update`s and a `message_end`;
 * `abortAtDelta` aborts the reply at that `toolcall_delta` (1-based).
 */
async function render(reply: ScriptedReply, isTTY: boolean, abortAtDelta?: number): Promise<string[]> {
  const writes: string[] = [];
  const renderer = new EventRenderer(
    { write: (text: string) => writes.push(text), isTTY },
    terminalStyle({}),
  );
  const controller = new AbortController();
  let deltas = 0;
  const update = (event: AssistantMessageEvent) => {
    if (event.type === "done" || event.type === "error") return;
    renderer.render({ type: "message_update", message: event.partial, assistantMessageEvent: event });
    if (event.type === "toolcall_delta" && ++deltas === abortAtDelta) controller.abort();
  };
  const stream = scriptedModel([reply])(
    testModel,
    { systemPrompt: "", messages: [], tools: [] },
    { signal: controller.signal },
  );
  const { message } = await collectEvents(stream, update);
  renderer.render({ type: "message_end", message });
  renderer.dispose();
  return writes;
}

describe("event renderer: streaming tool-call arguments", () => {
  it("redraws one line with the arguments parsed so far on a terminal, and clears it when the call ends", async () => {
    const writes = await render(
      {
        text: "Reading.",
        toolCalls: [{ name: "read", arguments: { path: "src/main.ts", limit: 20 } }],
        deltas: 4,
      },
      true,
    );
    // '{"path":"src/main.ts","limit":20}' arrives in four pieces of 9 characters.
    expect(writes).toEqual([
      "Re",
      "ad",
      "in",
      "g.",
      "\n",
      `${CLEAR_LINE}⚙ read {"path":""}`,
      `${CLEAR_LINE}⚙ read {"path":"src/main."}`,
      `${CLEAR_LINE}⚙ read {"path":"src/main.ts"}`,
      `${CLEAR_LINE}⚙ read {"path":"src/main.ts","limit":20}`,
      CLEAR_LINE,
    ]);
  });

  it("stops redrawing (and parsing) once the line is full", async () => {
    const content = "word ".repeat(400);
    const writes = await render(
      { toolCalls: [{ name: "write", arguments: { path: "a.txt", content } }] },
      true,
    );
    const lines = writes.filter((text) => text.startsWith(`${CLEAR_LINE}⚙`));
    const last = lines.at(-1)!;
    expect(last.endsWith("…")).toBe(true);
    expect(last.length).toBe(`${CLEAR_LINE}⚙ write `.length + 80);
    // The arguments text has ~2,000 characters in ~500 deltas; the line stops changing at 80.
    expect(lines.length).toBeLessThan(30);
    expect(writes.at(-1)).toBe(CLEAR_LINE);
  });

  it("keeps the line of a reply aborted mid-call, and draws nothing when not on a terminal", async () => {
    const aborted = await render(
      { toolCalls: [{ name: "read", arguments: { path: "src/main.ts" } }], deltas: 4 },
      true,
      2,
    );
    // '{"path":"src/main.ts"}' in pieces of 6 characters: aborted after '{"path' and '":"src'.
    expect(aborted).toEqual([
      `${CLEAR_LINE}⚙ read {}`,
      `${CLEAR_LINE}⚙ read {"path":"src"}`,
      "\n",
      "(aborted)\n",
    ]);

    const piped = await render({ toolCalls: [{ name: "read", arguments: { path: "src/main.ts" } }] }, false);
    expect(piped).toEqual([]);
  });
});
