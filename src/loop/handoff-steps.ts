import type { AgentMachineContext } from "../machines/agent/agent.context.js";
import type { AgentMessage, ToolResultMessage } from "../types/messages.js";
import type { HandoffRecord } from "../types/tool.js";
import type { StepResult } from "./run-steps.js";

/**
 * After a tool batch settled: the first successful handoff call (source order) makes its agent
 * active — system prompt, tools and model from the handoff's record, `activeAgent` set, a `handoff`
 * event. A batch without one leaves the context as it is.
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * const { context, events } = applyHandoff(agent.actor.getSnapshot().context);
 * events; // [{ type: "handoff", from, to }] or []
 * ```
 */
export function applyHandoff(context: AgentMachineContext): StepResult {
  const batch = context.run?.batch;
  for (const call of batch?.calls ?? []) {
    const outcome = batch!.outcomes[call.id];
    const record = (outcome?.result.details as { handoff?: HandoffRecord } | undefined)?.handoff;
    if (!outcome || outcome.isError || !isHandoffRecord(record)) continue;
    return {
      context: {
        ...context,
        systemPrompt: record.systemPrompt,
        toolNames: [...record.toolNames],
        ...(record.model ? { model: record.model } : {}),
        activeAgent: record.agent,
      },
      events: [{ type: "handoff", from: context.activeAgent, to: record.agent }],
    };
  }
  return { context, events: [] };
}

/**
 * The handoff a transcript ends up with: the one `applyHandoff` applied last — in the last tool batch
 * that has a successful handoff, its first in source order. `undefined` when no handoff succeeded.
 *
 * Contract: pure; never throws; reads the tool results' `details.handoff` records.
 *
 * ```ts
 * activeHandoffOf(session.buildContext().messages)?.agent; // e.g. "billing"
 * ```
 */
export function activeHandoffOf(messages: readonly AgentMessage[]): HandoffRecord | undefined {
  for (let end = messages.length - 1; end >= 0; end--) {
    if (handoffIn(messages[end]!) === undefined) continue;
    // The batch's results follow its assistant message in source order: its first handoff applied.
    let start = end;
    while (start > 0 && (messages[start - 1] as { role?: string }).role === "toolResult") start--;
    for (let index = start; index <= end; index++) {
      const record = handoffIn(messages[index]!);
      if (record) return record;
    }
  }
  return undefined;
}

/** A successful handoff's record in a tool result message, if it is one. */
function handoffIn(message: AgentMessage): HandoffRecord | undefined {
  const result = message as Partial<ToolResultMessage>;
  if (result.role !== "toolResult" || result.isError) return undefined;
  const record = (result.details as { handoff?: unknown } | undefined)?.handoff;
  return isHandoffRecord(record) ? record : undefined;
}

function isHandoffRecord(value: unknown): value is HandoffRecord {
  const record = value as Partial<HandoffRecord> | undefined;
  return (
    typeof record?.agent === "string" &&
    typeof record.systemPrompt === "string" &&
    Array.isArray(record.toolNames)
  );
}
