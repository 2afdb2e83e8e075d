/**
 * The persisted format is a contract: snapshots agentchart 0.2.0 wrote (version 1,
 * test/fixtures/persisted/0.2.0/) restore and finish on this code, and inconsistent snapshots are
 * refused with `AgentRestoreError("invalid")` naming what is wrong — never an agent that hangs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { AGENT_SNAPSHOT_VERSION, AgentRestoreError } from "../../src/agent/agent-snapshot.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentMessage, ToolResultMessage } from "../../src/types/messages.js";
import { repoRoot } from "../support/cli-process.js";

const fixture = (name: string) =>
  JSON.parse(readFileSync(join(repoRoot, "test/fixtures/persisted/0.2.0", name), "utf8"));

/** The tools the 0.2.0 fixtures name; `ran` counts executions per tool. */
function fixtureTools(ran: Record<string, number>) {
  const counting = (name: string, replay?: "safe", requiresApproval?: boolean) =>
    defineTool({
      name,
      description: name,
      parameters: name === "refund" ? z.object({ order: z.string() }) : z.object({ text: z.string() }),
      ...(replay ? { replay } : {}),
      ...(requiresApproval ? { requiresApproval } : {}),
      execute: async () => {
        ran[name] = (ran[name] ?? 0) + 1;
        return { content: [{ type: "text", text: `${name} ran` }] };
      },
    });
  return [
    counting("echo"),
    counting("slow"),
    counting("slow_safe", "safe"),
    counting("refund", undefined, true),
  ];
}

const results = (messages: readonly AgentMessage[]) =>
  messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
const text = (m: ToolResultMessage) => m.content.map((c) => (c.type === "text" ? c.text : "")).join("");

function expectEveryCallAnsweredOnce(messages: readonly AgentMessage[]): void {
  const calls = messages.flatMap((m) =>
    m.role === "assistant" ? m.content.flatMap((c) => (c.type === "toolCall" ? [c.id] : [])) : [],
  );
  expect(
    results(messages)
      .map((r) => r.toolCallId)
      .sort(),
  ).toEqual([...calls].sort());
}

describe("snapshots written by agentchart 0.2.0 (format version 1)", () => {
  it("idle: restores transcript and queues, and runs the queued messages", async () => {
    const ran: Record<string, number> = {};
    const agent = Agent.restore(fixture("agent-idle.json"), {
      streamFn: scriptedModel([{ text: "for the steer" }, { text: "for the follow-up" }]),
      tools: fixtureTools(ran),
    });
    expect(agent.actor.getSnapshot().value).toBe("idle");
    expect(agent.queued.steering).toHaveLength(1);
    expect(agent.queued.followUp).toHaveLength(1);
    await agent.continue();
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    expectEveryCallAnsweredOnce(agent.state.messages);
    expect(agent.persist().version).toBe(AGENT_SNAPSHOT_VERSION);
  });

  it("streaming: re-makes the model call and never duplicates the partial reply", async () => {
    const agent = Agent.restore(fixture("agent-streaming.json"), {
      streamFn: scriptedModel([{ text: "Hello again." }]),
      tools: fixtureTools({}),
    });
    await agent.waitForIdle();
    const assistants = agent.state.messages.filter((m) => m.role === "assistant");
    expect(assistants).toHaveLength(1);
    expect(assistants[0]).toMatchObject({ stopReason: "stop" });
  });

  it("executingTools: a never-replay call is interrupted, a safe one runs again once, the run finishes", async () => {
    const ran: Record<string, number> = {};
    const agent = Agent.restore(fixture("agent-executing-tools.json"), {
      streamFn: scriptedModel([{ text: "Done." }]),
      tools: fixtureTools(ran),
    });
    await agent.waitForIdle();
    expect(ran).toEqual({ slow_safe: 1 });
    const byName = Object.fromEntries(results(agent.state.messages).map((r) => [r.toolName, text(r)]));
    expect(byName.echo).toBe("echo: a");
    expect(byName.slow).toMatch(/interrupted, not re-run/);
    expect(byName.slow_safe).toBe("slow_safe ran");
    expectEveryCallAnsweredOnce(agent.state.messages);
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
  });

  it("awaitingApproval: still waits, lists the call, and runs it exactly once when approved", async () => {
    const ran: Record<string, number> = {};
    const agent = Agent.restore(fixture("agent-awaiting-approval.json"), {
      streamFn: scriptedModel([{ text: "Refunded." }]),
      tools: fixtureTools(ran),
    });
    expect(agent.state.awaitingApproval).toEqual([
      { toolCallId: expect.any(String), toolName: "refund", args: { order: "A-17" } },
    ]);
    expect(ran).toEqual({});
    agent.approveToolCall(agent.state.awaitingApproval[0]!.toolCallId);
    await agent.waitForIdle();
    expect(ran).toEqual({ refund: 1 });
    expectEveryCallAnsweredOnce(agent.state.messages);
  });
});

describe("inconsistent snapshots", () => {
  const executing = () => fixture("agent-executing-tools.json");
  const cases: [string, () => unknown, RegExp][] = [
    [
      "a run state without its run",
      () => ({
        ...fixture("agent-streaming.json"),
        snapshot: {
          ...fixture("agent-streaming.json").snapshot,
          context: { ...fixture("agent-streaming.json").snapshot.context, run: undefined },
        },
      }),
      /has no run/,
    ],
    [
      "an executing call without its actor",
      () => {
        const saved = executing();
        const [first] = Object.keys(saved.snapshot.children);
        delete saved.snapshot.children[first!];
        return saved;
      },
      /actor is missing/,
    ],
    [
      "a child actor of no call",
      () => {
        const saved = executing();
        const [first] = Object.keys(saved.snapshot.children);
        saved.snapshot.children.stranger = saved.snapshot.children[first!];
        return saved;
      },
      /"stranger" belongs to no call/,
    ],
    [
      "an unknown sub-state",
      () => {
        const saved = fixture("agent-streaming.json");
        saved.snapshot.value = { preparingTurn: "dreaming" };
        return saved;
      },
      /value/,
    ],
    [
      "an unknown tool-call state",
      () => {
        const saved = executing();
        const [first] = Object.keys(saved.snapshot.children);
        saved.snapshot.children[first!].snapshot.value = "pondering";
        return saved;
      },
      /children\.call_\d+\.snapshot\.value/,
    ],
    [
      "a null message",
      () => {
        const saved = fixture("agent-idle.json");
        saved.snapshot.context.messages[1] = null;
        return saved;
      },
      /context\.messages\.1/,
    ],
    [
      "an assistant message without content",
      () => {
        const saved = fixture("agent-idle.json");
        saved.snapshot.context.messages[1] = { role: "assistant" };
        return saved;
      },
      /content array/,
    ],
  ];
  it.each(cases)("refuses %s with AgentRestoreError(invalid), building nothing", (_, make, pattern) => {
    let error: unknown;
    try {
      Agent.restore(make() as never, { streamFn: scriptedModel([]), tools: fixtureTools({}) });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AgentRestoreError);
    expect((error as AgentRestoreError).code).toBe("invalid");
    expect((error as Error).message).toMatch(pattern);
  });
});

describe("the harness 0.2.0 persisted mid-compaction", () => {
  it("restores over its JSONL session and compacts again with the same instructions", async () => {
    const { AgentHarness } = await import("../../src/harness/agent-harness.js");
    const { JsonlSessionRepo } = await import("../../src/storage/jsonl-session-repo.js");
    const { standInCompaction, summariserTurn } = await import("../support/harness-support.js");
    const { copyFileSync, mkdirSync, mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const saved = fixture("harness-compaction.json");
    const root = mkdtempSync(join(tmpdir(), "agentchart-compaction-fixture-"));
    try {
      const folder = join(root, "--work-project--");
      mkdirSync(folder, { recursive: true });
      copyFileSync(
        join(repoRoot, "test/fixtures/persisted/0.2.0/harness-compaction.session.jsonl"),
        join(folder, `2026-12-01T20-46-18-000Z_${saved.sessionId}.jsonl`),
      );
      const session = await new JsonlSessionRepo({ root }).open(saved.sessionId);
      const port = standInCompaction();
      const { harness, resumed } = AgentHarness.restore(saved, {
        session,
        model: {
          id: "scripted-1",
          api: "scripted",
          provider: "scripted",
          contextWindow: 100_000,
          maxTokens: 4_096,
        },
        streamFn: scriptedModel([summariserTurn("the numbers: 1, 2")]),
        compactionPort: port,
      });
      const result = (await resumed) as { compacted: boolean; summary?: string };
      expect(result).toMatchObject({ compacted: true, summary: "the numbers: 1, 2" });
      expect(port.calls).toContain("compact");
      expect(harness.phase).toBe("idle");
      expect(session.getEntries().some((entry) => entry.type === "compaction")).toBe(true);
      await session.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
