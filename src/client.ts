// agentchart/client: a client store (@xstate/store) of an AG-UI endpoint, for browsers and Node.

export type { AgUiEvent, AgUiMessage, AgUiTool, RunAgentInput } from "./ag-ui/ag-ui-events.js";
export type { PendingApproval, SharedAgentState } from "./ag-ui/shared-state.js";
export type { WaitingToolCall } from "./agent/agent-state.js";
export * from "./client/agent-client.js";
export * from "./client/agent-client-state.js";
export * from "./client/sse-reader.js";
export type { AddressedCommand, AgentAddress } from "./commands/addressed-command.js";
