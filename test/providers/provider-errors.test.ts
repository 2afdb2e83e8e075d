import { describe, expect, it } from "vitest";
import {
  causeMessage,
  describeOtherError,
  describeStreamError,
  hasUnreachableCause,
  ServerStreamError,
  ServerUnreachableError,
} from "../../src/providers/provider-errors.js";

/** An error with a `code`, as Node's system errors and undici's have. */
function coded(message: string, code: unknown, cause?: unknown): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code });
}

/** `depth` errors, each the cause of the one before; the innermost has `code`. */
function chain(depth: number, code: string): Error {
  let error: Error = coded(`level ${depth}`, code);
  for (let level = depth - 1; level >= 1; level--) error = new Error(`level ${level}`, { cause: error });
  return error;
}

describe("ServerStreamError", () => {
  it("is named and says whether the server's code means throttling", () => {
    const throttling = [
      "429",
      "rate_limit_exceeded",
      "Throttling",
      "RateLimit",
      "too_many_requests",
      "overloaded_error",
    ];
    for (const serverCode of throttling) {
      expect(new ServerStreamError("slow down", "server_error", serverCode).throttled).toBe(true);
    }
    for (const serverCode of ["4290", "server_error", "invalid_request_error", undefined]) {
      expect(new ServerStreamError("no", "server_error", serverCode).throttled).toBe(false);
    }
    const error = new ServerStreamError("bad", "malformed_event");
    expect(error).toMatchObject({ name: "ServerStreamError", code: "malformed_event", message: "bad" });
    expect(error.serverCode).toBeUndefined();
  });
});

describe("ServerUnreachableError", () => {
  it("names the address and the cause chain, and keeps the cause", () => {
    const cause = new Error("fetch failed", {
      cause: coded("connect ECONNREFUSED 127.0.0.1:1", "ECONNREFUSED"),
    });
    const error = new ServerUnreachableError("http://127.0.0.1:1/v1", cause);
    expect(error).toMatchObject({
      name: "ServerUnreachableError",
      code: "server_unreachable",
      url: "http://127.0.0.1:1/v1",
    });
    expect(error.message).toBe(
      "could not connect to http://127.0.0.1:1/v1 (connect ECONNREFUSED 127.0.0.1:1): is the server running?",
    );
    expect(error.cause).toBe(cause);
    expect(new ServerUnreachableError("http://x", new Error("refused")).message).toBe(
      "could not connect to http://x (refused): is the server running?",
    );
  });
});

describe("describeStreamError", () => {
  it("words each kind of stream error, with the server's code and a throttling note", () => {
    const cases: [ServerStreamError, string][] = [
      [
        new ServerStreamError("Overloaded", "server_error", "overloaded_error"),
        "anthropic stream error overloaded_error (throttled: rate limited, retry later): Overloaded",
      ],
      [
        new ServerStreamError("boom", "server_error", "server_error"),
        "anthropic stream error server_error: boom",
      ],
      [new ServerStreamError("boom", "server_error"), "anthropic stream error: boom"],
      [
        new ServerStreamError("no type", "malformed_event"),
        "anthropic sent a malformed stream event: no type",
      ],
      [new ServerStreamError("sent no events", "not_an_event_stream"), "anthropic sent no events"],
    ];
    for (const [error, line] of cases) expect(describeStreamError(error, "anthropic")).toBe(line);
  });
});

describe("describeOtherError", () => {
  it("tells a connection lost mid-stream from any other failure", () => {
    const lost = [
      new TypeError("terminated"),
      coded("read ECONNRESET", "ECONNRESET"),
      coded("other side closed", "UND_ERR_SOCKET"),
      new Error("stream broke", { cause: coded("other side closed", "UND_ERR_SOCKET") }),
    ];
    expect(lost.map((error) => describeOtherError(error, "openai"))).toEqual([
      "openai connection lost while streaming: terminated",
      "openai connection lost while streaming: read ECONNRESET",
      "openai connection lost while streaming: other side closed",
      "openai connection lost while streaming: stream broke (other side closed)",
    ]);
    const other = [
      new Error("bad request"),
      new Error("fetch failed", { cause: new Error("getaddrinfo ENOTFOUND nowhere") }),
      new Error("same", { cause: new Error("same") }),
      new Error("wrapped", { cause: coded("inner", "ECONNRESET_LATER") }),
      new Error("not a socket", { cause: coded("inner", "EPIPE") }),
    ];
    expect(other.map((error) => describeOtherError(error, "openai"))).toEqual([
      "openai request failed: bad request",
      "openai request failed: fetch failed (getaddrinfo ENOTFOUND nowhere)",
      "openai request failed: same",
      "openai request failed: wrapped (inner)",
      "openai request failed: not a socket (inner)",
    ]);
    expect(describeOtherError("a string", "openai")).toBe("openai request failed: a string");
    expect(describeOtherError({ code: "ECONNRESET" }, "openai")).toBe(
      "openai request failed: [object Object]",
    );
  });
});

describe("causeMessage", () => {
  it("joins the messages of at most four causes, names a cause without a message, and stops at a non-error", () => {
    expect(causeMessage(new Error("alone"))).toBeUndefined();
    expect(causeMessage(chain(6, "X"))).toBe("level 2: level 3: level 4: level 5");
    expect(causeMessage(chain(5, "X"))).toBe("level 2: level 3: level 4: level 5");
    expect(causeMessage(chain(3, "X"))).toBe("level 2: level 3");
    expect(causeMessage(new Error("outer", { cause: new RangeError("") }))).toBe("RangeError");
    expect(causeMessage(new Error("outer", { cause: "just text" }))).toBe("just text");
    expect(causeMessage(new Error("outer", { cause: new Error("mid", { cause: 42 }) }))).toBe("mid: 42");
    expect(causeMessage(new Error("outer", { cause: null }))).toBe("null");
  });
});

describe("hasUnreachableCause", () => {
  it("finds a refused connection or an unknown host up to four causes deep", () => {
    for (const code of ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]) {
      expect(hasUnreachableCause(new Error("fetch failed", { cause: coded("no", code) }))).toBe(true);
    }
    expect(hasUnreachableCause(new Error("top", { cause: chain(4, "ECONNREFUSED") }))).toBe(true);
    expect(hasUnreachableCause(new Error("top", { cause: chain(5, "ECONNREFUSED") }))).toBe(false);
  });

  it("is false for other codes, codes that are not strings, the error's own code, and no error", () => {
    expect(hasUnreachableCause(new Error("x", { cause: coded("reset", "ECONNRESET") }))).toBe(false);
    expect(hasUnreachableCause(new Error("x", { cause: coded("odd", 111) }))).toBe(false);
    expect(hasUnreachableCause(new Error("x", { cause: { code: "ECONNREFUSED" } }))).toBe(false);
    expect(hasUnreachableCause(coded("own code", "ECONNREFUSED"))).toBe(false);
    expect(hasUnreachableCause(new Error("no cause"))).toBe(false);
    expect(hasUnreachableCause(undefined)).toBe(false);
  });
});
