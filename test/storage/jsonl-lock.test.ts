import { type ChildProcessWithoutNullStreams, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isSessionError } from "../../src/index.js";
import { JsonlSessionRepo } from "../../src/node.js";
import { lockHolder, UNREADABLE_LOCK_STALE_MS } from "../../src/storage/file-lock.js";
import { spawnTs } from "../support/cli-process.js";
import { tempRoot, userMessage } from "../support/session-files.js";

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-lock-"));
});
afterEach(() => remove());

const deadPid = (): number => spawnSync(process.execPath, ["-e", ""]).pid!;

async function storedSession(id = "s"): Promise<{ repo: JsonlSessionRepo; path: string }> {
  const repo = new JsonlSessionRepo({ root });
  const session = await repo.create({ id, cwd: "/project" });
  await session.appendMessage(userMessage("hello"));
  await session.close();
  return { repo, path: session.path! };
}

/** A child process whose stdout is read line by line. */
class LineChild {
  private readonly lines: string[] = [];
  private waiting: ((line: string) => void) | undefined;
  readonly exited: Promise<void>;

  constructor(readonly process: ChildProcessWithoutNullStreams) {
    let buffered = "";
    process.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
        this.push(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
      }
    });
    let stderr = "";
    process.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    this.exited = new Promise((done) => process.once("exit", () => done()));
    void this.exited.then(() => this.push(`exited ${stderr}`));
  }

  private push(line: string): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(line);
    else this.lines.push(line);
  }

  nextLine(): Promise<string> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  send(line: string): void {
    this.process.stdin.write(`${line}\n`);
  }

  async kill(): Promise<void> {
    this.process.kill("SIGKILL");
    await this.exited;
  }
}

/** A lock folder as a process killed while holding the lock leaves it. */
function plantDeadLockFolder(path: string, dead: number): void {
  mkdirSync(`${path}.lock`);
  writeFileSync(join(`${path}.lock`, `owner-${dead}-0badf00d`), "");
}

async function startRacer(sessionId: string): Promise<LineChild> {
  const child = new LineChild(spawnTs("test/support/lock-race-child.ts", [root, sessionId], { cwd: root }));
  expect(await child.nextLine()).toBe("ready");
  return child;
}

describe("JSONL single-writer lock", () => {
  it("lets exactly one of 8 processes take over a stale lock, round after round", async () => {
    const { path } = await storedSession("race");
    const dead = deadPid();
    const racers = await Promise.all(Array.from({ length: 8 }, () => startRacer("race")));
    try {
      for (let round = 0; round < 24; round++) {
        // Even rounds: a 0.2.0 lock file of a dead process; odd rounds: a lock folder of a dead one.
        if (round % 2 === 0) writeFileSync(`${path}.lock`, String(dead));
        else plantDeadLockFolder(path, dead);
        const start = Date.now() + 200;
        for (const racer of racers) racer.send(`go ${start}`);
        const results = await Promise.all(racers.map((racer) => racer.nextLine()));
        expect(
          results.filter((result) => result === "won"),
          `round ${round}: ${results.join(", ")}`,
        ).toHaveLength(1);
        expect(results.filter((result) => result !== "won").every((result) => result === "locked")).toBe(
          true,
        );
        const winner = racers[results.indexOf("won")]!;
        expect(lockHolder(path)).toBe(winner.process.pid);
        winner.send("close");
        expect(await winner.nextLine()).toBe("closed");
      }
      // A winner killed holding the lock leaves it stale: the next open takes it over.
      const start = Date.now() + 200;
      for (const racer of racers) racer.send(`go ${start}`);
      const results = await Promise.all(racers.map((racer) => racer.nextLine()));
      expect(results.filter((result) => result === "won")).toHaveLength(1);
      await racers[results.indexOf("won")]!.kill();
      expect(lockHolder(path)).toBeUndefined();
    } finally {
      await Promise.all(racers.map((racer) => racer.kill()));
    }
    const session = await new JsonlSessionRepo({ root }).open("race");
    expect(session.getEntries()).toHaveLength(1);
    await session.close();
    expect(readdirSync(dirname(path)).filter((name) => name.includes(".lock"))).toEqual([]);
  }, 120_000);

  it("is never seen half made: a writer killed while taking it leaves only litter, removed on the next open", async () => {
    const { repo, path } = await storedSession();
    const stalled = new LineChild(spawnTs("test/support/lock-stall-child.ts", [path], { cwd: root }));
    const staged = await stalled.nextLine();
    expect(staged).toMatch(/^staged /);
    await stalled.kill();
    const stagingPath = staged.slice("staged ".length);
    expect(existsSync(stagingPath)).toBe(true);
    expect(existsSync(`${path}.lock`)).toBe(false);

    const session = await repo.open("s");
    expect(existsSync(stagingPath)).toBe(false);
    await session.close();
  });

  it("treats an empty 0.2.0 lock file (writer killed before writing its pid) as held, then stale once old", async () => {
    const { repo, path } = await storedSession();
    writeFileSync(`${path}.lock`, "");
    const young = await repo.open("s").catch((error: unknown) => error);
    expect(isSessionError(young, "locked")).toBe(true);
    expect((young as Error).message).toContain("another writer");

    const old = (Date.now() - UNREADABLE_LOCK_STALE_MS - 1_000) / 1000;
    utimesSync(`${path}.lock`, old, old);
    const session = await repo.open("s");
    expect(lockHolder(path)).toBe(process.pid);
    await session.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("treats an unreadable entry in a lock folder as held, then stale once old", async () => {
    const { repo, path } = await storedSession();
    mkdirSync(`${path}.lock`);
    writeFileSync(join(`${path}.lock`, "garbage"), "");
    expect(isSessionError(await repo.open("s").catch((error: unknown) => error), "locked")).toBe(true);
    const old = (Date.now() - UNREADABLE_LOCK_STALE_MS - 1_000) / 1000;
    utimesSync(join(`${path}.lock`, "garbage"), old, old);
    const session = await repo.open("s");
    await session.close();
  });

  it("takes over an empty lock folder (a holder killed while releasing) at once", async () => {
    const { repo, path } = await storedSession();
    mkdirSync(`${path}.lock`);
    const session = await repo.open("s");
    expect(lockHolder(path)).toBe(process.pid);
    await session.close();
  });

  it("refuses delete while a live process holds the lock, and deletes after a dead one", async () => {
    const { repo, path } = await storedSession();
    const racer = await startRacer("s");
    try {
      racer.send(`go ${Date.now()}`);
      expect(await racer.nextLine()).toBe("won");
      const refused = await repo.delete("s").catch((error: unknown) => error);
      expect(isSessionError(refused, "locked")).toBe(true);
      expect((refused as Error).message).toContain(String(racer.process.pid));
      expect(existsSync(path)).toBe(true);
    } finally {
      await racer.kill();
    }
    await repo.delete("s");
    expect(readdirSync(dirname(path))).toEqual([]);
  });
});

describe("JSONL litter of killed writers", () => {
  it("lists the litter of dead processes, removes it, and keeps everything else", async () => {
    const { repo, path } = await storedSession();
    const dir = dirname(path);
    const dead = deadPid();
    const litter = [
      `${path}.tmp-${dead}-0badf00d`, // an atomic rewrite killed before its rename
      `${path}.lock.tmp-${dead}-0badf00d`, // a lock staged but never moved into place
      join(dir, `2026-01-01T00-00-00-000Z_forked.jsonl.tmp-${dead}-0badf00d`), // a fork killed mid-write
      join(dir, "2026-01-01T00-00-00-000Z_forked.jsonl.lock"), // …after taking its lock
    ];
    writeFileSync(litter[0]!, "half a session");
    mkdirSync(litter[1]!);
    writeFileSync(litter[2]!, "half a fork");
    plantDeadLockFolder(litter[3]!.slice(0, -".lock".length), dead);
    const kept = [
      path,
      `${path}.corrupt-2026-01-01T00-00-00-000Z`,
      `${path}.tmp-${process.pid}-0badf00d`, // a live process's write in progress
    ];
    writeFileSync(kept[1]!, "cut lines");
    writeFileSync(kept[2]!, "being written");

    expect((await repo.removeLitter({ dryRun: true })).sort()).toEqual([...litter].sort());
    expect(readdirSync(dir).length).toBe(litter.length + kept.length);
    expect((await repo.removeLitter()).sort()).toEqual([...litter].sort());
    expect(readdirSync(dir).sort()).toEqual(kept.map((file) => basename(file)).sort());
    expect(await repo.removeLitter()).toEqual([]);
  });

  it("removes a session's own litter when the session is opened", async () => {
    const { repo, path } = await storedSession();
    const dead = deadPid();
    writeFileSync(`${path}.tmp-${dead}-0badf00d`, "half a rewrite");
    mkdirSync(`${path}.lock.tmp-${dead}-0badf00d`);
    const session = await repo.open("s");
    await session.close();
    expect(readdirSync(dirname(path))).toEqual([basename(path)]);
  });
});
