import { type Actor, createActor, type InspectionEvent, type Observer } from "xstate";
import { subAgentOptions, subAgentSpecOf } from "../actors/sub-agent.actors.js";
import { AGENT_FORMAT_VERSION, type AgentMachineContext } from "../machines/agent/agent.context.js";
import { type AgentImplementations, agentImplementations } from "../machines/agent/agent.implementations.js";
import type { agentMachine } from "../machines/agent/agent.machine.js";
import { agentMachineOf } from "../machines/agent/agent.provided.js";
import type { SubAgentStart, ToolCallContext } from "../machines/tool-call/tool-call.context.js";
import { definedFields } from "../types/defined-fields.js";
import { errorText } from "../types/error-text.js";
import {
  issuesText,
  migrateV1toV2,
  migrateV2toV3,
  migrateV4toV5,
  persistedAgentMachineSchema,
  SUPPORTED_AGENT_SNAPSHOT_VERSIONS,
} from "./persisted-agent-format.js";

export type AgentActor = Actor<typeof agentMachine>;

export const AGENT_SNAPSHOT_FORMAT = "agentchart.agent";
export const AGENT_SNAPSHOT_VERSION = AGENT_FORMAT_VERSION;

/** A persisted agent: JSON-safe, versioned; made by `agent.persist()`, read by `Agent.restore`. */
export interface PersistedAgent {
  format: typeof AGENT_SNAPSHOT_FORMAT;
  /** 5 since the statechart became the contract; versions 1 (0.2.0) to 4 (0.3.0) are migrated on restore. */
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
 * by the rules of `restoreAgentActor`'s plan. Tool call actors are kept with their state and context,
 * and a call running a child agent keeps that agent, persisted the same way.
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

/** The states of a run (`running`'s children) a restore resumes from. */
export type RunStateName = "preparingTurn" | "streaming" | "validatingOutput" | "executingTools";

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
  Pick<AgentMachineContext, "agentId" | "model" | "systemPrompt" | "thinkingLevel" | "messages">
>;

/**
 * Validates a persisted agent (object or JSON text) against `implementations`, applies `overrides`,
 * and creates (does not start) its actor: `createActor(agentMachineOf(implementations), { snapshot })`,
 * the road a user of the machine takes. The actor is a root: a host's `parentEvents` are dropped. Throws `AgentRestoreError` for text that does not parse,
 * another format or version, a malformed snapshot, or a tool that the implementations do not supply.
 */
export function restoreAgentActor(
  input: string | PersistedAgent,
  implementations: AgentImplementations,
  overrides: RestoreOverrides,
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void),
): { actor: AgentActor; plan: RestorePlan } {
  const restorable = restorableAgentSnapshot(input, implementations, overrides);
  // The actor has no parent: the events a former host (a harness's agent) sent its parent go to the
  // listeners only, or the first of them would fail the actor ("Unable to send event to '#_parent'").
  const { parentEvents: _hostWanted, ...context } = restorable.snapshot.context;
  const snapshot = { ...restorable.snapshot, context };
  const plan = restorable.plan;
  const actor = createActor(agentMachineOf(implementations), {
    snapshot: snapshot as never,
    input: { model: snapshot.context.model },
    ...(inspect ? { inspect } : {}),
  });
  return { actor, plan };
}

/**
 * A persisted agent (object or JSON text) checked against `implementations`, migrated to this
 * version and with `overrides` applied: XState's persisted snapshot of the agent machine, and what
 * the restored actor resumes once started. Throws `AgentRestoreError` as `restoreAgentActor` does.
 */
export function restorableAgentSnapshot(
  input: string | PersistedAgent,
  implementations: AgentImplementations,
  overrides: RestoreOverrides,
): { snapshot: PersistedAgentMachine; plan: RestorePlan } {
  const persisted = parse(input);
  const plan = restoreLevel(persisted.snapshot, implementations, []);
  const snapshot = {
    ...persisted.snapshot,
    context: { ...persisted.snapshot.context, ...definedFields(overrides) },
  };
  return { snapshot, plan };
}

/**
 * One agent of the persisted tree: checks its tools against `implementations` and sorts its calls
 * into the plan, recursively for each sub-agent (with the implementations its agent tool gives it).
 */
function restoreLevel(
  snapshot: PersistedAgentMachine,
  implementations: AgentImplementations,
  path: string[],
): RestorePlan {
  const context = snapshot.context;
  const plan: RestorePlan = {
    from: runStateOf(snapshot.value),
    interrupted: [],
    reenter: [],
    waiting: [],
    subAgents: [],
  };
  for (const name of context.toolNames) requireTool(implementations, name);
  for (const [id, child] of Object.entries(snapshot.children)) {
    // The schema admits tool call actors only, each with its call.
    const callContext = child.snapshot.context as ToolCallContext;
    const tool = requireTool(implementations, callContext.toolCall.name);
    const value = child.snapshot.value;
    const agent = child.snapshot.children?.agent as PersistedChild | undefined;
    if ((value === "delegating") !== (agent !== undefined))
      throw invalid(
        agent
          ? `tool call "${id}" holds a child agent but is ${JSON.stringify(value)}`
          : `tool call "${id}" is delegating but its child agent is missing`,
      );
    if (agent) {
      if (!tool.subAgent)
        throw invalid(`tool call "${id}" runs a child agent but "${tool.name}" is no agent tool`);
      const nested = agent.snapshot as unknown as PersistedAgentMachine;
      const childPath = [...path, id];
      let childImplementations: AgentImplementations;
      try {
        const start = { place: nested.context.place, parentToolCallId: id } as SubAgentStart;
        childImplementations = agentImplementations(
          subAgentOptions(implementations, subAgentSpecOf(implementations, start)),
        );
      } catch (error) {
        throw new AgentRestoreError(
          "tool",
          `The agent tool "${tool.name}" could not rebuild its sub-agent: ${errorText(error)}`,
        );
      }
      checkConsistency(nested, `sub-agent ${childPath.join("/")}: `);
      const childPlan = restoreLevel(nested, childImplementations, childPath);
      if (childPlan.from) plan.subAgents.push({ path: childPath, plan: childPlan });
      plan.subAgents.push(...childPlan.subAgents);
      childPlan.subAgents = [];
    } else if (value === "executing" && tool.replay !== "safe") plan.interrupted.push(id);
    else if (value === "awaitingApproval" || value === "awaitingClient") plan.waiting.push(id);
    else plan.reenter.push(id);
  }
  return plan;
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
  // Anything but an object (`null`, a number, a string) has no `format` either.
  const candidate = data as Partial<PersistedAgent> | null;
  if (candidate?.format !== AGENT_SNAPSHOT_FORMAT)
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
  const v3 = version >= 3 ? raw : migrateV2toV3(version === 1 ? migrateV1toV2(raw) : raw);
  const migrated = version >= 5 ? v3 : migrateV4toV5(v3);
  const checked = persistedAgentMachineSchema.safeParse(migrated);
  if (!checked.success) throw invalid(issuesText(checked.error.issues));
  const snapshot = migrated as unknown as PersistedAgentMachine;
  checkConsistency(snapshot);
  return { format: AGENT_SNAPSHOT_FORMAT, version: AGENT_SNAPSHOT_VERSION, snapshot };
}

/** What the schema cannot see: the run, its batch and the call actors must agree. */
function checkConsistency(snapshot: PersistedAgentMachine, where = ""): void {
  const fail = (detail: string) => invalid(where + detail);
  const stray = (id: string) => fail(`child actor "${id}" belongs to no call of the current tool batch`);
  const context = snapshot.context;
  if (snapshot.value !== "idle" && !context.run)
    throw fail(`the agent is in ${JSON.stringify(snapshot.value)} but has no run`);
  if (runStateOf(snapshot.value) !== "executingTools") {
    const [id] = Object.keys(snapshot.children);
    if (id !== undefined) throw stray(id);
    return;
  }
  const batch = context.run?.batch;
  if (!batch) throw fail("the agent is executing tools but its run has no tool batch");
  const calls = new Set(batch.calls.map((call) => call.id));
  for (const id of Object.keys(snapshot.children)) if (!calls.has(id)) throw stray(id);
  for (const call of batch.calls) {
    const phase = batch.phases[call.id] ?? "pending";
    if (phase !== "pending" && phase !== "settled" && !snapshot.children[call.id])
      throw fail(`tool call "${call.id}" is ${phase} but its actor is missing`);
  }
}

/** The state of the run a snapshot's value is in (`{ running: … }`), or `undefined` when idle. */
function runStateOf(value: unknown): RunStateName | undefined {
  if (value === "idle") return undefined;
  // The schema admits "idle" and `{ running: <state> }` values only, each a `RunStateName`.
  const inner = (value as { running: string | Record<string, unknown> }).running;
  return (typeof inner === "string" ? inner : Object.keys(inner)[0]) as RunStateName;
}

function requireTool(implementations: AgentImplementations, name: string) {
  const tool = implementations.tools.get(name);
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
