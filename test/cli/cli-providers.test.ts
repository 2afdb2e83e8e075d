import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "../../src/cli/cli-error.js";
import { chooseModel, withModelId } from "../../src/cli/model-choice.js";
import { askContext } from "../support/ai-sdk-models.js";
import { collectEvents } from "../support/collect-events.js";
import { OpenAITestServer } from "../support/openai-server.js";
import { recordedReply } from "../support/provider-streams.js";

let server: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start({ anyPath: true });
});
afterAll(() => server.close());

describe("--provider: choosing the model's provider by name", () => {
  it("names the variable to set when the provider's key is missing", async () => {
    const failure = chooseModel({ provider: "anthropic", env: {} });
    await expect(failure).rejects.toBeInstanceOf(CliError);
    await expect(failure).rejects.toMatchObject({
      exitCode: 2,
      message: "No API key for anthropic: set ANTHROPIC_API_KEY or pass apiKey.",
    });
  });

  it("names the providers it knows when given another", async () => {
    await expect(chooseModel({ provider: "gemini", env: {} })).rejects.toMatchObject({
      exitCode: 2,
      message:
        'unknown provider "gemini": choose openai (also any OpenAI-compatible server), anthropic, google',
    });
  });

  it("AGENTCHART_PROVIDER picks Google with its key; the provider's default model from the catalogue", async () => {
    const choice = await chooseModel({
      env: { AGENTCHART_PROVIDER: "google", GOOGLE_GENERATIVE_AI_API_KEY: "k" },
    });
    expect(choice.offline).toBe(false);
    expect(choice.banner).toBe("model gemini-2.5-flash via google (AI SDK)");
    expect(choice.model).toMatchObject({
      id: "gemini-2.5-flash",
      provider: "google",
      contextWindow: 1_048_576,
    });
  });

  it("streams from the provider, and /model switches the model the requests name", async () => {
    const choice = await chooseModel({
      provider: "anthropic",
      modelId: "claude-sonnet-4-5",
      baseUrl: server.baseURL,
      env: { ANTHROPIC_API_KEY: "k" },
    });
    server.enqueue(
      recordedReply("anthropic-text.sse", "whole"),
      recordedReply("anthropic-text.sse", "whole"),
    );
    const first = await collectEvents(choice.streamFn(choice.model, askContext(), {}));
    expect(first.final.type).toBe("done");
    expect(server.requests.at(-1)!.body.model).toBe("claude-sonnet-4-5");
    await collectEvents(choice.streamFn(withModelId(choice.model, "claude-haiku-4-5"), askContext(), {}));
    expect(server.requests.at(-1)!.body.model).toBe("claude-haiku-4-5");
  });
});
