import { describe, expect, it } from "vitest";
import { SessionError } from "../../src/index.js";
import { type SessionSink, SessionWriter } from "../../src/sessions.js";

/** A sink that records its writes and lets the test settle each one. */
function pendingSink() {
  const writes: { text: string; resolve: () => void }[] = [];
  const sink: SessionSink = {
    write: (text) => new Promise<void>((resolve) => writes.push({ text, resolve })),
    close: () => {},
  };
  return { sink, writes };
}

/** A synchronous sink that throws `error` on every write. */
const failingSink = (error: unknown): SessionSink => ({
  write: () => {
    throw error;
  },
  close: () => {},
});

describe("session writer: edges", () => {
  it("never hands the sink an empty write for a flush", async () => {
    const written: string[] = [];
    const writer = new SessionWriter({ write: (text) => void written.push(text), close: () => {} });
    await writer.flush();
    await Promise.all([writer.flush(), writer.write("a\n"), writer.flush()]);
    await writer.flush();
    expect(written).toEqual(["a\n"]);
  });

  it("a flush asked after close settles once the write in flight is stored, not before", async () => {
    const { sink, writes } = pendingSink();
    const writer = new SessionWriter(sink);
    const order: string[] = [];
    const written = writer.write("a\n").then(() => order.push("a"));
    const closed = writer.close(); // drains at once: the write is in flight
    expect(writes.map((write) => write.text)).toEqual(["a\n"]);
    const flushed = writer.flush().then(() => order.push("flush"));
    writes[0]!.resolve();
    await Promise.all([written, flushed, closed]);
    expect(order).toEqual(["a", "flush"]);
  });

  it("refuses text after close with an error that says to reopen", async () => {
    const writer = new SessionWriter({ write: () => {}, close: () => {} });
    await writer.close();
    const error = await writer.write("late\n").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionError);
    expect((error as SessionError).code).toBe("storage");
    expect((error as SessionError).message).toBe("The session is closed; open it again to append.");
    await writer.flush();
  });

  it("keeps a fenced error as it is and wraps any other failure, the sink's error as cause", async () => {
    const fenced = new SessionError("fenced", "another writer took the session");
    const fencedWriter = new SessionWriter(failingSink(fenced));
    await expect(fencedWriter.write("a\n")).rejects.toBe(fenced);
    expect(fencedWriter.error).toBe(fenced);

    for (const cause of [new SessionError("storage", "disk full"), new Error("EIO")]) {
      const writer = new SessionWriter(failingSink(cause));
      const error = await writer.write("a\n").catch((caught: unknown) => caught);
      expect(error).toBe(writer.error);
      expect(writer.error?.code).toBe("storage");
      expect(writer.error?.message).toBe(
        `Writing the session failed (${cause.message}); the session is read-only now — reopen it to continue.`,
      );
      expect(writer.error?.cause).toBe(cause);
    }
  });
});
