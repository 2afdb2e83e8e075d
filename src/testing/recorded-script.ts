import { contentText } from "../loop/messages.js";
import type { ScriptedReply } from "../providers/scripted/scripted-reply.js";
import type { Recording } from "../replay/recording.js";

/**
 * A recorded run's model as a script for `createAgentTestModel`: the top-level agent's replies in
 * order, each as its text, thinking and tool calls (with their recorded ids). Failed replies are left
 * out — the kit explores a model error at every reply by itself — and so are sub-agents' replies.
 *
 * Contract: pure; never throws.
 *
 * @example
 * ```ts
 * import { createAgentTestModel } from "agentchart/testing";
 * const model = createAgentTestModel({ agent: { tools }, script: scriptFromRecording(recording) });
 * ```
 */
export function scriptFromRecording(recording: Recording): ScriptedReply[] {
  const script: ScriptedReply[] = [];
  for (const call of recording.modelCalls) {
    const reply = call.reply;
    if (call.agentPath.length > 0 || !reply || reply.stopReason === "error" || reply.stopReason === "aborted")
      continue;
    const text = contentText(reply.content);
    const thinking = reply.content.flatMap((block) => (block.type === "thinking" ? [block.thinking] : []));
    const toolCalls = reply.content.flatMap((block) =>
      block.type === "toolCall" ? [{ id: block.id, name: block.name, arguments: block.arguments }] : [],
    );
    script.push({
      ...(thinking.length > 0 ? { thinking: thinking.join("\n") } : {}),
      ...(text !== "" || toolCalls.length === 0 ? { text } : {}),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    });
  }
  return script;
}
