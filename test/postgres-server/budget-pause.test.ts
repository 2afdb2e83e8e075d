import { describe, expect, it } from "vitest";
import { messageTexts, watchUntil, workerFixture } from "./worker-fixture.js";

const fixture = workerFixture("budget");

describe("a run paused at a budget limit on PostgreSQL workers (issue 31)", () => {
  it("is parked like an approval (lease released, state awaiting_budget); RAISE_BUDGET resumes it on another worker", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const first = await fixture.startWorker(schema, "budget");
    await client.submit("raise", "effect door", { cwd: "/w" });
    await watchUntil(client, "raise", "awaiting_budget");
    expect(await client.budgetPause("raise")).toMatchObject({
      budget: "maxModelCalls",
      limit: 1,
      used: 1,
      action: "pause",
    });
    expect(await fixture.parkedRow(schema, "raise")).toEqual({
      paused: [[expect.objectContaining({ budget: "maxModelCalls" })]],
      leased: false,
      commands: [],
    });
    expect(await messageTexts(repo, "raise")).toEqual(["effect door", "[toolCall]", "applied"]);

    first.child.kill("SIGTERM"); // nothing runs there: the parked run waits in the database
    expect(await first.exited).toBe(0);
    await fixture.startWorker(schema, "budget");
    await client.send("raise", { type: "RAISE_BUDGET", limits: { maxModelCalls: 2 } });
    await watchUntil(client, "raise", "idle");
    expect(await messageTexts(repo, "raise")).toEqual([
      "effect door",
      "[toolCall]",
      "applied",
      "done: applied",
    ]);
    expect(await fixture.effects(schema)).toEqual([{ key: "raise:call-1", attempts: 1 }]);
    expect(await fixture.parkedRow(schema, "raise")).toEqual({ paused: [], leased: false, commands: [] });
    expect(await client.budgetPause("raise")).toBeUndefined();
  });

  it("CONTINUE_ONCE lets the held model call through once, on the worker that parked it", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    await fixture.startWorker(schema, "budget");
    await client.submit("once", "effect gate", { cwd: "/w" });
    await watchUntil(client, "once", "awaiting_budget");
    await client.send("once", { type: "CONTINUE_ONCE" });
    await watchUntil(client, "once", "idle");
    expect(await messageTexts(repo, "once")).toEqual([
      "effect gate",
      "[toolCall]",
      "applied",
      "done: applied",
    ]);
    // The next prompt is a new run, with the budget as configured.
    const { afterSeq } = await client.submit("once", "hello");
    await watchUntil(client, "once", "idle", afterSeq);
    expect((await messageTexts(repo, "once")).slice(4)).toEqual(["hello", "echo: hello"]);
  });

  it("ABORT of a run parked at a limit ends it cleanly: no further model call, nothing left parked", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    await fixture.startWorker(schema, "budget");
    await client.submit("stop", "effect wall", { cwd: "/w" });
    await watchUntil(client, "stop", "awaiting_budget");
    await client.abort("stop");
    await watchUntil(client, "stop", "idle");
    const texts = await messageTexts(repo, "stop");
    expect(texts.slice(0, 3)).toEqual(["effect wall", "[toolCall]", "applied"]);
    expect(texts).not.toContain("done: applied");
    expect(await fixture.parkedRow(schema, "stop")).toEqual({ paused: [], leased: false, commands: [] });
    await expect(client.send("stop", { type: "CONTINUE_ONCE" })).rejects.toMatchObject({
      name: "CommandError",
      code: "not_waiting",
    });
  });

  it("kill -9 of the worker once the run is paused: the raise waits in its row, and a new worker restores the run and raises it", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const first = await fixture.startWorker(schema, "budget");
    await client.submit("killed", "effect roof", { cwd: "/w" });
    await watchUntil(client, "killed", "awaiting_budget");
    first.child.kill("SIGKILL");
    await first.exited;
    // No worker runs: the raise is stored against the parked run, and waits for one.
    await client.send("killed", { type: "RAISE_BUDGET", limits: { maxModelCalls: 5 } });
    expect((await fixture.parkedRow(schema, "killed")).commands).toEqual([{ kind: "RAISE_BUDGET" }]);
    await fixture.startWorker(schema, "budget");
    await watchUntil(client, "killed", "idle");
    expect(await messageTexts(repo, "killed")).toEqual([
      "effect roof",
      "[toolCall]",
      "applied",
      "done: applied",
    ]);
    expect(await fixture.effects(schema)).toEqual([{ key: "killed:call-1", attempts: 1 }]);
  });

  it("a budget command for a run that waits at no limit is refused with CommandError, naming the path; nothing is stored", {
    timeout: 60_000,
  }, async () => {
    const { schema, client } = await fixture.setup();
    await client.submit("none", "hello", { cwd: "/w" }); // no worker: it stays queued
    await expect(
      client.send("none", { type: "RAISE_BUDGET", limits: { maxTurns: 3 }, agentPath: ["s1"] }),
    ).rejects.toMatchObject({
      name: "CommandError",
      code: "not_waiting",
      command: "RAISE_BUDGET",
      agentPath: ["s1"],
      message: expect.stringMatching(/no run waits at a budget limit at agent path s1 in session "none"/),
    });
    await expect(
      client.send("none", { type: "RAISE_BUDGET", limits: { maxTurns: -1 } }),
    ).rejects.toMatchObject({ name: "CommandError", code: "invalid_command" });
    expect((await fixture.parkedRow(schema, "none")).commands).toEqual([{ kind: "PROMPT" }]);
  });
});
