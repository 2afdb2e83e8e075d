import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { INTERRUPTED_NOT_RERUN } from "../../src/harness/resume-run.js";
import { TOOL_CALL_JOURNAL_TYPE } from "../../src/harness/tool-journal.js";
import { type AgentTool, defineTool, emptyUsage, type Session } from "../../src/index.js";
import { JsonlSessionRepo } from "../../src/node.js";
import { createHarness, texts } from "../support/harness-support.js";
import { tempRoot, userMessage } from "../support/session-files.js";

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-journal-"));
});
afterEach(() => remove());

/** A tool whose side effect goes into `sink` (with the idempotency key it was given). */
function sideEffectTool(name: string, sink: { key: unknown; text: string }[], replay?: "safe") {
  const tool = defineTool({
    name,
    description: "Writes its text somewhere",
    parameters: z.object({ text: z.string() }),
    execute: async ({ text }, ctx) => {
      sink.push({ key: (ctx as { idempotencyKey?: unknown }).idempotencyKey, text });
      return { content: [{ type: "text", text: `wrote ${text}` }] };
    },
  });
  return (replay ? { ...tool, replay } : tool) as AgentTool;
}

const journalOf = (session: Session) =>
  session
    .getEntries()
    .filter((entry) => entry.type === "custom" && entry.customType === TOOL_CALL_JOURNAL_TYPE)
    .map((entry) => (entry as { data: unknown }).data);

/** What a process killed during a tool call leaves: the user prompt, the reply with its calls, journal entries. */
async function interruptedSession(
  journaled: { id: string; name: string; replay: "safe" | "never"; stage?: "executing" }[],
) {
  const repo = new JsonlSessionRepo({ root });
  const session = await repo.create({ cwd: "/w", id: "crashed" });
  await session.appendMessage(userMessage("do it"));
  await session.appendMessage({
    role: "assistant",
    content: [
      { type: "toolCall", id: "call-1", name: "once", arguments: { text: "a" } },
      { type: "toolCall", id: "call-2", name: "again", arguments: { text: "b" } },
      { type: "toolCall", id: "call-3", name: "once", arguments: { text: "c" } },
    ],
    api: "scripted",
    provider: "p",
    model: "m",
    usage: emptyUsage(),
    stopReason: "toolUse",
    timestamp: 2,
  });
  for (const call of journaled) {
    await session.appendCustom(TOOL_CALL_JOURNAL_TYPE, {
      toolCallId: call.id,
      toolName: call.name,
      replay: call.replay,
      idempotencyKey: `crashed:${call.id}`,
      ...(call.stage ? { stage: call.stage } : {}),
    });
  }
  await session.close(); // the file is all that is left
  return { repo, reopen: () => repo.open("crashed") };
}

describe("the tool-call journal", () => {
  it("stores a journal entry naming the call and its replay policy before the tool runs", async () => {
    const session = await new JsonlSessionRepo({ root }).create({ cwd: "/w" });
    const fileAtExecution: string[] = [];
    const tool = defineTool({
      name: "probe",
      description: "Reads the session file while it runs",
      parameters: z.object({}),
      execute: async () => {
        fileAtExecution.push(readFileSync(session.path!, "utf8"));
        return { content: [{ type: "text", text: "ok" }] };
      },
    });
    const sink: { key: unknown; text: string }[] = [];
    const { harness } = await createHarness(
      [
        {
          toolCalls: [
            { id: "c1", name: "probe", arguments: {} },
            { id: "c2", name: "safe", arguments: { text: "x" } },
          ],
        },
        { text: "done" },
      ],
      { session, tools: [tool, sideEffectTool("safe", sink, "safe")], toolExecution: "sequential" },
    );
    await harness.prompt("go");
    const stored = fileAtExecution[0]!
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(stored.at(-1)).toMatchObject({
      type: "custom",
      customType: TOOL_CALL_JOURNAL_TYPE,
      data: { toolCallId: "c1", toolName: "probe", replay: "never" },
    });
    expect(journalOf(session)).toEqual([
      {
        toolCallId: "c1",
        toolName: "probe",
        replay: "never",
        idempotencyKey: `${session.id}:c1`,
        stage: "executing",
      },
      {
        toolCallId: "c2",
        toolName: "safe",
        replay: "safe",
        idempotencyKey: `${session.id}:c2`,
        stage: "executing",
      },
    ]);
    // pi readers skip custom entries: the model context is unchanged.
    expect(texts(session.buildContext().messages)).toEqual([
      "go",
      "[toolCall][toolCall]",
      "ok",
      "wrote x",
      "done",
    ]);
    await session.close();
  });

  it("journals nothing for a call the tool_call hook blocks", async () => {
    const sink: { key: unknown; text: string }[] = [];
    const { harness, session } = await createHarness(
      [{ toolCalls: [{ id: "c1", name: "write", arguments: { text: "x" } }] }, { text: "done" }],
      { tools: [sideEffectTool("write", sink)] },
    );
    harness.on("tool_call", () => ({ block: true, reason: "no" }));
    await harness.prompt("go");
    expect(journalOf(session)).toEqual([]);
    expect(sink).toEqual([]);
  });
});

describe("harness.resume()", () => {
  it("answers a started never-replay call with an error, replays a safe one with its key, runs unstarted ones, then asks the model", async () => {
    const { reopen } = await interruptedSession([
      { id: "call-1", name: "once", replay: "never" },
      { id: "call-2", name: "again", replay: "safe" },
    ]);
    const session = await reopen();
    const sink: { key: unknown; text: string }[] = [];
    const { harness, model } = await createHarness([{ text: "all done" }], {
      session,
      tools: [sideEffectTool("once", sink), sideEffectTool("again", sink, "safe")],
    });
    const reply = await harness.resume();
    expect(reply?.content).toEqual([{ type: "text", text: "all done" }]);
    expect(sink).toEqual([
      { key: "crashed:call-2", text: "b" },
      { key: "crashed:call-3", text: "c" },
    ]);
    const results = session
      .getBranch()
      .flatMap((entry) =>
        entry.type === "message" && entry.message.role === "toolResult" ? [entry.message] : [],
      );
    expect(results.map((result) => [result.toolCallId, result.isError, texts([result])[0]])).toEqual([
      ["call-1", true, INTERRUPTED_NOT_RERUN],
      ["call-2", false, "wrote b"],
      ["call-3", false, "wrote c"],
    ]);
    // Every execution is journaled right before the tool runs: call-2's replay and call-3's first run.
    expect(journalOf(session).map((data) => (data as { toolCallId: string }).toolCallId)).toEqual([
      "call-1",
      "call-2",
      "call-2",
      "call-3",
    ]);
    expect(model.calls).toHaveLength(1);
    expect(texts(model.calls[0]!.context.messages).slice(-3)).toEqual([
      INTERRUPTED_NOT_RERUN,
      "wrote b",
      "wrote c",
    ]);
    await session.close();
    // Reopened, the session has nothing left to resume.
    const again = await new JsonlSessionRepo({ root }).open("crashed");
    const second = await createHarness([], { session: again, tools: [] });
    expect(await second.harness.resume()).toBeUndefined();
    expect(second.model.calls).toHaveLength(0);
    await again.close();
  });

  it("asks again for approval calls journaled by 0.2.0 (before their approval) and applies the given decisions; a call journaled when it executed is interrupted", async () => {
    const { reopen } = await interruptedSession([
      { id: "call-1", name: "once", replay: "never" },
      { id: "call-2", name: "again", replay: "never" },
      { id: "call-3", name: "once", replay: "never", stage: "executing" },
    ]);
    const session = await reopen();
    const sink: { key: unknown; text: string }[] = [];
    const approval = (tool: AgentTool): AgentTool => ({ ...tool, requiresApproval: true });
    const { harness } = await createHarness([{ text: "decided" }], {
      session,
      tools: [approval(sideEffectTool("once", sink)), approval(sideEffectTool("again", sink))],
    });
    const asked: string[] = [];
    harness.events$.subscribe((event) => {
      if (event.type === "tool_approval_request") asked.push(event.toolCallId);
    });
    const reply = await harness.resume({
      approvals: { "call-1": { approved: true }, "call-2": { approved: false, reason: "no" } },
    });
    expect(reply?.content).toEqual([{ type: "text", text: "decided" }]);
    expect(asked).toEqual(["call-1", "call-2"]);
    // The approved call runs with the session's key; call-3 had started executing: interrupted.
    expect(sink).toEqual([{ key: "crashed:call-1", text: "a" }]);
    const results = session
      .getBranch()
      .flatMap((entry) =>
        entry.type === "message" && entry.message.role === "toolResult" ? [entry.message] : [],
      );
    expect(results.map((result) => [result.toolCallId, result.isError, texts([result])[0]])).toEqual([
      ["call-1", false, "wrote a"],
      ["call-2", true, "Tool call denied: no"],
      ["call-3", true, INTERRUPTED_NOT_RERUN],
    ]);
    await session.close();
  });

  it("asks the model after a user or tool-result tail and does nothing after a final reply", async () => {
    const { harness, model, session } = await createHarness([{ text: "answer" }]);
    expect(await harness.resume()).toBeUndefined();
    await session.appendMessage(userMessage("question left unanswered"));
    const reply = await harness.resume();
    expect(reply?.content).toEqual([{ type: "text", text: "answer" }]);
    expect(texts(model.calls[0]!.context.messages)).toEqual(["question left unanswered"]);
    expect(await harness.resume()).toBeUndefined();
    expect(model.calls).toHaveLength(1);
  });

  it("gives unknown tools and invalid arguments an error result instead of running anything", async () => {
    const { reopen } = await interruptedSession([]);
    const session = await reopen();
    const sink: { key: unknown; text: string }[] = [];
    const { harness } = await createHarness([{ text: "ok" }], {
      session,
      tools: [sideEffectTool("once", sink)],
    });
    await harness.resume();
    const results = session
      .getBranch()
      .flatMap((entry) =>
        entry.type === "message" && entry.message.role === "toolResult" ? [entry.message] : [],
      );
    expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
      ["call-1", false],
      ["call-2", true],
      ["call-3", false],
    ]);
    expect(texts([results[1]!])[0]).toContain("Tool again not found");
    await session.close();
  });
});
