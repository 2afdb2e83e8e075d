import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isSessionError } from "../../src/index.js";
import { JsonlSessionRepo } from "../../src/node.js";
import { fixturesDir, tempRoot, userMessage } from "../support/session-files.js";

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-ids-"));
});
afterEach(() => remove());

async function stored(repo: JsonlSessionRepo, id: string): Promise<string> {
  const session = await repo.create({ id, cwd: "/project" });
  await session.appendMessage(userMessage(`in ${id}`));
  await session.close();
  return session.path!;
}

describe("JSONL session ids are matched exactly", () => {
  it("does not take session team_1 for session 1 in open, delete or create", async () => {
    const repo = new JsonlSessionRepo({ root });
    const teamPath = await stored(repo, "team_1");

    const missing = await repo.open("1").catch((error: unknown) => error);
    expect(isSessionError(missing, "not_found")).toBe(true);
    await repo.delete("1");
    expect(existsSync(teamPath)).toBe(true);

    const one = await repo.create({ id: "1", cwd: "/project" });
    expect(one.header.id).toBe("1");
    await one.appendMessage(userMessage("in 1"));
    await one.close();

    const reopened = await repo.open("1");
    expect(reopened.header.id).toBe("1");
    await reopened.close();

    await repo.delete("1");
    expect(existsSync(teamPath)).toBe(true);
    const team = await repo.open("team_1");
    expect(team.header.id).toBe("team_1");
    expect(team.buildContext().messages).toMatchObject([{ content: "in team_1" }]);
    await team.close();
    expect((await repo.list()).map((info) => info.id)).toEqual(["team_1"]);
  });

  it("does not take session 1 for session team_1 either", async () => {
    const repo = new JsonlSessionRepo({ root });
    const onePath = await stored(repo, "1");
    const missing = await repo.open("team_1").catch((error: unknown) => error);
    expect(isSessionError(missing, "not_found")).toBe(true);
    await repo.delete("team_1");
    expect(existsSync(onePath)).toBe(true);
    await stored(repo, "team_1");
    expect((await repo.list()).map((info) => info.id).sort()).toEqual(["1", "team_1"]);
  });

  it("still opens files named the way pi names them: <time>_<uuid>.jsonl", async () => {
    const dir = join(root, "--Users-badlogic-workspaces-pi-mono--");
    mkdirSync(dir);
    const id = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";
    copyFileSync(
      join(fixturesDir, "pi-sessions", "large-session.v1.jsonl"),
      join(dir, `2025-11-20T23-33-50-805Z_${id}.jsonl`),
    );
    const repo = new JsonlSessionRepo({ root });
    const session = await repo.open(id);
    expect(session.header.id).toBe(id);
    expect(session.getEntries()).toHaveLength(1018);
    await session.close();
    const tail = await repo.open("1fe617").catch((error: unknown) => error);
    expect(isSessionError(tail, "not_found")).toBe(true);
  });
});
