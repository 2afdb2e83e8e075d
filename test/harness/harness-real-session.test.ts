import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, assert, describe, expect, it } from "vitest";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { encodeCwd, sessionFileName } from "../../src/storage/jsonl-files.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import type { LlmContext } from "../../src/types/stream.js";

const fixture = path.resolve(import.meta.dirname, "../fixtures/pi-sessions/before-compaction.jsonl");
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A copy of the real 2.3 MB pi session in a fresh repo root, laid out as JsonlSessionRepo expects. */
function copyFixtureIntoRepo(): { root: string; id: string } {
  const header = JSON.parse(readFileSync(fixture, "utf8").split("\n", 1)[0]!) as {
    id: string;
    cwd: string;
    timestamp: string;
  };
  const root = mkdtempSync(path.join(os.tmpdir(), "agentchart-real-session-"));
  roots.push(root);
  const dir = path.join(root, encodeCwd(header.cwd));
  mkdirSync(dir, { recursive: true });
  copyFileSync(fixture, path.join(dir, sessionFileName(header.timestamp, header.id)));
  return { root, id: header.id };
}

/** The summariser proves what it was sent: the size of the conversation and whether the old summary came along. */
function summariser(context: LlmContext) {
  const request = context.messages
    .map((m) =>
      typeof m.content === "string" ? m.content : m.content.map((c) => ("text" in c ? c.text : "")).join(""),
    )
    .join("\n");
  return {
    text: `## Goal\nFinish the pi-mono work.\n## Progress\nRead ${request.length} characters; previous summary ${
      request.includes("<previous-summary>") ? "updated" : "absent"
    }.`,
  };
}

describe("compaction of a real pi session through the harness", () => {
  it("compacts the 2.3 MB pi session and the reopened file rebuilds the compacted context", async () => {
    const { root, id } = copyFixtureIntoRepo();
    const repo = new JsonlSessionRepo({ root });
    const session = await repo.open(id);
    const before = session.buildContext();
    const streamFn = scriptedModel([summariser, summariser]); // history, then the split turn's prefix
    const harness = new AgentHarness({
      session,
      streamFn,
      model: {
        id: "claude-opus-4-5",
        api: "scripted",
        provider: "anthropic",
        contextWindow: 200_000,
        maxTokens: 32_000,
      },
    });

    const result = await harness.compact();
    assert(result.compacted, "the long session compacts");

    expect(streamFn.calls).toHaveLength(2);
    expect(result.summary).toMatch(/previous summary updated/);
    expect(result.tokensBefore).toBeGreaterThan(100_000);
    const after = session.buildContext();
    expect(after.messages[0]).toMatchObject({ role: "compactionSummary", summary: result.summary });
    expect(after.messages.length).toBeLessThan(before.messages.length);
    expect(after.model).toEqual(before.model);
    expect(harness.messages).toEqual(after.messages);

    await session.close();
    const reopened = await new JsonlSessionRepo({ root }).open(id);
    expect(reopened.buildContext().messages).toEqual(after.messages);
    await reopened.close();
  });
});
