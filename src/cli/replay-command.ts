import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { convertHarnessMessagesToLlm } from "../harness/messages-convert.js";
import { recordingOfSession } from "../harness/replay-session.js";
import { Recording } from "../replay/recording.js";
import { RecordingError } from "../replay/recording-format.js";
import { ReplayDivergenceError } from "../replay/replay-divergence-error.js";
import type { ReplayToolMode } from "../replay/replay-tools.js";
import { verifyReplay } from "../replay/verify/verify-replay.js";
import { parseSessionText } from "../storage/session-file.js";
import { createBuiltinTools } from "../tools/builtin/index.js";
import { defineJsonSchemaTool } from "../tools/define-json-schema-tool.js";
import type { Model } from "../types/model.js";
import type { ToolSpec } from "../types/stream.js";
import type { AgentTool } from "../types/tool.js";
import { CliError } from "./cli-error.js";
import { EventRenderer } from "./event-renderer.js";
import type { RunIo } from "./run-command.js";
import { terminalStyle } from "./terminal-style.js";

/** The flags of `agentchart replay FILE`. */
export interface ReplayCommandOptions {
  /** Exit 1 on any divergence from the recording (and say where). */
  verify?: boolean;
  /** How tools answer (default `"recorded"`): see `replayTools`. */
  tools?: ReplayToolMode;
}

/** The values `--tools` takes. */
export const REPLAY_TOOL_MODES: readonly ReplayToolMode[] = ["recorded", "live", "verify"];

/**
 * `agentchart replay FILE`: re-runs a recorded run offline — a `*.recording.jsonl` file, or a session
 * file a harness recorded into (`record: true`) — printing it as `agentchart [prompt]` prints a run,
 * then a line saying whether it matched the recording. The code under test is the CLI's: the
 * recording's model answers; its tools are rebuilt from the recorded tool specs (`--tools recorded`,
 * answered from the recording) or are the CLI's built-in tools (`live`, `verify`), each recorded
 * tool's approvals asked again where the recording answered one. Resolves with the exit code: 0, or 1
 * with `--verify` when the re-run diverged.
 *
 * Contract: rejects with `CliError` for a file that cannot be read, a recording with no model call or
 * with sub-agents (their agents are code the CLI does not have), and, with `live`/`verify` tools, a
 * recorded tool the CLI has no built-in tool for (naming it); with `RecordingError` (file, line or
 * session entry) for a file that is not a recording. Nothing runs then.
 *
 * ```ts
 * declare const io: Parameters<typeof runReplayCommand>[2]; // the terminal's streams
 * const code = await runReplayCommand("runs/fix.recording.jsonl", { verify: true }, io);
 * ```
 */
export async function runReplayCommand(
  file: string,
  options: ReplayCommandOptions,
  io: RunIo,
): Promise<number> {
  const recording = await readRecordingOrSession(resolve(io.cwd, file), file);
  const mode = options.tools ?? "recorded";
  const first = recording.modelCalls[0];
  if (!first) throw new CliError(`${file}: the recording holds no model call; there is nothing to replay`);
  const nested = recording.modelCalls.find((call) => call.agentPath.length > 0);
  if (nested)
    throw new CliError(
      `${file}: the recording has sub-agents (${nested.agentPath.join("/")}); replay it in a test with verifyReplay and your agent tools`,
    );
  const builtins = createBuiltinTools();
  try {
    const model: Model = {
      id: first.request.model.id,
      name: first.request.model.id,
      api: first.request.model.api,
      provider: first.request.model.provider,
      contextWindow: 128_000,
      maxTokens: 16_384,
    };
    const style = terminalStyle(io.stdout);
    const renderer = new EventRenderer(io.stdout, style);
    const verdict = await verifyReplay(recording, {
      agent: {
        model,
        systemPrompt: first.request.systemPrompt,
        tools: replayedTools(recording, mode, builtins, file),
        toolContext: { cwd: io.cwd },
        ...(recording.source === "harness" ? { convertToLlm: convertHarnessMessagesToLlm } : {}),
      },
      tools: mode,
      onEvent: (event) => renderer.render(event),
    });
    renderer.dispose();
    const summary = `${recording.modelCalls.length} model calls, ${recording.toolCalls.length} tool calls, ${recording.commands.length} commands (tools: ${mode})`;
    if (!verdict.firstDivergence) {
      io.stderr.write(`${terminalStyle(io.stderr).dim(`replayed ${summary}: identical to the recording`)}\n`);
      return 0;
    }
    const where = new ReplayDivergenceError(verdict.firstDivergence).message;
    io.stderr.write(`${terminalStyle(io.stderr).yellow(where)}\n`);
    return options.verify ? 1 : 0;
  } finally {
    builtins.dispose();
  }
}

/** The recording in `path`: a recording file, or the recording a session file holds. */
async function readRecordingOrSession(path: string, file: string): Promise<Recording> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const firstLine = text.slice(0, text.indexOf("\n") === -1 ? undefined : text.indexOf("\n"));
  const isSession = /^\s*\{\s*"type"\s*:\s*"session"/.test(firstLine);
  try {
    return isSession ? recordingOfSession(parseSessionText(text).tree) : Recording.fromJSONL(text);
  } catch (error) {
    if (!(error instanceof RecordingError)) throw error;
    throw new RecordingError(error.code, error.detail, error.line, file);
  }
}

/**
 * The tools the replay offers, in the order of the recorded specs: built from each spec (`recorded`)
 * or the built-in tool of that name (`live`, `verify`); a tool asks for approval when the recording
 * answered an approval for one of its calls.
 */
function replayedTools(
  recording: Recording,
  mode: ReplayToolMode,
  builtins: readonly AgentTool[],
  file: string,
): AgentTool[] {
  const specs = new Map<string, ToolSpec>();
  for (const call of recording.modelCalls) for (const spec of call.request.tools) specs.set(spec.name, spec);
  const asked = toolsAskedFor(recording);
  return [...specs.values()].map((spec) => {
    const requiresApproval = asked.has(spec.name);
    if (mode === "recorded")
      return defineJsonSchemaTool({
        name: spec.name,
        description: spec.description,
        parameters: spec.parameters,
        requiresApproval,
        // `replayTools` answers every call from the recording: this tool never runs.
        execute: () => Promise.reject(new Error(`the recorded tool "${spec.name}" cannot run live`)),
      });
    const builtin = builtins.find((tool) => tool.name === spec.name);
    if (!builtin)
      throw new CliError(
        `${file}: the recording calls tool "${spec.name}", which agentchart has no built-in tool for (it has ${builtins.map((tool) => tool.name).join(", ")}); replay it with --tools recorded`,
      );
    return { ...builtin, requiresApproval };
  });
}

/** The names of the tools whose calls the recording approved or denied. */
function toolsAskedFor(recording: Recording): Set<string> {
  const toolOfCall = new Map<string, string>();
  for (const call of recording.modelCalls)
    for (const block of call.reply?.content ?? [])
      if (block.type === "toolCall") toolOfCall.set(block.id, block.name);
  const asked = new Set<string>();
  for (const { command } of recording.commands)
    if (command.type === "APPROVE_TOOL" || command.type === "DENY_TOOL") {
      const name = toolOfCall.get(command.toolCallId);
      if (name !== undefined) asked.add(name);
    }
  return asked;
}
