/**
 * The AG-UI 1.0 events and messages this package sends and reads, as plain data (the wire format of
 * `@ag-ui/core`, whose zod schemas the tests check every emitted event against). Declared here so that
 * neither the server nor the client needs `@ag-ui/core` at run time.
 */

/** A message of the AG-UI conversation (`RunAgentInput.messages`, `MESSAGES_SNAPSHOT`). */
export type AgUiMessage =
  | { id: string; role: "user"; content: string }
  | { id: string; role: "system" | "developer"; content: string }
  | { id: string; role: "assistant"; content?: string; toolCalls?: AgUiToolCall[] }
  | {
      id: string;
      role: "tool";
      toolCallId: string;
      content: string;
      error?: string;
      /** agentchart servers say whether the result is an error. */
      metadata?: { agentchart?: { isError?: boolean } };
    }
  | { id: string; role: "reasoning"; content: string };

export interface AgUiToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A tool the client declares in `RunAgentInput.tools`. */
export interface AgUiTool {
  name: string;
  description: string;
  parameters?: unknown;
}

/** An answer to an interrupt of a previous run (`RunAgentInput.resume`). */
export interface AgUiResumeEntry {
  interruptId: string;
  status: "resolved" | "cancelled";
  payload?: unknown;
}

/** A request to run an agent (AG-UI `RunAgentInput`). */
export interface RunAgentInput {
  threadId: string;
  runId: string;
  messages: AgUiMessage[];
  tools?: AgUiTool[];
  context?: { description: string; value: string }[];
  state?: unknown;
  forwardedProps?: unknown;
  resume?: AgUiResumeEntry[];
  protocolVersion?: string;
  parentRunId?: string;
}

/**
 * Why a run ended (`RUN_FINISHED.outcome`). A run that stopped on calls of client tools is a success
 * naming them in `pendingToolCallIds`: the client answers them with `tool` messages in the next run.
 */
export type AgUiRunOutcome = { type: "success"; pendingToolCallIds?: string[] } | { type: "cancelled" };

/**
 * The AG-UI events the server emits (and the client store reads). An event of a sub-agent carries
 * the AG-UI `subagentRunId` of the subagent it belongs to (see `SubAgentStreams`).
 */
export type AgUiEvent = AgUiEventBody & { subagentRunId?: string };

/** Why a subagent's part of a run ended (`SUBAGENT_FINISHED.outcome`). */
export type AgUiSubagentOutcome = { type: "success" } | { type: "suspended"; interruptIds?: string[] };

/** An AG-UI event without its `subagentRunId` (the events of the protocol, one per `type`). */
export type AgUiEventBody =
  | { type: "RUN_STARTED"; threadId: string; runId: string; protocolVersion?: string }
  | { type: "RUN_FINISHED"; threadId: string; runId: string; outcome?: AgUiRunOutcome }
  | { type: "RUN_ERROR"; message: string; code?: string }
  | { type: "TEXT_MESSAGE_START"; messageId: string; role?: "assistant" | "user" }
  | { type: "TEXT_MESSAGE_CONTENT"; messageId: string; delta: string }
  | { type: "TEXT_MESSAGE_END"; messageId: string }
  | { type: "REASONING_START"; messageId: string }
  | { type: "REASONING_MESSAGE_START"; messageId: string; role: "reasoning" }
  | { type: "REASONING_MESSAGE_CONTENT"; messageId: string; delta: string }
  | { type: "REASONING_MESSAGE_END"; messageId: string }
  | { type: "REASONING_END"; messageId: string }
  | { type: "TOOL_CALL_START"; toolCallId: string; toolCallName: string; parentMessageId?: string }
  | { type: "TOOL_CALL_ARGS"; toolCallId: string; delta: string }
  | { type: "TOOL_CALL_END"; toolCallId: string }
  | {
      type: "TOOL_CALL_RESULT";
      messageId: string;
      toolCallId: string;
      content: string;
      role?: "tool";
      metadata?: { agentchart: { isError: boolean } };
    }
  | { type: "STATE_SNAPSHOT"; snapshot: unknown }
  | { type: "MESSAGES_SNAPSHOT"; messages: AgUiMessage[] }
  | { type: "CUSTOM"; name: string; value: unknown }
  | {
      type: "SUBAGENT_STARTED";
      subagentRunId: string;
      name: string;
      parentToolCallId?: string;
      parentMessageId?: string;
      parentSubagentRunId?: string;
    }
  | { type: "SUBAGENT_FINISHED"; subagentRunId: string; outcome?: AgUiSubagentOutcome }
  | { type: "SUBAGENT_ERROR"; subagentRunId: string; message: string; code?: string };

/** The AG-UI protocol version this package speaks. */
export const AG_UI_PROTOCOL_VERSION = "1.0";
