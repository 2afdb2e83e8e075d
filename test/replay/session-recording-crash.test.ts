import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { replaySession } from "../../src/harness/replay-session.js";
import { JsonlSessionRepo } from "../../src/node.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { tempRoot } from "../support/session-files.js";
import { plain, stepEntryId } from "./session-recording-support.js";
import { weatherTool } from "./support.js";

describe("a recording cut by kill -9", () => {
  it("replays up to its last complete step, each step's snapshot restorable", {
    timeout: 60_000,
  }, async () => {
    const { root, remove } = tempRoot("agentchart-recording-crash-");
    try {
      const created = await new JsonlSessionRepo({ root }).create({ id: "recorded" });
      await created.close();
      // `node --import tsx` (not the tsx CLI, which forks a grandchild) so SIGKILL hits the writer itself.
      const child = spawn(
        process.execPath,
        ["--import", "tsx", resolve("test/support/recording-crash-child.ts"), root, "recorded"],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      const exited = new Promise<void>((done) => child.once("exit", () => done()));
      let output = "";
      // Killed once it has acknowledged three runs: it is then in the middle of writing a fourth.
      await new Promise<void>((acknowledged, failed) => {
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString("utf8");
          if (output.split("\n").length > 3) acknowledged();
        });
        child.once("exit", () => failed(new Error(`the child exited before three runs: ${output}`)));
      });
      child.kill("SIGKILL");
      await exited;
      const lastAcknowledged = Math.max(...output.split("\n").slice(0, -1).map(Number));

      const session = await new JsonlSessionRepo({ root }).open("recorded");
      const replayed = replaySession(session);
      expect(replayed.step!.index).toBeGreaterThanOrEqual(lastAcknowledged);
      // Every step up to the last complete one rebuilds, and restores as a plain agent snapshot.
      const steps = replayed.recording.steps;
      expect(steps.map((step) => step.index)).toEqual(steps.map((_, index) => index));
      for (const step of steps) {
        const again = replaySession(session, { upTo: stepEntryId(session, step.index) });
        expect(plain(again.snapshot)).toEqual(plain(step.snapshot));
      }
      const restored = Agent.restore(replayed.snapshot!, {
        streamFn: scriptedModel([]),
        tools: [weatherTool().tool],
      });
      expect(restored.state.messages.length).toBe(replayed.snapshot!.snapshot.context.messages.length);
      restored.abort();
      await session.close();
    } finally {
      remove();
    }
  });
});
