import { describe, expect, it } from "vitest";
import { messageTexts, untilTrue, watchUntil, workerFixture } from "./worker-fixture.js";

const fixture = workerFixture("subbudget");
const CHILD = "test/postgres-server/subagent-worker-child.ts";
/** A worker whose `research` sub-agents may make one model call each: they pause after their `note` call. */
const startWorker = (schema: string) => fixture.startWorker(schema, "child-budget", undefined, {}, CHILD);
const pause = { budget: "maxModelCalls", limit: 1, used: 1, action: "pause", before: "modelCall" };

describe("a sub-agent paused at a budget limit on PostgreSQL workers (issue 31)", () => {
  it("is parked like a root's pause (lease released, awaiting_budget, its agentPath); only a command for its path is stored, and it resumes the run on another worker", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const first = await startWorker(schema);
    await client.submit("park", "research topic", { cwd: "/w" });
    await watchUntil(client, "park", "awaiting_budget");
    expect(await client.budgetPause("park")).toEqual({ ...pause, agentPath: ["s1"] });
    expect(await client.awaitingBudget("park")).toEqual([{ ...pause, agentPath: ["s1"] }]);
    expect(await fixture.parkedRow(schema, "park")).toEqual({
      paused: [[{ ...pause, agentPath: ["s1"] }]],
      leased: false,
      commands: [],
    });
    expect(await messageTexts(repo, "park")).toEqual(["research topic", "[toolCall]"]);

    // The root does not wait at a limit, nor does an agent at another path: refused, nothing stored.
    for (const agentPath of [undefined, ["s2"], ["s1", "n1"]])
      await expect(
        client.send("park", { type: "CONTINUE_ONCE", ...(agentPath ? { agentPath } : {}) }),
      ).rejects.toMatchObject({
        name: "CommandError",
        code: "not_waiting",
        command: "CONTINUE_ONCE",
        message: expect.stringMatching(/^CONTINUE_ONCE: no run waits at a budget limit/),
        ...(agentPath ? { agentPath } : {}),
      });
    expect((await fixture.parkedRow(schema, "park")).commands).toEqual([]);

    first.child.kill("SIGTERM"); // nothing runs there: the parked run waits in the database
    expect(await first.exited).toBe(0);
    await startWorker(schema);
    await client.send("park", { type: "RAISE_BUDGET", limits: { maxModelCalls: 2 }, agentPath: ["s1"] });
    await watchUntil(client, "park", "idle");
    expect(await messageTexts(repo, "park")).toEqual([
      "research topic",
      "[toolCall]",
      "research: noted topic",
      "root: research: noted topic",
    ]);
    // The restored tree went on where the child paused: its `note` call did not run again.
    expect(await fixture.effects(schema)).toEqual([{ key: "park/s1:n1", attempts: 1 }]);
    expect(await fixture.parkedRow(schema, "park")).toEqual({ paused: [], leased: false, commands: [] });
    expect(await client.awaitingBudget("park")).toEqual([]);
    expect(await client.budgetPause("park")).toBeUndefined();
  });

  it("kill -9 of the worker while the sub-agent is paused: the continue-once waits in its row, and a new worker restores the tree and goes on", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const first = await startWorker(schema);
    await client.submit("killed", "research topic", { cwd: "/w" });
    await watchUntil(client, "killed", "awaiting_budget");
    first.child.kill("SIGKILL");
    await first.exited;
    // No worker runs: the command is stored against the parked run, and waits for one.
    await client.send("killed", { type: "CONTINUE_ONCE", agentPath: ["s1"] });
    expect((await fixture.parkedRow(schema, "killed")).commands).toEqual([{ kind: "CONTINUE_ONCE" }]);
    await startWorker(schema);
    await watchUntil(client, "killed", "idle");
    expect(await messageTexts(repo, "killed")).toEqual([
      "research topic",
      "[toolCall]",
      "research: noted topic",
      "root: research: noted topic",
    ]);
    expect(await fixture.effects(schema)).toEqual([{ key: "killed/s1:n1", attempts: 1 }]);
  });

  it("two parallel sub-agents paused: both are listed; answering one resumes the run, which parks again for the other", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    await startWorker(schema);
    await client.submit("pair", "pair topic", { cwd: "/w" });
    const both = [
      { ...pause, agentPath: ["s1"] },
      { ...pause, agentPath: ["s2"] },
    ];
    /** Whether the runs listed at a limit are those at `paths`, in that order. */
    const listed = async (...paths: string[][]) =>
      JSON.stringify((await client.awaitingBudget("pair")).map(({ agentPath }) => agentPath)) ===
      JSON.stringify(paths);
    await untilTrue("pair", () => listed(["s1"], ["s2"]));
    expect(await client.awaitingBudget("pair")).toEqual(both);

    await client.send("pair", { type: "RAISE_BUDGET", limits: { maxModelCalls: 2 }, agentPath: ["s2"] });
    // The run went on with s2 and parked again with s1 only (released, nothing left in the rows).
    await untilTrue("pair", () => listed(["s1"]));
    await watchUntil(client, "pair", "awaiting_budget");
    expect(await fixture.parkedRow(schema, "pair")).toEqual({
      paused: [[both[0]]],
      leased: false,
      commands: [],
    });

    await client.send("pair", { type: "CONTINUE_ONCE", agentPath: ["s1"] });
    await watchUntil(client, "pair", "idle");
    const texts = await messageTexts(repo, "pair");
    expect(texts[0]).toBe("pair topic");
    expect(texts.at(-1)).toBe("root: research: noted topic + research: noted topic");
    expect(await fixture.effects(schema)).toEqual([
      { key: "pair/s1:n1", attempts: 1 },
      { key: "pair/s2:n1", attempts: 1 },
    ]);
    expect(await fixture.parkedRow(schema, "pair")).toEqual({ paused: [], leased: false, commands: [] });
  });
});
