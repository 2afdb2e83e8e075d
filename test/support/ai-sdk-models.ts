import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
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
