import { appendFileSync } from "node:fs";

/**
 * The `ran` record of `supportTree` (./support.ts) for runs in more than one process: each execution
 * of the grandchild's `refund` also appends its idempotency key as a line to `file`, so the test
 * process counts the executions of every process that ran the tree.
 */
export function fileCountedRuns(file: string): { count: number; keys: string[] } {
  const keys: string[] = [];
  keys.push = (...added: string[]) => {
    appendFileSync(file, added.map((key) => `${key}\n`).join(""));
    return Array.prototype.push.apply(keys, added);
  };
  return { count: 0, keys };
}
