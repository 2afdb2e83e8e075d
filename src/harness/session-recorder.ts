import type { Session } from "../storage/session.js";
import type { AgentEvent } from "../types/events.js";
import { AgentHarnessError, wrapError } from "./errors.js";

/** The custom entry of a run's validated typed output: `data: { output }`. */
export const OUTPUT_ENTRY = "agentchart.output";
/** The custom entry of a guardrail that tripped: `data` is the trip (`{ guardrail, kind, reason }`). */
export const GUARDRAIL_ENTRY = "agentchart.guardrail_tripped";

/**
 * Writes the harness's entries to the session in order, following the agent's runs (`record`).
 * Messages are appended the moment they end (the session tree takes them synchronously; the file
 * write follows); a run's typed output and a guardrail trip become custom entries at its end. Setting changes made while a run is active are held until the next turn boundary,
 * so they land after that turn's messages and take effect, like the setters themselves, from the next
 * request on. Write failures are kept and reported by `flush()`.
 */
export class SessionRecorder {
  readonly #session: Session;
  #deferred: (() => Promise<unknown>)[] = [];
  #failure: unknown;
  /** True from `agent_start` to `agent_end`. */
  #running = false;

  constructor(session: Session) {
    this.#session = session;
  }

  /** Follows an AgentEvent: a message is appended at its `message_end`; a turn's end writes the held settings. */
  record(event: AgentEvent): void {
    switch (event.type) {
      case "agent_start":
        this.#running = true;
        break;
      case "message_end": {
        const message = event.message;
        this.#write(() => this.#session.appendMessage(message));
        break;
      }
      case "turn_end":
        this.#turnBoundary();
        break;
      case "agent_end": {
        const { output, guardrail } = event;
        if (output !== undefined) this.#write(() => this.#session.appendCustom(OUTPUT_ENTRY, { output }));
        if (guardrail) this.#write(() => this.#session.appendCustom(GUARDRAIL_ENTRY, guardrail));
        this.#running = false;
        this.#turnBoundary();
        break;
      }
    }
  }

  /** Appends a setting change now when no run is active, at the next turn boundary while one is. */
  writeSetting(append: () => Promise<unknown>): void {
    if (this.#running) this.#deferred.push(append);
    else this.#write(append);
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

  #write(append: () => Promise<unknown>): void {
    append().catch((error) => {
      this.#failure ??= error;
    });
  }

  #turnBoundary(): void {
    const held = this.#deferred;
    this.#deferred = [];
    for (const append of held) this.#write(append);
  }
}
