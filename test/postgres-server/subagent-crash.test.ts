import { describe, expect, it } from "vitest";
import { messageTexts, watchUntil, workerFixture } from "./worker-fixture.js";

const fixture = workerFixture("subcrash");
const CHILD = "test/postgres-server/subagent-worker-child.ts";
const startWorker = (schema: string, mode = "normal") =>
  fixture.startWorker(schema, mode, undefined, {}, CHILD);

describe("sub-agents on workers: a worker killed while a child streams", () => {
  it("kill -9 mid child reply: another worker finishes the run; the child's reply is re-made, its `replay: safe` tool reaches the sink with the same key", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const doomed = await startWorker(schema, "gated-child");
    await client.submit("crash", "research topic", { cwd: "/w" });
    await doomed.waitFor("GATED\n"); // the child streams its final reply, after its `note` call ran
    expect(doomed.output).toContain("APPLIED crash/s1:n1\n");
    doomed.child.kill("SIGKILL");
    await doomed.exited;

    // The new worker's reconciler finds the lapsed lease (2 s) and resumes the run.
    const successor = await startWorker(schema);
    await watchUntil(client, "crash", "idle");
    expect(await messageTexts(repo, "crash")).toEqual([
      "research topic",
      "[toolCall]",
      "research: noted topic",
      "root: research: noted topic",
    ]);
    // A child that was running starts over from its prompt (only a parked run keeps a child's state):
    // its `note` call runs again with the same idempotency key, and the idempotent sink applies it once.
    expect(successor.output).toContain("APPLIED crash/s1:n1\n");
    expect(await fixture.effects(schema)).toEqual([{ key: "crash/s1:n1", attempts: 2 }]);
  });
});
