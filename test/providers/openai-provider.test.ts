import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { openai, PLACEHOLDER_API_KEY } from "../../src/providers/openai/openai-provider.js";
import type { AssistantMessageEvent } from "../../src/types/stream.js";
import { collectEvents } from "../support/collect-events.js";
import { chatModel, chunk } from "../support/openai-fixtures.js";
import { OpenAITestServer, streamReply } from "../support/openai-server.js";

const context = {
  systemPrompt: "",
  messages: [{ role: "user" as const, content: "Hi", timestamp: 1 }],
  tools: [],
};
/** A refusal, so the request ends at once whatever protocol it used. */
const refused = { kind: "json" as const, status: 400, body: { error: { message: "no" } } };

let server: OpenAITestServer;
let other: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start();
  other = await OpenAITestServer.start();
});
afterAll(async () => {
  await server.close();
  await other.close();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** The path and Authorization header of the request one call of `streamFn` sent to `target`. */
async function sent(
  target: OpenAITestServer,
  run: () => AsyncIterable<AssistantMessageEvent>,
): Promise<{ path: string; authorization: string | undefined }> {
  const before = target.requests.length;
  target.enqueue(refused);
  await collectEvents(run());
  const request = target.requests[before]!;
  return { path: request.path, authorization: request.headers.authorization };
}

describe("openai(): which protocol, server and key", () => {
  it("sends models that pin no protocol by the factory's api option, and pinned ones by their own", async () => {
    const responses = openai({ baseURL: server.baseURL, api: "responses", maxRetries: 0 });
    const chat = openai({ baseURL: server.baseURL, maxRetries: 0 });
    const paths = [
      await sent(server, () => responses(chatModel({ api: "openai" }), context)),
      await sent(server, () => chat(chatModel({ api: "openai" }), context)),
      await sent(server, () => responses(chatModel({ api: "openai-chat" }), context)),
      await sent(server, () => chat(chatModel({ api: "openai-responses" }), context)),
    ].map((request) => request.path);
    expect(paths).toEqual(["/v1/responses", "/v1/chat/completions", "/v1/chat/completions", "/v1/responses"]);
  });

  it("keeps one client per base URL: each model reaches its own server", async () => {
    const streamFn = openai({ maxRetries: 0, apiKey: "sk-test" });
    await sent(server, () => streamFn(chatModel({ baseUrl: server.baseURL }), context));
    await sent(other, () => streamFn(chatModel({ baseUrl: other.baseURL }), context));
    expect(other.requests.at(-1)?.path).toBe("/v1/chat/completions");
  });

  it("reads OPENAI_BASE_URL and OPENAI_API_KEY, treating an empty variable as unset", async () => {
    vi.stubEnv("OPENAI_BASE_URL", server.baseURL);
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env");
    const fromEnv = await sent(server, () => openai({ maxRetries: 0 })(chatModel(), context));
    expect(fromEnv.authorization).toBe("Bearer sk-from-env");
    vi.stubEnv("OPENAI_API_KEY", "");
    const placeholder = await sent(server, () => openai({ maxRetries: 0 })(chatModel(), context));
    expect(placeholder.authorization).toBe(`Bearer ${PLACEHOLDER_API_KEY}`);
  });

  it("streams a reply with the key given per call", async () => {
    server.enqueue(streamReply([chunk({ content: "ok" }, "stop")]));
    const before = server.requests.length;
    const { message } = await collectEvents(
      openai({ baseURL: server.baseURL, maxRetries: 0 })(chatModel(), context, { apiKey: "sk-call" }),
    );
    expect(message.content).toEqual([{ type: "text", text: "ok" }]);
    expect(server.requests[before]?.headers.authorization).toBe("Bearer sk-call");
  });
});
