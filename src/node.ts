// Node-only parts of agentchart: JSONL sessions, built-in tools, skills and prompt templates, and the
// offline inspector server. The core (`agentchart`) stays free of `node:` imports.
export * from "./harness/resources/agent-files.js";
export * from "./harness/resources/prompt-templates.js";
export type { ResourceDiagnosticCode } from "./harness/resources/skill-types.js";
export * from "./harness/resources/skills.js";
export * from "./harness/resources/skills-prompt.js";
export type { ExpandableTemplate } from "./harness/resources/template-args.js";
export * from "./inspector/index.js";
export * from "./node-tools.js";
export { readRecordingFile, writeRecordingFile } from "./replay/read-recording-file.js";
export type { Durability } from "./storage/jsonl-files.js";
export { JsonlSessionRepo, type JsonlSessionRepoOptions } from "./storage/jsonl-session-repo.js";
