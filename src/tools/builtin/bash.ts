import { type ChildProcess, spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "../define-tool.js";
import { CommandOutput } from "./command-output.js";
import { type BuiltinToolContext, requireCwd } from "./path-guard.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatBytes, type TruncationResult } from "./truncate.js";

/** What `bash` reports besides its text (on success; failures are thrown). */
export interface BashDetails {
  exitCode: number;
  truncated: boolean;
  /** Temp file holding the complete output when it was truncated. */
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

const bashParameters = z.object({
  command: z.string().min(1).describe("Bash command line to run in the working directory"),
  timeout: z
    .number()
    .positive()
    .optional()
    .describe("Seconds after which the command is killed (default: none)"),
});

interface Settled {
  code: number | null;
  signal: NodeJS.Signals | null;
  reason: "exited" | "aborted" | "timeout";
}

/**
 * `bash {command, timeout?}`: runs `/bin/bash -c command` in the working directory, in its own
 * process group, with stdin closed. stdout and stderr are merged, streamed through `update` (at
 * most every 100 ms) and cut to the last 2,000 lines / 50 KB; the full output then goes to a temp
 * file named in the note and in `details.fullOutputPath`. Abort (the tool signal) or `timeout`
 * kills the whole process group with SIGKILL. A non-zero exit, a kill, an abort or a timeout
 * throws an Error carrying the output, so the tool result is an error.
 */
export const bashTool = defineTool<typeof bashParameters, BashDetails, BuiltinToolContext>({
  name: "bash",
  label: "Run command",
  description:
    "Run a bash command in the working directory. Output (stdout and stderr) is cut to the last " +
    `${DEFAULT_MAX_LINES} lines or ${formatBytes(DEFAULT_MAX_BYTES)}; the full output is saved to a file. ` +
    "A non-zero exit status is reported as an error. Optional timeout in seconds.",
  parameters: bashParameters,
  async execute(args, { context, signal, update }) {
    const cwd = requireCwd(context);
    if (signal.aborted) throw new Error("Command aborted before it started");
    const cwdStat = await stat(cwd).catch(() => undefined);
    if (!cwdStat?.isDirectory()) throw new Error(`The working directory ${cwd} does not exist`);
    const output = new CommandOutput();
    const child = spawn("/bin/bash", ["-c", args.command], {
      cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });

    let updateTimer: NodeJS.Timeout | undefined;
    const onData = (chunk: Buffer) => {
      output.append(chunk);
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
      settled = await waitForCommand(child, signal, args.timeout);
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
    return { content: [{ type: "text", text: text === "" ? "(no output)" : text }], details };
  },
});

/**
 * Resolves when the shell has exited and its output pipes are closed. Abort and timeout kill the
 * process group; every member then releases the pipes, so waiting for them means waiting for the
 * group to be gone. Pipes still held after the exit (a background job left running, or a process
 * that escaped the group) are closed after `PIPE_DRAIN_GRACE_MS`.
 */
function waitForCommand(child: ChildProcess, signal: AbortSignal, timeoutSeconds: number | undefined) {
  return new Promise<Settled>((resolve, reject) => {
    let reason: Settled["reason"] = "exited";
    let drainTimer: NodeJS.Timeout | undefined;
    const killGroup = (why: Settled["reason"]) => {
      if (reason === "exited") reason = why;
      killProcessGroup(child);
    };
    const onAbort = () => killGroup("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    const timeoutTimer =
      timeoutSeconds === undefined
        ? undefined
        : setTimeout(() => killGroup("timeout"), timeoutSeconds * 1000);
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
      resolve({ code, signal: exitSignal, reason });
    });
  });
}

function killProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // The group is already gone; make sure the shell itself is.
    child.kill("SIGKILL");
  }
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
