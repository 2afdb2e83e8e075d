import type { AgentCommand } from "../machines/agent/agent.events.js";
import type { AssistantMessage, Message } from "../types/messages.js";
import type { OutputRequest, ToolSpec } from "../types/stream.js";
import type { ToolResult } from "../types/tool.js";

/** The `format` of a recording's header line. */
export const RECORDING_FORMAT = "agentchart.recording";

/**
 * The version of the recording format this agentchart writes and reads. 1: the first (0.3.0). A
 * change to the lines' shapes raises it; the reader names the version it met and the one it reads.
 */
export const RECORDING_FORMAT_VERSION = 1;

/** The first line of a recording. */
export interface RecordingHeader {
  kind: "header";
  format: typeof RECORDING_FORMAT;
  version: typeof RECORDING_FORMAT_VERSION;
  /** What recorded the run: an `Agent` (or an embedded agent machine) or an `AgentHarness`. */
  source: "agent" | "harness";
}

/**
 * What the agent asked the model, without what varies between two runs of the same code (message
 * timestamps) and without the transport's options (signal, keys, headers, hooks, session ids, timeouts).
 */
export interface CanonicalRequest {
  model: { provider: string; api: string; id: string };
  systemPrompt: string;
  messages: Message[];
  tools: ToolSpec[];
  output?: OutputRequest;
  /** The stream options that change the reply: reasoning, maxTokens, temperature, cacheRetention. */
  options: Record<string, unknown>;
}

/**
 * One stream event of a recorded reply. Written without `partial` (the message so far, rebuilt on
 * replay from the events before it); a recording still in memory holds the provider's event itself.
 */
export type RecordedReplyEvent = Record<string, unknown> & { type: string };

/** A model call: the canonical request, its key, and the events of the reply. */
export interface RecordedModelCall {
  kind: "model_call";
  /** The agent that asked: tool call ids from the root down (empty for the root agent). */
  agentPath: string[];
  /** `requestKeyOf(request)`: what replay matches a new request by. */
  key: string;
  request: CanonicalRequest;
  events: RecordedReplyEvent[];
  /** The reply's final message (the `done` event's message or the `error` event's). */
  reply?: AssistantMessage;
  /** The message of the error the StreamFn threw instead of streaming. */
  error?: string;
}

/** A tool's execution: its arguments and its result (or the message of the error it threw). */
export interface RecordedToolCall {
  kind: "tool_call";
  agentPath: string[];
  toolCallId: string;
  toolName: string;
  args: unknown;
  result?: ToolResult;
  error?: string;
}

/** A command from outside (prompt, steer, approve, abort, …) and the state of the agent it arrived in. */
export interface RecordedCommand {
  kind: "command";
  agentPath: string[];
  /** The receiving agent's state value when the command arrived. */
  state: unknown;
  command: AgentCommand;
}

/** Where a step boundary lies in a run. */
export type RecordedStepKind = "turn_start" | "tools_settled" | "awaiting_human" | "run_end";

/**
 * A step boundary of the root agent: its state value and its persisted snapshot there — for an
 * `Agent` (`TSnapshot` = `PersistedAgent`) what `Agent.restore` takes like any snapshot (time travel,
 * fork); for an embedded agent machine XState's `actor.getPersistedSnapshot()`, which
 * `createActor(machine, { snapshot })` takes.
 */
export interface RecordedStep<TSnapshot = unknown> {
  kind: "step";
  /** 0, 1, 2… in the order of the recording. */
  index: number;
  step: RecordedStepKind;
  value: unknown;
  snapshot: TSnapshot;
}

/** A line of a recording after its header. */
export type RecordingEntry<TSnapshot = unknown> =
  | RecordedModelCall
  | RecordedToolCall
  | RecordedCommand
  | RecordedStep<TSnapshot>;

/** What is wrong with a recording's text; `line` is 1-based. Nothing is loaded when it is thrown. */
export class RecordingError extends Error {
  override readonly name = "RecordingError";
  readonly code: "empty" | "parse" | "format" | "version" | "invalid";
  readonly line: number | undefined;
  /** What is wrong, without where (`message` says both). */
  readonly detail: string;
  /** `message` is prefixed with `line N: ` when `line` is given, and with `file: ` when `file` is. */
  constructor(code: RecordingError["code"], message: string, line?: number, file?: string) {
    const where = [file, line === undefined ? undefined : `line ${line}`].filter(
      (part) => part !== undefined,
    );
    super(where.length > 0 ? `${where.join(": ")}: ${message}` : message);
    this.code = code;
    this.line = line;
    this.detail = message;
  }
}
