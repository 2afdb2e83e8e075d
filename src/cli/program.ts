import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import { JsonlSessionRepo } from "../storage/jsonl-session-repo.js";
import type { AgentBudget } from "../types/budget.js";
import { errorText } from "../types/error-text.js";
import { THINKING_LEVELS } from "../types/model.js";
import { isSessionError } from "../types/session-error.js";
import { parseBudgetOption } from "./budget-watch.js";
import { CliError } from "./cli-error.js";
import { type EvalCommandOptions, runEvalCommand } from "./eval-command.js";
import { DEFAULT_INSPECTOR_PORT, runInspector } from "./inspect-command.js";
import { REPLAY_TOOL_MODES, type ReplayCommandOptions, runReplayCommand } from "./replay-command.js";
import { type RunIo, type RunOptions, runAgentCommand } from "./run-command.js";
import {
  deleteSession,
  exportSession,
  forkSession,
  importSession,
  jsonlSessionsContext,
  listSessions,
  type SessionsCommandContext,
  type SessionViewOptions,
  showSession,
  showSessionTree,
} from "./sessions-command.js";
import { databaseSessionsContext } from "./sessions-database.js";
import { runSubmitCommand } from "./submit-command.js";
import { terminalStyle } from "./terminal-style.js";
import { runWorkerCommand } from "./worker-command.js";

/** The package version; `package.json` is two folders up from both `src/cli/` and `dist/cli/`. */
const VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/**
 * Runs the `agentchart` command line with `argv` (without the node and script paths) and resolves
 * with the exit code. Errors a user can act on are printed as `agentchart: <message>`.
 */
export async function runCli(argv: readonly string[], io: RunIo): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    // Commander has printed its message; help and version exit 0, usage errors 2.
    if (isCommanderExit(error)) return error.exitCode === 0 ? 0 : 2;
    const code = error instanceof CliError ? error.exitCode : 1;
    const message = errorText(error);
    io.stderr.write(`agentchart: ${message}\n`);
    if (!(error instanceof CliError) && !isSessionError(error) && io.env.AGENTCHART_DEBUG) {
      io.stderr.write(`${(error as Error).stack ?? ""}\n`);
    }
    return code;
  }
}

function buildProgram(io: RunIo, setExitCode: (code: number) => void): Command {
  const defaultSessionsDir = join(io.env.HOME ?? homedir(), ".agentchart", "sessions");
  const program = new Command("agentchart")
    .description("Run an LLM agent (statechart-driven) with the built-in tools in the current folder")
    .version(VERSION)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .argument("[prompt]", "run this prompt and exit; without it, start the interactive REPL")
    .option(
      "--provider <name>",
      "openai (also any OpenAI-compatible server), anthropic or google (default: $AGENTCHART_PROVIDER, else openai)",
    )
    .option(
      "-m, --model <id>",
      "model id (default: $AGENTCHART_MODEL, else the provider's: gpt-4o-mini online)",
    )
    .option("--base-url <url>", "OpenAI-compatible server URL (default: $OPENAI_BASE_URL)")
    .addOption(new Option("--thinking <level>", "thinking level").choices(THINKING_LEVELS))
    .option("-s, --session <id>", "continue the session with this id (or a unique prefix)")
    .option("-c, --continue", "continue the latest session of this folder")
    .option("--no-session", "do not store the conversation")
    .option("--sessions-dir <dir>", "where sessions are stored", defaultSessionsDir)
    .option(
      "--skills <dir>",
      "also load skills from this folder (repeatable)",
      (dir: string, dirs: string[] = []) => [...dirs, dir],
    )
    .option(
      "--mcp-config <file>",
      "connect the MCP servers of this file too (after .agentchart/mcp.json in the home folder and here)",
    )
    .option(
      "-y, --yes",
      "run bash, write, edit and MCP tools without asking, and start the MCP servers of the project's .agentchart/mcp.json (or list tools in trust of ~/.agentchart/config.json)",
    )
    .option("--json", "print AgentEvents and harness events as JSON lines on stdout (needs a prompt)")
    .option(
      "--inspect [url]",
      `stream the actors' inspection events to a running inspector (default http://127.0.0.1:${DEFAULT_INSPECTOR_PORT}/)`,
    )
    .option(
      "--database-url <url>",
      "submit the prompt to the sessions in this PostgreSQL database, served by `agentchart worker`, and stream the reply",
    )
    .option(
      "--budget <json>",
      'the budget of every run, e.g. \'{"maxModelCalls":20,"maxCostUsd":0.5}\' (see docs/budgets.md); at a pause the CLI asks: raise, continue once or stop',
      budgetArgument,
    )
    .option(
      "--record <file>",
      "also write the run's recording to this file (*.recording.jsonl; see `agentchart replay`)",
    )
    .option(
      "--otel",
      "export traces over OTLP/HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318; on when that is set)",
    )
    .action(async (prompt: string | undefined, options: RunOptions & { databaseUrl?: string }) => {
      if (options.databaseUrl !== undefined) {
        if (prompt === undefined) throw new CliError("--database-url needs a prompt", 2);
        const session = typeof options.session === "string" ? { session: options.session } : {};
        setExitCode(await runSubmitCommand(prompt, { databaseUrl: options.databaseUrl, ...session }, io));
        return;
      }
      const repo = new JsonlSessionRepo({ root: resolve(options.sessionsDir) });
      setExitCode(await runAgentCommand(prompt, options, repo, io));
    });

  const sessions = program
    .command("sessions")
    .description("list, show, fork and delete stored sessions (in --sessions-dir, or --database-url)")
    .option(
      "--database-url <url>",
      "work on the sessions in this PostgreSQL database (agentchart/postgres) instead of --sessions-dir",
    );
  /** Runs a subcommand on the selected store, releasing its connections afterwards. */
  const onSessions = async (run: (context: SessionsCommandContext) => Promise<void>) => {
    const print = (line: string) => io.stdout.write(`${line}\n`);
    const style = terminalStyle(io.stdout);
    // Commander gives the option to the program when it also has it: either place counts.
    const databaseUrl =
      sessions.opts<{ databaseUrl?: string }>().databaseUrl ??
      program.opts<{ databaseUrl?: string }>().databaseUrl;
    const context =
      databaseUrl === undefined
        ? jsonlSessionsContext(resolve(program.opts<{ sessionsDir: string }>().sessionsDir), print, style)
        : await databaseSessionsContext(databaseUrl, print, style);
    try {
      await run(context);
    } finally {
      await context.close?.();
    }
  };
  sessions
    .command("list")
    .description("stored sessions, newest first: id, time, messages, name or first prompt, folder")
    .action(() => onSessions(listSessions));
  sessions
    .command("show")
    .argument("<id>", "session id or unique prefix")
    .option("--journal", "also show the tool journal's entries (one per started tool call)")
    .description("print the current branch of a session")
    .action((id: string, options: SessionViewOptions) =>
      onSessions((context) => showSession(context, id, options)),
    );
  sessions
    .command("tree")
    .argument("<id>", "session id or unique prefix")
    .option("--journal", "also show the tool journal's entries (one per started tool call)")
    .description("draw the session's tree of branches")
    .action((id: string, options: SessionViewOptions) =>
      onSessions((context) => showSessionTree(context, id, options)),
    );
  sessions
    .command("fork")
    .argument("<id>", "session id or unique prefix")
    .option(
      "--at <entry|step>",
      "entry id, or recorded step number (a session recorded with record: true), to fork at (default: the session's leaf)",
    )
    .option("--before", "keep only the ancestors of --at (to ask its prompt again)")
    .description("copy a session up to an entry into a new session; prints the new id")
    .action((id: string, options: { at?: string; before?: boolean }) =>
      onSessions((context) => forkSession(context, id, options)),
    );
  sessions
    .command("delete")
    .argument("<id>", "session id or unique prefix")
    .description("delete a session")
    .action((id: string) => onSessions((context) => deleteSession(context, id)));
  sessions
    .command("export")
    .argument("<id>", "session id or unique prefix")
    .description("print a session as pi's JSONL")
    .action((id: string) => onSessions((context) => exportSession(context, id)));
  sessions
    .command("import")
    .argument("<file>", "a pi session file (.jsonl, format v1–v3)")
    .description("store a pi JSONL session in the database (--database-url) under its own id; prints it")
    .action((file: string) => onSessions((context) => importSession(context, file)));

  program
    .command("replay")
    .description(
      "re-run a recorded run offline (a *.recording.jsonl file, or a session file recorded with record: true) and print it",
    )
    .argument("<file>", "the recording, or a session file holding one")
    .option("--verify", "exit 1 when the re-run differs from the recording, saying where")
    .addOption(
      new Option(
        "--tools <mode>",
        "how tools answer: from the recording (recorded), by running the built-in tools (live), or both, compared (verify)",
      )
        .choices(REPLAY_TOOL_MODES)
        .default("recorded"),
    )
    .action(async (file: string, options: ReplayCommandOptions) => {
      setExitCode(await runReplayCommand(file, options, io));
    });

  program
    .command("worker")
    .description(
      "serve the sessions of a PostgreSQL database (agentchart/postgres) until SIGTERM, which drains",
    )
    .option("--database-url <url>", "the database (required)")
    .option("--concurrency <n>", "sessions served at once", parseConcurrency, 4)
    .action(async (options: { databaseUrl?: string; concurrency: number }) => {
      const top = program.opts<{
        databaseUrl?: string;
        model?: string;
        baseUrl?: string;
        provider?: string;
      }>();
      const databaseUrl = options.databaseUrl ?? top.databaseUrl;
      if (databaseUrl === undefined) throw new CliError("worker needs --database-url <url>", 2);
      const model = top.model === undefined ? {} : { model: top.model };
      const baseUrl = top.baseUrl === undefined ? {} : { baseUrl: top.baseUrl };
      setExitCode(
        await runWorkerCommand(
          { databaseUrl, concurrency: options.concurrency, ...model, ...baseUrl, provider: top.provider },
          io,
        ),
      );
    });

  program
    .command("eval")
    .description("run an eval dataset (JSONL) against an agent and score it; exits 1 below --min-score")
    .argument("<dataset>", "a JSONL file of eval cases (see docs/evals.md)")
    .option(
      "--agent <file>",
      "a module whose default export is { agent, scorers?, name? } (default: the demo agent)",
    )
    .option("--baseline <file>", "an earlier run's --json report to compare with")
    .option("--min-score <score>", "the gate: exit 1 when the dataset score is below it", parseScore, 1)
    .option("--repeats <n>", "samples per case (mean, spread, pass^k)", parseConcurrency, 1)
    .option("--concurrency <n>", "cases run at once", parseConcurrency, 4)
    .option("--results <file>", "write the result as JSON (a later run's --baseline)")
    .option("--junit <file>", "write the result as JUnit XML")
    .option("--markdown <file>", "write a Markdown report")
    .option("--html <file>", "write an HTML report")
    .action(
      async (
        dataset: string,
        options: Omit<EvalCommandOptions, "otel" | "provider" | "model" | "baseUrl">,
      ) => {
        const top = program.opts<{ otel?: boolean; provider?: string; model?: string; baseUrl?: string }>();
        setExitCode(await runEvalCommand(dataset, { ...top, ...options }, io));
      },
    );

  program
    .command("inspect")
    .description("start the local inspector and print its URL; runs until Ctrl-C")
    .option("-p, --port <port>", "port (0 picks a free one)", parsePort, DEFAULT_INSPECTOR_PORT)
    .option("--host <host>", "interface to bind", "127.0.0.1")
    .action(async (options: { port: number; host: string }) => {
      setExitCode(await runInspector({ ...options, print: (line) => io.stdout.write(`${line}\n`) }));
    });

  for (const command of [sessions, ...sessions.commands, ...program.commands]) {
    command.exitOverride().configureOutput(program.configureOutput());
  }
  return program;
}

function parseConcurrency(value: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1) throw new InvalidArgumentError("expected a positive integer");
  return count;
}

function parseScore(value: string): number {
  const score = Number(value);
  if (!(value.trim() !== "" && score >= 0 && score <= 1))
    throw new InvalidArgumentError("expected a score from 0 to 1");
  return score;
}

/** `--budget`'s value, checked; commander reports a bad one as an invalid argument. */
function budgetArgument(value: string): AgentBudget {
  try {
    return parseBudgetOption(value);
  } catch (error) {
    throw new InvalidArgumentError(errorText(error));
  }
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidArgumentError("expected a port number (0–65535)");
  }
  return port;
}

function isCommanderExit(error: unknown): error is { exitCode: number; code: string } {
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    typeof (error as { code: unknown }).code === "string" &&
    (error as { code: string }).code.startsWith("commander.") &&
    "exitCode" in error
  );
}
