import { SessionError } from "../types/session-error.js";
import { buildSessionContext } from "./build-context.js";
import type { EntryDraft, SessionContext, SessionEntry, SessionTreeNode } from "./entries.js";
import { createEntryId } from "./ids.js";
import { isoNow } from "./timestamps.js";

/** Read-only queries over a session tree. */
export interface SessionTreeView {
  /** Current leaf: the entry new appends attach to (`null` = before the first root). */
  readonly leafId: string | null;
  /** Session name from the latest `session_info` entry. */
  readonly name: string | undefined;
  /** The entry with this id, or `undefined`. O(1). */
  getEntry(id: string): SessionEntry | undefined;
  /** All entries in append order. The array is a copy; the entries are shared and must not be mutated. */
  getEntries(): SessionEntry[];
  /** Entries from the root to `leafId` (default: the current leaf), inclusive. O(path). */
  getBranch(leafId?: string | null): SessionEntry[];
  /** Direct children of an entry (`null` = the roots), in append order. O(children) (the first call O(n)). */
  getChildren(id: string | null): SessionEntry[];
  /** The whole tree as nested nodes, roots first. O(n). */
  getTree(): SessionTreeNode[];
  /** The label of an entry, if any. O(1). */
  getLabel(id: string): string | undefined;
  /** The model context of the path root → `leafId` (default: the current leaf). O(path). */
  buildContext(leafId?: string | null): SessionContext;
}

/** Collapses newlines and trims; empty → undefined. */
export function normalizeSessionName(name: string | undefined): string | undefined {
  const cleaned = name?.replace(/\s*[\r\n]+\s*/g, " ").trim();
  return cleaned ? cleaned : undefined;
}

type ChildIndex = Map<string | null, SessionEntry | SessionEntry[]>;

function addChild(children: ChildIndex, entry: SessionEntry): void {
  const siblings = children.get(entry.parentId);
  if (siblings === undefined) children.set(entry.parentId, entry);
  else if (Array.isArray(siblings)) siblings.push(entry);
  else children.set(entry.parentId, [siblings, entry]);
}

/**
 * In-memory tree of session entries with O(1) indexes (id → entry, target → label, and parent →
 * children once first asked for). Knows nothing about persistence.
 */
export class SessionTree implements SessionTreeView {
  private readonly byId = new Map<string, SessionEntry>();
  private readonly ordered: SessionEntry[] = [];
  /**
   * Parent id → its child, or its children once it has several (most entries have one child). Built
   * on the first `getChildren` and kept up to date from then on: opening and appending do not pay for it.
   */
  private children: ChildIndex | undefined;
  private readonly labels = new Map<string, string>();
  private currentName: string | undefined;
  private leaf: string | null = null;

  /** Builds a tree from entries in file order; the leaf is the last entry. */
  static fromEntries(entries: readonly SessionEntry[]): SessionTree {
    const tree = new SessionTree();
    for (const entry of entries) tree.insert(entry);
    return tree;
  }

  get leafId(): string | null {
    return this.leaf;
  }

  get name(): string | undefined {
    return this.currentName;
  }

  get size(): number {
    return this.ordered.length;
  }

  /** True when an entry with this id exists (lets the tree serve as the id-collision set). */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /**
   * Adds a complete entry (from a file or a fork) and makes it the leaf.
   * Throws `invalid_entry` for a duplicate id or a parent that is not in the tree.
   */
  insert(entry: SessionEntry): void {
    if (this.byId.has(entry.id)) {
      throw new SessionError("invalid_entry", `Duplicate entry id "${entry.id}".`);
    }
    if (entry.parentId !== null && !this.byId.has(entry.parentId)) {
      throw new SessionError(
        "invalid_entry",
        `Entry "${entry.id}" refers to parent "${entry.parentId}", which is not in the session.`,
      );
    }
    this.byId.set(entry.id, entry);
    this.ordered.push(entry);
    if (this.children) addChild(this.children, entry);
    if (entry.type === "label") {
      const label = entry.label?.trim();
      if (label) this.labels.set(entry.targetId, label);
      else this.labels.delete(entry.targetId);
    } else if (entry.type === "session_info") {
      this.currentName = normalizeSessionName(entry.name);
    }
    this.leaf = entry.id;
  }

  /** Completes a draft with a fresh id, the leaf as parent (or `parentId` if given) and the time; inserts it. */
  append<TDraft extends EntryDraft>(
    draft: TDraft,
    parentId: string | null = this.leaf,
  ): TDraft & { id: string; parentId: string | null; timestamp: string } {
    // `type` first so files read like pi's; Object.assign keeps that key order.
    const head = {
      type: draft.type,
      id: createEntryId(this.byId),
      parentId,
      timestamp: isoNow(),
    };
    const entry = Object.assign(head, draft) as TDraft & {
      id: string;
      parentId: string | null;
      timestamp: string;
    };
    this.insert(entry as unknown as SessionEntry);
    return entry;
  }

  /** Moves the leaf; `not_found` if the entry does not exist. */
  moveTo(entryId: string | null): void {
    if (entryId !== null) this.require(entryId);
    this.leaf = entryId;
  }

  getEntry(id: string): SessionEntry | undefined {
    return this.byId.get(id);
  }

  getEntries(): SessionEntry[] {
    return this.ordered.slice();
  }

  getBranch(leafId: string | null = this.leaf): SessionEntry[] {
    const path: SessionEntry[] = [];
    let cursor = leafId === null ? undefined : this.require(leafId);
    while (cursor) {
      path.push(cursor);
      cursor = cursor.parentId === null ? undefined : this.byId.get(cursor.parentId);
    }
    return path.reverse();
  }

  getChildren(id: string | null): SessionEntry[] {
    if (this.children === undefined) {
      this.children = new Map();
      for (const entry of this.ordered) addChild(this.children, entry);
    }
    const children = this.children.get(id);
    if (children === undefined) return [];
    return Array.isArray(children) ? children.slice() : [children];
  }

  getTree(): SessionTreeNode[] {
    const build = (entry: SessionEntry): SessionTreeNode => {
      const node: SessionTreeNode = { entry, children: [] };
      const label = this.labels.get(entry.id);
      if (label !== undefined) node.label = label;
      return node;
    };
    const nodes = new Map<string, SessionTreeNode>();
    const roots: SessionTreeNode[] = [];
    // Parents always precede children in append order, so one pass suffices (no recursion on deep trees).
    for (const entry of this.ordered) {
      const node = build(entry);
      nodes.set(entry.id, node);
      const parent = entry.parentId === null ? undefined : nodes.get(entry.parentId);
      if (parent) parent.children.push(node);
      else roots.push(node);
    }
    return roots;
  }

  getLabel(id: string): string | undefined {
    return this.labels.get(id);
  }

  buildContext(leafId: string | null = this.leaf): SessionContext {
    return buildSessionContext(this.getBranch(leafId));
  }

  /** The entry or `SessionError("not_found")`. */
  require(id: string): SessionEntry {
    const entry = this.byId.get(id);
    if (!entry) throw new SessionError("not_found", `Entry "${id}" does not exist in this session.`);
    return entry;
  }
}
