import type { AddressedCommand } from "../commands/addressed-command.js";
import { isCommandError } from "../commands/command-error.js";
import type { AgentSurface } from "../harness/agent-surface.js";
import { errorText } from "../types/error-text.js";

/**
 * Sends a command the person at the terminal gave (an approval, a budget answer, a steering line,
 * an abort) and reports a refusal as one line instead of throwing: a `CommandError` with its code
 * and message, which name the command, the sub-agent's path and the call (`not applied
 * (not_waiting): DENY_TOOL: no tool call "call_1" is awaiting approval` — the run moved on while the
 * question was open); any other error (a raised limit that is not a number) with its message.
 *
 * Contract: never throws; returns whether the command was applied; calls `report` once when not.
 *
 * ```ts
 * sendCommand(harness, { type: "APPROVE_TOOL", toolCallId: "call_1" }, (line) => console.error(line));
 * ```
 */
export function sendCommand(
  surface: AgentSurface,
  command: AddressedCommand,
  report: (line: string) => void,
): boolean {
  try {
    surface.send(command);
    return true;
  } catch (error) {
    report(
      isCommandError(error)
        ? `not applied (${error.code}): ${error.message}`
        : `not applied: ${command.type}: ${errorText(error)}`,
    );
    return false;
  }
}
