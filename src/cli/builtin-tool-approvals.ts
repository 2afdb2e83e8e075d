import type { AgentTool } from "../types/tool.js";
import { CLI_CONFIG_FILE } from "./cli-config.js";

/** The built-in tools that change files or run commands, and so ask before they run. */
export const TOOLS_ASKING_APPROVAL: readonly string[] = ["bash", "write", "edit"];

/**
 * The tools with `bash`, `write` and `edit` waiting for the user's approval, except when `yes`
 * (`--yes`) or when named in `trust` (the `trust` list of `~/.agentchart/config.json`). The other
 * tools are returned as they are; the changed ones are copies.
 *
 * Contract: pure, never throws.
 *
 * ```ts
 * import { createBuiltinTools } from "agentchart/node";
 * const tools = withBuiltinApprovals(createBuiltinTools(), { yes: false, trust: ["write"] });
 * // bash and edit ask, write runs at once
 * ```
 */
export function withBuiltinApprovals<TTool extends AgentTool>(
  tools: readonly TTool[],
  options: { yes: boolean; trust: readonly string[] },
): TTool[] {
  return tools.map((tool) =>
    options.yes || !TOOLS_ASKING_APPROVAL.includes(tool.name) || options.trust.includes(tool.name)
      ? tool
      : { ...tool, requiresApproval: true },
  );
}

/** The reason given to the model when nobody could answer an approval question. */
export function unansweredApprovalReason(toolName: string): string {
  const fix = TOOLS_ASKING_APPROVAL.includes(toolName)
    ? `add "${toolName}" to "trust" in ~/.agentchart/${CLI_CONFIG_FILE}`
    : 'set "trust": true for its MCP server';
  return `Not approved: nobody could answer (run with --yes, or ${fix})`;
}
