// The shapes a stored entry must have for the code that reads it later (buildContext, the harness,
// the providers, the CLI) to be safe. Only the fields read are checked; others are kept as written
// (pi adds its own). Written as small checks rather than zod schemas: opening a session checks every
// entry, and zod doubled the time to open a 10,000-entry session (145 → 291 ms in one measurement).

/**
 * Returns why `value` does not fit, or `undefined` when it does: `"<path below value>: <what>"`, with
 * an empty path for `value` itself. Paths are built only on failure, keeping the check cheap.
 */
type Check = (value: unknown) => string | undefined;

/** The problem of a field or item `key` as seen from its container. */
function under(key: string | number, problem: string): string {
  return problem.startsWith(":") ? `${key}${problem}` : `${key}.${problem}`;
}

const string: Check = (value) => (typeof value === "string" ? undefined : ": expected a string");
const number: Check = (value) => (typeof value === "number" ? undefined : ": expected a number");
const boolean: Check = (value) => (typeof value === "boolean" ? undefined : ": expected true or false");
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined || value === null ? undefined : check(value);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An object whose listed fields pass their checks. */
function fields(shape: Record<string, Check>): Check {
  const keys = Object.keys(shape);
  return (value) => {
    if (!isObject(value)) return ": expected an object";
    for (const key of keys) {
      const problem = shape[key]!(value[key]);
      if (problem !== undefined) return under(key, problem);
    }
    return undefined;
  };
}

const record: Check = (value) => (isObject(value) ? undefined : ": expected an object");
const stringArray: Check = (value) =>
  Array.isArray(value) && value.every((item) => typeof item === "string")
    ? undefined
    : ": expected an array of strings";

/** An array of content parts, each checked by the check of its `type`. */
function partsOf(kinds: Record<string, Check>): Check {
  const what = Object.keys(kinds).join("/");
  return (value) => {
    if (!Array.isArray(value)) return `: expected an array of ${what} parts`;
    for (let i = 0; i < value.length; i++) {
      const part = value[i] as { type?: unknown } | null;
      const check = typeof part?.type === "string" ? kinds[part.type] : undefined;
      if (check === undefined) return `${i}: expected a ${what} part`;
      const problem = check(part);
      if (problem !== undefined) return under(i, problem);
    }
    return undefined;
  };
}

const text = fields({ text: string });
const image = fields({ data: string, mimeType: string });
const thinking = fields({ thinking: string });
const toolCall = fields({ id: string, name: string, arguments: record });
const textOrImageParts = partsOf({ text, image });
const userContent: Check = (value) => {
  if (typeof value === "string") return undefined;
  if (Array.isArray(value)) return textOrImageParts(value);
  return ": expected a string or an array of text/image parts";
};

const usage = fields({
  input: number,
  output: number,
  cacheRead: number,
  cacheWrite: number,
  totalTokens: optional(number), // pi's older files have none
  cost: fields({ total: number }),
});

/** Messages by the roles this library defines; any other role is an app's own (`CustomAgentMessages`). */
const messageByRole: Record<string, Check> = {
  user: fields({ content: userContent }),
  assistant: fields({
    content: partsOf({ text, thinking, toolCall }),
    api: string,
    provider: string,
    model: string,
    usage,
    stopReason: string,
  }),
  toolResult: fields({ toolCallId: string, toolName: string, content: textOrImageParts, isError: boolean }),
  custom: fields({ customType: string, content: userContent, display: boolean }),
  bashExecution: fields({
    command: string,
    output: string,
    exitCode: optional(number),
    cancelled: boolean,
    truncated: boolean,
  }),
  compactionSummary: fields({ summary: string, tokensBefore: number }),
  branchSummary: fields({ summary: string, fromId: string }),
};

/** Fields per entry type beyond `type`, `id`, `parentId`, `timestamp`; unknown types (newer pi) pass. */
const entryByType: Record<string, Check> = {
  model_change: fields({ provider: string, modelId: string }),
  thinking_level_change: fields({ thinkingLevel: string }),
  active_tools_change: fields({ activeToolNames: stringArray }),
  compaction: fields({ summary: string, firstKeptEntryId: string, tokensBefore: number }),
  branch_summary: fields({ fromId: string, summary: string }),
  custom: fields({ customType: string }),
  custom_message: fields({ customType: string, content: userContent, display: boolean }),
  label: fields({ targetId: string, label: optional(string) }),
  session_info: fields({ name: optional(string) }),
};

/**
 * Why a stored entry's type-specific fields cannot be used, or `undefined` when they can: a message
 * entry's message by role (the content shape per role and the fields each role needs), the fields of
 * the other known entry types. Messages of a role an app defines itself need only a string `role`.
 *
 * Contract: pure, synchronous, never throws; the entry is not modified.
 * @example
 * ```ts
 * entryFieldsProblem({ type: "message", message: { role: "user", content: 12345 } });
 * // "message.content: expected a string or an array of text/image parts"
 * ```
 */
export function entryFieldsProblem(entry: Record<string, unknown>): string | undefined {
  if (entry.type === "message") {
    const message = entry.message;
    if (!isObject(message)) return "message: expected an object";
    if (typeof message.role !== "string") return "message.role: expected a string";
    const problem = messageByRole[message.role]?.(message);
    return problem === undefined ? undefined : under("message", problem);
  }
  return entryByType[entry.type as string]?.(entry);
}
