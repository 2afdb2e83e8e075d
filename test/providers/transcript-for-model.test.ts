import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_TOOL_RESULT, transcriptForModel } from "../../src/ai-sdk.js";
import type { AssistantMessage, Message, ToolResultMessage } from "../../src/types/messages.js";
import { emptyUsage } from "../../src/types/messages.js";
import { askContext, loopbackAnthropic, loopbackGoogle, weatherTool } from "../support/ai-sdk-models.js";
import { collectEvents } from "../support/collect-events.js";
import { OpenAITestServer } from "../support/openai-server.js";
import { recordedReply } from "../support/provider-streams.js";

// pi's cross-provider cases: a transcript written with one provider, continued on another.

const ANTHROPIC = { api: "anthropic.messages", provider: "anthropic", model: "claude-sonnet-4-5" };
/** pi's OpenAI Responses tool call ids: `call_…|fc_…`, longer than Anthropic's 64 characters. */
const RESPONSES_CALL_ID = `call_${"a".repeat(40)}|fc_${"0123456789abcdef".repeat(3)}`;

const user = (content: string): Message => ({ role: "user", content, timestamp: 1 });
const reply = (
  from: { api: string; provider: string; model: string },
  content: AssistantMessage["content"],
  stopReason: AssistantMessage["stopReason"] = "toolUse",
): AssistantMessage => ({
  role: "assistant",
  content,
  ...from,
  usage: emptyUsage(),
  stopReason,
  timestamp: 2,
});
const result = (toolCallId: string, text = "18°C"): ToolResultMessage => ({
  role: "toolResult",
  toolCallId,
  toolName: "get_weather",
  content: [{ type: "text", text }],
  isError: false,
  timestamp: 3,
});

/** An OpenAI Responses turn as pi and the openai() provider record it: reasoning, text, a tool call. */
const openaiTurn = reply({ api: "openai-responses", provider: "openai", model: "gpt-5" }, [
  { type: "thinking", thinking: "Need the weather.", thinkingSignature: '{"type":"reasoning","id":"rs_1"}' },
  { type: "text", text: "Checking.", textSignature: "msg_1" },
  { type: "toolCall", id: RESPONSES_CALL_ID, name: "get_weather", arguments: { location: "Paris" } },
]);

/** An Anthropic turn: signed thinking, redacted thinking, a tool call. */
const anthropicTurn = reply(ANTHROPIC, [
  { type: "thinking", thinking: "Paris, then.", thinkingSignature: "EqQBCkYIBxgCKkBsig" },
  { type: "thinking", thinking: "", thinkingSignature: "EmwKAhgBEgy3va3pzix", redacted: true },
  {
    type: "toolCall",
    id: "toolu_01A09q90qw90lq917835lq9",
    name: "get_weather",
    arguments: { location: "Paris" },
  },
]);

describe("transcriptForModel", () => {
  it("keeps the target model's own replies as they are, signatures included", () => {
    const messages = [user("weather?"), anthropicTurn, result("toolu_01A09q90qw90lq917835lq9")];
    const adapted = transcriptForModel(messages, ANTHROPIC);
    expect(adapted[1]).toBe(anthropicTurn);
  });

  it("turns another model's thinking into text, drops redacted thinking and signatures, and makes ids portable", () => {
    const adapted = transcriptForModel([user("weather?"), openaiTurn, result(RESPONSES_CALL_ID)], ANTHROPIC);
    const turn = adapted[1] as AssistantMessage;
    const portable = (turn.content[2] as { id: string }).id;
    expect(turn.content).toEqual([
      { type: "text", text: "Need the weather." },
      { type: "text", text: "Checking." },
      { type: "toolCall", id: portable, name: "get_weather", arguments: { location: "Paris" } },
    ]);
    expect(portable).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect((adapted[2] as ToolResultMessage).toolCallId).toBe(portable);

    const onGoogle = transcriptForModel([user("weather?"), anthropicTurn], {
      api: "google.generative-ai",
      provider: "google",
      model: "gemini-2.5-flash",
    });
    expect((onGoogle[1] as AssistantMessage).content).toEqual([
      { type: "text", text: "Paris, then." },
      {
        type: "toolCall",
        id: "toolu_01A09q90qw90lq917835lq9",
        name: "get_weather",
        arguments: { location: "Paris" },
      },
    ]);
  });

  it("gives ids that clash once made portable distinct names", () => {
    const twoCalls = reply({ api: "openai-responses", provider: "openai", model: "gpt-5" }, [
      { type: "toolCall", id: "call|1", name: "get_weather", arguments: {} },
      { type: "toolCall", id: "call_1", name: "get_weather", arguments: {} },
    ]);
    const adapted = transcriptForModel([user("x"), twoCalls, result("call|1"), result("call_1")], ANTHROPIC);
    const ids = (adapted[1] as AssistantMessage).content.map((block) => (block as { id: string }).id);
    expect(new Set(ids).size).toBe(2);
    expect(adapted.slice(2).map((message) => (message as ToolResultMessage).toolCallId)).toEqual(ids);
  });

  it("leaves out failed replies with the results of their calls, and answers calls left without a result", () => {
    const failed = reply(
      ANTHROPIC,
      [{ type: "toolCall", id: "toolu_cut", name: "get_weather", arguments: {} }],
      "error",
    );
    const unanswered = reply(ANTHROPIC, [
      { type: "toolCall", id: "toolu_done", name: "get_weather", arguments: {} },
      { type: "toolCall", id: "toolu_left", name: "get_weather", arguments: {} },
    ]);
    const adapted = transcriptForModel(
      [user("a"), failed, result("toolu_cut"), unanswered, result("toolu_done"), user("b")],
      ANTHROPIC,
    );
    expect(adapted.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "user",
    ]);
    expect(adapted[3]).toMatchObject({
      toolCallId: "toolu_left",
      isError: true,
      content: [{ type: "text", text: NO_TOOL_RESULT }],
    });
  });
});

describe("transcriptForModel: the rules one by one", () => {
  const OTHER = { api: "openai-chat", provider: "openai", model: "gpt-4.1" };
  const call = (id: string) => ({ type: "toolCall" as const, id, name: "get_weather", arguments: {} });

  it("counts a reply as the target's own only when api, provider and model all match", () => {
    const signed = (from: typeof ANTHROPIC) =>
      reply(from, [{ type: "thinking", thinking: "hmm", thinkingSignature: "sig" }], "stop");
    const variants = [
      { ...ANTHROPIC, api: "anthropic.other" },
      { ...ANTHROPIC, provider: "bedrock" },
      { ...ANTHROPIC, model: "claude-opus-4" },
    ];
    for (const from of variants) {
      expect(transcriptForModel([signed(from)], ANTHROPIC)[0]).toMatchObject({
        content: [{ type: "text", text: "hmm" }],
      });
    }
    const own = signed(ANTHROPIC);
    expect(transcriptForModel([own], ANTHROPIC)[0]).toBe(own);
  });

  it("drops another model's blank, whitespace-only and redacted thinking and its empty text, and a reply left empty", () => {
    const noisy = reply(
      OTHER,
      [
        { type: "thinking", thinking: "" },
        { type: "thinking", thinking: "  \n" },
        { type: "thinking", thinking: "secret", thinkingSignature: "data", redacted: true },
        { type: "text", text: "" },
        { type: "text", text: "kept", textSignature: "msg_1" },
      ],
      "stop",
    );
    expect(transcriptForModel([noisy], ANTHROPIC)).toEqual([
      { ...noisy, content: [{ type: "text", text: "kept" }] },
    ]);
    const empty = reply(
      OTHER,
      [{ type: "thinking", thinking: "", thinkingSignature: "x", redacted: true }],
      "stop",
    );
    expect(
      transcriptForModel([user("a"), empty, user("b")], ANTHROPIC).map((message) => message.role),
    ).toEqual(["user", "user"]);
  });

  it("leaves out aborted replies with their calls' results, and answers only tool calls left open", () => {
    const aborted = reply(ANTHROPIC, [call("toolu_cut")], "aborted");
    const textAndCall = reply(ANTHROPIC, [{ type: "text", text: "Checking." }, call("toolu_open")]);
    const adapted = transcriptForModel(
      [user("a"), aborted, result("toolu_cut"), textAndCall, user("b")],
      ANTHROPIC,
    );
    expect(adapted.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "user"]);
    expect(adapted[2]).toMatchObject({ toolCallId: "toolu_open", content: [{ text: NO_TOOL_RESULT }] });
  });

  it("returns a result whose id needs no change as it is", () => {
    const own = result("toolu_same");
    const adapted = transcriptForModel([reply(OTHER, [call("toolu_same")]), own], ANTHROPIC);
    expect(adapted[1]).toBe(own);
  });

  it("makes ids portable: the same id the same way every time, an empty id 'call', clashes numbered in turn", () => {
    const adapted = transcriptForModel(
      [
        reply(OTHER, [call("a|b"), call("a_b"), call("a.b"), call("")]),
        result("a|b"),
        result("a_b"),
        result("a.b"),
        result(""),
        reply(OTHER, [call("a|b")]),
      ],
      ANTHROPIC,
    );
    const ids = (adapted[0] as AssistantMessage).content.map((block) => (block as { id: string }).id);
    expect(ids).toEqual(["a_b", "a_b_2", "a_b_3", "call"]);
    expect(adapted.slice(1, 5).map((message) => (message as ToolResultMessage).toolCallId)).toEqual(ids);
    expect((adapted[5] as AssistantMessage).content[0]).toMatchObject({ id: "a_b" });
  });

  it("keeps a renamed id within 64 characters when a clash adds a number", () => {
    const long = `call_${"x".repeat(70)}`;
    const adapted = transcriptForModel([reply(OTHER, [call(`${long}|1`), call(`${long}|2`)])], ANTHROPIC);
    const ids = (adapted[0] as AssistantMessage).content.map((block) => (block as { id: string }).id);
    expect(ids).toEqual([long.slice(0, 64), `${long.slice(0, 62)}_2`]);
  });
});

describe("a transcript continued on another provider, through the real provider packages", () => {
  let server: OpenAITestServer;
  beforeAll(async () => {
    server = await OpenAITestServer.start({ anyPath: true });
  });
  afterAll(() => server.close());

  it("an OpenAI Responses turn continued on Anthropic: thinking as text, one portable id for call and result", async () => {
    server.enqueue(recordedReply("anthropic-text.sse", "whole"));
    const { model, streamFn } = loopbackAnthropic(server.baseURL);
    const context = {
      ...askContext([user("weather?"), openaiTurn, result(RESPONSES_CALL_ID)]),
      tools: [weatherTool],
    };
    const { final } = await collectEvents(streamFn(model, context));
    expect(final.type).toBe("done");
    const [, assistant, toolResults] = server.requests.at(-1)!.body.messages as {
      content: Record<string, any>[];
    }[];
    expect(assistant!.content.map((block) => block.type)).toEqual(["text", "text", "tool_use"]);
    const id = assistant!.content[2]!.id as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(toolResults!.content[0]).toMatchObject({ type: "tool_result", tool_use_id: id });
  });

  it("an Anthropic turn with signed and redacted thinking continued on Gemini: no foreign signature is sent", async () => {
    server.enqueue(recordedReply("gemini-3-text-thought-signature.sse", "whole"));
    const { model, streamFn } = loopbackGoogle(server.baseURL, "gemini-2.5-flash");
    const context = {
      ...askContext([user("weather?"), anthropicTurn, result("toolu_01A09q90qw90lq917835lq9")]),
      tools: [weatherTool],
    };
    const { final } = await collectEvents(streamFn(model, context));
    expect(final.type).toBe("done");
    const body = server.requests.at(-1)!.body;
    expect(body.contents[1]).toEqual({
      role: "model",
      parts: [
        { text: "Paris, then." },
        {
          functionCall: {
            id: "toolu_01A09q90qw90lq917835lq9",
            name: "get_weather",
            args: { location: "Paris" },
          },
        },
      ],
    });
    expect(JSON.stringify(body)).not.toContain("EqQBCkYIBxgCKkBsig");
    expect(JSON.stringify(body)).not.toContain("EmwKAhgBEgy3va3pzix");
  });
});
