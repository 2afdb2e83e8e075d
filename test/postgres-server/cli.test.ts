import { resolve } from "node:path";
import { PassThrough } from "node:stream";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { DATABASE_URL_VARIABLE } from "./require-server.js";

const url = process.env[DATABASE_URL_VARIABLE]!;
const fixture = resolve(import.meta.dirname, "../fixtures/pi-sessions/before-compaction.jsonl");

afterAll(async () => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('DROP SCHEMA IF EXISTS "agentchart" CASCADE');
  await client.end();
});

/** Runs the CLI in this process and returns its exit code and output. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const code = await runCli(args, { cwd: process.cwd(), env: {}, stdin: new PassThrough(), stdout, stderr });
  return { code, stdout: out, stderr: err };
}

describe("`agentchart sessions --database-url`", () => {
  it("imports a pi session into PostgreSQL, lists, shows, exports and deletes it", async () => {
    const imported = await cli("sessions", "--database-url", url, "import", fixture);
    expect(imported).toMatchObject({ code: 0, stderr: "" });
    const id = imported.stdout.trim();
    const listed = await cli("sessions", "list", "--database-url", url);
    expect(listed.stdout).toContain(id);
    const shown = await cli("sessions", "--database-url", url, "show", id.slice(0, 8));
    expect(shown.stdout).toContain(`session ${id}`);
    const exported = await cli("sessions", "--database-url", url, "export", id);
    expect(exported.stdout.split("\n").filter(Boolean)).toHaveLength(1003);
    expect(JSON.parse(exported.stdout.split("\n")[0]!)).toMatchObject({ version: 3, id });
    expect((await cli("sessions", "--database-url", url, "import", fixture)).stderr).toContain(
      "already exists",
    );
    expect((await cli("sessions", "--database-url", url, "delete", id)).stdout).toContain(`deleted ${id}`);
    expect((await cli("sessions", "--database-url", url, "list")).stdout).toContain(
      "no sessions in postgres://",
    );
  });

  it("says which database it could not reach", async () => {
    const result = await cli("sessions", "--database-url", "postgres://nobody:pw@127.0.0.1:1/none", "list");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("agentchart: Cannot prepare schema");
    expect(result.stderr).not.toContain(":pw@");
  });
});
