import type { StreamReplyInput } from "../actors/stream-reply.actor.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { BetweenTurnsDecision, BetweenTurnsInput } from "./between-turns.js";
import type { AgentLoopContext, AgentLoopInput } from "./loop-context.js";
import { errorText, failedAssistantMessage } from "./messages.js";
import {
  ABORTED_CALL_TEXT,
  batchTerminates,
  createToolBatch,
  DUPLICATE_ID_CALL_TEXT,
  duplicateCallId,
  FAILED_REPLY_CALL_TEXT,
  isBatchSettled,
  nextBatchStep,
  SKIPPED_CALL_TEXT,
  settle,
  TRUNCATED_CALL_TEXT,
  takeResultMessages,
  unsettledCalls,
} from "./tool-batch.js";
import { errorOutcome, type ToolCallInput, type ToolCallOutcome } from "./tool-call-steps.js";

// The steps the loop machine's actions perform. Each takes the run's context and emits AgentEvents
// through its sink in the order ARCHITECTURE.md §4 prescribes.

export function createLoopContext(input: AgentLoopInput): AgentLoopContext {
  const controller = new AbortController();
  const listener = input.sink;
  return {
    config: input.config,
    // A throwing listener must not break the statechart: report it and go on.
    sink: (event) => {
      try {
        listener(event);
      } catch (error) {
        console.error(`agentchart: an AgentEvent listener threw while handling "${event.type}":`, error);
      }
    },
    controller,
    model: input.config.model,
    thinkingLevel: input.config.thinkingLevel ?? "off",
    context: input.appendInPlace
      ? input.context
      : { ...input.context, messages: [...input.context.messages] },
    prompts: input.prompts,
    newMessages: [],
    pending: [],
    turns: 0,
    turnOpen: false,
    batch: undefined,
    lastTurn: undefined,
    toolsWantReply: false,
  };
}

function appendMessage(ctx: AgentLoopContext, message: AgentMessage, emitStart = true): void {
  if (emitStart) ctx.sink({ type: "message_start", message });
  ctx.context.messages.push(message);
  ctx.newMessages.push(message);
  ctx.sink({ type: "message_end", message });
}

function openTurn(ctx: AgentLoopContext): void {
  if (ctx.turnOpen) return;
  ctx.turnOpen = true;
  ctx.sink({ type: "turn_start" });
}

export function beginRun(ctx: AgentLoopContext): void {
  ctx.sink({ type: "agent_start" });
  openTurn(ctx);
  for (const prompt of ctx.prompts) appendMessage(ctx, prompt);
}

export function endRun(ctx: AgentLoopContext): void {
  if (ctx.pending.length > 0) {
    ctx.config.restoreQueuedMessages?.("steering", ctx.pending);
    ctx.pending = [];
  }
  ctx.sink({ type: "agent_end", messages: ctx.newMessages });
}

/**
 * Ends the run's current turn with a failure message. An abort between turns (no turn open) adds
 * nothing: the last turn already ended cleanly.
 */
export function failTurn(ctx: AgentLoopContext, reason: "error" | "aborted", text: string): void {
  if (reason === "aborted" && !ctx.turnOpen) return;
  openTurn(ctx);
  const message = failedAssistantMessage(ctx.model, reason, text);
  appendMessage(ctx, message);
  ctx.turnOpen = false;
  ctx.sink({ type: "turn_end", message, toolResults: [] });
}

export function callbackErrorText(error: unknown): string {
  return `Agent loop callback failed: ${errorText(error)}`;
}

export function betweenTurnsInput(ctx: AgentLoopContext): BetweenTurnsInput {
  // A copy: the run keeps its pending messages until a decision to stream delivers them, so an abort
  // or a failing callback meanwhile still hands them back to their queue (endRun).
  const pending = [...ctx.pending];
  return {
    config: ctx.config,
    signal: ctx.controller.signal,
    turnEnd: ctx.lastTurn && { ...ctx.lastTurn, context: ctx.context, newMessages: ctx.newMessages },
    toolsWantReply: ctx.toolsWantReply,
    pending,
    turnsDone: ctx.turns,
  };
}

/**
 * A decision that arrives after the run ended (an abort landed while it was on its way): what it drained
 * from a queue goes back there. The run's held messages were already returned by `endRun`.
 */
export function returnUndelivered(
  ctx: AgentLoopContext,
  input: BetweenTurnsInput,
  decision: BetweenTurnsDecision,
): void {
  if (decision.next !== "stream") return;
  const drained = decision.pending.filter((message) => !input.pending.includes(message));
  if (drained.length > 0) ctx.config.restoreQueuedMessages?.(decision.from, drained);
}

export function applyUpdate(ctx: AgentLoopContext, decision: BetweenTurnsDecision): void {
  const update = decision.update;
  if (!update) return;
  if (update.context) {
    const sameHistory = update.context.messages === ctx.context.messages;
    ctx.context = {
      ...update.context,
      messages: sameHistory ? ctx.context.messages : [...update.context.messages],
    };
  }
  if (update.model) ctx.model = update.model;
  if (update.thinkingLevel) ctx.thinkingLevel = update.thinkingLevel;
}

export function startNextTurn(ctx: AgentLoopContext, decision: BetweenTurnsDecision): void {
  openTurn(ctx);
  if (decision.next !== "stream") return;
  for (const message of decision.pending) appendMessage(ctx, message);
  ctx.pending = ctx.pending.filter((message) => !decision.pending.includes(message));
}

export function streamReplyInput(ctx: AgentLoopContext): StreamReplyInput & { controller: AbortController } {
  return {
    config: ctx.config,
    model: ctx.model,
    thinkingLevel: ctx.thinkingLevel,
    context: ctx.context,
    signal: ctx.controller.signal,
    controller: ctx.controller,
    sink: ctx.sink,
  };
}

/**
 * Records the finished reply; a reply with tool calls opens a tool batch. Calls that will never run
 * (truncated, part of a failed or aborted reply, or sharing an id) are settled at once with an error
 * result.
 */
export function recordReply(ctx: AgentLoopContext, message: AssistantMessage, started: boolean): void {
  appendMessage(ctx, message, !started);
  ctx.turns++;
  ctx.batch = undefined;
  const batch = createToolBatch(message, ctx.context.tools, ctx.config.toolExecution);
  if (batch.calls.length === 0) return;
  ctx.batch = batch;
  const reason = message.stopReason;
  const duplicateId = duplicateCallId(batch);
  const runnable = reason !== "length" && reason !== "error" && reason !== "aborted";
  if (runnable && duplicateId === undefined) return;
  for (const call of batch.calls) {
    startToolCall(ctx, call.id, call.name, call.arguments);
    const text =
      reason === "length"
        ? TRUNCATED_CALL_TEXT(call.name)
        : reason === "aborted"
          ? ABORTED_CALL_TEXT
          : reason === "error"
            ? FAILED_REPLY_CALL_TEXT
            : DUPLICATE_ID_CALL_TEXT(duplicateId!);
    endToolCall(ctx, errorOutcome(call, text));
  }
}

export function closeTurn(ctx: AgentLoopContext): void {
  const message = ctx.newMessages.findLast(
    (m): m is AssistantMessage => (m as AssistantMessage).role === "assistant",
  );
  if (!message) return;
  const toolResults = ctx.batch?.results ?? [];
  ctx.turnOpen = false;
  ctx.sink({ type: "turn_end", message, toolResults });
  ctx.lastTurn = { message, toolResults };
  const batch = ctx.batch;
  ctx.toolsWantReply = batch !== undefined && !batchTerminates(batch);
  ctx.batch = undefined;
}

function startToolCall(ctx: AgentLoopContext, toolCallId: string, toolName: string, args: unknown): void {
  ctx.sink({ type: "tool_execution_start", toolCallId, toolName, args });
}

function endToolCall(ctx: AgentLoopContext, outcome: ToolCallOutcome): void {
  const batch = ctx.batch!;
  settle(batch, outcome);
  ctx.sink({
    type: "tool_execution_end",
    toolCallId: outcome.toolCall.id,
    toolName: outcome.toolCall.name,
    result: outcome.result,
    isError: outcome.isError,
  });
  if (batch.sequential) for (const message of takeResultMessages(batch)) appendMessage(ctx, message);
}

export type ToolBatchCommand =
  | { kind: "spawn"; id: string; input: ToolCallInput }
  | { kind: "execute"; id: string };

/** Moves the batch forward: spawns the next preflight, or releases prepared calls for execution. */
export function advanceToolBatch(ctx: AgentLoopContext): ToolBatchCommand[] {
  const batch = ctx.batch;
  if (!batch) return [];
  const step = nextBatchStep(batch);
  if (step.kind === "wait") return [];
  if (step.kind === "execute") {
    for (const id of step.ids) batch.phases.set(id, "executing");
    return step.ids.map((id) => ({ kind: "execute", id }));
  }
  const call = step.call;
  batch.phases.set(call.id, "preparing");
  // Steering between tools may skip one call while others go on, so each call then gets its own
  // signal; otherwise the run's signal serves every call (AbortControllers are not free).
  let signal = ctx.controller.signal;
  if (ctx.config.steering === "betweenTools") {
    const controller = new AbortController();
    batch.controllers.set(call.id, controller);
    signal.addEventListener("abort", () => controller.abort(), { once: true });
    signal = controller.signal;
  }
  startToolCall(ctx, call.id, call.name, call.arguments);
  const input: ToolCallInput = {
    toolCall: call,
    tool: ctx.context.tools.find((tool) => tool.name === call.name),
    assistantMessage: batch.message,
    context: ctx.context,
    config: ctx.config,
    sink: ctx.sink,
    signal,
  };
  return [{ kind: "spawn", id: call.id, input }];
}

/** Whether the call has a running child actor (spawned and not yet settled). */
export function hasToolCallChild(ctx: AgentLoopContext, toolCallId: string): boolean {
  const phase = ctx.batch?.phases.get(toolCallId);
  return phase !== undefined && phase !== "pending" && phase !== "settled";
}

export function markPrepared(ctx: AgentLoopContext, toolCallId: string): void {
  if (ctx.batch?.phases.get(toolCallId) === "preparing") ctx.batch.phases.set(toolCallId, "prepared");
}

/** Records a settled call; true when steering should be polled now (policy `betweenTools`). */
export function recordToolOutcome(ctx: AgentLoopContext, outcome: ToolCallOutcome): boolean {
  const batch = ctx.batch;
  const phase = batch?.phases.get(outcome.toolCall.id);
  if (!batch || phase === undefined || phase === "settled") return false;
  endToolCall(ctx, outcome);
  return ctx.config.steering === "betweenTools" && !isBatchSettled(batch);
}

export function crashedToolOutcome(
  ctx: AgentLoopContext,
  toolCallId: string,
  error: unknown,
): ToolCallOutcome {
  const call = ctx.batch?.calls.find((c) => c.id === toolCallId);
  return errorOutcome(
    call ?? { type: "toolCall", id: toolCallId, name: "unknown", arguments: {} },
    errorText(error),
  );
}

/** Polls the steering queue after a settled tool; a non-empty answer is delivered as an event. */
export function pollSteeringBetweenTools(
  ctx: AgentLoopContext,
  deliver: (messages: AgentMessage[]) => void,
): void {
  const accept = (messages: AgentMessage[] | undefined) => {
    if (messages && messages.length > 0) deliver(messages);
  };
  try {
    const polled = ctx.config.getSteeringMessages?.();
    if (polled instanceof Promise) polled.then(accept, () => undefined);
    else accept(polled);
  } catch {
    // A throwing queue callback is reported by the poll after the turn, which ends the run.
  }
}

function settleRemaining(ctx: AgentLoopContext, text: string): string[] {
  const batch = ctx.batch;
  if (!batch) return [];
  const running: string[] = [];
  for (const call of unsettledCalls(batch)) {
    if ((batch.phases.get(call.id) ?? "pending") === "pending")
      startToolCall(ctx, call.id, call.name, call.arguments);
    else {
      batch.controllers.get(call.id)?.abort();
      running.push(call.id);
    }
    endToolCall(ctx, errorOutcome(call, text));
  }
  return running;
}

/** Steering arrived between tools: every unsettled call is skipped. Returns the children to stop. */
export function skipRemainingTools(ctx: AgentLoopContext, messages: AgentMessage[]): string[] {
  ctx.pending.push(...messages);
  return settleRemaining(ctx, SKIPPED_CALL_TEXT);
}

/** Abort: every unsettled call gets an "aborted" result. Returns the children to stop. */
export function abortToolBatch(ctx: AgentLoopContext): string[] {
  return settleRemaining(ctx, ABORTED_CALL_TEXT);
}

/** Emits the remaining tool result messages in source order. */
export function finishToolBatch(ctx: AgentLoopContext): void {
  if (ctx.batch) for (const message of takeResultMessages(ctx.batch)) appendMessage(ctx, message);
}

/** Steering that arrived outside a tool batch waits for the next turn. */
export function keepPending(ctx: AgentLoopContext, messages: AgentMessage[]): void {
  ctx.pending.push(...messages);
}
