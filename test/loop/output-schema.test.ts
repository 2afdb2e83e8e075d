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
});
