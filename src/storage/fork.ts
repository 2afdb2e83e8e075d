import type { SessionEntry } from "./entries.js";
import { SessionError } from "./session-error.js";
import type { ForkSessionOptions } from "./session-repo.js";
import type { SessionTree } from "./session-tree.js";

/**
 * The entries a fork keeps: the path root → target (`position: "at"`) or root → target's parent
 * (`"before"`). Entries keep their ids and parents, so the fork is a prefix of the source's tree.
 */
export function selectForkEntries(tree: SessionTree, options: ForkSessionOptions = {}): SessionEntry[] {
  const position = options.position ?? "at";
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
  if (position === "before") target = tree.require(target).parentId;
  return tree.getBranch(target);
}
