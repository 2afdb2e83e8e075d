import { existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlFileSink } from "../../src/storage/jsonl-sink.js";
import { LIST_INDEX_MIN_BYTES, listIndexPathOf } from "../../src/storage/session-list-index.js";
import { tempRoot } from "../support/session-files.js";

/** Far above any descriptor the process opens. */
const NO_FILE = 2 ** 30;

let root: string;
let remove: () => void;
let path: string;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-sink-"));
  path = join(root, "2026_s1.jsonl");
  writeFileSync(path, '{"type":"session"}\n');
});
afterEach(() => remove());

const info = (name?: string) =>
  `${JSON.stringify({ type: "session_info", id: "i", parentId: null, name })}\n`;
const custom = (pad = 0) =>
  `${JSON.stringify({ type: "custom", id: "c", parentId: null, pad: "p".repeat(pad) })}\n`;

function openSink(options: { durability?: "none" | "fsync"; fault?: Error; name?: string } = {}) {
  const fd = openSync(path, "a");
  const owner = { id: "s1", path, name: options.name };
  let released = 0;
  const sink = new JsonlFileSink(
    fd,
    owner,
    options.durability ?? "none",
    () => {
      released += 1;
    },
    options.fault ? (id) => (id === "s1" ? options.fault : undefined) : undefined,
  );
  return { sink, fd, owner, released: () => released };
}

describe("JsonlFileSink", () => {
  it("appends the text at once with durability none, and after fdatasync with fsync", async () => {
    const none = openSink();
    expect(none.sink.write(custom())).toBeUndefined();
    expect(readFileSync(path, "utf8")).toBe(`{"type":"session"}\n${custom()}`);
    none.sink.close();
    const fsync = openSink({ durability: "fsync" });
    const pending = fsync.sink.write(info("n"));
    expect(pending).toBeInstanceOf(Promise);
    await pending;
    expect(readFileSync(path, "utf8").endsWith(info("n"))).toBe(true);
    fsync.sink.close();
  });

  it("throws the write fault of its session without writing", () => {
    const fault = new Error("injected");
    const { sink } = openSink({ fault });
    expect(() => sink.write(custom())).toThrow(fault);
    expect(readFileSync(path, "utf8")).toBe('{"type":"session"}\n');
    sink.close();
  });

  it("follows the session's name through the session_info lines it writes", () => {
    const { sink, owner } = openSink({ name: "start" });
    sink.write(custom());
    expect(owner.name).toBe("start");
    sink.write(`${info("first")}${custom()}${info("second")}${custom()}`);
    expect(owner.name).toBe("second");
    sink.write(info());
    expect(owner.name).toBeUndefined();
    sink.close();
  });

  it("releases the lock once on close, and leaves a list index only for a large file", () => {
    const small = openSink({ name: "n" });
    small.sink.write(custom());
    small.sink.close();
    expect(small.released()).toBe(1);
    expect(existsSync(listIndexPathOf(path))).toBe(false);
    const large = openSink({ name: "big" });
    large.sink.write(custom(LIST_INDEX_MIN_BYTES));
    large.sink.close();
    expect(JSON.parse(readFileSync(listIndexPathOf(path), "utf8"))).toMatchObject({
      version: 1,
      name: "big",
      size: readFileSync(path).length,
    });
  });

  it("releases the lock even when closing the descriptor fails", () => {
    let released = 0;
    // A descriptor no open file has (closing a real one here could close another test's file).
    const sink = new JsonlFileSink(NO_FILE, { id: "s1", path, name: undefined }, "none", () => {
      released += 1;
    });
    expect(() => sink.write(custom())).toThrow(/EBADF/);
    expect(() => sink.close()).toThrow(/EBADF/);
    expect(released).toBe(1);
  });
});
