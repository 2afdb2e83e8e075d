import { PassThrough } from "node:stream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSubmitCommand } from "../../src/cli/submit-command.js";
import { ProcessDriver, repoRoot, spawnTs } from "../support/cli-process.js";
import { scratchDatabase } from "./scratch-database.js";

const database = scratchDatabase(`submit_budget_${process.pid}`);
const children: ProcessDriver[] = [];
let url: string;

beforeAll(async () => {
  url = await database.create();
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query(`CREATE SCHEMA agentchart`);
  await db.query(`CREATE TABLE agentchart.effects (key text PRIMARY KEY, attempts integer NOT NULL)`);
  await db.end();
});

afterAll(async () => {
  for (const driver of children) if (driver.child.exitCode === null) driver.child.kill("SIGKILL");
  await Promise.all(children.map((driver) => driver.exited));
  await database.drop();
});

describe("`agentchart --database-url` at a budget pause", () => {
  it("asks the person; `c` sends CONTINUE_ONCE and the worker finishes the run", {
    timeout: 60_000,
  }, async () => {
    await startWorker("test/support/worker-child.ts", "budget");
    const { code, out, err } = await submitAnswering("effect door", "paused", "c");
    expect(code).toBe(0);
    expect(err).toContain("maxModelCalls reached (1 of 1): [r]aise to 2 / [c]ontinue once / [s]top? ");
    expect(out).toContain("← effect: applied");
    expect(out).toContain("done: applied");
    stopWorkers();
  });

  it("asks at a sub-agent's pause, naming its path; `r` sends RAISE_BUDGET for that sub-agent and the run finishes", {
    timeout: 60_000,
  }, async () => {
    await startWorker("test/postgres-server/subagent-worker-child.ts", "child-budget");
    const { code, out, err } = await submitAnswering("research topic", "child-paused", "r");
    expect(code).toBe(0);
    expect(err).toContain(
      "maxModelCalls reached (1 of 1) (sub-agent s1): [r]aise to 2 / [c]ontinue once / [s]top? ",
    );
    expect(err.match(/\[r\]aise/g)).toHaveLength(1); // asked once
    expect(out).toContain("← research: research: noted topic");
    expect(out).toContain("root: research: noted topic");
    stopWorkers();
  });
  it("asks at each of two parallel sub-agents' pauses once; both go on and the run finishes", {
    timeout: 60_000,
  }, async () => {
    await startWorker("test/postgres-server/subagent-worker-child.ts", "child-budget");
    const { code, out, err } = await submitAnswering("pair topic", "pair-paused", "c");
    expect(code).toBe(0);
    for (const path of ["s1", "s2"])
      expect(err.split(`(sub-agent ${path}): [r]aise to 2 / [c]ontinue once / [s]top? `)).toHaveLength(2);
    expect(out).toContain("root: research: noted topic + research: noted topic");
    stopWorkers();
  });
});

/** Starts a worker process (`script` in `mode`) on the scratch database and waits until it serves. */
async function startWorker(script: string, mode: string): Promise<void> {
  const worker = new ProcessDriver(spawnTs(script, [url, "agentchart", mode], { cwd: repoRoot }));
  children.push(worker);
  await worker.waitFor("READY\n");
}

/** Stops the workers started so far (SIGKILL: nothing of theirs is needed any more). */
function stopWorkers(): void {
  for (const driver of children) if (driver.child.exitCode === null) driver.child.kill("SIGKILL");
}

/** Runs `agentchart --database-url … "prompt"` in process, answering `answer` at every budget question. */
async function submitAnswering(prompt: string, session: string, answer: string) {
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
    if (chunk.toString().includes("[c]ontinue once / [s]top? ")) stdin.write(`${answer}\n`);
  });
  const code = await runSubmitCommand(
    prompt,
    { databaseUrl: url, session },
    { cwd: "/w", env: {}, stdin, stdout, stderr },
  );
  return { code, out, err };
}
