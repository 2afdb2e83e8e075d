/** One Server-Sent Event: its id (when the server gave one) and its data lines joined. */
export interface SseMessage {
  id: string | undefined;
  data: string;
}

/**
 * Reads Server-Sent Events from a byte stream (a `fetch` response body): frames end at a blank line
 * ("\n\n", "\r\n\r\n" or "\r\r"), `data:` lines are joined with "\n", `id:` sets the id, comments and
 * other fields are skipped. Works in browsers and Node (Web streams only).
 *
 * Contract: async iterator; rejects with the stream's error (e.g. an aborted fetch); a last frame
 * without its blank line is dropped (it may be cut).
 *
 * ```ts
 * const response = await fetch("/agent", { method: "POST", body: "{…}" });
 * for await (const message of readSse(response.body!)) console.log(message.id, JSON.parse(message.data));
 * ```
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  for await (const messages of readSseChunks(body)) yield* messages;
}

/**
 * Reads Server-Sent Events as {@link readSse} does, handing over the messages completed by each chunk
 * of the stream at once (a chunk that completes none gives nothing): for a reader that handles a
 * burst of events without a turn of the event loop per event.
 *
 * Contract: as {@link readSse}'s; the messages, flattened, are exactly those `readSse` yields, in order,
 * however the stream is cut into chunks.
 *
 * ```ts
 * const response = await fetch("/agent", { method: "POST", body: "{…}" });
 * for await (const messages of readSseChunks(response.body!)) for (const message of messages) console.log(message.data);
 * ```
 */
export async function* readSseChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      // A frame end is at most 4 characters long: the ones ending in the new text start at most 3 before it.
      const searchFrom = Math.max(0, buffer.length - 3);
      buffer += decoder.decode(value, { stream: true });
      const { messages, rest } = completeFrames(buffer, searchFrom);
      buffer = rest;
      if (messages.length > 0) yield messages;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * The messages of the complete frames of `buffer` and the text after the last one (an incomplete
 * frame). No frame end lies before `searchFrom` (that text was searched already).
 */
function completeFrames(buffer: string, searchFrom: number): { messages: SseMessage[]; rest: string } {
  const messages: SseMessage[] = [];
  const frameEnd = /\r\n\r\n|\n\n|\r\r/g;
  frameEnd.lastIndex = searchFrom;
  let start = 0;
  for (let end = frameEnd.exec(buffer); end; end = frameEnd.exec(buffer)) {
    const message = parseFrame(buffer.slice(start, end.index));
    if (message) messages.push(message);
    start = frameEnd.lastIndex;
  }
  return { messages, rest: start === 0 ? buffer : buffer.slice(start) };
}

function parseFrame(frame: string): SseMessage | undefined {
  let id: string | undefined;
  const data: string[] = [];
  for (const line of frame.split(frame.includes("\r") ? /\r\n|\n|\r/ : "\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  return data.length > 0 ? { id, data: data.length === 1 ? data[0]! : data.join("\n") } : undefined;
}
