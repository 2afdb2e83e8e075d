import { describe, expect, it } from "vitest";
import { messageTexts, watchUntil, workerFixture } from "./worker-fixture.js";

const fixture = workerFixture("workers");

describe("workers on pg-boss", () => {
  it("a worker process finishes a submitted prompt; the client watches the reply arrive", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    await fixture.startWorker(schema);
    const { afterSeq } = await client.submit("hello-session", "hi there", { cwd: "/w" });
    expect(afterSeq).toBe(0);
    const seen = await watchUntil(client, "hello-session", "idle", afterSeq);
    const roles = seen.flatMap((update) =>
      update.type === "entry" && update.entry.type === "message" ? [update.entry.message.role] : [],
    );
    expect(roles).toEqual(["user", "assistant"]);
    expect(await messageTexts(repo, "hello-session")).toEqual(["hi there", "echo: hi there"]);

    // A second prompt to the same session goes on from its transcript.
    const second = await client.submit("hello-session", "again", { cwd: "/w" });
    expect(second.afterSeq).toBeGreaterThan(0);
    await watchUntil(client, "hello-session", "idle", second.afterSeq);
    expect(await messageTexts(repo, "hello-session")).toEqual([
      "hi there",
      "echo: hi there",
      "again",
      "echo: again",
    ]);
  });

  it("approval across workers: the waiting run is persisted, its worker killed, `approve` finishes it on another", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const first = await fixture.startWorker(schema);
    await client.submit("approval", "guarded door", { cwd: "/w" });
    await watchUntil(client, "approval", "awaiting_approval");
    const { rows } = await fixture.server.pool.query<{ awaiting: string[] }>(
      `SELECT awaiting FROM "${schema}".parked_runs WHERE session_id = 'approval'`,
    );
    expect(rows).toEqual([{ awaiting: ["call-1"] }]);
    // The parked run holds no lease: no worker owns the session while it waits.
    const lease = await fixture.server.pool.query(
      `SELECT lease_owner FROM "${schema}".sessions WHERE id = 'approval'`,
    );
    expect(lease.rows).toEqual([{ lease_owner: null }]);
    first.child.kill("SIGKILL");
    await first.exited;

    await fixture.startWorker(schema);
    await client.approve("approval", "call-1");
    await watchUntil(client, "approval", "idle");
    expect(await messageTexts(repo, "approval")).toEqual([
      "guarded door",
      "[toolCall]",
      "guarded ran",
      "done: guarded ran",
    ]);
    expect(await fixture.effects(schema)).toEqual([{ key: "approval:call-1", attempts: 1 }]);
    const parked = await fixture.server.pool.query(`SELECT 1 FROM "${schema}".parked_runs`);
    expect(parked.rows).toEqual([]);
  });

  it("commands sent during a run are neither lost nor reordered: a follow-up, then a prompt", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const worker = await fixture.startWorker(schema);
    await client.submit("busy", "slow work", { cwd: "/w" });
    await worker.waitFor("SLOW_STARTED\n");
    await client.followUp("busy", "and then this");
    await client.submit("busy", "next prompt");
    await watchUntil(client, "busy", "idle");
    expect(await messageTexts(repo, "busy")).toEqual([
      "slow work",
      "[toolCall]",
      "slow done",
      "done: slow done",
      "and then this",
      "echo: and then this",
      "next prompt",
      "echo: next prompt",
    ]);
  });

  it("the client refuses commands for a session that does not exist, and a malformed id", async () => {
    const { client } = await fixture.setup();
    await expect(client.approve("nobody", "call-1")).rejects.toMatchObject({ code: "not_found" });
    await expect(client.steer("nobody", "hi")).rejects.toMatchObject({ code: "not_found" });
    await expect(client.submit("../bad id", "hi")).rejects.toMatchObject({ code: "invalid_id" });
  });

  it("a denied call gets the denial as its result and the run goes on", { timeout: 60_000 }, async () => {
    const { schema, client, repo } = await fixture.setup();
    await fixture.startWorker(schema);
    await client.submit("denied", "guarded door", { cwd: "/w" });
    await watchUntil(client, "denied", "awaiting_approval");
    await client.deny("denied", "call-1", "not today");
    await watchUntil(client, "denied", "idle");
    expect(await messageTexts(repo, "denied")).toEqual([
      "guarded door",
      "[toolCall]",
      "Tool call denied: not today",
      "done: Tool call denied: not today",
    ]);
    expect(await fixture.effects(schema)).toEqual([]);
  });
});
