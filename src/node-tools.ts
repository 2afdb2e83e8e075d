/** Node-only built-in tools; re-exported by the `agentchart/node` entry. */
export * from "./tools/builtin/index.js";
