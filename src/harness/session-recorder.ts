import type { SessionDraft } from "../machines/harness/harness.events.js";
import type { Session } from "../storage/session.js";
import type { AgentEvent } from "../types/events.js";
import { AgentHarnessError, wrapError } from "./errors.js";

/** The custom entry of a run's validated typed output: `data: { output }`. */
export const OUTPUT_ENTRY = "agentchart.output";
/** The custom entry of a guardrail that tripped: `data` is the trip (`{ guardrail, kind, reason }`). */
export const GUARDRAIL_ENTRY = "agentchart.guardrail_tripped";

/** What became of one write: the entry it appended, or why it failed. */
export type SessionWriteReport =
  | { written: { id: string; type: string } }
  | { failed: { draft: SessionDraft["type"]; error: unknown } };

/**
 * Writes the harness's entries to the session in order, following the agent's runs (`record`).
 * Messages are appended the moment they end (the session tree takes them synchronously; the file
 * write follows); a run's typed output and a guardrail trip become custom entries at its end. Setting
 * changes made while a run is active are held until the next turn boundary, so they land after that
 * turn's messages and take effect, like the setters themselves, from the next request on. Write
 * failures are kept and reported by `flush()`, and each write's outcome goes to `onReport`.
 */
export class SessionRecorder {
  readonly #session: Session;
  #deferred: SessionDraft[] = [];
  #failure: unknown;
  /** True from `agent_start` to `agent_end`. */
  #running = false;
  /** Hears the outcome of every write (the session actor answers with it). */
  onReport: ((report: SessionWriteReport) => void) | undefined;

  constructor(session: Session) {
    this.#session = session;
  }

  /** Follows an AgentEvent: a message is appended at its `message_end`; a turn's end writes the held settings. */
  record(event: AgentEvent): void {
    switch (event.type) {
      case "agent_start":
        this.#running = true;
        break;
      case "message_end":
        this.#write({ type: "message", message: event.message });
        break;
      case "turn_end":
        this.#turnBoundary();
        break;
      case "agent_end": {
        const { output, guardrail } = event;
        if (output !== undefined) this.#write({ type: "custom", customType: OUTPUT_ENTRY, data: { output } });
        if (guardrail) this.#write({ type: "custom", customType: GUARDRAIL_ENTRY, data: guardrail });
        this.#running = false;
        this.#turnBoundary();
        break;
      }
    }
  }

  /** Appends `draft` now when no run is active, at the next turn boundary while one is. */
  append(draft: SessionDraft): void {
    if (this.#running) this.#deferred.push(draft);
    else this.#write(draft);
  }

  /** Throws `AgentHarnessError("session")` unless the session can take appends. */
  assertWritable(): void {
    const session = this.#session;
    if (session.status !== "open") {
      throw new AgentHarnessError("session", `The session is ${session.status}; cannot record changes`, {
        cause: session.error,
      });
    }
  }

  /** Writes what is held and waits for the file; rejects with `AgentHarnessError("session")` on failure. */
  async flush(): Promise<void> {
    this.#turnBoundary();
    try {
      await this.#session.flush();
    } catch (error) {
      this.#failure ??= error;
    }
    const failure = this.#failure;
    this.#failure = undefined;
    if (failure !== undefined) throw wrapError("session", "The session could not persist the turn", failure);
  }

  #write(draft: SessionDraft): void {
    appendDraft(this.#session, draft).then(
      (entry) => this.onReport?.({ written: { id: entry.id, type: entry.type } }),
      (error: unknown) => {
        this.#failure ??= error;
        this.onReport?.({ failed: { draft: draft.type, error } });
      },
    );
  }

  #turnBoundary(): void {
    const held = this.#deferred;
    this.#deferred = [];
    for (const draft of held) this.#write(draft);
  }
}

/**
 * Appends `draft` to `session` with the session method of its type.
 *
 * Contract: resolves with the appended entry; rejects as the session method does (a closed session,
 * a failed write).
 */
export function appendDraft(session: Session, draft: SessionDraft): Promise<{ id: string; type: string }> {
  switch (draft.type) {
    case "message":
      return session.appendMessage(draft.message);
    case "model_change":
      return session.appendModelChange(draft.provider, draft.modelId);
    case "thinking_level_change":
      return session.appendThinkingLevelChange(draft.thinkingLevel);
    case "active_tools_change":
      return session.appendActiveToolsChange(draft.activeToolNames);
    case "custom":
      return session.appendCustom(draft.customType, draft.data);
  }
}
