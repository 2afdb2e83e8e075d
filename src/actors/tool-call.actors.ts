import { fromPromise } from "xstate";
import { errorText, errorToolResult } from "../loop/messages.js";
import type { AgentContext, AgentEventSink, AgentLoopConfig } from "../types/loop.js";
import type { AssistantMessage, ToolCall } from "../types/messages.js";
import type { AgentTool, ToolResult } from "../types/tool.js";

/** Everything a tool call child needs; fixed when the child is spawned. */
export interface ToolCallInput {
  toolCall: ToolCall;
  tool: AgentTool | undefined;
  assistantMessage: AssistantMessage;
  context: AgentContext;
  config: Pick<AgentLoopConfig, "beforeToolCall" | "afterToolCall" | "toolContext">;
  sink: AgentEventSink;
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

const failed = (toolCall: ToolCall, text: string): ToolCallOutcome => ({
  toolCall,
  result: errorToolResult(text),
  isError: true,
});

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
 * Preflight of one call: find the tool → `prepareArguments` → zod validation → `beforeToolCall`.
 * Never rejects: every failure is an error outcome.
 */
export async function preflightToolCall(input: ToolCallInput, signal: AbortSignal): Promise<PreflightOutput> {
  const { toolCall, tool, config } = input;
  if (!tool) return { ok: false, outcome: failed(toolCall, `Tool ${toolCall.name} not found`) };
  try {
    const raw = tool.prepareArguments ? tool.prepareArguments(toolCall.arguments) : toolCall.arguments;
    const parsed = tool.parameters.safeParse(raw);
    if (!parsed.success) {
      return {
        ok: false,
        outcome: failed(toolCall, validationErrorText(tool.name, parsed.error.issues, raw)),
      };
    }
    const hookContext = {
      assistantMessage: input.assistantMessage,
      toolCall,
      args: parsed.data,
      context: input.context,
    };
    const verdict = config.beforeToolCall ? await config.beforeToolCall(hookContext, signal) : undefined;
    if (signal.aborted) return { ok: false, outcome: failed(toolCall, "Operation aborted") };
    if (verdict?.block) {
      return { ok: false, outcome: failed(toolCall, verdict.reason ?? "Tool execution was blocked") };
    }
    const { requiresApproval } = tool;
    const needsApproval =
      typeof requiresApproval === "function" ? requiresApproval(hookContext.args) : requiresApproval === true;
    return { ok: true, args: hookContext.args, needsApproval };
  } catch (error) {
    return { ok: false, outcome: failed(toolCall, errorText(error)) };
  }
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
    return failed(toolCall, errorText(error));
  } finally {
    settled = true;
  }
}

/** Applies `afterToolCall`: returned fields replace the result's. A throw becomes an error outcome. */
export async function finalizeToolCall(
  input: ToolCallInput & { args: unknown; outcome: ToolCallOutcome },
  signal: AbortSignal,
): Promise<ToolCallOutcome> {
  const { outcome, config } = input;
  if (!config.afterToolCall) return outcome;
  try {
    const patch = await config.afterToolCall(
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
    if (!patch) return outcome;
    const result: ToolResult = { ...outcome.result };
    if (patch.content !== undefined) result.content = patch.content;
    if (patch.details !== undefined) result.details = patch.details;
    if (patch.terminate !== undefined) result.terminate = patch.terminate;
    return { toolCall: outcome.toolCall, result, isError: patch.isError ?? outcome.isError };
  } catch (error) {
    return failed(input.toolCall, `afterToolCall failed: ${errorText(error)}`);
  }
}

export const preflightActor = fromPromise<PreflightOutput, ToolCallInput>(({ input, signal }) =>
  preflightToolCall(input, signal),
);
export const executeActor = fromPromise<ToolCallOutcome, ToolCallInput & { args: unknown }>(
  ({ input, signal }) => executeToolCall(input, signal),
);
export const finalizeActor = fromPromise<
  ToolCallOutcome,
  ToolCallInput & { args: unknown; outcome: ToolCallOutcome }
>(({ input, signal }) => finalizeToolCall(input, signal));
