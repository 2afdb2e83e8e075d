import type { JsonValue } from "../inspection-record.js";
import { type ActorView, type InspectorModel, isRootActor } from "./inspector-model.js";

/**
 * Names a person can read for the inspected systems and actors, derived from records only (pure,
 * no DOM): an agent root is `agent 0b05ba77` (its `agentId`), a tool call child `echo · call_1`
 * (tool name and call id), the child agent of an agent tool's call `sub-agent research`, an agent
 * some other machine invokes (an app's) by its own actor id (`agent`, `support`), the actors XState
 * invokes inside a machine without an id (`0.toolCall.preparing.checkingHook`) are *internal* and
 * named after their parent and state (`call_1 › preparing.checkingHook`). A root that is not an
 * agent is named by its machine; a harness root after the agent it runs as its child `agent`
 * (`harness of agent 0b05ba77`), that child like a root agent (`agent 0b05ba77`).
 */

/** Machine id of the harness machine: its child `agent` is the harness's agent. */
const HARNESS_MACHINE_ID = "harness";
/** Machine id of the tool call machine: an agent actor whose parent runs it is a sub-agent. */
const TOOL_CALL_MACHINE_ID = "toolCall";

/** XState's id for an actor invoked without an `id`: `<index>.<state node id>`. */
const GENERATED_INVOKE_ID = /^\d+\.[^.]+\.(.+)$/;
/** How many characters of an agent id the names show (a UUID's first group). */
const SHORT_ID = 8;

/** True for an actor XState invoked inside a machine state without an id of its own. */
export function isInternalActor(actor: ActorView): boolean {
  return !isRootActor(actor) && GENERATED_INVOKE_ID.test(actor.actorId);
}

/**
 * The readable name of an actor: `agent 0b05ba77`, `echo · call_1`, `call_1 › executing`, the child
 * agent an agent tool's call runs `sub-agent research` (after its tool); for a harness root that
 * runs an agent `harness of agent 0b05ba77`, for another root its machine id with its session id
 * (`m x:3`); else (an agent an app machine invokes included) the actor's own id.
 */
export function actorName(model: InspectorModel, actor: ActorView): string {
  const agentId = agentIdOf(model, actor);
  if (agentId !== undefined) return `agent ${agentId.slice(0, SHORT_ID)}`;
  const call = callOfSubAgent(model, actor);
  if (call !== undefined) return `sub-agent ${toolNameOf(call) ?? actor.actorId}`;
  const toolName = toolNameOf(actor);
  if (toolName !== undefined) return `${toolName} · ${actor.actorId}`;
  const generated = GENERATED_INVOKE_ID.exec(actor.actorId);
  if (generated && actor.parentId !== undefined) {
    const parent = model.actors.get(actor.parentId);
    return `${parent?.actorId ?? actor.parentId} › ${generated[1]}`;
  }
  if (isRootActor(actor)) {
    const machine = machineIdOf(model, actor) ?? actor.actorId;
    const agent = harnessAgentOf(model, actor);
    if (agent) return `${machine} of ${actorName(model, agent)}`;
    if (actor.actorId === actor.sessionId) return `${machine} ${actor.sessionId}`;
  }
  return actor.actorId;
}

/** The agent a harness machine runs as its child `agent` (named `agent <id>` like a root agent). */
function harnessAgentOf(model: InspectorModel, actor: ActorView): ActorView | undefined {
  if (machineIdOf(model, actor) !== HARNESS_MACHINE_ID) return undefined;
  for (const candidate of model.actors.values())
    if (candidate.parentId === actor.sessionId && candidate.actorId === "agent" && contextAgentId(candidate))
      return candidate;
  return undefined;
}

/** The readable name of a system: its root's {@link actorName} (the session id while unknown). */
export function systemName(model: InspectorModel, rootId: string): string {
  const root = model.actors.get(rootId);
  return root ? actorName(model, root) : rootId;
}

/** True for a root actor running an agent machine (its context has an `agentId`). */
export function isAgentRoot(actor: ActorView): boolean {
  return isRootActor(actor) && contextAgentId(actor) !== undefined;
}

/**
 * The system the page opens on: the newest whose root is an agent or a harness running one, else the
 * newest system; `undefined` when none.
 */
export function preferredSystem(model: InspectorModel): string | undefined {
  const agents = model.roots.filter((rootId) => {
    const root = model.actors.get(rootId);
    return root !== undefined && (isAgentRoot(root) || harnessAgentOf(model, root) !== undefined);
  });
  return agents.at(-1) ?? model.roots.at(-1);
}

function machineIdOf(model: InspectorModel, actor: ActorView): string | undefined {
  return actor.machineKey === undefined ? undefined : model.definitions.get(actor.machineKey)?.root.id;
}

/** The `agentId` of a root agent or a harness's agent; `undefined` for any other actor. */
function agentIdOf(model: InspectorModel, actor: ActorView): string | undefined {
  if (isRootActor(actor)) return contextAgentId(actor);
  const parent = actor.parentId === undefined ? undefined : model.actors.get(actor.parentId);
  return parent && harnessAgentOf(model, parent) === actor ? contextAgentId(actor) : undefined;
}

/**
 * The tool call actor whose child agent `actor` is (the child agent of an agent tool's call), or
 * `undefined`: for an actor that runs no agent, and for an agent some other machine invokes.
 */
function callOfSubAgent(model: InspectorModel, actor: ActorView): ActorView | undefined {
  if (actor.parentId === undefined || contextAgentId(actor) === undefined) return undefined;
  const parent = model.actors.get(actor.parentId);
  return parent !== undefined && machineIdOf(model, parent) === TOOL_CALL_MACHINE_ID ? parent : undefined;
}

/** The non-empty `agentId` in an actor's latest context: it runs an agent machine. */
function contextAgentId(actor: ActorView): string | undefined {
  const agentId = field(actor.snapshot?.context, "agentId");
  return typeof agentId === "string" && agentId !== "" ? agentId : undefined;
}

function toolNameOf(actor: ActorView): string | undefined {
  const name = field(field(actor.snapshot?.context, "toolCall"), "name");
  return typeof name === "string" && name !== "" ? name : undefined;
}

function field(value: JsonValue | undefined, key: string): JsonValue | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value[key] : undefined;
}
