/**
 * The JSON Schema side of `defineJsonSchemaTool` on its own: which validator a schema gets
 * (`validatorsWith`), what compiling refuses (`compileArgumentsSchema`), and the issues a tool's
 * arguments get (`jsonSchemaToolWith`).
 */
import { describe, expect, it } from "vitest";
import {
  compileArgumentsSchema,
  InvalidToolSchemaError,
  jsonSchemaToolWith,
  validatorsWith,
} from "../../src/tools/define-json-schema-tool.js";

const objectSchema = { type: "object", properties: { a: { type: "number" } } };

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("validatorsWith", () => {
  it.each([
    ["http://json-schema.org/draft-04/schema#", "draft07"],
    ["http://json-schema.org/draft-06/schema#", "draft07"],
    ["http://json-schema.org/draft-07/schema#", "draft07"],
    ["https://json-schema.org/draft/2020-12/schema", "draft2020"],
    ["https://json-schema.org/draft/2019-09/schema", "draft2020"],
    [undefined, "draft2020"],
    [7, "draft2020"],
    [["http://json-schema.org/draft-07/schema#"], "draft2020"],
  ])("gives a schema declaring %s the %s validator", (declared, kind) => {
    const validatorFor = validatorsWith();
    const draft07 = validatorFor({ $schema: "http://json-schema.org/draft-07/schema#" });
    const draft2020 = validatorFor({});
    expect(draft07).not.toBe(draft2020);
    const schema = declared === undefined ? {} : { $schema: declared };
    expect(validatorFor(schema)).toBe(kind === "draft07" ? draft07 : draft2020);
  });

  it("keeps its validators until renewAfter compilations, then makes new ones", () => {
    const validatorFor = validatorsWith({}, 2);
    const first = validatorFor({});
    expect(validatorFor({})).toBe(first);
    const third = validatorFor({});
    expect(third).not.toBe(first);
    expect(validatorFor({})).toBe(third);
    expect(validatorFor({})).not.toBe(third);
  });

  it("keeps its validators for good by default", () => {
    const validatorFor = validatorsWith();
    const first = validatorFor({});
    for (let i = 0; i < 50; i++) expect(validatorFor({})).toBe(first);
  });

  it("makes both validators lenient about unknown keywords and listing every error", () => {
    for (const $schema of [
      "http://json-schema.org/draft-07/schema#",
      "https://json-schema.org/draft/2020-12/schema",
    ]) {
      const validate = compileArgumentsSchema("t", {
        $schema,
        type: "object",
        "x-vendor": true,
        properties: { a: { type: "number" }, b: { type: "string", format: "email" } },
        required: ["a", "b"],
      });
      expect(validate({ b: "not an email" })).toBe(false);
      expect(validate({ a: 1, b: "not an email" })).toBe(true);
      expect(validate({ a: "1" })).toBe(false);
      expect(validate.errors?.length, $schema).toBe(2);
    }
  });

  it("passes options on to the validators it makes", () => {
    const strict = validatorsWith({ strict: true });
    expect(() => compileArgumentsSchema("t", { type: "object", unknownKeyword: 1 }, strict)).toThrow(
      InvalidToolSchemaError,
    );
    expect(() =>
      compileArgumentsSchema("t", { type: "object", unknownKeyword: 1 }, validatorsWith()),
    ).not.toThrow();
  });
});

describe("compileArgumentsSchema", () => {
  it.each([
    ["null", null],
    ["an array", [{ type: "object" }]],
    ["a string", "object"],
  ])("refuses %s as a schema", (_name, schema) => {
    const error = thrownBy(() => compileArgumentsSchema("tool", schema as never));
    expect(error).toBeInstanceOf(InvalidToolSchemaError);
    expect(error).toMatchObject({
      name: "InvalidToolSchemaError",
      code: "invalid_schema",
      toolName: "tool",
      message: 'Invalid JSON Schema for tool "tool": the schema must be an object',
    });
  });

  it("refuses a schema whose arguments are not an object", () => {
    expect(() => compileArgumentsSchema("tool", { type: "array" })).toThrow(
      'Invalid JSON Schema for tool "tool": the arguments must be an object schema ("type": "object")',
    );
  });

  it("names what the validator refused", () => {
    expect(() =>
      compileArgumentsSchema("tool", { type: "object", properties: { a: { type: "nonsense" } } }),
    ).toThrow(/^Invalid JSON Schema for tool "tool": schema is invalid: data\/properties\/a\/type must be/);
  });

  it("gives a thrown value without a message as text", () => {
    const failing = () =>
      ({
        compile: () => {
          throw "no luck";
        },
        removeSchema: () => undefined,
      }) as never;
    expect(() => compileArgumentsSchema("tool", { type: "object" }, failing)).toThrow(
      'Invalid JSON Schema for tool "tool": no luck',
    );
  });

  it("compiles the same schema with an $id again and again (the validator keeps nothing of it)", () => {
    const schema = { $id: "https://example.com/args", ...objectSchema };
    const validatorFor = validatorsWith();
    for (let i = 0; i < 3; i++) {
      const validate = compileArgumentsSchema("tool", schema, validatorFor);
      expect(validate({ a: 1 })).toBe(true);
      expect(validate({ a: "1" })).toBe(false);
    }
    expect(validatorFor(schema).getSchema("https://example.com/args")).toBeUndefined();
  });

  it("compiles a draft-07 schema with the draft-07 validator", () => {
    const validate = compileArgumentsSchema("tool", {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { pair: { type: "array", items: [{ type: "string" }, { type: "number" }] } },
    });
    expect(validate({ pair: ["a", 1] })).toBe(true);
    expect(validate({ pair: [1, "a"] })).toBe(false);
  });
});

describe("jsonSchemaToolWith", () => {
  const definition = {
    name: "t",
    description: "d",
    parameters: {
      type: "object",
      properties: {
        "a/b": { type: "number" },
        "c~d": { type: "object", properties: { e: { type: "string" } }, required: ["e"] },
      },
      required: ["a/b"],
      additionalProperties: false,
    },
    execute: async () => ({ content: [] }),
  };
  const tool = jsonSchemaToolWith(definition, compileArgumentsSchema("t", definition.parameters));

  it("sends the definition's schema to the model and accepts matching arguments as they are", () => {
    expect(tool.jsonSchema).toBe(definition.parameters);
    const args = { "a/b": 1, "c~d": { e: "x" } };
    expect(tool.parameters.parse(args)).toBe(args);
  });

  it("lists each issue with its path, unescaped, and its message", () => {
    const result = tool.parameters.safeParse({ "a/b": "1", "c~d": {}, extra: true });
    expect(result.success).toBe(false);
    const issues = result.error!.issues.map((issue) => ({ path: issue.path, message: issue.message }));
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: ["a/b"], message: "must be number" },
        { path: ["c~d", "e"], message: "must have required property 'e'" },
        { path: [], message: 'must NOT have additional properties: "extra"' },
      ]),
    );
    expect(issues).toHaveLength(3);
    expect(result.error!.issues.every((issue) => issue.code === "custom")).toBe(true);
  });

  it("names a missing property in the path of its issue", () => {
    const result = tool.parameters.safeParse({});
    expect(result.error!.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [["a/b"], "must have required property 'a/b'"],
    ]);
  });

  it("names a property another one depends on at the path of the object, not as a missing property", () => {
    const dependent = { type: "object", dependentRequired: { card: ["address"] } };
    const tool = jsonSchemaToolWith(
      { ...definition, parameters: dependent },
      compileArgumentsSchema("t", dependent),
    );
    expect(
      tool.parameters.safeParse({ card: 1 }).error!.issues.map((issue) => [issue.path, issue.message]),
    ).toEqual([[[], "must have property address when property card is present"]]);
  });

  it("says an argument is invalid when the validator gives no message", () => {
    const validate = Object.assign(() => false, {
      errors: [{ instancePath: "/x", keyword: "custom", params: {}, schemaPath: "#" }],
    });
    const silent = jsonSchemaToolWith(definition, validate as never);
    expect(silent.parameters.safeParse({}).error!.issues.map((issue) => [issue.path, issue.message])).toEqual(
      [[["x"], "is invalid"]],
    );
  });
});
