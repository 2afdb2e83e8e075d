import { fromCallback, fromPromise } from "xstate";
import type { PromptOptions } from "../agent/agent.js";
import type {
  BackoffInput,
  CompactionInput,
  CompactionOutcome,
  HarnessMachineEvent,
  NavigateOperation,
  TurnInput,
  TurnOperation,
  TurnOutcome,
} from "../machines/harness/harness.machine.js";
import { abortableDelay } from "../providers/abortable-delay.js";
import { errorText } from "../types/error-text.js";
import type { AgentEvent } from "../types/events.js";
import { isPromiseLike, type MaybeAsyncSteps, runMaybeAsync } from "../types/maybe-async.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { AgentTool } from "../types/tool.js";
import type { ContextBudget } from "./compaction/context-budget.js";
import { type AgentHarnessError, wrapError } from "./errors.js";
import { type LoopHooks, runBeforeAgentStart } from "./loop-hooks.js";
import { isContextOverflow, isRetryableError, type RetryPolicy, retryDelayMs } from "./retry-policy.js";
import type { SessionRecorder } from "./session-recorder.js";
import type { HarnessSettings } from "./settings.js";
import type { SubAgentSessions } from "./sub-agent-sessions.js";
import { compactSession, navigateSession, type SummaryHost } from "./summaries.js";

/**
 * The harness's long-lived parts, built once by `composeHarness`; the machine's actors work on them.
 * `agent` is the facade over the machine's child `agent` (once it started).
 */
export interface HarnessParts extends SummaryHost {
  settings: HarnessSettings;
  recorder: SessionRecorder;
  loopHooks: LoopHooks;
  budget: ContextBudget;
  retry: RetryPolicy;
  /** The typed output the operation in progress asks for (a zod schema: not data, so not in the machine). */
  output: Omit<PromptOptions, "images"> | undefined;
  /** The `agent_end` of the agent's last run. */
  lastEnd: Extract<AgentEvent, { type: "agent_end" }> | undefined;
  /** The agent's sub-agents and their sessions. */
  subAgents: SubAgentSessions;
  /** The active tools as the agent runs them: journaled, agent tools wired to the harness. */
  agentTools: () => AgentTool[];
  /** Where handler and recording failures go (`onHandlerError`). */
  onError: (error: unknown, eventType: string) => void;
}

/** What the `turn` actor sends back when its run ended. */
type TurnDone = Extract<HarnessMachineEvent, { type: "TURN_DONE" }>;

/**
 * The actors `harnessMachine` invokes, working on `parts`: `turn` (an Agent run), `backoff` (the wait
 * before a retry), `compact` and `navigate`. Each does its work and reports back; none of them changes
 * the machine's context.
 *
 * Contract: never throws; the actors report failures to the machine (`TURN_FAILED`, `xstate.error.actor.*`).
 *
 * ```ts
 * import { harnessMachine } from "agentchart/machines";
 * declare const parts: Parameters<typeof harnessActors>[0];
 * const machine = harnessMachine.provide({ actors: harnessActors(parts) });
 * ```
 */
export function harnessActors(parts: HarnessParts) {
  return {
    /**
     * Runs the turn and sends back `TURN_DONE {outcome, reply}` or `TURN_FAILED {error}`. `ABORT` (the
     * machine forwards it) aborts the turn: the hooks' signal, and the Agent run once it started.
     */
    turn: fromCallback<{ type: "ABORT" }, TurnInput>(({ input, sendBack, receive }) => {
      const controller = new AbortController();
      let ended = false;
      // The Agent's abort is a no-op before its run starts: `runTurn` aborts the run it starts then.
      // (An ended turn is not aborted when the actor stops: an abort costs a DOMException.)
      const abort = () => {
        if (ended) return;
        controller.abort();
        parts.agent.abort();
      };
      receive(abort);
      // One promise job later, so that `phase$` already says `turn` when the Agent's first events arrive.
      Promise.resolve()
        .then(() => runTurn(parts, input, controller.signal))
        .catch((error: unknown) => ({ type: "TURN_FAILED" as const, error }))
        .then((report) => {
          ended = true;
          sendBack(report);
        });
      return abort;
    }),
    backoff: fromPromise<void, BackoffInput>(({ input, signal }) => backoff(parts, input.attempt, signal)),
    compact: fromPromise<CompactionOutcome, CompactionInput>(({ input, signal }) =>
      compact(parts, input, signal),
    ),
    navigate: fromPromise<unknown, NavigateOperation>(({ input, signal }) =>
      navigateSession(parts, input.targetId, input.options, signal),
    ),
  };
}

/** How a run starts: its messages, system prompt and tool context, and a failure that ends it at once. */
interface PreparedRun {
  messages: AgentMessage[];
  systemPrompt: string;
  toolContext: unknown;
  failure: AgentHarnessError | undefined;
}

/**
 * One turn: prepares the run (tool context, system prompt, `before_agent_start`), runs the Agent
 * (a prompt, the recorded calls of a resume, or a continuation), waits until the session has the
 * run's entries, and classifies the last reply. A failure while preparing still runs the Agent, which
 * ends at once with the failure as its error message (persisted like any other). Rejects only when the
 * session could not persist the run.
 */
async function runTurn(parts: HarnessParts, input: TurnInput, signal: AbortSignal): Promise<TurnDone> {
  const { agent, loopHooks, recorder } = parts;
  const prepared = runMaybeAsync(prepareRun(parts, input, signal));
  const start = isPromiseLike(prepared) ? await prepared : prepared;
  if (input.mode === "continue") agent.setMessages(withoutTrailingFailures(agent.state.messages));
  agent.setSystemPrompt(start.systemPrompt);
  loopHooks.startRun({ toolContext: start.toolContext, fail: (error) => agent.fail(error) });
  const run = startRun(parts, input, start.messages);
  if (start.failure) agent.fail(start.failure);
  if (signal.aborted) agent.abort();
  await run;
  await Promise.all([recorder.flush(), parts.subAgents.settled()]);
  const reply = agent.state.messages.findLast((m): m is AssistantMessage => m.role === "assistant");
  // An aborted turn is done, whatever its reply says: it is neither retried nor compacted after.
  const outcome = signal.aborted ? DONE : classify(parts, reply);
  return { type: "TURN_DONE", outcome, reply };
}

const DONE: TurnOutcome = { verdict: "done", compactionDue: false };

/**
 * The run's start: tool context, system prompt, then `before_agent_start` when an operation's run
 * starts (not when a turn continues). Each step awaits only what is really asynchronous (a tool
 * context or prompt function, hooks): a plain turn prepares synchronously. Never throws: a failure
 * becomes the run's `failure` (the run keeps the agent's system prompt when none could be resolved).
 */
function* prepareRun(
  parts: HarnessParts,
  input: TurnInput,
  signal: AbortSignal,
): MaybeAsyncSteps<PreparedRun> {
  const { settings, session, hooks } = parts;
  const { operation } = input;
  const { model, thinkingLevel, systemPrompt } = parts.agent.state;
  const start: PreparedRun = {
    messages: messagesOf(operation),
    systemPrompt,
    toolContext: undefined,
    failure: undefined,
  };
  try {
    start.toolContext = yield settings.resolveToolContext();
    // After a handoff the active agent's system prompt stays (the harness's is the first agent's).
    if (parts.agent.state.activeAgent === undefined)
      start.systemPrompt = (yield settings.systemPrompt(session, model, thinkingLevel)) as string;
  } catch (error) {
    start.failure = wrapError("hook", "Preparing the run failed", error);
  }
  if (input.mode !== "start" || !hooks.has("before_agent_start")) return start;
  try {
    const added = (yield runBeforeAgentStart(hooks, {
      prompt: operation.kind === "prompt" ? operation.prompt : "",
      images: operation.kind === "prompt" ? operation.images : [],
      systemPrompt: start.systemPrompt,
      resources: settings.resources(),
      signal,
    })) as { messages: AgentMessage[]; systemPrompt: string };
    start.messages = [...start.messages, ...added.messages];
    start.systemPrompt = added.systemPrompt;
  } catch (error) {
    start.failure = error as AgentHarnessError;
  }
  return start;
}

function messagesOf(operation: TurnOperation): AgentMessage[] {
  return operation.kind === "prompt" ? operation.messages : [];
}

/** Starts the Agent run of a turn; resolves when it ended. */
function startRun(parts: HarnessParts, input: TurnInput, messages: AgentMessage[]): Promise<unknown> {
  const { agent } = parts;
  // An agent restored mid-run goes on by itself: the turn is its run.
  if (agent.actor.getSnapshot().hasTag("busy")) return agent.waitForIdle();
  const output = parts.output ?? {};
  if (input.mode === "continue") return agent.continue(output);
  const { operation } = input;
  if (operation.kind === "resume" && operation.calls)
    return agent.resumeToolCalls(operation.calls.message, operation.calls.states);
  return agent.prompt(messages, output);
}

/** How the turn ended, by its last reply: a transient error, a context overflow, or done (compaction due?). */
function classify(parts: HarnessParts, reply: AssistantMessage | undefined): TurnOutcome {
  if (!reply) return DONE;
  if (isRetryableError(reply)) return { verdict: "retryable", compactionDue: false };
  if (isContextOverflow(reply)) return { verdict: "overflow", compactionDue: false };
  if (reply.stopReason === "error" || reply.stopReason === "aborted") return DONE;
  const { messages, model } = parts.agent.state;
  return { verdict: "done", compactionDue: parts.budget.compactionDue(messages, model.contextWindow) };
}

/** The transcript without the failed assistant replies at its end (a retry must not resend them). */
function withoutTrailingFailures(messages: readonly AgentMessage[]): AgentMessage[] {
  let end = messages.length;
  while (end > 0) {
    const last = messages[end - 1]!;
    if (last.role !== "assistant" || last.stopReason !== "error") break;
    end--;
  }
  return messages.slice(0, end);
}

/** Emits `retry`, then waits the policy's delay for retry `attempt` (rejects when the signal aborts). */
async function backoff(parts: HarnessParts, attempt: number, signal: AbortSignal): Promise<void> {
  const { agent, retry, events } = parts;
  const last = agent.state.messages.findLast((m): m is AssistantMessage => m.role === "assistant");
  const delayMs = retryDelayMs(retry, attempt);
  events.emit({
    type: "retry",
    attempt,
    maxRetries: retry.maxRetries,
    delayMs,
    errorMessage: last?.errorMessage ?? "",
  });
  if (retry.sleep) return retry.sleep(delayMs, signal);
  await abortableDelay(delayMs, signal);
  signal.throwIfAborted();
}

/**
 * Compacts the session. A manual compaction's output is its result (`HarnessCompactResult`) and its
 * failures fail the operation; an automatic one reports a failure as `compaction_failed` and goes on.
 */
async function compact(
  parts: HarnessParts,
  { reason, instructions }: CompactionInput,
  signal: AbortSignal,
): Promise<CompactionOutcome> {
  try {
    return await compactSession(parts, reason, instructions, signal);
  } catch (error) {
    if (reason === "manual") throw error;
    if (!signal.aborted)
      parts.events.emit({ type: "compaction_failed", reason, errorMessage: errorText(error) });
    return { compacted: false };
  }
}
