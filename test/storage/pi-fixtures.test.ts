import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlSessionRepo } from "../../src/node.js";
import { parseSessionText } from "../../src/sessions.js";
import { fixturesDir, tempRoot, userMessage } from "../support/session-files.js";

const fixture = (name: string) => join(fixturesDir, "pi-sessions", name);

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-pi-"));
});
afterEach(() => remove());

describe("real pi v1 sessions", () => {
  it("migrates the 2.3 MB session with two compactions and builds its context", () => {
    const parsed = parseSessionText(readFileSync(fixture("before-compaction.jsonl"), "utf8"));
    expect(parsed.sourceVersion).toBe(1);
    expect(parsed.tree.size).toBe(1002);
    expect(parsed.header.parentSession).toContain("d97339c6");
    const entries = parsed.tree.getEntries();
    const compactions = entries.filter((entry) => entry.type === "compaction");
    expect(compactions).toHaveLength(2);
    // firstKeptEntryIndex 551 counts file lines with the header as 0: entry 550 ("can leave it").
    const kept = parsed.tree.getEntry((compactions[1] as { firstKeptEntryId: string }).firstKeptEntryId);
    expect(kept).toBe(entries[550]);
    const context = parsed.tree.buildContext();
    expect(context.messages).toHaveLength(446);
    expect(context.messages[0]).toMatchObject({ role: "compactionSummary", tokensBefore: 185014 });
    expect(context.messages[1]).toMatchObject({
      role: "user",
      content: [{ type: "text", text: "can leave it" }],
    });
    expect(context.messages.some((message) => message.role === ("bashExecution" as string))).toBe(true);
    expect(context.model).toEqual({ provider: "anthropic", modelId: "claude-opus-4-5" });
    expect(context.thinkingLevel).toBe("off");
  });

  it("migrates the 1 MB linear session: every entry gets an id and the previous entry as parent", () => {
    const parsed = parseSessionText(readFileSync(fixture("large-session.v1.jsonl"), "utf8"));
    const entries = parsed.tree.getEntries();
    expect(entries).toHaveLength(1018);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(1018);
    entries.forEach((entry, i) => {
      expect(entry.parentId).toBe(i === 0 ? null : entries[i - 1]!.id);
    });
    const context = parsed.tree.buildContext();
    expect(context.messages).toHaveLength(914);
    expect(context.messages[0]!.role).toBe("user");
    expect(context.model).toEqual({ provider: "anthropic", modelId: "claude-sonnet-4-5" });
    expect(context.thinkingLevel).toBe("off");
  });

  it("opens a v1 file as a writer by rewriting it atomically as v3, then appends", async () => {
    const dir = join(root, "--Users-badlogic-workspaces-pi-mono--");
    mkdirSync(dir);
    const id = "ffae836b-9420-4060-ac13-7745215f90ff";
    const path = join(dir, `2025-12-09T00-53-29-825Z_${id}.jsonl`);
    copyFileSync(fixture("before-compaction.jsonl"), path);
    const repo = new JsonlSessionRepo({ root });
    expect((await repo.list()).map((info) => info.id)).toEqual([id]);
    const session = await repo.open(id);
    const before = session.buildContext();
    await session.appendMessage(userMessage("continuing in agentchart"));
    await session.close();
    const lines = readFileSync(path, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: "session", version: 3, id });
    expect(lines.slice(1).every((line) => typeof line.id === "string" && "parentId" in line)).toBe(true);
    const reopened = await repo.open(id);
    expect(reopened.buildContext().messages).toEqual([
      ...before.messages,
      expect.objectContaining({ role: "user" }),
    ]);
    await reopened.close();
  });
});
