import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bashTool } from "../../src/tools/builtin/bash.js";
import { makeTempDir, runTool, textOf } from "../support/builtin-tools.js";

const PF_EXITING = 0x4;

/**
 * True while `pid` is a live process that is not already exiting. Zombies (nobody may reap them
 * in a container) and processes inside the kernel's exit path (PF_EXITING: a SIGKILLed process
 * has closed its pipes — which is what the tool waits for — a moment before it turns zombie)
 * count as gone.
 */
function isRunning(pid: number): boolean {
  if (existsSync("/proc")) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const state = fields[0];
      const flags = Number(fields[6]);
      return state !== "Z" && state !== "X" && (flags & PF_EXITING) === 0;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Collects streamed output and resolves `waitFor(pattern)` once it appears. */
function outputWatcher() {
  let latest = "";
  const waiters: { pattern: RegExp; resolve: (match: RegExpMatchArray) => void }[] = [];
  const onUpdate = (partial: unknown) => {
    latest = (partial as { content: { text: string }[] }).content[0]?.text ?? "";
    for (const waiter of [...waiters]) {
      const match = latest.match(waiter.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  };
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve) => {
      const match = latest.match(pattern);
      if (match) resolve(match);
      else waiters.push({ pattern, resolve });
    });
  return { onUpdate, waitFor };
}

const pidsIn = (text: string) => [...text.matchAll(/pid:(\d+)/g)].map((m) => Number(m[1]));

describe("bash", () => {
  let cwd: string;
  const leftovers: number[] = [];
  beforeEach(async () => {
    cwd = await makeTempDir();
  });
  afterEach(async () => {
    for (const pid of leftovers.splice(0)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    await fs.rm(cwd, { recursive: true, force: true });
  });

  it("runs in the working directory and returns stdout and stderr", async () => {
    const result = await runTool(bashTool, cwd, { command: "pwd; echo to-stderr >&2" });
    expect(textOf(result).split("\n").sort()).toEqual([cwd, "to-stderr"].sort());
    expect(result.details).toEqual({ exitCode: 0, truncated: false });
  });

  it("says so when there is no output", async () => {
    expect(textOf(await runTool(bashTool, cwd, { command: "true" }))).toBe("(no output)");
  });

  it("turns a non-zero exit into an error carrying output and exit code", async () => {
    await expect(runTool(bashTool, cwd, { command: "echo oops; exit 3" })).rejects.toThrow(
      "oops\n\nCommand exited with code 3",
    );
  });

  it("streams output through update while the command runs", async () => {
    const watcher = outputWatcher();
    const running = runTool(
      bashTool,
      cwd,
      {
        command: "echo started; while [ ! -f go ]; do sleep 0.02; done; echo finished",
      },
      { onUpdate: watcher.onUpdate },
    );
    await watcher.waitFor(/started/);
    await fs.writeFile(path.join(cwd, "go"), "");
    expect(textOf(await running)).toBe("started\nfinished");
  });

  it("keeps the last 2,000 lines and saves the full output to a temp file", async () => {
    const result = await runTool(bashTool, cwd, { command: "seq 1 3000" });
    const text = textOf(result);
    expect(text.startsWith("1001\n1002\n")).toBe(true);
    const fullOutputPath = result.details?.fullOutputPath as string;
    expect(text).toContain(
      `[Output truncated: showing the last 2000 of 3000 lines (9.8 KB of 13.6 KB); full output: ${fullOutputPath}]`,
    );
    expect(result.details?.truncated).toBe(true);
    const full = await fs.readFile(fullOutputPath, "utf8");
    expect(full.split("\n")).toHaveLength(3001);
    await fs.rm(fullOutputPath);
  });

  it("keeps the last 50 KB of large output and spills all of it while streaming", async () => {
    const result = await runTool(bashTool, cwd, {
      command: "head -c 300000 /dev/zero | tr '\\0' a; echo; echo end",
    });
    const text = textOf(result);
    expect(text.split("\n\n[Output truncated")[0]).toBe("end");
    const fullOutputPath = result.details?.fullOutputPath as string;
    expect((await fs.stat(fullOutputPath)).size).toBe(300000 + 1 + 4);
    await fs.rm(fullOutputPath);
  });

  it("kills the whole process group on abort", async () => {
    const watcher = outputWatcher();
    const controller = new AbortController();
    const running = runTool(
      bashTool,
      cwd,
      { command: 'echo "pid:$$"; sleep 30 & echo "pid:$!"; sleep 30 & echo "pid:$!"; wait' },
      { signal: controller.signal, onUpdate: watcher.onUpdate },
    );
    const match = await watcher.waitFor(/(pid:\d+\n){3}/);
    const pids = pidsIn(match[0]);
    leftovers.push(...pids);
    expect(pids.every(isRunning)).toBe(true);
    controller.abort();
    await expect(running).rejects.toThrow(/Command aborted$/);
    expect(pids.filter(isRunning)).toEqual([]);
  });

  it("kills the process group on timeout and says so", async () => {
    const started = Date.now();
    const promise = runTool(bashTool, cwd, { command: 'sleep 30 & echo "pid:$!"; wait', timeout: 0.3 });
    const error = await promise.then(
      () => undefined,
      (reason: Error) => reason,
    );
    expect(error?.message).toMatch(/pid:\d+\n\nCommand timed out after 0.3 seconds and was killed$/);
    const pids = pidsIn(error?.message ?? "");
    leftovers.push(...pids);
    expect(pids).toHaveLength(1);
    expect(pids.filter(isRunning)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("does not hang when a background job keeps the output pipe open", async () => {
    const result = await runTool(bashTool, cwd, { command: 'sleep 30 & echo "pid:$!"' });
    const pids = pidsIn(textOf(result));
    leftovers.push(...pids);
    expect(result.details?.exitCode).toBe(0);
    expect(pids).toHaveLength(1);
  });

  it("refuses to start when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      runTool(bashTool, cwd, { command: "touch ran" }, { signal: controller.signal }),
    ).rejects.toThrow("Command aborted before it started");
    expect(existsSync(path.join(cwd, "ran"))).toBe(false);
  });
});
