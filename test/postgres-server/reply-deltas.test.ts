import { filter, firstValueFrom, Observable, ReplaySubject, takeWhile } from "rxjs";
import { describe, expect, it } from "vitest";
import { createClient, PostgresSessionRepo, type SessionUpdate } from "../../src/postgres.js";
import { workerFixture } from "./worker-fixture.js";

const fixture = workerFixture("deltas");

/** A prompt whose echo reply streams in 40 deltas (worker mode `gated`). */
const PROMPT = `stream ${"abcdefg".repeat(21)}`; // its 160-character echo splits into 40 deltas of 4

/** The updates of `watch` in a ReplaySubject, until the run state is idle (included). */
function record(updates: Observable<SessionUpdate>) {
  const seen = new ReplaySubject<SessionUpdate>();
  const subscription = updates
    .pipe(takeWhile((update) => !(update.type === "run_state" && update.state === "idle"), true))
    .subscribe(seen);
  return { seen, subscription };
}

const textDeltas = (updates: readonly SessionUpdate[]) =>
  updates.flatMap((update) =>
    update.type === "delta" && update.delta.type === "text_delta" ? [update.delta.delta] : [],
  );
const positions = (updates: readonly SessionUpdate[]) =>
  updates.flatMap((update) => (update.type === "run_state" ? [] : [update.position]));
const replyText = (updates: readonly SessionUpdate[]) => {
  const entry = updates.findLast(
    (update) =>
      update.type === "entry" && update.entry.type === "message" && update.entry.message.role === "assistant",
  );
  if (entry?.type !== "entry" || entry.entry.type !== "message") return undefined;
  const message = entry.entry.message;
  return message.role === "assistant"
    ? message.content.map((block) => (block.type === "text" ? block.text : "")).join("")
    : undefined;
};

async function untilDeltas(seen: ReplaySubject<SessionUpdate>, count: number): Promise<SessionUpdate[]> {
  const all: SessionUpdate[] = [];
  await firstValueFrom(
    seen.pipe(
      filter((update) => {
        all.push(update);
        return textDeltas(all).length >= count;
      }),
    ),
  );
  return all;
}

describe("resumable streams across processes (recorded reply deltas)", () => {
  it("a schema of version 2 (sessions, entries, runs, commands in use) is upgraded to the newest version (3, 4, 5) on first use", async () => {
    const schema = fixture.server.schema();
    const pool = fixture.server.pool;
    const repo = new PostgresSessionRepo({ pool, schema });
    const session = await repo.create({ id: "old", cwd: "/w" });
    await session.appendMessage({ role: "user", content: "kept", timestamp: 1 });
    await session.close();
    await (await repo.create({ id: "waiting", cwd: "/w" })).close();
    // Back to version 2, as a database written by the previous release.
    await pool.query(
      `DROP TABLE "${schema}".reply_deltas, "${schema}".client_runs, "${schema}".approval_requests`,
    );
    await pool.query(`ALTER TABLE "${schema}".commands DROP COLUMN payload_raw, DROP COLUMN request_id`);
    await pool.query(`ALTER TABLE "${schema}".parked_runs DROP COLUMN paused, DROP COLUMN harness_raw`);
    await pool.query(`DELETE FROM "${schema}".schema_migrations WHERE version >= 3`);
    // A run of the previous release parked for approval.
    await pool.query(
      `INSERT INTO "${schema}".parked_runs (session_id, harness, awaiting) VALUES ('waiting', 'null', ARRAY['call-1'])`,
    );
    const client = await createClient({ connectionString: fixture.url, schema });
    try {
      const { rows } = await pool.query<{ version: number }>(
        `SELECT version FROM "${schema}".schema_migrations ORDER BY version`,
      );
      expect(rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
      // Its call waits under a request of its own: it can be decided.
      expect(await client.approvalRequests("waiting")).toEqual([{ toolCallId: "call-1" }]);
      await client.approve("waiting", "call-1");
      expect(await client.run("old", "r1")).toBeUndefined();
      const { run, started } = await client.startRun("old", "r1", "again");
      expect({ run, started }).toEqual({
        run: { runId: "r1", afterSeq: 1, afterPosition: 2 ** 20 },
        started: true,
      });
      // Started once: asking again returns the same run; another run is refused while this one waits.
      expect(await client.startRun("old", "r1", "again")).toEqual({ run, started: false });
      await expect(client.startRun("old", "r2", "other")).rejects.toMatchObject({ code: "locked" });
      const { rows: commands } = await pool.query(
        `SELECT kind FROM "${schema}".commands WHERE session_id = 'old'`,
      );
      expect(commands).toEqual([{ kind: "PROMPT" }]);
    } finally {
      await client.close();
    }
  });

  it("a reader cut mid-reply resumes on another client from its last position: every delta once, same end, deltas deleted", {
    timeout: 60_000,
  }, async () => {
    const { schema, client } = await fixture.setup();
    const worker = await fixture.startWorker(schema, "gated");
    const other = await createClient({ connectionString: fixture.url, schema });
    try {
      const { afterSeq } = await client.submit("cut", PROMPT, { cwd: "/w" });
      const uncut = record(client.watch("cut", { afterSeq, deltas: true }));
      const cut = record(client.watch("cut", { afterSeq, deltas: true }));
      // The reader has the first 10 deltas of the running reply, then its connection is cut.
      const before = await untilDeltas(cut.seen, 10);
      cut.subscription.unsubscribe();
      const last = before.findLast((update) => update.type !== "run_state")!;
      expect(last.type).toBe("delta");
      // It comes back on another client (another pool, another LISTEN connection) at its position.
      const resumed = record(
        other.watch("cut", { afterPosition: (last as { position: number }).position, deltas: true }),
      );
      const gated = await worker.waitFor("GATED\n");
      worker.child.stdin.write("go\n");
      // The reply's last delta is out, its message not yet: both readers get every delta.
      await worker.waitFor("GATED\n", gated);
      await untilDeltas(resumed.seen, 30);
      await untilDeltas(uncut.seen, 40);
      worker.child.stdin.write("go\n");
      const after = await firstValueFrom(resumed.seen.pipe(toArrayUntilIdle()));
      const whole = await firstValueFrom(uncut.seen.pipe(toArrayUntilIdle()));

      const joined = [...before, ...after];
      expect(positions(joined)).toEqual(positions(whole));
      expect(new Set(positions(joined)).size).toBe(positions(joined).length);
      expect(textDeltas(joined)).toEqual(textDeltas(whole));
      expect(textDeltas(joined)).toHaveLength(40);
      expect(textDeltas(joined).join("")).toBe(`echo: ${PROMPT}`);
      expect(replyText(after)).toBe(`echo: ${PROMPT}`);
      // The reply's deltas come before its message entry, which ends the stream of the reply.
      const entryAt = after.findIndex((update) => update.type === "entry" && update.entry.type === "message");
      expect(after.slice(entryAt).some((update) => update.type === "delta")).toBe(false);

      const { rows } = await fixture.server.pool.query(
        `SELECT count(*)::int AS left FROM "${schema}".reply_deltas WHERE session_id = 'cut'`,
      );
      expect(rows).toEqual([{ left: 0 }]);
      // A reader joining after the reply is stored gets the message, no deltas.
      const late = await firstValueFrom(
        client.watch("cut", { afterSeq, deltas: true }).pipe(toArrayUntilIdle()),
      );
      expect(late.some((update) => update.type === "delta")).toBe(false);
      expect(replyText(late)).toBe(`echo: ${PROMPT}`);
    } finally {
      await other.close();
    }
  });
});

/** Collects updates up to the first idle run state (included). */
function toArrayUntilIdle() {
  return (source: Observable<SessionUpdate>) =>
    new Observable<SessionUpdate[]>((subscriber) => {
      const all: SessionUpdate[] = [];
      return source.subscribe({
        next: (update) => {
          all.push(update);
          if (update.type === "run_state" && update.state === "idle") {
            subscriber.next(all);
            subscriber.complete();
          }
        },
        error: (error) => subscriber.error(error),
      });
    });
}
