import { describe, expect, it } from "vitest";
import { isSessionError, type SessionEntry } from "../../src/index.js";
import { normalizeSessionName, SessionTree } from "../../src/storage/session-tree.js";

const entry = (id: string, parentId: string | null, fields: Record<string, unknown> = {}) =>
  ({ type: "custom", customType: "x", id, parentId, timestamp: "t", ...fields }) as unknown as SessionEntry;
const ids = (entries: readonly SessionEntry[]) => entries.map((each) => each.id);
const codeOf = (action: () => unknown): string | undefined => {
  try {
    action();
    return undefined;
  } catch (error) {
    return isSessionError(error) ? error.code : "not a SessionError";
  }
};

/** r → a → b, r → c; c → d. Append order r, a, b, c, d; leaf d. */
function sample(): SessionTree {
  return SessionTree.fromEntries([
    entry("r", null),
    entry("a", "r"),
    entry("b", "a"),
    entry("c", "r"),
    entry("d", "c"),
  ]);
}

describe("normalizeSessionName", () => {
  it.each<[string | undefined, string | undefined]>([
    ["plain", "plain"],
    ["  padded  ", "padded"],
    ["two\nlines", "two lines"],
    ["a \r\n\n  b", "a b"],
    ["\n\n", undefined],
    ["   ", undefined],
    ["", undefined],
    [undefined, undefined],
  ])("turns %j into %j", (name, expected) => {
    expect(normalizeSessionName(name)).toBe(expected);
  });
});

describe("SessionTree", () => {
  it("starts empty, with no leaf and no name", () => {
    const tree = new SessionTree();
    expect([tree.size, tree.leafId, tree.name, tree.getEntries(), tree.getTree()]).toEqual([
      0,
      null,
      undefined,
      [],
      [],
    ]);
    expect(tree.getBranch()).toEqual([]);
    expect(tree.getChildren(null)).toEqual([]);
  });

  it("makes each inserted entry the leaf and counts it", () => {
    const tree = sample();
    expect(tree.leafId).toBe("d");
    expect(tree.size).toBe(5);
    expect(tree.has("c")).toBe(true);
    expect(tree.has("z")).toBe(false);
    expect(ids(tree.getEntries())).toEqual(["r", "a", "b", "c", "d"]);
  });

  it("refuses a duplicate id and an unknown parent with invalid_entry, keeping the tree as it was", () => {
    const tree = sample();
    expect(codeOf(() => tree.insert(entry("a", "r")))).toBe("invalid_entry");
    expect(() => tree.insert(entry("a", "r"))).toThrow('Duplicate entry id "a".');
    expect(codeOf(() => tree.insert(entry("e", "nope")))).toBe("invalid_entry");
    expect(() => tree.insert(entry("e", "nope"))).toThrow(/"e" refers to parent "nope"/);
    expect(tree.size).toBe(5);
    expect(tree.leafId).toBe("d");
  });

  it("hands out copies of its entry list", () => {
    const tree = sample();
    tree.getEntries().pop();
    expect(tree.size).toBe(5);
    expect(tree.getEntries()).toHaveLength(5);
  });

  it("walks the branch from the root to a leaf", () => {
    const tree = sample();
    expect(ids(tree.getBranch())).toEqual(["r", "c", "d"]);
    expect(ids(tree.getBranch("b"))).toEqual(["r", "a", "b"]);
    expect(tree.getBranch(null)).toEqual([]);
    expect(codeOf(() => tree.getBranch("missing"))).toBe("not_found");
  });

  it("lists children in append order, and keeps that index current after the first question", () => {
    const tree = sample();
    expect(ids(tree.getChildren(null))).toEqual(["r"]);
    expect(ids(tree.getChildren("r"))).toEqual(["a", "c"]);
    expect(ids(tree.getChildren("b"))).toEqual([]);
    tree.insert(entry("e", "r"));
    tree.insert(entry("f", "b"));
    tree.insert(entry("g", "b"));
    tree.insert(entry("h", null));
    expect(ids(tree.getChildren("r"))).toEqual(["a", "c", "e"]);
    expect(ids(tree.getChildren("b"))).toEqual(["f", "g"]);
    expect(ids(tree.getChildren(null))).toEqual(["r", "h"]);
  });

  it("hands out copies of a child list", () => {
    const tree = sample();
    tree.getChildren("r").pop();
    tree.getChildren("a").pop();
    expect(ids(tree.getChildren("r"))).toEqual(["a", "c"]);
    expect(ids(tree.getChildren("a"))).toEqual(["b"]);
  });

  it("builds the nested tree with each entry's label", () => {
    const tree = sample();
    tree.insert(entry("l", "d", { type: "label", targetId: "a", label: " first " }));
    tree.insert(entry("s", null));
    const shape = (nodes: ReturnType<SessionTree["getTree"]>): unknown[] =>
      nodes.map((node) => [node.entry.id, node.label, shape(node.children)]);
    expect(shape(tree.getTree())).toEqual([
      [
        "r",
        undefined,
        [
          ["a", "first", [["b", undefined, []]]],
          ["c", undefined, [["d", undefined, [["l", undefined, []]]]]],
        ],
      ],
      ["s", undefined, []],
    ]);
    expect(Object.keys(tree.getTree()[0]!)).toEqual(["entry", "children"]);
  });

  it("keeps the latest label of a target, trimmed, and clears it with a blank or missing label", () => {
    const tree = sample();
    tree.insert(entry("l1", "d", { type: "label", targetId: "a", label: "  one " }));
    expect(tree.getLabel("a")).toBe("one");
    tree.insert(entry("l2", "l1", { type: "label", targetId: "a", label: "two" }));
    expect(tree.getLabel("a")).toBe("two");
    tree.insert(entry("l3", "l2", { type: "label", targetId: "a", label: "   " }));
    expect(tree.getLabel("a")).toBeUndefined();
    tree.insert(entry("l4", "l3", { type: "label", targetId: "b", label: "b" }));
    tree.insert(entry("l5", "l4", { type: "label", targetId: "b" }));
    expect(tree.getLabel("b")).toBeUndefined();
  });

  it("takes its name from the latest session_info entry, normalized", () => {
    const tree = sample();
    tree.insert(entry("n1", "d", { type: "session_info", name: "first\nname" }));
    expect(tree.name).toBe("first name");
    tree.insert(entry("n2", "n1", { type: "session_info" }));
    expect(tree.name).toBeUndefined();
  });

  it("completes a draft with a fresh id, the leaf as parent and the time, type first", () => {
    const tree = sample();
    const appended = tree.append({ type: "custom", customType: "app" });
    expect(Object.keys(appended)).toEqual(["type", "id", "parentId", "timestamp", "customType"]);
    expect(appended.parentId).toBe("d");
    expect(appended.id).toMatch(/^[0-9a-f]{8}$/);
    expect(Number.isNaN(Date.parse(appended.timestamp))).toBe(false);
    expect(tree.leafId).toBe(appended.id);
    expect(tree.getEntry(appended.id)).toBe(appended);
    const sibling = tree.append({ type: "custom", customType: "app" }, "a");
    expect(sibling.parentId).toBe("a");
    expect(tree.append({ type: "custom", customType: "root" }, null).parentId).toBeNull();
  });

  it("moves the leaf to an entry or before the first root, refusing a missing entry", () => {
    const tree = sample();
    tree.moveTo("a");
    expect(tree.leafId).toBe("a");
    expect(tree.append({ type: "custom", customType: "x" }).parentId).toBe("a");
    tree.moveTo(null);
    expect(tree.leafId).toBeNull();
    expect(tree.append({ type: "custom", customType: "x" }).parentId).toBeNull();
    expect(codeOf(() => tree.moveTo("missing"))).toBe("not_found");
  });

  it("builds the context of the current branch or of a given leaf", () => {
    const tree = SessionTree.fromEntries([
      entry("u1", null, { type: "message", message: { role: "user", content: "one", timestamp: 1 } }),
      entry("u2", "u1", { type: "message", message: { role: "user", content: "two", timestamp: 1 } }),
      entry("u3", "u1", { type: "message", message: { role: "user", content: "three", timestamp: 1 } }),
    ]);
    const contents = (leaf?: string | null) =>
      tree.buildContext(leaf).messages.map((m) => (m as { content: string }).content);
    expect(contents()).toEqual(["one", "three"]);
    expect(contents("u2")).toEqual(["one", "two"]);
    expect(contents(null)).toEqual([]);
  });

  it("names a missing entry in require's not_found error", () => {
    expect(() => sample().require("zz")).toThrow('Entry "zz" does not exist');
    expect(sample().require("a").id).toBe("a");
  });
});
