import type { AnyActorRef } from "xstate";
import type { z } from "zod";
import type { AgentMachineContext } from "../loop/agent-context.js";
import type { AgentEvent } from "../types/events.js";
import type { Guardrail, GuardrailNames, Guardrails } from "../types/guardrail.js";
import type { AgentCallbacks, AgentContext } from "../types/loop.js";
import type { AgentTool } from "../types/tool.js";
import { emitterOf, parentOf } from "../xstate/internals.js";

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
}

/** Creates a runtime for `callbacks`, `tools` and `guardrails`. */
export function createAgentRuntime(
  callbacks: AgentCallbacks,
  tools: readonly AgentTool[] = [],
  guardrails: Guardrails = {},
): AgentRuntime {
  return {
    callbacks,
    tools: new Map(tools.map((tool) => [tool.name, tool])),
    controller: new AbortController(),
    guardrails: { input: [...(guardrails.input ?? [])], output: [...(guardrails.output ?? [])] },
  };
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
  bindings.set(agent, { agent, runtime });
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
