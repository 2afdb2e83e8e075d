import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { openai } from "../../src/openai.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AssistantMessage, ToolResultMessage } from "../../src/types/messages.js";
import { emptyContext, runToEnd, user } from "../support/loop-harness.js";
import { chatModel, chunk, openAiToolCallChunks, usageChunk } from "../support/openai-fixtures.js";
import { OpenAITestServer, streamReply } from "../support/openai-server.js";

let server: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start();
});
afterAll(() => server.close());

const weather = defineTool({
  name: "weather",
  description: "Weather for a city",
  parameters: z.object({ city: z.string(), unit: z.enum(["C", "F"]).optional() }),
  execute: async ({ city, unit }) => ({ content: [{ type: "text", text: `${city}: 21°${unit ?? "C"}` }] }),
});

describe("agentLoop over the OpenAI provider, end to end", () => {
  it("streams a reply, runs both tool calls and sends the results back", async () => {
    server.enqueue(
      streamReply(openAiToolCallChunks()),
      streamReply([
        chunk({ role: "assistant", content: "Paris and Rome are mild." }),
        chunk({}, "stop"),
        usageChunk(1500, 8),
      ]),
    );
    const events = await runToEnd([user("Weather in Paris and Rome?")], emptyContext({ tools: [weather] }), {
      model: chatModel(),
      streamFn: openai({ baseURL: server.baseURL, apiKey: "sk-test", maxRetries: 0 }),
    });
    const end = events.at(-1);
    if (end?.type !== "agent_end") throw new Error("no agent_end");
    const [, firstReply, paris, rome, answer] = end.messages as [
      unknown,
      AssistantMessage,
      ToolResultMessage,
      ToolResultMessage,
      AssistantMessage,
    ];
    expect(firstReply.stopReason).toBe("toolUse");
    expect([paris.toolCallId, paris.content, rome.content]).toEqual([
      "call_paris",
      [{ type: "text", text: "Paris: 21°C" }],
      [{ type: "text", text: "Rome: 21°C" }],
    ]);
    expect(answer.content).toEqual([{ type: "text", text: "Paris and Rome are mild." }]);
    expect(answer.usage.input).toBe(1500);

    const second = server.requests.at(-1)!.body;
    expect(second.tools[0]).toMatchObject({
      type: "function",
      function: { name: "weather", parameters: { type: "object", required: ["city"] } },
    });
    const toolMessages = second.messages.filter((m: { role: string }) => m.role === "tool");
    expect(toolMessages).toEqual([
      { role: "tool", tool_call_id: "call_paris", content: "Paris: 21°C" },
      { role: "tool", tool_call_id: "call_rome", content: "Rome: 21°C" },
    ]);
  });

  it("answers a call with malformed JSON arguments with an error, runs the other, and asks again", async () => {
    server.enqueue(
      streamReply([
        chunk({ role: "assistant", content: null }),
        chunk({
          tool_calls: [
            { index: 0, id: "call_ok", type: "function", function: { name: "weather", arguments: "" } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Oslo"}' } }] }),
        chunk({
          tool_calls: [
            { index: 1, id: "call_bad", type: "function", function: { name: "weather", arguments: "" } },
          ],
        }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: "{'city': 'Bergen'}" } }] }),
        chunk({}, "tool_calls"),
      ]),
      streamReply([chunk({ role: "assistant", content: "Oslo is mild." }), chunk({}, "stop")]),
    );
    const events = await runToEnd([user("Weather in Oslo and Bergen?")], emptyContext({ tools: [weather] }), {
      model: chatModel(),
      streamFn: openai({ baseURL: server.baseURL, apiKey: "sk-test", maxRetries: 0 }),
    });
    const end = events.at(-1);
    if (end?.type !== "agent_end") throw new Error("no agent_end");
    const [, firstReply, oslo, bergen, answer] = end.messages as [
      unknown,
      AssistantMessage,
      ToolResultMessage,
      ToolResultMessage,
      AssistantMessage,
    ];
    expect(firstReply.stopReason).toBe("toolUse");
    expect([oslo.toolCallId, oslo.isError, oslo.content]).toEqual([
      "call_ok",
      false,
      [{ type: "text", text: "Oslo: 21°C" }],
    ]);
    expect([bergen.toolCallId, bergen.isError]).toEqual(["call_bad", true]);
    const bergenText = (bergen.content[0] as { text: string }).text;
    expect(bergenText).toMatch(/"weather" are not valid JSON \(.*JSON.*\)/);
    expect(bergenText).toContain("{'city': 'Bergen'}");
    expect(answer.content).toEqual([{ type: "text", text: "Oslo is mild." }]);

    const second = server.requests.at(-1)!.body;
    const resent = second.messages.find((m: { role: string }) => m.role === "assistant");
    expect(resent.tool_calls.map((c: { function: { arguments: string } }) => c.function.arguments)).toEqual([
      '{"city":"Oslo"}',
      "{}",
    ]);
    const toolMessages = second.messages.filter((m: { role: string }) => m.role === "tool");
    expect(
      toolMessages.map((m: { tool_call_id: string; content: string }) => [m.tool_call_id, m.content]),
    ).toEqual([
      ["call_ok", "Oslo: 21°C"],
      ["call_bad", bergenText],
    ]);
  });

  it("ends the run with an error message on an HTTP 500, without throwing", async () => {
    server.enqueue({ kind: "json", status: 500, body: { error: { message: "upstream exploded" } } });
    const events = await runToEnd([user("hi")], emptyContext(), {
      model: chatModel(),
      streamFn: openai({ baseURL: server.baseURL, apiKey: "sk-test", maxRetries: 0 }),
    });
    const end = events.at(-1);
    const reply = end?.type === "agent_end" ? (end.messages[1] as AssistantMessage) : undefined;
    expect(reply?.stopReason).toBe("error");
    expect(reply?.errorMessage).toContain("500");
  });
});
