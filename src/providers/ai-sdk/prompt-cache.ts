import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import type { StreamOptions } from "../../types/stream.js";

/** How long cached prompt prefixes live: see `StreamOptions.cacheRetention`. */
export type CacheRetention = NonNullable<StreamOptions["cacheRetention"]>;

/**
 * Sets Anthropic cache points (`cacheControl`) where a conversation's prefix stops changing: the
 * system prompt, the last tool, and the last message of the prompt. Each turn then reads the
 * previous turn's prefix from the cache and writes its own (3 of the 4 breakpoints Anthropic
 * allows). "long" asks for the 1-hour lifetime, "short" the default 5 minutes, "none" sets nothing.
 * Other families are left alone: OpenAI and Gemini cache prefixes on their own.
 *
 * Contract: changes `prompt` and `tools` in place (they are built per request); never throws.
 */
export function addCachePoints(
  family: string,
  retention: CacheRetention,
  prompt: LanguageModelV3Prompt,
  tools: LanguageModelV3FunctionTool[] | undefined,
): void {
  if (family !== "anthropic" || retention === "none") return;
  const cacheControl = retention === "long" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
  const mark = (target: { providerOptions?: SharedV3ProviderOptions }) => {
    const own = target.providerOptions?.anthropic;
    target.providerOptions = { ...target.providerOptions, anthropic: { ...own, cacheControl } };
  };
  const system = prompt.find((message) => message.role === "system");
  if (system) mark(system);
  const lastTool = tools?.[tools.length - 1];
  if (lastTool) mark(lastTool);
  const last = prompt[prompt.length - 1];
  if (last && last.role !== "system") mark(last);
}
