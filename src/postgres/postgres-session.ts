import { Session, type SessionInit } from "../storage/session.js";
import type { SessionLease } from "./session-lease.js";

/**
 * A {@link Session} of the Postgres repo, written under a lease. `leaseLost` aborts when the lease
 * is lost (another writer took the session, or renewals failed for a whole lease length): from then
 * on appends fail with `SessionError("fenced")` and are not stored, so a run using this session
 * should stop — e.g. `session.leaseLost.addEventListener("abort", () => harness.abort())`.
 */
export class PostgresSession extends Session {
  /** Aborted, with the `fenced` error as reason, once this writer's lease is lost. */
  readonly leaseLost: AbortSignal;
  readonly #lease: SessionLease;

  /** @internal Built by the repo; `init.sink` writes under `lease`. */
  constructor(init: SessionInit, lease: SessionLease) {
    super(init);
    this.#lease = lease;
    this.leaseLost = lease.lost;
  }

  /** @internal This writer's lease (owner token and epoch), for statements fenced like its appends. */
  get leaseHolder(): { owner: string; epoch: number } {
    return { owner: this.#lease.owner, epoch: this.#lease.epoch };
  }

  /**
   * Extends the lease to `leaseMs` from now (the repo also does this every third of `leaseMs`
   * while the session is open, and every append renews it).
   * @throws SessionError("fenced") if the lease was lost.
   */
  renewLease(): Promise<void> {
    return this.#lease.renew();
  }
}
