import { checkBudgetLimits } from "../loop/budget-check.js";
import type { BudgetLimits } from "../types/budget.js";
import { AgUiError } from "./ag-ui-error.js";

/**
 * A command sent beside a run's stream, as a request of its own: `POST { threadId, command }` to the
 * endpoint. Commands act on the thread's current run; a client that disconnects sends none, so only
 * `abort` ever stops a run. An approval of a sub-agent's call names its `agentPath` (as the request
 * and `STATE_SNAPSHOT.awaitingApproval` give it).
 */
export type AgentCommand =
  | { type: "approve"; toolCallId: string; agentPath?: string[] }
  | { type: "deny"; toolCallId: string; reason?: string; agentPath?: string[] }
  | { type: "steer"; text: string }
  | { type: "followUp"; text: string }
  /** The run (a sub-agent's at `agentPath`) waiting at a budget limit or a loop breaker goes on with `limits`. */
  | { type: "raiseBudget"; limits: BudgetLimits; agentPath?: string[] }
  /** The call a budget limit holds (a sub-agent's at `agentPath`) goes ahead once. */
  | { type: "continuePastBudget"; agentPath?: string[] }
  | { type: "abort" };

/** A command request's body. */
export interface AgentCommandRequest {
  threadId: string;
  command: AgentCommand;
}

/**
 * Reads a command request's body; throws `AgUiError` `invalid_request` naming what is wrong.
 *
 * Contract: synchronous, pure; throws only `AgUiError`.
 *
 * ```ts
 * parseCommandRequest({ threadId: "t1", command: { type: "approve", toolCallId: "call_1" } });
 * ```
 */
export function parseCommandRequest(body: Record<string, unknown>): AgentCommandRequest {
  const { threadId, command } = body;
  if (typeof threadId !== "string" || threadId === "")
    throw new AgUiError("invalid_request", "A command needs a threadId (a non-empty string)");
  if (typeof command !== "object" || command === null)
    throw new AgUiError("invalid_request", "A command request needs a command object");
  const { type } = command as { type?: unknown };
  const field = (name: string): string => {
    const value = (command as Record<string, unknown>)[name];
    if (typeof value !== "string" || value === "")
      throw new AgUiError("invalid_request", `Command "${String(type)}" needs ${name} (a non-empty string)`);
    return value;
  };
  const path = (): { agentPath?: string[] } => {
    const agentPath = (command as { agentPath?: unknown }).agentPath;
    if (agentPath === undefined) return {};
    if (!Array.isArray(agentPath) || agentPath.some((id) => typeof id !== "string" || id === ""))
      throw new AgUiError(
        "invalid_request",
        `Command "${String(type)}": agentPath must be an array of tool call ids (non-empty strings)`,
      );
    return agentPath.length > 0 ? { agentPath: agentPath as string[] } : {};
  };
  switch (type) {
    case "approve":
      return { threadId, command: { type, toolCallId: field("toolCallId"), ...path() } };
    case "deny": {
      const reason = (command as { reason?: unknown }).reason;
      return {
        threadId,
        command: {
          type,
          toolCallId: field("toolCallId"),
          ...(typeof reason === "string" ? { reason } : {}),
          ...path(),
        },
      };
    }
    case "steer":
    case "followUp":
      return { threadId, command: { type, text: field("text") } };
    case "raiseBudget":
      return {
        threadId,
        command: { type, limits: budgetLimitsOf((command as { limits?: unknown }).limits), ...path() },
      };
    case "continuePastBudget":
      return { threadId, command: { type, ...path() } };
    case "abort":
      return { threadId, command: { type } };
    default:
      throw new AgUiError(
        "invalid_request",
        `Unknown command "${String(type)}" (approve, deny, steer, followUp, raiseBudget, continuePastBudget or abort)`,
      );
  }
}

/**
 * The limits of a `raiseBudget` command or of a budget interrupt's answer (`payload.limits`).
 *
 * Contract: pure; returns `limits` as `BudgetLimits`; throws `AgUiError` `invalid_request` naming a bad
 * limit (not an object, an unknown name, a negative or non-numeric value).
 *
 * ```ts
 * budgetLimitsOf({ maxModelCalls: 20 }); // { maxModelCalls: 20 }
 * ```
 */
export function budgetLimitsOf(limits: unknown): BudgetLimits {
  if (typeof limits !== "object" || limits === null || Array.isArray(limits))
    throw new AgUiError(
      "invalid_request",
      'Command "raiseBudget" needs limits (an object, e.g. { "maxModelCalls": 20 })',
    );
  try {
    checkBudgetLimits(limits as BudgetLimits, "raiseBudget");
  } catch (error) {
    throw new AgUiError("invalid_request", (error as Error).message);
  }
  return limits as BudgetLimits;
}
