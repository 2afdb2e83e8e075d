import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonlSessionsContext, showSession, showSessionTree } from "../../src/cli/sessions-command.js";
import { terminalStyle } from "../../src/cli/terminal-style.js";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { harnessSupportTree } from "../support/harness-subagent-tree.js";
import { refundModel } from "../support/refund-tool.js";

const scratch = mkdtempSync(join(tmpdir(), "agentchart-sessions-subagents-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const root = join(scratch, "sessions");
const ids: Record<string, string> = {};

/** Runs `agentchart sessions <command>` on the folder and returns what it printed. */
async function sessions(command: "show" | "tree", id: string): Promise<string[]> {
  const lines: string[] = [];
  const context = jsonlSessionsContext(root, (line) => lines.push(line), terminalStyle({}));
  await (command === "show" ? showSession(context, id) : showSessionTree(context, id));
  return lines;
}

beforeAll(async () => {
  // A harness run of root → support (s1) → billing (b1) → refund, with a fork of the root beside it.
  const repo = new JsonlSessionRepo({ root });
  const session = await repo.create({ cwd: "/shop", id: "root-session" });
  const tree = harnessSupportTree(join(scratch, "effects.log"));
  const harness = new AgentHarness({
    session,
    sessionRepo: repo,
    model: refundModel,
    tools: tree.tools,
    streamFn: tree.harnessModel,
  });
  const asked = new Promise<void>((resolve) => {
    harness.events$.subscribe((event) => {
      if (event.type === "tool_approval_request") resolve();
    });
  });
  const done = harness.prompt("help");
  await asked;
  harness.approveToolCall("r1", { agentPath: ["s1", "b1"] });
  await done;
  await session.close();
  const fork = await repo.fork("root-session");
  await fork.close();
  for (const info of await repo.list()) {
    if (info.parentToolCallId === "s1") ids.support = info.id;
    if (info.parentToolCallId === "b1") ids.billing = info.id;
  }
});

describe("sub-agent sessions in `agentchart sessions`", () => {
  it("tree: the root's entries, then its sub-agents' sessions nested under the session that called them", async () => {
    const lines = await sessions("tree", "root-session");
    const heading = lines.indexOf("sub-agent sessions");
    expect(heading).toBeGreaterThan(0);
    expect(lines.slice(0, heading).join("\n")).toContain(`toolResult support ↳ session ${ids.support}`);
    expect(lines.slice(heading + 1)).toEqual([
      `↳ ${ids.support} call s1 · 4 messages "customer wants a refund"`,
      `    ↳ ${ids.billing} call b1 · 4 messages "refund A-1"`,
    ]);
  });

  it("tree of a child shows its own child; a leaf sub-agent has none", async () => {
    const lines = await sessions("tree", ids.support!);
    expect(lines.slice(lines.indexOf("sub-agent sessions") + 1)).toEqual([
      `↳ ${ids.billing} call b1 · 4 messages "refund A-1"`,
    ]);
    expect(await sessions("tree", ids.billing!)).not.toContain("sub-agent sessions");
  });

  it("show: a child's header names its parent and call; the agent tool result marks the linked child", async () => {
    const support = (await sessions("show", ids.support!)).join("\n");
    expect(support).toMatch(/sub-agent session of \S+root-session\.jsonl \(call s1\)/);
    expect(support).toContain(
      `── tool result billing (1 lines)\n  billing: refunded\n  ↳ sub-agent session ${ids.billing}`,
    );
    const rootShown = (await sessions("show", "root-session")).join("\n");
    expect(rootShown).toContain(`↳ sub-agent session ${ids.support}`);
    expect(rootShown).not.toContain("sub-agent session of");
  });
});
