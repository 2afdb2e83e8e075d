import { describe, expect, it } from "vitest";
import { EventRenderer } from "../../src/cli/event-renderer.js";
import { createAgentRunner } from "../../src/cli/runner.js";
import { terminalStyle } from "../../src/cli/terminal-style.js";
import { type AgentEvent, MemorySessionRepo, type Model } from "../../src/index.js";
import { lsTool } from "../../src/node.js";
import { scriptedModel } from "../../src/testing.js";

const model: Model = { id: "m1", api: "scripted", provider: "local", contextWindow: 8_000, maxTokens: 1_000 };
const roles = (messages: readonly unknown[]) => messages.map((message) => (message as { role: string }).role);

describe("createAgentRunner (Agent + Session)", () => {
  it("persists every message of a run and records the model at the start", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create();
    const runner = createAgentRunner({
      model,
      streamFn: scriptedModel([{ text: "hi there" }]),
      session,
      repo,
    });
    const reply = await runner.prompt("hello");
    expect(reply?.stopReason).toBe("stop");
    expect(session.getEntries().map((entry) => entry.type)).toEqual(["model_change", "message", "message"]);
    expect(roles(session.buildContext().messages)).toEqual(["user", "assistant"]);
    expect(session.buildContext().model).toEqual({ provider: "local", modelId: "m1" });
    await runner.close();
  });

  it("continues a stored session: the model receives the earlier messages", async () => {
    const repo = new MemorySessionRepo();
    const first = await repo.create({ id: "s1" });
    const firstRunner = createAgentRunner({
      model,
      streamFn: scriptedModel([{ text: "one" }]),
      session: first,
      repo,
    });
    await firstRunner.prompt("first");
    await firstRunner.close();

    const streamFn = scriptedModel([{ text: "two" }]);
    const runner = createAgentRunner({ model, streamFn, session: await repo.open("s1"), repo });
    await runner.prompt("second");
    expect(roles(streamFn.calls[0]?.context.messages ?? [])).toEqual(["user", "assistant", "user"]);
    await runner.close();
  });

  it("records model and thinking-level changes, forks into a new session, and has no compaction yet", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ id: "s1" });
    const runner = createAgentRunner({ model, streamFn: scriptedModel([{ text: "a" }]), session, repo });
    await runner.prompt("q");
    await runner.setModel({ ...model, id: "m2" });
    await runner.setThinkingLevel("high");
    expect(session.buildContext()).toMatchObject({ model: { modelId: "m2" }, thinkingLevel: "high" });

    const userEntry = session.getEntries().find((entry) => entry.type === "message");
    const forked = await runner.fork(userEntry?.id);
    expect(forked.id).not.toBe("s1");
    expect(runner.session).toBe(forked);
    expect(roles(runner.messages)).toEqual(["user"]);
    expect(await runner.compact()).toEqual({
      compacted: false,
      reason: expect.stringContaining("AgentHarness"),
    });
    await runner.close();
  });

  it("abort ends the running turn with an aborted reply", async () => {
    const runner = createAgentRunner({ model, streamFn: scriptedModel([{ text: "never", hang: true }]) });
    const started = new Promise<void>((resolve) => {
      runner.events$.subscribe((event) => {
        if (event.type === "message_update") resolve();
      });
    });
    const reply = runner.prompt("wait");
    await started;
    expect(runner.isRunning).toBe(true);
    runner.abort();
    expect((await reply)?.stopReason).toBe("aborted");
    await runner.close();
  });
});

describe("EventRenderer", () => {
  const render = (events: AgentEvent[], isTTY: boolean) => {
    let out = "";
    const renderer = new EventRenderer({ write: (text: string) => (out += text), isTTY }, terminalStyle({}));
    for (const event of events) renderer.render(event);
    renderer.dispose();
    return out;
  };

  it("prints a tool line per call and a result summary, on a pipe and with a spinner on a terminal", async () => {
    const events: AgentEvent[] = [];
    const runner = createAgentRunner({
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
});
