import { describe, expect, it } from "vitest";
import { messageTexts, untilAwaiting, watchUntil, workerFixture } from "./worker-fixture.js";

const fixture = workerFixture("subagents");
const CHILD = "test/postgres-server/subagent-worker-child.ts";
const startWorker = (schema: string, mode = "normal") =>
  fixture.startWorker(schema, mode, undefined, {}, CHILD);

/** What the session still holds of the worker tables: commands, parked runs, the lease. */
async function leftovers(schema: string, sessionId: string) {
  const query = async (sql: string) => (await fixture.server.pool.query(sql, [sessionId])).rows;
  return {
    commands: await query(`SELECT kind FROM "${schema}".commands WHERE session_id = $1`),
    parked: await query(`SELECT awaiting FROM "${schema}".parked_runs WHERE session_id = $1`),
    lease: await query(`SELECT lease_owner FROM "${schema}".sessions WHERE id = $1`),
  };
}

const REFUNDED = [
  "support A-1",
  "[toolCall]",
  "support: billing: refunded A-1",
  "root: support: billing: refunded A-1",
];

describe("sub-agents on workers: approvals", () => {
  it("a grandchild's approval parks the run with its agentPath; approved by path, another worker finishes it and the call runs once", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const first = await startWorker(schema);
    await client.submit("nested", "support A-1", { cwd: "/w" });
    await watchUntil(client, "nested", "awaiting_approval");
    expect(await client.approvalRequests("nested")).toEqual([{ toolCallId: "r1", agentPath: ["s1", "b1"] }]);
    expect(await client.awaitingApproval("nested")).toEqual([]); // the root's own calls: none waits
    expect(await leftovers(schema, "nested")).toEqual({
      commands: [],
      parked: [{ awaiting: ["s1/b1/r1"] }],
      lease: [{ lease_owner: null }], // the worker is free
    });
    // The worker that parked it goes away: any worker finishes the run.
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const second = await startWorker(schema);
    // A decision without the path names no waiting call: refused, nothing stored, the run stays parked.
    await expect(client.approve("nested", "r1")).rejects.toMatchObject({
      name: "CommandError",
      code: "not_waiting",
    });
    await client.approve("nested", "r1", { agentPath: ["s1", "b1"] });
    await watchUntil(client, "nested", "idle");
    expect(second.output).toContain("APPLIED nested/s1/b1:r1\n");
    expect(await messageTexts(repo, "nested")).toEqual(REFUNDED);
    expect(await fixture.effects(schema)).toEqual([{ key: "nested/s1/b1:r1", attempts: 1 }]);
    expect(await leftovers(schema, "nested")).toEqual({
      commands: [],
      parked: [],
      lease: [{ lease_owner: null }],
    });
  });

  it("a grandchild's call denied by path gets the denial, and the results climb back up", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    await startWorker(schema);
    await client.submit("denied", "support A-1", { cwd: "/w" });
    await watchUntil(client, "denied", "awaiting_approval");
    await client.deny("denied", "r1", "not today", { agentPath: ["s1", "b1"] });
    await watchUntil(client, "denied", "idle");
    expect(await messageTexts(repo, "denied")).toEqual([
      "support A-1",
      "[toolCall]",
      "support: billing: Tool call denied: not today",
      "root: support: billing: Tool call denied: not today",
    ]);
    expect(await fixture.effects(schema)).toEqual([]);
  });

  it("abort of a run parked on a grandchild's approval ends it: the root's call answered as aborted, nothing left parked", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    await startWorker(schema);
    await client.submit("aborted", "support A-1", { cwd: "/w" });
    await watchUntil(client, "aborted", "awaiting_approval");
    await client.abort("aborted");
    await watchUntil(client, "aborted", "idle");
    expect(await messageTexts(repo, "aborted")).toEqual([
      "support A-1",
      "[toolCall]",
      "Tool call aborted",
      "",
    ]);
    expect(await client.approvalRequests("aborted")).toEqual([]);
    expect(await leftovers(schema, "aborted")).toEqual({
      commands: [],
      parked: [],
      lease: [{ lease_owner: null }],
    });
    expect(await fixture.effects(schema)).toEqual([]);
  });

  it("a grandchild's approval while a root call still runs is not parked: approved by path, the live run applies it", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const worker = await startWorker(schema);
    await client.submit("live", "both A-1", { cwd: "/w" });
    // `await_refund` runs until the refund is applied: the tree waits for more than approvals.
    await untilAwaiting(client, "live", { toolCallId: "r1", agentPath: ["s1", "b1"] });
    await client.approve("live", "r1", { agentPath: ["s1", "b1"] });
    await watchUntil(client, "live", "idle");
    expect(worker.output).toContain("APPLIED live/s1/b1:r1\n");
    expect(await messageTexts(repo, "live")).toEqual([
      "both A-1",
      "[toolCall][toolCall]",
      "support: billing: refunded A-1",
      "refund seen",
      "root: support: billing: refunded A-1 + refund seen",
    ]);
    expect(await fixture.effects(schema)).toEqual([{ key: "live/s1/b1:r1", attempts: 1 }]);
    expect(await leftovers(schema, "live")).toEqual({
      commands: [],
      parked: [],
      lease: [{ lease_owner: null }],
    });
  });

  it("kill -9 between a grandchild's approval request and parking: the call still awaits approval, with its path, and runs once approved", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const doomed = await startWorker(schema, "die-on-nested-approval");
    await client.submit("unparked", "support A-1", { cwd: "/w" });
    expect(await doomed.exited).toBe(null); // killed itself at the approval request
    expect(doomed.child.signalCode).toBe("SIGKILL");

    // The next worker's reconciler finds the lapsed lease; the sub-agents start over and ask again.
    await startWorker(schema);
    await watchUntil(client, "unparked", "awaiting_approval");
    expect(await client.approvalRequests("unparked")).toEqual([
      { toolCallId: "r1", agentPath: ["s1", "b1"] },
    ]);
    expect(await messageTexts(repo, "unparked")).toEqual(["support A-1", "[toolCall]"]);

    await client.approve("unparked", "r1", { agentPath: ["s1", "b1"] });
    await watchUntil(client, "unparked", "idle");
    expect(await messageTexts(repo, "unparked")).toEqual(REFUNDED);
    expect(await fixture.effects(schema)).toEqual([{ key: "unparked/s1/b1:r1", attempts: 1 }]);
  });
});
