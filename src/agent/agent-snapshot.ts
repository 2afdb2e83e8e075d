import { type Actor, createActor, type InspectionEvent, type Observer } from "xstate";
import { subAgentRuntime } from "../actors/sub-agent.actors.js";
import type { AgentMachineContext } from "../machines/agent/agent.context.js";
import { agentMachine } from "../machines/agent/agent.machine.js";
import {
  type AgentRuntime,
  bindAgentRuntime,
  guardrailNamesOf,
  hasTurnCallbacks,
} from "../machines/agent/agent.runtime.js";
import type { ToolCallContext } from "../machines/tool-call/tool-call.context.js";
import { errorText } from "../types/error-text.js";
import { agentAt } from "./agent-tree.js";
import {
  issuesText,
  migrateV1toV2,
  migrateV2toV3,
  persistedAgentMachineSchema,
  SUPPORTED_AGENT_SNAPSHOT_VERSIONS,
} from "./persisted-agent-format.js";

export type AgentActor = Actor<typeof agentMachine>;

export const AGENT_SNAPSHOT_FORMAT = "agentchart.agent";
export const AGENT_SNAPSHOT_VERSION = 4;

/** A persisted agent: JSON-safe, versioned; made by `agent.persist()`, read by `Agent.restore`. */
export interface PersistedAgent {
  format: typeof AGENT_SNAPSHOT_FORMAT;
  /** 4 since agentchart 0.3.0 (sub-agents); versions 1 (0.2.0), 2 and 3 are migrated on restore. */
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
 * by the rules of `resumePlan`. Tool call actors are kept with their state and context, and a call
 * running a child agent keeps that agent, persisted the same way.
 */
export function persistAgent(actor: AgentActor): PersistedAgent {
  const persisted = actor.getPersistedSnapshot() as unknown as PersistedAgentMachine;
  return {
    format: AGENT_SNAPSHOT_FORMAT,
    version: AGENT_SNAPSHOT_VERSION,
    snapshot: withoutStepActors(persisted),
  };
}

function withoutStepActors(persisted: PersistedAgentMachine): PersistedAgentMachine {
  const children: Record<string, PersistedChild> = {};
  for (const [id, child] of Object.entries(persisted.children ?? {})) {
    if (child.src !== "toolCall") continue;
    const agent = child.snapshot.children?.agent as PersistedChild | undefined;
    const kept = agent
      ? {
          agent: {
            ...agent,
            snapshot: withoutStepActors(agent.snapshot as unknown as PersistedAgentMachine),
          },
        }
      : {};
    children[id] = { ...child, snapshot: { ...child.snapshot, children: kept } };
  }
  return { ...persisted, children };
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
  /** Sub-agents (at any depth, parents first) that go on with their own plan. */
  subAgents: { path: string[]; plan: RestorePlan }[];
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
  const runtimes: { path: string[]; runtime: AgentRuntime }[] = [];
  const level = restoreLevel(persisted.snapshot, runtime, [], runtimes);
  const snapshot = { ...level.snapshot, context: { ...level.snapshot.context, ...definedOnly(overrides) } };
  const actor = createActor(agentMachine, {
    snapshot: snapshot as never,
    input: { runtime, model: snapshot.context.model },
    ...(inspect ? { inspect } : {}),
  });
  bindAgentRuntime(actor, runtime);
  // Parents first: a child's events go up through its parent's binding.
  for (const { path, runtime: childRuntime } of runtimes)
    bindAgentRuntime(agentAt(actor, path)!, childRuntime);
  return { actor, plan: level.plan };
}

/**
 * One agent of the persisted tree: checks its tools against `runtime`, sorts its calls into the
 * plan, rebuilds each sub-agent's runtime from its agent tool (recursively, into `runtimes`), and
 * refreshes what the context holds of the runtime (guardrail names, whether callbacks exist).
 */
function restoreLevel(
  snapshot: PersistedAgentMachine,
  runtime: AgentRuntime,
  path: string[],
  runtimes: { path: string[]; runtime: AgentRuntime }[],
): { snapshot: PersistedAgentMachine; plan: RestorePlan } {
  const context = snapshot.context;
  const plan: RestorePlan = {
    from: runStateOf(snapshot.value),
    interrupted: [],
    reenter: [],
    waiting: [],
    subAgents: [],
  };
  for (const name of context.toolNames) requireTool(runtime, name);
  const children: Record<string, PersistedChild> = {};
  for (const [id, child] of Object.entries(snapshot.children)) {
    const callContext = child.snapshot.context as ToolCallContext | undefined;
    if (child.src !== "toolCall" || !callContext?.toolCall)
      throw invalid(`child actor "${id}" is not a tool call`);
    const tool = requireTool(runtime, callContext.toolCall.name);
    const value = child.snapshot.value;
    const agent = child.snapshot.children?.agent as PersistedChild | undefined;
    children[id] = child;
    if ((value === "delegating") !== (agent !== undefined))
      throw invalid(
        agent
          ? `tool call "${id}" holds a child agent but is ${JSON.stringify(value)}`
          : `tool call "${id}" is delegating but its child agent is missing`,
      );
    if (agent) {
      if (!tool.subAgent)
        throw invalid(`tool call "${id}" runs a child agent but "${tool.name}" is no agent tool`);
      const childPath = [...path, id];
      let childRuntime: AgentRuntime;
      try {
        childRuntime = subAgentRuntime(runtime, tool, id, callContext.args).runtime;
      } catch (error) {
        throw new AgentRestoreError(
          "tool",
          `The agent tool "${tool.name}" could not rebuild its sub-agent: ${errorText(error)}`,
        );
      }
      runtimes.push({ path: childPath, runtime: childRuntime });
      const nested = agent.snapshot as unknown as PersistedAgentMachine;
      checkConsistency(nested, `sub-agent ${childPath.join("/")}: `);
      const childLevel = restoreLevel(nested, childRuntime, childPath, runtimes);
      children[id] = {
        ...child,
        snapshot: { ...child.snapshot, children: { agent: { ...agent, snapshot: childLevel.snapshot } } },
      };
      if (childLevel.plan.from) plan.subAgents.push({ path: childPath, plan: childLevel.plan });
      plan.subAgents.push(...childLevel.plan.subAgents);
      childLevel.plan.subAgents = [];
    } else if (value === "executing" && tool.replay !== "safe") plan.interrupted.push(id);
    else if (value === "awaitingApproval" || value === "awaitingClient") plan.waiting.push(id);
    else plan.reenter.push(id);
  }
  // Guardrails and callbacks are functions: the restore options supply them; the context says which.
  return {
    snapshot: {
      ...snapshot,
      children,
      context: {
        ...context,
        guardrails: guardrailNamesOf(runtime),
        hasTurnCallbacks: hasTurnCallbacks(runtime),
      },
    },
    plan,
  };
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
  // Version 4 added agent tools' states and nested agents, which older snapshots never hold.
  const migrated = version >= 3 ? raw : migrateV2toV3(version === 1 ? migrateV1toV2(raw) : raw);
  const checked = persistedAgentMachineSchema.safeParse(migrated);
  if (!checked.success) throw invalid(issuesText(checked.error.issues));
  const snapshot = migrated as unknown as PersistedAgentMachine;
  checkConsistency(snapshot);
  return { format: AGENT_SNAPSHOT_FORMAT, version: AGENT_SNAPSHOT_VERSION, snapshot };
}

/** What the schema cannot see: the run, its batch and the call actors must agree. */
function checkConsistency(snapshot: PersistedAgentMachine, where = ""): void {
  const fail = (detail: string) => invalid(where + detail);
  const context = snapshot.context;
  const inRun = snapshot.value !== "idle";
  if (inRun && !context.run) throw fail(`the agent is in ${JSON.stringify(snapshot.value)} but has no run`);
  if (snapshot.value === "executingTools" && !context.run?.batch)
    throw fail("the agent is executing tools but its run has no tool batch");
  const batch = context.run?.batch;
  const calls = new Set(batch?.calls.map((call) => call.id) ?? []);
  for (const id of Object.keys(snapshot.children))
    if (snapshot.value !== "executingTools" || !calls.has(id))
      throw fail(`child actor "${id}" belongs to no call of the current tool batch`);
  if (snapshot.value !== "executingTools" || !batch) return;
  for (const call of batch.calls) {
    const phase = batch.phases[call.id] ?? "pending";
    if (phase !== "pending" && phase !== "settled" && !snapshot.children[call.id])
      throw fail(`tool call "${call.id}" is ${phase} but its actor is missing`);
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
