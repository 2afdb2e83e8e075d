import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpAgent } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { AgUiEvent, AgUiMessage, RunAgentInput } from "../../src/ag-ui/ag-ui-events.js";
import { createAgUiHandler } from "../../src/ag-ui/ag-ui-handler.js";
import type { SharedAgentState } from "../../src/ag-ui/shared-state.js";
import { Agent } from "../../src/agent/agent.js";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import {
  postCommand,
  postRun,
  readRun,
  runInput,
  scriptedAgents,
  serveOnLoopback,
} from "../support/ag-ui-server.js";
import { colourScript, lastResult, pickColour } from "../support/colour-tool.js";
import { roles, testModel, texts } from "../support/harness-support.js";

const scratch = mkdtempSync(join(tmpdir(), "agentchart-frontend-tools-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Parameters<typeof serveOnLoopback>[0]) {
  const served = await serveOnLoopback(handler);
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
const eventsOf = (events: { event: AgUiEvent }[]) => events.map(({ event }) => event);

/** The messages a client holds after a run: the last MESSAGES_SNAPSHOT plus what streamed after it. */
function snapshotMessages(events: { event: AgUiEvent }[]): AgUiMessage[] {
  const snapshot = eventsOf(events).findLast((event) => event.type === "MESSAGES_SNAPSHOT");
  return snapshot?.type === "MESSAGES_SNAPSHOT" ? snapshot.messages : [];
}

/** The next run of a conversation: the messages so far plus `added`, with the tools declared again. */
function nextInput(
  threadId: string,
  runId: string,
  messages: AgUiMessage[],
  added: AgUiMessage[],
): RunAgentInput {
  return { threadId, runId, messages: [...messages, ...added], tools: [pickColour], context: [] };
}

const answer = (content: string, id = "tool-answer"): AgUiMessage => ({
  id,
  role: "tool",
  toolCallId: "call_c",
  content,
});

describe("frontend tools (RunAgentInput.tools)", () => {
  it("parks the call, ends the run with pendingToolCallIds, and continues the agent's run with the tool message of the next run", async () => {
    const setup = scriptedAgents(colourScript);
    const { url } = await serve(setup.handler);
    const first = await readRun(
      await postRun(url, runInput("f1", "r1", "Pick a colour for me", { tools: [pickColour] })),
    );
    expectValidAgUi(eventsOf(first));
    expect(types(first)).toEqual(
      expect.arrayContaining(["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "CUSTOM"]),
    );
    expect(types(first)).not.toContain("TOOL_CALL_RESULT");
    expect(eventsOf(first).find((event) => event.type === "CUSTOM")).toEqual({
      type: "CUSTOM",
      name: "agentchart.tool_client_request",
      value: { toolCallId: "call_c", toolName: "pick_colour", args: { choices: ["teal", "plum"] } },
    });
    const lastState = eventsOf(first).findLast((event) => event.type === "STATE_SNAPSHOT")
      ?.snapshot as SharedAgentState;
    expect(lastState).toMatchObject({
      phase: "waiting",
      awaitingClient: [
        { toolCallId: "call_c", toolName: "pick_colour", args: { choices: ["teal", "plum"] } },
      ],
    });
    expect(first.at(-1)?.event).toEqual({
      type: "RUN_FINISHED",
      threadId: "f1",
      runId: "r1",
      outcome: { type: "success", pendingToolCallIds: ["call_c"] },
    });
    // The agent's run waits, the call parked in awaitingClient (no execute on the server).
    const agent = setup.agents.get("f1")!;
    expect(agent.state.isStreaming).toBe(true);
    expect(agent.state.awaitingClient.map((call) => call.toolCallId)).toEqual(["call_c"]);

    const messages = [
      { id: "u-r1", role: "user" as const, content: "Pick a colour for me" },
      ...snapshotMessages(first).slice(1),
    ];
    const second = await readRun(await postRun(url, nextInput("f1", "r2", messages, [answer("teal")])));
    expectValidAgUi(eventsOf(second));
    expect(types(second)[0]).toBe("RUN_STARTED");
    expect(eventsOf(second).find((event) => event.type === "TOOL_CALL_RESULT")).toMatchObject({
      toolCallId: "call_c",
      content: "teal",
      metadata: { agentchart: { isError: false } },
    });
    // The call was announced by the first run: the second one does not start it again.
    expect(types(second)).not.toContain("TOOL_CALL_START");
    const text = eventsOf(second)
      .flatMap((event) => (event.type === "TEXT_MESSAGE_CONTENT" ? [event.delta] : []))
      .join("");
    expect(text).toBe("You picked teal.");
    expect(second.at(-1)?.event).toEqual({
      type: "RUN_FINISHED",
      threadId: "f1",
      runId: "r2",
      outcome: { type: "success" },
    });
    await agent.waitForIdle();
    expect(roles(agent.state.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(texts(agent.state.messages).slice(2)).toEqual(["teal", "You picked teal."]);
    // Sent again (a reconnect of another request), the answer is not applied twice.
    const again = await postRun(url, nextInput("f1", "r3", messages, [answer("teal")]));
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: { code: "no_new_message" } });
  });

  it("validates the call's arguments against the declared JSON Schema: a bad call gets an error result and never parks", async () => {
    const setup = scriptedAgents(() => [
      { toolCalls: [{ id: "call_bad", name: "pick_colour", arguments: { choices: "teal" } }] },
      (context) => ({ text: `Oops: ${lastResult(context)?.split("\n")[0]}` }),
    ]);
    const { url } = await serve(setup.handler);
    const events = await readRun(await postRun(url, runInput("f2", "r1", "Pick", { tools: [pickColour] })));
    expectValidAgUi(eventsOf(events));
    const result = eventsOf(events).find((event) => event.type === "TOOL_CALL_RESULT");
    expect(result).toMatchObject({ toolCallId: "call_bad", metadata: { agentchart: { isError: true } } });
    expect((result as { content: string }).content).toContain("choices");
    expect(events.at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    expect(events.at(-1)?.event).not.toHaveProperty("outcome.pendingToolCallIds");
  });

  it("is answered through the official @ag-ui/client HttpAgent: it sees the pending call, adds the tool message and runs again", async () => {
    const setup = scriptedAgents(colourScript);
    const { url } = await serve(setup.handler);
    const client = new HttpAgent({ url, threadId: "f3" });
    client.addMessage({ id: "u1", role: "user", content: "Pick a colour for me" });
    const pending: string[][] = [];
    const seen: AgUiEvent[] = [];
    const subscriber = {
      onEvent: ({ event }: { event: unknown }) => {
        seen.push(event as AgUiEvent);
      },
      onRunFinishedEvent: (params: object) => {
        pending.push((params as { pendingToolCallIds?: string[] }).pendingToolCallIds ?? []);
      },
    };
    await client.runAgent({ runId: "run-1", tools: [pickColour] }, subscriber);
    expect(pending).toEqual([["call_c"]]);
    client.addMessage({ id: "t1", role: "tool", toolCallId: "call_c", content: "plum" });
    await client.runAgent({ runId: "run-2", tools: [pickColour] }, subscriber);
    expect(pending).toEqual([["call_c"], []]);
    expectValidAgUi(seen);
    const stripped = client.messages.map((message) => {
      const { id: _id, ...rest } = message as { id: string } & Record<string, unknown>;
      return rest;
    });
    expect(stripped).toEqual([
      { role: "user", content: "Pick a colour for me" },
      {
        role: "assistant",
        content: "Let me ask.",
        toolCalls: [
          {
            id: "call_c",
            type: "function",
            function: { name: "pick_colour", arguments: '{"choices":["teal","plum"]}' },
          },
        ],
      },
      expect.objectContaining({ role: "tool", toolCallId: "call_c", content: "plum" }),
      { role: "assistant", content: "You picked plum." },
    ]);
  });

  it("answers a resume entry for the waiting call as well", async () => {
    const setup = scriptedAgents(colourScript);
    const { url } = await serve(setup.handler);
    await readRun(await postRun(url, runInput("f4", "r1", "Pick", { tools: [pickColour] })));
    const events = await readRun(
      await postRun(url, {
        ...runInput("f4", "r2", "Pick", { tools: [pickColour] }),
        messages: [{ id: "u-r1", role: "user", content: "Pick" }],
        resume: [{ interruptId: "call_c", status: "resolved", payload: { content: "amber" } }],
      }),
    );
    expectValidAgUi(eventsOf(events));
    expect(eventsOf(events).find((event) => event.type === "TOOL_CALL_RESULT")).toMatchObject({
      content: "amber",
    });
    expect(events.at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
  });

  it("refuses bad input with a clear error: a malformed schema, a server tool's name, an answer for no waiting call, new text while a call waits", async () => {
    const setup = scriptedAgents(colourScript);
    const { url } = await serve(setup.handler);
    const malformed = await postRun(
      url,
      runInput("f5", "r0", "Pick", {
        tools: [{ name: "pick_colour", description: "x", parameters: { type: "string" } }],
      }),
    );
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({
      error: {
        code: "invalid_request",
        message: expect.stringMatching(/RunAgentInput\.tools\[0\].*pick_colour.*object schema/),
      },
    });
    const unparsable = await postRun(
      url,
      runInput("f5", "r0", "Pick", {
        tools: [{ name: "pick_colour", description: "x", parameters: { type: "object", properties: 7 } }],
      }),
    );
    expect(unparsable.status).toBe(400);
    expect(await unparsable.json()).toMatchObject({ error: { code: "invalid_request" } });
    for (const [tools, message] of [
      [[pickColour, pickColour], 'RunAgentInput.tools[1]: tool "pick_colour" is declared twice'],
      [
        [{ name: "pick colour", description: "x" }],
        'RunAgentInput.tools[0]: Invalid tool name "pick colour"',
      ],
      [[{ name: "pick_colour" }], "RunAgentInput.tools[0] needs a name and a description (strings)"],
      ["pick_colour", "RunAgentInput.tools must be an array"],
    ] as const) {
      const refused = await postRun(url, runInput("f5", "r0", "Pick", { tools: tools as never }));
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(message);
    }
    const clash = await postRun(
      url,
      runInput("f5", "r0", "Pick", { tools: [{ name: "upper", description: "Mine", parameters: {} }] }),
    );
    expect(clash.status).toBe(400);
    expect(((await clash.json()) as { error: { message: string } }).error.message).toContain(
      '"upper", a tool of the server',
    );
    const early = await postRun(url, nextInput("f5", "r0", [], [answer("teal")]));
    expect(early.status).toBe(409);
    expect(await early.json()).toEqual({
      error: {
        code: "not_waiting",
        message: 'ANSWER_TOOL: no tool call "call_c" is awaiting the client',
        command: "ANSWER_TOOL",
        agentPath: [],
        toolCallId: "call_c",
      },
    });

    const first = await readRun(await postRun(url, runInput("f5", "r1", "Pick", { tools: [pickColour] })));
    expect(first.at(-1)?.event).toMatchObject({ outcome: { pendingToolCallIds: ["call_c"] } });
    const stray = await postRun(
      url,
      nextInput("f5", "r2", [], [{ id: "x", role: "tool", toolCallId: "call_nope", content: "?" }]),
    );
    expect(stray.status).toBe(409);
    expect(await stray.json()).toMatchObject({
      error: { code: "not_waiting", command: "ANSWER_TOOL", toolCallId: "call_nope" },
    });
    const ignored = await postRun(
      url,
      nextInput("f5", "r2", [], [{ id: "u2", role: "user", content: "Never mind" }]),
    );
    expect(ignored.status).toBe(409);
    expect(await ignored.json()).toEqual({
      error: {
        code: "awaiting_client",
        message:
          'Thread f5 waits for the client\'s answer to "call_c": send tool messages (toolCallId, content) answering every waiting call with a new message, or before it',
      },
    });
    // Still waiting, still answerable.
    const answered = await readRun(await postRun(url, nextInput("f5", "r3", [], [answer("teal")])));
    expect(answered.at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", runId: "r3" });
    expect(texts(setup.agents.get("f5")!.state.messages).at(-1)).toBe("You picked teal.");
  });

  it("delivers new text sent with the answer right after the result", async () => {
    const setup = scriptedAgents(() => [
      colourScript()[0]!,
      (context) => ({ text: `Noted ${lastResult(context)}; ${texts(context.messages).at(-1)}` }),
    ]);
    const { url } = await serve(setup.handler);
    await readRun(await postRun(url, runInput("f6", "r1", "Pick", { tools: [pickColour] })));
    const events = await readRun(
      await postRun(
        url,
        nextInput("f6", "r2", [], [answer("teal"), { id: "u2", role: "user", content: "and make it bold" }]),
      ),
    );
    expectValidAgUi(eventsOf(events));
    // The user message is echoed in its place (after the result) under the server's id.
    expect(eventsOf(events).find((event) => event.type === "TEXT_MESSAGE_START")).toEqual({
      type: "TEXT_MESSAGE_START",
      messageId: "m3",
      role: "user",
    });
    expect(eventsOf(events).find((event) => event.type === "TEXT_MESSAGE_CONTENT")).toMatchObject({
      messageId: "m3",
      delta: "and make it bold",
    });
    expect(roles(setup.agents.get("f6")!.state.messages)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "user",
      "assistant",
    ]);
    expect(texts(setup.agents.get("f6")!.state.messages).at(-1)).toBe("Noted teal; and make it bold");
  });

  it("an abort command stops the agent's run that waits for the client", async () => {
    const setup = scriptedAgents(colourScript);
    const { url } = await serve(setup.handler);
    await readRun(await postRun(url, runInput("f7", "r1", "Pick", { tools: [pickColour] })));
    const agent = setup.agents.get("f7")!;
    expect(agent.state.isStreaming).toBe(true);
    expect((await postCommand(url, "f7", { type: "ABORT" })).status).toBe(200);
    await agent.waitForIdle();
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.awaitingClient).toEqual([]);
  });

  it("an answer that arrives while the restored call is still in its preflight waits for the call to ask", async () => {
    const root = join(scratch, "preflight");
    const session = await new JsonlSessionRepo({ root }).create({ cwd: "/work" });
    const firstHarness = new AgentHarness({
      session,
      model: testModel,
      streamFn: scriptedModel(colourScript()),
    });
    const first = await serve(createAgUiHandler({ agentFor: () => firstHarness }));
    const before = await readRun(
      await postRun(first.url, runInput("f9", "r1", "Pick", { tools: [pickColour] })),
    );
    expect(before.at(-1)?.event).toMatchObject({ outcome: { pendingToolCallIds: ["call_c"] } });
    const saved = firstHarness.persist();
    await session.flush();
    await session.close();
    await servers.shift()!.close();

    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hookCalls: string[] = [];
    let restored: AgentHarness | undefined;
    const second = await serve(
      createAgUiHandler({
        agentFor: async (_threadId, { clientTools }) => {
          const reopened = await new JsonlSessionRepo({ root }).open(session.id);
          restored = AgentHarness.restore(saved, {
            session: reopened,
            model: testModel,
            streamFn: scriptedModel([colourScript()[1]!]),
            tools: clientTools,
          }).harness;
          // The restored call goes through its preflight again: this hook holds it there.
          restored.on("tool_call", async (event) => {
            hookCalls.push(event.toolCallId);
            await gate;
            return undefined;
          });
          return restored;
        },
      }),
    );
    const answering = postRun(second.url, nextInput("f9", "r2", snapshotMessages(before), [answer("teal")]));
    await expect.poll(() => hookCalls).toEqual(["call_c"]);
    expect(restored!.agent.state.awaitingClient).toEqual([]);
    release();
    const events = await readRun(await answering);
    expect(eventsOf(events).find((event) => event.type === "TOOL_CALL_RESULT")).toMatchObject({
      content: "teal",
    });
    expect(events.at(-1)?.event).toMatchObject({
      type: "RUN_FINISHED",
      runId: "r2",
      outcome: { type: "success" },
    });
    expect(texts(restored!.messages).at(-1)).toBe("You picked teal.");
    await restored!.waitForIdle();
    await restored!.session.close();
  });

  for (const kind of ["harness", "agent"] as const) {
    it(`a server restored from the ${kind} persisted mid-wait still takes the answer (JSONL session, a new handler)`, async () => {
      const root = join(scratch, kind);
      const repo = new JsonlSessionRepo({ root });
      const session = await repo.create({ cwd: "/work" });
      let firstHarness: AgentHarness | undefined;
      let firstAgent: Agent | undefined;
      const firstServer = await serve(
        kind === "harness"
          ? createAgUiHandler({
              agentFor: () => {
                firstHarness = new AgentHarness({
                  session,
                  model: testModel,
                  streamFn: scriptedModel(colourScript()),
                });
                return firstHarness;
              },
            })
          : createAgUiHandler({
              agentFor: () => {
                firstAgent = new Agent({ model: testModel, streamFn: scriptedModel(colourScript()) });
                return firstAgent;
              },
            }),
      );
      const first = await readRun(
        await postRun(firstServer.url, runInput("f8", "r1", "Pick a colour for me", { tools: [pickColour] })),
      );
      expect(first.at(-1)?.event).toMatchObject({ outcome: { pendingToolCallIds: ["call_c"] } });
      const saved = JSON.stringify(firstHarness ? firstHarness.persist() : firstAgent!.persist());
      await session.flush();
      await session.close();
      await servers.shift()!.close(); // the first process is gone; its agent is never answered

      // Only the rest of the script: the restored run asks the model once more.
      const rest = scriptedModel([colourScript()[1]!]);
      let restored: AgentHarness | Agent | undefined;
      const secondServer = await serve(
        kind === "harness"
          ? createAgUiHandler({
              agentFor: async (_threadId, { clientTools }) => {
                const reopened = await new JsonlSessionRepo({ root }).open(session.id);
                restored = AgentHarness.restore(saved, {
                  session: reopened,
                  model: testModel,
                  streamFn: rest,
                  tools: clientTools,
                }).harness;
                return restored;
              },
            })
          : createAgUiHandler({
              agentFor: (_threadId, { clientTools }) => {
                restored = Agent.restore(saved, { streamFn: rest, tools: clientTools });
                return restored;
              },
            }),
      );
      const messages = [
        { id: "u-r1", role: "user" as const, content: "Pick a colour for me" },
        ...snapshotMessages(first).slice(1),
      ];
      const second = await readRun(
        await postRun(secondServer.url, nextInput("f8", "r2", messages, [answer("plum")])),
      );
      expectValidAgUi(eventsOf(second));
      expect(eventsOf(second).find((event) => event.type === "TOOL_CALL_RESULT")).toMatchObject({
        toolCallId: "call_c",
        content: "plum",
      });
      expect(second.at(-1)?.event).toMatchObject({
        type: "RUN_FINISHED",
        runId: "r2",
        outcome: { type: "success" },
      });
      const transcript = restored instanceof AgentHarness ? restored.messages : restored!.state.messages;
      expect(roles(transcript)).toEqual(["user", "assistant", "toolResult", "assistant"]);
      expect(texts(transcript).at(-1)).toBe("You picked plum.");
      expect(rest.remaining()).toBe(0);
      if (restored instanceof AgentHarness) {
        await restored.waitForIdle();
        await restored.session.close();
        // What the session file holds, read back by another repo.
        const reread = await new JsonlSessionRepo({ root }).open(session.id);
        expect(texts(reread.buildContext().messages)).toEqual([
          "Pick a colour for me",
          "Let me ask.[toolCall]",
          "plum",
          "You picked plum.",
        ]);
        await reread.close();
      }
    });
  }
});
