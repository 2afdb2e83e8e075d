import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionError } from "../../src/index.js";
import { JsonlSessionRepo } from "../../src/node.js";
import { lockHolder } from "../../src/storage/file-lock.js";
import { tempRoot, userMessage } from "../support/session-files.js";

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-recovery-"));
});
afterEach(() => remove());

async function sessionWith(count: number): Promise<{ repo: JsonlSessionRepo; path: string; ids: string[] }> {
  const repo = new JsonlSessionRepo({ root });
  const session = await repo.create({ id: "s", cwd: "/project" });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await session.appendMessage(userMessage(`m${i}`))).id);
  await session.close();
  return { repo, path: session.path!, ids };
}

function corruptFiles(path: string): string[] {
  const dir = path.slice(0, path.lastIndexOf("/"));
  const base = path.slice(path.lastIndexOf("/") + 1);
  return readdirSync(dir)
    .filter((name) => name.startsWith(`${base}.corrupt-`))
    .map((name) => readFileSync(`${dir}/${name}`, "utf8"));
}

describe("JSONL recovery", () => {
  it("cuts a torn last line, keeps its bytes beside the file and reports it", async () => {
    const { repo, path, ids } = await sessionWith(3);
    appendFileSync(path, '{"type":"message","id":"torn","par');
    const session = await repo.open("s");
    expect(session.getEntries().map((e) => e.id)).toEqual(ids);
    expect(session.recovered).toEqual([
      expect.objectContaining({ line: 5, text: '{"type":"message","id":"torn","par' }),
    ]);
    expect(corruptFiles(path)).toEqual(['{"type":"message","id":"torn","par\n']);
    await session.appendMessage(userMessage("after repair"));
    await session.close();
    const again = await repo.open("s");
    expect(again.recovered).toEqual([]);
    expect(again.getEntries()).toHaveLength(4);
    await again.close();
  });

  it("keeps a complete last line that only lacks its newline", async () => {
    const { repo, path, ids } = await sessionWith(2);
    writeFileSync(path, readFileSync(path, "utf8").replace(/\n$/, ""));
    const session = await repo.open("s");
    expect(session.getEntries().map((e) => e.id)).toEqual(ids);
    await session.appendMessage(userMessage("next"));
    await session.close();
    expect(readFileSync(path, "utf8").split("\n").filter(Boolean)).toHaveLength(4);
  });

  it("fails on a malformed middle line naming it, or skips and reports it with recover", async () => {
    const { repo, path, ids } = await sessionWith(3);
    const lines = readFileSync(path, "utf8").split("\n");
    lines.splice(2, 0, "{not json");
    writeFileSync(path, lines.join("\n"));
    const error = await repo.open("s").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionError);
    expect((error as SessionError).code).toBe("invalid_entry");
    expect((error as SessionError).message).toContain("line 3");
    const session = await repo.open("s", { recover: true });
    expect(session.getEntries().map((e) => e.id)).toEqual(ids);
    expect(session.recovered).toEqual([expect.objectContaining({ line: 3, text: "{not json" })]);
    expect(corruptFiles(path)).toEqual(["{not json\n"]);
    await session.close();
    const clean = await repo.open("s");
    expect(clean.getEntries()).toHaveLength(3);
    await clean.close();
  });

  it("takes over the lock of a dead process but not of a live one", async () => {
    const { repo, path } = await sessionWith(1);
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    writeFileSync(`${path}.lock`, String(dead));
    const session = await repo.open("s");
    await session.close();

    const live = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const exited = new Promise((done) => live.once("exit", done));
    try {
      writeFileSync(`${path}.lock`, String(live.pid));
      const error = await repo.open("s").catch((caught: unknown) => caught);
      expect((error as SessionError).code).toBe("locked");
      expect((error as SessionError).message).toContain(String(live.pid));
    } finally {
      live.kill("SIGKILL");
      await exited;
    }
    const taken = await repo.open("s");
    expect(lockHolder(path)).toBe(process.pid);
    await taken.close();
  });

  it("writes the header and each entry as pi's v3 lines", async () => {
    const { path } = await sessionWith(1);
    const [header, entry] = readFileSync(path, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(header).toMatchObject({ type: "session", version: 3, id: "s", cwd: "/project" });
    expect(Object.keys(entry)).toEqual(["type", "id", "parentId", "timestamp", "message"]);
    expect(path).toContain("/--project--/");
  });
});
