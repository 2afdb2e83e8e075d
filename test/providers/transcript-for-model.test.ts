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
