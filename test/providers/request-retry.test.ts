import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sendWithRetries, UNREACHABLE_RETRY_MS } from "../../src/providers/openai/request-retry.js";
import { ServerUnreachableError } from "../../src/providers/provider-errors.js";

const URL = "http://127.0.0.1:9/v1";

/** An HTTP error as the SDK throws it; `retry-after-ms: 0` unless other headers are given. */
const httpError = (status: number | undefined, headers: Record<string, string> = { "retry-after-ms": "0" }) =>
  new APIError(status, undefined, `status ${status}`, new Headers(headers));

/** A connection that failed because nothing listens (the cause chain of undici's "fetch failed"). */
const refused = () =>
  new APIConnectionError({
    message: "Connection error.",
    cause: new Error("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }),
    }),
  });

/** A `send` that throws the given errors in turn, then answers "ok"; counts its calls. */
function attempts(...errors: unknown[]) {
  const send = vi.fn(async () => {
    const error = errors[send.mock.calls.length - 1];
    if (error !== undefined) throw error;
    return "ok";
  });
  return send;
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("sendWithRetries", () => {
  it("retries 408, 409, 429 and 5xx, and no other status", async () => {
    for (const status of [408, 409, 429, 500, 503]) {
      const send = attempts(httpError(status));
      await expect(sendWithRetries(send, 2, URL, new AbortController().signal)).resolves.toBe("ok");
      expect(send).toHaveBeenCalledTimes(2);
    }
    for (const status of [400, 401, 404, 422, 499, undefined]) {
      const error = httpError(status);
      const send = attempts(error);
      await expect(sendWithRetries(send, 2, URL, new AbortController().signal)).rejects.toBe(error);
      expect(send).toHaveBeenCalledTimes(1);
    }
  });

  it("does what the server's x-should-retry says", async () => {
    const yes = attempts(httpError(400, { "x-should-retry": "true", "retry-after-ms": "0" }));
    await expect(sendWithRetries(yes, 1, URL, new AbortController().signal)).resolves.toBe("ok");
    const no = httpError(503, { "x-should-retry": "false", "retry-after-ms": "0" });
    await expect(sendWithRetries(attempts(no), 1, URL, new AbortController().signal)).rejects.toBe(no);
  });

  it("gives up after maxRetries retries with the last attempt's error", async () => {
    const errors = [httpError(500), httpError(502), httpError(503)];
    const send = attempts(...errors);
    await expect(sendWithRetries(send, 2, URL, new AbortController().signal)).rejects.toBe(errors[2]);
    expect(send).toHaveBeenCalledTimes(3);
    const once = attempts(httpError(500));
    await expect(sendWithRetries(once, 0, URL, new AbortController().signal)).rejects.toBeInstanceOf(
      APIError,
    );
    expect(once).toHaveBeenCalledTimes(1);
  });

  it("never retries an abort or an error that is not the SDK's", async () => {
    for (const error of [new APIUserAbortError(), new Error("bug"), "text"]) {
      const send = attempts(error);
      await expect(sendWithRetries(send, 2, URL, new AbortController().signal)).rejects.toBe(error);
      expect(send).toHaveBeenCalledTimes(1);
    }
  });

  it("waits retry-after-ms before the retry", async () => {
    vi.useFakeTimers();
    const send = attempts(httpError(429, { "retry-after-ms": "1000" }));
    const result = sendWithRetries(send, 2, URL, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(999);
    expect(send).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toBe("ok");
    expect(send).toHaveBeenCalledTimes(2);
  });

  it("retries a lost connection or a timeout with backoff", async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(0);
    const timeout = new APIConnectionTimeoutError();
    timeout.cause = refused().cause; // a timeout is no "nobody listens", whatever its cause says
    const send = attempts(new APIConnectionError({ message: "reset" }), timeout);
    const result = sendWithRetries(send, 2, URL, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(499);
    expect(send).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(send).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1000);
    await expect(result).resolves.toBe("ok");
    expect(send).toHaveBeenCalledTimes(3);
  });

  it("retries an HTTP error that came without headers after the backoff", async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(0);
    const send = attempts(new APIError(503, undefined, "unavailable", undefined));
    const result = sendWithRetries(send, 1, URL, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(500);
    await expect(result).resolves.toBe("ok");
    expect(send).toHaveBeenCalledTimes(2);
  });

  it("retries a server nobody answers at once, after 250 ms, then names its address", async () => {
    vi.useFakeTimers();
    const send = attempts(refused(), refused(), refused());
    const result = sendWithRetries(send, 5, URL, new AbortController().signal);
    const settled = expect(result).rejects.toThrow(ServerUnreachableError);
    await vi.advanceTimersByTimeAsync(UNREACHABLE_RETRY_MS - 1);
    expect(send).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await settled;
    expect(send).toHaveBeenCalledTimes(2);
    await expect(result).rejects.toMatchObject({ url: URL, code: "server_unreachable" });

    vi.useRealTimers();
    const noRetry = attempts(refused());
    await expect(sendWithRetries(noRetry, 0, URL, new AbortController().signal)).rejects.toThrow(
      ServerUnreachableError,
    );
    expect(noRetry).toHaveBeenCalledTimes(1);
  });

  it("after an abort, rejects with the attempt's own error, or APIUserAbortError while waiting", async () => {
    const controller = new AbortController();
    const error = httpError(500);
    const abortingSend = vi.fn(async () => {
      controller.abort();
      throw error;
    });
    await expect(sendWithRetries(abortingSend, 2, URL, controller.signal)).rejects.toBe(error);
    expect(abortingSend).toHaveBeenCalledTimes(1);

    const waiting = new AbortController();
    const send = attempts(httpError(429, { "retry-after": "30" }));
    const result = sendWithRetries(send, 2, URL, waiting.signal);
    await vi.waitFor(() => expect(send).toHaveBeenCalledTimes(1));
    waiting.abort();
    await expect(result).rejects.toBeInstanceOf(APIUserAbortError);
    expect(send).toHaveBeenCalledTimes(1);
  });
});
