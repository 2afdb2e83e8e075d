import { describe, expect, it } from "vitest";
import { isSessionError, type SessionEntry, SessionError } from "../../src/index.js";
import { Session } from "../../src/storage/session.js";
import { createSessionHeader } from "../../src/storage/session-header.js";
import { SessionTree } from "../../src/storage/session-tree.js";
import { userMessage } from "../support/session-files.js";

/** A session over an in-memory sink that keeps the lines written and can be told to fail. */
function openSession(options: { failWrites?: boolean } = {}) {
  const lines: string[] = [];
  const sink = {
    write(text: string) {
      if (options.failWrites) throw new Error("disk full");
      lines.push(...text.split("\n").filter(Boolean));
    },
    close() {},
  };
  const header = createSessionHeader({ id: "s1", cwd: "/p", metadata: { app: 1 } });
  const session = new Session({ header, tree: new SessionTree(), sink });
  const written = () => lines.map((line) => JSON.parse(line) as SessionEntry & Record<string, unknown>);
  return { session, written };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("Session", () => {
  it("reads its id, cwd and metadata from the header and starts with nothing recovered", () => {
    const { session } = openSession();
    expect([session.id, session.cwd, session.metadata, session.path]).toEqual([
      "s1",
      "/p",
      { app: 1 },
      undefined,
    ]);
    expect(session.recovered).toEqual([]);
    expect([session.status, session.error, session.leafId, session.name]).toEqual([
      "open",
      undefined,
      null,
      undefined,
    ]);
  });

  it("records the active tools as a copy of the list given", async () => {
    const { session, written } = openSession();
    const names = ["read", "bash"];
    const entry = await session.appendActiveToolsChange(names);
    names.push("edit");
    expect(entry.activeToolNames).toEqual(["read", "bash"]);
    expect(written()[0]).toMatchObject({ type: "active_tools_change", activeToolNames: ["read", "bash"] });
  });

  it("appends a branch summary with its details", async () => {
    const { session, written } = openSession();
    const entry = await session.appendBranchSummary({
      fromId: "root",
      summary: "tried X",
      details: { n: 1 },
    });
    expect(entry).toMatchObject({
      type: "branch_summary",
      fromId: "root",
      summary: "tried X",
      details: { n: 1 },
    });
    expect(written()).toEqual([entry]);
  });

  it("writes a custom entry's data only when given", async () => {
    const { session, written } = openSession();
    const returned = await session.appendCustom("bare");
    await session.appendCustom("full", { n: 1 });
    const [bare, full] = written();
    expect(bare).toMatchObject({ type: "custom", customType: "bare" });
    expect(Object.keys(bare!)).not.toContain("data");
    expect(Object.keys(returned)).not.toContain("data");
    expect(session.getEntry(returned.id)).toBe(returned);
    expect(full).toMatchObject({ type: "custom", customType: "full", data: { n: 1 } });
  });

  it("shows a custom message by default and writes its details only when given", async () => {
    const { session, written } = openSession();
    const returned = await session.appendCustomMessage({ customType: "a", content: "x" });
    expect(Object.keys(returned)).not.toContain("details");
    await session.appendCustomMessage({ customType: "b", content: "y", display: false, details: { n: 2 } });
    const [a, b] = written();
    expect(a).toMatchObject({ type: "custom_message", customType: "a", content: "x", display: true });
    expect(Object.keys(a!)).not.toContain("details");
    expect(b).toMatchObject({ display: false, details: { n: 2 } });
  });

  it("trims a label, and clears it with a blank one", async () => {
    const { session, written } = openSession();
    const target = await session.appendMessage(userMessage("hi"));
    await session.setLabel(target.id, "  keep  ");
    expect(session.getLabel(target.id)).toBe("keep");
    await session.setLabel(target.id, "   ");
    expect(session.getLabel(target.id)).toBeUndefined();
    const [, set, cleared] = written();
    expect(set).toMatchObject({ type: "label", targetId: target.id, label: "keep" });
    expect(Object.keys(cleared!)).not.toContain("label");
  });

  it("refuses a compaction that keeps an entry off the current branch, writing nothing", async () => {
    const { session, written } = openSession();
    const first = await session.appendMessage(userMessage("a"));
    await session.moveTo(null);
    await session.appendMessage(userMessage("b"));
    const error = await rejection(
      session.appendCompaction({ summary: "s", firstKeptEntryId: first.id, tokensBefore: 1 }),
    );
    expect(isSessionError(error, "invalid_entry")).toBe(true);
    expect((error as Error).message).toContain(`"${first.id}" is not on the current branch`);
    expect(written()).toHaveLength(2);
  });

  it("writes the summary of a branch left for the root as from 'root', with its details only when given", async () => {
    const { session, written } = openSession();
    const first = await session.appendMessage(userMessage("a"));
    const toRoot = await session.moveTo(null, { summary: "left it" });
    expect(toRoot).toMatchObject({
      type: "branch_summary",
      fromId: "root",
      summary: "left it",
      parentId: null,
    });
    expect(Object.keys(toRoot!)).not.toContain("details");
    const back = await session.moveTo(first.id, { summary: "again", details: { why: 1 } });
    expect(back).toMatchObject({ fromId: first.id, parentId: first.id, details: { why: 1 } });
    expect(await session.moveTo(first.id)).toBeUndefined();
    expect(written().map((entry) => entry.type)).toEqual(["message", "branch_summary", "branch_summary"]);
  });

  it("after a failed write, refuses appends with that write's error and leaves the tree as it was", async () => {
    const { session } = openSession({ failWrites: true });
    const first = await rejection(session.appendMessage(userMessage("a")));
    expect(session.status).toBe("failed");
    expect(session.error).toBe(first);
    expect((first as Error).message).toContain("disk full");
    const size = session.getEntries().length;
    const second = await rejection(session.appendMessage(userMessage("b")));
    expect(second).toBe(first);
    expect(await rejection(session.setLabel("x", "y"))).toBe(first);
    expect(await rejection(session.moveTo(null))).toBe(first);
    expect(session.getEntries()).toHaveLength(size);
  });

  it("after close, refuses appends as closed (even after a failure) and leaves the tree as it was", async () => {
    for (const failWrites of [false, true]) {
      const { session } = openSession({ failWrites });
      await session.appendMessage(userMessage("a")).catch(() => {});
      await session.close();
      const size = session.getEntries().length;
      const error = await rejection(session.appendMessage(userMessage("b")));
      expect(error).toBeInstanceOf(SessionError);
      expect(isSessionError(error, "storage")).toBe(true);
      expect((error as Error).message).toBe("The session is closed; open it again to append.");
      expect(
        await rejection(session.appendCompaction({ summary: "s", firstKeptEntryId: "x", tokensBefore: 1 })),
      ).toEqual(error);
      expect(session.getEntries()).toHaveLength(size);
      expect(session.status).toBe("closed");
    }
  });
});
