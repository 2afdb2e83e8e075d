import type { AnyActorRef, InspectionEvent } from "xstate";
import type { AgentMachineContext } from "../machines/agent/agent.context.js";
import type { AgentCommand } from "../machines/agent/agent.events.js";
import type { RecordedCommand, RecordedStep, RecordedStepKind, RecordingEntry } from "./recording-format.js";

/** The event types of `AgentCommand`: what the world outside the agent tree sends it. */
const COMMAND_TYPES = new Set<AgentCommand["type"]>([
  "PROMPT",
  "CONTINUE",
  "RAISE_BUDGET",
  "CONTINUE_ONCE",
  "STEER",
  "FOLLOW_UP",
  "CLEAR_QUEUES",
  "ABORT",
  "FAIL",
  "APPROVE_TOOL",
  "DENY_TOOL",
  "ANSWER_TOOL",
  "RESUME_CALLS",
  "RESET",
  "SET_MODEL",
  "SET_THINKING_LEVEL",
  "SET_SYSTEM_PROMPT",
  "SET_TOOLS",
  "SET_MESSAGES",
  "SET_STREAM_OPTIONS",
  "RESUME",
]);

/**
 * The inspection observer behind `recording.inspect`: gives `add` each command an agent of the system
 * receives from outside the agent tree (no sender, or a sender that is neither an agent nor a tool
 * call: the `Agent` facade, a harness machine, your own machine) with the agent's state value then
 * (`commandEntryOf`), and the root agent's step boundaries (`stepRecorder`).
 *
 * Contract: the observer never throws; it only reads snapshots.
 */
export function recordingInspector<TSnapshot>(
  add: (entry: RecordingEntry<TSnapshot>) => void,
  persist: (actor: AnyActorRef) => TSnapshot,
): (event: InspectionEvent) => void {
  const step = stepRecorder(add, persist);
  // The root agent, once seen: every other actor's snapshot is skipped at the cost of one comparison.
  let root: AnyActorRef | undefined;
  return (event) => {
    if (event.type === "@xstate.event") {
      const command = event.event as AgentCommand;
      if (!COMMAND_TYPES.has(command.type) || insideAgentTree(event.sourceRef as AnyActorRef)) return;
      const entry = commandEntryOf(event.actorRef as AnyActorRef, command);
      if (entry) add(entry);
    } else if (event.type === "@xstate.snapshot") {
      const actor = event.actorRef as AnyActorRef;
      if (actor !== root) {
        if (root?.getSnapshot().status === "active") return;
        const context = agentContextOf(actor);
        if (!context || context.place) return;
        root = actor;
      }
      step(actor, (event.snapshot as { value?: unknown }).value);
    }
  };
}

/**
 * The entry of `command` arriving at `target`, an agent of the tree (its path, its state value now);
 * `undefined` when `target` is no agent.
 *
 * Contract: reads `target`'s snapshot; never throws.
 */
export function commandEntryOf(target: AnyActorRef, command: AgentCommand): RecordedCommand | undefined {
  const context = agentContextOf(target);
  if (!context) return undefined;
  return {
    kind: "command",
    agentPath: [...(context.place?.path ?? [])],
    state: target.getSnapshot().value,
    command,
  };
}

/**
 * A function to call with the root agent's actor and state value after each of its macrosteps: it
 * gives `add` a step, with `persist(actor)`, whenever a step boundary was crossed (`stepKindOf`).
 *
 * Contract: the function never throws unless `persist` does.
 */
export function stepRecorder<TSnapshot>(
  add: (entry: RecordedStep<TSnapshot>) => void,
  persist: (actor: AnyActorRef) => TSnapshot,
): (actor: AnyActorRef, value: unknown) => void {
  let previous: unknown;
  let index = 0;
  return (actor, value) => {
    if (value === previous) return;
    const step = stepKindOf(previous, value);
    previous = value;
    if (step) add({ kind: "step", index: index++, step, value, snapshot: persist(actor) });
  };
}

/** The context of an agent machine actor; `undefined` for any other actor. */
function agentContextOf(actor: AnyActorRef | undefined): AgentMachineContext | undefined {
  const context = (actor?.getSnapshot() as { context?: Partial<AgentMachineContext> } | undefined)?.context;
  return context && Array.isArray(context.toolNames) && "formatVersion" in context
    ? (context as AgentMachineContext)
    : undefined;
}

/** Whether `source` is an agent or one of its tool call actors (their events are the run's own). */
function insideAgentTree(source: AnyActorRef | undefined): boolean {
  if (!source) return false;
  if (agentContextOf(source)) return true;
  const context = (source.getSnapshot() as { context?: { toolCall?: unknown } } | undefined)?.context;
  return context?.toolCall !== undefined;
}

/**
 * Which step boundary the root agent crossed going from state value `previous` to `value`: a turn
 * starts (it enters `running.streaming`), a tool batch settles (it leaves `running.executingTools`),
 * a call starts waiting for a person (`executingTools.awaitingHuman`), a run ends (back in `idle`).
 *
 * Contract: pure; `undefined` when no boundary was crossed.
 */
export function stepKindOf(previous: unknown, value: unknown): RecordedStepKind | undefined {
  const streaming = (state: unknown) => runningIn(state) === "streaming";
  const executing = (state: unknown) => runningIn(state) === "executingTools";
  const awaiting = (state: unknown) =>
    executing(state) &&
    (state as { running: { executingTools?: unknown } }).running.executingTools === "awaitingHuman";
  if (streaming(value) && !streaming(previous)) return "turn_start";
  if (executing(previous) && !executing(value)) return value === "idle" ? "run_end" : "tools_settled";
  if (awaiting(value) && !awaiting(previous)) return "awaiting_human";
  if (value === "idle" && previous !== undefined && previous !== "idle") return "run_end";
  return undefined;
}

/** The child state of `running` that `value` is in, if any. */
function runningIn(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const running = (value as { running?: unknown }).running;
  if (typeof running === "string") return running;
  return running && typeof running === "object" ? Object.keys(running)[0] : undefined;
}
