// The Vercel AI SDK (`ai` 6.0.325) as a loop-bench runner: its tool loop (`ToolLoopAgent`, default
// stop condition) over a `LanguageModelV3` whose `doStream` turns the shared faux's answer into AI SDK
// stream parts, all enqueued in one microtask (the same burst the other runners get).
import { z } from "zod";

import { emitAnswer, type Script, TOOL_NAMES } from "./faux.js";
import type { Runner } from "./loop-runners.js";
import { importPeer } from "./peer-modules.js";

export const AI_SDK = "AI SDK ToolLoopAgent";

interface AiSdkModule {
  ToolLoopAgent: new (
    settings: any,
  ) => {
    stream(parameters: { messages: unknown[] }): Promise<{
      fullStream: AsyncIterable<{ type: string }>;
      response: PromiseLike<{ messages: unknown[] }>;
    }>;
  };
  tool: (definition: any) => unknown;
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
};

/** The faux's pi-ai events as `LanguageModelV3StreamPart`s. */
function streamParts(script: Script, prompt: readonly { role?: string }[]): unknown[] {
  const parts: unknown[] = [{ type: "stream-start", warnings: [] }];
  emitAnswer(script, prompt, (event) => {
    switch (event.type) {
      case "text_start":
        parts.push({ type: "text-start", id: "text-0" });
        break;
      case "text_delta":
        parts.push({ type: "text-delta", id: "text-0", delta: event.delta });
        break;
      case "text_end":
        parts.push({ type: "text-end", id: "text-0" });
        break;
      case "toolcall_start": {
        const call = event.partial.content[event.contentIndex];
        parts.push({ type: "tool-input-start", id: call.id, toolName: call.name });
        break;
      }
      case "toolcall_delta":
        parts.push({
          type: "tool-input-delta",
          id: event.partial.content[event.contentIndex].id,
          delta: event.delta,
        });
        break;
      case "toolcall_end":
        parts.push({ type: "tool-input-end", id: event.toolCall.id });
        parts.push({
          type: "tool-call",
          toolCallId: event.toolCall.id,
          toolName: event.toolCall.name,
          input: JSON.stringify(event.toolCall.arguments),
        });
        break;
      case "done":
        parts.push({
          type: "finish",
          usage,
          finishReason: { unified: event.reason === "toolUse" ? "tool-calls" : "stop", raw: event.reason },
        });
        break;
    }
  });
  return parts;
}

/** A `LanguageModelV3` answering every call with the faux's next answer. */
function fauxLanguageModel(script: Script) {
  return {
    specificationVersion: "v3",
    provider: "faux",
    modelId: "faux-1",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("the bench only streams")),
    doStream: async (options: { prompt: { role?: string }[] }) => ({
      stream: new ReadableStream({
        start(controller) {
          queueMicrotask(() => {
            for (const part of streamParts(script, options.prompt)) controller.enqueue(part);
            controller.close();
          });
        },
      }),
    }),
  };
}

/**
 * The AI SDK runner: a fresh `ToolLoopAgent` per agent, the conversation kept as the caller's
 * `ModelMessage[]` (the SDK's agents are stateless), `fullStream` as the one subscriber.
 * Contract: async (loads `ai` from bench/node_modules); rejects when it is not installed.
 */
export async function aiSdkRunner(): Promise<Runner> {
  const ai = (await importPeer("ai")) as AiSdkModule;
  const tools = Object.fromEntries(
    TOOL_NAMES.map((name) => [
      name,
      ai.tool({
        description: `The ${name} tool`,
        inputSchema: z.object({ path: z.string() }),
        execute: async () => "ok",
      }),
    ]),
  );
  return {
    name: AI_SDK,
    // user, then (assistant with the tool calls, one tool message with every result), assistant
    messagesPerPrompt: (script) => 2 + (script.tools > 0 ? 2 : 0),
    create({ script, history, onTextDelta }) {
      if (history?.length) throw new Error(`${AI_SDK}: prebuilt histories are not supported`);
      const agent = new ai.ToolLoopAgent({ model: fauxLanguageModel(script), tools });
      const messages: unknown[] = [];
      return {
        async prompt(text) {
          messages.push({ role: "user", content: text });
          const result = await agent.stream({ messages });
          for await (const part of result.fullStream) if (part.type === "text-delta") onTextDelta();
          messages.push(...(await result.response).messages);
        },
        messageCount: () => messages.length,
      };
    },
  };
}
