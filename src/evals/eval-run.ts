import type { InspectionEvent } from "xstate";
import { Agent, type AgentOptions } from "../agent/agent.js";
import { messagesText } from "../loop/messages.js";
import { errorText } from "../types/error-text.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { RunStopReason } from "../types/output.js";
import type { EvalCase, TrajectoryStep } from "./eval-case.js";
import { recordStatePath, type StatePathStep } from "./state-path.js";

/**
 * The agent under evaluation: the options of a fresh `Agent` for each run of a case (a scripted model
 * keeps its position, so each run needs its own). May be async (to open a connection, read a fixture).
 */
export type EvalAgent = (evalCase: EvalCase) => AgentOptions | Promise<AgentOptions>;

/**
 * Decides a tool call that waits for approval during an eval run: `true` approves it, `false` denies
 * it, a string denies it with that reason.
 */
export type EvalApproval = (
  request: { toolName: string; args: unknown },
  evalCase: EvalCase,
) => boolean | string;

/** Options of {@link runEvalCase}. */
export interface RunEvalCaseOptions {
  /** Decides each approval the run waits for (default: approve every call, so no run waits forever). */
  approve?: EvalApproval;
  /** Sees the agent before the prompt (tracing instruments it) and returns what to call after the run. */
  prepare?: (agent: Agent) => () => void;
}

/** What a run used: tokens and dollars of its replies, model calls and tool calls. */
export interface EvalUsage {
  tokens: number;
  costUsd: number;
  modelCalls: number;
  toolCalls: number;
}

/**
 * Everything scorers see of one run of a case: the messages it added, its final text, its trajectory
 * (the tool calls, in order), its typed output, its states and transitions, its usage and latency.
 * Plain data.
 */
export interface EvalRun {
  caseId: string;
  /** The messages the run added to the transcript: the prompt (the input's last message) and after. */
  messages: AgentMessage[];
  /** The text of the run's last assistant reply. */
  text: string;
  /** The tool calls of the run's assistant replies, in order. */
  toolCalls: TrajectoryStep[];
  /** The validated typed output, for agents with an `output` schema. */
  output: unknown;
  stopReason: RunStopReason;
  /** Why the run failed: the agent's error, or what the agent factory or `prompt` threw. */
  error?: string;
  usage: EvalUsage;
  /** Wall time of the run, in milliseconds. */
  latencyMs: number;
  /** The states the agent machine and its children entered, in order. */
  path: StatePathStep[];
  /** The agent machine's transitions taken (`transitionLabel`s of agentchart/testing), in order. */
  transitions: string[];
}

/**
 * Runs one case once against a fresh agent made by `agent`, recording its states through XState's
 * inspection API (composed with the options' own `inspect`).
 *
 * Contract: async; never rejects for the agent's failures: an agent factory or prompt that throws gives
 * a run with `stopReason: "error"` and `error` set. Calls that need approval are decided by
 * `options.approve` (default: approved), after the run has entered `awaitingApproval`.
 *
 * @example
 * ```ts
 * const run = await runEvalCase(() => ({ model, streamFn }), { id: "hi", input: "Say hi" });
 * run.text; // the reply
 * ```
 */
export async function runEvalCase(
  agent: EvalAgent,
  evalCase: EvalCase,
  options: RunEvalCaseOptions = {},
): Promise<EvalRun> {
  const recording = recordStatePath();
  const started = performance.now();
  let finish: (() => void) | undefined;
  try {
    const agentOptions = await agent(evalCase);
    const own = agentOptions.inspect;
    const inspect = own
      ? (event: InspectionEvent) => {
          recording.inspect(event);
          if (typeof own === "function") own(event);
          else own.next?.(event);
        }
      : recording.inspect;
    // Messages input: the conversation so far is the agent's transcript, its last message the prompt.
    const { input } = evalCase;
    const history = typeof input === "string" ? [] : input.slice(0, -1);
    const prompt = typeof input === "string" ? input : (input.at(-1) as AgentMessage);
    const messages = [...(agentOptions.messages ?? []), ...history];
    const instance = new Agent({ ...agentOptions, messages, inspect });
    const stopTracing = options.prepare?.(instance);
    const stopApproving = instance.subscribe((event) => {
      if (event.type !== "tool_approval_request") return;
      const decision = (options.approve ?? approveAll)(
        { toolName: event.toolName, args: event.args },
        evalCase,
      );
      // Answered once the event's transition is over and the call waits in `awaitingApproval`.
      queueMicrotask(() => {
        try {
          if (decision === true) instance.approveToolCall(event.toolCallId);
          else instance.denyToolCall(event.toolCallId, decision === false ? undefined : decision);
        } catch {
          // The call no longer waits (the run failed or was stopped meanwhile): nothing to decide.
        }
      });
    });
    finish = () => {
      stopApproving();
      stopTracing?.();
    };
    const result = await instance.prompt(prompt);
    const base = evalRunOf(evalCase.id, result.messages, performance.now() - started);
    return {
      ...base,
      output: result.output,
      stopReason: result.stopReason,
      ...(result.error ? { error: errorText(result.error) } : {}),
      path: recording.path,
      transitions: recording.transitions,
    };
  } catch (error) {
    return {
      ...evalRunOf(evalCase.id, [], performance.now() - started),
      stopReason: "error",
      error: errorText(error),
      path: recording.path,
      transitions: recording.transitions,
    };
  } finally {
    finish?.();
  }
}

const approveAll: EvalApproval = () => true;

/**
 * An {@link EvalRun} of messages alone (no states recorded): for runs made elsewhere (a stored
 * session, a recorded reply, a seam eval's candidate reply), so that every scorer can score them.
 *
 * Contract: pure; the stop reason is the last assistant reply's (`"stop"` without one).
 *
 * @example
 * ```ts
 * const run = evalRunOf("case-1", [...agent.state.messages]);
 * run.toolCalls.map((call) => call.name); // the tools the agent called, in order
 * ```
 */
export function evalRunOf(caseId: string, messages: AgentMessage[], latencyMs = 0): EvalRun {
  const replies = messages.filter((message): message is AssistantMessage => message.role === "assistant");
  const toolCalls: TrajectoryStep[] = [];
  const usage: EvalUsage = { tokens: 0, costUsd: 0, modelCalls: replies.length, toolCalls: 0 };
  for (const reply of replies) {
    usage.tokens += reply.usage?.totalTokens ?? 0;
    usage.costUsd += reply.usage?.cost?.total ?? 0;
    for (const block of reply.content) {
      if (block.type === "toolCall") toolCalls.push({ name: block.name, arguments: block.arguments });
    }
  }
  usage.toolCalls = toolCalls.length;
  const last = replies.at(-1);
  return {
    caseId,
    messages,
    text: last ? messagesText([last]) : "",
    toolCalls,
    output: undefined,
    stopReason: last?.stopReason ?? "stop",
    ...(last?.errorMessage ? { error: last.errorMessage } : {}),
    usage,
    latencyMs,
    path: [],
    transitions: [],
  };
}
