import { EventSchemas } from "@ag-ui/core/schemas";
import { afterEach, describe, expect, it } from "vitest";
import type { AgUiEvent } from "../../src/ag-ui/ag-ui-events.js";
import { createAgUiHandler } from "../../src/ag-ui/ag-ui-handler.js";
import type { SharedAgentState } from "../../src/ag-ui/shared-state.js";
import {
  postCommand,
  postRun,
  readRun,
  reverseTool,
  runInput,
  scriptedAgents,
  serveOnLoopback,
} from "../support/ag-ui-server.js";
import { createHarness, sessionMessages } from "../support/harness-support.js";

const servers: { close(): Promise<void> }[] = [];
/** Commands sent from inside stream callbacks: settled before the server closes. */
const inFlight: Promise<unknown>[] = [];
const later = (work: Promise<unknown>) => void inFlight.push(work);
afterEach(async () => {
  await Promise.all(inFlight.splice(0));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(setup: ReturnType<typeof scriptedAgents>) {
  const served = await serveOnLoopback(setup.handler);
  servers.push(served);
  return served;
}

function expectValidAgUi(events: AgUiEvent[]): void {
  for (const event of events) {
    const parsed = EventSchemas.safeParse(event);
    expect(parsed.success, `${event.type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
  }
}

const types = (events: { event: AgUiEvent }[]) => events.map(({ event }) => event.type);

describe("the AG-UI endpoint", () => {
  it("streams a reply with reasoning, text and a tool call as valid AG-UI 1.0 events with ids 1, 2, 3…", async () => {
    const setup = scriptedAgents(() => [
      {
        thinking: "Let me shout.",
        text: "Upper-casing.",
        toolCalls: [{ id: "call_1", name: "upper", arguments: { text: "hi" } }],
      },
      { text: "It is HI." },
    ]);
    const { url } = await serve(setup);
    const events = await readRun(await postRun(url, runInput("t1", "r1", "Shout hi")));
    expectValidAgUi(events.map(({ event }) => event));
    expect(events.map(({ id }) => id)).toEqual(events.map((_, index) => index + 1));
    expect(types(events)[0]).toBe("RUN_STARTED");
    expect(types(events).at(-1)).toBe("RUN_FINISHED");
    expect(types(events)).toEqual(
      expect.arrayContaining([
        "MESSAGES_SNAPSHOT",
        "REASONING_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
      ]),
    );
    const text = events
      .flatMap(({ event }) => (event.type === "TEXT_MESSAGE_CONTENT" ? [event.delta] : []))
      .join("");
    expect(text).toBe("Upper-casing.It is HI.");
    const args = events
      .flatMap(({ event }) => (event.type === "TOOL_CALL_ARGS" ? [event.delta] : []))
      .join("");
    expect(JSON.parse(args)).toEqual({ text: "hi" });
    const result = events.find(({ event }) => event.type === "TOOL_CALL_RESULT")?.event;
    expect(result).toMatchObject({ toolCallId: "call_1", content: "HI" });
  });

  it("waits for an approve command beside the stream, then runs the call", async () => {
    const setup = scriptedAgents(() => [
      { toolCalls: [{ id: "call_r", name: "reverse", arguments: { text: "abc" } }] },
      { text: "Reversed." },
    ]);
    const { url } = await serve(setup);
    const states: SharedAgentState[] = [];
    const events = await readRun(await postRun(url, runInput("t2", "r1", "Reverse abc")), (event) => {
      if (event.type === "STATE_SNAPSHOT") states.push(event.snapshot as SharedAgentState);
      if (event.type === "CUSTOM" && event.name === "agentchart.tool_approval_request")
        later(
          postCommand(url, "t2", { type: "APPROVE_TOOL", toolCallId: "call_r" }).then(async (response) =>
            expect(await response.json()).toEqual({ ok: true, runId: "r1" }),
          ),
        );
    });
    expectValidAgUi(events.map(({ event }) => event));
    expect(states.map((state) => state.phase)).toEqual(["running", "waiting", "running", "idle"]);
    expect(states[1]?.awaitingApproval).toEqual([
      { toolCallId: "call_r", toolName: "reverse", args: { text: "abc" } },
    ]);
    expect(events.find(({ event }) => event.type === "TOOL_CALL_RESULT")?.event).toMatchObject({
      content: "cba",
    });
    expect(setup.agents.get("t2")?.state.messages.at(-1)).toMatchObject({
      role: "assistant",
      stopReason: "stop",
    });
  });

  it("denies a call by command and answers an approval for no waiting call with the CommandError, 409 not_waiting", async () => {
    const setup = scriptedAgents(() => [
      { toolCalls: [{ id: "call_d", name: "reverse", arguments: { text: "x" } }] },
      { text: "Understood." },
    ]);
    const { url } = await serve(setup);
    const refused = await postCommand(url, "t3", { type: "APPROVE_TOOL", toolCallId: "call_d" });
    expect(refused.status).toBe(404);
    const events = await readRun(await postRun(url, runInput("t3", "r1", "Reverse x")), (event) => {
      if (event.type === "CUSTOM")
        later(
          postCommand(url, "t3", { type: "APPROVE_TOOL", toolCallId: "nope" }).then(async (response) => {
            expect(response.status).toBe(409);
            expect(await response.json()).toEqual({
              error: {
                code: "not_waiting",
                message: 'APPROVE_TOOL: no tool call "nope" is awaiting approval',
                command: "APPROVE_TOOL",
                agentPath: [],
                toolCallId: "nope",
              },
            });
            await postCommand(url, "t3", { type: "DENY_TOOL", toolCallId: "call_d", reason: "Not today" });
          }),
        );
    });
    const result = events.find(({ event }) => event.type === "TOOL_CALL_RESULT")?.event;
    expect(result).toMatchObject({ metadata: { agentchart: { isError: true } } });
    expect((result as { content: string }).content).toContain("Not today");
  });

  it("aborts a run only on the abort command: RUN_FINISHED with outcome cancelled", async () => {
    const setup = scriptedAgents(() => [{ text: "This goes on and on", hang: true }]);
    const { url } = await serve(setup);
    let aborted = false;
    const events = await readRun(await postRun(url, runInput("t4", "r1", "Talk")), (event) => {
      if (event.type !== "TEXT_MESSAGE_CONTENT" || aborted) return;
      aborted = true;
      later(postCommand(url, "t4", { type: "abort" }));
    });
    expectValidAgUi(events.map(({ event }) => event));
    expect(events.at(-1)?.event).toEqual({
      type: "RUN_FINISHED",
      threadId: "t4",
      runId: "r1",
      outcome: { type: "cancelled" },
    });
  });

  it("keeps running when the client disconnects in the middle of the stream", async () => {
    const setup = scriptedAgents(() => [
      { text: "A long reply streamed in many small pieces.", deltas: 40, delayMs: 5 },
    ]);
    const { url, server } = await serve(setup);
    const socketClosed = new Promise<void>((resolve) =>
      server.once("connection", (socket) => socket.once("close", () => resolve())),
    );
    const cut = new AbortController();
    const response = await postRun(url, runInput("t5", "r1", "Talk"), { signal: cut.signal });
    await readRun(response, (event) => event.type === "TEXT_MESSAGE_CONTENT");
    cut.abort();
    await socketClosed;
    const agent = setup.agents.get("t5");
    expect(agent?.state.isStreaming).toBe(true);
    await agent?.waitForIdle();
    expect(agent?.state.messages.at(-1)).toMatchObject({
      role: "assistant",
      stopReason: "stop",
      content: [{ type: "text", text: "A long reply streamed in many small pieces." }],
    });
  });

  it("steers and queues a follow-up by command; the steering message reaches the client as a user message", async () => {
    const setup = scriptedAgents(() => [
      { toolCalls: [{ id: "call_s", name: "reverse", arguments: { text: "s" } }] },
      { text: "After steering." },
      { text: "After the follow-up." },
    ]);
    const { url } = await serve(setup);
    const states: SharedAgentState[] = [];
    const events = await readRun(await postRun(url, runInput("t6", "r1", "Go")), (event) => {
      if (event.type === "STATE_SNAPSHOT") states.push(event.snapshot as SharedAgentState);
      if (event.type === "CUSTOM")
        later(
          (async () => {
            await postCommand(url, "t6", { type: "STEER", message: { role: "user", content: "Be brief" } });
            await postCommand(url, "t6", {
              type: "FOLLOW_UP",
              message: { role: "user", content: "And then?" },
            });
            await postCommand(url, "t6", { type: "APPROVE_TOOL", toolCallId: "call_s" });
          })(),
        );
    });
    expectValidAgUi(events.map(({ event }) => event));
    expect(states.some((state) => state.queued.steering[0] === "Be brief")).toBe(true);
    expect(states.some((state) => state.queued.followUp[0] === "And then?")).toBe(true);
    const userTexts = events.flatMap(({ event }, index) =>
      event.type === "TEXT_MESSAGE_START" && event.role === "user"
        ? [(events[index + 1]?.event as { delta?: string } | undefined)?.delta]
        : [],
    );
    expect(userTexts).toEqual(["Be brief", "And then?"]);
    expect(events.at(-1)?.event.type).toBe("RUN_FINISHED");
  });

  it("refuses a second run on a busy thread with 409 thread_busy, and requests that are not runs with 400", async () => {
    const setup = scriptedAgents(() => [{ text: "Busy", hang: true }]);
    const { url } = await serve(setup);
    const first = await postRun(url, runInput("t7", "r1", "One"));
    const reader = readRun(first, (event) => event.type === "TEXT_MESSAGE_CONTENT");
    await reader;
    const second = await postRun(url, runInput("t7", "r2", "Two"));
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ error: { code: "thread_busy" } });
    const bad = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ threadId: "t7" }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "invalid_request" } });
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect((await postCommand(url, "t7", { type: "ABORT" })).status).toBe(200);
  });

  it("answers a command that is not one, is not taken here, or names no agent with the one CommandError", async () => {
    const setup = scriptedAgents(() => [
      { toolCalls: [{ id: "call_b", name: "reverse", arguments: { text: "ab" } }] },
      { text: "Done." },
    ]);
    const { url } = await serve(setup);
    const answers: { status: number; body: unknown }[] = [];
    const send = async (command: Record<string, unknown>) => {
      const response = await postCommand(url, "t8", command);
      answers.push({ status: response.status, body: await response.json() });
    };
    const events = await readRun(await postRun(url, runInput("t8", "r1", "Reverse ab")), (event) => {
      if (event.type === "CUSTOM" && event.name === "agentchart.tool_approval_request")
        later(
          (async () => {
            await send({ type: "APPROVE_TOOL" });
            await send({ type: "SET_MODEL", model: {} });
            await send({ type: "PROMPT", messages: [{ role: "user", content: "Again" }] });
            await send({ type: "DENY_TOOL", toolCallId: "call_b", agentPath: ["call_x", "call_y"] });
            await send({ type: "CONTINUE_ONCE" });
            await send({ type: "APPROVE_TOOL", toolCallId: "call_b" });
          })(),
        );
    });
    expect(events.at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    await Promise.all(inFlight.splice(0));
    expect(answers.map(({ status, body }) => [status, (body as { error?: object }).error ?? body])).toEqual([
      [400, expect.objectContaining({ code: "invalid_command", command: "APPROVE_TOOL", agentPath: [] })],
      [400, expect.objectContaining({ code: "invalid_command", command: "SET_MODEL" })],
      [409, expect.objectContaining({ code: "refused", command: "PROMPT" })],
      [
        409,
        {
          code: "no_agent",
          message: "DENY_TOOL: no sub-agent runs at call_x/call_y",
          command: "DENY_TOOL",
          agentPath: ["call_x", "call_y"],
        },
      ],
      [409, expect.objectContaining({ code: "not_waiting", command: "CONTINUE_ONCE", agentPath: [] })],
      [200, { ok: true, runId: "r1" }],
    ]);
    expect((answers[0]!.body as { error: { message: string } }).error.message).toContain("toolCallId");
  });

  it("serves harnesses too: the run, its approval and its messages land in the harness's session", async () => {
    const { harness, session } = await createHarness(
      [{ toolCalls: [{ id: "call_hs", name: "reverse", arguments: { text: "ab" } }] }, { text: "Done: ba." }],
      { tools: [reverseTool] },
    );
    const served = await serveOnLoopback(createAgUiHandler({ agentFor: async () => harness }));
    servers.push(served);
    const events = await readRun(await postRun(served.url, runInput("hs", "r1", "Reverse ab")), (event) => {
      if (event.type === "CUSTOM")
        // 0.2's spelling of APPROVE_TOOL, still read for one minor release.
        later(postCommand(served.url, "hs", { type: "approve", toolCallId: "call_hs" }));
    });
    expectValidAgUi(events.map(({ event }) => event));
    expect(events.at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    expect(sessionMessages(session).map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
  });
});
