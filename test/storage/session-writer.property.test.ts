import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemorySessionRepo } from "../../src/index.js";
import { JsonlSessionRepo } from "../../src/node.js";
import { type SessionSink, SessionWriter } from "../../src/sessions.js";
import { tempRoot, userMessage } from "../support/session-files.js";

// Whatever was queued when a session is closed is stored before the sink closes: for random mixes of
// writes, flushes and waits on a sink whose writes are synchronous or settle in an order fast-check's
// scheduler picks, and for sessions (JSONL and memory) closed with appends still queued and reopened.

type WriterOp = { kind: "write"; text: string } | { kind: "flush" } | { kind: "wait" };

const writerOpArb: fc.Arbitrary<WriterOp> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("write" as const), text: fc.string({ maxLength: 6 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "flush" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "wait" as const }) },
);

describe("closing with queued writes (property)", () => {
  it("the sink holds every text written before close, in order, and is closed once after the last", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(writerOpArb, { maxLength: 25 }),
        fc.array(fc.boolean(), { minLength: 25, maxLength: 25 }),
        fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
        async (scheduler, ops, synchronous, afterClose) => {
          let stored = "";
          let storedAtClose: string | undefined;
          let closes = 0;
          let sinkWrites = 0;
          const sink: SessionSink = {
            write: (text) => {
              const sync = synchronous[sinkWrites++ % synchronous.length];
              if (sync) {
                stored += text;
                return;
              }
              return scheduler.schedule(Promise.resolve(), "sink write").then(() => {
                stored += text;
              });
            },
            close: () => {
              closes++;
              storedAtClose = stored;
              return scheduler.schedule(Promise.resolve(), "sink close");
            },
          };
          const writer = new SessionWriter(sink);
          let expected = "";
          const accepted: Promise<void>[] = [];
          for (const op of ops) {
            if (op.kind === "write") {
              expected += `${op.text}\n`;
              accepted.push(writer.write(`${op.text}\n`));
            } else if (op.kind === "flush") accepted.push(writer.flush());
            else if (scheduler.count() > 0) await scheduler.waitOne();
          }
          const closing = writer.close();
          const refused = afterClose.map((text) => writer.write(`${text}\n`));
          await scheduler.waitFor(closing);
          expect(closes).toBe(1);
          expect(storedAtClose).toBe(expected);
          expect(stored).toBe(expected);
          await Promise.all(accepted);
          for (const write of refused) await expect(write).rejects.toThrow("The session is closed");
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a session closed with appends still queued holds them all after reopening", async () => {
    const { root, remove } = tempRoot("agentchart-close-queued-");
    const repos = [new JsonlSessionRepo({ root }), new MemorySessionRepo()];
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(0, 1),
          fc.array(fc.record({ text: fc.string({ maxLength: 12 }), awaited: fc.boolean() }), {
            maxLength: 20,
          }),
          async (which, appends) => {
            const repo = repos[which]!;
            const session = await repo.create({ id: `q${run++}`, cwd: "/queued" });
            for (const { text, awaited } of appends) {
              const appended = session.appendMessage(userMessage(text));
              if (awaited) await appended;
            }
            await session.close();
            const reopened = await repo.open(session.id);
            expect(reopened.getEntries()).toEqual(session.getEntries());
            expect(
              reopened.buildContext().messages.map((message) => (message as { content: string }).content),
            ).toEqual(appends.map(({ text }) => text));
            await reopened.close();
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      remove();
    }
  });
});
