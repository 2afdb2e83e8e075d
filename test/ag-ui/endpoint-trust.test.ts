import { request as httpRequest } from "node:http";
import { EMPTY } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunAgentInput } from "../../src/ag-ui/ag-ui-events.js";
import { type AgUiHandlerOptions, createAgUiHandler } from "../../src/ag-ui/ag-ui-handler.js";
import type { SessionRunSource } from "../../src/ag-ui/session-run-source.js";
import { Agent } from "../../src/agent/agent.js";
import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { readRun, runInput, serveOnLoopback } from "../support/ag-ui-server.js";
import { colourScript, pickColour } from "../support/colour-tool.js";
import { testModel } from "../support/harness-support.js";

const ENDPOINT = "http://agent.test/agent";

/** A JSON POST to the endpoint, with extra headers. */
function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(ENDPOINT, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** A handler over scripted agents that counts how often a thread's agent was made. */
function countingHandler(
  options: Partial<AgUiHandlerOptions> = {},
  script: () => ScriptedTurn[] = () => [{ text: "Hi" }],
) {
  const made: string[] = [];
  const agents = new Map<string, Agent>();
  const handler = createAgUiHandler({
    ...(options as object),
    agentFor: (threadId) => {
      made.push(threadId);
      const agent = new Agent({ model: testModel, streamFn: scriptedModel(script()) });
      agents.set(threadId, agent);
      return agent;
    },
  } as AgUiHandlerOptions);
  return { handler, made, agents };
}

const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; message: string; correlationId?: string } }).error;

/** A session store that fails the test if the endpoint touches it. */
function untouchableSessions(): SessionRunSource & { touched: string[] } {
  const touched: string[] = [];
  const touch = (name: string) => () => {
    touched.push(name);
    return Promise.reject(new Error(`${name} must not be called`));
  };
  return {
    touched,
    startRun: touch("startRun"),
    run: touch("run"),
    watch: () => {
      touched.push("watch");
      return EMPTY;
    },
    awaitingApproval: touch("awaitingApproval"),
    approve: touch("approve"),
    deny: touch("deny"),
    steer: touch("steer"),
    followUp: touch("followUp"),
    abort: touch("abort"),
  };
}

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("the AG-UI endpoint against cross-site requests", () => {
  it("refuses a body that is not application/json (a CORS simple request) with 415 before making the thread", async () => {
    const { handler, made } = countingHandler();
    const simple = new Request(ENDPOINT, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify(runInput("t1", "r1", "Hello")),
    });
    const refused = await handler(simple);
    expect(refused.status).toBe(415);
    expect((await errorOf(refused)).code).toBe("unsupported_media_type");
    const untyped = await handler(
      new Request(ENDPOINT, { method: "POST", body: JSON.stringify(runInput("t1", "r1", "Hello")) }),
    );
    expect(untyped.status).toBe(415);
    const crossSite = await handler(
      new Request(ENDPOINT, {
        method: "POST",
        headers: { "content-type": "text/plain", origin: "https://evil.example" },
        body: JSON.stringify(runInput("t1", "r1", "Hello")),
      }),
    );
    expect(crossSite.status).toBe(403);
    expect(made).toEqual([]);
  });

  it("refuses a foreign Origin with 403, serves no Origin, its own host and the allowed origins with CORS headers", async () => {
    const { handler, made } = countingHandler({ allowedOrigins: ["https://app.example"] });
    const foreign = await handler(post(runInput("t1", "r1", "Hello"), { origin: "https://evil.example" }));
    expect(foreign.status).toBe(403);
    expect(await errorOf(foreign)).toMatchObject({
      code: "origin_not_allowed",
      message: expect.stringContaining("allowedOrigins"),
    });
    expect(made).toEqual([]);

    const noOrigin = await handler(post(runInput("t1", "r1", "Hello")));
    expect(noOrigin.status).toBe(200);
    expect(noOrigin.headers.get("access-control-allow-origin")).toBeNull();
    await readRun(noOrigin);
    const sameHost = await handler(post(runInput("t1", "r2", "Again"), { origin: "https://agent.test" }));
    expect(sameHost.status).toBe(200);
    await readRun(sameHost);

    const preflight = await handler(
      new Request(ENDPOINT, { method: "OPTIONS", headers: { origin: "https://app.example" } }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("content-type");
    const allowed = await handler(post(runInput("t1", "r3", "Third"), { origin: "https://app.example" }));
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    await readRun(allowed);
    const foreignPreflight = await handler(
      new Request(ENDPOINT, { method: "OPTIONS", headers: { origin: "https://evil.example" } }),
    );
    expect(foreignPreflight.status).toBe(403);
  });
});

describe("authorize(request, threadId)", () => {
  const byBearer = (request: Request, threadId: string) => {
    const token = request.headers.get("authorization");
    if (token === null) return "unauthenticated" as const;
    return token === `Bearer owner-of-${threadId}` ? ("allow" as const) : ("forbidden" as const);
  };

  it("refuses runs and commands with 401 or 403 before the thread is made or read", async () => {
    const { handler, made } = countingHandler({ authorize: byBearer });
    const anonymous = await handler(post(runInput("t1", "r1", "Hello")));
    expect(anonymous.status).toBe(401);
    expect((await errorOf(anonymous)).code).toBe("unauthenticated");
    const stranger = await handler(
      post(runInput("t1", "r1", "Hello"), { authorization: "Bearer owner-of-t2" }),
    );
    expect(stranger.status).toBe(403);
    expect((await errorOf(stranger)).code).toBe("forbidden");
    expect(made).toEqual([]);

    const owner = await handler(post(runInput("t1", "r1", "Hello"), { authorization: "Bearer owner-of-t1" }));
    expect(owner.status).toBe(200);
    const events = await readRun(owner);
    expect(events.at(-1)?.event.type).toBe("RUN_FINISHED");
    // Knowing the thread id grants nothing: a replay of the run (its transcript) and commands are refused.
    const replay = await handler(
      post(runInput("t1", "r1", "Hello"), { authorization: "Bearer owner-of-t2" }),
    );
    expect(replay.status).toBe(403);
    const abort = await handler(post({ threadId: "t1", command: { type: "abort" } }));
    expect(abort.status).toBe(401);
    expect(made).toEqual(["t1"]);
  });

  it("guards the sessions mode too, before the store is asked", async () => {
    const sessions = untouchableSessions();
    const handler = createAgUiHandler({ sessions, authorize: byBearer });
    expect((await handler(post(runInput("s1", "r1", "Hello")))).status).toBe(401);
    const steer = await handler(
      post(
        { threadId: "s1", command: { type: "steer", text: "x" } },
        { authorization: "Bearer owner-of-s2" },
      ),
    );
    expect(steer.status).toBe(403);
    expect(sessions.touched).toEqual([]);
  });

  it("answers an authorize that throws as an internal error, never serving the request", async () => {
    const errors: unknown[] = [];
    const { handler, made } = countingHandler({
      authorize: () => {
        throw new Error("the token service is down");
      },
      onError: (error) => errors.push(error),
    });
    const response = await handler(post(runInput("t1", "r1", "Hello")));
    expect(response.status).toBe(500);
    expect(made).toEqual([]);
    expect(errors).toHaveLength(1);
  });
});

describe("threads in memory", () => {
  it("forgets a thread idle longer than threadIdleMs, telling onThreadEvicted: its agent is asked for again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(0);
    const evicted: [string, unknown][] = [];
    const { handler, made, agents } = countingHandler(
      {
        limits: { threadIdleMs: 60_000 },
        onThreadEvicted: (threadId, agent) => void evicted.push([threadId, agent]),
      },
      () => [{ text: "One" }, { text: "Two" }],
    );
    await readRun(await handler(post(runInput("t1", "r1", "Hello"))));
    vi.setSystemTime(59_000);
    await readRun(await handler(post(runInput("t1", "r2", "Again"))));
    expect(made).toEqual(["t1"]);
    const first = agents.get("t1");
    vi.setSystemTime(59_000 + 60_001);
    await readRun(await handler(post(runInput("t1", "r3", "Later"))));
    expect(made).toEqual(["t1", "t1"]);
    expect(evicted).toEqual([["t1", first]]);
  });

  it("keeps at most maxThreads: the longest idle goes first, and busy threads are never dropped (503)", async () => {
    const { handler, made } = countingHandler({ limits: { maxThreads: 2 } }, () => [
      { text: "Waiting", hang: true },
    ]);
    const busy = (threadId: string) => handler(post(runInput(threadId, "r1", "Hello")));
    const first = await busy("t1");
    const second = await busy("t2");
    const refused = await busy("t3");
    expect(refused.status).toBe(503);
    expect(await errorOf(refused)).toMatchObject({
      code: "too_many_threads",
      message: expect.stringContaining("maxThreads (2)"),
    });
    await handler(post({ threadId: "t1", command: { type: "abort" } }));
    await readRun(first);
    expect((await busy("t3")).status).toBe(200);
    expect(made).toEqual(["t1", "t2", "t3"]);
    // t1 was evicted for t3: a command for it finds no thread.
    expect((await handler(post({ threadId: "t1", command: { type: "abort" } }))).status).toBe(404);
    await handler(post({ threadId: "t2", command: { type: "abort" } }));
    await readRun(second);
  });
});

describe("request limits", () => {
  it("refuses a body over maxBodyBytes with 413 (declared or streamed) and never reads it all", async () => {
    const { handler, made } = countingHandler({ limits: { maxBodyBytes: 10_000 } });
    const served = await serveOnLoopback(handler);
    servers.push(served);
    const big = JSON.stringify(runInput("t1", "r1", "x".repeat(20_000)));
    const declared = await fetch(served.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(await errorOf(declared)).toMatchObject({
      code: "body_too_large",
      message: expect.stringContaining("maxBodyBytes (10000 bytes)"),
    });

    // Chunked, without Content-Length: refused once the bytes pass the limit, while the client still sends.
    const { status, body, sentWhenAnswered } = await new Promise<{
      status: number;
      body: string;
      sentWhenAnswered: number;
    }>((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const outgoing = httpRequest(served.url, {
        method: "POST",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      });
      outgoing.on("error", reject);
      outgoing.on("response", (response) => {
        answered = true;
        const answeredAt = sent;
        let text = "";
        response.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on("end", () => {
          resolve({ status: response.statusCode ?? 0, body: text, sentWhenAnswered: answeredAt });
          outgoing.destroy();
        });
      });
      const chunk = "x".repeat(4_096);
      const pump = () => {
        while (!answered && !outgoing.destroyed && sent < 10_000_000) {
          sent += chunk.length;
          if (!outgoing.write(chunk)) return void outgoing.once("drain", pump);
        }
      };
      pump();
    });
    expect(status).toBe(413);
    expect(JSON.parse(body)).toMatchObject({ error: { code: "body_too_large" } });
    expect(sentWhenAnswered).toBeLessThan(10_000_000);
    expect(made).toEqual([]);
  });

  it("refuses too many messages, too long a text and too long a steer with 413 naming the limit", async () => {
    const { handler } = countingHandler({ limits: { maxMessages: 3, maxTextLength: 100 } });
    const many: RunAgentInput = {
      ...runInput("t1", "r1", "Hello"),
      messages: ["a", "b", "c", "d"].map((id) => ({ id, role: "user" as const, content: id })),
    };
    const tooMany = await handler(post(many));
    expect(tooMany.status).toBe(413);
    expect(await errorOf(tooMany)).toMatchObject({
      code: "limit_exceeded",
      message: expect.stringContaining("maxMessages (3)"),
    });
    const long = await handler(post(runInput("t1", "r1", "y".repeat(101))));
    expect(long.status).toBe(413);
    expect((await errorOf(long)).message).toContain("maxTextLength (100)");
    const steer = await handler(post({ threadId: "t1", command: { type: "steer", text: "z".repeat(101) } }));
    expect(steer.status).toBe(413);
    expect((await errorOf(steer)).message).toContain("maxTextLength (100)");
  });
});

describe("error codes", () => {
  it("answers malformed resume entries with 400, naming the entry", async () => {
    const { handler } = countingHandler();
    for (const resume of [[null], [{ status: "resolved" }], [{ interruptId: "c", status: "maybe" }]]) {
      const response = await handler(post({ ...runInput("t1", "r1", "Hello"), resume }));
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({
        code: "invalid_request",
        message: expect.stringContaining("RunAgentInput.resume[0]"),
      });
    }
  });

  it("answers the loser of two requests answering the same client-tool call with 409 not_waiting", async () => {
    const { handler } = countingHandler({}, colourScript);
    const first = await readRun(await handler(post(runInput("f1", "r1", "Pick", { tools: [pickColour] }))));
    expect(first.at(-1)?.event).toMatchObject({ outcome: { pendingToolCallIds: ["call_c"] } });
    const answering = (runId: string, messageId: string) =>
      handler(
        post({
          ...runInput("f1", runId, "Pick", { tools: [pickColour] }),
          messages: [
            { id: "u-r1", role: "user", content: "Pick" },
            { id: messageId, role: "tool", toolCallId: "call_c", content: runId },
          ],
        }),
      );
    const [one, two] = await Promise.all([answering("r2", "tab-1"), answering("r3", "tab-2")]);
    const statuses = [one.status, two.status].sort();
    expect(statuses).toEqual([200, 409]);
    const loser = one.status === 409 ? one : two;
    expect(await errorOf(loser)).toMatchObject({
      code: "not_waiting",
      command: "ANSWER_TOOL",
      toolCallId: "call_c",
    });
    await readRun(one.status === 200 ? one : two);
  });

  it("hides internal errors behind a correlation id given to onError: no message, path or stack", async () => {
    const reported: { error: unknown; correlationId: string }[] = [];
    const secret = "/srv/app/sessions/private-folder";
    const handler = createAgUiHandler({
      agentFor: () => {
        throw new Error(`cannot open ${secret}`);
      },
      onError: (error, { correlationId }) => reported.push({ error, correlationId }),
    });
    const response = await handler(post(runInput("t1", "r1", "Hello")));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain(secret);
    const { error } = JSON.parse(text) as { error: { code: string; message: string; correlationId: string } };
    expect(error.code).toBe("internal");
    expect(error.message).toContain(error.correlationId);
    expect(reported).toEqual([{ error: expect.any(Error), correlationId: error.correlationId }]);
  });

  it("shows a run whose agent fails with a RUN_ERROR carrying the correlation id, not the error's text", async () => {
    const reported: string[] = [];
    const secret = "/srv/app/sessions/private-folder";
    const handler = createAgUiHandler({
      agentFor: () => {
        const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "Hi" }]) });
        agent.prompt = () => Promise.reject(new Error(`EACCES: ${secret}`));
        return agent;
      },
      onError: (_error, { correlationId }) => reported.push(correlationId),
    });
    const events = await readRun(await handler(post(runInput("t1", "r1", "Hello"))));
    const last = events.at(-1)?.event;
    expect(last?.type).toBe("RUN_ERROR");
    expect(JSON.stringify(last)).not.toContain(secret);
    expect((last as { message: string }).message).toContain(reported[0]);
  });
});
