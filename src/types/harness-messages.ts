import type { ImageContent, TextContent } from "./messages.js";

/** Why the harness compacted: asked to, past the threshold, or after a context-overflow error. */
export type CompactionReason = "manual" | "threshold" | "overflow";

/** The summary that replaces the compacted part of a transcript; the harness sends it to the model as a user message. */
export interface CompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  /** Context tokens before the compaction. */
  tokensBefore: number;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

/** A summary of the branch the session navigated away from. */
export interface BranchSummaryMessage {
  role: "branchSummary";
  summary: string;
  /** Id of the entry the summarised branch left from ("root" when it left from the root). */
  fromId: string;
  timestamp: number;
}

/** An app message that enters the model's context (persisted as a `custom_message` entry). */
export interface CustomMessage<TDetails = unknown> {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  /** Whether a UI should show it. */
  display: boolean;
  details?: TDetails;
  timestamp: number;
}

/** A shell command the user ran themselves (e.g. `!ls` in a CLI); the model sees its output as a user message. */
export interface BashExecutionMessage {
  role: "bashExecution";
  command: string;
  output: string;
  /** Exit code; `undefined` when the command did not exit normally. */
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  /** Where the full output was saved when `truncated`. */
  fullOutputPath?: string;
  /** Keep it in the transcript but never send it to the model. */
  excludeFromContext?: boolean;
  timestamp: number;
}

declare module "./messages.js" {
  interface CustomAgentMessages {
    bashExecution: BashExecutionMessage;
    compactionSummary: CompactionSummaryMessage;
    branchSummary: BranchSummaryMessage;
    custom: CustomMessage;
  }
}
