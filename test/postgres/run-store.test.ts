import { afterAll, describe, expect, it } from "vitest";
import type { PersistedHarness } from "../../src/harness/snapshot.js";
import { RunStore } from "../../src/postgres/run-store.js";
import { PostgresSessionRepo } from "../../src/postgres.js";
import { PglitePool } from "../support/pglite-pool.js";

const pool = new PglitePool();
afterAll(() => pool.close());
let schemas = 0;

/** A fresh schema with one session (released), and the run store on it. */
async function setup() {
  const schema = `runs_${++schemas}`;
  const repo = new PostgresSessionRepo({ pool, schema });
  const session = await repo.create({ id: "s", cwd: "/w" });
  await session.close();
  return { repo, store: new RunStore(pool, `"${schema}"`) };
}

describe("the run store (worker and client tables, schema version 2) on PGlite", () => {
  it("a command marks an idle session queued in the same statement, and leaves a running one running", async () => {
    const { store } = await setup();
    expect(await store.state("s")).toBe("idle");
    await store.addCommand("s", { kind: "prompt", text: "one" });
    expect(await store.state("s")).toBe("queued");
    await store.setState("s", "running");
    await store.addCommand("s", { kind: "steer", text: "two" });
    expect(await store.state("s")).toBe("running");
    expect((await store.commands("s")).map((command) => command.kind)).toEqual(["prompt", "steer"]);
  });

  it("records a worker's final state only while nobody holds the session; idle becomes queued while commands wait", async () => {
    const { repo, store } = await setup();
    await store.setState("s", "running");
    const other = await repo.open("s"); // another worker took the session
    await store.setStateIfUnleased("s", "idle");
    expect(await store.state("s")).toBe("running");
    await other.close();
    const id = await store.addCommand("s", { kind: "prompt", text: "late" });
    await store.setStateIfUnleased("s", "idle");
    expect(await store.state("s")).toBe("queued");
    await store.deleteCommands([id]);
    await store.setStateIfUnleased("s", "idle");
    expect(await store.state("s")).toBe("idle");
  });

  it("wakes a parked run only once every waiting call has a decision; other commands wait", async () => {
    const { store } = await setup();
    expect(await store.needsWake("s")).toBe(false);
    await store.addCommand("s", { kind: "prompt", text: "queued" });
    expect(await store.needsWake("s")).toBe(true);
    const harness: PersistedHarness = {
      format: "agentchart.harness",
      version: 1,
      sessionId: "s",
      phase: "turn",
      queues: { steering: [], followUp: [], nextTurn: [] },
    };
    await store.park("s", { harness, awaiting: ["call-1", "call-2"] });
    await store.askApproval("s", ["call-1", "call-2"], "keep");
    expect(await store.needsWake("s")).toBe(false);
    await store.addDecision("s", { kind: "approve", toolCallId: "call-1" });
    expect(await store.needsWake("s")).toBe(false);
    await store.addDecision("s", { kind: "deny", toolCallId: "call-2", reason: "no" });
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
    expect(await store.addDecision("s", { kind: "approve", toolCallId: "call-1" })).toBeUndefined();
    expect(await store.commands("s")).toEqual([]);
    await store.askApproval("s", ["call-1"], "fresh");
    const first = (await store.approvalRequests("s")).get("call-1");
    const id = await store.addDecision("s", { kind: "approve", toolCallId: "call-1" });
    expect(await store.commands("s")).toEqual([
      { id, kind: "approve", toolCallId: "call-1", requestId: first },
    ]);
    await store.askApproval("s", ["call-1"], "keep"); // the same wait: the decision stays bound
    expect((await store.approvalRequests("s")).get("call-1")).toBe(first);
    await store.askApproval("s", ["call-1"], "fresh"); // a new request under the same id
    expect((await store.approvalRequests("s")).get("call-1")).not.toBe(first);
    await store.park("s", { harness: null, awaiting: ["call-1"] });
    expect(await store.needsWake("s")).toBe(false);
    await store.answerApproval("s", ["call-1"]);
    expect(await store.addDecision("s", { kind: "deny", toolCallId: "call-1" })).toBeUndefined();
  });

  it("stores and returns any text exactly (NUL, lone surrogates), in numeric id order past 10", async () => {
    const { store } = await setup();
    const texts = Array.from({ length: 12 }, (_, i) => `p${i} \u0000 \ud800`);
    for (const text of texts) await store.addCommand("s", { kind: "prompt", text });
    expect((await store.commands("s")).map((command) => ("text" in command ? command.text : ""))).toEqual(
      texts,
    );
  });

  it("wakes a parked run for an abort, decided or not; a run found waiting in the session parks without a snapshot", async () => {
    const { store } = await setup();
    await store.park("s", { harness: null, awaiting: ["call-1"] });
    expect(await store.parked("s")).toEqual({ harness: null, awaiting: ["call-1"] });
    await store.addCommand("s", { kind: "steer", text: "meanwhile" });
    expect(await store.needsWake("s")).toBe(false);
    await store.addCommand("s", { kind: "abort" });
    expect(await store.needsWake("s")).toBe(true);
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
