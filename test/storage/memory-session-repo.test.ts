import { describe, expect, it } from "vitest";
import { MemorySessionRepo } from "../../src/index.js";
import { sessionRepoConformance } from "../../src/testing.js";

sessionRepoConformance(
  "MemorySessionRepo",
  ({ writeFault }) => ({
    repo: new MemorySessionRepo({ writeFault }),
  }),
  { describe, it, expect },
);

describe("MemorySessionRepo", () => {
  it("creates a session in the process's cwd when none is given", async () => {
    const session = await new MemorySessionRepo().create();
    expect(session.cwd).toBe(process.cwd());
  });

  it("lists sessions made within one millisecond newest first, with no keys for absent fields", async () => {
    const repo = new MemorySessionRepo();
    const start = Date.now();
    for (const id of ["x", "y", "z"]) await (await repo.create({ id, cwd: "/p" })).close();
    const infos = await repo.list();
    expect(infos.map((info) => info.id)).toEqual(["z", "y", "x"]);
    expect(Object.keys(infos[0]!)).toEqual(["id", "cwd", "createdAt", "modifiedAt"]);
    expect(infos[0]!.modifiedAt.getTime()).toBeGreaterThan(infos[1]!.modifiedAt.getTime());
    expect(infos[2]!.modifiedAt.getTime()).toBeGreaterThanOrEqual(start);
  });

  it("refuses a second open of a session open for writing, naming it, until it is closed", async () => {
    const repo = new MemorySessionRepo();
    await (await repo.create({ id: "s" })).close();
    const open = await repo.open("s");
    await expect(repo.open("s")).rejects.toThrow('Session "s" is already open for writing');
    await expect(repo.delete("s")).rejects.toThrow('Session "s" is already open for writing');
    await open.close();
    await (await repo.open("s")).close();
  });

  it("names the session in already_exists and not_found errors", async () => {
    const repo = new MemorySessionRepo();
    await repo.create({ id: "s" });
    await expect(repo.create({ id: "s" })).rejects.toThrow('Session "s" already exists.');
    await expect(repo.open("t")).rejects.toThrow('Session "t" does not exist.');
  });
});
