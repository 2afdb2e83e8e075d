import { filter, firstValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentClient, RunState } from "../../src/postgres.js";
import { messageTexts, watchUntil, workerFixture } from "./worker-fixture.js";

const fixture = workerFixture("faults");

/** Resolves with the first of `states` the session's run reaches. */
async function firstStateOf(client: AgentClient, sessionId: string, states: RunState[]): Promise<RunState> {
  const update = await firstValueFrom(
    client
      .watch(sessionId, { afterSeq: 0 })
      .pipe(filter((seen) => seen.type === "run_state" && states.includes(seen.state))),
  );
  return (update as { state: RunState }).state;
}

/** What the session still holds of the worker tables: commands, parked runs, the lease. */
async function leftovers(schema: string, sessionId: string) {
  const query = async (sql: string) => (await fixture.server.pool.query(sql, [sessionId])).rows;
  return {
    commands: await query(`SELECT kind FROM "${schema}".commands WHERE session_id = $1`),
    parked: await query(`SELECT awaiting FROM "${schema}".parked_runs WHERE session_id = $1`),
    lease: await query(`SELECT lease_owner FROM "${schema}".sessions WHERE id = $1`),
  };
}

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

  it("steer then kill -9: the steer accepted by the dying worker's run is delivered once by the worker that resumes it", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const doomed = await fixture.startWorker(schema, "hang-before");
    await client.submit("steered", "effect target", { cwd: "/w" });
    await doomed.waitFor("STARTED steered:call-1\n");
    await client.steer("steered", "change of plan"); // stored: acknowledged
    await doomed.waitFor('QUEUED "change of plan"\n'); // in the running harness's queue
    doomed.child.kill("SIGKILL");
    await doomed.exited;

    await fixture.startWorker(schema);
    await watchUntil(client, "steered", "idle");
    // Delivered once, where the resumed run polls its queue: after the resumed tool batch (before the
    // model sees the result) or when the run would stop — which one depends on when the resuming
    // worker has the stored steer in its queue, both are the steering contract.
    expect([
      ["effect target", "[toolCall]", "applied", "done: applied", "change of plan", "echo: change of plan"],
      ["effect target", "[toolCall]", "applied", "change of plan", "echo: change of plan"],
    ]).toContainEqual(await messageTexts(repo, "steered"));
    expect(await leftovers(schema, "steered")).toEqual({
      commands: [],
      parked: [],
      lease: [{ lease_owner: null }],
    });
  });

  it("abort of a run parked for approval ends it: every parked call answered as aborted, the session released and usable", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    await fixture.startWorker(schema);
    await client.submit("aborted", "guarded door", { cwd: "/w" });
    await watchUntil(client, "aborted", "awaiting_approval");
    await client.abort("aborted");
    expect(await firstStateOf(client, "aborted", ["idle"])).toBe("idle");
    expect(await messageTexts(repo, "aborted")).toEqual([
      "guarded door",
      "[toolCall]",
      "Tool call aborted",
      "",
    ]);
    const lastReply = (await repo.exportJsonl("aborted"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .at(-1);
    expect(lastReply.message).toMatchObject({
      role: "assistant",
      stopReason: "aborted",
      errorMessage: "Run was aborted while waiting for approval",
    });
    expect(await leftovers(schema, "aborted")).toEqual({
      commands: [],
      parked: [],
      lease: [{ lease_owner: null }],
    });
    expect(await fixture.effects(schema)).toEqual([]);

    // The next prompt goes on from the answered calls.
    const { afterSeq } = await client.submit("aborted", "hello again");
    await watchUntil(client, "aborted", "idle", afterSeq);
    expect((await messageTexts(repo, "aborted")).slice(4)).toEqual(["hello again", "echo: hello again"]);
  });

  it("kill -9 between the approval request and parking: the call still awaits approval (not interrupted) and runs once approved", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const doomed = await fixture.startWorker(schema, "die-on-approval");
    await client.submit("unparked", "guarded door", { cwd: "/w" });
    expect(await doomed.exited).toBe(null); // killed itself at the approval request
    expect(doomed.child.signalCode).toBe("SIGKILL");

    // The next worker's reconciler finds the lapsed lease; the call must wait for a human.
    await fixture.startWorker(schema);
    expect(await firstStateOf(client, "unparked", ["awaiting_approval", "idle"])).toBe("awaiting_approval");
    expect(await messageTexts(repo, "unparked")).toEqual(["guarded door", "[toolCall]"]);
    const { parked, lease } = await leftovers(schema, "unparked");
    expect({ parked, lease }).toEqual({ parked: [{ awaiting: ["call-1"] }], lease: [{ lease_owner: null }] });

    await client.approve("unparked", "call-1");
    await watchUntil(client, "unparked", "idle");
    expect(await messageTexts(repo, "unparked")).toEqual([
      "guarded door",
      "[toolCall]",
      "guarded ran",
      "done: guarded ran",
    ]);
    expect(await fixture.effects(schema)).toEqual([{ key: "unparked:call-1", attempts: 1 }]);
    expect(await leftovers(schema, "unparked")).toEqual({
      commands: [],
      parked: [],
      lease: [{ lease_owner: null }],
    });
  });
});
