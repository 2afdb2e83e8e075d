import { createAnthropic } from "@ai-sdk/anthropic";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AiSdkSetupError, aiSdkModel, fromAiSdk } from "../../src/ai-sdk.js";
import { isRetryableError } from "../../src/harness/retry-policy.js";
import { askContext, FAKE_API_KEY } from "../support/ai-sdk-models.js";
import { collectEvents } from "../support/collect-events.js";
import { OpenAITestServer } from "../support/openai-server.js";
import { recordedReply } from "../support/provider-streams.js";

let server: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start({ anyPath: true });
});
afterAll(() => server.close());
afterEach(() => {
  vi.unstubAllEnvs();
});

/** The error `make` throws, which must be an AiSdkSetupError. */
function setupErrorOf(make: () => unknown): AiSdkSetupError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(AiSdkSetupError);
    return error as AiSdkSetupError;
  }
  throw new Error("expected an AiSdkSetupError");
}

describe("fromAiSdk with something that is not a V3 AI SDK model", () => {
  it("rejects an object without doStream, naming what it got and what it needs", () => {
    const error = setupErrorOf(() => fromAiSdk({ modelId: "claude" } as never));
    expect(error.code).toBe("not_an_ai_sdk_model");
    expect(error.message).toContain("an object with a doStream method");
    expect(error.message).toContain("got an object with modelId");
  });

  it("rejects a model id string with the call that makes a model of it", () => {
    const error = setupErrorOf(() => fromAiSdk("claude-sonnet-4-5" as never));
    expect(error.code).toBe("not_an_ai_sdk_model");
    expect(error.message).toContain('fromAiSdk(anthropic("claude-sonnet-4-5"))');
  });

  it("rejects another specification version, naming it and the one it speaks", () => {
    const v2 = {
      specificationVersion: "v2",
      provider: "anthropic.messages",
      modelId: "x",
      doStream: async () => ({}),
    };
    const error = setupErrorOf(() => fromAiSdk(v2 as never));
    expect(error.code).toBe("unsupported_specification");
    expect(error.message).toContain('specification "v2"');
    expect(error.message).toContain('speaks "v3" (LanguageModelV3: @ai-sdk/provider 3.x, the ai 6 line)');
  });

  it("takes a V3 model: the catalogue's record for its id, with the AI SDK's api and the provider family", () => {
    const { model } = fromAiSdk(createAnthropic({ apiKey: FAKE_API_KEY })("claude-haiku-4-5"));
    expect(model).toMatchObject({
      id: "claude-haiku-4-5",
      api: "anthropic.messages",
      provider: "anthropic",
      contextWindow: 200_000,
      maxTokens: 64_000,
      reasoning: true,
    });
    expect(model.cost).toEqual({ input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 });
  });
});

describe("a missing API key", () => {
  it("a provider model without a key: an error reply naming the variable, and no request sent", async () => {
    vi.stubEnv("ANTHROPIC_API_KEY", undefined);
    const before = server.requests.length;
    const { model, streamFn } = fromAiSdk(createAnthropic({ baseURL: server.baseURL })("claude-sonnet-4-5"));
    const { message, final } = await collectEvents(streamFn(model, askContext()));
    expect(final).toMatchObject({ type: "error", reason: "error" });
    expect(message.errorMessage).toContain("ANTHROPIC_API_KEY");
    expect(message.errorMessage).toMatch(/^anthropic request failed: /);
    expect(isRetryableError(message)).toBe(false);
    expect(server.requests.length).toBe(before);
  });

  it("aiSdkModel fails at setup, naming the variable and apiKey", async () => {
    await expect(aiSdkModel({ provider: "google", env: {} })).rejects.toMatchObject({
      name: "AiSdkSetupError",
      code: "missing_api_key",
      message: "No API key for google: set GOOGLE_GENERATIVE_AI_API_KEY or pass apiKey.",
    });
  });
});

describe("aiSdkModel: a provider package by name", () => {
  it("rejects a provider it does not know, naming the ones it does", async () => {
    await expect(aiSdkModel({ provider: "anthropc", apiKey: "k" })).rejects.toMatchObject({
      code: "unknown_provider",
      message: expect.stringContaining(
        "choose anthropic, google, openai, or pass any AI SDK model to fromAiSdk()",
      ),
    });
  });

  it("loads @ai-sdk/anthropic with the key from the environment and streams from the base URL", async () => {
    server.enqueue(recordedReply("anthropic-text.sse", "whole"));
    const { model, streamFn } = await aiSdkModel({
      provider: "anthropic",
      modelId: "claude-sonnet-4-5",
      baseURL: server.baseURL,
      env: { ANTHROPIC_API_KEY: "from-the-environment" },
    });
    const { final } = await collectEvents(streamFn(model, askContext()));
    expect(final.type).toBe("done");
    const request = server.requests.at(-1)!;
    expect(request.path).toBe("/v1/messages");
    expect(request.headers["x-api-key"]).toBe("from-the-environment");
  });
});
