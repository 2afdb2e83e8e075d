import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openai } from "../../src/providers/openai/openai-provider.js";
import type { LlmContext } from "../../src/types/stream.js";
import { collectEvents } from "../support/collect-events.js";
import { chatModel, chunk } from "../support/openai-fixtures.js";
import {
  OpenAITestServer,
  type ScriptedReply,
  splitAwkwardly,
  streamReply,
} from "../support/openai-server.js";

/** OpenAI's real answer to a `json_schema` request for a model that does not take it (HTTP 400). */
const formatRejected = (): ScriptedReply => ({
  kind: "stream",
  status: 400,
  headers: { "content-type": "application/json" },
  pieces: splitAwkwardly(
    readFileSync(
      new URL("../fixtures/provider-errors/openai-json-schema-unsupported.txt", import.meta.url),
      "utf8",
    ),
  ),
});
const plain: LlmContext = {
  systemPrompt: "",
  messages: [{ role: "user", content: "Hi", timestamp: 1 }],
  tools: [],
};
const typed: LlmContext = {
  ...plain,
  output: { name: "answer", schema: { type: "object", properties: { a: { type: "string" } } }, strict: true },
};

let server: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start();
});
afterAll(async () => {
  await server.close();
});

describe("runStream: the output-format fallback", () => {
  it("sends a request without typed output once, even when the server's error reads like a format rejection", async () => {
    server.enqueue(formatRejected());
    const before = server.requests.length;
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL, maxRetries: 0 })(chatModel(), plain),
    );
    expect(message.stopReason).toBe("error");
    expect(server.requests.length - before).toBe(1);
  });

  it("does not ask again in instructions mode when that mode itself was refused", async () => {
    server.enqueue(formatRejected());
    const before = server.requests.length;
    const streamFn = openai({ baseURL: server.baseURL, maxRetries: 0, structuredOutput: "instructions" });
    const { message } = await collectEvents(streamFn(chatModel(), typed));
    expect(message.stopReason).toBe("error");
    expect(server.requests.length - before).toBe(1);
  });
});

describe("runStream: ending early", () => {
  it("cancels the request when the consumer stops reading", async () => {
    server.enqueue(streamReply([chunk({ content: "Streaming for" })], { done: false, ending: "hang" }));
    const index = server.requests.length;
    for await (const event of openai({ baseURL: server.baseURL, maxRetries: 0 })(chatModel(), plain)) {
      if (event.type === "text_delta") break;
    }
    await server.request(index).then((request) => request.closed);
  });

  it("says the request was aborted when the caller aborts", async () => {
    server.enqueue(streamReply([chunk({ content: "partial" })], { done: false, ending: "hang" }));
    const controller = new AbortController();
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL, maxRetries: 0 })(chatModel(), plain, { signal: controller.signal }),
      (event) => {
        if (event.type === "text_delta") controller.abort();
      },
    );
    expect(message).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
  });
});
