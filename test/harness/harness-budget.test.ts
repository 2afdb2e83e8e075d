/**
 * A harness's budget: its turns' runs wait at a limit like a call waits for approval — listed at once
 * after a restore from `persist()`, and going on when the limit is raised.
 */
import { describe, expect, it } from "vitest";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import { nextEvent, roles, testModel } from "../support/harness-support.js";
import { echoTool } from "../support/loop-harness.js";

const turns = () => [
  { toolCalls: [{ id: "e1", name: "echo", arguments: { text: "hi" } }] },
  { text: "Done." },
];

describe("a harness with a budget", () => {
  it("pauses at the limit, persists paused, restores paused, and finishes once the limit is raised", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ cwd: "/w" });
    const harness = new AgentHarness({
      session,
      model: testModel,
      tools: [echoTool()],
      streamFn: scriptedModel(turns()),
      budget: { maxModelCalls: 1 },
    });
    const exceeded = nextEvent(harness, "budget_exceeded");
    const run = harness.prompt("echo hi");
    expect(await exceeded).toMatchObject({ budget: "maxModelCalls", limit: 1, used: 1 });
    expect(harness.agent.state.budget?.paused).toMatchObject({ budget: "maxModelCalls" });
    const saved = harness.persist();
    expect(saved.agent).toBeDefined();
    await session.flush();
    const copy = await repo.fork(session.id, { entryId: session.leafId!, position: "at" });

    const { harness: restored, resumed } = AgentHarness.restore(
      { ...saved, sessionId: copy.id },
      {
        session: copy,
        model: testModel,
        tools: [echoTool()],
        streamFn: scriptedModel(turns().slice(1)),
        budget: { maxModelCalls: 1 },
      },
    );
    // Waiting at the limit as soon as restore returns.
    expect(restored.agent.state.budget?.paused).toMatchObject({ budget: "maxModelCalls" });
    restored.raiseBudget({ maxModelCalls: 2 });
    await resumed;
    expect(roles(copy.buildContext().messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(() => restored.raiseBudget({ maxModelCalls: 3 })).toThrow(/not waiting at a budget limit/);

    harness.raiseBudget({ maxModelCalls: 2 });
    await run;
  });
});
