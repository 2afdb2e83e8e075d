import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { addCachePoints } from "../../src/providers/ai-sdk/prompt-cache.js";

// `addCachePoints` directly, on the prompts the agent-level tests never send: none at all, and one
// without a system message.

const ephemeral = { anthropic: { cacheControl: { type: "ephemeral" } } };

describe("addCachePoints", () => {
  it("an empty prompt without tools gets no cache point and no error", () => {
    const prompt: LanguageModelV3Prompt = [];
    expect(() => addCachePoints("anthropic", "short", prompt, undefined)).not.toThrow();
    expect(prompt).toEqual([]);
  });

  it("without a system message only the last message is marked, not the first", () => {
    const prompt: LanguageModelV3Prompt = [
      { role: "user", content: [{ type: "text", text: "first" }] },
      { role: "assistant", content: [{ type: "text", text: "reply" }] },
      { role: "user", content: [{ type: "text", text: "last" }] },
    ];
    addCachePoints("anthropic", "short", prompt, undefined);
    expect(prompt.map((message) => message.providerOptions)).toEqual([undefined, undefined, ephemeral]);
  });
});
