import type { StopReason, Usage } from "../../types/messages.js";

/**
 * One scripted tool call. Its arguments stream as `toolcall_delta`s of the JSON text: `arguments`
 * serialised, or `rawArguments` exactly as given — text that is not a JSON object ends the call with
 * `arguments: {}` and `invalidArguments`, like a provider receiving malformed JSON (unfinished text
 * in a reply with `stopReason: "length"` gives `{}` only, as a cut reply would).
 */
export type ScriptedToolCall = { name: string; id?: string } & (
  | { arguments: Record<string, unknown>; rawArguments?: undefined }
  | { rawArguments: string; arguments?: undefined }
);

/** One content block of a scripted reply. Plain strings are text blocks. */
export type ScriptedBlock =
  | string
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | ({ type: "toolCall" } & ScriptedToolCall);

/** What the scripted model replies on one call. */
export interface ScriptedReply {
  /** Content blocks in order; `text`/`thinking`/`toolCalls` are shorthands appended after them. */
  content?: ScriptedBlock[];
  text?: string;
  thinking?: string;
  toolCalls?: ScriptedToolCall[];
  /** Defaults to "toolUse" when the reply has tool calls, else "stop". */
  stopReason?: Exclude<StopReason, "error" | "aborted">;
  /** Ends the reply with an `error` event carrying this message (after any scripted content). */
  error?: string;
  /** Throws this from the StreamFn itself instead of streaming (a contract violation the loop must survive). */
  throws?: string;
  /** Streams the content, then never sends a final event until aborted. */
  hang?: boolean;
  /** Sends these extra events after the final event (a misbehaving provider). */
  eventsAfterDone?: number;
  usage?: Partial<Omit<Usage, "cost">>;
  /**
   * Number of deltas each text/thinking block and each tool call's arguments text is split into
   * (default: one per 4 characters, at least 1).
   */
  deltas?: number;
  /** Delay before each event in ms (default 0: no timers at all). */
  delayMs?: number;
}
