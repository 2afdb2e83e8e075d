import type {
  AfterToolCallResult,
  AgentContext,
  AgentEventSink,
  AgentLoopConfig,
  BeforeToolCallResult,
} from "../types/loop.js";
import type { AssistantMessage, ToolCall } from "../types/messages.js";
import type { AgentTool, ToolResult } from "../types/tool.js";
import { invalidArgumentsText } from "./invalid-arguments.js";
import { type MaybeAsyncSteps, runMaybeAsync } from "./maybe-async.js";
import { errorText, errorToolResult } from "./messages.js";

/** Everything a tool call child needs; fixed when the child is spawned. */
export interface ToolCallInput {
  toolCall: ToolCall;
  tool: AgentTool | undefined;
  assistantMessage: AssistantMessage;
  context: AgentContext;
  config: Pick<AgentLoopConfig, "beforeToolCall" | "afterToolCall" | "toolContext">;
  sink: AgentEventSink;
  /** This call's signal; the loop aborts it on abort, or when steering skips the call. */
  signal: AbortSignal;
}

/** How a tool call ended. */
export interface ToolCallOutcome {
  toolCall: ToolCall;
  result: ToolResult;
  isError: boolean;
}

export type PreflightOutput =
  | { ok: true; args: unknown; needsApproval: boolean }
  | { ok: false; outcome: ToolCallOutcome };

/** The outcome of a call that failed or never ran: an error result made of `text`. */
export function errorOutcome(toolCall: ToolCall, text: string): ToolCallOutcome {
  return { toolCall, result: errorToolResult(text), isError: true };
}

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

/**
 * Preflight of one call: find the tool → arguments the model sent as invalid JSON →
 * `prepareArguments` → zod validation → `beforeToolCall`.
 * Synchronous unless `beforeToolCall` returns a promise. Never throws or rejects: every failure is an
 * error outcome.
 */
export function preflightToolCall(
  input: ToolCallInput,
  signal: AbortSignal,
): PreflightOutput | Promise<PreflightOutput> {
  const { toolCall } = input;
  try {
    const result = runMaybeAsync(preflightSteps(input, signal));
    return result instanceof Promise
      ? result.catch((error: unknown) => ({ ok: false, outcome: errorOutcome(toolCall, errorText(error)) }))
      : result;
  } catch (error) {
    return { ok: false, outcome: errorOutcome(toolCall, errorText(error)) };
  }
}

function* preflightSteps(input: ToolCallInput, signal: AbortSignal): MaybeAsyncSteps<PreflightOutput> {
  const { toolCall, tool, config } = input;
  if (!tool) return { ok: false, outcome: errorOutcome(toolCall, `Tool ${toolCall.name} not found`) };
  const invalidArguments = invalidArgumentsText(toolCall);
  if (invalidArguments !== undefined) return { ok: false, outcome: errorOutcome(toolCall, invalidArguments) };
  const raw = tool.prepareArguments ? tool.prepareArguments(toolCall.arguments) : toolCall.arguments;
  const parsed = tool.parameters.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      outcome: errorOutcome(toolCall, validationErrorText(tool.name, parsed.error.issues, raw)),
    };
  }
  const hookContext = {
    assistantMessage: input.assistantMessage,
    toolCall,
    args: parsed.data,
    context: input.context,
  };
  const verdict = (config.beforeToolCall ? yield config.beforeToolCall(hookContext, signal) : undefined) as
    | BeforeToolCallResult
    | undefined;
  if (signal.aborted) return { ok: false, outcome: errorOutcome(toolCall, "Operation aborted") };
  if (verdict?.block)
    return { ok: false, outcome: errorOutcome(toolCall, verdict.reason ?? "Tool execution was blocked") };
  const { requiresApproval } = tool;
  const needsApproval =
    typeof requiresApproval === "function" ? requiresApproval(hookContext.args) : requiresApproval === true;
  return { ok: true, args: hookContext.args, needsApproval };
}

/**
 * Runs the tool. Progress updates go straight to the sink until the tool settles (later ones are
 * ignored). A throw becomes an error outcome.
 */
export async function executeToolCall(
  input: ToolCallInput & { args: unknown },
  signal: AbortSignal,
): Promise<ToolCallOutcome> {
  const { toolCall, tool, sink, args } = input;
  let settled = false;
  const update = (partialResult: unknown) => {
    if (settled || signal.aborted) return;
    sink({
      type: "tool_execution_update",
      toolCallId: toolCall.id,
      toolName: toolCall.name,
      args,
      partialResult,
    });
  };
  try {
    if (!tool) throw new Error(`Tool ${toolCall.name} not found`);
    const result = await tool.execute(args, {
      toolCallId: toolCall.id,
      signal,
      update,
      context: input.config.toolContext,
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

/**
 * Applies `afterToolCall`: returned fields replace the result's. Synchronous unless the hook returns a
 * promise. Never throws or rejects: a throwing hook becomes an error outcome.
 */
export function finalizeToolCall(
  input: ToolCallInput & { args: unknown; outcome: ToolCallOutcome },
  signal: AbortSignal,
): ToolCallOutcome | Promise<ToolCallOutcome> {
  const { outcome, config } = input;
  if (!config.afterToolCall) return outcome;
  const fail = (error: unknown) => errorOutcome(input.toolCall, `afterToolCall failed: ${errorText(error)}`);
  try {
    const patch = config.afterToolCall(
      {
        assistantMessage: input.assistantMessage,
        toolCall: input.toolCall,
        args: input.args,
        context: input.context,
        result: outcome.result,
        isError: outcome.isError,
      },
      signal,
    );
    return patch instanceof Promise
      ? patch.then((p) => applyPatch(outcome, p), fail)
      : applyPatch(outcome, patch);
  } catch (error) {
    return fail(error);
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
