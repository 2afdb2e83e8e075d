import { describe, expect, it } from "vitest";
import { createBuiltinTools } from "../../src/node-tools.js";
import { toToolSpec } from "../../src/tools/define-tool.js";

describe("createBuiltinTools", () => {
  it("returns read, write, edit, bash and ls with JSON Schemas for the model", () => {
    const tools = createBuiltinTools();
    expect(tools.map((tool) => tool.name)).toEqual(["read", "write", "edit", "bash", "ls"]);
    const specs = tools.map(toToolSpec);
    expect(specs[0]?.parameters).toMatchObject({
      type: "object",
      required: ["path"],
      properties: { path: { type: "string" }, offset: { type: "integer" }, limit: { type: "integer" } },
    });
    expect(specs[3]?.parameters).toMatchObject({ required: ["command"] });
  });

  it("returns a new array each time", () => {
    expect(createBuiltinTools()).not.toBe(createBuiltinTools());
  });

  it("makes bash fail clearly when the working directory is missing", async () => {
    const bash = createBuiltinTools()[3]!;
    await expect(
      bash.execute(
        { command: "true" },
        {
          toolCallId: "c",
          idempotencyKey: "agent:c",
          signal: new AbortController().signal,
          update: () => {},
          context: { cwd: "/nonexistent-agentchart-dir" },
        },
      ),
    ).rejects.toThrow("The working directory /nonexistent-agentchart-dir does not exist");
  });
});
