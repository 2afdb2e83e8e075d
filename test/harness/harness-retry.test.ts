import { describe, expect, it } from "vitest";
import { isContextOverflow, isRetryableError, retryDelayMs } from "../../src/harness/retry-policy.js";
import type { AssistantMessage } from "../../src/types/messages.js";
import { emptyUsage } from "../../src/types/messages.js";
import {
  createHarness,
  phaseReached,
  replyText,
  requestUserTexts,
  roles,
  sessionMessages,
  texts,
} from "../support/harness-support.js";

const failed = (errorMessage: string, stopReason: "error" | "aborted" = "error"): AssistantMessage => ({
  role: "assistant",
  content: [],
  api: "scripted",
  provider: "scripted",
  model: "m",
  usage: emptyUsage(),
  stopReason,
  errorMessage,
  timestamp: 0,
});

describe("retry policy", () => {
  it.each([
    "429 rate limited",
    "Rate limit reached for requests",
    "503 Service Unavailable",
    "The server is overloaded",
    "read ECONNRESET",
    "Request timed out",
    "network error",
    "dashscope stream error Throttling.AllocationQuota (throttled: rate limited, retry later): Allocated quota exceeded",
  ])("retries %s", (text) => {
    expect(isRetryableError(failed(text))).toBe(true);
  });

  it.each([
    "400 Bad Request: invalid tool schema",
    "401 Unauthorized",
    "404 model not found",
    "429 insufficient_quota: You exceeded your current quota",
    "This model's maximum context length is 8192 tokens",
    "openai could not connect to http://127.0.0.1:11434/v1 (fetch failed: connect ECONNREFUSED 127.0.0.1:11434): is the server running?",
    "request failed: fetch failed (getaddrinfo ENOTFOUND model-host)",
  ])("does not retry %s", (text) => {
    expect(isRetryableError(failed(text))).toBe(false);
  });

  it("never retries aborts and recognises context overflows", () => {
    expect(isRetryableError(failed("429 rate limited", "aborted"))).toBe(false);
    expect(isContextOverflow(failed("prompt is too long: context_length_exceeded"))).toBe(true);
    expect(isContextOverflow(failed("Too many tokens in the request"))).toBe(true);
    expect(
      isContextOverflow(
        failed(
          "google API error 400 The input token count (1100000) exceeds the maximum number of tokens allowed (1048576).",
        ),
      ),
    ).toBe(true);
    expect(isContextOverflow(failed("429 rate limited"))).toBe(false);
  });

  it("doubles the delay per attempt up to the cap", () => {
    const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 350 };
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(policy, attempt))).toEqual([100, 200, 350, 350]);
  });
});

describe("harness retry", () => {
  it("retries a 429 reply: the failed reply is persisted, the retry's context excludes it", async () => {
    const { harness, model, session, events } = await createHarness([
      { error: "429 rate limited" },
      { text: "ok" },
    ]);
    const phases: string[] = [];
    harness.phase$.subscribe((phase) => phases.push(phase));
    const { reply } = await harness.prompt("p");
    expect(replyText(reply)).toBe("ok");
    expect(phases).toEqual(["idle", "turn", "retry", "turn", "idle"]);
    expect(events.filter((e) => e.type === "retry")).toEqual([
      { type: "retry", attempt: 1, maxRetries: 3, delayMs: 0, errorMessage: "429 rate limited" },
    ]);
    expect(roles(model.calls[1]!.context.messages)).toEqual(["user"]);
    expect(roles(harness.messages)).toEqual(["user", "assistant"]);
    expect(texts(sessionMessages(session))).toEqual(["p", "", "ok"]);
    expect(sessionMessages(session)[1]).toMatchObject({ stopReason: "error" });
    // After a reopen the failed reply is in the transcript but never sent to the model.
    await harness.prompt("next");
    expect(model.calls.length).toBe(3);
  });

  it("gives up after maxRetries and resolves with the last error", async () => {
    const { harness, model } = await createHarness(
      [{ error: "503 unavailable" }, { error: "503 unavailable" }, { error: "503 unavailable" }],
      { retry: { maxRetries: 2, baseDelayMs: 0, maxDelayMs: 0 } },
    );
    const { reply } = await harness.prompt("p");
    expect(reply).toMatchObject({ stopReason: "error", errorMessage: "503 unavailable" });
    expect(model.calls).toHaveLength(3);
  });

  it("does not retry 4xx errors", async () => {
    const { harness, model } = await createHarness([{ error: "400 Bad Request" }, { text: "never" }]);
    expect((await harness.prompt("p")).reply.errorMessage).toBe("400 Bad Request");
    expect(model.calls).toHaveLength(1);
  });

  it("abort during the backoff wait ends the operation at once, without another request", async () => {
    const { harness, model } = await createHarness([{ error: "429 rate limited" }, { text: "never" }], {
      retry: { maxRetries: 3, baseDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const running = harness.prompt("p");
    await phaseReached(harness, "retry");
    const { clearedSteer } = await harness.abort();
    expect(clearedSteer).toEqual([]);
    const { reply } = await running;
    expect(reply.errorMessage).toBe("429 rate limited");
    expect(harness.phase).toBe("idle");
    expect(model.calls).toHaveLength(1);
    expect(requestUserTexts(model.calls[0]!.context)).toEqual(["p"]);
  });

  it("messages steered during the backoff are delivered with the retried turn", async () => {
    const { harness, model } = await createHarness([{ error: "overloaded" }, { text: "a" }, { text: "b" }], {
      retry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 5 },
    });
    const running = harness.prompt("p");
    await phaseReached(harness, "retry");
    harness.steer("while waiting");
    await running;
    expect(requestUserTexts(model.calls[1]!.context)).toEqual(["p", "while waiting"]);
  });
});
