import type { AgentTool } from "../../types/tool.js";
import { bashTool } from "./bash.js";
import { editTool } from "./edit.js";
import { lsTool } from "./ls.js";
import type { BuiltinToolContext } from "./path-guard.js";
import { readTool } from "./read.js";
import { writeTool } from "./write.js";

export { type BashDetails, type BashProgress, bashTool } from "./bash.js";
export { type EditDetails, editTool } from "./edit.js";
export { DEFAULT_LS_LIMIT, type LsDetails, lsTool } from "./ls.js";
export { type BuiltinToolContext, PathOutsideCwdError, resolveInCwd } from "./path-guard.js";
export { MAX_IMAGE_BYTES, type ReadDetails, readTool } from "./read.js";
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  type TruncationLimits,
  type TruncationResult,
  truncateHead,
  truncateTail,
} from "./truncate.js";
export { type WriteDetails, writeTool } from "./write.js";

/**
 * The five built-in tools — `read`, `write`, `edit`, `bash`, `ls` — in a new array. They need a
 * tool context `{cwd}` and are confined to that folder.
 *
 * ```ts
 * const agent = new AgentHarness({ ..., tools: createBuiltinTools(), toolContext: { cwd: process.cwd() } });
 * ```
 */
export function createBuiltinTools(): AgentTool<unknown, unknown, BuiltinToolContext>[] {
  return [readTool, writeTool, editTool, bashTool, lsTool] as AgentTool<
    unknown,
    unknown,
    BuiltinToolContext
  >[];
}
