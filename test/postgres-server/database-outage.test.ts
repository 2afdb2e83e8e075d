import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentClient, createClient, PostgresSessionRepo } from "../../src/postgres.js";
import { ProcessDriver, repoRoot, spawnTs } from "../support/cli-process.js";
import { OwnCluster } from "./own-cluster.js";
import { messageTexts, watchUntil } from "./worker-fixture.js";

let cluster: OwnCluster;
beforeAll(async () => {
  cluster = await OwnCluster.create();
}, 60_000);
afterAll(async () => {
  await cluster.destroy();
});

/** How long the database stays away: the fault itself, not a wait for something to happen. */
const OUTAGE_MS = 3_000;

describe("a worker under a database outage", () => {
  it("PostgreSQL stopped for 3 s under a running job: the worker stays up, the session finishes once, the worker takes new jobs", {
    timeout: 120_000,
  }, async () => {
    const schema = "outage";
    const client: AgentClient = await createClient({
      connectionString: cluster.url,
      schema,
      heartbeatMs: 500,
    });
    await client.submit("warm", "hello", { cwd: "/w" }); // creates the tables before the worker starts
    const worker = new ProcessDriver(
      spawnTs("test/support/worker-child.ts", [cluster.url, schema, "normal"], { cwd: repoRoot }),
    );
    try {
      await worker.waitFor("READY\n");
      await client.submit("outage", "slow work", { cwd: "/w" });
      await worker.waitFor("SLOW_STARTED\n");
      await cluster.stop();
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS)); // the outage
      await cluster.start();

      // The job in flight is finished (resumed by the lease rules), once — by the same worker.
      const died = worker.exited.then((code) => {
        throw new Error(`the worker exited (${code}):\n${worker.stderr}`);
      });
      await Promise.race([watchUntil(client, "outage", "idle"), died]);
      const repo = new PostgresSessionRepo({ connectionString: cluster.url, schema });
      const texts = await messageTexts(repo, "outage");
      expect(texts[0]).toBe("slow work");
      expect(texts.filter((text) => text === "slow work")).toHaveLength(1);
      expect(texts.at(-1)).toMatch(/^done: /);
      // And it serves new prompts.
      const { afterSeq } = await client.submit("after", "still there", { cwd: "/w" });
      await watchUntil(client, "after", "idle", afterSeq);
      expect(await messageTexts(repo, "after")).toEqual(["still there", "echo: still there"]);
      await repo.close();
      expect(worker.child.exitCode).toBe(null);
      expect(worker.stderr).not.toMatch(/unhandled/i);
    } finally {
      worker.child.kill("SIGTERM");
      await worker.exited;
      await client.close();
    }
  });
});
