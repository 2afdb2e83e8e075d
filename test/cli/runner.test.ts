import { describe, expect, it } from "vitest";
import { EventRenderer } from "../../src/cli/event-renderer.js";
import { createHarnessRunner } from "../../src/cli/harness-runner.js";
import { offlineModel } from "../../src/cli/offline-model.js";
import { terminalStyle } from "../../src/cli/terminal-style.js";
import { type HarnessEvent, MemorySessionRepo, type Model } from "../../src/index.js";
import type { HarnessPhase } from "../../src/machines.js";
import { lsTool } from "../../src/node.js";
import { scriptedModel } from "../../src/testing.js";

const model: Model = {
  id: "m1",
  api: "scripted",
  provider: "local",
  contextWindow: 100_000,
  maxTokens: 1_000,
};
const roles = (messages: readonly unknown[]) => messages.map((message) => (message as { role: string }).role);
const textOf = (message: unknown) =>
  (message as { content: { type: string; text?: string }[] }).content
    .map((block) => block.text ?? "")
    .join("");

describe("createHarnessRunner (AgentHarness + Session)", () => {
  it("persists every message of a run and records the model at the start", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create();
    const runner = await createHarnessRunner({
      model,
      streamFn: scriptedModel([{ text: "hi there" }]),
      session,
      repo,
    });
    const reply = await runner.prompt("hello");
    expect(reply.stopReason).toBe("stop");
    expect(session.getEntries().map((entry) => entry.type)).toEqual(["model_change", "message", "message"]);
    expect(roles(session.buildContext().messages)).toEqual(["user", "assistant"]);
    expect(session.buildContext().model).toEqual({ provider: "local", modelId: "m1" });
    await runner.close();
  });

  it("continues a stored session: the model receives the earlier messages, nothing is re-recorded", async () => {
    const repo = new MemorySessionRepo();
    const first = await repo.create({ id: "s1" });
    const firstRunner = await createHarnessRunner({
      model,
      streamFn: scriptedModel([{ text: "one" }]),
      thinkingLevel: "low",
      session: first,
      repo,
    });
    await firstRunner.prompt("first");
    await firstRunner.close();

    const streamFn = scriptedModel([{ text: "two" }]);
    const reopened = await repo.open("s1");
    const entriesBefore = reopened.getEntries().length;
    const runner = await createHarnessRunner({ model, streamFn, session: reopened, repo });
    expect(runner.thinkingLevel).toBe("low");
    expect(reopened.getEntries()).toHaveLength(entriesBefore);
    await runner.prompt("second");
    expect(roles(streamFn.calls[0]?.context.messages ?? [])).toEqual(["user", "assistant", "user"]);
    await runner.close();
  });

  it("records model and thinking-level changes, navigates the tree and forks into a new session", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ id: "s1" });
    const runner = await createHarnessRunner({
      model,
      streamFn: scriptedModel([{ text: "a" }, { text: "b" }]),
      session,
      repo,
    });
    await runner.prompt("q");
    await runner.setModel({ ...model, id: "m2" });
    await runner.setThinkingLevel("high");
    expect(session.buildContext()).toMatchObject({ model: { modelId: "m2" }, thinkingLevel: "high" });

    const userEntry = session.getEntries().find((entry) => entry.type === "message");
    const moved = await runner.navigate(userEntry?.id as string);
    // Navigating to a user message moves to its parent and hands its text back.
    expect(moved).toEqual({ leafId: userEntry?.parentId, editorText: "q" });
    expect(runner.messages).toEqual([]);
    await runner.prompt("q again");
    expect(roles(runner.messages)).toEqual(["user", "assistant"]);

    const forked = await runner.fork(userEntry?.id);
    expect(forked.id).not.toBe("s1");
    expect(runner.session).toBe(forked);
    expect(roles(runner.messages)).toEqual(["user"]);
    expect(runner.model.id).toBe("m2");
    await runner.close();
  });

  it("compacts: nothing to compact is an outcome, not an error; the summary replaces the old messages", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create();
    // The cut keeps the latest reply: the earlier turn and the latest turn's beginning are summarised.
    const streamFn = scriptedModel([
      { text: "one" },
      { text: "two" },
      { text: "## Goal\n- first things" },
      { text: "## Original Request\nsecond" },
    ]);
    const runner = await createHarnessRunner({
      model,
      streamFn,
      session,
      repo,
      compaction: { keepRecentTokens: 1 },
    });
    expect(await runner.compact()).toEqual({ compacted: false, reason: "Nothing to compact" });
    await runner.prompt("first");
    await runner.prompt("second");
    const phases: HarnessPhase[] = [];
    const subscription = runner.phase$.subscribe((phase) => phases.push(phase));
    const outcome = await runner.compact("mind the names");
    subscription.unsubscribe();
    expect(outcome).toMatchObject({
      compacted: true,
      summary: expect.stringMatching(/^## Goal\n- first things\n[\s\S]*## Original Request\nsecond$/),
    });
    expect(phases).toEqual(["idle", "compaction", "idle"]);
    expect(textOf(streamFn.calls[2]?.context.messages[0])).toContain("Additional focus: mind the names");
    expect(session.getEntries().at(-1)?.type).toBe("compaction");
    expect(roles(runner.messages)).toEqual(["compactionSummary", "assistant"]);
    await runner.close();
  });

  it("without a stored session: nothing to fork, but the conversation runs (in memory)", async () => {
    const runner = await createHarnessRunner({ model, streamFn: scriptedModel([{ text: "hi" }]) });
    expect(runner.session).toBeUndefined();
    expect((await runner.prompt("hello")).stopReason).toBe("stop");
    await expect(runner.fork()).rejects.toThrow("no session to fork");
    await runner.close();
  });

  it("abort ends the running turn with an aborted reply", async () => {
    const runner = await createHarnessRunner({
      model,
      streamFn: scriptedModel([{ text: "never", hang: true }]),
    });
    const started = new Promise<void>((resolve) => {
      runner.events$.subscribe((event) => {
        if (event.type === "message_update") resolve();
      });
    });
    const reply = runner.prompt("wait");
    await started;
    expect(runner.isRunning).toBe(true);
    runner.abort();
    expect((await reply).stopReason).toBe("aborted");
    expect(runner.isRunning).toBe(false);
    await runner.close();
  });
});

describe("offline model", () => {
  it("answers a summary request with a structured summary of what it received", async () => {
    const runner = await createHarnessRunner({
      model,
      streamFn: offlineModel(),
      tools: [lsTool],
      toolContext: { cwd: process.cwd() },
      compaction: { keepRecentTokens: 1 },
    });
    await runner.prompt("where am I?");
    await runner.prompt("run nothing");
    const outcome = await runner.compact("keep the paths");
    if (!outcome.compacted) throw new Error(outcome.reason);
    expect(outcome.summary).toMatch(/^## Goal\n- where am I\?\n/);
    expect(outcome.summary).toContain("## Constraints & Preferences\n- keep the paths");
    expect(outcome.summary).toContain('- [x] ls(path=".")');
    // The latest turn was split: its beginning has its own summary.
    expect(outcome.summary).toContain("**Turn Context (split turn):**");
    expect(outcome.summary).toContain("- run nothing");

    const reply = await runner.prompt("and now?");
    const first = runner.messages[0] as { role: string };
    expect(first.role).toBe("compactionSummary");
    expect(textOf(reply)).toContain('The summary of earlier work lists: "where am I?", "run nothing".');
    await runner.close();
  });
});

describe("EventRenderer", () => {
  const render = (events: HarnessEvent[], isTTY: boolean, phases: HarnessPhase[] = []) => {
    let out = "";
    const renderer = new EventRenderer({ write: (text: string) => (out += text), isTTY }, terminalStyle({}));
    for (const phase of phases) renderer.renderPhase(phase);
    for (const event of events) renderer.render(event);
    renderer.dispose();
    return out;
  };

  it("prints a tool line per call and a result summary, on a pipe and with a spinner on a terminal", async () => {
    const events: HarnessEvent[] = [];
    const runner = await createHarnessRunner({
      model,
      streamFn: scriptedModel([
        { thinking: "look first", toolCalls: [{ name: "ls", arguments: { path: "." } }] },
        { text: "done" },
      ]),
      tools: [lsTool],
      toolContext: { cwd: process.cwd() },
    });
    runner.events$.subscribe((event) => events.push(event));
    await runner.prompt("list");
    await runner.close();

    const piped = render(events, false);
    expect(piped).toContain('look first\n⚙ ls {"path":"."}\n✓ ls {"path":"."} → ');
    expect(piped).toMatch(/→ \d+ lines\ndone\n$/);

    const terminal = render(events, true);
    expect(terminal).toContain('⠋ ls {"path":"."}');
    expect(terminal).toContain('\r\x1b[2K✓ ls {"path":"."} → ');
  });

  it("shows retries, automatic compactions, their failures and the compaction phase", () => {
    const compactionEntry = {
      type: "compaction" as const,
      id: "c1",
      parentId: null,
      timestamp: new Date(0).toISOString(),
      summary: "s",
      firstKeptEntryId: "e1",
      tokensBefore: 31_000,
    };
    const out = render(
      [
        { type: "retry", attempt: 1, maxRetries: 3, delayMs: 2000, errorMessage: "429 rate limited" },
        { type: "session_compact", compactionEntry, fromHook: false, reason: "threshold" },
        { type: "session_compact", compactionEntry, fromHook: false, reason: "manual" },
        { type: "compaction_failed", reason: "overflow", errorMessage: "Summarization failed: boom" },
      ],
      false,
      ["turn", "compaction", "idle"],
    );
    expect(out).toBe(
      [
        "compacting…",
        "retrying in 2 s (attempt 1/3): 429 rate limited",
        "compacted (the context is nearly full; 31000 tokens before)",
        "compaction failed: Summarization failed: boom",
        "",
      ].join("\n"),
    );
  });
});
