import { fromPromise } from "xstate";
import type { ToolCallOutcome } from "../loop/agent-context.js";
import { checkBeforeToolCall, executeToolCall, finalizeToolCall } from "../loop/tool-call-steps.js";
import type { AssistantMessage, ToolCall } from "../types/messages.js";
import { agentContextOf, agentEmitter, runtimeOf } from "./agent-runtime.js";

/** Input of the tool step actors: the call's data (the runtime is found through the agent actor). */
export interface ToolStepInput {
  toolCall: ToolCall;
  assistantMessage: AssistantMessage;
  args: unknown;
  idempotencyKey: string;
}

/** Invoked while a call waits for `beforeToolCall`; output: the blocking outcome, if any. */
export const beforeToolCallActor = fromPromise<ToolCallOutcome | undefined, ToolStepInput>(
  ({ input, self, signal }) =>
    checkBeforeToolCall(
      { ...input, callbacks: runtimeOf(self).callbacks, context: agentContextOf(self) },
      signal,
    ),
);

/** Invoked in `executing`: runs the tool; its signal fires when the call is stopped (abort, skip). */
export const executeToolActor = fromPromise<ToolCallOutcome, ToolStepInput>(({ input, self, signal }) => {
  const runtime = runtimeOf(self);
  const emit = agentEmitter(self);
  const { toolCall, args } = input;
  return executeToolCall(
    {
      tool: runtime.tools.get(toolCall.name),
      toolCall,
      args,
      toolContext: runtime.callbacks.toolContext,
      idempotencyKey: input.idempotencyKey,
      onUpdate: (partialResult) =>
        emit({
          type: "tool_execution_update",
          toolCallId: toolCall.id,
          toolName: toolCall.name,
          args,
          partialResult,
        }),
    },
    signal,
  );
});

/** Invoked in `finalizing` when `afterToolCall` is set: applies it to the outcome. */
export const afterToolCallActor = fromPromise<ToolCallOutcome, ToolStepInput & { outcome: ToolCallOutcome }>(
  ({ input, self, signal }) =>
    finalizeToolCall(
      { ...input, callbacks: runtimeOf(self).callbacks, context: agentContextOf(self) },
      signal,
    ),
);
