import { describe, expect, it } from "vitest";
import { CliHarness } from "../../src/cli/cli-harness.js";
import { EventRenderer } from "../../src/cli/event-renderer.js";
import { offlineModel } from "../../src/cli/offline-model.js";
import { terminalStyle } from "../../src/cli/terminal-style.js";
import { type AgentHarness, type HarnessEvent, MemorySessionRepo, type Model } from "../../src/index.js";
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

describe("CliHarness (the AgentHarness the CLI drives, on its session)", () => {
  it("persists every message of a run and records the model at the start", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create();
    const cli = await CliHarness.open({
      model,
      streamFn: scriptedModel([{ text: "hi there" }]),
      session,
      repo,
    });
    const { reply } = await cli.current.prompt("hello");
    expect(reply.stopReason).toBe("stop");
    expect(session.getEntries().map((entry) => entry.type)).toEqual(["model_change", "message", "message"]);
    expect(roles(session.buildContext().messages)).toEqual(["user", "assistant"]);
    expect(session.buildContext().model).toEqual({ provider: "local", modelId: "m1" });
    await cli.close();
  });

  it("continues a stored session: the model receives the earlier messages, nothing is re-recorded", async () => {
    const repo = new MemorySessionRepo();
    const first = await repo.create({ id: "s1" });
    const firstCli = await CliHarness.open({
      model,
      streamFn: scriptedModel([{ text: "one" }]),
      thinkingLevel: "low",
      session: first,
      repo,
    });
    await firstCli.current.prompt("first");
    await firstCli.close();

    const streamFn = scriptedModel([{ text: "two" }]);
    const reopened = await repo.open("s1");
    const entriesBefore = reopened.getEntries().length;
    const cli = await CliHarness.open({ model, streamFn, session: reopened, repo });
    expect(cli.current.state.thinkingLevel).toBe("low");
    expect(reopened.getEntries()).toHaveLength(entriesBefore);
    await cli.current.prompt("second");
    expect(roles(streamFn.calls[0]?.context.messages ?? [])).toEqual(["user", "assistant", "user"]);
    await cli.close();
  });

  it("forks into a new session with the model and thinking level sent before, and attaches the new harness", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ id: "s1" });
    const attached: AgentHarness[] = [];
    const detached: AgentHarness[] = [];
    const cli = await CliHarness.open({
      model,
      streamFn: scriptedModel([{ text: "a" }]),
      session,
      repo,
      attach: (harness) => {
        attached.push(harness);
        return () => detached.push(harness);
      },
    });
    const first = cli.current;
    await first.prompt("q");
    first.send({ type: "SET_MODEL", model: { ...model, id: "m2" } });
    first.send({ type: "SET_THINKING_LEVEL", thinkingLevel: "high" });
    await session.flush();
    expect(session.buildContext()).toMatchObject({ model: { modelId: "m2" }, thinkingLevel: "high" });

    const userEntry = session.getEntries().find((entry) => entry.type === "message");
    const forked = await cli.fork(userEntry?.id);
    expect(forked).toBe(cli.current);
    expect(forked.session.id).not.toBe("s1");
    expect(cli.session).toBe(forked.session);
    expect(roles(forked.state.messages)).toEqual(["user"]);
    expect(forked.state.model.id).toBe("m2");
    expect(forked.state.thinkingLevel).toBe("high");
    expect(attached).toEqual([first, forked]);
    expect(detached).toEqual([first]);
    await cli.close();
    await cli.close();
    expect(detached).toEqual([first, forked]);
  });

  it("without a stored session: nothing to fork, but the conversation runs (in memory)", async () => {
    const cli = await CliHarness.open({ model, streamFn: scriptedModel([{ text: "hi" }]) });
    expect(cli.session).toBeUndefined();
    expect((await cli.current.prompt("hello")).reply.stopReason).toBe("stop");
    await expect(cli.fork()).rejects.toThrow("no session to fork");
    await cli.close();
  });

  it("close aborts the running turn: the prompt resolves with an aborted reply", async () => {
    const cli = await CliHarness.open({
      model,
      streamFn: scriptedModel([{ text: "never", hang: true }]),
    });
    const harness = cli.current;
    const started = new Promise<void>((resolve) => {
      harness.events$.subscribe((event) => {
        if (event.type === "message_update") resolve();
      });
    });
    const result = harness.prompt("wait");
    await started;
    expect(harness.isRunning).toBe(true);
    await cli.close();
    expect((await result).reply.stopReason).toBe("aborted");
    expect(harness.isRunning).toBe(false);
  });
});

describe("offline model", () => {
  it("answers a summary request with a structured summary of what it received", async () => {
    const cli = await CliHarness.open({
      model,
      streamFn: offlineModel(),
      tools: [lsTool],
      toolContext: { cwd: process.cwd() },
      compaction: { keepRecentTokens: 1 },
    });
    const harness = cli.current;
    await harness.prompt("where am I?");
    await harness.prompt("run nothing");
    const outcome = await harness.compact("keep the paths");
    if (!outcome.compacted) throw new Error("nothing was compacted");
    expect(outcome.summary).toMatch(/^## Goal\n- where am I\?\n/);
    expect(outcome.summary).toContain("## Constraints & Preferences\n- keep the paths");
    expect(outcome.summary).toContain('- [x] ls(path=".")');
    // The latest turn was split: its beginning has its own summary.
    expect(outcome.summary).toContain("**Turn Context (split turn):**");
    expect(outcome.summary).toContain("- run nothing");

    const { reply } = await harness.prompt("and now?");
    const first = harness.state.messages[0] as { role: string };
    expect(first.role).toBe("compactionSummary");
    expect(textOf(reply)).toContain('The summary of earlier work lists: "where am I?", "run nothing".');
    await cli.close();
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
    const cli = await CliHarness.open({
      model,
      streamFn: scriptedModel([
        { thinking: "look first", toolCalls: [{ name: "ls", arguments: { path: "." } }] },
        { text: "done" },
      ]),
      tools: [lsTool],
      toolContext: { cwd: process.cwd() },
    });
    cli.current.events$.subscribe((event) => events.push(event));
    await cli.current.prompt("list");
    await cli.close();

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
