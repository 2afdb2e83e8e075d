import { afterAll, describe, expect, it } from "vitest";
import { createCliSandbox, ProcessDriver, runTs, spawnTs } from "../support/cli-process.js";
import { scratchDatabase } from "./scratch-database.js";

const database = scratchDatabase(`cli_workers_${process.pid}`);
const sandbox = createCliSandbox();
const children: ProcessDriver[] = [];

afterAll(async () => {
  for (const driver of children) if (driver.child.exitCode === null) driver.child.kill("SIGKILL");
  await database.drop();
  sandbox.cleanup();
});

/** Resolves once the child has printed `text` on stderr. */
function stderrShows(driver: ProcessDriver, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!driver.stderr.includes(text)) return;
      driver.child.stderr.off("data", check);
      resolve();
    };
    driver.child.stderr.on("data", check);
    driver.exited.then(() => reject(new Error(`exited without printing ${text}:\n${driver.stderr}`)));
    check();
  });
}

describe("`agentchart worker` and `agentchart --database-url`", () => {
  it("a worker process serves a prompt submitted from the command line, which streams the reply; SIGTERM stops it", {
    timeout: 60_000,
  }, async () => {
    const url = await database.create();

    // No worker yet: within seconds the submit says so and how to start one, and keeps waiting.
    const waiting = new ProcessDriver(
      spawnTs("src/cli/main.ts", ["--database-url", url, "read README.md"], {
        cwd: sandbox.cwd,
        env: sandbox.env,
      }),
    );
    children.push(waiting);
    await stderrShows(waiting, "Still waiting for one");
    expect(waiting.stderr).toMatch(
      /session (\S+) \(queued\)\nNo worker has taken session \1 after 3 s\. Start one with\n/,
    );
    expect(waiting.stderr).toContain(`  agentchart worker --database-url ${url}\n`);

    const worker = new ProcessDriver(
      spawnTs("src/cli/main.ts", ["worker", "--database-url", url, "--concurrency", "2"], {
        cwd: sandbox.cwd,
        env: sandbox.env,
      }),
    );
    children.push(worker);
    await worker.waitFor("(2 at a time)\n");
    expect(worker.output).toContain("offline: scripted model");
    // The worker started late serves the waiting prompt.
    expect(await waiting.exited).toBe(0);
    expect(waiting.output).toContain("# demo");

    const submitted = await runTs("src/cli/main.ts", ["--database-url", url, "read notes.txt"], {
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

    const missing = await runTs("src/cli/main.ts", ["--database-url", url], {
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
