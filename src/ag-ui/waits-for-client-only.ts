import type { AgentState } from "../agent/agent-state.js";

/**
 * Whether the agent's run can go on only once the client answers: a call waits for the client, none
 * waits for approval, and every call in progress is one of those waiting for the client. The AG-UI run
 * then ends (`RUN_FINISHED` naming the calls in `pendingToolCallIds`) while the agent's run waits.
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * if (waitsForClientOnly(agent.state)) console.log("the run goes on once the page answers");
 * ```
 */
export function waitsForClientOnly(state: AgentState): boolean {
  if (!state.isStreaming || state.awaitingClient.length === 0 || state.awaitingApproval.length > 0)
    return false;
  const waiting = new Set(state.awaitingClient.map((call) => call.toolCallId));
  for (const id of state.pendingToolCalls) if (!waiting.has(id)) return false;
  return true;
}
