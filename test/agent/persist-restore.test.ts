import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { AgentRestoreError } from "../../src/agent/agent-snapshot.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage, ToolResultMessage } from "../../src/types/messages.js";
import { processModel, processScript, processTools } from "../support/agent-process.js";
import { ProcessDriver, repoRoot, runTs, spawnTs } from "../support/cli-process.js";
import { deferred, echoTool, testModel } from "../support/loop-harness.js";
import { watchProcessFaults } from "../support/process-faults.js";

const processFaults = watchProcessFaults();
const scratch = mkdtempSync(join(tmpdir(), "agentchart-persist-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const roleOf = (message: AgentMessage) => (message as { role: string }).role;
const results = (messages: readonly AgentMessage[]) =>
  messages.filter((m): m is ToolResultMessage => roleOf(m) === "toolResult");
const resultText = (message: ToolResultMessage) =>
  message.content.map((block) => (block.type === "text" ? block.text : "")).join("");

/** Every tool call of the transcript has exactly one result, after it. */
function expectEveryCallAnswered(messages: readonly AgentMessage[]): void {
  const calls = messages.flatMap((m) =>
    roleOf(m) === "assistant"
      ? (m as { content: { type: string; id?: string }[] }).content.filter((b) => b.type === "toolCall")
      : [],
  );
  expect(
    results(messages)
      .map((r) => r.toolCallId)
      .sort(),
  ).toEqual(calls.map((c) => c.id).sort());
}

describe("persist and restore an idle agent", () => {
  it("keeps transcript, queues and their modes, model, thinking level, system prompt and tools", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "first" }]),
      systemPrompt: "be kind",
      thinkingLevel: "low",
      tools: [echoTool()],
      steeringMode: "all",
      followUpMode: "one-at-a-time",
    });
    await agent.prompt("hello");
    agent.steer("s");
    agent.followUp("f");
    const json = JSON.stringify(agent.persist());
    const restored = Agent.restore(JSON.parse(json), {
      streamFn: scriptedModel([{ text: "second" }, { text: "third" }]),
      tools: [echoTool()],
    });
    expect(restored.state).toMatchObject({
      systemPrompt: "be kind",
      thinkingLevel: "low",
      model: testModel,
      messages: JSON.parse(JSON.stringify(agent.state.messages)),
    });
    expect(restored.state.tools.map((t) => t.name)).toEqual(["echo"]);
    expect(restored.steeringMode).toBe("all");
    expect(restored.queued.steering.map((m) => (m as { content: string }).content)).toEqual(["s"]);
    expect(restored.queued.followUp.map((m) => (m as { content: string }).content)).toEqual(["f"]);
    expect(restored.actor.getSnapshot().value).toBe("idle");
    await restored.prompt("again");
    // The restored steering message joins the prompt's turn; the follow-up gets a turn of its own.
    expect(restored.state.messages.map(roleOf)).toEqual([
      "user",
      "assistant",
      "user",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  it("lets restore options override state values", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]), systemPrompt: "old" });
    const other = { ...testModel, id: "other" };
    const restored = Agent.restore(agent.persist(), {
      streamFn: scriptedModel([]),
      model: other,
      systemPrompt: "new",
    });
    expect(restored.state.model).toEqual(other);
    expect(restored.state.systemPrompt).toBe("new");
  });
});

describe("a snapshot that cannot be restored", () => {
  const agent = new Agent({ model: testModel, streamFn: scriptedModel([]), tools: [echoTool()] });
  const options = { streamFn: scriptedModel([]), tools: [echoTool()] };
  const cases: [string, () => unknown, AgentRestoreError["code"], RegExp][] = [
    ["text that is not JSON", () => "{not json", "parse", /not valid JSON/],
    ["another format", () => ({ format: "x", version: 1 }), "format", /Not a persisted agent/],
    ["an unknown version", () => ({ ...agent.persist(), version: 99 }), "version", /version 99/],
    [
      "a malformed context",
      () => {
        const persisted = agent.persist();
        return { ...persisted, snapshot: { ...persisted.snapshot, context: { model: testModel } } };
      },
      "invalid",
      /context\.messages/,
    ],
  ];
  it.each(cases)("gets a clear error for %s", (_name, make, code, message) => {
    const input = make();
    const error = catchError(() => Agent.restore(input as string, options));
    expect(error).toBeInstanceOf(AgentRestoreError);
    expect(error).toMatchObject({ code });
    expect((error as Error).message).toMatch(message);
  });

  it("names a tool that the options do not supply", () => {
    const error = catchError(() => Agent.restore(agent.persist(), { streamFn: scriptedModel([]) }));
    expect(error).toMatchObject({ code: "tool", message: expect.stringContaining('"echo"') });
  });
});

describe("restoring an agent persisted mid-run", () => {
  it("re-makes the model call of a reply that was streaming, without duplicating it", async () => {
    const first = scriptedModel([{ text: "partial", hang: true }]);
    const agent = new Agent({ model: testModel, streamFn: first });
    const streaming = new Promise<void>((resolve) =>
      agent.subscribe((event) => {
        if (event.type === "message_update") resolve();
      }),
    );
    void agent.prompt("go");
    await streaming;
    expect(agent.actor.getSnapshot().matches({ running: "streaming" })).toBe(true);
    const saved = JSON.stringify(agent.persist());
    agent.actor.stop();

    const second = scriptedModel([{ text: "complete answer" }]);
    const restored = Agent.restore(saved, { streamFn: second });
    const events: AgentEvent[] = [];
    restored.subscribe((event) => {
      events.push(event);
    });
    await restored.waitForIdle();
    expect(events[0]).toEqual({ type: "agent_resume", from: "streaming" });
    expect(events.at(-1)?.type).toBe("agent_end");
    expect(second.calls).toHaveLength(1);
    expect(second.calls[0]!.context.messages.map((m) => m.role)).toEqual(["user"]);
    const assistants = restored.state.messages.filter((m) => roleOf(m) === "assistant");
    expect(assistants).toHaveLength(1);
    expect(JSON.stringify(assistants[0])).toContain("complete answer");
  });

  it("waits for approval across a restore; approve or deny finishes the run", async () => {
    for (const decision of ["approve", "deny"] as const) {
      const agent = new Agent({
        model: processModel,
        streamFn: processScript(),
        tools: processTools({ approval: true, onRun: () => undefined }),
      });
      const waiting = new Promise<void>((resolve) =>
        agent.subscribe((event) => {
          if (event.type === "tool_approval_request") resolve();
        }),
      );
      void agent.prompt("Pay and look up.");
      await waiting;
      const saved = JSON.stringify(agent.persist());
      agent.actor.stop();
      const ran: string[] = [];
      const restored = Agent.restore(saved, {
        streamFn: processScript(1),
        tools: processTools({ approval: true, onRun: (tool) => ran.push(tool) }),
      });
      await Promise.resolve();
      expect(restored.actor.getSnapshot().children.pay?.getSnapshot()).toMatchObject({
        value: "awaitingApproval",
      });
      if (decision === "approve") restored.approveToolCall("pay");
      else restored.denyToolCall("pay", "no money");
      await restored.waitForIdle();
      expect(ran.includes("charge")).toBe(decision === "approve");
      const pay = results(restored.state.messages).find((r) => r.toolCallId === "pay")!;
      expect(resultText(pay)).toBe(decision === "approve" ? "charged 5" : "Tool call denied: no money");
      expectEveryCallAnswered(restored.state.messages);
    }
  });

  it("re-runs a replay-safe tool with the same idempotency key and interrupts the others", async () => {
    const gate = deferred();
    const bothRunning = deferred();
    const keys: string[] = [];
    const onRun = (tool: string, key: string) => {
      keys.push(`${tool} ${key}`);
      if (keys.length === 2) bothRunning.resolve();
    };
    const agent = new Agent({
      model: processModel,
      streamFn: processScript(),
      agentId: "a-1",
      tools: processTools({ approval: false, onRun, gate: () => gate.promise }),
    });
    void agent.prompt("go");
    await bothRunning.promise;
    const saved = JSON.stringify(agent.persist());
    agent.actor.stop();
    const rerun: string[] = [];
    const restored = Agent.restore(saved, {
      streamFn: processScript(1),
      tools: processTools({ approval: false, onRun: (tool, key) => rerun.push(`${tool} ${key}`) }),
    });
    await restored.waitForIdle();
    expect(keys.sort()).toEqual(["charge a-1:pay", "lookup a-1:find"]);
    expect(rerun).toEqual(["lookup a-1:find"]);
    const byId = Object.fromEntries(
      results(restored.state.messages).map((r) => [r.toolCallId, resultText(r)]),
    );
    expect(byId.find).toBe("value of k");
    expect(byId.pay).toMatch(/interrupted.*not re-run/);
    expectEveryCallAnswered(restored.state.messages);
  });
});

describe("across processes", () => {
  it("a child process persists while a tool waits for approval; this process approves and finishes", async () => {
    const child = await runTs("test/support/agent-process-child.ts", ["approval"], { cwd: repoRoot });
    expect(child.code).toBe(0);
    const saved = child.stdout.trim().split("\n").at(-1)!;
    const ran: string[] = [];
    const agent = Agent.restore(saved, {
      streamFn: processScript(1),
      tools: processTools({ approval: true, onRun: (tool) => ran.push(tool) }),
    });
    await Promise.resolve();
    agent.approveToolCall("pay");
    await agent.waitForIdle();
    expect(ran).toContain("charge");
    expect(resultText(results(agent.state.messages).find((r) => r.toolCallId === "pay")!)).toBe("charged 5");
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    expectEveryCallAnswered(agent.state.messages);
  });

  it("a process killed while its tools execute is resumed from its last snapshot", async () => {
    const file = join(scratch, "agent.json");
    const driver = new ProcessDriver(
      spawnTs("test/support/agent-process-child.ts", ["crash", file], { cwd: repoRoot }),
    );
    await driver.waitFor("SAVED-EXECUTING");
    driver.child.kill("SIGKILL");
    await driver.exited;
    const ran: string[] = [];
    const agent = Agent.restore(readFileSync(file, "utf8"), {
      streamFn: processScript(1),
      tools: processTools({ approval: false, onRun: (tool, key) => ran.push(`${tool} ${key}`) }),
    });
    await agent.waitForIdle();
    expect(ran).toEqual(["lookup agent-under-test:find"]);
    const byId = Object.fromEntries(results(agent.state.messages).map((r) => [r.toolCallId, resultText(r)]));
    expect(byId.pay).toMatch(/interrupted.*not re-run/);
    expect(byId.find).toBe("value of k");
    expect(agent.state.messages.map(roleOf)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "assistant",
    ]);
    expectEveryCallAnswered(agent.state.messages);
  });
});

it("saw no unhandled rejection or uncaught exception in this file", () => {
  expect(processFaults).toEqual([]);
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
