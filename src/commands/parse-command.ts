import { z } from "zod";
import { checkBudgetLimits } from "../loop/budget-check.js";
import type { BudgetLimits } from "../types/budget.js";
import { type AddressedCommand, addressOf } from "./addressed-command.js";
import { CommandError } from "./command-error.js";

// The commands a process takes from outside — an AG-UI client, a PostgreSQL command row, a CLI line:
// the ones that drive a run. Commands that change what the agent is (model, tools, system prompt,
// transcript) stay in process: a client may not switch the server's model or tools.

const agentPath = z.array(z.string().min(1)).optional();
const toolCallId = z.string().min(1);
const content = z.array(
  z.union([
    z.object({ type: z.literal("text"), text: z.string() }),
    z.object({ type: z.literal("image"), data: z.string(), mimeType: z.string().min(1) }),
  ]),
);
const userMessage = z.object({
  role: z.literal("user"),
  content: z.union([z.string(), content]),
  timestamp: z.number().optional(),
});

const commandSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("PROMPT"), messages: z.array(userMessage).min(1), agentPath }),
  z.object({ type: z.literal("STEER"), message: userMessage, agentPath }),
  z.object({ type: z.literal("FOLLOW_UP"), message: userMessage, agentPath }),
  z.object({ type: z.literal("APPROVE_TOOL"), toolCallId, agentPath }),
  z.object({ type: z.literal("DENY_TOOL"), toolCallId, reason: z.string().optional(), agentPath }),
  z.object({
    type: z.literal("ANSWER_TOOL"),
    toolCallId,
    result: z.object({ content, details: z.unknown().optional() }),
    isError: z.boolean().optional(),
    agentPath,
  }),
  z.object({ type: z.literal("RAISE_BUDGET"), limits: z.record(z.string(), z.unknown()), agentPath }),
  z.object({ type: z.literal("CONTINUE_ONCE"), agentPath }),
  z.object({ type: z.literal("ABORT"), agentPath }),
]);

/** A command `parseAgentCommand` accepts: the part of `AddressedCommand` that may come from outside. */
export type CommandFromOutside = Extract<
  AddressedCommand,
  {
    type:
      | "PROMPT"
      | "STEER"
      | "FOLLOW_UP"
      | "APPROVE_TOOL"
      | "DENY_TOOL"
      | "ANSWER_TOOL"
      | "RAISE_BUDGET"
      | "CONTINUE_ONCE"
      | "ABORT";
  }
>;

/** The `type`s `parseAgentCommand` accepts. */
const COMMANDS_FROM_OUTSIDE: readonly string[] = commandSchema.options.map(
  (option) => option.shape.type.value,
);

/**
 * Reads a command that came from outside the process (an AG-UI command request, a PostgreSQL command
 * row, a line of JSON) into the machine's vocabulary. Accepts, for one minor release, the spellings of
 * 0.2 (`{ type: "approve" }` of the AG-UI endpoint, `{ kind: "approve" }` of PostgreSQL rows), so rows
 * stored by 0.2 still run.
 *
 * Contract: pure apart from the timestamp a message without one gets (`Date.now()`); returns a plain
 * JSON command; throws `CommandError` `invalid_command` naming the field that is wrong, or the command
 * that is not taken from outside (`SET_MODEL`, `RESET`… stay in process).
 *
 * ```ts
 * parseAgentCommand({ type: "DENY_TOOL", toolCallId: "call_1", reason: "not today" });
 * parseAgentCommand({ type: "deny", toolCallId: "call_1" }); // 0.2's spelling: the same DENY_TOOL
 * ```
 */
export function parseAgentCommand(json: unknown): CommandFromOutside {
  const value = currentSpelling(json);
  const type = (value as { type?: unknown } | null)?.type;
  if (typeof type === "string" && !COMMANDS_FROM_OUTSIDE.includes(type))
    throw new CommandError(
      "invalid_command",
      `Command "${type}" is not taken from outside the process (these are: ${COMMANDS_FROM_OUTSIDE.join(", ")})`,
      { command: type },
    );
  const parsed = commandSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join(".") : "the command";
    throw new CommandError(
      "invalid_command",
      `Command ${typeof type === "string" ? `"${type}"` : "without a type"}: ${field}: ${issue.message}`,
      typeof type === "string" ? { command: type } : {},
    );
  }
  const command = parsed.data;
  if (command.type === "RAISE_BUDGET") {
    try {
      checkBudgetLimits(command.limits as BudgetLimits, "RAISE_BUDGET");
    } catch (error) {
      throw new CommandError("invalid_command", (error as Error).message, { command: command.type });
    }
  }
  const { agentPath: _, ...rest } = withTimestamps(command);
  return { ...rest, ...addressOf(command) } as CommandFromOutside;
}

/** 0.2's lowercase spellings, in the machine's vocabulary (other values as they are). */
function currentSpelling(json: unknown): unknown {
  if (typeof json !== "object" || json === null) return json;
  const old = json as Record<string, unknown>;
  const name = typeof old.kind === "string" && old.type === undefined ? old.kind : old.type;
  const user = (text: unknown) => ({ role: "user", content: text });
  const { kind: _kind, type: _type, requestId: _requestId, text, ...rest } = old;
  switch (name) {
    case "prompt":
      return { type: "PROMPT", messages: [user(text)], ...rest };
    case "steer":
      return { type: "STEER", message: user(text), ...rest };
    case "followUp":
      return { type: "FOLLOW_UP", message: user(text), ...rest };
    case "approve":
      return { type: "APPROVE_TOOL", ...rest };
    case "deny":
      return { type: "DENY_TOOL", ...rest };
    case "raiseBudget":
      return { type: "RAISE_BUDGET", ...rest };
    case "continuePastBudget":
      return { type: "CONTINUE_ONCE", ...rest };
    case "abort":
      return { type: "ABORT", ...rest };
    default:
      return json;
  }
}

function withTimestamps<T extends object>(command: T): T {
  const stamp = (message: { timestamp?: number }) => ({
    ...message,
    timestamp: message.timestamp ?? Date.now(),
  });
  const value = command as { messages?: { timestamp?: number }[]; message?: { timestamp?: number } };
  if (value.messages) return { ...command, messages: value.messages.map(stamp) };
  if (value.message) return { ...command, message: stamp(value.message) };
  return command;
}
