import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { AgentTool, ToolResult } from "../../src/types/tool.js";

/** Makes a fresh temp folder (its real path, so symlinked tmpdirs compare equal). */
export async function makeTempDir(prefix = "agentchart-tools-"): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
}

export interface RunOptions {
  signal?: AbortSignal;
  onUpdate?: (partial: unknown) => void;
  context?: unknown;
}

/** Validates `args` with the tool's schema (as the loop does) and runs it with `{cwd}` as context. */
export async function runTool<TDetails>(
  tool: AgentTool<any, TDetails, any>,
  cwd: string,
  args: Record<string, unknown>,
  options: RunOptions = {},
): Promise<ToolResult<TDetails>> {
  const parsed = tool.parameters.parse(args);
  return tool.execute(parsed, {
    toolCallId: "call-1",
    idempotencyKey: "agent:call-1",
    signal: options.signal ?? new AbortController().signal,
    update: options.onUpdate ?? (() => {}),
    context: "context" in options ? options.context : { cwd },
  });
}

/** The text of the first text block of a result. */
export function textOf(result: ToolResult<unknown>): string {
  const block = result.content.find((item) => item.type === "text");
  return block?.type === "text" ? block.text : "";
}
