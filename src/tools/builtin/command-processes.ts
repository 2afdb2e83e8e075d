import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

/**
 * Environment variable set on every command `bash` starts. Children inherit it, including those
 * that leave the process group with `setsid` and are re-parented once the shell is gone, so the
 * processes of one command can be found and killed at abort or timeout.
 */
export const COMMAND_MARK_VARIABLE = "AGENTCHART_COMMAND";

const KILL_ROUNDS = 10;
const GONE_DEADLINE_MS = 5_000;
const GONE_POLL_MS = 10;
const PF_EXITING = 0x4;

/** A fresh mark value for one command. */
export function createCommandMark(): string {
  return randomBytes(12).toString("hex");
}

/**
 * Kills a command and everything it started, then waits (at most 5 s) until those processes have
 * exited.
 *
 * Three nets, because a process group alone is not enough: a child that calls `setsid` starts a
 * new session and group, and once its parent dies it is re-parented to init, so neither the group
 * nor the parent chain leads to it any more.
 * 1. The process group of the shell (`groupId`, the shell was spawned as its leader).
 * 2. Processes whose environment holds `COMMAND_MARK_VARIABLE=mark` (read from
 *    `/proc/<pid>/environ`): the mark is inherited across `fork`, `exec` and `setsid`, whatever the
 *    parent chain — the technique build servers use to clean up after a job.
 * 3. Descendants (by parent pid) of anything found by 1 or 2, which also catches children that
 *    cleared their environment while their parent is still alive.
 * Each round kills what it finds with SIGKILL and looks again (a process may fork while the round
 * runs), until a round finds nothing alive or after 10 rounds. What escapes all three — a process
 * that both emptied its environment and was orphaned before the kill — is not found. Without
 * `/proc` (macOS) only the process group is killed. Never throws.
 */
export async function killCommandProcesses(groupId: number, mark: string): Promise<void> {
  const killed = new Set<number>();
  for (let round = 0; round < KILL_ROUNDS; round++) {
    // Look before killing: once a parent dies its children are re-parented and net 3 loses them.
    const found = findCommandProcesses(groupId, mark);
    signalGroup(groupId);
    if (found.length === 0) break;
    for (const pid of found) {
      killed.add(pid);
      signalProcess(pid);
    }
  }
  await waitUntilGone([...killed]);
}

/**
 * True while `pid` is a process that has not begun exiting. A zombie (which nobody may reap in a
 * container) and a process already in the kernel's exit path (`PF_EXITING`) count as gone. Without
 * `/proc` this is `process.kill(pid, 0)`.
 */
export function isProcessRunning(pid: number): boolean {
  const status = readStat(pid);
  if (status === "no-proc") {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  return status?.running === true;
}

interface ProcessStat {
  parentId: number;
  groupId: number;
  running: boolean;
}

/** `/proc/<pid>/stat`, or `undefined` when the process is gone, or "no-proc" without `/proc`. */
function readStat(pid: number): ProcessStat | undefined | "no-proc" {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && !hasProc()) return "no-proc";
    return undefined;
  }
  // The command name (field 2) may contain spaces and parentheses: fields resume after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const flags = Number(fields[6]);
  return {
    parentId: Number(fields[1]),
    groupId: Number(fields[2]),
    running: state !== "Z" && state !== "X" && (flags & PF_EXITING) === 0,
  };
}

let procAvailable: boolean | undefined;
function hasProc(): boolean {
  if (procAvailable === undefined) {
    try {
      readFileSync("/proc/self/stat");
      procAvailable = true;
    } catch {
      procAvailable = false;
    }
  }
  return procAvailable;
}

/** Live processes of the command: its group, marked processes, and their descendants. */
function findCommandProcesses(groupId: number, mark: string): number[] {
  if (!hasProc()) return [];
  const needle = Buffer.from(`${COMMAND_MARK_VARIABLE}=${mark}\0`);
  const childrenOf = new Map<number, number[]>();
  const found = new Set<number>();
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const stat = readStat(pid);
    if (stat === undefined || stat === "no-proc" || !stat.running) continue;
    const siblings = childrenOf.get(stat.parentId);
    if (siblings) siblings.push(pid);
    else childrenOf.set(stat.parentId, [pid]);
    if (stat.groupId === groupId || hasMark(pid, needle)) found.add(pid);
  }
  const queue = [...found];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    for (const child of childrenOf.get(pid) ?? []) {
      if (!found.has(child)) {
        found.add(child);
        queue.push(child);
      }
    }
  }
  return [...found];
}

function hasMark(pid: number, needle: Buffer): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`).includes(needle);
  } catch {
    return false; // another user's process, or gone
  }
}

function signalGroup(groupId: number): void {
  try {
    process.kill(-groupId, "SIGKILL");
  } catch {
    // the group is empty already
  }
}

function signalProcess(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // exited in between
  }
}

async function waitUntilGone(pids: number[]): Promise<void> {
  const deadline = Date.now() + GONE_DEADLINE_MS;
  let alive = pids.filter(isProcessRunning);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, GONE_POLL_MS));
    alive = alive.filter(isProcessRunning);
  }
}
