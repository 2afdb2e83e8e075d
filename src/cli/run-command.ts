import { homedir } from "node:os";
import { resolve } from "node:path";
import type { AgentHarness } from "../harness/agent-harness.js";
import { agentFileTools } from "../harness/resources/agent-files.js";
import { createInspectorClient, type InspectorClient } from "../inspector/inspector-client.js";
import type { McpConnection } from "../mcp/connect-mcp-servers.js";
import type { JsonlSessionRepo } from "../storage/jsonl-session-repo.js";
import type { Session } from "../storage/session.js";
import { createBuiltinTools } from "../tools/builtin/index.js";
import type { AgentBudget, BudgetLimits } from "../types/budget.js";
import { errorText } from "../types/error-text.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import { watchBudget } from "./budget-watch.js";
import { withBuiltinApprovals } from "./builtin-tool-approvals.js";
import { loadCliConfig } from "./cli-config.js";
import { CliError } from "./cli-error.js";
import { CliHarness } from "./cli-harness.js";
import { EventRenderer } from "./event-renderer.js";
import { DEFAULT_INSPECTOR_PORT } from "./inspect-command.js";
import { consentToProjectServers } from "./mcp-consent.js";
import { connectCliMcp, loadCliMcpConfig, mcpBanner } from "./mcp-setup.js";
import { chooseModel, withModelId } from "./model-choice.js";
import { startOtlpTracing, wantsOtel } from "./otel-export.js";
import { runRepl } from "./repl.js";
import { type CliResources, loadCliResources } from "./resources.js";
import { RunRecordingFile } from "./run-recording-file.js";
import { sendCommand } from "./send-command.js";
import { resolveSessionInfo } from "./sessions-command.js";
import { terminalStyle } from "./terminal-style.js";
import { type AskLine, askForToolApprovals, lineAsker } from "./tool-approvals.js";

/** The flags of the default command (`agentchart [prompt]`). */
export interface RunOptions {
  /** `--provider`: see `ModelChoiceOptions.provider`. */
  provider?: string;
  model?: string;
  baseUrl?: string;
  thinking?: ThinkingLevel;
  /** An id (or unique prefix) to continue; `false` with `--no-session`. */
  session?: string | false;
  continue?: boolean;
  sessionsDir: string;
  json?: boolean;
  /** Extra skill folders (`--skills <dir>`, repeatable). */
  skills?: string[];
  /** `true` for a bare `--inspect` (default URL), else the inspector's URL. */
  inspect?: string | true;
  /** An MCP configuration file read after `.agentchart/mcp.json` of the home folder and the project. */
  mcpConfig?: string;
  /** Runs `bash`, `write`, `edit` and MCP tools without asking for approval. */
  yes?: boolean;
  /** Export spans over OTLP/HTTP (also on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set). */
  otel?: boolean;
  /** `--budget`: the budget of every run; a pause asks on the terminal (raise, continue once, stop). */
  budget?: AgentBudget;
  /** `--record FILE`: write the run's recording there when it ends (see `agentchart replay`). */
  record?: string;
}

/** Where the run command reads and writes; the real process streams by default (tests pass their own). */
export interface RunIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * `agentchart [prompt]`: one prompt and exit when `prompt` is given (streamed, or JSON lines with
 * `--json`), else the REPL. Resolves with the exit code: 0, 1 when the reply ended in an error,
 * 130 when aborted.
 */
export async function runAgentCommand(
  promptArg: string | undefined,
  options: RunOptions,
  repo: JsonlSessionRepo,
  io: RunIo,
): Promise<number> {
  let prompt = promptArg;
  let inspect = options.inspect;
  // `--inspect "a prompt"`: commander takes the prompt as the optional URL; give it back.
  if (typeof inspect === "string" && !/^(https?|wss?):\/\//.test(inspect)) {
    if (prompt !== undefined) throw new CliError(`--inspect expects a URL (http://…), got "${inspect}"`, 2);
    prompt = inspect;
    inspect = true;
  }
  if (options.json && prompt === undefined) throw new CliError("--json needs a prompt", 2);
  if (options.session === false && options.continue) {
    throw new CliError("--continue and --no-session cannot be used together", 2);
  }
  if (typeof options.session === "string" && options.continue) {
    throw new CliError("use either --session <id> or --continue", 2);
  }

  const home = io.env.HOME ?? homedir();
  const config = await loadCliConfig(home);
  const mcpConfig = await loadCliMcpConfig(io.cwd, home, options.mcpConfig);
  const choice = await chooseModel({
    provider: options.provider,
    modelId: options.model,
    baseUrl: options.baseUrl,
    env: io.env,
  });
  const { session, resumed } = await openSession(options, repo, io);
  let model = choice.model;
  let thinkingLevel: ThinkingLevel = options.thinking ?? "off";
  if (session) {
    const recorded = session.buildContext();
    const explicitModel = options.model ?? io.env.AGENTCHART_MODEL;
    if (explicitModel === undefined && recorded.model?.provider === model.provider) {
      model = withModelId(model, recorded.model.modelId);
    }
    if (options.thinking === undefined) thinkingLevel = recorded.thinkingLevel;
  }

  const resources = await loadCliResources(io.cwd, home, options.skills);
  const warn = (line: string) => io.stderr.write(`${terminalStyle(io.stderr).yellow(line)}\n`);
  const allowedMcp = await askingOnTerminal(io, (ask) =>
    consentToProjectServers(mcpConfig, {
      home,
      project: resolve(io.cwd),
      yes: options.yes === true,
      ask,
      warn,
    }),
  );
  const mcp = await connectCliMcp(allowedMcp, { cwd: io.cwd, yes: options.yes === true, warn });
  try {
    const trust = config.trust;
    const setup = { choice, session, resumed, model, thinkingLevel, resources, mcp, inspect, trust };
    return await runPrepared(prompt, options, setup, repo, io);
  } finally {
    await mcp?.close();
  }
}

/** What `runAgentCommand` prepared before the harness starts. */
interface RunSetup {
  choice: Awaited<ReturnType<typeof chooseModel>>;
  session: Session | undefined;
  resumed: boolean;
  model: Model;
  thinkingLevel: ThinkingLevel;
  resources: CliResources;
  mcp: McpConnection | undefined;
  inspect: string | true | undefined;
  /** Built-in tools that run without approval (`trust` of `~/.agentchart/config.json`). */
  trust: string[];
}

async function runPrepared(
  prompt: string | undefined,
  options: RunOptions,
  setup: RunSetup,
  repo: JsonlSessionRepo,
  io: RunIo,
): Promise<number> {
  const { choice, session, resumed, model, thinkingLevel, resources, mcp, inspect, trust } = setup;
  const inspector = inspect === undefined ? undefined : connectInspector(inspect, io);
  const tracing = wantsOtel(options.otel, io.env)
    ? await startOtlpTracing(io.env, (message) => io.stderr.write(`agentchart: ${message}\n`))
    : undefined;
  const recordingFile =
    options.record === undefined ? undefined : new RunRecordingFile(resolve(io.cwd, options.record));
  const builtinTools = withBuiltinApprovals(createBuiltinTools(), { yes: options.yes === true, trust });
  // Sub-agents may use the built-in tools (asking approval as they do) and the MCP servers' tools.
  const subAgents = agentFileTools(resources.agents, {
    tools: () => [...builtinTools, ...(mcp?.tools ?? [])],
    resolveModel: (id) => withModelId(model, id),
  });
  const budget: BudgetLimits = options.budget ?? {};
  const harness = await CliHarness.open({
    model,
    streamFn: choice.streamFn,
    thinkingLevel,
    systemPrompt: systemPromptFor(io.cwd),
    tools: [...builtinTools, ...subAgents.tools],
    ...(mcp ? { toolSources: [mcp] } : {}),
    toolContext: { cwd: io.cwd },
    resources: { skills: resources.skills, promptTemplates: resources.templates },
    ...(choice.compaction ? { compaction: choice.compaction } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
    ...(session ? { session, repo } : {}),
    ...(inspector ? { inspect: inspector.inspect } : {}),
    ...(tracing ? { attach: (harness: AgentHarness) => tracing.instrument(harness) } : {}),
    ...(recordingFile
      ? {
          record: true,
          attach: (harness: AgentHarness) => recordingFile.attach(harness, tracing?.instrument),
        }
      : {}),
    onHandlerError: (error, eventType) => {
      const reason = errorText(error);
      io.stderr.write(`agentchart: a handler of "${eventType}" failed: ${reason}\n`);
    },
  });

  try {
    for (const diagnostic of [...resources.diagnostics, ...subAgents.diagnostics]) {
      io.stderr.write(`${diagnostic.severity}: ${diagnostic.path}: ${diagnostic.message}\n`);
    }
    if (options.json)
      return await withLineApprovals(harness.current, io, budget, () =>
        runJson(harness.current, prompt as string, io),
      );
    const banner = [
      `agentchart — ${choice.banner}`,
      session ? `${resumed ? "continuing" : "new"} session ${session.id}` : "no session",
      ...(mcp ? [mcpBanner(mcp)] : []),
    ];
    if (prompt !== undefined) {
      io.stderr.write(`${terminalStyle(io.stderr).dim(banner.join(" · "))}\n`);
      return await withLineApprovals(harness.current, io, budget, () => runOnce(harness, prompt, io));
    }
    const style = terminalStyle(io.stdout);
    io.stdout.write(`${style.cyan(banner.join(" · "))}\n${style.dim("/help lists the commands")}\n`);
    return await runRepl({
      harness,
      renderer: new EventRenderer(io.stdout, style),
      resources,
      mcp,
      input: io.stdin,
      output: io.stdout,
      style,
      budget,
    });
  } finally {
    await recordingFile?.write();
    await harness.close();
    await inspector?.close();
    await tracing?.shutdown();
  }
}

/**
 * Runs `work` (one prompt, or `--json`) while tool approvals and budget pauses (against `budget`, the
 * status line on stderr) are asked on stderr and answered by the next line of stdin: the terminal when there is one, else whatever is piped in (`echo y | …`). When
 * stdin ends without an answer (closed, `</dev/null`) the call is refused, naming `--yes` and `trust`.
 */
async function withLineApprovals(
  harness: AgentHarness,
  io: RunIo,
  budget: BudgetLimits,
  work: () => Promise<number>,
): Promise<number> {
  const asker = lineAsker(io.stdin, io.stderr);
  const approvals = askForToolApprovals(harness, asker.ask, (line) => io.stderr.write(`${line}\n`));
  approvals.add(
    watchBudget(harness, {
      ask: asker.ask,
      write: (line) => io.stderr.write(`${line}\n`),
      limits: budget,
    }),
  );
  try {
    return await work();
  } finally {
    approvals.unsubscribe();
    asker.close();
  }
}

/** Runs `work` with a way to ask on the terminal (stderr, answered on stdin), or none without a terminal. */
async function askingOnTerminal<TResult>(
  io: RunIo,
  work: (ask: AskLine | undefined) => Promise<TResult>,
): Promise<TResult> {
  if (!io.stdin.isTTY) return work(undefined);
  const asker = lineAsker(io.stdin, io.stderr);
  try {
    return await work(asker.ask);
  } finally {
    asker.close();
  }
}

async function openSession(
  options: RunOptions,
  repo: JsonlSessionRepo,
  io: RunIo,
): Promise<{ session: Session | undefined; resumed: boolean }> {
  if (options.session === false) return { session: undefined, resumed: false };
  if (typeof options.session === "string") {
    const info = await resolveSessionInfo({ repo, where: options.sessionsDir }, options.session);
    return { session: await repo.open(info.id), resumed: true };
  }
  if (options.continue) {
    const latest = (await repo.list({ cwd: io.cwd }))[0];
    if (latest) return { session: await repo.open(latest.id), resumed: true };
    io.stderr.write("no earlier session in this folder; starting a new one\n");
  }
  return { session: await repo.create({ cwd: io.cwd }), resumed: false };
}

function connectInspector(target: string | true, io: RunIo): InspectorClient {
  const url = target === true ? `http://127.0.0.1:${DEFAULT_INSPECTOR_PORT}/` : target;
  const client = createInspectorClient(url);
  client.ready.catch((error: unknown) => {
    const reason = errorText(error);
    io.stderr.write(`agentchart: cannot reach the inspector at ${url} (${reason}); running without it\n`);
  });
  return client;
}

/** The base system prompt; the harness appends the skills the model may use. */
export function systemPromptFor(cwd: string): string {
  return (
    `You are a coding agent working in ${cwd}. Use the tools read, write, edit, bash and ls to look ` +
    "at and change files there; keep answers short and say what you changed."
  );
}

/** Exit code of a finished prompt: 130 aborted, 1 error, else 0. */
function exitCodeOf(stopReason: string | undefined): number {
  if (stopReason === "aborted") return 130;
  if (stopReason === "error") return 1;
  return 0;
}

async function runOnce(cli: CliHarness, prompt: string, io: RunIo): Promise<number> {
  const harness = cli.current;
  const style = terminalStyle(io.stdout);
  const renderer = new EventRenderer(io.stdout, style);
  const subscription = harness.events$.subscribe((event) => renderer.render(event));
  subscription.add(harness.phase$.subscribe((phase) => renderer.renderPhase(phase)));
  const onInterrupt = abortOnInterrupt(harness, io, "\n(aborting; Ctrl-C again exits at once)\n");
  process.on("SIGINT", onInterrupt);
  try {
    const result = await harness.prompt(prompt);
    if (cli.session) io.stderr.write(`${terminalStyle(io.stderr).dim(`session ${cli.session.id}`)}\n`);
    return exitCodeOf(result.reply.stopReason);
  } finally {
    process.off("SIGINT", onInterrupt);
    subscription.unsubscribe();
    renderer.dispose();
  }
}

async function runJson(harness: AgentHarness, prompt: string, io: RunIo): Promise<number> {
  const subscription = harness.events$.subscribe((event) => io.stdout.write(`${JSON.stringify(event)}\n`));
  const onInterrupt = abortOnInterrupt(harness, io);
  process.on("SIGINT", onInterrupt);
  try {
    const result = await harness.prompt(prompt);
    return exitCodeOf(result.reply.stopReason);
  } finally {
    process.off("SIGINT", onInterrupt);
    subscription.unsubscribe();
  }
}

/** Ctrl-C of a one-shot run: the first sends `ABORT` (writing `note`), the second exits at once. */
function abortOnInterrupt(harness: AgentHarness, io: RunIo, note?: string): () => void {
  let interrupts = 0;
  return () => {
    interrupts++;
    if (interrupts >= 2) process.exit(130);
    sendCommand(harness, { type: "ABORT" }, (line) => io.stderr.write(`${line}\n`));
    if (note !== undefined) io.stderr.write(note);
  };
}
