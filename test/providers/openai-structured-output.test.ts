import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { openai } from "../../src/openai.js";
import { outputInstructions } from "../../src/providers/openai/structured-output.js";
import type { Model } from "../../src/types/model.js";
import type { OutputRequest } from "../../src/types/stream.js";
import { collectEvents } from "../support/collect-events.js";
import { chatModel, chunk, context, usageChunk } from "../support/openai-fixtures.js";
import {
  OpenAITestServer,
  type ScriptedReply,
  splitAwkwardly,
  streamReply,
} from "../support/openai-server.js";

let server: OpenAITestServer;
beforeEach(async () => {
  server = await OpenAITestServer.start();
});
afterEach(() => server.close());

const forecastSchema = z.object({
  city: z.string(),
  celsius: z.number(),
  conditions: z.array(z.enum(["sun", "rain", "wind"])),
});
/** What the agent puts on the context: `z.toJSONSchema` output, `$schema` key included. */
const forecast: OutputRequest = {
  name: "forecast",
  schema: z.toJSONSchema(forecastSchema) as Record<string, unknown>,
  strict: true,
};
/** The schema as the server must receive it: the same, without the root `$schema`. */
const forecastOnTheWire = {
  type: "object",
  properties: {
    city: { type: "string" },
    celsius: { type: "number" },
    conditions: { type: "array", items: { type: "string", enum: ["sun", "rain", "wind"] } },
  },
  required: ["city", "celsius", "conditions"],
  additionalProperties: false,
};
const forecastValue = { city: "Paris", celsius: 21.5, conditions: ["sun", "wind"] };
/** The JSON text as a model streams it, in token-sized pieces (multi-byte text included). */
const jsonPieces = [
  '{"',
  "city",
  '":"',
  "Par",
  'is","',
  "cel",
  'sius":',
  "21",
  ".5",
  ',"conditions":["',
  'sun","',
  'wind"]}',
];

const chatJsonReply = (): ScriptedReply =>
  streamReply([
    chunk({ role: "assistant", content: "", refusal: null }),
    ...jsonPieces.map((piece) => chunk({ content: piece })),
    chunk({}, "stop"),
    usageChunk(120, 18),
  ]);

let sequence = 0;
/** A Responses stream whose one message is the JSON text, as `/v1/responses` sends it. */
const responsesJsonReply = (): ScriptedReply => {
  const event = (type: string, fields: Record<string, unknown>) => ({
    type,
    sequence_number: ++sequence,
    ...fields,
  });
  const response = (status: string) => ({
    id: "resp_1",
    object: "response",
    model: "gpt-test",
    status,
    output: [],
  });
  const item = { type: "message", id: "msg_1", role: "assistant", status: "in_progress", content: [] };
  return streamReply(
    [
      event("response.created", { response: response("in_progress") }),
      event("response.output_item.added", { output_index: 0, item }),
      ...jsonPieces.map((delta) =>
        event("response.output_text.delta", { item_id: "msg_1", output_index: 0, content_index: 0, delta }),
      ),
      event("response.output_item.done", { output_index: 0, item: { ...item, status: "completed" } }),
      event("response.completed", { response: response("completed") }),
    ],
    { named: true, done: false },
  );
};

/** An HTTP error reply whose body is a fixture's bytes, exactly as the server sent them. */
const errorReply = (
  status: number,
  fixture: string,
  headers: Record<string, string> = {},
): ScriptedReply => ({
  kind: "stream",
  status,
  headers: { "content-type": "application/json", ...headers },
  pieces: splitAwkwardly(
    readFileSync(new URL(`../fixtures/provider-errors/${fixture}`, import.meta.url), "utf8"),
  ),
});

const chat = chatModel({ id: "gpt-4" });
const responses: Model = chatModel({ id: "gpt-4", api: "openai-responses" });
const withOutput = (output: OutputRequest = forecast) => context(undefined, { output });
const instructed = `You are terse.\n\n${outputInstructions(forecast)}`;

describe("openai provider: typed output in json_schema mode (default)", () => {
  it("Chat Completions: sends response_format json_schema with name, schema and strict; the text parses", async () => {
    server.enqueue(chatJsonReply());
    const { message } = await collectEvents(openai({ baseURL: server.baseURL })(chat, withOutput(), {}));

    const { body } = server.requests[0]!;
    expect(body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "forecast", schema: forecastOnTheWire, strict: true },
    });
    expect(body.messages[0]).toEqual({ role: "system", content: "You are terse." });
    expect(message.stopReason).toBe("stop");
    expect(message.content).toHaveLength(1);
    const text = message.content[0]!.type === "text" ? message.content[0]!.text : "";
    expect(forecastSchema.parse(JSON.parse(text))).toEqual(forecastValue);
  });

  it("Responses: sends text.format json_schema (strict as given) and no response_format; the text parses", async () => {
    server.enqueue(responsesJsonReply());
    const optional: OutputRequest = {
      name: "forecast_loose",
      schema: z.toJSONSchema(forecastSchema.partial()) as Record<string, unknown>,
      strict: false,
    };
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL })(responses, withOutput(optional), {}),
    );

    const { path, body } = server.requests[0]!;
    expect(path).toBe("/v1/responses");
    expect(body.text).toEqual({
      format: {
        type: "json_schema",
        name: "forecast_loose",
        schema: { ...forecastOnTheWire, required: undefined },
        strict: false,
      },
    });
    expect(body.text.format.schema).not.toHaveProperty("required");
    expect(body).not.toHaveProperty("response_format");
    expect(body.instructions).toBe("You are terse.");
    expect(message.stopReason).toBe("stop");
    const text = message.content[0]!.type === "text" ? message.content[0]!.text : "";
    expect(JSON.parse(text)).toEqual(forecastValue);
  });

  it("sends neither response_format nor text when the context asks for no output", async () => {
    server.enqueue(chatJsonReply(), responsesJsonReply());
    const streamFn = openai({ baseURL: server.baseURL });
    await collectEvents(streamFn(chat, context(), {}));
    await collectEvents(streamFn(responses, context(), {}));
    expect(server.requests[0]!.body).not.toHaveProperty("response_format");
    expect(server.requests[0]!.body.messages[0].content).toBe("You are terse.");
    expect(server.requests[1]!.body).not.toHaveProperty("text");
    expect(server.requests[1]!.body.instructions).toBe("You are terse.");
  });
});

describe("openai provider: typed output in json_object and instructions modes", () => {
  it("json_object: Chat sends {type: json_object} and the schema at the end of the system message", async () => {
    server.enqueue(chatJsonReply());
    await collectEvents(
      openai({ baseURL: server.baseURL, structuredOutput: "json_object" })(chat, withOutput(), {}),
    );
    const { body } = server.requests[0]!;
    expect(body.response_format).toEqual({ type: "json_object" });
    expect(body.messages[0]).toEqual({ role: "system", content: instructed });
  });

  it("json_object: Responses sends text.format {type: json_object} and the schema at the end of the instructions", async () => {
    server.enqueue(responsesJsonReply());
    await collectEvents(
      openai({ baseURL: server.baseURL, structuredOutput: "json_object" })(responses, withOutput(), {}),
    );
    const { body } = server.requests[0]!;
    expect(body.text).toEqual({ format: { type: "json_object" } });
    expect(body.instructions).toBe(instructed);
  });

  it("json_object with a schema whose root is not an object sends the instructions alone", async () => {
    server.enqueue(chatJsonReply());
    const tags: OutputRequest = {
      name: "tags",
      schema: z.toJSONSchema(z.array(z.string())) as Record<string, unknown>,
      strict: false,
    };
    await collectEvents(
      openai({ baseURL: server.baseURL, structuredOutput: "json_object" })(chat, withOutput(tags), {}),
    );
    const { body } = server.requests[0]!;
    expect(body).not.toHaveProperty("response_format");
    expect(body.messages[0].content).toBe(`You are terse.\n\n${outputInstructions(tags)}`);
  });

  it("instructions: no response_format or text, the schema described in the system message / instructions", async () => {
    server.enqueue(chatJsonReply(), responsesJsonReply());
    const streamFn = openai({ baseURL: server.baseURL, structuredOutput: "instructions" });
    const chatReply = await collectEvents(streamFn(chat, withOutput(), {}));
    const responsesReply = await collectEvents(streamFn(responses, withOutput(), {}));

    const [chatRequest, responsesRequest] = server.requests;
    expect(chatRequest!.body).not.toHaveProperty("response_format");
    expect(chatRequest!.body.messages[0]).toEqual({ role: "system", content: instructed });
    expect(responsesRequest!.body).not.toHaveProperty("text");
    expect(responsesRequest!.body.instructions).toBe(instructed);
    expect(instructed).toContain(JSON.stringify(forecastOnTheWire));
    for (const { message } of [chatReply, responsesReply]) {
      const text = message.content[0]!.type === "text" ? message.content[0]!.text : "";
      expect(JSON.parse(text)).toEqual(forecastValue);
    }
  });

  it("instructions without a system prompt: the instructions are the whole system message", async () => {
    server.enqueue(chatJsonReply());
    await collectEvents(
      openai({ baseURL: server.baseURL, structuredOutput: "instructions" })(
        chat,
        { ...withOutput(), systemPrompt: "" },
        {},
      ),
    );
    expect(server.requests[0]!.body.messages[0]).toEqual({
      role: "system",
      content: outputInstructions(forecast),
    });
  });
});

describe("openai provider: falling back to instructions when the server rejects the format", () => {
  it("Chat: a 400 naming response_format as unsupported is retried once with instructions, and remembered", async () => {
    server.enqueue(errorReply(400, "openai-json-schema-unsupported.txt"), chatJsonReply(), chatJsonReply());
    const bodies: unknown[] = [];
    const streamFn = openai({ baseURL: server.baseURL });
    const onPayload = (body: unknown) => {
      bodies.push(structuredClone(body));
    };
    const { message, events } = await collectEvents(streamFn(chat, withOutput(), { onPayload }));

    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.body.response_format.type).toBe("json_schema");
    const retried = server.requests[1]!.body;
    expect(retried).not.toHaveProperty("response_format");
    expect(retried.messages[0]).toEqual({ role: "system", content: instructed });
    expect(retried.messages.slice(1)).toEqual(server.requests[0]!.body.messages.slice(1));
    expect(bodies).toEqual([server.requests[0]!.body, retried]);
    expect(events.filter((event) => event.type === "start")).toHaveLength(1);
    expect(message.stopReason).toBe("stop");
    const text = message.content[0]!.type === "text" ? message.content[0]!.text : "";
    expect(forecastSchema.parse(JSON.parse(text))).toEqual(forecastValue);

    // The next call of the same StreamFn for this server and model asks with instructions at once.
    await collectEvents(streamFn(chat, withOutput(), {}));
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]!.body).not.toHaveProperty("response_format");
    expect(server.requests[2]!.body.messages[0].content).toBe(instructed);
  });

  it("the memory is per model and per StreamFn: another model, or a new StreamFn, asks with the schema again", async () => {
    server.enqueue(errorReply(400, "openai-json-schema-unsupported.txt"), chatJsonReply());
    server.enqueue(chatJsonReply(), chatJsonReply());
    const streamFn = openai({ baseURL: server.baseURL });
    await collectEvents(streamFn(chat, withOutput(), {}));
    await collectEvents(streamFn(chatModel({ id: "gpt-4o" }), withOutput(), {}));
    await collectEvents(openai({ baseURL: server.baseURL })(chat, withOutput(), {}));
    expect(server.requests.map((request) => request.body.response_format?.type ?? "none")).toEqual([
      "json_schema",
      "none",
      "json_schema",
      "json_schema",
    ]);
  });

  it("Responses: the rejected text.format request is retried with the schema in the instructions", async () => {
    server.enqueue(errorReply(400, "openai-json-schema-unsupported.txt"), responsesJsonReply());
    const { message } = await collectEvents(openai({ baseURL: server.baseURL })(responses, withOutput(), {}));
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.body.text.format.type).toBe("json_schema");
    expect(server.requests[1]!.body).not.toHaveProperty("text");
    expect(server.requests[1]!.body.instructions).toBe(instructed);
    const text = message.content[0]!.type === "text" ? message.content[0]!.text : "";
    expect(JSON.parse(text)).toEqual(forecastValue);
  });

  it("json_object mode: LM Studio's rejection of json_object falls back to instructions alone", async () => {
    server.enqueue(errorReply(400, "lmstudio-json-object-rejected.txt"), chatJsonReply());
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL, structuredOutput: "json_object" })(chat, withOutput(), {}),
    );
    expect(server.requests[0]!.body.response_format).toEqual({ type: "json_object" });
    expect(server.requests[1]!.body).not.toHaveProperty("response_format");
    expect(server.requests[1]!.body.messages[0].content).toBe(instructed);
    expect(message.stopReason).toBe("stop");
  });

  it("an HTTP 500 rejection (llama.cpp before Sept. 2024) goes through the usual retries first", async () => {
    const immediately = { "retry-after-ms": "0" };
    server.enqueue(
      errorReply(500, "llamacpp-json-schema-unsupported.txt", immediately),
      errorReply(500, "llamacpp-json-schema-unsupported.txt", immediately),
      chatJsonReply(),
    );
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL, maxRetries: 1 })(chat, withOutput(), {}),
    );
    expect(server.requests.map((request) => request.body.response_format?.type ?? "none")).toEqual([
      "json_schema",
      "json_schema",
      "none",
    ]);
    expect(message.stopReason).toBe("stop");
  });

  it("does not fall back for other errors or for a schema the server cannot use", async () => {
    server.enqueue(
      {
        kind: "json",
        status: 400,
        body: { error: { message: "model 'gpt-4' not found", type: "invalid_request_error" } },
      },
      errorReply(400, "openai-invalid-schema.txt"),
    );
    const streamFn = openai({ baseURL: server.baseURL });
    const notFound = await collectEvents(streamFn(chat, withOutput(), {}));
    const invalidSchema = await collectEvents(streamFn(chat, withOutput(), {}));
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.response_format.type).toBe("json_schema");
    expect(notFound.message.errorMessage).toBe("openai API error 400 model 'gpt-4' not found");
    expect(invalidSchema.message.errorMessage).toContain("Invalid schema for response_format 'response'");
  });

  it("retries only once: a second rejection is the reply's error", async () => {
    server.enqueue(
      errorReply(400, "openai-json-schema-unsupported.txt"),
      errorReply(400, "lmstudio-json-object-rejected.txt"),
    );
    const { message, events } = await collectEvents(
      openai({ baseURL: server.baseURL })(chat, withOutput(), {}),
    );
    expect(server.requests).toHaveLength(2);
    expect(events.map((event) => event.type)).toEqual(["error"]);
    expect(message.errorMessage).toBe(
      `openai API error 400 "'response_format.type' must be 'json_schema' or 'text'"`,
    );
  });
});

describe("openai provider: abort during the output fallback", () => {
  it("an abort while the fallback body is prepared sends no second request", async () => {
    server.enqueue(errorReply(400, "openai-json-schema-unsupported.txt"), chatJsonReply());
    const controller = new AbortController();
    let payloads = 0;
    const onPayload = () => {
      if (++payloads === 2) controller.abort();
    };
    const { final, message } = await collectEvents(
      openai({ baseURL: server.baseURL })(chat, withOutput(), { signal: controller.signal, onPayload }),
    );
    expect(payloads).toBe(2);
    expect(server.requests).toHaveLength(1);
    expect(final).toMatchObject({ type: "error", reason: "aborted" });
    expect(message.stopReason).toBe("aborted");
  });

  it("an abort while the fallback reply streams cancels it and keeps the partial text", async () => {
    server.enqueue(
      errorReply(400, "openai-json-schema-unsupported.txt"),
      streamReply([chunk({ role: "assistant", content: "" }), chunk({ content: '{"city":"Par' })], {
        done: false,
        ending: "hang",
      }),
    );
    const controller = new AbortController();
    const { final, message } = await collectEvents(
      openai({ baseURL: server.baseURL })(chat, withOutput(), { signal: controller.signal }),
      (event) => {
        if (event.type === "text_delta") controller.abort();
      },
    );
    expect(final).toMatchObject({ type: "error", reason: "aborted" });
    expect(message.content).toEqual([{ type: "text", text: '{"city":"Par' }]);
    await server.requests[1]!.closed;
    expect(server.requests[1]!.body.messages[0].content).toBe(instructed);
  });

  it("an abort after the server's rejection, while the usual retry waits, ends the reply with no fallback request", async () => {
    server.enqueue(
      errorReply(500, "llamacpp-json-schema-unsupported.txt", { "retry-after-ms": "60000" }),
      chatJsonReply(),
    );
    const controller = new AbortController();
    const reply = collectEvents(
      openai({ baseURL: server.baseURL, maxRetries: 1 })(chat, withOutput(), { signal: controller.signal }),
    );
    await (await server.request(0)).closed;
    controller.abort();
    const { final } = await reply;
    expect(final).toMatchObject({ type: "error", reason: "aborted" });
    expect(server.requests).toHaveLength(1);
  });
});
