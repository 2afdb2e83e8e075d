import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, getModel, type Model, resolveModel, UnknownModelError } from "../../src/index.js";
import { MODEL_CATALOGUE, MODEL_DEFAULTS } from "../../src/internals.js";
import { openai } from "../../src/openai.js";
import { scriptedModel } from "../../src/testing.js";
import { collectEvents } from "../support/collect-events.js";
import { createHarness } from "../support/harness-support.js";
import { context } from "../support/openai-fixtures.js";
import { OpenAITestServer } from "../support/openai-server.js";

describe("the model catalogue", () => {
  it("gives an OpenAI model's window, output cap and prices per 1M tokens", () => {
    expect(getModel("gpt-4.1-mini")).toEqual({
      id: "gpt-4.1-mini",
      name: "GPT-4.1 mini",
      api: "openai",
      provider: "openai",
      reasoning: false,
      input: ["text", "image"],
      contextWindow: 1_047_576,
      maxTokens: 32_768,
      cost: { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 },
    });
    expect(getModel("o4-mini")).toMatchObject({
      reasoning: true,
      contextWindow: 200_000,
      maxTokens: 100_000,
    });
  });

  it("finds open-weight models by their Hugging Face id or Ollama tag, in any case, keeping the id as given", () => {
    const byTag = getModel("llama3.1:8b");
    expect(byTag).toMatchObject({ id: "llama3.1:8b", name: "Llama 3.1 8B Instruct", contextWindow: 131_072 });
    expect(byTag.cost).toBeUndefined();
    expect(getModel("meta-llama/llama-3.1-8b-instruct")).toMatchObject({
      id: "meta-llama/llama-3.1-8b-instruct",
      contextWindow: 131_072,
    });
    expect(getModel("qwen3:8b")).toMatchObject({ reasoning: true, contextWindow: 32_768, maxTokens: 32_768 });
    expect(getModel("qwen3:8b")).not.toHaveProperty("aliases");
  });

  it("throws UnknownModelError for an id it does not know, saying how to describe the model", () => {
    const lookUp = () => getModel("gpt-4.1-mni");
    expect(lookUp).toThrow(UnknownModelError);
    expect(lookUp).toThrow(/^Unknown model "gpt-4\.1-mni": the catalogue knows gpt-5, .*gpt-4\.1-mini/);
    expect(lookUp).toThrow('pass a record: { id: "gpt-4.1-mni", contextWindow, maxTokens }');
    expect(new UnknownModelError("x").code).toBe("unknown_model");
  });

  it("holds consistent records: unique ids and aliases, an output cap below the window, cached input cheaper", () => {
    const ids = MODEL_CATALOGUE.flatMap((entry) =>
      [entry.id, ...(entry.aliases ?? [])].map((id) => id.toLowerCase()),
    );
    expect(new Set(ids).size).toBe(ids.length);
    for (const entry of MODEL_CATALOGUE) {
      expect(entry.maxTokens, entry.id).toBeGreaterThan(0);
      expect(entry.maxTokens, entry.id).toBeLessThanOrEqual(entry.contextWindow);
      if (entry.cost) expect(entry.cost.cacheRead, entry.id).toBeLessThan(entry.cost.input);
      // Priced exactly when its maker serves it; open-weight models cost what their host charges.
      expect(entry.cost !== undefined, entry.id).toBe(!entry.id.includes("/"));
      // Anthropic charges for cache writes (1.25× input), OpenAI and Gemini's implicit caching do not.
      if (entry.cost) expect(entry.cost.cacheWrite > 0, entry.id).toBe(entry.provider === "anthropic");
    }
  });

  it("knows current Claude and Gemini models by id and dated alias, with their cache prices", () => {
    const sonnet = getModel("claude-sonnet-4-5-20250929");
    expect(sonnet).toMatchObject({
      id: "claude-sonnet-4-5-20250929",
      provider: "anthropic",
      contextWindow: 200_000,
    });
    expect(sonnet.cost).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(getModel("gemini-2.5-flash")).toMatchObject({ provider: "google", contextWindow: 1_048_576 });
    expect(getModel("gemini-2.5-flash").cost).toEqual({
      input: 0.3,
      output: 2.5,
      cacheRead: 0.03,
      cacheWrite: 0,
    });
    expect(resolveModel("claude-haiku-4-5").maxTokens).toBe(64_000);
  });
});

describe("resolveModel", () => {
  it("looks an id up in the catalogue, and gives an unknown id the defaults", () => {
    expect(resolveModel("gpt-4o")).toEqual(getModel("gpt-4o"));
    expect(resolveModel("my-finetune")).toEqual({ ...MODEL_DEFAULTS, id: "my-finetune" });
    expect(MODEL_DEFAULTS).toEqual({
      api: "openai",
      provider: "openai",
      reasoning: false,
      input: ["text"],
      contextWindow: 128_000,
      maxTokens: 8_192,
    });
  });

  it("completes a record from the catalogue entry of its id, else from the defaults; given fields win", () => {
    expect(resolveModel({ id: "gpt-4o", baseUrl: "http://127.0.0.1:9/v1" })).toEqual({
      ...getModel("gpt-4o"),
      baseUrl: "http://127.0.0.1:9/v1",
    });
    expect(resolveModel({ id: "my-finetune", contextWindow: 32_768, provider: "vllm" })).toEqual({
      ...MODEL_DEFAULTS,
      id: "my-finetune",
      contextWindow: 32_768,
      provider: "vllm",
    });
  });

  it("returns a complete Model as it is", () => {
    const model: Model = {
      id: "gpt-4o",
      api: "openai-chat",
      provider: "azure",
      contextWindow: 8_000,
      maxTokens: 500,
    };
    expect(resolveModel(model)).toBe(model);
  });
});

describe("a model id where a Model is taken", () => {
  it("is resolved by the Agent, whose StreamFn gets the catalogue record", async () => {
    const streamFn = scriptedModel([{ text: "Hi!" }]);
    const agent = new Agent({ model: "gpt-4.1-mini", streamFn });
    expect(agent.state.model).toEqual(getModel("gpt-4.1-mini"));
    await agent.prompt("hello");
    expect(streamFn.calls[0]?.model).toEqual(getModel("gpt-4.1-mini"));
  });

  it("is resolved for the harness, which records the model's provider and id in the session", async () => {
    const { harness, session } = await createHarness([{ text: "Hi!" }], { model: { id: "qwen3:8b" } });
    expect(harness.model).toMatchObject({ id: "qwen3:8b", contextWindow: 32_768, api: "openai" });
    harness.setModel(resolveModel("gpt-4o-mini"));
    expect(session.getEntries().filter((entry) => entry.type === "model_change")).toEqual([
      expect.objectContaining({ provider: "openai", modelId: "gpt-4o-mini" }),
    ]);
  });
});

describe("the protocol of the openai() provider", () => {
  let server: OpenAITestServer;
  beforeAll(async () => {
    server = await OpenAITestServer.start();
  });
  afterAll(() => server.close());

  /** The path the provider posts to for `model` (the server has no reply queued: the call fails fast). */
  const pathFor = async (streamFn: ReturnType<typeof openai>, model: Parameters<typeof streamFn>[0]) => {
    const before = server.requests.length;
    await collectEvents(streamFn(model, context()));
    const request = server.requests[before];
    return `${request?.path} ${request?.body.model}`;
  };

  it("is the model's when its api names one, whatever the factory says", async () => {
    const chat = openai({ baseURL: server.baseURL, maxRetries: 0 });
    const responses = openai({ baseURL: server.baseURL, maxRetries: 0, api: "responses" });
    expect(await pathFor(chat, { id: "gpt-4.1", api: "openai-responses" })).toBe("/v1/responses gpt-4.1");
    expect(await pathFor(responses, { id: "gpt-4.1", api: "openai-chat" })).toBe(
      "/v1/chat/completions gpt-4.1",
    );
  });

  it("is the factory's for models that do not pin one (catalogue ids and records)", async () => {
    const chat = openai({ baseURL: server.baseURL, maxRetries: 0 });
    const responses = openai({ baseURL: server.baseURL, maxRetries: 0, api: "responses" });
    expect(await pathFor(chat, "gpt-4.1-mini")).toBe("/v1/chat/completions gpt-4.1-mini");
    expect(await pathFor(responses, "gpt-4.1-mini")).toBe("/v1/responses gpt-4.1-mini");
    expect(await pathFor(responses, { id: "my-finetune" })).toBe("/v1/responses my-finetune");
  });
});
