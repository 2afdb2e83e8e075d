import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { echoTool, testModel } from "../support/loop-harness.js";
import { textOf, toolResults } from "./support.js";

describe("agent.asTool", () => {
  it("runs a fresh child with the agent's definition, never its transcript", async () => {
    const writerModel = scriptedModel([{ text: "first draft" }]);
    const writer = new Agent({
      model: { ...testModel, id: "writer-model" },
      streamFn: writerModel,
      systemPrompt: "You write.",
      tools: [echoTool()],
      messages: [{ role: "user", content: "the writer's own history", timestamp: 1 }],
    });
    const editor = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ id: "w1", name: "write", arguments: { task: "a haiku" } }] },
        { text: "edited" },
      ]),
      tools: [writer.asTool({ name: "write", description: "Writes a draft" })],
    });
    const result = await editor.prompt("go");
    expect(textOf(toolResults(result.messages)[0]!)).toBe("first draft");
    const request = writerModel.calls[0]!;
    expect(request.model.id).toBe("writer-model");
    expect(request.context.systemPrompt).toBe("You write.");
    expect(request.context.tools.map((tool) => tool.name)).toEqual(["echo"]);
    expect(request.context.messages).toMatchObject([{ role: "user", content: "a haiku" }]);
    expect(writer.state.messages).toHaveLength(1);
  });
});
