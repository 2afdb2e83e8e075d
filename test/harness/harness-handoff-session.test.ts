import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { defineHandoff } from "../../src/tools/define-handoff.js";
import { echoTool, testModel } from "../support/loop-harness.js";

const scratch = mkdtempSync(join(tmpdir(), "agentchart-harness-handoff-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const billingModel = { ...testModel, id: "billing-model" };
const toBilling = () =>
  defineHandoff({
    agent: {
      name: "billing",
      systemPrompt: "You do billing.",
      tools: [echoTool("refund")],
      model: billingModel,
    },
  });

/** A JSONL session in which triage handed the user over to billing, as a first process leaves it. */
async function sessionAfterHandoff(name: string) {
  const repo = new JsonlSessionRepo({ root: join(scratch, name) });
  const session = await repo.create({ cwd: "/shop", id: "s" });
  const harness = new AgentHarness({
    session,
    model: testModel,
    systemPrompt: "Route the user.",
    tools: [toBilling()],
    streamFn: scriptedModel([
      { toolCalls: [{ id: "t1", name: "transfer_to_billing", arguments: {} }] },
      { text: "Billing here." },
    ]),
  });
  await harness.prompt("refund please");
  expect(harness.agent.state.activeAgent).toBe("billing");
  await harness.close();
  await session.close();
  return join(scratch, name);
}

describe("a harness reopened from its session after a handoff", () => {
  it("goes on as the agent the branch's last handoff made active: its prompt, tools and model", async () => {
    const root = await sessionAfterHandoff("reopened");
    const session = await new JsonlSessionRepo({ root }).open("s");
    const model = scriptedModel([{ text: "Invoice sent." }]);
    const harness = new AgentHarness({
      session,
      model: testModel,
      systemPrompt: "Route the user.",
      tools: [toBilling()],
      streamFn: model,
    });
    expect(harness.agent.state.activeAgent).toBe("billing");
    await harness.prompt("and an invoice");
    const call = model.calls[0]!;
    expect([call.model.id, call.context.systemPrompt, call.context.tools.map((t) => t.name)]).toEqual([
      "billing-model",
      "You do billing.",
      ["refund"],
    ]);
  });

  it("starts as the first agent when no handoff of its tools leads to that agent any more", async () => {
    const root = await sessionAfterHandoff("no-handoff");
    const session = await new JsonlSessionRepo({ root }).open("s");
    const model = scriptedModel([{ text: "Routing." }]);
    const harness = new AgentHarness({
      session,
      model: testModel,
      systemPrompt: "Route the user.",
      tools: [echoTool("lookup")],
      streamFn: model,
    });
    expect(harness.agent.state.activeAgent).toBeUndefined();
    await harness.prompt("and an invoice");
    expect(model.calls[0]!.context.systemPrompt).toBe("Route the user.");
    expect(model.calls[0]!.model.id).toBe(testModel.id);
  });
});
