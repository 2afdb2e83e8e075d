import { errorText } from "../types/error-text.js";
import type { AgentTool } from "../types/tool.js";
import type { Recording } from "./recording.js";
import type { RecordedToolCall } from "./recording-format.js";

// The tool each recorded one wraps (an agent's tools may be handed to its sub-agents).
const unrecorded = new WeakMap<AgentTool, AgentTool>();

/**
 * `tool`, recording each execution's arguments and result (or the message of the error it threw)
 * into `recording` as a call of the agent at `agentPath`. Agent tools and client tools are returned
 * as they are: their calls are a child agent's run or a client's answer (a command), recorded as such.
 *
 * Contract: synchronous; never throws; the execution's result or error reaches the caller unchanged.
 *
 * ```ts
 * import { defineTool } from "agentchart";
 * import { z } from "zod";
 * const clock = defineTool({
 *   name: "clock", description: "The time", parameters: z.object({}),
 *   execute: async () => ({ content: [{ type: "text", text: new Date().toISOString() }] }),
 * });
 * const tools = [clock].map((tool) => recordedTool(tool, recording, []));
 * ```
 */
export function recordedTool(tool: AgentTool, recording: Recording, agentPath: readonly string[]): AgentTool {
  const inner = unrecorded.get(tool) ?? tool;
  if (inner.subAgent || inner.client) return inner;
  const recorded: AgentTool = {
    ...inner,
    execute: async (args, ctx) => {
      const call: RecordedToolCall = {
        kind: "tool_call",
        agentPath: [...agentPath],
        toolCallId: ctx.toolCallId,
        toolName: inner.name,
        args,
      };
      recording.add(call);
      try {
        call.result = await inner.execute(args, ctx);
        return call.result;
      } catch (error) {
        call.error = errorText(error);
        throw error;
      }
    },
  };
  unrecorded.set(recorded, inner);
  return recorded;
}
