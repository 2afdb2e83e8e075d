import type { AddressedCommand } from "../commands/addressed-command.js";
import { CommandError } from "../commands/command-error.js";
import { parseAgentCommand } from "../commands/parse-command.js";
import { AgUiError } from "./ag-ui-error.js";
import { checkId, checkTextLength, type ResolvedAgUiLimits } from "./request-limits.js";

/**
 * A command request's body: `POST { threadId, command }` to the endpoint, `command` in the agent
 * machine's vocabulary (`AddressedCommand`, read by `parseAgentCommand`: `APPROVE_TOOL`, `DENY_TOOL`,
 * `ANSWER_TOOL`, `STEER`, `FOLLOW_UP`, `RAISE_BUDGET`, `CONTINUE_ONCE`, `ABORT`, each with an optional
 * `agentPath` naming a sub-agent; 0.2's `{ type: "approve" }` spellings are still read).
 */
export interface AgentCommandRequest {
  threadId: string;
  command: AddressedCommand;
}

/**
 * Reads a command request's body.
 *
 * Contract: synchronous, pure; throws `AgUiError` `invalid_request` for a missing or malformed
 * `threadId` or `command` object, `limit_exceeded` for a message text over `maxTextLength`, and
 * `CommandError` `invalid_command` (400) naming the field of a command that is not one, `refused` for
 * `PROMPT` (a run starts with a `RunAgentInput` request, whose stream the client reads).
 *
 * ```ts
 * declare const limits: Parameters<typeof parseCommandRequest>[1]; // the endpoint's resolved limits
 * parseCommandRequest({ threadId: "t1", command: { type: "APPROVE_TOOL", toolCallId: "call_1" } }, limits);
 * ```
 */
export function parseCommandRequest(
  body: Record<string, unknown>,
  limits: ResolvedAgUiLimits,
): AgentCommandRequest {
  const { threadId, command } = body;
  checkId(threadId, "A command request's threadId");
  if (typeof command !== "object" || command === null || Array.isArray(command))
    throw new AgUiError("invalid_request", "A command request needs a command object");
  const parsed = parseAgentCommand(command);
  if (parsed.type === "PROMPT")
    throw new CommandError(
      "refused",
      "PROMPT: start a run with a RunAgentInput request (its new user message is the prompt) and read its stream",
      { command: parsed.type, agentPath: parsed.agentPath ?? [] },
    );
  if (parsed.type === "STEER" || parsed.type === "FOLLOW_UP")
    checkTextLength((parsed.message as { content: unknown }).content, `The ${parsed.type} message`, limits);
  return { threadId, command: parsed };
}
