import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { Observable, Subscription } from "rxjs";
import type { HarnessEvent } from "../harness/hooks.js";
import { type ReplyDelta, replyDeltaOf } from "../storage/reply-delta.js";
import type { PostgresPool } from "./postgres-pool.js";
import { CHANGE_CHANNEL } from "./postgres-schema.js";
import type { PostgresSession } from "./postgres-session.js";
import { entryPosition } from "./stream-position.js";

/** What a {@link ReplyRecorder} writes to. */
export interface ReplyRecorderHost {
  pool: PostgresPool;
  /** Quoted schema. */
  s: string;
  /** Unquoted schema (the notification payload names it). */
  schema: string;
  /** The leased session whose replies are recorded. */
  session: PostgresSession;
  /** Receives failed writes (the deltas of that batch are not stored; the message still is). */
  onError: (error: unknown) => void;
  /** How long a batch collects deltas before it is written (ms; 0: write at once). */
  batchMs: number;
}

/** The reply being streamed: its random id and the position of the entry it follows. */
interface Reply {
  id: string;
  after: number;
  /** No batch of it stored yet (the first one drops the deltas of an abandoned reply). */
  first: boolean;
}

type Step = { kind: "delta"; reply: Reply; delta: ReplyDelta } | { kind: "compact"; below: number };

/**
 * Records the deltas of the replies a worker streams into `reply_deltas` (the root agent's: sub-agents'
 * replies are not the session's), so that readers in other
 * processes (`watch(id, { deltas: true })`) can replay the running reply. Writes are group-committed:
 * one statement at a time, carrying every delta that arrived while the previous one ran and during
 * the `batchMs` the batch waits for more (at a model's pace, one delta per statement otherwise); each is
 * fenced by the session's lease (a writer that lost it stores nothing) and notifies watchers. Once a
 * reply's message entry is stored, the deltas before it are deleted. The first batch of a reply also
 * deletes the deltas of a reply abandoned after the same entry (its worker died), numbering on after
 * them so that positions are never reused.
 *
 * ```ts
 * declare const options: ConstructorParameters<typeof ReplyRecorder>[0]; // the worker's pool, schema and session
 * const recorder = new ReplyRecorder({ ...options, batchMs: 20 });
 * const subscription = recorder.follow(harness.events$);
 * ```
 */
export class ReplyRecorder {
  readonly #host: ReplyRecorderHost;
  readonly #insert: string;
  #steps: Step[] = [];
  #writing: Promise<void> | undefined;
  #reply: Reply | undefined;
  #fenced = false;

  constructor(host: ReplyRecorderHost) {
    this.#host = host;
    const { s } = host;
    this.#insert = `WITH leased AS (
        SELECT id FROM ${s}.sessions
         WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3 AND lease_expires_at > now()
      ), last AS (
        SELECT GREATEST(COALESCE(max(seq), 0), $4::bigint) AS seq FROM ${s}.reply_deltas WHERE session_id = $1
      ), abandoned AS (
        DELETE FROM ${s}.reply_deltas
         WHERE $7::boolean AND session_id = $1 AND reply <> $5 AND EXISTS (SELECT 1 FROM leased)
      ), notified AS (
        SELECT pg_notify('${CHANGE_CHANNEL}', $8) AS sent FROM leased
      )
      INSERT INTO ${s}.reply_deltas (session_id, seq, reply, delta)
      SELECT leased.id, last.seq + step.n, $5, step.delta::jsonb
        FROM leased, last, notified, unnest($6::text[]) WITH ORDINALITY AS step (delta, n)`;
  }

  /** Records the replies streamed on `events$` (a harness's events); unsubscribe to stop. */
  follow(events$: Observable<HarnessEvent>): Subscription {
    return events$.subscribe((event) => this.#observe(event));
  }

  /** Resolves once every step observed so far is written (or failed). Never rejects. */
  async settled(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  #observe(event: HarnessEvent): void {
    // The root's own replies only: a sub-agent's stream (events with `agentPath`) is not the session's reply.
    if (this.#fenced || ("agentPath" in event && event.agentPath !== undefined && event.agentPath.length > 0))
      return;
    const entries = () => this.#host.session.getEntries().length;
    if (event.type === "message_start" && event.message.role === "assistant") {
      this.#reply = { id: randomUUID(), after: entryPosition(entries()), first: true };
    } else if (event.type === "message_update" && this.#reply) {
      const delta = replyDeltaOf(event.assistantMessageEvent);
      if (delta) this.#enqueue({ kind: "delta", reply: this.#reply, delta });
    } else if (event.type === "message_end" && event.message.role === "assistant" && this.#reply) {
      // The harness appended the message before emitting message_end: it is the last entry.
      this.#reply = undefined;
      this.#enqueue({ kind: "compact", below: entryPosition(entries()) });
    }
  }

  #enqueue(step: Step): void {
    this.#steps.push(step);
    this.#writing ??= this.#drain().finally(() => {
      this.#writing = undefined;
    });
  }

  async #drain(): Promise<void> {
    while (this.#steps.length > 0 && !this.#fenced) {
      const head = this.#steps[0]!;
      try {
        if (head.kind === "compact") {
          this.#steps.shift();
          await this.#compact(head.below);
          continue;
        }
        if (this.#host.batchMs > 0) await delay(this.#host.batchMs); // more deltas join the batch
        let end = 1;
        while (end < this.#steps.length) {
          const step = this.#steps[end]!;
          if (step.kind !== "delta" || step.reply !== head.reply) break;
          end++;
        }
        const batch = this.#steps.splice(0, end) as Extract<Step, { kind: "delta" }>[];
        await this.#write(
          head.reply,
          batch.map((step) => step.delta),
        );
      } catch (error) {
        this.#host.onError(error);
      }
    }
    if (this.#fenced) this.#steps = [];
  }

  async #write(reply: Reply, deltas: ReplyDelta[]): Promise<void> {
    const { pool, session, schema } = this.#host;
    const { owner, epoch } = session.leaseHolder;
    const first = reply.first;
    reply.first = false;
    const result = await pool.query(this.#insert, [
      session.id,
      owner,
      epoch,
      reply.after,
      reply.id,
      deltas.map((delta) => JSON.stringify(delta)),
      first,
      `${schema}/${session.id}`,
    ]);
    if (result.rowCount !== deltas.length) this.#fenced = true; // another writer holds the session
  }

  /** Once the reply's message is stored, deletes the deltas before it (a failed store keeps them). */
  async #compact(below: number): Promise<void> {
    const { pool, s, session } = this.#host;
    try {
      await session.flush();
    } catch {
      return; // not stored (e.g. fenced): the next writer's reply replaces these deltas
    }
    await pool.query(`DELETE FROM ${s}.reply_deltas WHERE session_id = $1 AND seq < $2`, [session.id, below]);
  }
}
