import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RunLog } from "../../src/ag-ui/run-log.js";

// For random runs (events appended, readers joining after any id — none, past the end, or below
// zero — and leaving, the run ending at any point): each reader gets every event after the id it
// named, in order, each once, until it leaves; and `end` once if it was still reading when the run
// ended. The frames' ids are the oracle: they are parsed back, not compared with the log's own.

type Step =
  | { kind: "append" }
  | { kind: "join"; afterId: number }
  | { kind: "leave"; pick: number }
  | { kind: "end" };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: "append" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("join" as const), afterId: fc.integer({ min: -2, max: 30 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("leave" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: "end" as const }) },
);

interface Reader {
  afterId: number;
  ids: number[];
  ends: number;
  leave: () => void;
  left: boolean;
  /** Events appended (their ids) while it was reading, and whether the run ended meanwhile. */
  live: number[];
  sawEnd: boolean;
  appendedAtJoin: number;
}

const idsOf = (frames: string) => [...frames.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));

describe("the run log (property)", () => {
  it("replays every event after a reader's Last-Event-ID once and in order, then the live ones", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        const log = new RunLog();
        const readers: Reader[] = [];
        let appended = 0;
        let ended = false;
        for (const step of steps) {
          if (step.kind === "append") {
            log.append({ type: "CUSTOM", name: "n", value: appended });
            if (!ended) {
              appended++;
              for (const reader of readers) if (!reader.left) reader.live.push(appended);
            }
          } else if (step.kind === "join") {
            const reader: Reader = {
              afterId: step.afterId,
              ids: [],
              ends: 0,
              leave: () => {},
              left: false,
              live: [],
              sawEnd: ended,
              appendedAtJoin: appended,
            };
            reader.leave = log.read(step.afterId, {
              frame: (frames) => reader.ids.push(...idsOf(frames)),
              end: () => reader.ends++,
            });
            readers.push(reader);
          } else if (step.kind === "leave") {
            const reader = readers[step.pick % Math.max(1, readers.length)];
            if (reader && !reader.left) {
              reader.left = true;
              reader.leave();
            }
          } else {
            log.end();
            if (!ended) for (const reader of readers) if (!reader.left) reader.sawEnd = true;
            ended = true;
          }
        }
        for (const reader of readers) {
          const from = Math.min(Math.max(reader.afterId, 0), reader.appendedAtJoin);
          const replayed = Array.from({ length: reader.appendedAtJoin - from }, (_, i) => from + i + 1);
          expect(reader.ids).toEqual([...replayed, ...reader.live]);
          expect(reader.ends).toBe(reader.sawEnd ? 1 : 0);
        }
        expect(log.events.map((event) => (event as { value: number }).value)).toEqual(
          Array.from({ length: appended }, (_, i) => i),
        );
      }),
      { numRuns: 400 },
    );
  });
});
