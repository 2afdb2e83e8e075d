import type { AgentTool } from "../../types/tool.js";
import { type BashToolOptions, createBashTool } from "./bash.js";
import { editTool } from "./edit.js";
import { lsTool } from "./ls.js";
import type { BuiltinToolContext } from "./path-guard.js";
import { readTool } from "./read.js";
import { writeTool } from "./write.js";

export {
  type BashArgs,
  type BashDetails,
  type BashProgress,
  type BashTool,
  type BashToolOptions,
  bashTool,
  createBashTool,
  MAX_BASH_TIMEOUT_SECONDS,
} from "./bash.js";
export { type EditDetails, editTool } from "./edit.js";
export { DEFAULT_LS_LIMIT, type LsDetails, lsTool } from "./ls.js";
export type { OutputFileLimits } from "./output-files.js";
export { type BuiltinToolContext, PathOutsideCwdError, resolveInCwd } from "./path-guard.js";
export { MAX_IMAGE_BYTES, type ReadDetails, readTool } from "./read.js";
export { NotRegularFileError } from "./regular-file.js";
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  type TruncationLimits,
  type TruncationResult,
  truncateHead,
  truncateTail,
} from "./truncate.js";
export { type WriteDetails, writeTool } from "./write.js";

/** The built-in tools as an array, with `dispose()` for what they keep (bash's full-output files). */
export type BuiltinTools = AgentTool<unknown, unknown, BuiltinToolContext>[] & {
  /** Deletes the temp files the tools made; call it when the session ends. The tools stay usable. */
  dispose(): Promise<void>;
};

/**
 * The five built-in tools — `read`, `write`, `edit`, `bash`, `ls` — in a new array, with a `bash` of
 * their own (see {@link createBashTool}). They need a tool context `{cwd}` and are confined to that
 * folder. Keep the array to call `dispose()` when the session ends.
 *
 * ```ts
 * import { AgentHarness } from "agentchart";
 * const tools = createBuiltinTools();
 * const harness = new AgentHarness({ session, model, streamFn, tools, toolContext: { cwd: process.cwd() } });
 * await harness.prompt("List the files");
 * await tools.dispose();
 * ```
 */
export function createBuiltinTools(options: BashToolOptions = {}): BuiltinTools {
  const bash = createBashTool(options);
  const tools = [readTool, writeTool, editTool, bash, lsTool] as AgentTool<
    unknown,
    unknown,
    BuiltinToolContext
  >[];
  return Object.assign(tools, { dispose: () => bash.dispose() });
}
