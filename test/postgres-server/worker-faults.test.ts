import { describe, expect, it } from "vitest";
import { messageTexts, watchUntil, workerFixture } from "./worker-fixture.js";

const fixture = workerFixture("faults");

describe("worker faults", () => {
  for (const [mode, when, attempts] of [
    ["hang-before", "after the journal entry, before the side effect", 1],
    ["hang-after", "after the side effect, before the result", 2],
  ] as const) {
    it(`kill -9 ${when}: another worker takes the lapsed lease over and replays the call with the same key; the effect is applied once`, {
      timeout: 60_000,
    }, async () => {
      const { schema, client, repo } = await fixture.setup();
      const doomed = await fixture.startWorker(schema, mode);
      await client.submit("crash", "effect target", { cwd: "/w" });
      await doomed.waitFor(mode === "hang-after" ? "APPLIED crash:call-1\n" : "STARTED crash:call-1\n");
      doomed.child.kill("SIGKILL");
      await doomed.exited;

      // The new worker's reconciler finds the lapsed lease (2 s) and wakes the session.
      const successor = await fixture.startWorker(schema);
      await watchUntil(client, "crash", "idle");
      expect(successor.output).toContain("STARTED crash:call-1\n");
      expect(await messageTexts(repo, "crash")).toEqual([
        "effect target",
        "[toolCall]",
        "applied",
        "done: applied",
      ]);
      // One row per idempotency key: the replay reached the sink with the same key.
      expect(await fixture.effects(schema)).toEqual([{ key: "crash:call-1", attempts }]);
      const { rows } = await fixture.server.pool.query<{ lease_epoch: string }>(
        `SELECT lease_epoch::text FROM "${schema}".sessions WHERE id = 'crash'`,
      );
      expect(Number(rows[0]!.lease_epoch)).toBeGreaterThan(1);
    });
  }

  it("SIGTERM drains: the running turn finishes before the worker exits", { timeout: 60_000 }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const worker = await fixture.startWorker(schema);
    await client.submit("drain", "slow work", { cwd: "/w" });
    await worker.waitFor("SLOW_STARTED\n");
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(worker.output).toContain("STOPPED\n");
    expect(await messageTexts(repo, "drain")).toEqual([
      "slow work",
      "[toolCall]",
      "slow done",
      "done: slow done",
    ]);
    await watchUntil(client, "drain", "idle");
  });

  it("SIGTERM past the drain time hands the turn back: lease released, session re-woken, another worker finishes it", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const worker = await fixture.startWorker(schema, "hang-after", 200);
    await client.submit("handback", "effect target", { cwd: "/w" });
    await worker.waitFor("APPLIED handback:call-1\n");
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    const { rows } = await fixture.server.pool.query(
      `SELECT s.lease_owner, r.state FROM "${schema}".sessions s JOIN "${schema}".runs r ON r.session_id = s.id
        WHERE s.id = 'handback'`,
    );
    expect(rows).toEqual([{ lease_owner: null, state: "queued" }]);

    await fixture.startWorker(schema);
    await watchUntil(client, "handback", "idle");
    expect(await messageTexts(repo, "handback")).toEqual([
      "effect target",
      "[toolCall]",
      "applied",
      "done: applied",
    ]);
    expect(await fixture.effects(schema)).toEqual([{ key: "handback:call-1", attempts: 2 }]);
  });
});
