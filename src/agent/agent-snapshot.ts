import { type Actor, createActor, type InspectionEvent, type Observer } from "xstate";
import {
  type AgentRuntime,
  bindAgentRuntime,
  guardrailNamesOf,
  hasTurnCallbacks,
} from "../actors/agent-runtime.js";
import type { AgentMachineContext } from "../loop/agent-context.js";
import { agentMachine } from "../machines/agent.machine.js";
import type { ToolCallContext } from "../machines/tool-call.machine.js";
import {
  issuesText,
  migrateV1toV2,
  migrateV2toV3,
  persistedAgentMachineSchema,
  SUPPORTED_AGENT_SNAPSHOT_VERSIONS,
} from "./persisted-agent-format.js";

export type AgentActor = Actor<typeof agentMachine>;

export const AGENT_SNAPSHOT_FORMAT = "agentchart.agent";
export const AGENT_SNAPSHOT_VERSION = 3;

/** A persisted agent: JSON-safe, versioned; made by `agent.persist()`, read by `Agent.restore`. */
export interface PersistedAgent {
  format: typeof AGENT_SNAPSHOT_FORMAT;
  /** 3 since agentchart 0.3.0; versions 1 (0.2.0) and 2 are migrated on restore. */
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

const RUN_STATES = ["preparingTurn", "streaming", "validatingOutput", "executingTools"] as const;
export type RunStateName = (typeof RUN_STATES)[number];

/** What a restored actor must do once started: nothing (idle), or `RESUME` from a run state. */
export interface RestorePlan {
  from: RunStateName | undefined;
  /** Executing calls of `replay: "never"` tools: answered with an interruption result. */
  interrupted: string[];
  /** Calls in a state whose invoked actor was not persisted (preflight, a `"safe"` execution, `afterToolCall`). */
  reenter: string[];
  /** Calls waiting for approval or the client: they ask again. */
  waiting: string[];
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
  const reenter: string[] = [];
  const waiting: string[] = [];
  for (const [id, child] of Object.entries(snapshot.children)) {
    const callContext = child.snapshot.context as ToolCallContext | undefined;
    if (child.src !== "toolCall" || !callContext?.toolCall)
      throw invalid(`child actor "${id}" is not a tool call`);
    const tool = requireTool(runtime, callContext.toolCall.name);
    const value = child.snapshot.value;
    if (value === "executing" && tool.replay !== "safe") interrupted.push(id);
    else if (value === "awaitingApproval" || value === "awaitingClient") waiting.push(id);
    else reenter.push(id);
  }
  // Guardrails and callbacks are functions: the restore options supply them; the context says which.
  const restored = {
    ...snapshot,
    context: {
      ...context,
      ...definedOnly(overrides),
      guardrails: guardrailNamesOf(runtime),
      hasTurnCallbacks: hasTurnCallbacks(runtime),
    },
  };
  const actor = createActor(agentMachine, {
    snapshot: restored as never,
    input: { runtime, model: restored.context.model },
    ...(inspect ? { inspect } : {}),
  });
  bindAgentRuntime(actor, runtime);
  return { actor, plan: { from, interrupted, reenter, waiting } };
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
  if (!SUPPORTED_AGENT_SNAPSHOT_VERSIONS.includes(candidate.version as never))
    throw new AgentRestoreError(
      "version",
      `Unknown persisted agent version ${JSON.stringify(candidate.version)} (this agentchart reads versions ${SUPPORTED_AGENT_SNAPSHOT_VERSIONS.join(", ")})`,
    );
  const raw = candidate.snapshot as Record<string, unknown> | undefined;
  if (typeof raw !== "object" || raw === null) throw invalid("the snapshot is missing");
  const version = candidate.version as number;
  const migrated = version === 3 ? raw : migrateV2toV3(version === 1 ? migrateV1toV2(raw) : raw);
  const checked = persistedAgentMachineSchema.safeParse(migrated);
  if (!checked.success) throw invalid(issuesText(checked.error.issues));
  const snapshot = migrated as unknown as PersistedAgentMachine;
  checkConsistency(snapshot);
  return { format: AGENT_SNAPSHOT_FORMAT, version: AGENT_SNAPSHOT_VERSION, snapshot };
}

/** What the schema cannot see: the run, its batch and the call actors must agree. */
function checkConsistency(snapshot: PersistedAgentMachine): void {
  const context = snapshot.context;
  const inRun = snapshot.value !== "idle";
  if (inRun && !context.run)
    throw invalid(`the agent is in ${JSON.stringify(snapshot.value)} but has no run`);
  if (snapshot.value === "executingTools" && !context.run?.batch)
    throw invalid("the agent is executing tools but its run has no tool batch");
  const batch = context.run?.batch;
  const calls = new Set(batch?.calls.map((call) => call.id) ?? []);
  for (const id of Object.keys(snapshot.children))
    if (snapshot.value !== "executingTools" || !calls.has(id))
      throw invalid(`child actor "${id}" belongs to no call of the current tool batch`);
  if (snapshot.value !== "executingTools" || !batch) return;
  for (const call of batch.calls) {
    const phase = batch.phases[call.id] ?? "pending";
    if (phase !== "pending" && phase !== "settled" && !snapshot.children[call.id])
      throw invalid(`tool call "${call.id}" is ${phase} but its actor is missing`);
  }
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
