import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** tsx's loader by absolute path: the child runs in a temp folder where `tsx` does not resolve. */
const tsxLoader = join(repoRoot, "node_modules", "tsx", "dist", "loader.mjs");

/** Starts a TypeScript file of this repository as `node --import tsx <file> …`. */
export function spawnTs(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ["--import", tsxLoader, join(repoRoot, file), ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** What a finished child printed and how it exited. */
export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript file to completion (stdin closed at once). */
export function runTs(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<ProcessResult> {
  const child = spawnTs(file, args, options);
  child.stdin.end();
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolvePromise, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/**
 * Drives an interactive child: collects its output and waits for text to appear after a given
 * offset (the synchronisation point is the output itself, never a timer).
 */
export class ProcessDriver {
  output = "";
  stderr = "";
  readonly exited: Promise<number | null>;
  #waiters: { text: string; from: number; resolve: (index: number) => void; reject: (e: Error) => void }[] =
    [];

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      this.output += chunk;
      this.#check();
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolvePromise) => {
      child.on("close", (code) => {
        for (const waiter of this.#waiters) {
          waiter.reject(
            new Error(
              `exited (${code}) before printing ${JSON.stringify(waiter.text)}:\n${this.output}\n${this.stderr}`,
            ),
          );
        }
        this.#waiters = [];
        resolvePromise(code);
      });
    });
  }

  /** Resolves with the index just after `text` once it appears at or after `from`. */
  waitFor(text: string, from = 0): Promise<number> {
    return new Promise((resolvePromise, reject) => {
      this.#waiters.push({ text, from, resolve: resolvePromise, reject });
      this.#check();
    });
  }

  /** Writes a line and waits for `marker` to be printed after it; returns the output in between. */
  async send(line: string, marker: string): Promise<string> {
    const from = this.output.length;
    this.child.stdin.write(`${line}\n`);
    const end = await this.waitFor(marker, from);
    return this.output.slice(from, end - marker.length);
  }

  #check(): void {
    this.#waiters = this.#waiters.filter((waiter) => {
      const index = this.output.indexOf(waiter.text, waiter.from);
      if (index === -1) return true;
      waiter.resolve(index + waiter.text.length);
      return false;
    });
  }
}

/** A temp folder to run the CLI in (with a few files), a sessions folder and a HOME of its own. */
export interface CliSandbox {
  cwd: string;
  /** The HOME of the CLI's runs (`~/.agentchart` lives here). */
  home: string;
  sessionsDir: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

export function createCliSandbox(): CliSandbox {
  const base = mkdtempSync(join(tmpdir(), "agentchart-cli-"));
  const cwd = join(base, "project");
  const home = join(base, "home");
  mkdirSync(join(cwd, "src"), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(cwd, "README.md"), "# demo\n");
  writeFileSync(join(cwd, "notes.txt"), "alpha\nbeta\n");
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, NO_COLOR: "1" };
  for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENTCHART_MODEL", "AGENTCHART_DEBUG"]) {
    delete env[name];
  }
  // An OTLP endpoint in the developer's environment would turn tracing on in every run.
  for (const name of Object.keys(env)) if (name.startsWith("OTEL_")) delete env[name];
  return {
    cwd,
    home,
    sessionsDir: join(base, "sessions"),
    env,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/**
 * Starts a TypeScript file of this repository in a pseudo-terminal: util-linux `script` runs
 * `node --import tsx <file> …` with a new pty as its stdin, stdout and stderr (so `isTTY` is true),
 * forwards what is written to the returned child's stdin as typed keys (`\r` is Enter), and copies
 * everything the program prints to the child's stdout. `-e` passes the program's exit code on.
 */
export function spawnTsInTerminal(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): ChildProcessWithoutNullStreams {
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, "--import", tsxLoader, join(repoRoot, file), ...args]
    .map(quote)
    .join(" ");
  return spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
    cwd: options.cwd,
    env: { ...(options.env ?? process.env), COLUMNS: "200", LINES: "50" },
    stdio: ["pipe", "pipe", "pipe"],
  });
}
