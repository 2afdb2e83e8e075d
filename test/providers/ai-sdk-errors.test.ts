import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import {
  describeAiSdkError,
  isApiCallError,
  isRetryableRequestError,
  isUnreachableError,
} from "../../src/providers/ai-sdk/ai-sdk-errors.js";
import { ServerStreamError, ServerUnreachableError } from "../../src/providers/provider-errors.js";

const URL = "http://127.0.0.1:9/v1/messages";

const apiCallError = (options: Partial<ConstructorParameters<typeof APICallError>[0]> = {}) =>
  new APICallError({ message: "Overloaded", url: URL, requestBodyValues: {}, ...options });

const refusedCause = () =>
  new Error("fetch failed", {
    cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }),
  });

describe("AI SDK errors: what they are", () => {
  it("knows the AI SDK's APICallError by its name and shape, not by its class", () => {
    expect(isApiCallError(apiCallError())).toBe(true);
    const lookalike = Object.assign(new Error("x"), {
      name: "AI_APICallError",
      isRetryable: false,
      url: URL,
    });
    expect(isApiCallError(lookalike)).toBe(true);
    expect(isApiCallError(Object.assign(new Error("x"), { name: "AI_APICallError" }))).toBe(false);
    expect(isApiCallError(Object.assign(new Error("x"), { isRetryable: true }))).toBe(false);
    expect(isApiCallError({ name: "AI_APICallError", isRetryable: true })).toBe(false);
  });

  it("retries what the provider marks retryable, and only an APICallError", () => {
    expect(isRetryableRequestError(apiCallError({ statusCode: 529, isRetryable: true }))).toBe(true);
    expect(isRetryableRequestError(apiCallError({ statusCode: 400, isRetryable: false }))).toBe(false);
    expect(isRetryableRequestError(Object.assign(new Error("x"), { isRetryable: true }))).toBe(false);
  });

  it("calls a request unreachable when it got no status and its cause says nobody listens", () => {
    expect(isUnreachableError(apiCallError({ cause: refusedCause(), isRetryable: true }))).toBe(true);
    expect(isUnreachableError(apiCallError({ statusCode: 503, cause: refusedCause() }))).toBe(false);
    expect(isUnreachableError(apiCallError({ cause: new Error("reset") }))).toBe(false);
    expect(isUnreachableError(refusedCause())).toBe(false);
  });
});

describe("describeAiSdkError", () => {
  it("words HTTP errors, failed requests and unreachable servers as the OpenAI provider does", () => {
    expect(describeAiSdkError(apiCallError({ statusCode: 529 }), "anthropic")).toBe(
      "anthropic API error 529 Overloaded",
    );
    expect(
      describeAiSdkError(apiCallError({ message: "Cannot connect to API: other side closed" }), "anthropic"),
    ).toBe("anthropic request failed: Cannot connect to API: other side closed");
    expect(
      describeAiSdkError(
        apiCallError({ message: "Cannot connect to API", cause: refusedCause() }),
        "anthropic",
      ),
    ).toBe(
      "anthropic request failed: Cannot connect to API (fetch failed: connect ECONNREFUSED 127.0.0.1:9)",
    );
    expect(
      describeAiSdkError(
        apiCallError({ message: "Cannot connect: fetch failed", cause: new Error("fetch failed") }),
        "anthropic",
      ),
    ).toBe("anthropic request failed: Cannot connect: fetch failed");
    expect(describeAiSdkError(new ServerUnreachableError(URL, refusedCause()), "anthropic")).toBe(
      `anthropic could not connect to ${URL} (connect ECONNREFUSED 127.0.0.1:9): is the server running?`,
    );
    expect(describeAiSdkError(new ServerStreamError("bad", "malformed_event"), "google")).toBe(
      "google sent a malformed stream event: bad",
    );
  });

  it("words any other error with its cause, and a thrown value that is no object as text", () => {
    expect(describeAiSdkError(new Error("ANTHROPIC_API_KEY is missing"), "anthropic")).toBe(
      "anthropic request failed: ANTHROPIC_API_KEY is missing",
    );
    expect(describeAiSdkError(new TypeError("terminated"), "anthropic")).toBe(
      "anthropic connection lost while streaming: terminated",
    );
    expect(describeAiSdkError("gone", "anthropic")).toBe("anthropic request failed: gone");
    expect(describeAiSdkError(undefined, "anthropic")).toBe("anthropic request failed: undefined");
  });

  it("reads an error object a provider streamed: nested errors, its type, code or status, or its JSON", () => {
    const cases: [unknown, string][] = [
      [
        { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
        "anthropic stream error overloaded_error (throttled: rate limited, retry later): Overloaded",
      ],
      [
        { code: "rate_limit_exceeded", message: "Slow down" },
        "anthropic stream error rate_limit_exceeded (throttled: rate limited, retry later): Slow down",
      ],
      [{ status: 500, message: "Internal" }, "anthropic stream error 500: Internal"],
      [{ type: "", code: "server_error", message: "Boom" }, "anthropic stream error server_error: Boom"],
      [{ type: true, message: "Odd" }, "anthropic stream error: Odd"],
      [{ type: 7, message: "Odd" }, "anthropic stream error 7: Odd"],
      [{ error: null, reason: "unknown" }, 'anthropic stream error: {"error":null,"reason":"unknown"}'],
      [{ message: 42 }, 'anthropic stream error: {"message":42}'],
    ];
    for (const [error, line] of cases) expect(describeAiSdkError(error, "anthropic")).toBe(line);
  });
});
