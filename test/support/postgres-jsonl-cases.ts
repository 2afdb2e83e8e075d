import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlSessionRepo } from "../../src/node.js";
import { PostgresSessionRepo } from "../../src/postgres.js";
import { parseSessionText } from "../../src/sessions.js";
import type { PostgresTarget } from "./postgres-cases.js";
import { tempRoot, userMessage } from "./session-files.js";

const fixture = (name: string) => resolve(import.meta.dirname, "../fixtures/pi-sessions", name);
const parsedLines = (text: string) =>
  text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as unknown);

/** Registers the JSONL import/export cases (real pi sessions, odd text, bad files) against `target`. */
export function jsonlRoundTripCases(target: () => PostgresTarget): void {
  let repo: PostgresSessionRepo;
  let root: string;
  let remove: () => void;
  beforeEach(() => {
    const t = target();
    repo = new PostgresSessionRepo({ pool: t.pool, schema: t.schema() });
    ({ root, remove } = tempRoot("agentchart-pg-jsonl-"));
  });
  afterEach(() => remove());

  describe.each(["large-session.v1.jsonl", "before-compaction.jsonl"])("the real pi session %s", (name) => {
    it("imports migrated to v3 with its session id and the same context as the JSONL repo reads", async () => {
      const source = parseSessionText(readFileSync(fixture(name), "utf8"));
      const imported = await repo.importJsonl(fixture(name));
      expect(imported).toEqual({ id: source.header.id, sourceVersion: 1, recovered: [] });
      const exported = parseSessionText(await repo.exportJsonl(imported.id));
      expect(exported.sourceVersion).toBe(3);
      expect(exported.header).toEqual(source.header);
      expect(exported.tree.size).toBe(source.tree.size);
      expect(exported.tree.buildContext()).toEqual(source.tree.buildContext());
      const session = await repo.open(imported.id);
      expect(session.buildContext()).toEqual(source.tree.buildContext());
      await session.close();
    });

    it("round-trips the v3 file the JSONL repo writes: equal line by line after parsing", async () => {
      // Opening the v1 fixture as a writer makes the JSONL repo rewrite it as v3.
      const dir = join(root, "sessions");
      mkdirSync(join(dir, "x"), { recursive: true });
      const header = parseSessionText(readFileSync(fixture(name), "utf8")).header;
      const path = join(dir, "x", `2025-01-01T00-00-00-000Z_${header.id}.jsonl`);
      copyFileSync(fixture(name), path);
      const jsonl = new JsonlSessionRepo({ root: dir });
      await (await jsonl.open(header.id)).close();
      const v3 = readFileSync(path, "utf8");
      expect(parsedLines(v3)[0]).toMatchObject({ version: 3, id: header.id });

      const imported = await repo.importJsonl(path);
      expect(imported.sourceVersion).toBe(3);
      const exported = await repo.exportJsonl(header.id);
      // Equal after parsing; key order within a line may differ (jsonb sorts keys).
      expect(parsedLines(exported)).toEqual(parsedLines(v3));
    });
  });

  describe("import and export", () => {
    it("keeps text jsonb cannot hold (NUL, lone surrogates) exactly", async () => {
      const session = await repo.create({ id: "odd-text", cwd: "/w", metadata: { nul: "a\u0000b" } });
      const odd = ["nul \u0000 byte", "lone \ud800 surrogate", "pair 😀 and \\u0000 as text"];
      for (const text of odd) await session.appendMessage(userMessage(text));
      await session.close();
      const reopened = await repo.open("odd-text");
      expect(reopened.getEntries()).toEqual(session.getEntries());
      expect(reopened.metadata).toEqual({ nul: "a\u0000b" });
      await reopened.close();
      const file = join(root, "odd.jsonl");
      writeFileSync(file, await repo.exportJsonl("odd-text"));
      await repo.delete("odd-text");
      await repo.importJsonl(file);
      expect(await repo.exportJsonl("odd-text")).toBe(readFileSync(file, "utf8"));
    });

    it("refuses a taken id, a torn or malformed file and a missing file with codes, storing nothing", async () => {
      const header = JSON.stringify({
        type: "session",
        version: 3,
        id: "bad",
        timestamp: "2025-01-01T00:00:00.000Z",
        cwd: "/w",
      });
      const entry = JSON.stringify({
        type: "custom",
        customType: "k",
        id: "e1",
        parentId: null,
        timestamp: "2025-01-01T00:00:01.000Z",
      });
      const torn = join(root, "torn.jsonl");
      writeFileSync(torn, `${header}\n${entry}\n{"type":"mess`);
      await expect(repo.importJsonl(torn)).rejects.toMatchObject({ code: "invalid_entry" });
      await expect(repo.open("bad")).rejects.toMatchObject({ code: "not_found" });
      const malformed = join(root, "malformed.jsonl");
      writeFileSync(malformed, `${header}\nnot json\n${entry}\n`);
      await expect(repo.importJsonl(malformed)).rejects.toMatchObject({ code: "invalid_entry" });
      await expect(repo.importJsonl(join(root, "missing.jsonl"))).rejects.toMatchObject({ code: "storage" });

      const imported = await repo.importJsonl(torn, { recover: true });
      expect(imported.recovered).toMatchObject([{ line: 3, text: '{"type":"mess' }]);
      await expect(repo.importJsonl(torn, { recover: true })).rejects.toMatchObject({
        code: "already_exists",
      });
      expect(parsedLines(await repo.exportJsonl("bad"))).toEqual([JSON.parse(header), JSON.parse(entry)]);
    });
  });
}
