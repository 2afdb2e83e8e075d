import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { AgUiEvent } from "./ag-ui-events.js";

/**
 * The last event of a run: `RUN_FINISHED` with the `pendingToolCallIds` of a run that ended waiting
 * for the client's answers; `RUN_ERROR` when the run failed (`error`) or its last reply is a model
 * error; else `RUN_FINISHED` (outcome `cancelled` for an aborted reply, `success` otherwise).
 *
 * Contract: pure, synchronous, never throws.
 *
 * ```ts
 * runOutcomeEvent({ threadId: "t", runId: "r", messages: agent.state.messages }); // { type: "RUN_FINISHED", … }
 * ```
 */
export function runOutcomeEvent(run: {
  threadId: string;
  runId: string;
  messages: readonly AgentMessage[];
  error?: unknown;
  /** Calls of client tools the run waits for (it parked until the client answers). */
  pendingToolCallIds?: string[];
}): AgUiEvent {
  const { error, pendingToolCallIds } = run;
  if (pendingToolCallIds)
    return {
      type: "RUN_FINISHED",
      threadId: run.threadId,
      runId: run.runId,
      outcome: { type: "success", pendingToolCallIds },
    };
  if (error !== undefined)
    return {
      type: "RUN_ERROR",
      message: error instanceof Error ? error.message : String(error),
      ...(typeof (error as { code?: unknown })?.code === "string"
        ? { code: (error as { code: string }).code }
        : {}),
    };
  const last = run.messages.findLast((message) => (message as { role?: string }).role === "assistant") as
    | AssistantMessage
    | undefined;
  if (last?.stopReason === "error")
    return {
      type: "RUN_ERROR",
      message: last.errorMessage ?? "The model request failed",
      code: "model_error",
    };
  return {
    type: "RUN_FINISHED",
    threadId: run.threadId,
    runId: run.runId,
    outcome: { type: last?.stopReason === "aborted" ? "cancelled" : "success" },
  };
}
