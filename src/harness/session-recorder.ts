import type { Session } from "../storage/session.js";
import { AgentHarnessError, wrapError } from "./harness-errors.js";

/**
 * Writes the harness's entries to the session in order. Messages are appended the moment they end
 * (the session tree takes them synchronously; the file write follows). Setting changes made while a
 * run is active are held until the next turn boundary, so they land after that turn's messages and
 * take effect, like the setters themselves, from the next request on. Write failures are kept and
 * reported by `flush()`.
 */
export class SessionRecorder {
  readonly #session: Session;
  #deferred: (() => Promise<unknown>)[] = [];
  #failure: unknown;
  /** True while an Agent run is active. */
  running = false;

  constructor(session: Session) {
    this.#session = session;
  }

  /** Appends now. */
  write(append: () => Promise<unknown>): void {
    append().catch((error) => {
      this.#failure ??= error;
    });
  }

  /** Appends now when idle, at the next turn boundary while running. */
  writeSetting(append: () => Promise<unknown>): void {
    if (this.running) this.#deferred.push(append);
    else this.write(append);
  }

  /** A turn ended: write the held setting changes. */
  turnBoundary(): void {
    const held = this.#deferred;
    this.#deferred = [];
    for (const append of held) this.write(append);
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
    this.turnBoundary();
    try {
      await this.#session.flush();
    } catch (error) {
      this.#failure ??= error;
    }
    const failure = this.#failure;
    this.#failure = undefined;
    if (failure !== undefined) throw wrapError("session", "The session could not persist the turn", failure);
  }
}
