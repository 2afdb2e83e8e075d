import type { AnyActorRef } from "xstate";
import type { z } from "zod";
import { isSubAgentProgress } from "../../loop/sub-agent-steps.js";
import type { AgentEvent } from "../../types/events.js";
import type { Guardrail, GuardrailNames, Guardrails } from "../../types/guardrail.js";
import type { AgentCallbacks, AgentContext } from "../../types/loop.js";
import type { AgentTool, HandoffDefinition } from "../../types/tool.js";
import { emitterOf, parentOf } from "../../xstate/internals.js";
import type { AgentMachineContext } from "./agent.context.js";

export type { AgentCallbacks };

/** What an agent actor runs with besides its context: callbacks, tool implementations, the run's signal. */
export interface AgentRuntime {
  callbacks: AgentCallbacks;
  /** Tool implementations by name; the context names the active ones. */
  tools: Map<string, AgentTool>;
  /** The current run's controller: aborted by `ABORT` (or at once by `Agent.abort()`). */
  controller: AbortController;
  /** Guardrail implementations; the context names them (`guardrailNamesOf`). */
  guardrails: { input: Guardrail[]; output: Guardrail[] };
  /** The zod schema of the current run's typed output (the context holds its JSON Schema). */
  outputSchema?: z.ZodType;
  /** Where a sub-agent sits in its tree (absent for a root agent). */
  place?: SubAgentPlace;
  /** The agents this one can hand off to (directly or through them), by name. */
  handoffs: Map<string, HandoffDefinition>;
}

/** A sub-agent's place in its tree: its path from the root and the call that runs it. */
export interface SubAgentPlace {
  /** Tool call ids from the root down to this agent. */
  path: string[];
  /** The call's validated arguments (for its `tool_execution_update` progress events). */
  args: unknown;
  toolName: string;
}

/** Creates a runtime for `callbacks`, `tools` and `guardrails`. */
export function createAgentRuntime(
  callbacks: AgentCallbacks,
  tools: readonly AgentTool[] = [],
  guardrails: Guardrails = {},
): AgentRuntime {
  const runtime: AgentRuntime = {
    callbacks,
    tools: new Map(),
    controller: new AbortController(),
    guardrails: { input: [...(guardrails.input ?? [])], output: [...(guardrails.output ?? [])] },
    handoffs: new Map(),
  };
  addTools(runtime, tools);
  return runtime;
}

/**
 * Adds tool implementations to `runtime` (replacing those of the same name), with the agents their
 * handoffs lead to and those agents' tools (inactive until a handoff), transitively.
 *
 * Contract: synchronous; never throws.
 */
export function addTools(
  runtime: Pick<AgentRuntime, "tools" | "handoffs">,
  tools: readonly AgentTool[],
): void {
  for (const tool of tools) runtime.tools.set(tool.name, tool);
  for (const tool of tools) {
    const handoff = tool.handoff;
    if (!handoff || runtime.handoffs.has(handoff.agent)) continue;
    runtime.handoffs.set(handoff.agent, handoff);
    addTools(
      runtime,
      handoff.tools.filter((target) => !runtime.tools.has(target.name)),
    );
  }
}

/** The runtime's guardrails as data, for the machine's context. */
export function guardrailNamesOf(runtime: AgentRuntime): GuardrailNames {
  return {
    input: runtime.guardrails.input.map((guardrail) => ({
      name: guardrail.name,
      mode: guardrail.mode ?? "blocking",
    })),
    output: runtime.guardrails.output.map((guardrail) => guardrail.name),
  };
}

interface Binding {
  agent: AnyActorRef;
  runtime: AgentRuntime;
}

const bindings = new WeakMap<AnyActorRef, Binding>();

/**
 * Binds a runtime to an agent actor (done by the machine's context factory from `input.runtime`, and
 * by `Agent.restore` for a restored actor). Children find it through their parent.
 */
export function bindAgentRuntime(agent: AnyActorRef, runtime: AgentRuntime): void {
  if (bindings.get(agent)?.runtime === runtime) return;
  bindings.set(agent, { agent, runtime });
  const place = runtime.place;
  if (place) {
    // The parent agent is bound already (it invoked this one, or a restore binds parents first).
    const emitUp = agentEmitter(parentOf(agent)!);
    agent.on("*", (event: AgentEvent) => forwardUp(place, emitUp, event));
  }
}

/**
 * Delivers a sub-agent's event to its parent agent's listeners with the path from the parent down
 * (the parent's own forwarding prepends its part); the child's own replies and tool executions also
 * become `tool_execution_update` progress of the call that runs it.
 */
function forwardUp(place: SubAgentPlace, emit: (event: AgentEvent) => void, event: AgentEvent): void {
  const toolCallId = place.path.at(-1)!;
  const forwarded: AgentEvent = { ...event, agentPath: [toolCallId, ...(event.agentPath ?? [])] };
  emit(forwarded);
  if (event.agentPath === undefined && isSubAgentProgress(event))
    emit({
      type: "tool_execution_update",
      toolCallId,
      toolName: place.toolName,
      args: place.args,
      partialResult: { agentEvent: forwarded },
    });
}

function bindingOf(ref: AnyActorRef): Binding {
  for (let current: AnyActorRef | undefined = ref; current; current = parentOf(current)) {
    const binding = bindings.get(current);
    if (binding) return binding;
  }
  throw new Error(
    "agentchart: this agent actor has no runtime. Create it with `input.runtime` (see createAgentRuntime) or restore it with Agent.restore.",
  );
}

/** The runtime of the agent that `ref` is (or belongs to). */
export function runtimeOf(ref: AnyActorRef): AgentRuntime {
  return bindingOf(ref).runtime;
}

/**
 * A function delivering AgentEvents to the `actor.on(...)` listeners of the agent that `ref` is (or
 * belongs to), synchronously. The per-token path (stream deltas, tool progress) comes from child actors
 * between macrosteps; going through the actor's own emitter (the one `emit` actions use) instead of a
 * transition per token keeps a delta at a fraction of a microsecond.
 */
export function agentEmitter(ref: AnyActorRef): (event: AgentEvent) => void {
  return emitterOf<AgentEvent>(bindingOf(ref).agent);
}

/** The active tools named by `toolNames`, in order; names without an implementation are left out. */
export function activeTools(runtime: AgentRuntime, toolNames: readonly string[]): AgentTool[] {
  const tools: AgentTool[] = [];
  for (const name of toolNames) {
    const tool = runtime.tools.get(name);
    if (tool) tools.push(tool);
  }
  return tools;
}

/** The agent's live context as the loop callbacks see it (system prompt, transcript, active tools). */
export function agentContextOf(ref: AnyActorRef): AgentContext {
  const { agent, runtime } = bindingOf(ref);
  const context = (agent.getSnapshot() as { context: AgentMachineContext }).context;
  return {
    systemPrompt: context.systemPrompt,
    messages: context.messages,
    tools: activeTools(runtime, context.toolNames),
  };
}

/**
 * Whether the agent has between-turn callbacks (`prepareNextTurn`, `shouldStopAfterTurn`, the external
 * queue sources): without them the machine decides from its context alone.
 */
export function hasTurnCallbacks(runtime: AgentRuntime): boolean {
  const callbacks = runtime.callbacks;
  return (
    callbacks.prepareNextTurn !== undefined ||
    callbacks.shouldStopAfterTurn !== undefined ||
    callbacks.getSteeringMessages !== undefined ||
    callbacks.getFollowUpMessages !== undefined
  );
}
