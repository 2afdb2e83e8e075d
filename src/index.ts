export * from "./storage/index.js";
export { defineTool, type ToolDefinition, toToolSpec } from "./tools/define-tool.js";
export * from "./types/index.js";
