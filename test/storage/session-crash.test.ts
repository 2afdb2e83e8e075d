import { describe, expect, it } from "vitest";
import { JsonlSessionRepo } from "../../src/node.js";
import { runCrashTrial } from "../support/crash-trials.js";
import { tempRoot } from "../support/session-files.js";

describe("JSONL sessions under SIGKILL", () => {
  it("keep every acknowledged entry and open after each of 10 kills", { timeout: 120_000 }, async () => {
    const { root, remove } = tempRoot("agentchart-crash-");
    try {
      const session = await new JsonlSessionRepo({ root }).create({ id: "crash" });
      await session.close();
      let total = 0;
      for (let trial = 0; trial < 10; trial++) {
        const result = await runCrashTrial(root, "crash", Math.floor(Math.random() * 60));
        expect(result.missing).toEqual([]);
        total += result.acknowledged;
      }
      expect(total).toBeGreaterThan(10);
    } finally {
      remove();
    }
  });
});
