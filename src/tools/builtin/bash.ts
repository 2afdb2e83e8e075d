import { type ChildProcess, spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { z } from "zod";
import type { AgentTool } from "../../types/tool.js";
import { defineTool } from "../define-tool.js";
import { CommandOutput } from "./command-output.js";
import { COMMAND_MARK_VARIABLE, createCommandMark, killCommandProcesses } from "./command-processes.js";
import { type OutputFileLimits, OutputFiles } from "./output-files.js";
import { type BuiltinToolContext, requireCwd } from "./path-guard.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatBytes, type TruncationResult } from "./truncate.js";

/** What `bash` reports besides its text (on success; failures are thrown). */
export interface BashDetails {
  exitCode: number;
  truncated: boolean;
  /**
   * Temp file holding the complete output when it was truncated. It lives until the tool is
   * disposed, the process exits, or newer files push it over the tool's bounds.
   */
  fullOutputPath?: string;
}

/** The partial result sent through `update` while the command runs. */
export interface BashProgress {
  content: { type: "text"; text: string }[];
  details: { truncated: boolean };
}

/** How long output pipes may stay open after the shell exited (background jobs holding them). */
export const PIPE_DRAIN_GRACE_MS = 500;
const UPDATE_INTERVAL_MS = 100;

/**
 * The longest `timeout` in seconds: what a Node timer can hold (2^31 − 1 ms, about 24.8 days). A
 * longer one would overflow the timer, which then fires at once.
 */
export const MAX_BASH_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

const bashParameters = z.object({
  command: z.string().min(1).describe("Bash command line to run in the working directory"),
  timeout: z
    .number()
    .positive()
    .max(MAX_BASH_TIMEOUT_SECONDS, {
      error: `timeout must be at most ${MAX_BASH_TIMEOUT_SECONDS} seconds (about 24 days); leave it out for no timeout`,
    })
    .optional()
    .describe(
      `Seconds after which the command is killed (default: none; at most ${MAX_BASH_TIMEOUT_SECONDS})`,
    ),
});

interface Settled {
  code: number | null;
  signal: NodeJS.Signals | null;
  reason: "exited" | "aborted" | "timeout";
}

/** Options of {@link createBashTool}. */
export interface BashToolOptions {
  /** Bounds on the kept full-output files (default: 20 files, 100 MB, 1 hour). */
  outputFiles?: OutputFileLimits;
}

/** The arguments of `bash`. */
export interface BashArgs {
  command: string;
  /** Seconds after which the command is killed. */
  timeout?: number;
}

/** The `bash` tool; `dispose()` deletes its full-output files (call it when the session ends). */
export type BashTool = AgentTool<BashArgs, BashDetails, BuiltinToolContext> & {
  dispose(): Promise<void>;
};

/**
 * Makes a `bash {command, timeout?}` tool: runs `/bin/bash -c command` in the working directory, in
 * its own process group, with stdin closed. stdout and stderr are merged, streamed through `update`
 * (at most every 100 ms) and cut to the last 2,000 lines / 50 KB; the full output then goes to a
 * temp file named in the note and in `details.fullOutputPath`, kept within `options.outputFiles`
 * and deleted by `dispose()` (or at process exit). Abort (the tool signal) or `timeout` kills the
 * command with everything it started — background jobs and `setsid` escapees included, found by
 * process group, an inherited environment mark and parent pids — and settles once they are gone.
 * A non-zero exit, a kill, an abort or a timeout throws an Error carrying the output, so the tool
 * result is an error.
 */
export function createBashTool(options: BashToolOptions = {}): BashTool {
  const files = new OutputFiles(options.outputFiles);
  const tool = defineTool<typeof bashParameters, BashDetails, BuiltinToolContext>({
    name: "bash",
    label: "Run command",
    description:
      "Run a bash command in the working directory. Output (stdout and stderr) is cut to the last " +
      `${DEFAULT_MAX_LINES} lines or ${formatBytes(DEFAULT_MAX_BYTES)}; the full output is saved to a file. ` +
      "A non-zero exit status is reported as an error. Optional timeout in seconds.",
    parameters: bashParameters,
    execute: async (args, { context, signal, update }) =>
      runCommand(args, requireCwd(context), signal, update, files),
  });
  return { ...tool, dispose: () => files.dispose() };
}

/** A shared `bash` tool (see {@link createBashTool}); its files are deleted at process exit. */
export const bashTool: BashTool = createBashTool();

async function runCommand(
  args: BashArgs,
  cwd: string,
  signal: AbortSignal,
  update: (partial: BashProgress) => void,
  files: OutputFiles,
) {
  if (signal.aborted) throw new Error("Command aborted before it started");
  const cwdStat = await stat(cwd).catch(() => undefined);
  if (!cwdStat?.isDirectory()) throw new Error(`The working directory ${cwd} does not exist`);
  const output = new CommandOutput(files);
  const mark = createCommandMark();
  const child = spawn("/bin/bash", ["-c", args.command], {
    cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, [COMMAND_MARK_VARIABLE]: mark },
  });

  let updateTimer: NodeJS.Timeout | undefined;
  const onData = (chunk: Buffer) => {
    if (!output.append(chunk)) {
      child.stdout?.pause();
      child.stderr?.pause();
      void output.drained().then(() => {
        child.stdout?.resume();
        child.stderr?.resume();
      });
    }
    updateTimer ??= setTimeout(() => {
      updateTimer = undefined;
      const preview = output.preview();
      update({
        content: [{ type: "text", text: preview.text }],
        details: { truncated: preview.truncated },
      });
    }, UPDATE_INTERVAL_MS);
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);

  let settled: Settled;
  try {
    settled = await waitForCommand(child, mark, signal, args.timeout);
  } finally {
    clearTimeout(updateTimer);
  }
  const { truncation, fullOutputPath } = await output.finish();
  const text = renderOutput(truncation, fullOutputPath);

  if (settled.reason === "aborted") throw new Error(withOutput(text, "Command aborted"));
  if (settled.reason === "timeout") {
    throw new Error(withOutput(text, `Command timed out after ${args.timeout} seconds and was killed`));
  }
  if (settled.code === null) {
    throw new Error(withOutput(text, `Command was terminated by signal ${settled.signal ?? "unknown"}`));
  }
  if (settled.code !== 0) throw new Error(withOutput(text, `Command exited with code ${settled.code}`));
  const details: BashDetails = { exitCode: 0, truncated: truncation.truncated };
  if (fullOutputPath !== undefined) details.fullOutputPath = fullOutputPath;
  return { content: [{ type: "text" as const, text: text === "" ? "(no output)" : text }], details };
}

/**
 * Resolves when the shell has exited and its output pipes are closed — after an abort or timeout,
 * also once every process of the command is gone. Pipes still held after a normal exit (a
 * background job left running) are closed after `PIPE_DRAIN_GRACE_MS`.
 */
function waitForCommand(
  child: ChildProcess,
  mark: string,
  signal: AbortSignal,
  timeoutSeconds: number | undefined,
) {
  return new Promise<Settled>((resolve, reject) => {
    let reason: Settled["reason"] = "exited";
    let killing: Promise<void> | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    const kill = (why: Settled["reason"]) => {
      if (reason === "exited") reason = why;
      if (child.pid !== undefined) killing ??= killCommandProcesses(child.pid, mark);
    };
    const onAbort = () => kill("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    const timeoutTimer =
      timeoutSeconds === undefined ? undefined : setTimeout(() => kill("timeout"), timeoutSeconds * 1000);
    const cleanUp = () => {
      signal.removeEventListener("abort", onAbort);
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
    };
    child.once("error", (error) => {
      cleanUp();
      reject(new Error(`Could not run /bin/bash: ${error.message}`));
    });
    child.once("exit", () => {
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, PIPE_DRAIN_GRACE_MS);
    });
    child.once("close", (code, exitSignal) => {
      cleanUp();
      void Promise.resolve(killing).then(() => resolve({ code, signal: exitSignal, reason }));
    });
  });
}

function renderOutput(truncation: TruncationResult, fullOutputPath: string | undefined): string {
  const text = truncation.text.replace(/\n+$/, "");
  if (!truncation.truncated) return text;
  const kept = `${truncation.keptLines} of ${truncation.totalLines} lines`;
  const saved =
    fullOutputPath === undefined ? "the full output could not be saved" : `full output: ${fullOutputPath}`;
  return `${text}\n\n[Output truncated: showing the last ${kept} (${formatBytes(truncation.keptBytes)} of ${formatBytes(truncation.totalBytes)}); ${saved}]`;
}

function withOutput(text: string, status: string): string {
  return text === "" ? status : `${text}\n\n${status}`;
}
