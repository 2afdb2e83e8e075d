import { SessionError } from "../types/session-error.js";
import type { PostgresPool } from "./postgres-pool.js";

/** Where a lease lives and how long it lasts. */
export interface LeaseTerms {
  pool: PostgresPool;
  /** Quoted schema name. */
  schema: string;
  sessionId: string;
  /** Random token naming this writer. */
  owner: string;
  /** The epoch this writer took; a later owner increments it. */
  epoch: number;
  leaseMs: number;
  /** Called once when the lease is lost (renewal refused or impossible until it expired). */
  onLost?: (sessionId: string, error: SessionError) => void;
}

/** The SQL fragment `now() + leaseMs` for parameter `$n` (milliseconds). */
export function leaseExpiry(parameter: number): string {
  return `now() + $${parameter}::float8 * interval '1 millisecond'`;
}

/** The error of a writer whose lease another writer took (or that expired and was taken). */
export function fencedError(sessionId: string): SessionError {
  return new SessionError(
    "fenced",
    `Session "${sessionId}" is no longer leased to this writer (it expired or another writer took it); the write was not stored — open the session again to continue.`,
  );
}

/**
 * One writer's lease on a session row: (owner, epoch, expiry by the database clock). Renewed every
 * third of `leaseMs` while held; `lost` aborts when a renewal is refused (another owner took the
 * session) or when renewals failed for a whole lease length (the database was unreachable).
 *
 * Renewal proves the writer can still append: while an append (see `trackAppend`) has been pending
 * for more than a third of `leaseMs` — its connection may be half-open, the statement never
 * answered — the lease is not renewed, as if the database were unreachable; the writer loses it
 * within one lease length and another writer can take the session over.
 */
export class SessionLease {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setInterval>;
  private lastRenewed = performance.now();
  private released = false;
  /** When the oldest append still pending started (`performance.now()`), if one is pending. */
  private appendPendingSince: number | undefined;
  private appendsPending = 0;

  constructor(private readonly terms: LeaseTerms) {
    this.timer = setInterval(() => void this.renew().catch(() => {}), Math.max(1, terms.leaseMs / 3));
    this.timer.unref?.();
  }

  /** Aborted (with the `fenced` error as reason) once the lease is lost. */
  get lost(): AbortSignal {
    return this.controller.signal;
  }

  get sessionId(): string {
    return this.terms.sessionId;
  }
  get owner(): string {
    return this.terms.owner;
  }
  get epoch(): number {
    return this.terms.epoch;
  }
  get leaseMs(): number {
    return this.terms.leaseMs;
  }

  /**
   * Follows an append of the session: while it is pending for more than a third of `leaseMs`, the
   * lease is not renewed. Resolves or rejects as `append` does.
   */
  async trackAppend<T>(append: Promise<T>): Promise<T> {
    if (this.appendsPending++ === 0) this.appendPendingSince = performance.now();
    try {
      return await append;
    } finally {
      if (--this.appendsPending === 0) this.appendPendingSince = undefined;
    }
  }

  /**
   * Extends the lease to `leaseMs` from now (database clock) — unless an append has been pending for
   * more than a third of `leaseMs` (then the renewal counts as failed).
   * @throws SessionError("fenced") if the lease is no longer this writer's (and marks it lost).
   */
  async renew(): Promise<void> {
    if (this.released) return;
    if (this.lost.aborted) throw this.lost.reason;
    const { pool, schema, sessionId, owner, epoch, leaseMs } = this.terms;
    let renewed: boolean;
    try {
      const since = this.appendPendingSince;
      if (since !== undefined && performance.now() - since > leaseMs / 3) {
        throw new SessionError("storage", `An append of session "${sessionId}" has not been answered.`);
      }
      const result = await pool.query(
        `UPDATE ${schema}.sessions SET lease_expires_at = ${leaseExpiry(4)}
          WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3 AND lease_expires_at > now()`,
        [sessionId, owner, epoch, leaseMs],
      );
      renewed = result.rowCount === 1;
    } catch (error) {
      // Unreachable database: the lease is still ours until it would have expired.
      if (performance.now() - this.lastRenewed < leaseMs) throw error;
      renewed = false;
    }
    if (renewed) {
      this.lastRenewed = performance.now();
      return;
    }
    throw this.markLost();
  }

  /** Marks the lease lost (stops renewing, aborts `lost`, tells `onLost`) and returns the error. */
  markLost(): SessionError {
    if (this.lost.aborted) return this.lost.reason as SessionError;
    clearInterval(this.timer);
    const error = fencedError(this.terms.sessionId);
    this.controller.abort(error);
    this.terms.onLost?.(this.terms.sessionId, error);
    return error;
  }

  /** Stops renewing and gives the session back (only if this writer still holds it). Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.timer);
    if (this.lost.aborted) return;
    const { pool, schema, sessionId, owner, epoch } = this.terms;
    await pool.query(
      `UPDATE ${schema}.sessions SET lease_owner = NULL, lease_expires_at = NULL
        WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3`,
      [sessionId, owner, epoch],
    );
  }
}
