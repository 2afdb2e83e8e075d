import { PassThrough } from "node:stream";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { runSubmitCommand } from "../../src/cli/submit-command.js";
import { ProcessDriver, repoRoot, spawnTs } from "../support/cli-process.js";
import { scratchDatabase } from "./scratch-database.js";

const database = scratchDatabase(`submit_budget_${process.pid}`);
const children: ProcessDriver[] = [];

afterAll(async () => {
  for (const driver of children) if (driver.child.exitCode === null) driver.child.kill("SIGKILL");
  await Promise.all(children.map((driver) => driver.exited));
  await database.drop();
});

describe("`agentchart --database-url` at a budget pause", () => {
  it("asks the person; `c` sends CONTINUE_ONCE and the worker finishes the run", {
    timeout: 60_000,
  }, async () => {
    const url = await database.create();
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await db.query(`CREATE SCHEMA agentchart`);
    await db.query(`CREATE TABLE agentchart.effects (key text PRIMARY KEY, attempts integer NOT NULL)`);
    await db.end();

    const worker = new ProcessDriver(
      spawnTs("test/support/worker-child.ts", [url, "agentchart", "budget"], { cwd: repoRoot }),
    );
    children.push(worker);
    await worker.waitFor("READY\n");

    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = "";
    let err = "";
    stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes("[c]ontinue once / [s]top? ")) stdin.write("c\n");
    });
    const code = await runSubmitCommand(
      "effect door",
      { databaseUrl: url, session: "paused" },
      { cwd: "/w", env: {}, stdin, stdout, stderr },
    );
    expect(code).toBe(0);
    expect(err).toContain("maxModelCalls reached (1 of 1): [r]aise to 2 / [c]ontinue once / [s]top? ");
    expect(out).toContain("← effect: applied");
    expect(out).toContain("done: applied");
  });
});
