import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PersistedHarness } from "../../src/harness/snapshot.js";
import { messageText, userMessage } from "../../src/loop/messages.js";
import { RunStore } from "../../src/postgres/run-store.js";
import { PostgresSessionRepo } from "../../src/postgres.js";
import { PglitePool } from "../support/pglite-pool.js";

const pool = new PglitePool();
// PGlite boots on its first query (seconds on a loaded machine): in setup, not in the first test.
beforeAll(() => pool.query("SELECT 1"), 120_000);
afterAll(() => pool.close());
let schemas = 0;

const prompt = (text: string) => ({ type: "PROMPT" as const, messages: [userMessage(text)] });
const steer = (text: string) => ({ type: "STEER" as const, message: userMessage(text) });
const paused = { budget: "maxModelCalls", limit: 1, used: 1, before: "modelCall", action: "pause" } as const;
const idleHarness: PersistedHarness = {
  format: "agentchart.harness",
  version: 1,
  sessionId: "s",
  phase: "turn",
  queues: { steering: [], followUp: [], nextTurn: [] },
};

/** A fresh schema with one session (released), and the run store on it. */
async function setup() {
  const schema = `runs_${++schemas}`;
  const repo = new PostgresSessionRepo({ pool, schema });
  const session = await repo.create({ id: "s", cwd: "/w" });
  await session.close();
  return { repo, schema, store: new RunStore(pool, `"${schema}"`) };
}

describe("the run store (worker and client tables) on PGlite", () => {
  it("a command marks an idle session queued in the same statement, and leaves a running one running", async () => {
    const { store } = await setup();
    expect(await store.state("s")).toBe("idle");
    await store.addCommand("s", prompt("one"));
    expect(await store.state("s")).toBe("queued");
    await store.setState("s", "running");
    await store.addCommand("s", steer("two"));
    expect(await store.state("s")).toBe("running");
    expect((await store.commands("s")).map((stored) => stored.command?.type)).toEqual(["PROMPT", "STEER"]);
  });

  it("records a worker's final state only while nobody holds the session; idle becomes queued while commands wait", async () => {
    const { repo, store } = await setup();
    await store.setState("s", "running");
    const other = await repo.open("s"); // another worker took the session
    await store.setStateIfUnleased("s", "idle");
    expect(await store.state("s")).toBe("running");
    await other.close();
    const id = await store.addCommand("s", prompt("late"));
    await store.setStateIfUnleased("s", "idle");
    expect(await store.state("s")).toBe("queued");
    await store.deleteCommands([id]);
    await store.setStateIfUnleased("s", "idle");
    expect(await store.state("s")).toBe("idle");
  });

  it("wakes a parked run only once every waiting call has a decision; other commands wait", async () => {
    const { store } = await setup();
    expect(await store.needsWake("s")).toBe(false);
    await store.addCommand("s", prompt("queued"));
    expect(await store.needsWake("s")).toBe(true);
    await store.park("s", { harness: idleHarness, awaiting: ["call-1", "call-2"], awaitingBudget: [] });
    await store.askApproval("s", ["call-1", "call-2"], "keep");
    expect(await store.needsWake("s")).toBe(false);
    await store.addDecision("s", { type: "APPROVE_TOOL", toolCallId: "call-1" });
    expect(await store.needsWake("s")).toBe(false);
    await store.addDecision("s", { type: "DENY_TOOL", toolCallId: "call-2", reason: "no" });
    expect(await store.needsWake("s")).toBe(true);
    expect(await store.parked("s")).toMatchObject({
      awaiting: ["call-1", "call-2"],
      harness: { sessionId: "s" },
    });
    await store.unpark("s");
    expect(await store.parked("s")).toBeUndefined();
  });

  it("stores a decision only for a call that waits, bound to its request; a new request of the same call is not answered by it", async () => {
    const { store } = await setup();
    expect(await store.addDecision("s", { type: "APPROVE_TOOL", toolCallId: "call-1" })).toBeUndefined();
    expect(await store.commands("s")).toEqual([]);
    await store.askApproval("s", ["call-1"], "fresh");
    const first = (await store.approvalRequests("s")).get("call-1");
    const id = await store.addDecision("s", { type: "APPROVE_TOOL", toolCallId: "call-1" });
    expect(await store.commands("s")).toEqual([
      { id, command: { type: "APPROVE_TOOL", toolCallId: "call-1" }, requestId: first },
    ]);
    await store.askApproval("s", ["call-1"], "keep"); // the same wait: the decision stays bound
    expect((await store.approvalRequests("s")).get("call-1")).toBe(first);
    await store.askApproval("s", ["call-1"], "fresh"); // a new request under the same id
    expect((await store.approvalRequests("s")).get("call-1")).not.toBe(first);
    await store.park("s", { harness: null, awaiting: ["call-1"], awaitingBudget: [] });
    expect(await store.needsWake("s")).toBe(false);
    await store.answerApproval("s", ["call-1"]);
    expect(await store.addDecision("s", { type: "DENY_TOOL", toolCallId: "call-1" })).toBeUndefined();
  });

  it("stores and returns any text exactly (NUL, lone surrogates), in numeric id order past 10", async () => {
    const { store } = await setup();
    const texts = Array.from({ length: 12 }, (_, i) => `p${i} \u0000 \ud800`);
    for (const text of texts) await store.addCommand("s", prompt(text));
    const stored = await store.commands("s");
    expect(
      stored.map(({ command }) => (command?.type === "PROMPT" ? messageText(command.messages[0]!) : "")),
    ).toEqual(texts);
  });

  it("wakes a parked run for an abort, decided or not; a run found waiting in the session parks without a snapshot", async () => {
    const { store } = await setup();
    await store.park("s", { harness: null, awaiting: ["call-1"], awaitingBudget: [] });
    expect(await store.parked("s")).toEqual({ harness: null, awaiting: ["call-1"], awaitingBudget: [] });
    await store.addCommand("s", steer("meanwhile"));
    expect(await store.needsWake("s")).toBe(false);
    await store.addCommand("s", { type: "ABORT" });
    expect(await store.needsWake("s")).toBe(true);
  });

  it("reads rows of 0.2's spelling as the machine's commands, and a row that holds none as its CommandError", async () => {
    const { schema, store } = await setup();
    await store.askApproval("s", ["call-1"], "fresh");
    const requestId = (await store.approvalRequests("s")).get("call-1");
    const insert = (kind: string, payload: unknown, request: string | null = null) =>
      pool.query(
        `INSERT INTO "${schema}".commands (session_id, kind, payload, request_id) VALUES ('s', $1, $2::jsonb, $3)`,
        [kind, JSON.stringify(payload), request],
      );
    await insert("prompt", { kind: "prompt", text: "old prompt" });
    await insert("approve", { kind: "approve", toolCallId: "call-1", requestId }, requestId!);
    await insert("deny", { kind: "deny", toolCallId: "r1", agentPath: ["s1"], reason: "no" });
    await insert("abort", { kind: "abort" });
    await insert("approve", { kind: "approve" }); // no call named
    await insert("SET_MODEL", { type: "SET_MODEL", model: {} }); // not taken from outside
    const rows = await store.commands("s");
    expect(rows.slice(0, 4).map(({ command, requestId: bound }) => ({ command, bound }))).toEqual([
      {
        command: {
          type: "PROMPT",
          messages: [{ role: "user", content: "old prompt", timestamp: expect.any(Number) }],
        },
        bound: undefined,
      },
      { command: { type: "APPROVE_TOOL", toolCallId: "call-1" }, bound: requestId },
      { command: { type: "DENY_TOOL", toolCallId: "r1", agentPath: ["s1"], reason: "no" }, bound: undefined },
      { command: { type: "ABORT" }, bound: undefined },
    ]);
    expect(
      rows.slice(4).map(({ command, error }) => ({ command, code: error?.code, text: error?.message })),
    ).toEqual([
      {
        command: undefined,
        code: "invalid_command",
        text: expect.stringMatching(/APPROVE_TOOL.*toolCallId/),
      },
      {
        command: undefined,
        code: "invalid_command",
        text: expect.stringMatching(/SET_MODEL.*not taken from outside/),
      },
    ]);
    // A parked run is woken by an abort row of either spelling.
    await store.park("s", { harness: null, awaiting: ["other"], awaitingBudget: [] });
    expect(await store.needsWake("s")).toBe(true);
  });

  it("stores a budget command only while the run is parked at a budget limit, and wakes that run for it", async () => {
    const { store } = await setup();
    expect(await store.addBudgetCommand("s", { type: "CONTINUE_ONCE" })).toBeUndefined();
    await store.park("s", { harness: idleHarness, awaiting: ["call-1"], awaitingBudget: [] }); // approvals only
    expect(await store.addBudgetCommand("s", { type: "CONTINUE_ONCE" })).toBeUndefined();
    await store.park("s", { harness: idleHarness, awaiting: [], awaitingBudget: [paused] });
    expect(await store.parked("s")).toEqual({ harness: idleHarness, awaiting: [], awaitingBudget: [paused] });
    expect(await store.needsWake("s")).toBe(false);
    await store.addCommand("s", steer("meanwhile"));
    expect(await store.needsWake("s")).toBe(false);
    const id = await store.addBudgetCommand("s", { type: "RAISE_BUDGET", limits: { maxModelCalls: 3 } });
    expect(id).toBeDefined();
    expect(await store.needsWake("s")).toBe(true);
    expect((await store.commands("s")).at(-1)).toEqual({
      id,
      command: { type: "RAISE_BUDGET", limits: { maxModelCalls: 3 } },
    });
  });

  it("stores a sub-agent's budget command only while a run at its agent path is parked at a limit", async () => {
    const { store } = await setup();
    const pauses = [
      { ...paused, agentPath: ["s1"] },
      { ...paused, budget: "maxToolCalls" as const, agentPath: ["s2", "b1"] },
    ];
    await store.park("s", { harness: idleHarness, awaiting: [], awaitingBudget: pauses });
    expect((await store.parked("s"))?.awaitingBudget).toEqual(pauses);
    // The root does not wait, nor does an agent above, below or beside a paused one.
    for (const agentPath of [undefined, ["s2"], ["s1", "x"], ["s3"], ["b1"]])
      expect(
        await store.addBudgetCommand("s", { type: "CONTINUE_ONCE", ...(agentPath ? { agentPath } : {}) }),
      ).toBeUndefined();
    expect(await store.commands("s")).toEqual([]);
    expect(await store.needsWake("s")).toBe(false);
    const id = await store.addBudgetCommand("s", {
      type: "RAISE_BUDGET",
      limits: { maxToolCalls: 4 },
      agentPath: ["s2", "b1"],
    });
    expect(await store.commands("s")).toEqual([
      { id, command: { type: "RAISE_BUDGET", limits: { maxToolCalls: 4 }, agentPath: ["s2", "b1"] } },
    ]);
    expect(await store.needsWake("s")).toBe(true);
    expect(await store.addBudgetCommand("s", { type: "CONTINUE_ONCE", agentPath: ["s1"] })).toBeDefined();
  });

  it("lists sessions whose lease lapsed without being released, and not released or live ones", async () => {
    const { repo, store } = await setup();
    const live = await repo.create({ id: "live", cwd: "/w" });
    await repo.create({ id: "dead", cwd: "/w" }); // its writer dies holding the lease
    await pool.query(`UPDATE "runs_${schemas}".sessions SET lease_expires_at = now() WHERE id = 'dead'`);
    expect(await store.lapsedSessions(10)).toEqual(["dead"]);
    await live.close();
  });
});
