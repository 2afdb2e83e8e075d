import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readSse, readSseChunks, type SseMessage } from "../../src/client/sse-reader.js";

/** A byte stream of `text` cut at the given byte offsets (a cut may fall inside a UTF-8 character). */
function streamOf(text: string, cuts: number[] = []): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const offset of [...offsets, bytes.length]) {
    if (offset > from) chunks.push(bytes.slice(from, offset));
    from = Math.max(from, offset);
  }
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function messagesOf(stream: ReadableStream<Uint8Array>): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of readSse(stream)) messages.push(message);
  return messages;
}

async function chunksOf(stream: ReadableStream<Uint8Array>): Promise<SseMessage[][]> {
  const chunks: SseMessage[][] = [];
  for await (const messages of readSseChunks(stream)) chunks.push(messages);
  return chunks;
}

describe("the SSE reader", () => {
  it("ends frames at \\n\\n, \\r\\n\\r\\n and \\r\\r; joins data lines; skips comments and other fields", async () => {
    const text =
      "id: 1\ndata: a\n\n" +
      ": a comment\r\nid: 2\r\ndata: b\r\ndata:c\r\n\r\n" +
      "event: x\rdata: d\r\r" +
      "retry: 5\n\n" +
      "data: cut";
    expect(await messagesOf(streamOf(text))).toEqual([
      { id: "1", data: "a" },
      { id: "2", data: "b\nc" },
      { id: undefined, data: "d" },
    ]);
  });

  it("hands over the messages a chunk completes at once, and nothing for a chunk that completes none", async () => {
    const text = "data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4";
    const firstThree = text.indexOf("data: 4");
    const chunks = await chunksOf(streamOf(`${text}\n\n`, [firstThree, firstThree + 3]));
    expect(chunks.map((messages) => messages.map((message) => message.data))).toEqual([
      ["1", "2", "3"],
      ["4"],
    ]);
  });

  it("finds a frame end cut between chunks", async () => {
    for (const [text, cut] of [
      ["data: a\r\n\r\ndata: b\n\n", 9],
      ["data: a\r\n\r\ndata: b\n\n", 10],
      ["data: a\r\n\r\ndata: b\n\n", 8],
      ["data: a\n\ndata: b\n\n", 8],
      ["data: a\r\rdata: b\n\n", 8],
    ] as const)
      expect((await messagesOf(streamOf(text, [cut]))).map((message) => message.data)).toEqual(["a", "b"]);
  });

  it("reads the same messages however the stream is cut into chunks", async () => {
    const line = fc.stringMatching(/^[a-z0-9 {}":,é漢]{0,12}$/);
    const frame = fc.record({
      id: fc.option(fc.nat({ max: 999 }), { nil: undefined }),
      data: fc.array(line, { minLength: 1, maxLength: 3 }),
      comment: fc.boolean(),
      end: fc.constantFrom("\n", "\r\n", "\r"),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(frame, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (frames, cuts) => {
          const text = frames
            .map(({ id, data, comment, end }) =>
              [
                ...(comment ? [": note"] : []),
                ...(id === undefined ? [] : [`id: ${id}`]),
                ...data.map((value) => `data: ${value}`),
                "",
                "",
              ].join(end),
            )
            .join("");
          const expected = frames.map(({ id, data }) => ({
            id: id === undefined ? undefined : String(id),
            data: data.join("\n"),
          }));
          expect(await messagesOf(streamOf(text, cuts))).toEqual(expected);
          expect((await chunksOf(streamOf(text, cuts))).flat()).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
