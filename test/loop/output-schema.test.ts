import { describe, expect, it } from "vitest";
import { z } from "zod";
import { outputStateOf } from "../../src/loop/output-schema.js";
import { DEFAULT_MAX_OUTPUT_REPAIRS, FINAL_ANSWER_TOOL } from "../../src/types/output.js";

const strict = (schema: z.ZodType) => outputStateOf(schema).request.strict;

describe("the output state of a schema", () => {
  it("an object schema is sent as is, without $schema, strict, and unwrapped", () => {
    const state = outputStateOf(z.object({ city: z.string() }));
    expect(state).toEqual({
      request: {
        name: FINAL_ANSWER_TOOL,
        schema: {
          type: "object",
          properties: { city: { type: "string" } },
          required: ["city"],
          additionalProperties: false,
        },
        strict: true,
      },
      wrapped: false,
      maxRepairs: DEFAULT_MAX_OUTPUT_REPAIRS,
      repairs: 0,
      accepted: false,
    });
  });

  it("any other schema is wrapped by the final-answer tool and not strict", () => {
    const state = outputStateOf(z.string(), 0);
    expect(state.request).toEqual({ name: FINAL_ANSWER_TOOL, schema: { type: "string" }, strict: false });
    expect(state.wrapped).toBe(true);
    expect(state.maxRepairs).toBe(0);
    expect(outputStateOf(z.array(z.object({ a: z.string() }))).request.strict).toBe(false);
  });

  it("refuses a repair count that is not a whole number ≥ 0", () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => outputStateOf(z.string(), bad), String(bad)).toThrow(
        new RangeError(`maxOutputRepairs must be a whole number ≥ 0, got ${bad}`),
      );
    expect(outputStateOf(z.string(), 3).maxRepairs).toBe(3);
  });

  it("strict objects: every property required, no others allowed, at every depth", () => {
    expect(strict(z.object({}))).toBe(true);
    expect(
      strict(
        z.object({
          name: z.string().nullable(),
          kind: z.enum(["a", "b"]),
          none: z.literal(null),
          tags: z.array(z.object({ label: z.string(), weight: z.number() })),
          either: z.union([z.object({ x: z.string() }), z.object({ y: z.number() })]),
        }),
      ),
    ).toBe(true);
  });

  it("an optional property, or extra properties allowed, anywhere, is not strict", () => {
    expect(strict(z.object({ a: z.string(), b: z.string().optional() }))).toBe(false);
    expect(strict(z.looseObject({ a: z.string() }))).toBe(false);
    expect(strict(z.object({ a: z.string() }).catchall(z.number()))).toBe(false);
    expect(strict(z.object({ inner: z.object({ b: z.string().optional() }) }))).toBe(false);
    expect(strict(z.object({ list: z.array(z.object({ b: z.string().optional() })) }))).toBe(false);
    expect(
      strict(z.object({ a: z.union([z.object({ x: z.string() }), z.looseObject({ y: z.string() })]) })),
    ).toBe(false);
    expect(strict(z.object({ map: z.record(z.string(), z.number()) }))).toBe(false);
  });

  it.each([
    ["allOf", z.intersection(z.string(), z.string().min(1))],
    ["not", z.never()],
    ["prefixItems", z.tuple([z.string(), z.number()])],
    ["if", z.string().meta({ if: { minLength: 1 } })],
    ["patternProperties", z.string().meta({ patternProperties: {} })],
    ["propertyNames", z.string().meta({ propertyNames: { pattern: "^x" } })],
    ["uniqueItems", z.array(z.string()).meta({ uniqueItems: true })],
  ])("a property whose schema uses %s (rejected by strict mode) is not strict", (keyword, property) => {
    const state = outputStateOf(z.object({ a: property }));
    expect(JSON.stringify(state.request.schema)).toContain(`"${keyword}"`);
    expect(state.request.strict).toBe(false);
  });

  it("a property named like a keyword strict mode rejects is a name, not that keyword", () => {
    expect(strict(z.object({ not: z.string(), if: z.number(), allOf: z.boolean() }))).toBe(true);
    expect(strict(z.object({ uniqueItems: z.object({ prefixItems: z.string() }) }))).toBe(true);
    expect(strict(z.object({ not: z.string().optional() }))).toBe(false);
    const either = z.discriminatedUnion("k", [
      z.object({ k: z.literal("a") }),
      z.object({ k: z.literal("b"), x: z.string().optional() }),
    ]);
    expect(JSON.stringify(outputStateOf(z.object({ either })).request.schema)).toContain('"oneOf"');
    expect(strict(z.object({ either }))).toBe(false);
  });

  it("values that are data, not schemas (a default, examples), are not read as keywords", () => {
    expect(strict(z.object({ a: z.object({ not: z.string() }).default({ not: "x" }) }))).toBe(true);
    expect(strict(z.object({ a: z.string().meta({ examples: [{ uniqueItems: true }] }) }))).toBe(true);
    expect(strict(z.object({ a: z.array(z.any()).meta({ items: true }) }))).toBe(true);
  });

  it("definitions are walked by their schemas, whatever their names", () => {
    const Tree: z.ZodType = z.lazy(() => z.object({ name: z.string(), children: z.array(Tree) }));
    expect(strict(z.object({ tree: Tree }))).toBe(true);
    const Loose: z.ZodType = z.lazy(() =>
      z.object({ name: z.string().optional(), children: z.array(Loose) }),
    );
    expect(strict(z.object({ tree: Loose }))).toBe(false);
    const named = z.object({ a: z.string() }).meta({ id: "not" });
    const state = outputStateOf(z.object({ first: named, second: named }));
    expect(JSON.stringify(state.request.schema)).toContain('"$defs":{"not"');
    expect(state.request.strict).toBe(true);
  });
});
