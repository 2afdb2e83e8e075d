import { expect, it } from "vitest";
import { z } from "zod";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { type AgentMessage, defineTool, type Session } from "../../src/index.js";
import {
  type PostgresPool,
  type PostgresSession,
  PostgresSessionRepo,
  type PostgresSessionRepoOptions,
} from "../../src/postgres.js";
import { scriptedModel } from "../../src/testing.js";
import { testModel } from "./loop-harness.js";
import { userMessage } from "./session-files.js";

/** A database to run the cases on: a pool and a fresh schema name per call. */
export interface PostgresTarget {
  pool: PostgresPool;
  schema(): string;
}

const texts = (session: Session) =>
  session.buildContext().messages.map((message) => (message as AgentMessage & { content: string }).content);

const repoOn = (
  target: PostgresTarget,
  schema: string,
  options: Omit<PostgresSessionRepoOptions, "pool" | "connectionString"> = {},
) => new PostgresSessionRepo({ pool: target.pool, schema, ...options });

/** Makes the session's lease look expired, as if its writer had paused past the lease length. */
async function expireLease(target: PostgresTarget, schema: string, id: string): Promise<void> {
  await target.pool.query(
    `UPDATE "${schema}".sessions SET lease_expires_at = now() - interval '1 second' WHERE id = $1`,
    [id],
  );
}

async function leaseRow(target: PostgresTarget, schema: string, id: string) {
  const { rows } = await target.pool.query<{
    owner: string | null;
    epoch: number;
    remaining_ms: number | null;
  }>(
    `SELECT lease_owner AS owner, lease_epoch::float8 AS epoch,
            (extract(epoch FROM lease_expires_at - now()) * 1000)::float8 AS remaining_ms
       FROM "${schema}".sessions WHERE id = $1`,
    [id],
  );
  return rows[0]!;
}

function abortedOnce(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(signal.reason), { once: true }),
  );
}

/** Registers the lease, fencing, listing and migration cases of the Postgres repo against `target`. */
export function postgresRepoCases(target: () => PostgresTarget): void {
  it("takes the lease on open (epoch + 1), refuses a live one with `locked`, and releases it on close", async () => {
    const t = target();
    const schema = t.schema();
    const first = repoOn(t, schema);
    const session = await first.create({ id: "leased" });
    expect(await leaseRow(t, schema, "leased")).toMatchObject({ epoch: 1, owner: expect.any(String) });
    await expect(repoOn(t, schema).open("leased")).rejects.toMatchObject({ code: "locked" });
    await expect(repoOn(t, schema).delete("leased")).rejects.toMatchObject({ code: "locked" });
    await session.close();
    expect(await leaseRow(t, schema, "leased")).toMatchObject({ epoch: 1, owner: null, remaining_ms: null });
    const again = await repoOn(t, schema).open("leased");
    expect((await leaseRow(t, schema, "leased")).epoch).toBe(2);
    await again.close();
  });

  it("lets one of many concurrent openers win the lease", async () => {
    const t = target();
    const schema = t.schema();
    await (await repoOn(t, schema).create({ id: "race" })).close();
    const attempts = await Promise.allSettled(
      Array.from({ length: 5 }, () => repoOn(t, schema).open("race")),
    );
    const won = attempts.filter((attempt) => attempt.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const attempt of attempts) {
      if (attempt.status === "rejected") expect(attempt.reason).toMatchObject({ code: "locked" });
    }
    await (won[0] as PromiseFulfilledResult<PostgresSession>).value.close();
  });

  it("fences a writer whose lease was taken: its writes fail with `fenced` and are not stored", async () => {
    const t = target();
    const schema = t.schema();
    const lost: string[] = [];
    const zombie = await repoOn(t, schema, { onLeaseLost: (id) => lost.push(id) }).create({ id: "zombie" });
    await zombie.appendMessage(userMessage("before the pause"));
    await expireLease(t, schema, "zombie");
    const successor = await repoOn(t, schema).open("zombie");
    expect(texts(successor)).toEqual(["before the pause"]);

    const late = [zombie.appendMessage(userMessage("late 1")), zombie.appendMessage(userMessage("late 2"))];
    for (const write of late) await expect(write).rejects.toMatchObject({ code: "fenced" });
    expect(zombie.status).toBe("failed");
    expect(zombie.error?.code).toBe("fenced");
    expect(zombie.leaseLost.aborted).toBe(true);
    expect(lost).toEqual(["zombie"]);
    await expect(zombie.appendMessage(userMessage("later"))).rejects.toMatchObject({ code: "fenced" });

    await successor.appendMessage(userMessage("successor"));
    await Promise.all([zombie.close(), successor.close()]);
    // The zombie's close must not release the successor's lease.
    const reopened = await repoOn(t, schema).open("zombie");
    expect(texts(reopened)).toEqual(["before the pause", "successor"]);
    await reopened.close();
  });

  it("fences a writer whose lease expired even if nobody took it", async () => {
    const t = target();
    const schema = t.schema();
    const session = await repoOn(t, schema).create({ id: "expired" });
    await expireLease(t, schema, "expired");
    await expect(session.appendMessage(userMessage("too late"))).rejects.toMatchObject({ code: "fenced" });
    await session.close();
    const reopened = await repoOn(t, schema).open("expired");
    expect(reopened.getEntries()).toEqual([]);
    await reopened.close();
  });

  it("stores exactly the writes acknowledged before a takeover that races them", async () => {
    const t = target();
    const schema = t.schema();
    const zombie = await repoOn(t, schema).create({ id: "racing" });
    const writes = Array.from({ length: 20 }, (_, i) =>
      zombie.appendMessage(userMessage(`w${i}`)).then(
        () => `w${i}`,
        (error: { code?: string }) => {
          expect(error.code).toBe("fenced");
          return undefined;
        },
      ),
    );
    await expireLease(t, schema, "racing");
    const successor = await repoOn(t, schema).open("racing");
    const acknowledged = (await Promise.all(writes)).filter((text) => text !== undefined);
    expect(texts(successor)).toEqual(acknowledged);
    await Promise.all([zombie.close(), successor.close()]);
  });

  it("renews the lease by the database clock (appends renew it too) and reports a lost one", async () => {
    const t = target();
    const schema = t.schema();
    const session = await repoOn(t, schema, { leaseMs: 60_000 }).create({ id: "renewed" });
    const shorten = () =>
      t.pool.query(
        `UPDATE "${schema}".sessions SET lease_expires_at = now() + interval '5 seconds' WHERE id = $1`,
        ["renewed"],
      );
    await shorten();
    expect((await leaseRow(t, schema, "renewed")).remaining_ms).toBeLessThan(5_001);
    await session.renewLease();
    expect((await leaseRow(t, schema, "renewed")).remaining_ms).toBeGreaterThan(50_000);
    await shorten();
    await session.appendMessage(userMessage("renews"));
    expect((await leaseRow(t, schema, "renewed")).remaining_ms).toBeGreaterThan(50_000);

    await expireLease(t, schema, "renewed");
    await expect(session.renewLease()).rejects.toMatchObject({ code: "fenced" });
    expect(session.leaseLost.aborted).toBe(true);
    await session.close();
  });

  it("notices a lost lease from its renewal timer and aborts `leaseLost`", async () => {
    const t = target();
    const schema = t.schema();
    const session = await repoOn(t, schema, { leaseMs: 300 }).create({ id: "timer" });
    await expireLease(t, schema, "timer");
    const successor = await repoOn(t, schema, { leaseMs: 60_000 }).open("timer");
    const reason = await abortedOnce(session.leaseLost);
    expect(reason).toMatchObject({ code: "fenced" });
    await expect(session.appendMessage(userMessage("x"))).rejects.toMatchObject({ code: "fenced" });
    await Promise.all([session.close(), successor.close()]);
  });

  it("lets a run abort when its lease is lost mid-tool; nothing it writes afterwards is stored", async () => {
    const t = target();
    const schema = t.schema();
    const session = await repoOn(t, schema, { leaseMs: 1_500 }).create({ id: "aborted" });
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = defineTool({
      name: "slow",
      description: "Runs until aborted",
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        started();
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
        return { content: [{ type: "text", text: "stopped" }] };
      },
    });
    const harness = new AgentHarness({
      session,
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ id: "c1", name: "slow", arguments: {} }] },
        { text: "never sent" },
      ]),
      tools: [slow],
    });
    session.leaseLost.addEventListener("abort", () => void harness.abort());
    const run = harness.prompt("go").then(
      (reply) => reply,
      (error: unknown) => error,
    );
    await toolStarted;
    await expireLease(t, schema, "aborted");
    const successor = await repoOn(t, schema, { leaseMs: 60_000 }).open("aborted");
    const outcome = await run; // the renewal timer notices the takeover and the run is aborted
    expect(session.leaseLost.aborted).toBe(true);
    expect(session.error?.code).toBe("fenced");
    expect(outcome).toMatchObject({ code: "session" });
    await session.close();
    await successor.close();
    const reopened = await repoOn(t, schema).open("aborted");
    const kinds = reopened.getEntries().map((e) => (e.type === "message" ? e.message.role : e.type));
    // The prompt, the reply asking for the tool and its journal entry; the zombie's tool result was refused.
    expect(kinds).toEqual(["user", "assistant", "custom"]);
    await reopened.close();
  });

  it("keeps a lease through failed renewals until a whole lease length passed, then reports it lost", async () => {
    const t = target();
    const schema = t.schema();
    let unreachable = false;
    // The database "goes away" for lease renewals only (appends are not attempted meanwhile).
    const flaky: PostgresPool = {
      query: (text, values) =>
        unreachable && text.includes("SET lease_expires_at")
          ? Promise.reject(new Error("connection terminated"))
          : t.pool.query(text, values),
      connect: () => t.pool.connect(),
    };
    const lost: string[] = [];
    const repo = new PostgresSessionRepo({
      pool: flaky,
      schema,
      leaseMs: 3_000,
      onLeaseLost: (id) => lost.push(id),
    });
    const session = await repo.create({ id: "partitioned" });
    unreachable = true;
    await expect(session.renewLease()).rejects.toThrow("connection terminated");
    expect(session.leaseLost.aborted).toBe(false);
    const reason = await abortedOnce(session.leaseLost); // the timer gives up after 3 s without a renewal
    expect(reason).toMatchObject({ code: "fenced" });
    expect(lost).toEqual(["partitioned"]);
    unreachable = false;
    await expect(session.appendMessage(userMessage("after the partition"))).rejects.toMatchObject({
      code: "fenced",
    });
    await session.close();
  });

  it("deletes a session whose writer died (lease expired) but not one with a live lease", async () => {
    const t = target();
    const schema = t.schema();
    const crashed = await repoOn(t, schema).create({ id: "crashed" });
    await crashed.appendMessage(userMessage("x"));
    await expect(repoOn(t, schema).delete("crashed")).rejects.toMatchObject({ code: "locked" });
    await expireLease(t, schema, "crashed");
    await repoOn(t, schema).delete("crashed");
    await expect(repoOn(t, schema).open("crashed")).rejects.toMatchObject({ code: "not_found" });
    await crashed.close();
  });

  it("lists 10,000 sessions page by page through the index, newest first", async () => {
    const t = target();
    const schema = t.schema();
    const repo = repoOn(t, schema);
    await (await repo.create({ id: "made-by-repo", cwd: "/w/0" })).close();
    await t.pool.query(
      `INSERT INTO "${schema}".sessions (id, cwd, header, created_at, modified_seq)
       SELECT 'bulk-' || n, '/w/' || (n % 7),
              jsonb_build_object('type', 'session', 'version', 3, 'id', 'bulk-' || n,
                                 'timestamp', '2025-01-01T00:00:00.000Z', 'cwd', '/w/' || (n % 7)),
              now(), nextval('"${schema}".modification_seq')
         FROM generate_series(1, 9999) AS n`,
    );
    await t.pool.query(`ANALYZE "${schema}".sessions`);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await repo.listPage({ limit: 1000, ...(cursor ? { cursor } : {}) });
      seen.push(...page.sessions.map((info) => info.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(10);
    expect(seen).toHaveLength(10_000);
    expect(new Set(seen).size).toBe(10_000);
    expect(seen[0]).toBe("bulk-9999");
    expect(seen.at(-1)).toBe("made-by-repo");
    expect(seen.slice(0, 3)).toEqual(["bulk-9999", "bulk-9998", "bulk-9997"]);
    const ofCwd = await repo.list({ cwd: "/w/0" });
    expect(ofCwd).toHaveLength(1428 + 1);
    expect(ofCwd.every((info) => info.cwd === "/w/0")).toBe(true);
    await expect(repo.listPage({ cursor: "x; DROP TABLE" })).rejects.toMatchObject({ code: "invalid_id" });

    for (const query of [
      `SELECT id FROM "${schema}".sessions WHERE modified_seq < 5000 ORDER BY modified_seq DESC LIMIT 101`,
      `SELECT id FROM "${schema}".sessions WHERE cwd = '/w/3' ORDER BY cwd, modified_seq DESC LIMIT 101`,
    ]) {
      const { rows } = await t.pool.query<{ "QUERY PLAN": string }>(`EXPLAIN ${query}`);
      const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
      expect(plan).toMatch(/Index Scan/);
      expect(plan).not.toMatch(/Seq Scan/);
    }
  });

  it("creates its schema on first use, once, at a recorded version, and refuses a newer one", async () => {
    const t = target();
    const schema = t.schema();
    await Promise.all([repoOn(t, schema).list(), repoOn(t, schema).list(), repoOn(t, schema).list()]);
    const { rows } = await t.pool.query<{ version: number }>(
      `SELECT version FROM "${schema}".schema_migrations`,
    );
    expect(rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
    await t.pool.query(`INSERT INTO "${schema}".schema_migrations (version) VALUES (99)`);
    await expect(repoOn(t, schema).list()).rejects.toMatchObject({ code: "storage" });
    expect(() => repoOn(t, 'bad"name')).toThrow(expect.objectContaining({ code: "invalid_id" }));
    expect(() => repoOn(t, schema, { leaseMs: 0 })).toThrow(RangeError);
  });
}
