import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { PersistedAgent } from "../../src/agent/agent-snapshot.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentEvent } from "../../src/types/events.js";
import { repoRoot, runTs } from "../support/cli-process.js";
import { deferred } from "../support/loop-harness.js";
import { expectValidTranscript } from "./composed-invariants.js";
import { fileCountedRuns } from "./composed-process.js";
import { pathOf, supportTree, textOf, toolResults } from "./support.js";

const scratch = mkdtempSync(join(tmpdir(), "agentchart-subagents-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const runsIn = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];

interface PersistedCall {
  value: unknown;
  context: { idempotencyKey: string };
  children: { agent?: { snapshot: PersistedLevel } };
}
interface PersistedLevel {
  children: Record<string, { snapshot: PersistedCall }>;
}

/** The persisted call actor at the end of `path` (tool call ids from the root down). */
function persistedCall(saved: PersistedAgent, path: string[]): PersistedCall {
  let level = saved.snapshot as unknown as PersistedLevel;
  for (const id of path.slice(0, -1)) level = level.children[id]!.snapshot.children.agent!.snapshot;
  return level.children[path.at(-1)!]!.snapshot;
}

describe("a nested approval across processes", () => {
  it("a child process persists while the grandchild waits; restored here and approved, the grandchild's tool runs once", async () => {
    const file = join(scratch, "refund-runs.txt");
    const child = await runTs("test/subagents/composed-process-child.ts", [file], { cwd: repoRoot });
    expect(child.code, child.stderr).toBe(0);
    const text = child.stdout.trim().split("\n").at(-1)!;
    const saved = JSON.parse(text) as PersistedAgent;
    // The bytes the other process wrote: the grandchild's call waits, nested under both agent tool calls.
    expect(persistedCall(saved, ["s1"]).value).toBe("delegating");
    expect(persistedCall(saved, ["s1", "b1"]).value).toBe("delegating");
    expect(persistedCall(saved, ["s1", "b1", "r1"])).toMatchObject({
      value: "awaitingApproval",
      context: { idempotencyKey: "root/s1/b1:r1" },
    });
    expect(runsIn(file)).toEqual([]);

    const { tools, rootScript } = supportTree(fileCountedRuns(file), true);
    const agent = Agent.restore(text, { streamFn: scriptedModel(rootScript.slice(1)), tools });
    const events: AgentEvent[] = [];
    const asked = deferred<AgentEvent>();
    agent.subscribe((event) => {
      events.push(event);
      if (event.type === "tool_approval_request") asked.resolve(event);
    });
    expect(await asked.promise).toMatchObject({ toolCallId: "r1", agentPath: ["s1", "b1"] });
    const [waiting] = agent.state.awaitingApproval;
    agent.approveToolCall(waiting!.toolCallId, { agentPath: waiting!.agentPath });
    await agent.waitForIdle();

    expect(runsIn(file)).toEqual(["root/s1/b1:r1"]);
    expect(events.filter((e) => e.type === "agent_resume").map(pathOf)).toEqual(["", "s1", "s1/b1"]);
    const ends = events.filter(
      (e): e is Extract<AgentEvent, { type: "agent_end" }> => e.type === "agent_end",
    );
    expect(ends.map(pathOf)).toEqual(["s1/b1", "s1", ""]);
    for (const end of ends) expectValidTranscript(end.messages, pathOf(end) || "root");
    expect(textOf(toolResults(ends[0]!.messages)[0]!)).toBe("refunded A-1");
    expect(textOf(toolResults(ends[1]!.messages)[0]!)).toBe("billing: refunded");
    const messages = agent.state.messages;
    expect(textOf(toolResults(messages)[0]!)).toBe("support: done");
    expect(messages.at(-1)).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "root: all done" }],
    });
    expect(Object.keys(agent.actor.getSnapshot().children)).toEqual([]);
  });
});
