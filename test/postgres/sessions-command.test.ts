import { resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  deleteSession,
  exportSession,
  forkSession,
  importSession,
  listSessions,
  showSession,
  showSessionTree,
} from "../../src/cli/sessions-command.js";
import { postgresSessionsContext, redactDatabaseUrl } from "../../src/cli/sessions-database.js";
import { terminalStyle } from "../../src/cli/terminal-style.js";
import { PostgresSessionRepo } from "../../src/postgres.js";
import { parseSessionText } from "../../src/sessions.js";
import { PglitePool } from "../support/pglite-pool.js";

const pool = new PglitePool();
afterAll(() => pool.close());
const fixture = resolve(import.meta.dirname, "../fixtures/pi-sessions/large-session.v1.jsonl");
const fixtureId = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";

describe("`agentchart sessions` on the Postgres repo", () => {
  it("imports, lists, shows, draws, exports, forks and deletes", async () => {
    const lines: string[] = [];
    const repo = new PostgresSessionRepo({ pool, schema: "cli" });
    const context = postgresSessionsContext(
      repo,
      "test database",
      (line) => lines.push(line),
      terminalStyle({}),
    );
    const printed = async (run: () => Promise<void>) => {
      lines.length = 0;
      await run();
      return [...lines];
    };

    expect(await printed(() => listSessions(context))).toEqual(["no sessions in test database"]);
    expect(await printed(() => importSession(context, fixture))).toEqual([fixtureId]);
    const listed = await printed(() => listSessions(context));
    expect(listed).toHaveLength(1);
    expect(listed[0]).toContain(`${fixtureId}  `);
    expect(listed[0]).toContain("/Users/badlogic/workspaces/pi-mono");

    const shown = await printed(() => showSession(context, "d703"));
    expect(shown[0]).toBe(`session ${fixtureId}`);
    expect(shown.join("\n")).toContain("/mode");
    expect((await printed(() => showSessionTree(context, fixtureId))).length).toBeGreaterThan(100);

    const exported = parseSessionText(
      `${(await printed(() => exportSession(context, fixtureId))).join("\n")}\n`,
    );
    expect(exported.sourceVersion).toBe(3);
    expect(exported.tree.size).toBe(1018);

    const [forkId] = await printed(() => forkSession(context, "d7", {}));
    expect(forkId).not.toBe(fixtureId);
    expect((await repo.list()).map((info) => info.id)).toEqual([forkId, fixtureId]);
    expect(await printed(() => deleteSession(context, forkId!))).toEqual([`deleted ${forkId}`]);
    await expect(showSession(context, "nothing")).rejects.toThrow('no session "nothing" in test database');
  });

  it("hides the password of a database URL in messages", () => {
    expect(redactDatabaseUrl("postgres://app:secret@db.example:5432/agents")).toBe(
      "postgres://app:***@db.example:5432/agents",
    );
    expect(redactDatabaseUrl("not a url")).toBe("the database");
  });
});
