import type { ActorScope, AnyActorLogic, AnyActorRef, AnyMachineSnapshot, Snapshot } from "xstate";
import { guardrailsActor } from "../../actors/guardrails.actor.js";
import { streamReplyActor } from "../../actors/stream-reply.actor.js";
import {
  collectSubAgentActor,
  countRunningChild,
  prepareSubAgentActor,
  subAgentOptions,
  subAgentSpecOf,
} from "../../actors/sub-agent.actors.js";
import {
  afterToolCallActor,
  beforeToolCallActor,
  executeToolActor,
  validateCall,
} from "../../actors/tool-step.actors.js";
import { pollSteering, returnQueuedMessages, turnCallbacksActor } from "../../actors/turn-callbacks.actor.js";
import { validateOutputActor } from "../../actors/validate-output.actor.js";
import { checkBudget } from "../../loop/budget-check.js";
import { errorText } from "../../types/error-text.js";
import { provideImplementations } from "../../xstate/provide-implementations.js";
import type { SubAgentStart, ToolCallContext } from "../tool-call/tool-call.context.js";
import { toolCallMachine } from "../tool-call/tool-call.machine.js";
import { AGENT_FORMAT_VERSION, type AgentMachineContext, type QueuedReturns } from "./agent.context.js";
import {
  type AgentImplementations,
  type AgentMachineOptions,
  agentImplementations,
  guardrailNamesOf,
  hasTurnCallbacks,
} from "./agent.implementations.js";
import { type AgentMachineInput, type AgentMachineStart, agentMachine } from "./agent.machine.js";

/** The agent machine with its implementations provided (what `createAgentMachine` returns). */
export type AgentMachine = typeof agentMachine;

/**
 * The agent machine with `options`' implementations provided (`.provide()`): StreamFn, tools, callbacks
 * and hooks, guardrails, sub-agents and handoffs (through the tools). What the agent knows goes in its
 * input (`{ model, systemPrompt?, messages?, … }`): JSON data, persisted with the actor. Use it as any
 * XState machine: `createActor`, `invoke`/`spawn` in your own machine, `getPersistedSnapshot()` and
 * `createActor(machine, { snapshot })`, `transition()`, `inspect`.
 *
 * Contract: synchronous; throws `BudgetError` for an invalid `budget` (a negative or non-numeric limit,
 * named). Creating an actor whose budget sets `maxCostUsd` for a model without prices throws
 * `BudgetError` (`no_model_price`). Restoring a snapshot that names a tool this machine lacks, or a
 * state it does not have, fails the actor at start (its error observers get an `Error` naming it).
 *
 * ```ts
 * import { createActor } from "xstate";
 * import type { AgentEvent } from "agentchart";
 * import { scriptedModel } from "agentchart/testing";
 * const machine = createAgentMachine({ streamFn: scriptedModel([{ text: "Hi!" }]), tools: [] });
 * const actor = createActor(machine, { input: { model: { id: "m", api: "x", provider: "y", contextWindow: 1000, maxTokens: 100 } } });
 * actor.on("agent_end", (event: Extract<AgentEvent, { type: "agent_end" }>) => console.log(event.messages.length));
 * actor.start();
 * actor.send({ type: "PROMPT", messages: [{ role: "user", content: "Hello", timestamp: Date.now() }] });
 * ```
 */
export function createAgentMachine(options: AgentMachineOptions): AgentMachine {
  if (options.budget) checkBudget(options.budget, undefined, "createAgentMachine budget");
  return agentMachineOf(agentImplementations(options));
}

/**
 * The agent machine running `implementations` (the `Agent` class keeps its own, to change tools and
 * output schemas between runs).
 *
 * Contract: synchronous; never throws.
 */
export function agentMachineOf(implementations: AgentImplementations): AgentMachine {
  const machine = provideImplementations(agentMachine, {
    actors: {
      streamReply: streamReplyActor(implementations),
      turnCallbacks: turnCallbacksActor(implementations),
      guardrails: guardrailsActor(implementations),
      validateOutput: validateOutputActor(implementations),
    },
    actions: {
      pollSteering: ({ self }) => pollSteering(implementations, self),
      returnQueuedMessages: (_, returned) => returnQueuedMessages(implementations, returned as QueuedReturns),
    },
  });
  // The tool-call machine is provided when the first call starts: many agents never call a tool.
  let toolCall: typeof toolCallMachine | undefined;
  Object.defineProperty(machine.implementations.actors, "toolCall", {
    enumerable: true,
    get: () => (toolCall ??= toolCallMachineOf(implementations)),
  });
  return withImplementationData(machine, implementations);
}

/** The tool-call machine running `implementations`' tools and hooks. */
function toolCallMachineOf(implementations: AgentImplementations): typeof toolCallMachine {
  return provideImplementations(toolCallMachine, {
    actors: {
      beforeToolCall: beforeToolCallActor(implementations),
      executeTool: executeToolActor(implementations),
      afterToolCall: afterToolCallActor(implementations),
      prepareSubAgent: prepareSubAgentActor(implementations),
      subAgent: subAgentLogic(implementations),
      collectSubAgent: collectSubAgentActor(implementations),
    },
    actions: {
      validate: ({ context, self }) =>
        validateCall(implementations, self, (context as ToolCallContext).toolCall),
    },
  });
}

/**
 * `machine` whose new actors get what the context holds of the implementations (guardrail names,
 * whether there are between-turn callbacks, the default active tools) and whose restored snapshots are
 * checked against them and refreshed; `.provide()` keeps both.
 */
function withImplementationData(machine: AgentMachine, implementations: AgentImplementations): AgentMachine {
  const initial = machine.getInitialSnapshot.bind(machine);
  const restore = machine.restoreSnapshot.bind(machine);
  const transition = machine.transition.bind(machine);
  const provide = machine.provide.bind(machine);
  const data = () => ({
    guardrails: guardrailNamesOf(implementations),
    hasTurnCallbacks: hasTurnCallbacks(implementations),
  });
  machine.getInitialSnapshot = (scope, input) => {
    const given = input as AgentMachineInput | undefined;
    if (!given) return initial(scope, input);
    const budget = given.budget ?? implementations.budget;
    if (budget) checkBudget(budget, given.model, "agent machine input budget");
    const start: AgentMachineStart = {
      ...given,
      ...(budget ? { budget } : {}),
      toolNames: given.toolNames ?? [...implementations.tools.keys()],
      ...data(),
    };
    return initial(scope, start as AgentMachineInput);
  };
  machine.restoreSnapshot = (snapshot, scope) => {
    const persisted = snapshot as unknown as PersistedMachine;
    checkRestorable(persisted, implementations);
    const refreshed = { ...persisted, context: { ...persisted.context, ...data() } };
    try {
      return restore(refreshed as unknown as Snapshot<unknown>, scope);
    } catch (error) {
      throw new Error(
        `agentchart: the snapshot's state ${JSON.stringify(persisted.value)} is not a state of the agent machine (${errorText(error)})`,
      );
    }
  };
  machine.transition = (snapshot, event, scope) => {
    if (event.type === "REPLY_EVENTS" && deliversDirectly(snapshot)) {
      // The reply's events, as the `emitReplyEvents` action would emit them — through the scope
      // XState gives this logic, once the macrostep ends — without an `emit` action per delta:
      // nothing else of the machine changes (a root agent's stream, not a sub-agent's).
      const events = event.events;
      scope.defer(() => {
        for (const replyEvent of events) scope.emit(replyEvent);
      });
      return snapshot;
    }
    return transition(snapshot, event, scope);
  };
  machine.provide = (more) => withImplementationData(provide(more), implementations);
  return machine;
}

/**
 * Whether a reply's events (`message_start`, `message_update`) can go to the agent's listeners directly:
 * it streams, and neither a parent call (a sub-agent's events climb through `AGENT_EVENTS`) nor a parent
 * machine (`parentEvents`) wants them as events.
 */
function deliversDirectly(snapshot: AgentSnapshot): boolean {
  const context = snapshot.context;
  return (
    context.parentToolCallId === undefined &&
    !context.parentEvents?.some((type) => type === "message_start" || type === "message_update") &&
    snapshot.matches({ running: "streaming" })
  );
}

type AgentSnapshot = ReturnType<AgentMachine["getInitialSnapshot"]>;

interface PersistedMachine {
  value: unknown;
  context: AgentMachineContext;
  children?: Record<string, { src?: unknown; snapshot?: { context?: unknown } }>;
}

/**
 * Throws an `Error` naming what makes a persisted agent unrestorable here: another format version, or
 * a tool `implementations` lack.
 */
function checkRestorable(persisted: PersistedMachine, implementations: AgentImplementations): void {
  const context = persisted.context;
  if (typeof context !== "object" || context === null || !Array.isArray(context.toolNames))
    throw new Error("agentchart: not a persisted agent machine snapshot (its context has no toolNames)");
  if (context.formatVersion !== AGENT_FORMAT_VERSION)
    throw new Error(
      `agentchart: the persisted agent has format version ${JSON.stringify(context.formatVersion ?? "none (agentchart 0.3.0 or older)")}; this agentchart restores version ${AGENT_FORMAT_VERSION} (Agent.restore migrates the persisted agents of older versions)`,
    );
  const missing = new Set<string>();
  for (const name of context.toolNames) if (!implementations.tools.has(name)) missing.add(name);
  for (const child of Object.values(persisted.children ?? {})) {
    const call = (child.snapshot?.context as ToolCallContext | undefined)?.toolCall;
    if (child.src === "toolCall" && call && !implementations.tools.has(call.name)) missing.add(call.name);
  }
  if (missing.size > 0)
    throw new Error(
      `agentchart: the restored agent needs the tool${missing.size > 1 ? "s" : ""} ${[...missing].map((name) => `"${name}"`).join(", ")}, which this machine was not given`,
    );
  checkSubAgentsPlaced(persisted);
}

const UNPLACED_SUB_AGENT =
  "agentchart: a persisted sub-agent without its place in the tree cannot be restored";

/**
 * Throws when a sub-agent anywhere below `persisted` (a delegating call's `agent`, at any depth) lost
 * its place in the tree or the call that runs it: checked before the root restores, so a damaged tree
 * fails whole instead of leaving its call delegating to a child that never runs.
 */
function checkSubAgentsPlaced(persisted: PersistedMachine): void {
  for (const call of Object.values(persisted.children ?? {})) {
    if (call.src !== "toolCall") continue;
    const child = (call.snapshot as PersistedMachine | undefined)?.children?.agent;
    if (child?.src !== "subAgent") continue;
    const context = child.snapshot?.context as Partial<AgentMachineContext> | undefined;
    if (!context?.place || !context.parentToolCallId) throw new Error(UNPLACED_SUB_AGENT);
    checkSubAgentsPlaced(child.snapshot as PersistedMachine);
  }
}

/**
 * The logic of a call's child agent: the agent machine of the agent tool's spec for the call
 * (`agent(args)`), built when the child starts or is restored; every other step is that machine's.
 * It presents itself as the agent machine (its prototype), so inspectors show its diagram.
 */
function subAgentLogic(parent: AgentImplementations): AnyActorLogic {
  const machineFor = (start: SubAgentStart) =>
    agentMachineOf(
      agentImplementations(subAgentOptions(parent, subAgentSpecOf(parent, start)), start.place.path),
    );
  const logic: Partial<AnyActorLogic> = {
    getInitialSnapshot: (scope: ActorScope<AnyMachineSnapshot, never>, start: SubAgentStart) =>
      machineFor(start).getInitialSnapshot(scope as never, start as never),
    restoreSnapshot: (snapshot: Snapshot<unknown>, scope: ActorScope<AnyMachineSnapshot, never>) => {
      const context = (snapshot as { context?: AgentMachineContext }).context;
      if (!context?.place || !context.parentToolCallId) throw new Error(UNPLACED_SUB_AGENT);
      const start = { place: context.place, parentToolCallId: context.parentToolCallId } as SubAgentStart;
      return machineFor(start).restoreSnapshot(snapshot, scope as never);
    },
    start: (snapshot: AnyMachineSnapshot, scope: ActorScope<AnyMachineSnapshot, never>) => {
      countRunningChild(scope.system, scope.self as unknown as AnyActorRef);
      (snapshot.machine as AgentMachine).start(snapshot as never);
    },
    transition: (snapshot: AnyMachineSnapshot, event, scope) =>
      snapshot.machine.transition(snapshot, event as never, scope as never),
    getPersistedSnapshot: (snapshot: AnyMachineSnapshot, options?: unknown) =>
      (snapshot.machine as AgentMachine).getPersistedSnapshot(snapshot as never, options),
  };
  return Object.assign(Object.create(agentMachine), logic) as AnyActorLogic;
}
