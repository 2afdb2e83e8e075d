/**
 * `kill -9` while a harness's run waits at a budget limit, on a JSONL session: the process that
 * restores it (from the snapshot the killed one wrote, and the session's file) finds the run paused at
 * the same limit, and raising it finishes the run with every call answered once.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { budgetHelper } from "../support/budget-helper.js";
import { ProcessDriver, repoRoot, spawnTs } from "../support/cli-process.js";
import { roles } from "../support/harness-support.js";
import { echoTool, testModel } from "../support/loop-harness.js";

vi.setConfig({ testTimeout: 90_000 });

const scratch = mkdtempSync(join(tmpdir(), "agentchart-budget-kill-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Runs harness-budget-child.ts (`shape` "tree": a root holding its sub-agent's call) until it is paused,
 * kills it with SIGKILL, and returns the harness it persisted and its session, reopened.
 */
async function killWhilePaused(shape: "flat" | "tree") {
  const root = join(scratch, `${shape}-sessions`);
  const file = join(scratch, `${shape}-harness.json`);
  const args = shape === "tree" ? [root, file, "tree"] : [root, file];
  const driver = new ProcessDriver(spawnTs("test/support/harness-budget-child.ts", args, { cwd: repoRoot }));
  await driver.waitFor("PAUSED");
  driver.child.kill("SIGKILL");
  await driver.exited;
  const saved = JSON.parse(readFileSync(file, "utf8"));
  const session = await new JsonlSessionRepo({ root }).open("budget-session");
  return { saved, session };
}

describe("kill -9 while paused at a budget limit (JSONL)", () => {
  it("restores paused at the limit; raised, the run finishes", async () => {
    const { saved, session } = await killWhilePaused("flat");
    const { harness, resumed } = AgentHarness.restore(saved, {
      session,
      model: testModel,
      tools: [echoTool()],
      streamFn: scriptedModel([{ text: "Done." }]),
      budget: { maxModelCalls: 1 },
    });
    expect(harness.agent.state.budget?.paused).toMatchObject({ budget: "maxModelCalls", limit: 1, used: 1 });
    expect(harness.agent.actor.getSnapshot().hasTag("awaitingHuman")).toBe(true);
    harness.raiseBudget({ maxModelCalls: 2 });
    await resumed;
    expect(roles(session.buildContext().messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    await session.close();
  });

  it("a tree whose root holds its sub-agent's model call restores held; raised, the child and the root finish", async () => {
    const { saved, session } = await killWhilePaused("tree");
    const { harness, resumed } = AgentHarness.restore(saved, {
      session,
      model: testModel,
      tools: [budgetHelper(true)],
      streamFn: scriptedModel([{ text: "Done." }]),
      budget: { maxModelCalls: 2 },
    });
    expect(harness.agent.state.budget?.paused).toMatchObject({
      budget: "maxModelCalls",
      limit: 2,
      used: 2,
      subAgentPath: ["h1"],
    });
    expect(harness.agent.actor.getSnapshot().hasTag("awaitingHuman")).toBe(true);
    // The child's held call is the third; the root's answer the fourth.
    harness.raiseBudget({ maxModelCalls: 4 });
    await resumed;
    const messages = session.buildContext().messages;
    expect(roles(messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(messages[2]).toMatchObject({ toolCallId: "h1", content: [{ type: "text", text: "child done" }] });
    expect(harness.agent.state.messages.length).toBe(4);
    await session.close();
  });
});
