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
    expect(await store.needsWake("s")).toBe(false);
    await store.addCommand("s", { kind: "approve", toolCallId: "call-1" });
    expect(await store.needsWake("s")).toBe(false);
    await store.addCommand("s", { kind: "deny", toolCallId: "call-2", reason: "no" });
    expect(await store.needsWake("s")).toBe(true);
    expect(await store.parked("s")).toMatchObject({
      awaiting: ["call-1", "call-2"],
      harness: { sessionId: "s" },
    });
    await store.unpark("s");
    expect(await store.parked("s")).toBeUndefined();
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
