import { filter, firstValueFrom } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentTool, defineTool } from "../../src/index.js";
import { type AgentWorker, createWorker } from "../../src/postgres.js";
import { scriptedModel } from "../../src/testing.js";
import { testModel } from "../support/loop-harness.js";
import { transcriptReply } from "../support/worker-model.js";
import { TcpProxy } from "./tcp-proxy.js";
import { messageTexts, watchUntil, workerFixture } from "./worker-fixture.js";

const fixture = workerFixture("halfopen");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A promise and its resolver. */
function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe("a worker whose append connection goes half-open", () => {
  it("loses its lease within one lease length (it stops renewing), watchers are told (queued), and another worker takes the session over and finishes it once", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const proxy = await TcpProxy.start(fixture.url);
    const started = signal();
    const release = signal();
    let runs = 0;
    // The first run of `slow` waits for the test; a replay (on the other worker) answers at once.
    const slow = defineTool({
      name: "slow",
      description: "Works until the test lets it finish",
      parameters: z.object({ target: z.string() }),
      execute: async () => {
        if (++runs === 1) {
          started.resolve();
          await release.promise;
        }
        return { content: [{ type: "text", text: "slow done" }] };
      },
    });
    const lost = signal<string>();
    const startWorker = (connectionString: string, onLeaseLost?: (sessionId: string) => void) =>
      createWorker({
        connectionString,
        schema,
        concurrency: 1,
        leaseMs: 3_000,
        commandPollMs: 100,
        handleSignals: false,
        recordDeltas: false,
        harness: () => ({
          model: testModel,
          streamFn: scriptedModel(Array.from({ length: 4 }, () => transcriptReply)),
          tools: [{ ...slow, replay: "safe" } as AgentTool],
        }),
        ...(onLeaseLost ? { onLeaseLost } : {}),
        onError: () => {},
      });
    const stuck: AgentWorker = await startWorker(proxy.url, (sessionId) => lost.resolve(sessionId));
    cleanups.push(async () => {
      await proxy.close(); // the half-open connection ends: the stuck worker's statement fails
      await stuck.stop();
    });

    await client.submit("half", "slow target", { cwd: "/w" });
    await started.promise;
    const lapsed = firstValueFrom(
      client.watch("half").pipe(filter((update) => update.type === "run_state" && update.state === "queued")),
    );
    // The next append (the tool's result) goes into a connection that never answers nor closes.
    const blackholed = proxy.blackholeWhen((chunk) => chunk.includes("WITH leased AS"));
    release.resolve();
    await blackholed;
    // Its reconciler (its other connections work) finds the lease lapsed: watchers are told.
    await lapsed;

    const successor = await startWorker(fixture.url);
    cleanups.push(() => successor.stop());
    await watchUntil(client, "half", "idle");
    expect(await lost.promise).toBe("half"); // the stuck worker learns it lost the lease
    expect(await messageTexts(repo, "half")).toEqual([
      "slow target",
      "[toolCall]",
      "slow done",
      "done: slow done",
    ]);
    expect(runs).toBe(2); // the replay on the successor
  });
});
