import type { ToolCall } from "../types/messages.js";

/** How much of the received arguments text an error result quotes. */
export const QUOTED_ARGUMENTS_MAX_CHARS = 2000;

/**
 * The error text for a call whose arguments the model sent as invalid JSON (marked by the provider
 * with `invalidArguments`), or `undefined` for any other call. The text names the parse error and
 * quotes the received text (at most `QUOTED_ARGUMENTS_MAX_CHARS` characters), so the model can send
 * the call again.
 */
export function invalidArgumentsText(toolCall: ToolCall): string | undefined {
  const invalid = toolCall.invalidArguments;
  if (invalid === undefined) return undefined;
  const raw = String(invalid.raw);
  let quoted = raw;
  if (raw.length > QUOTED_ARGUMENTS_MAX_CHARS) {
    // Do not cut a surrogate pair in half.
    const high = raw.charCodeAt(QUOTED_ARGUMENTS_MAX_CHARS - 1);
    const end =
      high >= 0xd800 && high <= 0xdbff ? QUOTED_ARGUMENTS_MAX_CHARS - 1 : QUOTED_ARGUMENTS_MAX_CHARS;
    quoted = `${raw.slice(0, end)}\n… (${raw.length - end} more characters not shown)`;
  }
  return (
    `The arguments of tool call "${toolCall.name}" are not valid JSON (${invalid.error}), so the tool ` +
    `did not run. Send the call again with a valid JSON object as arguments.\n\n` +
    `Received arguments (${raw.length} characters):\n${quoted}`
  );
}
