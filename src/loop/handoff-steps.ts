import type { AgentMachineContext } from "../machines/agent/agent.context.js";
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
 * const { context, events } = applyHandoff(context); // events: [{ type: "handoff", from, to }] or []
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

function isHandoffRecord(value: unknown): value is HandoffRecord {
  const record = value as Partial<HandoffRecord> | undefined;
  return (
    typeof record?.agent === "string" &&
    typeof record.systemPrompt === "string" &&
    Array.isArray(record.toolNames)
  );
}
