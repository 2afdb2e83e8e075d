import { readFileSync } from "node:fs";
import { APIError } from "openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  effectiveOutputMode,
  isOutputFormatRejection,
  outputInstructions,
  StructuredOutputModes,
  schemaForServer,
  systemPromptWithOutput,
} from "../../src/providers/openai/structured-output.js";
import { chatModel, context } from "../support/openai-fixtures.js";

/** A server's error body from `test/fixtures/provider-errors/`, parsed. */
const errorBody = (file: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/provider-errors/${file}`, import.meta.url), "utf8"));
/** The error the openai SDK throws for an HTTP reply with this status and body. */
const httpError = (status: number, body: unknown) =>
  APIError.generate(status, body as object, undefined, new Headers());

const weather = {
  name: "weather",
  schema: z.toJSONSchema(z.object({ city: z.string(), celsius: z.number() })) as Record<string, unknown>,
  strict: true,
};

describe("schemaForServer", () => {
  it("drops the root $schema z.toJSONSchema adds and keeps everything else as it is", () => {
    expect(weather.schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schemaForServer(weather.schema)).toEqual({
      type: "object",
      properties: { city: { type: "string" }, celsius: { type: "number" } },
      required: ["city", "celsius"],
      additionalProperties: false,
    });
    expect(weather.schema.$schema).toBeDefined();
  });

  it("returns a schema without $schema unchanged (the same object)", () => {
    const schema = { type: "object", properties: { $schema: { type: "string" } } };
    expect(schemaForServer(schema)).toBe(schema);
  });
});

describe("outputInstructions and systemPromptWithOutput", () => {
  it("name the schema, forbid anything around the JSON and carry the schema as compact JSON", () => {
    const text = outputInstructions(weather);
    expect(text).toContain('JSON Schema "weather"');
    expect(text).toContain("no Markdown code fence");
    const schemaLine = text.split("\n").at(-1)!;
    expect(JSON.parse(schemaLine)).toEqual(schemaForServer(weather.schema));
  });

  it("append the instructions after a blank line except in json_schema mode or without output", () => {
    const withOutput = context(undefined, { output: weather });
    const instructions = outputInstructions(weather);
    expect(systemPromptWithOutput(withOutput, "instructions")).toBe(`You are terse.\n\n${instructions}`);
    expect(systemPromptWithOutput(withOutput, "json_object")).toBe(`You are terse.\n\n${instructions}`);
    expect(systemPromptWithOutput(withOutput, "json_schema")).toBe("You are terse.");
    expect(systemPromptWithOutput(context(), "instructions")).toBe("You are terse.");
    expect(systemPromptWithOutput({ ...withOutput, systemPrompt: "" }, "instructions")).toBe(instructions);
  });
});

describe("effectiveOutputMode", () => {
  it("asks for a non-object root with instructions instead of JSON mode, and keeps every other mode", () => {
    const tags = {
      name: "tags",
      schema: z.toJSONSchema(z.array(z.string())) as Record<string, unknown>,
      strict: false,
    };
    expect(effectiveOutputMode(tags, "json_object")).toBe("instructions");
    expect(effectiveOutputMode(tags, "json_schema")).toBe("json_schema");
    expect(effectiveOutputMode(weather, "json_object")).toBe("json_object");
    expect(effectiveOutputMode(weather, "instructions")).toBe("instructions");
  });
});

describe("isOutputFormatRejection", () => {
  it("recognises servers refusing the format itself", () => {
    // OpenAI gpt-4 (recorded), LM Studio refusing json_object, llama.cpp before September 2024 (HTTP 500).
    expect(isOutputFormatRejection(httpError(400, errorBody("openai-json-schema-unsupported.txt")))).toBe(
      true,
    );
    expect(isOutputFormatRejection(httpError(400, errorBody("lmstudio-json-object-rejected.txt")))).toBe(
      true,
    );
    expect(isOutputFormatRejection(httpError(500, errorBody("llamacpp-json-schema-unsupported.txt")))).toBe(
      true,
    );
    const responsesWording = {
      error: {
        message: "Invalid parameter: 'text.format' of type 'json_schema' is not supported with this model.",
      },
    };
    expect(isOutputFormatRejection(httpError(400, responsesWording))).toBe(true);
  });

  it("does not take a schema the server cannot use, other errors or other statuses for a rejection", () => {
    expect(isOutputFormatRejection(httpError(400, errorBody("openai-invalid-schema.txt")))).toBe(false);
    const conversion = {
      error: {
        code: 400,
        message:
          'JSON schema conversion failed:\nUnrecognized schema: {"description":"Arguments (JSON object)"}',
        type: "invalid_request_error",
      },
    };
    expect(isOutputFormatRejection(httpError(400, conversion))).toBe(false);
    const xgrammar = {
      error: {
        message: "The provided JSON schema contains features not supported by xgrammar.",
        type: "BadRequestError",
        param: null,
        code: 400,
      },
    };
    expect(isOutputFormatRejection(httpError(400, xgrammar))).toBe(false);
    expect(isOutputFormatRejection(httpError(400, { error: { message: "model 'x' not found" } }))).toBe(
      false,
    );
    // The same wording with a status no format rejection comes with (a gateway's 503, a 429).
    const body = errorBody("openai-json-schema-unsupported.txt");
    expect(isOutputFormatRejection(httpError(503, body))).toBe(false);
    expect(isOutputFormatRejection(httpError(429, body))).toBe(false);
    expect(isOutputFormatRejection(httpError(422, body))).toBe(false);
    expect(isOutputFormatRejection(new Error("response_format is not supported"))).toBe(false);
  });
});

describe("StructuredOutputModes", () => {
  it("gives the configured mode until a server rejects it for a model, then instructions for that pair only", () => {
    const modes = new StructuredOutputModes("json_schema");
    const gpt4 = chatModel({ id: "gpt-4" });
    const gpt4o = chatModel({ id: "gpt-4o" });
    expect(modes.modeFor("http://a/v1", gpt4)).toBe("json_schema");
    modes.fallBack("http://a/v1", gpt4);
    expect(modes.modeFor("http://a/v1", gpt4)).toBe("instructions");
    expect(modes.modeFor("http://a/v1", gpt4o)).toBe("json_schema");
    expect(modes.modeFor("http://b/v1", gpt4)).toBe("json_schema");
  });
});
