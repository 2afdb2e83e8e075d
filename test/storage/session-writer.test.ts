import { describe, expect, it } from "vitest";
import type { SessionError } from "../../src/index.js";
import { type SessionSink, SessionWriter } from "../../src/sessions.js";

/** A sink whose writes stay pending until the test settles them (like `fdatasync`). */
function asyncSink() {
  const writes: { text: string; resolve: () => void; reject: (error: Error) => void }[] = [];
  let closes = 0;
  const sink: SessionSink = {
    write: (text) => new Promise<void>((resolve, reject) => writes.push({ text, resolve, reject })),
    close: () => {
      closes++;
    },
  };
  return { sink, writes, closes: () => closes };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("session writer", () => {
  it("writes the writes of one tick to a synchronous sink as one batch, acknowledged without a round trip", async () => {
    const written: string[] = [];
    const writer = new SessionWriter({ write: (text) => void written.push(text), close: () => {} });
    const first = writer.write("a\n", "a");
    const second = writer.write("b\n", "b");
    expect(written).toEqual([]);
    expect(await Promise.all([first, second])).toEqual(["a", "b"]);
    expect(written).toEqual(["a\nb\n"]);
    expect(writer.status).toBe("open");
  });

  it("is writing while an asynchronous write is in flight and group-commits what queued meanwhile", async () => {
    const { sink, writes } = asyncSink();
    const queue = new SessionWriter(sink);
    const first = queue.write("a\n", "a");
    await tick();
    expect(writes.map((write) => write.text)).toEqual(["a\n"]);
    const second = queue.write("b\n", "b");
    const third = queue.write("c\n", "c");
    const flushed = queue.flush();
    await tick();
    expect(writes).toHaveLength(1);
    writes[0]!.resolve();
    expect(await first).toBe("a");
    await tick();
    expect(writes.map((write) => write.text)).toEqual(["a\n", "b\nc\n"]);
    writes[1]!.resolve();
    expect(await Promise.all([second, third, flushed])).toEqual(["b", "c", undefined]);
    expect(queue.status).toBe("open");
  });

  it("fails on an asynchronous write error: the failing and queued writes, flush and later writes reject", async () => {
    const { sink, writes, closes } = asyncSink();
    const queue = new SessionWriter(sink);
    const first = queue.write("a\n");
    await tick();
    const queued = queue.write("b\n");
    await tick();
    writes[0]!.reject(new Error("disk full"));
    const error = (await first.catch((caught: unknown) => caught)) as SessionError;
    expect(error).toMatchObject({ code: "storage" });
    expect(error.message).toContain("disk full");
    await expect(queued).rejects.toBe(error);
    expect(queue.status).toBe("failed");
    expect(queue.error).toBe(error);
    await expect(queue.flush()).rejects.toBe(error);
    await expect(queue.write("c\n")).rejects.toBe(error);
    expect(writes).toHaveLength(1);
    await queue.close();
    expect(closes()).toBe(1);
    await expect(queue.flush()).rejects.toBe(error);
  });

  it("closes after the write in flight and what queued behind it, then refuses text", async () => {
    const { sink, writes, closes } = asyncSink();
    const queue = new SessionWriter(sink);
    const first = queue.write("a\n");
    await tick();
    const second = queue.write("b\n");
    let closed = false;
    const closing = queue.close().then(() => (closed = true));
    expect(queue.status).toBe("closed");
    await tick();
    expect(closed).toBe(false);
    writes[0]!.resolve();
    await first;
    await tick();
    expect(closes()).toBe(0);
    writes[1]!.resolve();
    await second;
    await closing;
    expect(closes()).toBe(1);
    await expect(queue.flush()).resolves.toBeUndefined();
    await queue.close();
    expect(closes()).toBe(1);
  });
});
