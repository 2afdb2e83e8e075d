import { type AnyActorRef, fromPromise } from "xstate";
import type { ToolCallOutcome } from "../loop/agent-context.js";
import {
  checkBeforeToolCall,
  executeToolCall,
  finalizeToolCall,
  requiresApprovalOf,
  validateToolCall,
} from "../loop/tool-call-steps.js";
import { errorOutcome } from "../loop/tool-outcome.js";
import { errorText } from "../types/error-text.js";
import type { AssistantMessage, ToolCall } from "../types/messages.js";
import type { AgentTool } from "../types/tool.js";
import { fromPromiseUntilStopped } from "../xstate/promise-logic.js";
import { agentContextOf, agentEmitter, runtimeOf } from "./agent-runtime.js";

/** Input of the tool step actors: the call's data (the runtime is found through the agent actor). */
export interface ToolStepInput {
  toolCall: ToolCall;
  assistantMessage: AssistantMessage;
  args: unknown;
  idempotencyKey: string;
}

/**
 * The entry action of `preparing.validating` (a custom action, so user code runs outside the pure
 * transition): finds the tool, runs `prepareArguments`, the zod schema and `requiresApproval`, and
 * sends the call's actor `VALIDATED` (with what the guards of the next states need) or `REJECTED` (an
 * error outcome), which it processes after the current macrostep — as the reply of an invoked actor
 * would be, without an actor per call.
 *
 * Contract: synchronous; never throws (a throwing user function is a rejection).
 *
 * ```ts
 * validating: { entry: ({ context, self }) => validateCall(self, context.toolCall) }
 * ```
 */
export function validateCall(self: AnyActorRef, toolCall: ToolCall): void {
  const runtime = runtimeOf(self);
  const tool = runtime.tools.get(toolCall.name);
  const validated = validateToolCall(toolCall, tool);
  if (!validated.ok) {
    self.send({ type: "REJECTED", outcome: validated.outcome });
    return;
  }
  const approval = approvalOf(tool, toolCall, validated.args);
  if (approval.outcome) {
    self.send({ type: "REJECTED", outcome: approval.outcome });
    return;
  }
  self.send({
    type: "VALIDATED",
    args: validated.args,
    needsApproval: approval.needsApproval,
    beforeHook: runtime.callbacks.beforeToolCall !== undefined,
    afterHook: runtime.callbacks.afterToolCall !== undefined,
    client: tool?.client === true,
    agentTool: tool?.subAgent !== undefined,
  });
}

/**
 * Invoked while a call waits for `beforeToolCall`; output: the blocking outcome, if any, and whether
 * the call needs approval given the arguments the hook left.
 */
export const beforeToolCallActor = fromPromise<
  { outcome: ToolCallOutcome | undefined; needsApproval: boolean },
  ToolStepInput
>(async ({ input, self, signal }) => {
  const runtime = runtimeOf(self);
  const outcome = await checkBeforeToolCall(
    { ...input, callbacks: runtime.callbacks, context: agentContextOf(self) },
    signal,
  );
  if (outcome) return { outcome, needsApproval: false };
  return approvalOf(runtime.tools.get(input.toolCall.name), input.toolCall, input.args);
});

/** Whether the call waits for approval; a throwing `requiresApproval` is the call's error outcome. */
function approvalOf(
  tool: AgentTool | undefined,
  toolCall: ToolCall,
  args: unknown,
): { outcome: ToolCallOutcome | undefined; needsApproval: boolean } {
  try {
    return { outcome: undefined, needsApproval: requiresApprovalOf(tool, args) };
  } catch (error) {
    const text = `requiresApproval of tool "${toolCall.name}" failed: ${errorText(error)}`;
    return { outcome: errorOutcome(toolCall, text), needsApproval: false };
  }
}

/**
 * Invoked in `executing`: runs the tool; its signal fires when the call is stopped (abort, skip), and
 * is made only if the tool (or its progress) looks at it.
 */
export const executeToolActor = fromPromiseUntilStopped<ToolCallOutcome, ToolStepInput>(
  ({ input, self, stopSignal }) => {
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
      stopSignal,
    );
  },
);

/** Invoked in `finalizing`: applies `afterToolCall` (if it is still set) to the outcome. */
export const afterToolCallActor = fromPromise<ToolCallOutcome, ToolStepInput & { outcome: ToolCallOutcome }>(
  ({ input, self, signal }) =>
    finalizeToolCall(
      { ...input, callbacks: runtimeOf(self).callbacks, context: agentContextOf(self) },
      signal,
    ),
);
