import { afterEach, describe, expect, it, vi } from "vitest";
import { aiSdkModel, loadAiSdkProvider } from "../../src/ai-sdk.js";
import { askContext } from "../support/ai-sdk-models.js";
import { collectEvents } from "../support/collect-events.js";
import { recordedBody } from "../support/provider-streams.js";

// `aiSdkModel` / `loadAiSdkProvider` directly: which model id, key and server the loaded package
// gets. Nothing leaves the process: the one test that streams without a base URL answers from a
// recorded stream through a stubbed `fetch` (the AI SDK calls `globalThis.fetch` at request time).

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("aiSdkModel", () => {
  it("makes the model of the given id, else the provider's default one", async () => {
    const chosen = await aiSdkModel({ provider: "anthropic", modelId: "claude-haiku-4-5", apiKey: "k" });
    expect(chosen.model.id).toBe("claude-haiku-4-5");
    const byDefault = await aiSdkModel({ provider: "google", apiKey: "k" });
    expect(byDefault.model.id).toBe("gemini-2.5-flash");
  });

  it("an empty API key variable is a missing key", async () => {
    await expect(aiSdkModel({ provider: "anthropic", env: { ANTHROPIC_API_KEY: "" } })).rejects.toMatchObject(
      {
        name: "AiSdkSetupError",
        code: "missing_api_key",
      },
    );
  });

  it("in a runtime without process or process.env (an edge worker), a missing key is still the named error", async () => {
    // aiSdkModel checks the key before its first await, so the stub only lives through that check.
    for (const runtime of [undefined, { ...process, env: undefined }]) {
      vi.stubGlobal("process", runtime);
      const pending = aiSdkModel({ provider: "openai" });
      vi.unstubAllGlobals();
      await expect(pending).rejects.toMatchObject({ name: "AiSdkSetupError", code: "missing_api_key" });
    }
  });

  it("without a base URL, requests go to the provider's own server with the given key", async () => {
    const requests: { url: string; apiKey: string | null }[] = [];
    vi.stubGlobal("fetch", async (input: string | URL | Request, init?: RequestInit) => {
      requests.push({ url: String(input), apiKey: new Headers(init?.headers).get("x-api-key") });
      return new Response(recordedBody("anthropic-text.sse"), {
        headers: { "content-type": "text/event-stream" },
      });
    });
    const { model, streamFn } = await aiSdkModel({ provider: "anthropic", apiKey: "given-key", env: {} });
    const { final } = await collectEvents(streamFn(model, askContext()));
    expect(final.type).toBe("done");
    expect(requests).toEqual([{ url: "https://api.anthropic.com/v1/messages", apiKey: "given-key" }]);
  });
});

describe("loadAiSdkProvider", () => {
  it("makes each model once: the same id gives the same model, another id another", async () => {
    const modelFor = await loadAiSdkProvider({ provider: "openai", apiKey: "k" });
    const first = modelFor("gpt-5-mini");
    expect(modelFor("gpt-5-mini")).toBe(first);
    const other = modelFor("gpt-4.1-mini");
    expect(other).not.toBe(first);
    expect(other.model.id).toBe("gpt-4.1-mini");
  });
});
