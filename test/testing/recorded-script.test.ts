import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { Recording } from "../../src/replay/recording.js";
import { createAgentTestModel, scriptedModel, scriptFromRecording } from "../../src/testing.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { testModel } from "../support/loop-harness.js";

const weather = defineTool({
  name: "weather",
  description: "The weather of a city",
  parameters: z.object({ city: z.string() }),
  requiresApproval: true,
  execute: async ({ city }) => ({ content: [{ type: "text", text: `sunny in ${city}` }] }),
});

/** A recorded run (approved call, then the answer), read back from its JSONL. */
async function recordedRun(): Promise<Recording> {
  const agent = new Agent({
    model: testModel,
    streamFn: scriptedModel([
      { thinking: "Check first.", toolCalls: [{ id: "w1", name: "weather", arguments: { city: "Oslo" } }] },
      { text: "Sunny in Oslo." },
    ]),
    tools: [weather],
    record: true,
  });
  agent.subscribe((event) => {
    if (event.type === "tool_approval_request") agent.approveToolCall(event.toolCallId);
  });
  await agent.prompt("Weather in Oslo?");
  return Recording.fromJSONL(agent.recording!.toJSONL());
}

describe("a recording as the testing kit's script", () => {
  it("gives the recorded replies in order, with their ids, as plain scripted replies", async () => {
    expect(scriptFromRecording(await recordedRun())).toEqual([
      { thinking: "Check first.", toolCalls: [{ id: "w1", name: "weather", arguments: { city: "Oslo" } }] },
      { text: "Sunny in Oslo." },
    ]);
  });

  it("drives the kit: every path of the recorded agent runs against the real machine", async () => {
    const model = createAgentTestModel({
      agent: { tools: [weather] },
      script: scriptFromRecording(await recordedRun()),
      explore: { steer: false, followUp: false },
    });
    const { paths } = model.explore();
    expect(paths.map((path) => path.name)).toContain(
      "PROMPT → reply 1 (w1) → approve w1 → w1 done → reply 2 (text)",
    );
    for (const path of paths) await model.runPath(path);
  });
});
