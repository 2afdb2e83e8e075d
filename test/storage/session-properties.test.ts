import { readFileSync, writeFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Session } from "../../src/index.js";
import { JsonlSessionRepo } from "../../src/node.js";
import { tempRoot, userMessage } from "../support/session-files.js";

type Op =
  | { kind: "append"; text: string }
  | { kind: "move"; pick: number }
  | { kind: "label"; pick: number; label: string }
  | { kind: "name"; name: string }
  | { kind: "fork"; pick: number; before: boolean }
  | { kind: "reopen" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant("append" as const), text: fc.string({ maxLength: 20 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("move" as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("label" as const),
      pick: fc.nat(),
      label: fc.string({ maxLength: 5 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("name" as const), name: fc.string({ maxLength: 8 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("fork" as const), pick: fc.nat(), before: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "reopen" as const }) },
);

/** The observable state of a session: entries, labels, name and every branch's context. */
function snapshot(session: Session) {
  const entries = session.getEntries();
  return {
    entries,
    labels: entries.map((entry) => session.getLabel(entry.id)),
    name: session.name,
    contexts: entries.map((entry) => session.buildContext(entry.id)),
  };
}

describe("session properties", () => {
  it("random appends, moves, labels, forks and reopens keep memory and file equivalent", async () => {
    const { root, remove } = tempRoot("agentchart-prop-");
    try {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), async (ops) => {
          const repo = new JsonlSessionRepo({ root });
          let session = await repo.create({ id: `p${run++}`, cwd: "/prop" });
          const pickEntry = (pick: number) => {
            const entries = session.getEntries();
            return entries.length === 0 ? undefined : entries[pick % entries.length]!.id;
          };
          for (const op of ops) {
            if (op.kind === "append") void session.appendMessage(userMessage(op.text));
            else if (op.kind === "move") await session.moveTo(pickEntry(op.pick) ?? null);
            else if (op.kind === "label") {
              const target = pickEntry(op.pick);
              if (target) void session.setLabel(target, op.label);
            } else if (op.kind === "name") void session.setName(op.name);
            else if (op.kind === "fork") {
              await session.flush();
              const target = pickEntry(op.pick);
              const fork = await repo.fork(
                session.id,
                target ? { entryId: target, position: op.before ? "before" : "at" } : {},
              );
              const expected = target
                ? session.getBranch(op.before ? session.getEntry(target)!.parentId : target)
                : session.getBranch(session.getEntries().at(-1)?.id ?? null);
              expect(fork.getEntries()).toEqual(expected);
              await fork.close();
              const reopenedFork = await repo.open(fork.id);
              expect(reopenedFork.getEntries()).toEqual(expected);
              await reopenedFork.close();
            } else {
              await session.close();
              const last = session.getEntries().at(-1)?.id ?? null;
              const before = snapshot(session);
              session = await repo.open(session.id);
              expect(snapshot(session)).toEqual(before);
              expect(session.leafId).toBe(last); // leaf moves are not persisted; the last entry is the leaf
            }
          }
          await session.close();
          const reopened = await repo.open(session.id);
          expect(snapshot(reopened)).toEqual(snapshot(session));
          await reopened.close();
        }),
        { numRuns: 40 },
      );
    } finally {
      remove();
    }
  });

  it("a file cut at any byte after the header opens with every fully written entry", async () => {
    const { root, remove } = tempRoot("agentchart-cut-");
    try {
      const repo = new JsonlSessionRepo({ root });
      const session = await repo.create({ id: "cut" });
      for (let i = 0; i < 30; i++) void session.appendMessage(userMessage(`entry ${i} ✓ ${"é".repeat(i)}`));
      await session.close();
      const original = readFileSync(session.path!);
      const headerEnd = original.indexOf(10) + 1;
      const lineEnds: number[] = [];
      for (let at = original.indexOf(10, headerEnd); at !== -1; at = original.indexOf(10, at + 1))
        lineEnds.push(at);
      const ids = session.getEntries().map((entry) => entry.id);
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: headerEnd, max: original.length }), async (cut) => {
          writeFileSync(session.path!, original.subarray(0, cut));
          const opened = await repo.open("cut");
          // An entry is fully written when its JSON is complete (its newline may be the cut byte).
          const complete = lineEnds.filter((end) => end <= cut).length;
          expect(opened.getEntries().map((entry) => entry.id)).toEqual(ids.slice(0, complete));
          await opened.close();
          const reread = readFileSync(session.path!, "utf8");
          expect(reread.endsWith("\n")).toBe(true);
        }),
        { numRuns: 150 },
      );
    } finally {
      remove();
    }
  });
});
