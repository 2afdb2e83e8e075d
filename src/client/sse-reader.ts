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
 * for await (const message of readSse(response.body)) console.log(message.id, JSON.parse(message.data));
 * ```
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = frameEnd(buffer);
      while (end) {
        const message = parseFrame(buffer.slice(0, end.at));
        buffer = buffer.slice(end.at + end.length);
        if (message) yield message;
        end = frameEnd(buffer);
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function frameEnd(buffer: string): { at: number; length: number } | undefined {
  const match = /\r\n\r\n|\n\n|\r\r/.exec(buffer);
  return match ? { at: match.index, length: match[0].length } : undefined;
}

function parseFrame(frame: string): SseMessage | undefined {
  let id: string | undefined;
  const data: string[] = [];
  for (const line of frame.split(/\r\n|\n|\r/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  return data.length > 0 ? { id, data: data.join("\n") } : undefined;
}
