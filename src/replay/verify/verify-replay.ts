import type { AnyActorRef, InspectionEvent } from "xstate";
import { Agent, type AgentOptions } from "../../agent/agent.js";
import type { PersistedAgent } from "../../agent/agent-snapshot.js";
import { agentAt } from "../../agent/agent-tree.js";
import type { AgentEvent } from "../../types/events.js";
import type { AgentMessage } from "../../types/messages.js";
import { chainInspect } from "../../xstate/chain-inspect.js";
import { canonicalJson } from "../canonical-request.js";
import type { Recording } from "../recording.js";
import type { RecordedCommand } from "../recording-format.js";
import type { ReplayDivergence, ReplayDivergenceError } from "../replay-divergence-error.js";
import { replayModel } from "../replay-model.js";
import { type ReplayToolMode, replayTools } from "../replay-tools.js";

/** Options of `verifyReplay`. */
export interface VerifyReplayOptions<TOutput = unknown> {
  /** The options of the code under test (without a StreamFn: the recording answers). */
  agent: Omit<AgentOptions<TOutput>, "streamFn" | "record">;
  /** How the tools answer (default `"recorded"`; see `replayTools`). */
  tools?: ReplayToolMode;
  /** Hears every AgentEvent of the re-run from its start (e.g. to print it as it replays). */
  onEvent?: (event: AgentEvent) => void;
}

/** What `verifyReplay` found. */
export interface ReplayVerdict<TOutput = unknown> {
  /** True when the re-run matched the recording at every step. */
  ok: boolean;
  /** The first place the re-run left the recording. */
  firstDivergence?: ReplayDivergence;
  /** The agent that re-ran (its transcript, state and events are the re-run's). */
  agent: Agent<TOutput>;
}

/**
 * Re-runs a recorded run with the code under test, offline: builds a fresh agent from `options.agent`
 * with `replayModel(recording)` as its StreamFn and `replayTools(recording, tools, options.tools)`,
 * re-applies each recorded command from outside (prompt, steer, approve, deny, abort, client answers…)
 * to the agent at its recorded path once that agent is in the recorded state, and compares: each
 * model request, each tool call's arguments (and, with `"verify"` tools, results), every recorded state
 * a command arrived in, and the final transcript (without timestamps) with the last recorded step's.
 *
 * Contract: resolves (never rejects for a divergence) when the re-run is idle or cannot go on; a
 * command whose recorded state is never reached (the run ended, or waits for a person without it) is
 * a `"state"` divergence. Rejects only when `options.agent` cannot build an agent.
 *
 * ```ts
 * import { expect } from "vitest";
 * const verdict = await verifyReplay(recording, { agent: { model, systemPrompt: "You forecast.", tools } });
 * expect(verdict.firstDivergence).toBeUndefined();
 * ```
 */
export async function verifyReplay<TOutput = unknown>(
  recording: Recording,
  options: VerifyReplayOptions<TOutput>,
): Promise<ReplayVerdict<TOutput>> {
  const divergences: ReplayDivergence[] = [];
  const onDivergence = (error: ReplayDivergenceError) => divergences.push(error.divergence);
  let recheck = () => {};
  const streamFn = replayModel(recording, { onDivergence, onPlayingChange: () => recheck() });
  const agent = new Agent<TOutput>({
    ...options.agent,
    record: false,
    streamFn,
    tools: replayTools(recording, options.agent.tools ?? [], options.tools, { onDivergence }),
    inspect: chainInspect((event: InspectionEvent) => {
      if (event.type === "@xstate.snapshot") recheck();
    }, options.agent.inspect),
  });
  /**
   * Resolves once `ready()` says the agent may go on (true) or cannot reach what is awaited (false),
   * and with false at once after a divergence unless `throughDivergence`.
   */
  if (options.onEvent) agent.subscribe(options.onEvent);
  const until = (ready: () => boolean | undefined, throughDivergence = false) =>
    new Promise<boolean>((resolve) => {
      recheck = () => {
        const verdict = divergences.length > 0 && !throughDivergence ? false : ready();
        if (verdict === undefined) return;
        recheck = () => {};
        resolve(verdict);
      };
      recheck();
    });
  const stuck = () => {
    const root = agent.actor.getSnapshot();
    return !root.hasTag("busy") || (root.hasTag("awaitingHuman") && streamFn.playing() === 0);
  };

  for (const [position, entry] of recording.entries.entries()) {
    if (entry.kind !== "command") continue;
    const target = () => agentAt(agent.actor, entry.agentPath);
    const reached = await until(() => {
      const actor = target();
      // An abort of a streaming reply lands where the recorded reply was cut: once it is parked there.
      const settled = entry.command.type !== "ABORT" || !streamingState(entry.state) || streamFn.parked() > 0;
      if (actor && settled && sameState(actor, entry.state)) return true;
      return entry.command.type !== "PROMPT" && entry.command.type !== "CONTINUE" && stuck()
        ? false
        : undefined;
    });
    if (!reached) {
      if (divergences.length === 0) divergences.push(stateDivergence(position, entry, target()));
      break;
    }
    target()!.send(entry.command);
  }
  // The run goes on to its end, or to a wait no recorded command answers.
  await until(() => (stuck() ? true : undefined), true);
  if (!agent.actor.getSnapshot().hasTag("busy")) await agent.waitForIdle();
  if (divergences.length === 0) compareTranscripts(recording, agent, divergences);
  return {
    ok: divergences.length === 0,
    ...(divergences[0] ? { firstDivergence: divergences[0] } : {}),
    agent,
  };
}

function streamingState(state: unknown): boolean {
  return canonicalJson(state).startsWith('{"running":{"streaming"');
}

function sameState(actor: AnyActorRef, state: unknown): boolean {
  return canonicalJson(actor.getSnapshot().value) === canonicalJson(state);
}

function stateDivergence(
  step: number,
  entry: RecordedCommand,
  actor: AnyActorRef | undefined,
): ReplayDivergence {
  const actual = actor ? actor.getSnapshot().value : "(no agent at this path)";
  return {
    what: "state",
    step,
    agentPath: entry.agentPath,
    differences: [
      `the command ${entry.command.type} arrived in state ${canonicalJson(entry.state)}; the re-run never reached it (it is in ${canonicalJson(actual)})`,
    ],
    expected: entry.state,
    actual,
  };
}

/** Adds a `"state"` divergence when the re-run's transcript differs from the last recorded step's. */
function compareTranscripts(recording: Recording, agent: Agent, divergences: ReplayDivergence[]): void {
  const steps = recording.steps;
  const last = steps.at(-1);
  const snapshot = last?.snapshot as PersistedAgent | undefined;
  const recorded = snapshot?.snapshot?.context?.messages;
  if (!last || !recorded || last.step !== "run_end") return;
  const expected = withoutTimestamps(recorded);
  const actual = withoutTimestamps(agent.state.messages);
  if (canonicalJson(expected) === canonicalJson(actual)) return;
  divergences.push({
    what: "state",
    step: recording.entries.indexOf(last),
    agentPath: [],
    differences: [
      `the final transcript differs from the recorded one (${recorded.length} messages recorded, ${agent.state.messages.length} now)`,
    ],
    expected,
    actual,
  });
}

function withoutTimestamps(messages: readonly AgentMessage[]): unknown {
  return JSON.parse(JSON.stringify(messages), (key, value) => (key === "timestamp" ? undefined : value));
}
