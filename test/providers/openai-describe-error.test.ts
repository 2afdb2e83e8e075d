import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { describe, expect, it } from "vitest";
import { describeError } from "../../src/providers/openai/errors.js";
import { ServerStreamError, ServerUnreachableError } from "../../src/providers/provider-errors.js";

// One line a user can act on, for each kind of failure the SDK (or our stream handling) throws.
describe("describeError", () => {
  it("names the HTTP status and the server's message of an HTTP error", () => {
    const error = new APIError(429, { message: "Rate limit reached" }, undefined, new Headers());
    expect(describeError(error, "openai")).toBe(`openai API error ${error.message}`);
    expect(error.message).toContain("429");
  });

  it("names the cause of a connection failure", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    const error = new APIConnectionError({ message: "Connection error.", cause: refused });
    expect(describeError(error, "ollama")).toBe(
      "ollama request failed: Connection error. (connect ECONNREFUSED 127.0.0.1:9)",
    );
  });

  it("calls an API error with neither status nor cause a stream error", () => {
    const error = new APIConnectionError({ message: "terminated" });
    expect(describeError(error, "vllm")).toBe("vllm stream error: terminated");
  });

  it("says a timed-out request timed out", () => {
    expect(describeError(new APIConnectionTimeoutError(), "openai")).toBe(
      "openai request timed out before the server answered",
    );
  });

  it("prefixes a server that cannot be reached with the provider", () => {
    const error = new ServerUnreachableError("http://127.0.0.1:9/v1", new Error("connect ECONNREFUSED"));
    expect(describeError(error, "lmstudio")).toBe(`lmstudio ${error.message}`);
  });

  it("quotes a malformed stream event", () => {
    const error = new SyntaxError("Unexpected token } in JSON at position 7");
    expect(describeError(error, "openai")).toBe(
      "openai sent a malformed stream event (invalid JSON): Unexpected token } in JSON at position 7",
    );
  });

  it("describes a server's error event, an abort and anything else by the shared wording", () => {
    expect(describeError(new ServerStreamError("overloaded", "server_error"), "openai")).toBe(
      "openai stream error: overloaded",
    );
    expect(describeError(new APIUserAbortError(), "openai")).toBe(
      "openai request failed: Request was aborted.",
    );
    expect(describeError(new Error("boom"), "openai")).toBe("openai request failed: boom");
  });
});
