import { HttpAgent } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";
import { afterEach, describe, expect, it } from "vitest";
import type { AgUiEvent } from "../../src/ag-ui/ag-ui-events.js";
import type { ScriptedTurn } from "../../src/providers/scripted/scripted-model.js";
import { postCommand, postRun, readRun } from "../support/ag-ui-server.js";
import { childTurns, serveResearchTree } from "../support/subagent-server.js";

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
const serve = async (childScript: ScriptedTurn[]) => {
  const served = await serveResearchTree(childScript);
  servers.push(served);
  return served;
};

function expectValidAgUi(events: readonly AgUiEvent[]): void {
  for (const event of events) {
    const parsed = EventSchemas.safeParse(event);
    expect(parsed.success, `${event.type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
  }
}

const textOf = (events: readonly AgUiEvent[], subagentRunId: string | undefined) =>
  events
    .filter((event) => event.type === "TEXT_MESSAGE_CONTENT" && event.subagentRunId === subagentRunId)
    .map((event) => (event as { delta: string }).delta)
    .join("");

describe("sub-agents on the AG-UI endpoint, read by the official @ag-ui/client", () => {
  it("streams the child as an AG-UI subagent apart from the root's messages; its approval goes back with the path", async () => {
    const { url, refunds, agents } = await serve(childTurns);
    const client = new HttpAgent({ url, threadId: "t1" });
    const events: AgUiEvent[] = [];
    const commands: Promise<Response>[] = [];
    client.addMessage({ id: "u1", role: "user", content: "Refund A-1 please" });
    await client.runAgent(
      { runId: "run-1" },
      {
        onEvent: ({ event }) => {
          events.push(event as AgUiEvent);
        },
        onCustomEvent: ({ event }) => {
          if (event.name !== "agentchart.tool_approval_request") return;
          const { toolCallId, agentPath } = event.value as { toolCallId: string; agentPath: string[] };
          commands.push(postCommand(url, "t1", { type: "APPROVE_TOOL", toolCallId, agentPath }));
        },
      },
    );
    expect((await Promise.all(commands)).map((response) => response.status)).toEqual([200]);
    expectValidAgUi(events);
    expect(refunds).toEqual(["A-1"]);

    // The approval request names the sub-agent, as an event attributed to it and in the shared state.
    const request = events.find((event) => event.type === "CUSTOM");
    expect(request).toMatchObject({
      name: "agentchart.tool_approval_request",
      subagentRunId: "s1",
      value: { toolCallId: "r1", toolName: "refund", agentPath: ["s1"] },
    });
    const waiting = events.find(
      (event) =>
        event.type === "STATE_SNAPSHOT" &&
        (event.snapshot as { awaitingApproval: unknown[] }).awaitingApproval.length > 0,
    );
    expect(waiting).toMatchObject({
      snapshot: { phase: "waiting", awaitingApproval: [{ toolCallId: "r1", agentPath: ["s1"] }] },
    });

    // SUBAGENT_STARTED under the root's call, its events attributed, SUBAGENT_FINISHED before the result.
    const rootReply = events.find((event) => event.type === "TOOL_CALL_START" && event.toolCallId === "s1");
    const started = events.findIndex((event) => event.type === "SUBAGENT_STARTED");
    const finished = events.findIndex((event) => event.type === "SUBAGENT_FINISHED");
    const rootResult = events.findIndex(
      (event) => event.type === "TOOL_CALL_RESULT" && event.toolCallId === "s1",
    );
    expect(events[started]).toEqual({
      type: "SUBAGENT_STARTED",
      subagentRunId: "s1",
      name: "research",
      parentToolCallId: "s1",
      parentMessageId: (rootReply as { parentMessageId: string }).parentMessageId,
    });
    expect(events[finished]).toEqual({
      type: "SUBAGENT_FINISHED",
      subagentRunId: "s1",
      outcome: { type: "success" },
    });
    expect(started).toBeLessThan(finished);
    expect(finished).toBeLessThan(rootResult);
    const between = events.slice(started + 1, finished).filter((event) => event.type !== "STATE_SNAPSHOT");
    expect(between.length).toBeGreaterThan(0);
    expect(between.every((event) => event.subagentRunId === "s1")).toBe(true);
    expect(textOf(events, undefined)).toBe("Let me delegate.root: all done");
    expect(textOf(events, "s1")).toBe("Checking the order.research: refunded");

    // The client's root messages are the server's transcript; the child's are marked as the subagent's.
    const root = client.messages.filter((message) => !("subagentRunId" in message));
    expect(root.map((message) => [message.role, message.content ?? ""])).toEqual([
      ["user", "Refund A-1 please"],
      ["assistant", "Let me delegate."],
      ["tool", "research: refunded"],
      ["assistant", "root: all done"],
    ]);
    const child = client.messages.filter((message) => "subagentRunId" in message);
    expect(child.map((message) => [message.role, message.content ?? "", message.subagentRunId])).toEqual([
      ["assistant", "Checking the order.", "s1"],
      ["tool", "refunded A-1", "s1"],
      ["assistant", "research: refunded", "s1"],
    ]);

    // The next run sends every message back, the child's included: only the new user text is a prompt.
    client.addMessage({ id: "u2", role: "user", content: "Thanks" });
    await client.runAgent({ runId: "run-2" });
    expect(client.messages.at(-1)).toMatchObject({ role: "assistant", content: "You are welcome." });
    const userTexts = (agents.get("t1")?.state.messages ?? [])
      .filter((message) => message.role === "user")
      .map((message) => message.content);
    expect(userTexts).toEqual(["Refund A-1 please", "Thanks"]);
  });

  it("denies a sub-agent's call by a resume entry that names the call only", async () => {
    const { url, refunds, agents } = await serve(childTurns);
    const input = { threadId: "t2", runId: "run-1", tools: [], context: [] };
    const response = await postRun(url, { ...input, messages: [{ id: "u1", role: "user", content: "Go" }] });
    const seen: AgUiEvent[] = [];
    let denied: Promise<Response> | undefined;
    await readRun(response, (event) => {
      seen.push(event);
      if (event.type === "CUSTOM" && !denied)
        denied = postRun(url, {
          ...input,
          messages: [],
          resume: [
            { interruptId: "r1", status: "resolved", payload: { approved: false, reason: "not today" } },
          ],
        });
    });
    expect((await denied)?.status).toBe(200);
    expectValidAgUi(seen);
    expect(refunds).toEqual([]);
    const childResult = seen.find((event) => event.type === "TOOL_CALL_RESULT" && event.toolCallId === "r1");
    expect(childResult).toMatchObject({ subagentRunId: "s1", content: expect.stringContaining("not today") });
    expect(seen.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    expect(agents.get("t2")?.state.messages.at(-1)).toMatchObject({ role: "assistant" });
  });

  it("ends an open subagent with SUBAGENT_ERROR before RUN_FINISHED when the run is aborted mid-stream", async () => {
    const { url } = await serve([{ text: "Thinking very hard", hang: true }]);
    const client = new HttpAgent({ url, threadId: "t3" });
    const events: AgUiEvent[] = [];
    let aborted: Promise<Response> | undefined;
    client.addMessage({ id: "u1", role: "user", content: "Go" });
    await client.runAgent(
      { runId: "run-1" },
      {
        onEvent: ({ event }) => {
          events.push(event as AgUiEvent);
          const typed = event as AgUiEvent;
          if (typed.type === "TEXT_MESSAGE_CONTENT" && typed.subagentRunId === "s1" && !aborted)
            aborted = postCommand(url, "t3", { type: "ABORT" });
        },
      },
    );
    expect((await aborted)?.status).toBe(200);
    expectValidAgUi(events);
    // The aborted child ends its own run first (its agent_end → SUBAGENT_ERROR), then the root's call.
    const types = events.map((event) => event.type);
    expect(types.indexOf("SUBAGENT_ERROR")).toBeGreaterThan(-1);
    expect(types.indexOf("SUBAGENT_ERROR")).toBeLessThan(types.lastIndexOf("TOOL_CALL_RESULT"));
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");
    const error = events.find((event) => event.type === "SUBAGENT_ERROR");
    expect(error).toMatchObject({ subagentRunId: "s1", code: "aborted" });
    // Every subagent text message the client saw was closed before the run's end.
    const opened = events.filter(
      (event) => event.type === "TEXT_MESSAGE_START" && event.subagentRunId === "s1",
    );
    const closed = events.filter(
      (event) => event.type === "TEXT_MESSAGE_END" && event.subagentRunId === "s1",
    );
    expect(closed.length).toBe(opened.length);
  });
});
