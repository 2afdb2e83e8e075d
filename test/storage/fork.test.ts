import { describe, expect, it } from "vitest";
import { isSessionError } from "../../src/index.js";
import type { SessionHeader } from "../../src/sessions.js";
import { forkHeader, selectForkEntries } from "../../src/storage/fork.js";
import { SessionTree } from "../../src/storage/session-tree.js";

/** a → b → c, and d a second child of a; the leaf is d. */
function sampleTree() {
  const tree = new SessionTree();
  const a = tree.append({ type: "custom", customType: "a" });
  const b = tree.append({ type: "custom", customType: "b" });
  const c = tree.append({ type: "custom", customType: "c" });
  const d = tree.append({ type: "custom", customType: "d" }, a.id);
  return { tree, a, b, c, d };
}
const ids = (entries: { id: string }[]) => entries.map((entry) => entry.id);

describe("selectForkEntries", () => {
  it("keeps the path to the leaf by default", () => {
    const { tree, a, d } = sampleTree();
    expect(ids(selectForkEntries(tree))).toEqual([a.id, d.id]);
  });

  it("keeps the path to a given entry, the entry included", () => {
    const { tree, a, b, c } = sampleTree();
    expect(ids(selectForkEntries(tree, { entryId: c.id }))).toEqual([a.id, b.id, c.id]);
    expect(ids(selectForkEntries(tree, { entryId: c.id, position: "at" }))).toEqual([a.id, b.id, c.id]);
  });

  it("keeps only the ancestors before the target", () => {
    const { tree, a, b, c, d } = sampleTree();
    expect(ids(selectForkEntries(tree, { entryId: c.id, position: "before" }))).toEqual([a.id, b.id]);
    expect(ids(selectForkEntries(tree, { position: "before" }))).toEqual([a.id]);
    expect(ids(selectForkEntries(tree, { entryId: d.id, position: "before" }))).toEqual([a.id]);
  });

  it("keeps nothing before a root", () => {
    const { tree, a } = sampleTree();
    expect(selectForkEntries(tree, { entryId: a.id, position: "before" })).toEqual([]);
  });

  it("keeps nothing from an empty tree or a leaf moved before the first root", () => {
    expect(selectForkEntries(new SessionTree())).toEqual([]);
    expect(selectForkEntries(new SessionTree(), { position: "before" })).toEqual([]);
    const { tree } = sampleTree();
    tree.moveTo(null);
    expect(selectForkEntries(tree)).toEqual([]);
  });

  it("refuses an entry the source lacks with invalid_fork_target, naming it", () => {
    const { tree } = sampleTree();
    let caught: unknown;
    try {
      selectForkEntries(tree, { entryId: "missing" });
    } catch (error) {
      caught = error;
    }
    expect(isSessionError(caught, "invalid_fork_target")).toBe(true);
    expect((caught as Error).message).toContain('"missing"');
  });
});

describe("forkHeader", () => {
  it("gives the fork a fresh id, the source's cwd and a copy of its metadata, and names the source", () => {
    const metadata = { app: { v: 1 } };
    const source: SessionHeader = {
      type: "session",
      version: 3,
      id: "src",
      timestamp: "t",
      cwd: "/p",
      metadata,
    };
    const header = forkHeader(source, "/root/src.jsonl");
    expect(header).toMatchObject({
      type: "session",
      version: 3,
      cwd: "/p",
      parentSession: "/root/src.jsonl",
    });
    expect(header.id).not.toBe("src");
    expect(header.metadata).toEqual(metadata);
    expect(header.metadata).not.toBe(metadata);
    expect(forkHeader(source, "x").id).not.toBe(header.id);
  });
});
