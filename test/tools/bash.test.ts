import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { bashTool, createBashTool } from "../../src/tools/builtin/bash.js";
import { isProcessRunning } from "../../src/tools/builtin/command-processes.js";
import { createBuiltinTools } from "../../src/tools/builtin/index.js";
import { makeTempDir, runTool, textOf } from "../support/builtin-tools.js";

const isRunning = isProcessRunning;

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
  afterAll(() => bashTool.dispose());
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

  it("refuses a timeout longer than a timer can hold instead of killing the command at once", async () => {
    // 2,147,484 s is 2^31 ms and a little more: a Node timer that long fires after 1 ms.
    await expect(
      runTool(bashTool, cwd, { command: "sleep 0.2; echo ran", timeout: 2_147_484 }),
    ).rejects.toThrow("timeout must be at most 2147483 seconds (about 24 days); leave it out for no timeout");
    const longest = await runTool(bashTool, cwd, { command: "sleep 0.2; echo ran", timeout: 2_147_483 });
    expect(textOf(longest)).toBe("ran");
  });

  it("kills setsid escapees and orphans on abort, and settles only once they are gone", async () => {
    const watcher = outputWatcher();
    const controller = new AbortController();
    const command = [
      'sleep 300 & echo "pid:$!"', // a background job in the group
      'setsid sleep 300 & echo "pid:$!"', // a new session, child of the shell
      "setsid sh -c 'sleep 300 >/dev/null 2>&1 & echo \"pid:$!\"'", // new session, orphaned at once
      'env -i setsid sleep 300 & echo "pid:$!"', // no environment, new session, child of the shell
      'echo "ready"',
      "wait",
    ].join("\n");
    const running = runTool(
      bashTool,
      cwd,
      { command },
      { signal: controller.signal, onUpdate: watcher.onUpdate },
    );
    const match = await watcher.waitFor(/(pid:\d+\n){4}ready/);
    const pids = pidsIn(match[0]);
    leftovers.push(...pids);
    expect(pids).toHaveLength(4);
    expect(pids.every(isRunning)).toBe(true);
    controller.abort();
    await expect(running).rejects.toThrow(/Command aborted$/);
    expect(pids.filter(isRunning)).toEqual([]);
  });

  it("kills setsid escapees on timeout", async () => {
    const error = await runTool(bashTool, cwd, {
      command:
        'setsid sh -c \'sleep 300 >/dev/null 2>&1 & echo "pid:$!"\'; setsid sleep 300 & echo "pid:$!"; wait',
      timeout: 2,
    }).then(
      () => undefined,
      (reason: Error) => reason,
    );
    expect(error?.message).toMatch(/Command timed out after 2 seconds and was killed$/);
    const pids = pidsIn(error?.message ?? "");
    leftovers.push(...pids);
    expect(pids).toHaveLength(2);
    expect(pids.filter(isRunning)).toEqual([]);
  });

  it("does not hang when a background job keeps the output pipe open", async () => {
    const result = await runTool(bashTool, cwd, { command: 'sleep 30 & echo "pid:$!"' });
    const pids = pidsIn(textOf(result));
    leftovers.push(...pids);
    expect(result.details?.exitCode).toBe(0);
    expect(pids).toHaveLength(1);
  });

  it("keeps full-output files within its bounds and deletes them on dispose", async () => {
    const bash = createBashTool({ outputFiles: { maxFiles: 2 } });
    const paths: string[] = [];
    for (let run = 0; run < 3; run++) {
      const result = await runTool(bash, cwd, { command: "seq 1 3000" });
      paths.push(result.details?.fullOutputPath as string);
    }
    expect(paths.map((file) => existsSync(file))).toEqual([false, true, true]);
    await bash.dispose();
    expect(paths.filter((file) => existsSync(file))).toEqual([]);
    expect(existsSync(path.dirname(paths[2] as string))).toBe(false);
  });

  it("deletes the files of createBuiltinTools() on dispose", async () => {
    const tools = createBuiltinTools();
    const bash = tools.find((tool) => tool.name === "bash") as typeof bashTool;
    const result = await runTool(bash, cwd, { command: "seq 1 3000" });
    const fullOutputPath = result.details?.fullOutputPath as string;
    expect(existsSync(fullOutputPath)).toBe(true);
    await tools.dispose();
    expect(existsSync(fullOutputPath)).toBe(false);
  });

  it("deletes the files of a tool never disposed when the process exits", async () => {
    const script = [
      `import { bashTool } from ${JSON.stringify(path.resolve("src/tools/builtin/bash.ts"))};`,
      "const signal = new AbortController().signal;",
      `const result = await bashTool.execute({ command: "seq 1 3000" }, { toolCallId: "c", signal, update() {}, context: { cwd: ${JSON.stringify(cwd)} } });`,
      "console.log(result.details.fullOutputPath);",
    ].join("\n");
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(child.stderr).toBe("");
    const fullOutputPath = child.stdout.trim();
    expect(fullOutputPath).toMatch(/agentchart-bash-.*\.log$/);
    expect(existsSync(fullOutputPath)).toBe(false);
    expect(existsSync(path.dirname(fullOutputPath))).toBe(false);
  });

  it("bounds binary output: random bytes, NULs and one endless line", async () => {
    const result = await runTool(bashTool, cwd, {
      command:
        "head -c 3000000 /dev/urandom; printf 'x\\0y\\0\\001z'; head -c 2000000 /dev/zero | tr '\\0' a",
    });
    const text = textOf(result);
    const [shown, note] = text.split("\n\n[Output truncated");
    expect(Buffer.byteLength(shown as string)).toBeLessThanOrEqual(50 * 1024);
    expect(shown).toMatch(/^a+$/);
    expect(note).toMatch(/of 4\.8 MB\); full output: /);
    const fullOutputPath = result.details?.fullOutputPath as string;
    const full = await fs.readFile(fullOutputPath);
    expect(full.length).toBe(3000000 + 6 + 2000000);
    expect(full.subarray(3000000, 3000006)).toEqual(Buffer.from("x\0y\0\x01z"));
  });

  it("shows NULs and other control characters as U+FFFD, keeping tabs and newlines", async () => {
    const result = await runTool(bashTool, cwd, { command: "printf 'a\\0b\\tc\\001\\nd\\377e'" });
    expect(textOf(result)).toBe("a\uFFFDb\tc\uFFFD\nd\uFFFDe");
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
