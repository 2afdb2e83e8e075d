import { type AnyActorRef, type EventObject, fromCallback, fromPromise } from "xstate";
import { invalidArgumentsText } from "../loop/invalid-arguments.js";
import { errorOutcome } from "../loop/tool-outcome.js";
import type { ToolCallOutcome } from "../machines/agent/agent.context.js";
import { type AgentImplementations, callbackContextOf } from "../machines/agent/agent.implementations.js";
import type { CallingAgent } from "../machines/tool-call/tool-call.context.js";
import type { ExecutionEvent } from "../machines/tool-call/tool-call.events.js";
import { errorText } from "../types/error-text.js";
import type {
  AfterToolCallResult,
  AgentCallbacks,
  AgentContext,
  BeforeToolCallResult,
} from "../types/loop.js";
import type { AssistantMessage, ToolCall } from "../types/messages.js";
import type { AgentTool, ToolResult } from "../types/tool.js";

/** Input of the tool step actors: the call's data and what its hooks see of its agent. */
export interface ToolStepInput {
  toolCall: ToolCall;
  assistantMessage: AssistantMessage;
  args: unknown;
  idempotencyKey: string;
  agent: CallingAgent;
}

/**
 * The entry action of `preparing.validating` (provided by `createAgentMachine`; a custom action, so user
 * code runs outside the pure transition): finds the tool, runs `prepareArguments`, the zod schema and
 * `requiresApproval`, and sends the call's actor `VALIDATED` (with what the guards of the next states
 * need) or `REJECTED` (an error outcome), which it processes after the current macrostep — as the reply
 * of an invoked actor would be, without an actor per call.
 *
 * Contract: synchronous; never throws (a throwing user function is a rejection).
 *
 * ```ts
 * import { toolCallMachine } from "agentchart/machines";
 * declare const implementations: Parameters<typeof validateCall>[0];
 * const machine = toolCallMachine.provide({
 *   actions: { validate: ({ context, self }) => validateCall(implementations, self, context.toolCall) },
 * });
 * ```
 */
export function validateCall(
  implementations: AgentImplementations,
  self: AnyActorRef,
  toolCall: ToolCall,
): void {
  const validated = validateToolCall(toolCall, implementations.tools.get(toolCall.name));
  if (!validated.ok) {
    self.send({ type: "REJECTED", outcome: validated.outcome });
    return;
  }
  const { tool } = validated;
  const approval = approvalOf(tool, toolCall, validated.args);
  if (approval.outcome) {
    self.send({ type: "REJECTED", outcome: approval.outcome });
    return;
  }
  self.send({
    type: "VALIDATED",
    args: validated.args,
    needsApproval: approval.needsApproval,
    beforeHook: implementations.callbacks.beforeToolCall !== undefined,
    afterHook: implementations.callbacks.afterToolCall !== undefined,
    client: tool.client === true,
    agentTool: tool.subAgent !== undefined,
  });
}

/**
 * Invoked while a call waits for `beforeToolCall`; output: the blocking outcome, if any, and whether
 * the call needs approval given the arguments the hook left.
 */
export function beforeToolCallActor(implementations: AgentImplementations) {
  return fromPromise<{ outcome: ToolCallOutcome | undefined; needsApproval: boolean }, ToolStepInput>(
    async ({ input, signal }) => {
      const outcome = await checkBeforeToolCall(hookInput(implementations, input), signal);
      if (outcome) return { outcome, needsApproval: false };
      return approvalOf(implementations.tools.get(input.toolCall.name), input.toolCall, input.args);
    },
  );
}

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
 * Invoked in `executing`: runs the tool and sends its call `TOOL_PROGRESS` for each update and
 * `TOOL_EXECUTED` with the outcome. The tool's signal is the actor's own, aborted when the call is
 * stopped (abort, skip), and made only if the tool (or its progress) looks at it.
 */
export function executeToolActor(implementations: AgentImplementations) {
  return fromCallback<EventObject, ToolStepInput>(({ input, sendBack }) => {
    let controller: AbortController | undefined;
    let stopped = false;
    const signalOf = () => {
      if (!controller) {
        controller = new AbortController();
        if (stopped) controller.abort();
      }
      return controller.signal;
    };
    const { toolCall, args } = input;
    executeToolCall(
      {
        tool: implementations.tools.get(toolCall.name),
        toolCall,
        args,
        toolContext: implementations.callbacks.toolContext,
        idempotencyKey: input.idempotencyKey,
        onUpdate: (partialResult) =>
          sendBack({ type: "TOOL_PROGRESS", partialResult } satisfies ExecutionEvent),
      },
      signalOf,
    ).then((outcome) => sendBack({ type: "TOOL_EXECUTED", outcome } satisfies ExecutionEvent));
    return () => {
      stopped = true;
      controller?.abort();
    };
  });
}

/** Invoked in `finalizing`: applies `afterToolCall` (if it is still set) to the outcome. */
export function afterToolCallActor(implementations: AgentImplementations) {
  return fromPromise<ToolCallOutcome, ToolStepInput & { outcome: ToolCallOutcome }>(({ input, signal }) =>
    finalizeToolCall({ ...hookInput(implementations, input), outcome: input.outcome }, signal),
  );
}

/** What a call's hooks see: the callbacks, the call, its agent's context (and its path, for a sub-agent). */
function hookInput(implementations: AgentImplementations, input: ToolStepInput): ToolHookInput {
  const { agent } = input;
  return {
    callbacks: implementations.callbacks,
    toolCall: input.toolCall,
    assistantMessage: input.assistantMessage,
    args: input.args,
    context: callbackContextOf(implementations, agent),
    ...(agent.path.length > 0 ? { agentPath: agent.path } : {}),
  };
}

// The user code of a tool call's steps, which the actors above run: validation (`prepareArguments`, the
// zod schema), `requiresApproval`, the before hook, `execute`, the after hook.

/** The validation error text: each zod issue with its path, then the received arguments. */
export function validationErrorText(
  toolName: string,
  issues: { path: PropertyKey[]; message: string }[],
  args: unknown,
) {
  const lines = issues.map(
    (issue) => `  - ${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`,
  );
  let received: string;
  try {
    received = JSON.stringify(args, null, 2) ?? String(args);
  } catch {
    received = String(args);
  }
  return `Validation failed for tool "${toolName}":\n${lines.join("\n")}\n\nReceived arguments:\n${received}`;
}

/** What the preflight found: the tool and the arguments it runs with, or the call's error outcome. */
export type ValidationOutput =
  | { ok: true; args: unknown; tool: AgentTool }
  | { ok: false; outcome: ToolCallOutcome };

/**
 * The synchronous part of a call's preflight: find the tool → arguments the model sent as invalid JSON →
 * `prepareArguments` → zod validation.
 * Never throws: every failure is an error outcome.
 */
export function validateToolCall(toolCall: ToolCall, tool: AgentTool | undefined): ValidationOutput {
  try {
    if (!tool) return { ok: false, outcome: errorOutcome(toolCall, `Tool ${toolCall.name} not found`) };
    const invalidArguments = invalidArgumentsText(toolCall);
    if (invalidArguments !== undefined)
      return { ok: false, outcome: errorOutcome(toolCall, invalidArguments) };
    const raw = tool.prepareArguments ? tool.prepareArguments(toolCall.arguments) : toolCall.arguments;
    const parsed = tool.parameters.safeParse(raw);
    if (!parsed.success)
      return {
        ok: false,
        outcome: errorOutcome(toolCall, validationErrorText(tool.name, parsed.error.issues, raw)),
      };
    return { ok: true, args: parsed.data, tool };
  } catch (error) {
    return { ok: false, outcome: errorOutcome(toolCall, errorText(error)) };
  }
}

/** Whether a call of `tool` with the validated `args` waits for approval. Throws when `requiresApproval` throws. */
export function requiresApprovalOf(tool: AgentTool | undefined, args: unknown): boolean {
  const requiresApproval = tool?.requiresApproval;
  return typeof requiresApproval === "function" ? requiresApproval(args) === true : requiresApproval === true;
}

/** What a tool call's hooks see besides its result. */
export interface ToolHookInput {
  callbacks: AgentCallbacks;
  toolCall: ToolCall;
  assistantMessage: AssistantMessage;
  args: unknown;
  context: AgentContext;
  agentPath?: readonly string[];
}

/** Runs `beforeToolCall`; a block (or a throw, or an abort meanwhile) becomes the call's error outcome. */
export async function checkBeforeToolCall(
  input: ToolHookInput,
  signal: AbortSignal,
): Promise<ToolCallOutcome | undefined> {
  const { toolCall } = input;
  try {
    const verdict = (await input.callbacks.beforeToolCall?.(
      {
        assistantMessage: input.assistantMessage,
        toolCall,
        args: input.args,
        context: input.context,
        ...(input.agentPath ? { agentPath: input.agentPath } : {}),
      },
      signal,
    )) as BeforeToolCallResult | undefined;
    if (signal.aborted) return errorOutcome(toolCall, "Operation aborted");
    if (verdict?.block) return errorOutcome(toolCall, verdict.reason ?? "Tool execution was blocked");
    return undefined;
  } catch (error) {
    return errorOutcome(toolCall, errorText(error));
  }
}

/** What a tool's `execute` needs. */
export interface ExecuteInput {
  tool: AgentTool | undefined;
  toolCall: ToolCall;
  args: unknown;
  toolContext: unknown;
  idempotencyKey: string;
  /** Progress of the call (`tool_execution_update`). */
  onUpdate: (partialResult: unknown) => void;
}

/**
 * Runs the tool. Updates after it settled (or after the call's signal fired) are ignored. A throw
 * becomes an error outcome. `signalOf` gives the call's signal: it is asked for only when the tool
 * reads `signal` or sends an update (making one costs microseconds; most tools never look).
 */
export async function executeToolCall(
  input: ExecuteInput,
  signalOf: () => AbortSignal,
): Promise<ToolCallOutcome> {
  const { toolCall, tool, args } = input;
  let settled = false;
  const update = (partialResult: unknown) => {
    if (!settled && !signalOf().aborted) input.onUpdate(partialResult);
  };
  try {
    if (!tool) throw new Error(`Tool ${toolCall.name} not found`);
    const result = await tool.execute(args, {
      toolCallId: toolCall.id,
      get signal() {
        return signalOf();
      },
      update,
      context: input.toolContext,
      idempotencyKey: input.idempotencyKey,
    });
    if (typeof result !== "object" || result === null)
      throw new Error(`Tool ${toolCall.name} returned no result`);
    return { toolCall, result: { ...result, content: result.content ?? [] }, isError: false };
  } catch (error) {
    return errorOutcome(toolCall, errorText(error));
  } finally {
    settled = true;
  }
}

/** Applies `afterToolCall`: returned fields replace the result's. A throwing hook becomes an error outcome. */
export async function finalizeToolCall(
  input: ToolHookInput & { outcome: ToolCallOutcome },
  signal: AbortSignal,
): Promise<ToolCallOutcome> {
  const { outcome } = input;
  try {
    const patch = await input.callbacks.afterToolCall?.(
      {
        assistantMessage: input.assistantMessage,
        toolCall: input.toolCall,
        args: input.args,
        context: input.context,
        ...(input.agentPath ? { agentPath: input.agentPath } : {}),
        result: outcome.result,
        isError: outcome.isError,
      },
      signal,
    );
    return applyPatch(outcome, patch);
  } catch (error) {
    return errorOutcome(input.toolCall, `afterToolCall failed: ${errorText(error)}`);
  }
}

function applyPatch(outcome: ToolCallOutcome, patch: AfterToolCallResult | undefined): ToolCallOutcome {
  if (!patch) return outcome;
  const result: ToolResult = { ...outcome.result };
  if (patch.content !== undefined) result.content = patch.content;
  if (patch.details !== undefined) result.details = patch.details;
  if (patch.terminate !== undefined) result.terminate = patch.terminate;
  return { toolCall: outcome.toolCall, result, isError: patch.isError ?? outcome.isError };
}
