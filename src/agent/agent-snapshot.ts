import { type Actor, createActor, type InspectionEvent, type Observer } from "xstate";
import { type AgentRuntime, bindAgentRuntime } from "../actors/agent-runtime.js";
import type { AgentMachineContext } from "../loop/agent-context.js";
import { agentMachine } from "../machines/agent.machine.js";
import type { ToolCallContext } from "../machines/tool-call.machine.js";

export type AgentActor = Actor<typeof agentMachine>;

export const AGENT_SNAPSHOT_FORMAT = "agentchart.agent";
export const AGENT_SNAPSHOT_VERSION = 1;

/** A persisted agent: JSON-safe, versioned; made by `agent.persist()`, read by `Agent.restore`. */
export interface PersistedAgent {
  format: typeof AGENT_SNAPSHOT_FORMAT;
  version: typeof AGENT_SNAPSHOT_VERSION;
  /** XState's persisted snapshot of the agent actor, without its invoked step actors. */
  snapshot: PersistedAgentMachine;
}

/** A persisted child actor (a tool call) of the agent actor. */
export interface PersistedChild {
  src: unknown;
  snapshot: { status: string; value?: unknown; context?: unknown; children?: Record<string, unknown> };
  [key: string]: unknown;
}

/** XState's persisted snapshot of an agent actor, as `persist()` keeps it. */
export interface PersistedAgentMachine {
  status: string;
  value: unknown;
  context: AgentMachineContext;
  children: Record<string, PersistedChild>;
  [key: string]: unknown;
}

/** Why a persisted agent could not be restored. Nothing is built when it is thrown. */
export class AgentRestoreError extends Error {
  readonly code: "parse" | "format" | "version" | "invalid" | "tool";
  constructor(code: AgentRestoreError["code"], message: string) {
    super(message);
    this.name = "AgentRestoreError";
    this.code = code;
  }
}

/**
 * The agent actor's persisted snapshot as data. Invoked step actors (the stream, async between-turn
 * callbacks, a tool's execution and hooks) are left out: a restore re-enters the state that ran them,
 * by the rules of `resumePlan`. Tool call actors are kept with their state and context.
 */
export function persistAgent(actor: AgentActor): PersistedAgent {
  const persisted = actor.getPersistedSnapshot() as unknown as PersistedAgentMachine;
  const children: Record<string, PersistedChild> = {};
  for (const [id, child] of Object.entries(persisted.children ?? {})) {
    if (child.src !== "toolCall") continue;
    children[id] = { ...child, snapshot: { ...child.snapshot, children: {} } };
  }
  return {
    format: AGENT_SNAPSHOT_FORMAT,
    version: AGENT_SNAPSHOT_VERSION,
    snapshot: { ...persisted, children },
  };
}

const RUN_STATES = ["preparingTurn", "streaming", "executingTools"] as const;
export type RunStateName = (typeof RUN_STATES)[number];

/** What a restored actor must do once started: nothing (idle), or `RESUME` from a run state. */
export interface RestorePlan {
  from: RunStateName | undefined;
  /** Executing calls of `replay: "never"` tools: answered with an interruption result. */
  interrupted: string[];
}

/** State values in the snapshot win, except what the restore options set explicitly. */
export type RestoreOverrides = Partial<
  Pick<AgentMachineContext, "model" | "systemPrompt" | "thinkingLevel" | "messages">
>;

/**
 * Validates a persisted agent (object or JSON text) against `runtime`, applies `overrides`, and creates
 * (does not start) its actor with the runtime bound. Throws `AgentRestoreError` for text that does not
 * parse, another format or version, a malformed snapshot, or a tool that the runtime does not supply.
 */
export function restoreAgentActor(
  input: string | PersistedAgent,
  runtime: AgentRuntime,
  overrides: RestoreOverrides,
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void),
): { actor: AgentActor; plan: RestorePlan } {
  const persisted = parse(input);
  const snapshot = persisted.snapshot;
  const context = snapshot.context;
  const from = runStateOf(snapshot.value);
  for (const name of context.toolNames) requireTool(runtime, name);
  const interrupted: string[] = [];
  for (const [id, child] of Object.entries(snapshot.children)) {
    const callContext = child.snapshot.context as ToolCallContext | undefined;
    if (child.src !== "toolCall" || !callContext?.toolCall)
      throw invalid(`child actor "${id}" is not a tool call`);
    const tool = requireTool(runtime, callContext.toolCall.name);
    if (child.snapshot.value === "executing" && tool.replay !== "safe") interrupted.push(id);
  }
  const restored = {
    ...snapshot,
    context: { ...context, ...definedOnly(overrides) },
  };
  const actor = createActor(agentMachine, {
    snapshot: restored as never,
    input: { runtime, model: restored.context.model },
    ...(inspect ? { inspect } : {}),
  });
  bindAgentRuntime(actor, runtime);
  return { actor, plan: { from, interrupted } };
}

function parse(input: string | PersistedAgent): PersistedAgent {
  let data: unknown = input;
  if (typeof input === "string") {
    try {
      data = JSON.parse(input);
    } catch (error) {
      throw new AgentRestoreError(
        "parse",
        `The persisted agent is not valid JSON: ${(error as Error).message}`,
      );
    }
  }
  const candidate = data as Partial<PersistedAgent> | null;
  if (typeof candidate !== "object" || candidate === null || candidate.format !== AGENT_SNAPSHOT_FORMAT)
    throw new AgentRestoreError(
      "format",
      `Not a persisted agent (expected format "${AGENT_SNAPSHOT_FORMAT}")`,
    );
  if (candidate.version !== AGENT_SNAPSHOT_VERSION)
    throw new AgentRestoreError(
      "version",
      `Unknown persisted agent version ${JSON.stringify(candidate.version)} (this agentchart reads version ${AGENT_SNAPSHOT_VERSION})`,
    );
  const snapshot = candidate.snapshot as Partial<PersistedAgentMachine> | undefined;
  const context = snapshot?.context as Partial<AgentMachineContext> | undefined;
  if (snapshot?.status !== "active" || typeof context !== "object" || context === null)
    throw invalid("the snapshot has no active agent state");
  for (const key of ["messages", "steering", "followUp", "toolNames"] as const)
    if (!Array.isArray(context[key])) throw invalid(`context.${key} is not an array`);
  if (typeof context.model !== "object" || context.model === null) throw invalid("context.model is missing");
  if (typeof context.settings !== "object" || context.settings === null)
    throw invalid("context.settings is missing");
  if (typeof snapshot.children !== "object" || snapshot.children === null)
    throw invalid("children is missing");
  return candidate as PersistedAgent;
}

function runStateOf(value: unknown): RunStateName | undefined {
  if (value === "idle") return undefined;
  const name =
    typeof value === "string" ? value : typeof value === "object" && value ? Object.keys(value)[0] : "";
  const state = RUN_STATES.find((candidate) => candidate === name);
  if (!state) throw invalid(`unknown state ${JSON.stringify(value)}`);
  return state;
}

function requireTool(runtime: AgentRuntime, name: string) {
  const tool = runtime.tools.get(name);
  if (!tool)
    throw new AgentRestoreError(
      "tool",
      `The persisted agent uses tool "${name}", which the restore options do not supply`,
    );
  return tool;
}

function invalid(detail: string): AgentRestoreError {
  return new AgentRestoreError("invalid", `Malformed persisted agent: ${detail}`);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
