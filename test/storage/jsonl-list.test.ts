import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlSessionRepo } from "../../src/node.js";
import type { Session } from "../../src/storage/session.js";
import { LIST_INDEX_MIN_BYTES, listIndexPathOf } from "../../src/storage/session-list-index.js";

const bulk = "x".repeat(10_000);
const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });
const infoLine = (name: string, id = `info-${name}`) =>
  `${JSON.stringify({ type: "session_info", id, parentId: null, timestamp: new Date().toISOString(), name })}\n`;

describe("JsonlSessionRepo.list reads only the header and the latest name", () => {
  let root: string;
  let repo: JsonlSessionRepo;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "agentchart-list-"));
    repo = new JsonlSessionRepo({ root });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const grow = async (session: Session, messages: number) => {
    for (let i = 0; i < messages; i++) session.appendMessage(user(`${i} ${bulk}`));
    await session.flush();
  };
  const listed = async (id: string) => (await repo.list()).find((info) => info.id === id);

  /** A closed session of ~300 KB named `name` near its start; returns its file. */
  const largeNamedSession = async (id: string, name: string) => {
    const session = await repo.create({ id });
    await session.setName(name);
    await grow(session, 30);
    await session.close();
    return session.path as string;
  };

  it("leaves an index at close that vouches for the name, so the middle of the file is not read", async () => {
    const path = await largeNamedSession("indexed", "early");
    expect(existsSync(listIndexPathOf(path))).toBe(true);
    // Rewrite the name inside the file, in place and at the same length, far from its end: a
    // listing that read the whole file would see "other"; one that trusts the index sees "early".
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.replace('"name":"early"', '"name":"other"'));
    expect((await listed("indexed"))?.name).toBe("early");
    // Without the index the file is scanned, which finds the rewritten name.
    unlinkSync(listIndexPathOf(path));
    expect((await listed("indexed"))?.name).toBe("other");
  });

  it("sees names appended by another program (pi) after the index was written", async () => {
    const path = await largeNamedSession("appended", "ours");
    appendFileSync(path, infoLine("theirs"));
    expect((await listed("appended"))?.name).toBe("theirs");
    appendFileSync(
      path,
      `${JSON.stringify({ type: "custom", id: "c1", parentId: null, timestamp: "t", customType: "k" })}\n`,
    );
    expect((await listed("appended"))?.name).toBe("theirs");
    appendFileSync(path, infoLine("", "cleared"));
    expect((await listed("appended"))?.name).toBeUndefined();
  });

  it("skips a malformed tail line, even one that looks like a name", async () => {
    const path = await largeNamedSession("torn", "kept");
    const whole = statSync(path).size;
    appendFileSync(path, '{"type":"session_info","id":"t","parentId":null,"name":"torn');
    expect((await listed("torn"))?.name).toBe("kept");
    unlinkSync(listIndexPathOf(path));
    expect((await listed("torn"))?.name).toBe("kept");
    // The index written by that listing ends before the torn line, which it cannot vouch for.
    expect(JSON.parse(readFileSync(listIndexPathOf(path), "utf8"))).toMatchObject({
      size: whole,
      name: "kept",
    });
  });

  it("ignores an index that no longer describes the file: rewritten, cut, or corrupt", async () => {
    const path = await largeNamedSession("stale", "before");
    const index = readFileSync(listIndexPathOf(path), "utf8");
    // Rewritten in place with different content of the same size: the fingerprint differs.
    const text = readFileSync(path, "utf8");
    writeFileSync(
      path,
      `${text.slice(0, -200).replace('"name":"before"', '"name":"rewrt"')}${" ".repeat(199)}\n`,
    );
    expect((await listed("stale"))?.name).toBe("rewrt");
    // Cut below the size the index covers.
    writeFileSync(listIndexPathOf(path), index);
    writeFileSync(path, `${text.slice(0, text.indexOf("\n") + 1)}${infoLine("short")}`);
    expect((await listed("stale"))?.name).toBe("short");
    // Not JSON.
    await largeNamedSession("corrupt", "fine");
    const corruptPath = (await listed("corrupt"))?.path as string;
    writeFileSync(listIndexPathOf(corruptPath), "{nope");
    expect((await listed("corrupt"))?.name).toBe("fine");
  });

  it("refreshes the index while a session is still open, so later listings scan only new lines", async () => {
    const session = await repo.create({ id: "open" });
    await session.setName("live");
    await grow(session, 30);
    const path = session.path as string;
    expect(existsSync(listIndexPathOf(path))).toBe(false);
    expect((await listed("open"))?.name).toBe("live");
    const index = JSON.parse(readFileSync(listIndexPathOf(path), "utf8")) as { size: number; name: string };
    expect(index).toMatchObject({ name: "live" });
    expect(index.size).toBeGreaterThanOrEqual(LIST_INDEX_MIN_BYTES);
    await session.setName("renamed");
    expect((await listed("open"))?.name).toBe("renamed");
    await session.close();
    expect(JSON.parse(readFileSync(listIndexPathOf(path), "utf8"))).toMatchObject({ name: "renamed" });
  });

  it("finds a name before a line of several megabytes", async () => {
    const session = await repo.create({ id: "long-line" });
    await session.setName("before the long line");
    await session.appendMessage(user("y".repeat(3_000_000)));
    await session.close();
    unlinkSync(listIndexPathOf(session.path as string));
    expect((await listed("long-line"))?.name).toBe("before the long line");
  });

  it("deletes the index with the session", async () => {
    const path = await largeNamedSession("deleted", "gone");
    await repo.delete("deleted");
    expect(existsSync(listIndexPathOf(path))).toBe(false);
    expect(await repo.list()).toEqual([]);
  });
});
