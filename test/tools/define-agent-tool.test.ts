import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgentTool } from "../../src/index.js";
import {
  DEFAULT_SUB_AGENT_MAX_CONCURRENT,
  DEFAULT_SUB_AGENT_MAX_DEPTH,
  type SubAgentSpec,
} from "../../src/types/sub-agent.js";

const spec: SubAgentSpec = { systemPrompt: "You research." };

describe("defineAgentTool", () => {
  it("takes a task by default and describes it to the model", () => {
    const tool = defineAgentTool({ name: "research", description: "Researches", agent: spec });
    expect(tool.name).toBe("research");
    expect(tool.description).toBe("Researches");
    expect(tool.jsonSchema).toMatchObject({
      type: "object",
      properties: { task: { type: "string", description: "What the sub-agent should do, in full" } },
      required: ["task"],
    });
    expect(tool.parameters.safeParse({ task: "look" }).success).toBe(true);
    expect(tool.parameters.safeParse({}).success).toBe(false);
  });

  it("keeps the default limits, or the ones given", () => {
    const plain = defineAgentTool({ name: "a", description: "d", agent: spec });
    expect(plain.subAgent).toMatchObject({
      maxDepth: DEFAULT_SUB_AGENT_MAX_DEPTH,
      maxConcurrent: DEFAULT_SUB_AGENT_MAX_CONCURRENT,
    });
    const tight = defineAgentTool({
      name: "a",
      description: "d",
      agent: spec,
      maxDepth: 1,
      maxConcurrent: 1,
    });
    expect(tight.subAgent).toMatchObject({ maxDepth: 1, maxConcurrent: 1 });
  });

  it.each([
    ["maxDepth", { maxDepth: 0 }, "maxDepth must be a whole number ≥ 1, got 0"],
    ["maxDepth", { maxDepth: 1.5 }, "maxDepth must be a whole number ≥ 1, got 1.5"],
    ["maxConcurrent", { maxConcurrent: 0 }, "maxConcurrent must be a whole number ≥ 1, got 0"],
    ["maxConcurrent", { maxConcurrent: Number.NaN }, "maxConcurrent must be a whole number ≥ 1, got NaN"],
  ])("refuses a %s below 1 or not whole (%o), naming the tool", (_name, limits, message) => {
    const define = () => defineAgentTool({ name: "research", description: "d", agent: spec, ...limits });
    expect(define).toThrow(RangeError);
    expect(define).toThrow(`Agent tool "research": ${message}`);
  });

  it("passes the label, execution mode, approval and replay on, and leaves out what was not given", () => {
    const full = defineAgentTool({
      name: "a",
      label: "Researcher",
      description: "d",
      agent: spec,
      executionMode: "sequential",
      requiresApproval: false,
      replay: "safe",
    });
    expect(full).toMatchObject({
      label: "Researcher",
      executionMode: "sequential",
      requiresApproval: false,
      replay: "safe",
    });
    const bare = defineAgentTool({ name: "a", description: "d", agent: spec });
    for (const key of ["label", "executionMode", "requiresApproval", "replay"])
      expect(Object.hasOwn(bare, key), key).toBe(false);
  });

  it("rejects a direct execute() with an error that says the tool runs as a child agent", async () => {
    const tool = defineAgentTool({ name: "research", description: "d", agent: spec });
    await expect(tool.execute({ task: "x" }, {} as never)).rejects.toThrow(
      '"research" is an agent tool: it runs as a child agent of an Agent, not by execute()',
    );
  });

  it("gives the same spec for any arguments, or the spec function's for these arguments", () => {
    const fixed = defineAgentTool({ name: "a", description: "d", agent: spec });
    expect(fixed.subAgent?.agent({ task: "x" })).toBe(spec);
    const perCall = defineAgentTool({
      name: "b",
      description: "d",
      parameters: z.object({ topic: z.string() }),
      agent: ({ topic }) => ({ systemPrompt: `You research ${topic}.` }),
    });
    expect(perCall.subAgent?.agent({ topic: "owls" })).toEqual({ systemPrompt: "You research owls." });
  });

  it.each([
    [{ task: "find it" }, "find it"],
    [{ prompt: "say it" }, "say it"],
    [{ task: 3, prompt: "the prompt" }, "the prompt"],
    [{ task: "first", prompt: "second" }, "first"],
    [{ topic: "owls" }, '{"topic":"owls"}'],
    [null, "null"],
    ["plain", '"plain"'],
  ])("the child's prompt by default for %o is %s", (args, prompt) => {
    const tool = defineAgentTool({ name: "a", description: "d", agent: spec });
    expect(tool.subAgent?.input(args)).toBe(prompt);
  });

  it("uses the input and output functions given", () => {
    const output = () => ({ content: [{ type: "text" as const, text: "done" }] });
    const tool = defineAgentTool({
      name: "a",
      description: "d",
      agent: spec,
      input: ({ task }) => `Please: ${task}`,
      output,
    });
    expect(tool.subAgent?.input({ task: "go" })).toBe("Please: go");
    expect(tool.subAgent?.output).toBe(output);
  });

  it("checks the name as defineTool does", () => {
    expect(() => defineAgentTool({ name: "has space", description: "d", agent: spec })).toThrow(
      'Invalid tool name "has space"',
    );
  });
});
