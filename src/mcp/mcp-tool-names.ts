const MAX_TOOL_NAME = 64;

/**
 * The agent-facing name of an MCP tool: `<server>__<tool>`, each character OpenAI does not accept in
 * a tool name replaced by `_`, cut to 64 characters.
 */
export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_TOOL_NAME);
}

/**
 * A name not in `taken`: `name` itself, else `name_2`, `name_3`… (cut so the result stays within
 * 64 characters).
 */
export function uniqueToolName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let index = 2; ; index++) {
    const suffix = `_${index}`;
    const candidate = `${name.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
