import type { AgUiEvent } from "./ag-ui-events.js";

/**
 * One event as a Server-Sent Events frame: `id: <id>`, one `data:` line of JSON, a blank line. The
 * separator is "\n\n" (the official `@ag-ui/client` splits on it only, not on "\r\n\r\n").
 *
 * Contract: pure, synchronous; throws only for a value JSON cannot encode (a BigInt, a cycle).
 *
 * ```ts
 * sseFrame(3, { type: "TEXT_MESSAGE_END", messageId: "m1" }); // 'id: 3\ndata: {...}\n\n'
 * ```
 */
export function sseFrame(id: number, event: AgUiEvent): string {
  return `id: ${id}\ndata: ${JSON.stringify(event)}\n\n`;
}
