import { describe, expect, it } from "vitest";
import { buildChatPayload, chatCompletionsProtocol } from "../../src/providers/openai/chat-completions.js";
import { buildResponsesPayload, responsesProtocol } from "../../src/providers/openai/responses.js";
import { PartialMessageBuilder } from "../../src/providers/partial-message.js";
import { ServerStreamError } from "../../src/providers/provider-errors.js";
import { chatModel, context } from "../support/openai-fixtures.js";

/** Feeds `chunks` to a protocol's handler as `run-stream.ts` does; returns the reply and its events. */
function handle(protocol: typeof chatCompletionsProtocol | typeof responsesProtocol, chunks: unknown[]) {
  const model = chatModel({ api: protocol.api });
  const builder = new PartialMessageBuilder(model, protocol.api);
  const handler = protocol.createHandler(builder, model) as {
    onChunk(chunk: unknown): void;
    onStreamEnd(): void;
  };
  const eventsPerChunk = chunks.map((chunk) => {
    handler.onChunk(chunk);
    return builder.takeEvents().map((event) => event.type);
  });
  handler.onStreamEnd();
  return { message: builder.message, eventsPerChunk };
}

const chat = (chunks: unknown[]) => handle(chatCompletionsProtocol, chunks);
const choice = (delta: unknown, extra: Record<string, unknown> = {}) => ({
  choices: [{ index: 0, delta, ...extra }],
});

function malformed(chunks: unknown[]): string {
  try {
    chat(chunks);
  } catch (error) {
    expect(error).toBeInstanceOf(ServerStreamError);
    expect((error as ServerStreamError).code).toBe("malformed_event");
    return (error as ServerStreamError).message;
  }
  throw new Error("expected a malformed_event error");
}

describe("chat completions payload", () => {
  it("holds only what the request asks for", () => {
    const model = chatModel();
    expect(Object.keys(buildChatPayload(model, context(), {}, "json_schema")).sort()).toEqual([
      "messages",
      "model",
      "stream",
      "stream_options",
    ]);
    const full = buildChatPayload(
      chatModel({ reasoning: true }),
      context(undefined, { tools: [{ name: "t", description: "d", parameters: { type: "object" } }] }),
      { maxTokens: 5, temperature: 0, reasoning: "low" },
      "json_schema",
    );
    expect(full).toMatchObject({ max_completion_tokens: 5, temperature: 0, reasoning_effort: "low" });
    expect(full.tools).toHaveLength(1);
  });
});

describe("chat completions chunks", () => {
  it("chunks without choices (usage only, or null) are fine", () => {
    const { message } = chat([
      { usage: { prompt_tokens: 10, completion_tokens: 5 } },
      { choices: null },
      choice({ content: "hi" }, { finish_reason: "stop" }),
    ]);
    expect(message.content).toEqual([{ type: "text", text: "hi" }]);
    expect(message.usage).toMatchObject({ input: 10, output: 5 });
  });

  it("a choice without delta, or with a null one, still ends the reply", () => {
    expect(
      chat([choice({ content: "a" }), { choices: [{ index: 0, finish_reason: "length" }] }]).message
        .stopReason,
    ).toBe("length");
    expect(
      chat([choice({ content: "a" }), choice(null, { finish_reason: "length" })]).message.stopReason,
    ).toBe("length");
  });

  it("an empty finish reason does not replace the one before it", () => {
    const { message } = chat([
      choice({ content: "a" }, { finish_reason: "length" }),
      choice({}, { finish_reason: "" }),
    ]);
    expect(message.stopReason).toBe("length");
  });

  it("reads the choice first seen, by index, also when the first chunk's choice has none", () => {
    const { message } = chat([
      { choices: [{ delta: { content: "first" } }] },
      { choices: [{ index: 1, delta: { content: "second" } }] },
      { choices: [{ delta: {}, finish_reason: "stop" }] },
    ]);
    expect(message.content).toEqual([{ type: "text", text: "first" }]);
  });

  it("takes the first reasoning field that is not empty, naming it as signature", () => {
    const { message } = chat([
      choice({ reasoning_content: "", reasoning: "think" }, { finish_reason: "stop" }),
    ]);
    expect(message.content).toEqual([
      { type: "thinking", thinking: "think", thinkingSignature: "reasoning" },
    ]);
  });

  it("an empty refusal adds nothing; null tool_calls are none", () => {
    const { message, eventsPerChunk } = chat([
      choice({ content: "hi", refusal: "", tool_calls: null }, { finish_reason: "stop" }),
    ]);
    expect(message.content).toEqual([{ type: "text", text: "hi" }]);
    expect(eventsPerChunk[0]).toEqual(["text_start", "text_delta"]);
  });

  it("refuses chunks of a shape no server means, quoting them", () => {
    const quoted = (chunk: unknown) => JSON.stringify(JSON.stringify(chunk));
    const cases: [unknown, string][] = [
      [{ choices: {} }, "`choices` is not a list"],
      [{ choices: [null] }, "choices[0] is null"],
      [{ choices: [5] }, "choices[0] is 5"],
      [choice("text"), "`delta` is not an object"],
      [choice({ tool_calls: {} }), "`tool_calls` is not a list"],
      [choice({ tool_calls: [null] }), "tool_calls[0] is null"],
      [{ usage: 5 }, "`usage` is not an object"],
    ];
    for (const [chunk, problem] of cases) expect(malformed([chunk])).toBe(`${problem} in ${quoted(chunk)}`);
  });

  it("usage: output from completion tokens, reasoning reported apart, or the total", () => {
    const usageOf = (usage: Record<string, unknown>) =>
      chat([{ usage }, choice({}, { finish_reason: "stop" })]).message.usage;
    expect(usageOf({ prompt_tokens: 10, completion_tokens: 5 })).toMatchObject({ input: 10, output: 5 });
    expect(
      usageOf({
        prompt_tokens: 12,
        completion_tokens: 2,
        completion_tokens_details: { reasoning_tokens: 340 },
      }),
    ).toMatchObject({ output: 342 });
    expect(usageOf({ prompt_tokens: 12, completion_tokens: 2, total_tokens: 354 })).toMatchObject({
      output: 342,
    });
    expect(usageOf({})).toMatchObject({ input: 0, output: 0, cacheRead: 0 });
  });
});

const responses = (events: unknown[]) => handle(responsesProtocol, events);
const completed = (extra: Record<string, unknown> = {}) => ({
  type: "response.completed",
  response: { status: "completed", usage: null, ...extra },
});

describe("responses payload", () => {
  it("holds only what the request asks for", () => {
    expect(
      Object.keys(
        buildResponsesPayload(chatModel(), context(undefined, { systemPrompt: "" }), {}, "json_schema"),
      ).sort(),
    ).toEqual(["input", "model", "store", "stream"]);
    const full = buildResponsesPayload(
      chatModel({ reasoning: true }),
      context(undefined, { tools: [{ name: "t", description: "d", parameters: { type: "object" } }] }),
      { maxTokens: 5, temperature: 0, reasoning: "low" },
      "json_schema",
    );
    expect(full).toMatchObject({
      instructions: "You are terse.",
      max_output_tokens: 5,
      temperature: 0,
      reasoning: { effort: "low", summary: "auto" },
    });
    expect(full.tools).toHaveLength(1);
  });
});

describe("responses events", () => {
  it("empty text, refusal and summary deltas add nothing", () => {
    const { message, eventsPerChunk } = responses([
      { type: "response.output_text.delta", item_id: "m1", delta: "" },
      { type: "response.refusal.delta", item_id: "m1", delta: "" },
      { type: "response.reasoning_summary_text.delta", item_id: "r1", summary_index: 0, delta: "" },
      completed(),
    ]);
    expect(eventsPerChunk.slice(0, 3)).toEqual([[], [], []]);
    expect(message.content).toEqual([]);
  });

  it("reasoning text and summary parts become thinking, parts separated by a blank line", () => {
    const { message } = responses([
      { type: "response.reasoning_summary_text.delta", item_id: "r1", summary_index: 0, delta: "One." },
      { type: "response.reasoning_summary_text.delta", item_id: "r1", summary_index: 0, delta: " More." },
      { type: "response.reasoning_summary_text.delta", item_id: "r1", summary_index: 1, delta: "Two." },
      { type: "response.output_item.done", output_index: 0, item: { type: "reasoning", id: "r1" } },
      { type: "response.reasoning_text.delta", item_id: "r2", delta: "raw" },
      { type: "response.reasoning_text.delta", item_id: "r2", delta: "" },
      completed(),
    ]);
    expect(message.content).toEqual([
      { type: "thinking", thinking: "One. More.\n\nTwo." },
      { type: "thinking", thinking: "raw" },
    ]);
  });

  it("a function call starts at output_item.added and ends at output_item.done", () => {
    const call = { type: "function_call", call_id: "c1", name: "add", arguments: '{"a":' };
    const { message, eventsPerChunk } = responses([
      { type: "response.output_item.added", output_index: 0, item: call },
      { type: "response.function_call_arguments.delta", output_index: 0, delta: "1}" },
      { type: "response.output_item.done", output_index: 0, item: { ...call, arguments: '{"a":1}' } },
      completed(),
    ]);
    expect(eventsPerChunk.slice(0, 3)).toEqual([
      ["toolcall_start", "toolcall_delta"],
      ["toolcall_delta"],
      ["toolcall_end"],
    ]);
    expect(message.content).toEqual([{ type: "toolCall", id: "c1", name: "add", arguments: { a: 1 } }]);
  });

  it("a message's or reasoning's output_item.done closes its block", () => {
    const { eventsPerChunk } = responses([
      { type: "response.output_text.delta", item_id: "m1", delta: "hi" },
      { type: "response.output_item.done", output_index: 0, item: { type: "message", id: "m1" } },
      { type: "response.reasoning_text.delta", item_id: "r1", delta: "hm" },
      { type: "response.output_item.done", output_index: 1, item: { type: "reasoning", id: "r1" } },
      { type: "response.output_item.done", output_index: 2, item: { type: "web_search_call", id: "w1" } },
      completed(),
    ]);
    expect(eventsPerChunk).toEqual([
      ["text_start", "text_delta"],
      ["text_end"],
      ["thinking_start", "thinking_delta"],
      ["thinking_end"],
      [],
      [],
    ]);
  });

  it("how a stream ends: error event, no final response, failed, incomplete", () => {
    const ending = (events: unknown[]) => {
      const { message } = responses(events);
      return [message.stopReason, message.errorMessage];
    };
    expect(ending([{ type: "error", code: "rate_limit", message: "slow down" }, completed()])).toEqual([
      "error",
      "openai stream error rate_limit: slow down",
    ]);
    expect(ending([{ type: "error", code: null, message: "m" }])).toEqual([
      "error",
      "openai stream error: m",
    ]);
    expect(ending([])).toEqual([
      "error",
      "The stream ended before the server sent response.completed (connection closed?)",
    ]);
    expect(
      ending([completed({ status: "failed", error: { code: "server_error", message: "boom" } })]),
    ).toEqual(["error", "openai response failed (server_error: boom)"]);
    expect(ending([completed({ status: "failed", error: null })])).toEqual([
      "error",
      "openai response failed (no details)",
    ]);
    expect(ending([completed({ status: "incomplete", incomplete_details: null })])).toEqual([
      "length",
      undefined,
    ]);
    expect(
      ending([completed({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } })]),
    ).toEqual(["length", undefined]);
    expect(
      ending([completed({ status: "incomplete", incomplete_details: { reason: "content_filter" } })]),
    ).toEqual(["error", "The provider's content filter stopped the reply (incomplete: content_filter)"]);
  });

  it("usage: without details, with reasoning, or with only a total", () => {
    const usageOf = (usage: Record<string, unknown>) => responses([completed({ usage })]).message.usage;
    expect(usageOf({ input_tokens: 10, output_tokens: 5 })).toMatchObject({
      input: 10,
      output: 5,
      cacheRead: 0,
    });
    expect(
      usageOf({ input_tokens: 10, input_tokens_details: { cached_tokens: 4 }, output_tokens: 5 }),
    ).toMatchObject({
      input: 6,
      cacheRead: 4,
    });
    expect(
      usageOf({ input_tokens: 12, output_tokens: 2, output_tokens_details: { reasoning_tokens: 340 } }),
    ).toMatchObject({ output: 342 });
    expect(usageOf({ input_tokens: 12, output_tokens: 2, total_tokens: 354 })).toMatchObject({ output: 342 });
  });
});
