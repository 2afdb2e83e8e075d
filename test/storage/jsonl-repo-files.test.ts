import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionError } from "../../src/index.js";
import { JsonlSessionRepo } from "../../src/node.js";
import { LIST_INDEX_MIN_BYTES } from "../../src/storage/session-list-index.js";
import { tempRoot, userMessage } from "../support/session-files.js";

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-jsonl-repo-files-"));
});
afterEach(() => remove());

/** A closed session of two messages; returns its file's path. */
async function sessionFile(repo: JsonlSessionRepo, id: string, cwd = "/work"): Promise<string> {
  const session = await repo.create({ id, cwd });
  await session.appendMessage(userMessage("one"));
  await session.appendMessage(userMessage("two"));
  await session.close();
  return session.path!;
}

async function rejection(promise: Promise<unknown>): Promise<SessionError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SessionError);
  return error as SessionError;
}

describe("JsonlSessionRepo: the file as it is opened", () => {
  it("appends to a clean file as it is: same inode, same bytes, no copy of cut lines", async () => {
    const repo = new JsonlSessionRepo({ root });
    const path = await sessionFile(repo, "clean");
    const before = readFileSync(path, "utf8");
    const inode = statSync(path).ino;
    await (await repo.open("clean")).close();
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(statSync(path).ino).toBe(inode);
    expect(readdirSync(dirname(path)).filter((name) => name.includes(".corrupt-"))).toEqual([]);
  });

  it("keeps the lines it skips, one per line, in a .corrupt-<time> file beside the session", async () => {
    const repo = new JsonlSessionRepo({ root });
    const path = await sessionFile(repo, "bad-lines");
    const lines = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, [lines[0], "junk one", lines[1], "[2]", lines[2], ""].join("\n"));
    const session = await repo.open("bad-lines", { recover: true });
    expect(session.recovered.map((line) => line.line)).toEqual([2, 4]);
    await session.close();
    const copies = readdirSync(dirname(path)).filter((name) => name.includes(".corrupt-"));
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatch(/\.jsonl\.corrupt-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
    expect(readFileSync(join(dirname(path), copies[0]!), "utf8")).toBe("junk one\n[2]\n");
  });

  it("names the file in the error of a session it cannot read, keeping the parser's error as cause", async () => {
    const repo = new JsonlSessionRepo({ root });
    const path = await sessionFile(repo, "broken");
    const lines = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, [lines[0], "junk", lines[1], ""].join("\n"));
    const error = await rejection(repo.open("broken"));
    expect(error.code).toBe("invalid_entry");
    expect(error.message).toBe(`Session file line 2: not a JSON object. (${path})`);
    expect((error.cause as SessionError).message).toBe("Session file line 2: not a JSON object.");
  });

  it("writes the list index of the session it opened, with its name, when it closes", async () => {
    const repo = new JsonlSessionRepo({ root });
    const session = await repo.create({ id: "indexed", cwd: "/work" });
    await session.setName("the name");
    await session.appendMessage(userMessage("x".repeat(LIST_INDEX_MIN_BYTES)));
    await session.close();
    const index = `${session.path!}.index.json`;
    rmSync(index, { force: true });
    await (await repo.open("indexed")).close();
    expect(JSON.parse(readFileSync(index, "utf8")).name).toBe("the name");
  });

  it("refuses to open or create by id with errors that name the id", async () => {
    const repo = new JsonlSessionRepo({ root });
    await sessionFile(repo, "taken");
    expect((await rejection(repo.open("nobody"))).message).toBe(
      `Session "nobody" does not exist under ${root}.`,
    );
    expect((await rejection(repo.create({ id: "taken" }))).message).toBe(
      'Session "taken" already exists; pick another id or open it.',
    );
  });

  it("cannot create a session when its folder cannot be made", async () => {
    const file = join(root, "a-file");
    writeFileSync(file, "");
    const error = await rejection(new JsonlSessionRepo({ root: file }).create({ id: "x", cwd: "/work" }));
    expect(error.code).toBe("storage");
    expect(error.message).toMatch(
      new RegExp(`^Cannot create the session folder ${join(file, "--work--")}: `),
    );
  });
});

describe("JsonlSessionRepo: list", () => {
  it("newest first, by the file's modification time", async () => {
    const repo = new JsonlSessionRepo({ root });
    const paths = [
      await sessionFile(repo, "old"),
      await sessionFile(repo, "new"),
      await sessionFile(repo, "mid"),
    ];
    for (const [i, seconds] of [1_000, 3_000, 2_000].entries()) utimesSync(paths[i]!, seconds, seconds);
    expect((await repo.list()).map((info) => info.id)).toEqual(["new", "mid", "old"]);
  });

  it("by cwd: only that cwd's sessions, also when two cwds share a folder name", async () => {
    const repo = new JsonlSessionRepo({ root });
    await sessionFile(repo, "slash", "/a/b");
    await sessionFile(repo, "dash", "/a-b");
    await sessionFile(repo, "other", "/c");
    expect((await repo.list({ cwd: "/a/b" })).map((info) => info.id)).toEqual(["slash"]);
    expect((await repo.list({ cwd: "/a-b" })).map((info) => info.id)).toEqual(["dash"]);
    await expect(repo.list({ cwd: "/a/../b" })).rejects.toThrow(SessionError);
  });

  it("leaves out files that are not sessions, and says nothing of parents a session has not", async () => {
    const repo = new JsonlSessionRepo({ root });
    const path = await sessionFile(repo, "real");
    const dir = dirname(path);
    const header = JSON.parse(readFileSync(path, "utf8").split("\n")[0]!);
    const fakes = {
      "t_a.jsonl": '{"type":"message","id":"a","cwd":"/work"}\n',
      "t_b.jsonl": `${JSON.stringify({ ...header, id: 1 })}\n`,
      "t_c.jsonl": `${JSON.stringify({ ...header, cwd: 2 })}\n`,
      "t_d.jsonl": "null\n",
      "t_e.jsonl": "not json\n",
    };
    for (const [name, text] of Object.entries(fakes)) writeFileSync(join(dir, name), text);
    const infos = await repo.list();
    expect(infos.map((info) => info.id)).toEqual(["real"]);
    expect("parentSession" in infos[0]!).toBe(false);
    expect("parentToolCallId" in infos[0]!).toBe(false);
  });
});

describe("JsonlSessionRepo: delete", () => {
  it("removes the file, its index and its lock, and nothing else", async () => {
    const repo = new JsonlSessionRepo({ root });
    const path = await sessionFile(repo, "gone");
    await sessionFile(repo, "stays");
    await repo.delete("gone");
    expect(readdirSync(dirname(path)).filter((name) => name.includes("_gone"))).toEqual([]);
    expect((await repo.list()).map((info) => info.id)).toEqual(["stays"]);
    await repo.delete("gone"); // already gone: nothing to do
  });

  it("reports a file it cannot remove as a storage error", async () => {
    const repo = new JsonlSessionRepo({ root });
    const path = await sessionFile(repo, "stuck");
    rmSync(`${path}.index.json`, { force: true });
    mkdirSync(join(`${path}.index.json`, "inside"), { recursive: true }); // unlink fails on a folder
    const error = await rejection(repo.delete("stuck"));
    expect(error.code).toBe("storage");
    expect(error.message).toMatch(new RegExp(`^Cannot delete ${path}\\.index\\.json: `));
  });
});

describe("JsonlSessionRepo: removeLitter", () => {
  it("lists the temporary files of dead processes, and removes them unless it is a dry run", async () => {
    const repo = new JsonlSessionRepo({ root });
    const path = await sessionFile(repo, "litter");
    const litter = `${path}.tmp-999999999-0123abcd`;
    writeFileSync(litter, "half written");
    expect(await repo.removeLitter({ dryRun: true })).toEqual([litter]);
    expect(existsSync(litter)).toBe(true);
    expect(await repo.removeLitter()).toEqual([litter]);
    expect(existsSync(litter)).toBe(false);
    expect(existsSync(path)).toBe(true);
    appendFileSync(path, ""); // the session file is untouched
    expect(await repo.removeLitter()).toEqual([]);
  });
});
