import { errorText } from "../types/error-text.js";
import { isSessionError } from "../types/session-error.js";

/** Why a harness operation failed. Match on `code`, not on the message. */
export type AgentHarnessErrorCode =
  | "busy"
  | "invalid_state"
  | "invalid_argument"
  | "session"
  | "hook"
  | "compaction"
  | "branch_summary";

/**
 * Error thrown (or rejected) by `AgentHarness`. `busy`: an operation is running; `invalid_state`: the
 * call makes no sense now (e.g. steering while idle); `invalid_argument`: unknown skill, template,
 * tool or entry; `session`: the session could not persist; `hook`: a hook handler threw (`cause` holds
 * what it threw); `compaction` / `branch_summary`: summarising failed, was cancelled or aborted.
 */
export class AgentHarnessError extends Error {
  override readonly name = "AgentHarnessError";
  readonly code: AgentHarnessErrorCode;

  constructor(code: AgentHarnessErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True when `error` is an {@link AgentHarnessError}, optionally with the given code. */
export function isAgentHarnessError(
  error: unknown,
  code?: AgentHarnessErrorCode,
): error is AgentHarnessError {
  return error instanceof AgentHarnessError && (code === undefined || error.code === code);
}

/** Wraps what a hook handler threw. */
export function hookError(hook: string, error: unknown): AgentHarnessError {
  if (isAgentHarnessError(error, "hook")) return error;
  return new AgentHarnessError("hook", `Hook "${hook}" failed: ${errorText(error)}`, { cause: error });
}

/** Wraps a failure with `code`, keeping AgentHarnessErrors and mapping SessionErrors to `session`. */
export function wrapError(code: AgentHarnessErrorCode, prefix: string, error: unknown): AgentHarnessError {
  if (error instanceof AgentHarnessError) return error;
  if (isSessionError(error)) {
    return new AgentHarnessError("session", `${prefix}: ${error.message}`, { cause: error });
  }
  return new AgentHarnessError(code, `${prefix}: ${errorText(error)}`, { cause: error });
}
