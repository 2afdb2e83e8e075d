import type { ScriptedReply } from "../../src/testing.js";
import type { LlmContext } from "../../src/types/stream.js";

/**
 * A reply that depends only on the transcript (so a worker that takes a session over answers as the
 * first one would have): a user message "<tool> <target>" calls that tool (`effect`, `guarded` or
 * `slow`) with id `call-1`; a tool result is answered "done: <result>"; anything else is echoed.
 */
export function transcriptReply(context: LlmContext): ScriptedReply {
  const last = context.messages.at(-1);
  if (last?.role === "toolResult") {
    const text = last.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    return { text: `done: ${text}` };
  }
  const said =
    last?.role === "user"
      ? typeof last.content === "string"
        ? last.content
        : last.content.map((block) => (block.type === "text" ? block.text : "")).join("")
      : "";
  const [tool, target] = said.split(" ");
  if (tool === "effect" || tool === "guarded" || tool === "slow") {
    return { toolCalls: [{ id: "call-1", name: tool, arguments: { target: target ?? "" } }] };
  }
  return { text: `echo: ${said}` };
}
