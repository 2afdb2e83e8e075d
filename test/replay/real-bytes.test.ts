import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { openai } from "../../src/openai.js";
import { Recording } from "../../src/replay/recording.js";
import { replayModel } from "../../src/replay/replay-model.js";
import { replayTools } from "../../src/replay/replay-tools.js";
import { verifyReplay } from "../../src/replay/verify/verify-replay.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentTool } from "../../src/types/tool.js";
import {
  chatModel,
  ollamaReasoningChunks,
  openAiToolCallChunks,
  responsesEvents,
  responsesIncompleteEvents,
} from "../support/openai-fixtures.js";
import { OpenAITestServer, type ScriptedReply, streamReply } from "../support/openai-server.js";
import { signaturesOf, weatherTool, withoutTimestamps } from "./support.js";

// Record against the loopback OpenAI-compatible server (real SSE bytes through the openai SDK), stop
// the server, replay: the same events, transcript and final state, offline.

const addTool = defineTool({
  name: "add",
  description: "Adds",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
});

const cases: { api: "chat" | "responses"; replies: ScriptedReply[]; tool: AgentTool; prompt: string }[] = [
  {
    api: "chat",
    replies: [streamReply(openAiToolCallChunks()), streamReply(ollamaReasoningChunks())],
    tool: weatherTool().tool,
    prompt: "Weather in Paris and Rome?",
  },
  {
    api: "responses",
    replies: [
      streamReply(responsesEvents(), { named: true, done: false }),
      streamReply(responsesIncompleteEvents(), { named: true, done: false }),
    ],
    tool: addTool,
    prompt: "2+3?",
  },
];

describe.each(cases)("a run recorded from the loopback server ($api)", ({ api, replies, tool, prompt }) => {
  it("replays identically once the server is stopped, and never holds the API key", async () => {
    const server = await OpenAITestServer.start();
    const model = chatModel(api === "responses" ? { api: "openai-responses", reasoning: true } : {});
    const options = { model, systemPrompt: "Be exact.", tools: [tool], thinkingLevel: "high" as const };
    server.enqueue(...replies);
    const agent = new Agent({
      ...options,
      streamFn: openai({ baseURL: server.baseURL, apiKey: "sk-loopback-secret", maxRetries: 0, api }),
      record: true,
    });
    const live = signaturesOf(agent);
    await agent.prompt(prompt);
    expect(server.requests).toHaveLength(2);
    await server.close();

    const text = agent.recording!.toJSONL();
    expect(text).not.toContain("sk-loopback-secret");
    const recording = Recording.fromJSONL(text);
    expect(recording.modelCalls[0]!.reply?.usage.totalTokens).toBeGreaterThan(0);
    expect(
      recording.modelCalls.some((call) => call.events.some((event) => event.type === "thinking_delta")),
    ).toBe(true);

    const replayed = new Agent({
      ...options,
      streamFn: replayModel(recording),
      tools: replayTools(recording, [tool]),
    });
    const again = signaturesOf(replayed);
    const command = recording.commands[0]!.command;
    if (command.type !== "PROMPT") throw new Error("expected the prompt");
    await replayed.prompt(command.messages);
    expect(again).toEqual(live);
    expect(withoutTimestamps(replayed.state.messages)).toEqual(withoutTimestamps(agent.state.messages));
    expect(replayed.state.messages.at(-1)).toEqual(agent.state.messages.at(-1));

    const verdict = await verifyReplay(recording, { agent: options });
    expect(verdict.firstDivergence).toBeUndefined();
  });
});
