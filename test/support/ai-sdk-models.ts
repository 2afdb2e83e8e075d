import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { fromAiSdk } from "../../src/ai-sdk.js";
import type { FromAiSdkOptions } from "../../src/providers/ai-sdk/from-ai-sdk.js";
import type { Message } from "../../src/types/messages.js";
import type { LlmContext } from "../../src/types/stream.js";

/** The key the loopback tests send; no real server ever sees it. */
export const FAKE_API_KEY = "test-key-not-real";

/** `fromAiSdk` over the real `@ai-sdk/anthropic` package, pointed at a loopback server. */
export function loopbackAnthropic(
  baseURL: string,
  modelId = "claude-sonnet-4-5",
  options: FromAiSdkOptions = {},
) {
  return fromAiSdk(createAnthropic({ apiKey: FAKE_API_KEY, baseURL })(modelId), {
    maxRetries: 0,
    ...options,
  });
}

/** `fromAiSdk` over the real `@ai-sdk/google` package, pointed at a loopback server. */
export function loopbackGoogle(
  baseURL: string,
  modelId = "gemini-3-pro-preview",
  options: FromAiSdkOptions = {},
) {
  return fromAiSdk(createGoogleGenerativeAI({ apiKey: FAKE_API_KEY, baseURL })(modelId), {
    maxRetries: 0,
    ...options,
  });
}

/** A context of one user question (or the given transcript), no tools. */
export function askContext(
  messages: Message[] = [{ role: "user", content: "hi", timestamp: 1 }],
): LlmContext {
  return { systemPrompt: "Be brief.", messages, tools: [] };
}

/** The `get_weather` tool as the recorded Anthropic streams call it. */
export const weatherTool = {
  name: "get_weather",
  description: "Current weather of a place",
  parameters: { type: "object", properties: { location: { type: "string" }, city: { type: "string" } } },
};

/**
 * A hand-written V3 model that records the call options of each request and streams the parts
 * `replyFor` gives for its index (0 for the first call), or throws `failure` on every call.
 */
export function recordingV3Model(
  provider: string,
  replyFor: (call: number) => LanguageModelV3StreamPart[],
  failure?: unknown,
) {
  const calls: LanguageModelV3CallOptions[] = [];
  const model: LanguageModelV3 = {
    specificationVersion: "v3",
    provider,
    modelId: "test-model",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: async (options) => {
      calls.push(options);
      if (failure !== undefined) throw failure;
      const parts = replyFor(calls.length - 1);
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
  return { model, calls };
}
