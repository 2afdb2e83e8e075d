import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as zodV3Subpath } from "zod/v3";
import { z as zod3 } from "zod3";
import { defineTool, UnsupportedToolSchemaError } from "../../src/index.js";
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
