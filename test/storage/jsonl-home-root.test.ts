import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlSessionRepo } from "../../src/node.js";

describe("JsonlSessionRepo root", () => {
  let home: string;
  let cwd: string;
  const saved = { HOME: process.env.HOME, USERPROFILE: process.env.USERPROFILE };

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "agentchart-home-"));
    cwd = mkdtempSync(join(tmpdir(), "agentchart-cwd-"));
    process.env.HOME = home; // os.homedir() reads HOME (USERPROFILE on Windows)
    process.env.USERPROFILE = home;
  });

  afterEach(() => {
    process.env.HOME = saved.HOME;
    process.env.USERPROFILE = saved.USERPROFILE;
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  });

  it("puts `~/…` under the user's home, as a shell would, not in a folder named ~", async () => {
    const repo = new JsonlSessionRepo({ root: "~/.agentchart/sessions" });
    const session = await repo.create({ cwd, id: "home-root" });
    await session.close();
    const folders = readdirSync(join(home, ".agentchart", "sessions"));
    expect(folders).toHaveLength(1);
    expect(readdirSync(join(home, ".agentchart", "sessions", folders[0]!))[0]).toMatch(/_home-root\.jsonl$/);
    expect(existsSync(join(process.cwd(), "~"))).toBe(false);
    expect((await repo.list()).map((info) => info.id)).toEqual(["home-root"]);
  });

  it("takes `~` alone as the home folder and leaves other names starting with ~ as they are", async () => {
    const atHome = await new JsonlSessionRepo({ root: "~" }).create({ cwd, id: "at-home" });
    await atHome.close();
    expect(readdirSync(home)).toHaveLength(1);
    const literal = join(cwd, "~literal");
    const inLiteral = await new JsonlSessionRepo({ root: literal }).create({ cwd, id: "literal" });
    await inLiteral.close();
    expect(readdirSync(literal)).toHaveLength(1);
  });
});
