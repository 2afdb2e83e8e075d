import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createCliSandbox, ProcessDriver, runTs, spawnTs } from "../support/cli-process.js";
import { DATABASE_URL_VARIABLE } from "./require-server.js";

const serverUrl = process.env[DATABASE_URL_VARIABLE]!;
const database = `cli_workers_${process.pid}`;
const sandbox = createCliSandbox();

afterAll(async () => {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
  sandbox.cleanup();
});

describe("`agentchart worker` and `agentchart --database-url`", () => {
  it("a worker process serves a prompt submitted from the command line, which streams the reply; SIGTERM stops it", {
    timeout: 60_000,
  }, async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;

    const worker = new ProcessDriver(
      spawnTs("src/cli/main.ts", ["worker", "--database-url", url.toString(), "--concurrency", "2"], {
        cwd: sandbox.cwd,
        env: sandbox.env,
      }),
    );
    await worker.waitFor("(2 at a time)\n");
    expect(worker.output).toContain("offline: scripted model");

    const submitted = await runTs("src/cli/main.ts", ["--database-url", url.toString(), "read notes.txt"], {
      cwd: sandbox.cwd,
      env: sandbox.env,
    });
    expect(submitted.stderr).toMatch(/session \S+ \(queued\)/);
    expect(submitted.code).toBe(0);
    expect(submitted.stdout).toContain("→ read");
    expect(submitted.stdout).toContain("alpha");
    // One line per job: time, session, outcome, duration.
    const sessionId = /session (\S+) \(queued\)/.exec(submitted.stderr)?.[1] as string;
    await worker.waitFor(`  session ${sessionId}  idle  `);
    expect(worker.output).toMatch(
      new RegExp(
        `\\n\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  session ${sessionId}  idle  \\d+\\.\\d\\d s\\n`,
      ),
    );

    const missing = await runTs("src/cli/main.ts", ["--database-url", url.toString()], {
      cwd: sandbox.cwd,
      env: sandbox.env,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--database-url needs a prompt");

    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(worker.output).toContain("agentchart worker stopped\n");
  });
});
