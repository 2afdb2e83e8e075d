import { SessionError } from "../types/session-error.js";
import type { SessionEntry, SessionHeader } from "./entries.js";
import { createSessionId } from "./ids.js";
import { createSessionHeader } from "./session-header.js";
import type { ForkSessionOptions } from "./session-repo.js";
import type { SessionTree } from "./session-tree.js";

/**
 * The entries a fork keeps: the path root → target (`position: "at"`) or root → target's parent
 * (`"before"`). Entries keep their ids and parents, so the fork is a prefix of the source's tree.
 */
export function selectForkEntries(tree: SessionTree, options: ForkSessionOptions = {}): SessionEntry[] {
  let target: string | null = tree.leafId;
  if (options.entryId !== undefined) {
    const entry = tree.getEntry(options.entryId);
    if (!entry) {
      throw new SessionError(
        "invalid_fork_target",
        `Cannot fork at entry "${options.entryId}": it does not exist in the source session.`,
      );
    }
    target = entry.id;
  }
  if (target === null) return [];
  if (options.position === "before") target = tree.require(target).parentId;
  return tree.getBranch(target);
}

/** The header of a new fork of `source`: a fresh id, the same cwd and metadata, `parentSession` set. */
export function forkHeader(source: SessionHeader, parentSession: string): SessionHeader {
  return createSessionHeader({
    id: createSessionId(),
    cwd: source.cwd,
    metadata: source.metadata,
    parentSession,
  });
}
