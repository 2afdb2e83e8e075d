import { describe, expect, it } from "vitest";
import { defineJsonSchemaTool, InvalidToolSchemaError } from "../../src/index.js";
import { resultText, runToolCalls } from "../support/mcp-support.js";

const add = defineJsonSchemaTool<{ a: number; b: number }>({
  name: "add",
  description: "Adds two numbers",
  parameters: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
    additionalProperties: false,
  },
  execute: async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
});

describe("defineJsonSchemaTool", () => {
  it("sends the JSON Schema to the model as is", () => {
    expect(add.jsonSchema).toEqual({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
      additionalProperties: false,
    });
  });

  it("runs a call whose arguments match the schema", async () => {
    const run = await runToolCalls([add], [{ name: "add", arguments: { a: 2, b: 3 } }]);
    expect(run.results[0]?.isError).toBe(false);
    expect(resultText(run.results[0])).toBe("5");
  });

  it("answers invalid arguments with the zod-style validation error, without running the tool", async () => {
    let ran = false;
    const guarded = {
      ...add,
      execute: async () => {
        ran = true;
        return { content: [] };
      },
    };
    const run = await runToolCalls([guarded], [{ name: "add", arguments: { a: "2", c: 1 } }]);
    expect(ran).toBe(false);
    expect(run.results[0]?.isError).toBe(true);
    const text = resultText(run.results[0]);
    expect(text).toContain('Validation failed for tool "add":');
    expect(text).toContain("  - a: must be number");
    expect(text).toContain("  - b: must have required property 'b'");
    expect(text).toContain('  - (root): must NOT have additional properties: "c"');
    expect(text).toContain('"a": "2"');
  });

  it("reads draft-07 schemas when their $schema says so", async () => {
    const tuple = defineJsonSchemaTool({
      name: "pair",
      description: "Takes a pair",
      parameters: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { pair: { type: "array", items: [{ type: "string" }, { type: "number" }] } },
      },
      execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
    });
    expect(tuple.parameters.safeParse({ pair: ["a", 1] }).success).toBe(true);
    expect(tuple.parameters.safeParse({ pair: [1, "a"] }).success).toBe(false);
  });

  it("throws InvalidToolSchemaError for a schema ajv rejects or one that is not an object schema", () => {
    const broken = () =>
      defineJsonSchemaTool({
        name: "broken",
        description: "",
        parameters: { type: "object", properties: { x: { type: "nonsense" } } },
        execute: async () => ({ content: [] }),
      });
    expect(broken).toThrow(InvalidToolSchemaError);
    expect(broken).toThrow(/Invalid JSON Schema for tool "broken"/);
    expect(() =>
      defineJsonSchemaTool({
        name: "s",
        description: "",
        parameters: { type: "string" },
        execute: async () => ({ content: [] }),
      }),
    ).toThrow(/"type": "object"/);
    expect(() =>
      defineJsonSchemaTool({
        name: "bad name",
        description: "",
        parameters: { type: "object" },
        execute: async () => ({ content: [] }),
      }),
    ).toThrow(TypeError);
  });
});
