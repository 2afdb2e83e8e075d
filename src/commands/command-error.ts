/**
 * Why a command was refused:
 * - `invalid_command`: not a command of the vocabulary, a field missing or of the wrong type, or a
 *   command that is not accepted from outside the process (`parseAgentCommand`);
 * - `no_agent`: no agent runs at the command's `agentPath`;
 * - `not_waiting`: the call the command answers does not wait for it (approval, a client's result),
 *   or no run waits at a budget limit for `RAISE_BUDGET` / `CONTINUE_ONCE`;
 * - `busy`: a command that starts a run (`PROMPT`, `CONTINUE`, `RESUME_CALLS`) or replaces the
 *   transcript (`RESET`, `SET_MESSAGES`) while a run is on;
 * - `refused`: the agent cannot do it now (`CONTINUE` with nothing to continue), or an `AgentHarness`
 *   does not take it (it builds its own system prompt, transcript and stream options).
 */
export type CommandErrorCode = "invalid_command" | "no_agent" | "not_waiting" | "busy" | "refused";

/**
 * The one error a command gets when it cannot apply — in process (`agent.send`, `harness.send` and
 * their shorthands), from the AG-UI endpoint, from PostgreSQL command rows and in the CLI. It names
 * the command, the agent path and the tool call it was addressed to. Match on `code`.
 */
export class CommandError extends Error {
  override readonly name = "CommandError";
  readonly code: CommandErrorCode;
  /** The `type` of the refused command (`undefined` when it was not a command at all). */
  readonly command: string | undefined;
  /** The tool call ids from the root to the agent the command was addressed to (`[]`: the root). */
  readonly agentPath: readonly string[];
  /** The tool call the command answers, when it answers one. */
  readonly toolCallId: string | undefined;

  constructor(
    code: CommandErrorCode,
    message: string,
    address: { command?: string; agentPath?: readonly string[]; toolCallId?: string } = {},
  ) {
    super(message);
    this.code = code;
    this.command = address.command;
    this.agentPath = address.agentPath ?? [];
    this.toolCallId = address.toolCallId;
  }
}

/**
 * Whether `error` is a `CommandError` (of `code`, when given).
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * try {
 *   agent.send({ type: "APPROVE_TOOL", toolCallId: "call_1" });
 * } catch (error) {
 *   if (isCommandError(error, "not_waiting")) console.log("already decided");
 * }
 * ```
 */
export function isCommandError(error: unknown, code?: CommandErrorCode): error is CommandError {
  return error instanceof CommandError && (code === undefined || error.code === code);
}
