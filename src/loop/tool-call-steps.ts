import { errorText } from "../types/error-text.js";
import type {
  AfterToolCallResult,
  AgentCallbacks,
  AgentContext,
  BeforeToolCallResult,
} from "../types/loop.js";
import type { AssistantMessage, ToolCall } from "../types/messages.js";
import type { AgentTool, ToolResult } from "../types/tool.js";
import type { ToolCallOutcome } from "./agent-context.js";
import { invalidArgumentsText } from "./invalid-arguments.js";
import { errorOutcome } from "./tool-outcome.js";

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

export type ValidationOutput = { ok: true; args: unknown } | { ok: false; outcome: ToolCallOutcome };

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
    return { ok: true, args: parsed.data };
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
}

/** Runs `beforeToolCall`; a block (or a throw, or an abort meanwhile) becomes the call's error outcome. */
export async function checkBeforeToolCall(
  input: ToolHookInput,
  signal: AbortSignal,
): Promise<ToolCallOutcome | undefined> {
  const { toolCall } = input;
  try {
    const verdict = (await input.callbacks.beforeToolCall?.(
      { assistantMessage: input.assistantMessage, toolCall, args: input.args, context: input.context },
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
