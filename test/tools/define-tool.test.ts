import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as zodV3Subpath } from "zod/v3";
import { z as zod3 } from "zod3";
import { defineTool, UnsupportedToolSchemaError } from "../../src/index.js";
import { toToolSpec } from "../../src/tools/define-tool.js";
import { resultText, runToolCalls } from "../support/mcp-support.js";

const execute = async ({ a, b }: { a: number; b: number }) => ({
  content: [{ type: "text" as const, text: String(a + b) }],
});

/** Calls defineTool with a schema its types reject, as plain JavaScript (or a cast) would. */
const defineUnchecked = (parameters: unknown) => () =>
  defineTool({
    name: "add",
    description: "Adds two numbers",
    parameters: parameters as z.ZodType<{ a: number; b: number }>,
    execute,
  });

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("defineTool with schemas that are not zod 4", () => {
  it("rejects a schema of the zod 3 package with an error that names the fix", () => {
    const schema = zod3.object({ a: zod3.number(), b: zod3.number() });
    expect(schema).toHaveProperty("_def");
    const define = defineUnchecked(schema);
    expect(define).toThrow(UnsupportedToolSchemaError);
    expect(define).toThrow(
      'Tool "add": `parameters` is a zod 3 schema; agentchart needs zod 4: run `npm install zod@^4` and `import { z } from "zod"`.',
    );
    expect(thrownBy(define)).toMatchObject({ code: "unsupported_schema", toolName: "add" });
  });

  it("rejects a schema made with zod 4's `zod/v3` compatibility export the same way", () => {
    expect(defineUnchecked(zodV3Subpath.object({ a: zodV3Subpath.number() }))).toThrow(/is a zod 3 schema/);
  });

  it("rejects a plain JSON Schema and points to defineJsonSchemaTool", () => {
    const jsonSchema = { type: "object", properties: { a: { type: "number" } } };
    expect(defineUnchecked(jsonSchema)).toThrow(
      'Tool "add": `parameters` is not a zod 4 schema; pass z.object({ … }) from zod 4, or use defineJsonSchemaTool for a plain JSON Schema.',
    );
    expect(defineUnchecked(undefined)).toThrow(UnsupportedToolSchemaError);
  });

  it("rejects a zod 3 schema at compile time too", () => {
    const schema = zod3.object({ a: zod3.number(), b: zod3.number() });
    // @ts-expect-error: a zod 3 schema is not a zod 4 `z.ZodType`.
    expect(() => defineTool({ name: "add", description: "Adds", parameters: schema, execute })).toThrow(
      UnsupportedToolSchemaError,
    );
  });
});

describe("defineTool with zod 4 schemas", () => {
  it("runs a tool whose schema comes from `zod` and validates its arguments", async () => {
    const add = defineTool({
      name: "add",
      description: "Adds two numbers",
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute,
    });
    expect(add.jsonSchema).toMatchObject({ type: "object", required: ["a", "b"] });
    const run = await runToolCalls(
      [add],
      [
        { name: "add", arguments: { a: 2, b: 3 } },
        { name: "add", arguments: { a: "two", b: 3 } },
      ],
    );
    expect(resultText(run.results[0])).toBe("5");
    expect(run.results[1]?.isError).toBe(true);
    expect(resultText(run.results[1])).toMatch(/^Validation failed for tool "add":\n {2}- a: .*number/);
  });
});

const noop = async () => ({ content: [] });

describe("defineTool's checks and JSON Schema", () => {
  it.each([
    ["a", true],
    ["read_file-2", true],
    ["x".repeat(64), true],
    ["x".repeat(65), false],
    ["", false],
    ["has space", false],
    ["dotted.name", false],
    ["ünicode", false],
    ["line\nbreak", false],
  ])("accepts the name %j: %s", (name, accepted) => {
    const define = () => defineTool({ name, description: "d", parameters: z.object({}), execute: noop });
    if (accepted) expect(define().name).toBe(name);
    else {
      expect(define).toThrow(TypeError);
      expect(define).toThrow(`Invalid tool name "${name}": use 1-64 letters, digits, "_" or "-"`);
    }
  });

  it("names another zod major version", () => {
    expect(defineUnchecked({ _zod: { version: { major: 5 } } })).toThrow(
      'Tool "add": `parameters` is a zod 5 schema; agentchart needs zod 4: run `npm install zod@^4` and `import { z } from "zod"`.',
    );
  });

  it.each([
    ["null", null],
    ["a string", "z.object()"],
    ["an object with a version that is not a number", { _zod: { version: { major: "4" } } }],
    ["an object without a version", { _zod: {} }],
  ])("refuses %s as not a zod 4 schema", (_name, parameters) => {
    const error = thrownBy(defineUnchecked(parameters));
    expect(error).toBeInstanceOf(UnsupportedToolSchemaError);
    expect(error).toMatchObject({
      name: "UnsupportedToolSchemaError",
      code: "unsupported_schema",
      toolName: "add",
      message: expect.stringContaining("`parameters` is not a zod 4 schema"),
    });
  });

  it("describes the arguments as the model sends them, without $schema, and anything unrepresentable as any", () => {
    const tool = defineTool({
      name: "t",
      description: "d",
      parameters: z.object({
        count: z.number().default(1),
        when: z.date(),
        text: z.string().transform(Number),
      }),
      execute: noop,
    });
    expect(tool.jsonSchema).not.toHaveProperty("$schema");
    expect(tool.jsonSchema).toMatchObject({
      type: "object",
      properties: { count: { type: "number", default: 1 }, when: {}, text: { type: "string" } },
      required: ["when", "text"],
    });
  });

  it("keeps the definition's fields and gives the model its name, description and JSON Schema", () => {
    const tool = defineTool({
      name: "t",
      label: "T",
      description: "Does t",
      parameters: z.object({ a: z.number() }),
      executionMode: "sequential",
      execute: noop,
    });
    expect(tool).toMatchObject({ name: "t", label: "T", description: "Does t", executionMode: "sequential" });
    expect(toToolSpec(tool)).toEqual({ name: "t", description: "Does t", parameters: tool.jsonSchema });
  });
});
