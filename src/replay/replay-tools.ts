import type { AgentTool, ToolResult } from "../types/tool.js";
import { canonicalJson } from "./canonical-request.js";
import type { Recording } from "./recording.js";
import type { RecordedToolCall } from "./recording-format.js";
import { type ReplayDivergence, ReplayDivergenceError } from "./replay-divergence-error.js";

/**
 * How replayed tools answer: from the recording, with no side effects (`"recorded"`); by running
 * (`"live"`); by running and comparing the result with the recorded one (`"verify"`).
 */
export type ReplayToolMode = "recorded" | "live" | "verify";

/** Options of `replayTools`. */
export interface ReplayToolsOptions {
  /**
   * Receives each divergence (a call the recording does not hold, other arguments, a `"verify"` result
   * that differs). Without it a divergence fails the call with the `ReplayDivergenceError`; with it a
   * `"verify"` call keeps its live result.
   */
  onDivergence?: (error: ReplayDivergenceError) => void;
}

/**
 * `tools` (same names, descriptions and schemas) whose executions answer from `recording` by tool call
 * id: the recorded result, or the recorded error thrown again (`mode` `"recorded"`, the default); or
 * that run live (`"live"`), or run live and compare the result with the recorded one (`"verify"`).
 * A call the recording does not hold, or holds with other arguments, is a divergence. The tools of an
 * agent tool's child agents and of a handoff's target answer the same way, at any depth; client tools
 * are returned as they are (a client answers their calls).
 *
 * Contract: synchronous; never throws; the tools' executions throw `ReplayDivergenceError` as above.
 *
 * ```ts
 * import { Agent, defineTool } from "agentchart";
 * import { replayModel } from "agentchart/testing";
 * import { z } from "zod";
 * const clock = defineTool({
 *   name: "clock", description: "The time", parameters: z.object({}),
 *   execute: async () => ({ content: [{ type: "text", text: new Date().toISOString() }] }),
 * });
 * const agent = new Agent({ model, streamFn: replayModel(recording), tools: replayTools(recording, [clock], "verify") });
 * ```
 */
export function replayTools(
  recording: Recording,
  tools: readonly AgentTool[],
  mode: ReplayToolMode = "recorded",
  options: ReplayToolsOptions = {},
): AgentTool[] {
  const recorded = new Map<string, { call: RecordedToolCall; step: number }[]>();
  recording.entries.forEach((entry, step) => {
    if (entry.kind !== "tool_call") return;
    recorded.set(entry.toolCallId, [...(recorded.get(entry.toolCallId) ?? []), { call: entry, step }]);
  });
  const diverge = (divergence: ReplayDivergence) => {
    const error = new ReplayDivergenceError(divergence);
    if (!options.onDivergence) throw error;
    options.onDivergence(error);
  };
  // Handoffs may lead back to an agent met before: each tool is replayed once.
  const replayedTools = new Map<AgentTool, AgentTool>();
  const replay = (tool: AgentTool): AgentTool => {
    if (tool.client || mode === "live") return tool;
    const known = replayedTools.get(tool);
    if (known) return known;
    const subAgent = tool.subAgent;
    if (subAgent)
      return {
        ...tool,
        subAgent: {
          ...subAgent,
          agent: (args) => {
            const spec = subAgent.agent(args) as { tools?: AgentTool[] };
            return spec.tools ? { ...spec, tools: spec.tools.map(replay) } : spec;
          },
        },
      };
    const handoff = tool.handoff;
    const replayed: AgentTool = {
      ...tool,
      execute: async (args, ctx) => {
        const queue = recorded.get(ctx.toolCallId);
        const found = queue?.findIndex((item) => item.call.toolName === tool.name) ?? -1;
        const match = found >= 0 ? queue!.splice(found, 1)[0]! : undefined;
        if (!match) {
          const error = new ReplayDivergenceError({
            what: "tool_call",
            step: recording.entries.length,
            agentPath: [],
            differences: [`the recording holds no call "${ctx.toolCallId}" of the tool "${tool.name}"`],
            expected: undefined,
            actual: args,
          });
          options.onDivergence?.(error);
          throw error;
        }
        const { call, step } = match;
        if (canonicalJson(call.args) !== canonicalJson(args))
          diverge({
            what: "tool_call",
            step,
            agentPath: call.agentPath,
            differences: argumentDifferences(call.args, args),
            expected: call.args,
            actual: args,
          });
        if (mode === "verify") {
          const result = await tool.execute(args, ctx);
          if (canonicalJson(result) !== canonicalJson(call.result ?? { error: call.error }))
            diverge({
              what: "tool_result",
              step,
              agentPath: call.agentPath,
              differences: [
                `the result of "${tool.name}" call "${call.toolCallId}" differs from the recorded one`,
              ],
              expected: call.result ?? { error: call.error },
              actual: result,
            });
          return result;
        }
        if (call.error !== undefined) throw new Error(call.error);
        if (!call.result)
          throw new Error(`The recording ends during the call "${call.toolCallId}" of "${tool.name}"`);
        return structuredClone(call.result) as ToolResult;
      },
    };
    replayedTools.set(tool, replayed);
    if (handoff) replayed.handoff = { ...handoff, tools: handoff.tools.map(replay) };
    return replayed;
  };
  return tools.map(replay);
}

/** Each argument whose value differs, as `argument "city": "Paris" → "Lyon"`. */
function argumentDifferences(expected: unknown, actual: unknown): string[] {
  const recorded = (expected ?? {}) as Record<string, unknown>;
  const now = (actual ?? {}) as Record<string, unknown>;
  const keys = new Set([...Object.keys(recorded), ...Object.keys(now)]);
  return [...keys]
    .filter((key) => canonicalJson(recorded[key]) !== canonicalJson(now[key]))
    .map(
      (key) =>
        `argument "${key}": ${JSON.stringify(recorded[key]) ?? "(none)"} → ${JSON.stringify(now[key]) ?? "(none)"}`,
    );
}
