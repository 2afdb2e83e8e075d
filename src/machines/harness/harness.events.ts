import type { AgentEvent } from "../../types/events.js";
import type { AgentMessage } from "../../types/messages.js";
import type { ThinkingLevel } from "../../types/model.js";

/** An entry to append, as data (what the session actor's `session.append` command carries). */
export type SessionDraft =
  | { type: "message"; message: AgentMessage }
  | { type: "model_change"; provider: string; modelId: string }
  | { type: "thinking_level_change"; thinkingLevel: ThinkingLevel }
  | { type: "active_tools_change"; activeToolNames: string[] }
  | { type: "custom"; customType: string; data?: unknown };

/** What the session actor (`session` in a harness's actor tree) is asked to do. */
export type SessionCommand =
  /** An event of the harness's own agent: its messages and outcomes are recorded (see `SessionRecorder`). */
  | { type: "session.record"; event: AgentEvent }
  /** Appends an entry (at the next turn boundary while a run is active). */
  | { type: "session.append"; entry: SessionDraft }
  /** Labels an entry (a blank or missing label clears it). */
  | { type: "session.label"; targetId: string; label?: string }
  /** Moves the leaf to `targetId` (`null`: before the first entry): the next entries start a branch there. */
  | { type: "session.branch"; targetId: string | null }
  /** Records a compaction: later contexts start with `summary`, then the entries from `firstKeptEntryId`. */
  | {
      type: "session.compact";
      summary: string;
      firstKeptEntryId: string;
      tokensBefore: number;
      details?: unknown;
    }
  /** Asks for `session.flushed` once everything appended so far is stored. */
  | { type: "session.flush" };

/** What the session actor answers its parent, one event per command outcome. */
export type SessionReply =
  | { type: "session.written"; entry: { id: string; type: string } }
  | { type: "session.branched"; targetId: string | null }
  | { type: "session.flushed" }
  | { type: "session.failed"; command: SessionCommand["type"]; error: string };
