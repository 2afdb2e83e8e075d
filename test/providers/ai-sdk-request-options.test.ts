import type { LanguageModelV3FunctionTool, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { addCachePoints } from "../../src/providers/ai-sdk/prompt-cache.js";
import { reasoningOptions, THINKING_BUDGETS } from "../../src/providers/ai-sdk/reasoning-options.js";

describe("reasoningOptions", () => {
  it("asks Anthropic for extended thinking with each level's budget", () => {
    expect(THINKING_BUDGETS).toEqual({ minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768 });
    for (const level of ["minimal", "low", "medium", "high", "xhigh"] as const) {
      expect(reasoningOptions("anthropic", "claude-sonnet-4-5", level)).toEqual({
        anthropic: { thinking: { type: "enabled", budgetTokens: THINKING_BUDGETS[level] } },
      });
    }
  });

  it("asks Gemini 3 for a thinking level and earlier Gemini for a budget, both streaming thoughts", () => {
    const levels = (["minimal", "low", "medium", "high", "xhigh"] as const).map((level) => {
      const options = reasoningOptions("google", "Gemini-3-pro-preview", level) as {
        google: { thinkingConfig: unknown };
      };
      return options.google.thinkingConfig;
    });
    expect(levels).toEqual([
      { thinkingLevel: "low", includeThoughts: true },
      { thinkingLevel: "low", includeThoughts: true },
      { thinkingLevel: "high", includeThoughts: true },
      { thinkingLevel: "high", includeThoughts: true },
      { thinkingLevel: "high", includeThoughts: true },
    ]);
    expect(reasoningOptions("google", "gemini-2.5-flash", "medium")).toEqual({
      google: { thinkingConfig: { thinkingBudget: 8192, includeThoughts: true } },
    });
  });

  it("asks OpenAI for an effort (xhigh as high) with a summary, other families and no level for nothing", () => {
    expect(reasoningOptions("openai", "gpt-5", "low")).toEqual({
      openai: { reasoningEffort: "low", reasoningSummary: "auto" },
    });
    expect(reasoningOptions("openai", "gpt-5", "xhigh")).toEqual({
      openai: { reasoningEffort: "high", reasoningSummary: "auto" },
    });
    expect(reasoningOptions("mistral", "magistral", "high")).toBeUndefined();
    expect(reasoningOptions("anthropic", "claude-sonnet-4-5", undefined)).toBeUndefined();
  });
});

describe("addCachePoints", () => {
  const tool = (name: string): LanguageModelV3FunctionTool => ({
    type: "function",
    name,
    inputSchema: { type: "object" },
  });
  const prompt = (): LanguageModelV3Prompt => [
    { role: "system", content: "Be brief." },
    { role: "user", content: [{ type: "text", text: "one" }] },
    {
      role: "user",
      content: [{ type: "text", text: "two" }],
      providerOptions: { anthropic: { other: 1 }, google: { x: 2 } },
    },
  ];

  it("marks the system prompt, the last tool and the last message for Anthropic, keeping their other options", () => {
    const messages = prompt();
    const tools = [tool("a"), tool("b")];
    addCachePoints("anthropic", "short", messages, tools);
    expect(messages[0]?.providerOptions).toEqual({ anthropic: { cacheControl: { type: "ephemeral" } } });
    expect(messages[1]?.providerOptions).toBeUndefined();
    expect(messages[2]?.providerOptions).toEqual({
      anthropic: { other: 1, cacheControl: { type: "ephemeral" } },
      google: { x: 2 },
    });
    expect(tools[0]?.providerOptions).toBeUndefined();
    expect(tools[1]?.providerOptions).toEqual({ anthropic: { cacheControl: { type: "ephemeral" } } });
  });

  it("asks for the 1-hour lifetime with long retention", () => {
    const messages = prompt();
    addCachePoints("anthropic", "long", messages, undefined);
    expect(messages[0]?.providerOptions).toEqual({
      anthropic: { cacheControl: { type: "ephemeral", ttl: "1h" } },
    });
  });

  it("marks nothing with retention none, for other families, or in a prompt that is only a system prompt", () => {
    for (const [family, retention] of [
      ["anthropic", "none"],
      ["google", "short"],
      ["openai", "long"],
    ] as const) {
      const messages = prompt();
      const tools = [tool("a")];
      addCachePoints(family, retention, messages, tools);
      expect(messages).toEqual(prompt());
      expect(tools).toEqual([tool("a")]);
    }
    const onlySystem: LanguageModelV3Prompt = [{ role: "system", content: "x" }];
    addCachePoints("anthropic", "short", onlySystem, []);
    expect(onlySystem).toEqual([
      {
        role: "system",
        content: "x",
        providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } },
      },
    ]);
    const noSystem: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
    addCachePoints("anthropic", "short", noSystem, undefined);
    expect(noSystem[0]?.providerOptions).toEqual({ anthropic: { cacheControl: { type: "ephemeral" } } });
  });
});
