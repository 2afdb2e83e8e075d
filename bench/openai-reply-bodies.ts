// The Chat Completions replies the provider benches stream from a loopback server (openai.bench.ts,
// ai-sdk.bench.ts): the same bytes, so their per-delta figures compare.
import { chunk, usageChunk } from "../test/support/openai-fixtures.js";
import { sseBody } from "../test/support/openai-server.js";

/** A text reply of `chunks` deltas (`tok0 tok1 …`), then its stop and usage. */
export function textReplyBody(chunks: number): string {
  const body: unknown[] = [chunk({ role: "assistant", content: "" })];
  for (let i = 0; i < chunks; i++) body.push(chunk({ content: `tok${i % 97} ` }));
  body.push(chunk({}, "stop"), usageChunk(1000, chunks));
  return sseBody(body);
}

/** One `write` call: `{"path":"notes.txt","content":"tok1 tok2 …"}`, one argument delta per chunk. */
export function writeCallReplyBody(chunks: number): string {
  const call = (fields: Record<string, unknown>) => chunk({ tool_calls: [{ index: 0, ...fields }] });
  const body: unknown[] = [
    chunk({ role: "assistant", content: null }),
    call({ id: "call_w", type: "function", function: { name: "write", arguments: "" } }),
  ];
  const pieces = ['{"path":"notes.txt","content":"'];
  for (let i = 1; i < chunks - 1; i++) pieces.push(`tok${i % 97} `);
  pieces.push('"}');
  for (const piece of pieces) body.push(call({ function: { arguments: piece } }));
  body.push(chunk({}, "tool_calls"), usageChunk(1000, chunks));
  return sseBody(body);
}
