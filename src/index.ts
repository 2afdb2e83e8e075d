export { defineTool, type ToolDefinition, toToolSpec } from "./tools/define-tool.js";
export * from "./types/index.js";
export * from "./storage/index.js";
