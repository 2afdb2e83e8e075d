import type { z } from "zod";
import { recordedStreamFn } from "../../replay/recorded-stream-fn.js";
import { recordedTool } from "../../replay/recorded-tool.js";
import type { Recording } from "../../replay/recording.js";
import type { AgentBudget } from "../../types/budget.js";
import type { Guardrail, GuardrailNames, Guardrails } from "../../types/guardrail.js";
import type { AgentCallbacks, AgentContext } from "../../types/loop.js";
import type { AgentTool, HandoffDefinition } from "../../types/tool.js";
import type { AgentMachineContext, AgentView } from "./agent.context.js";

export type { AgentView, SubAgentPlace } from "./agent.context.js";

export type { AgentCallbacks };

/**
 * What an agent machine runs besides its context — the functions `createAgentMachine` provides to its
 * actors and actions (`.provide()`). It belongs to the machine, never to an actor: per-run state (the
 * AbortController of a model call, of a tool's execution) lives in the actor that runs it.
 */
export interface AgentImplementations {
  callbacks: AgentCallbacks;
  /** Tool implementations by name; the context names the active ones. */
  tools: Map<string, AgentTool>;
  /** Guardrail implementations; the context names them (`guardrailNamesOf`). */
  guardrails: { input: Guardrail[]; output: Guardrail[] };
  /** The agents this one can hand off to (directly or through them), by name. */
  handoffs: Map<string, HandoffDefinition>;
  /** The zod schema of every run's typed output, unless `outputSchemas` knows the run's own. */
  output?: z.ZodType;
  /** The zod schemas of runs' typed outputs, by the JSON Schema object the run's context holds. */
  outputSchemas: WeakMap<object, z.ZodType>;
  /** The budget of an actor whose input gives none. */
  budget?: AgentBudget;
  /** Where this agent's model calls and tool executions are recorded (`record`), as the agent at `agentPath`. */
  recording?: { recording: Recording; agentPath: readonly string[] };
}

/** What `createAgentMachine` takes: the callbacks (StreamFn, hooks, queue sources), tools, guardrails, output. */
export interface AgentMachineOptions extends AgentCallbacks {
  tools?: readonly AgentTool[];
  guardrails?: Guardrails;
  /** The zod schema of typed outputs (without it, a restored run's schema is rebuilt from its JSON Schema). */
  output?: z.ZodType;
  /**
   * The budget of each run of an actor whose input gives none (see docs/budgets.md); checked here and,
   * with the input's model, when the actor is created.
   */
  budget?: AgentBudget;
  /**
   * Records every model request with its reply and every tool execution into this recording, also of
   * sub-agents (with their `agentPath`); give the actor `inspect: record.inspect` to record the
   * commands and step snapshots too (see docs/replay.md).
   */
  // biome-ignore lint/suspicious/noExplicitAny: a recording of any snapshot type records the same calls
  record?: Recording<any>;
}

/**
 * The implementations of an agent machine built from `options` — of the agent at `agentPath` (a
 * sub-agent's, for the recording).
 *
 * Contract: synchronous; never throws; the options' arrays are copied.
 */
export function agentImplementations(
  options: AgentMachineOptions,
  agentPath: readonly string[] = [],
): AgentImplementations {
  const record = options.record;
  const implementations: AgentImplementations = {
    // A recording agent's StreamFn is recorded; its other callbacks stay the options' (getters included).
    callbacks: record
      ? Object.create(options, {
          streamFn: { value: recordedStreamFn(options.streamFn, record, agentPath), enumerable: true },
        })
      : options,
    tools: new Map(),
    guardrails: {
      input: [...(options.guardrails?.input ?? [])],
      output: [...(options.guardrails?.output ?? [])],
    },
    handoffs: new Map(),
    outputSchemas: new WeakMap(),
    ...(options.output ? { output: options.output } : {}),
    ...(options.budget ? { budget: { ...options.budget } } : {}),
    ...(record ? { recording: { recording: record, agentPath } } : {}),
  };
  addTools(implementations, options.tools ?? []);
  return implementations;
}

/**
 * Adds tool implementations (replacing those of the same name; recorded when the agent records), with
 * the agents their handoffs lead to and those agents' tools (inactive until a handoff), transitively.
 *
 * Contract: synchronous; never throws.
 */
export function addTools(
  implementations: Pick<AgentImplementations, "tools" | "handoffs" | "recording">,
  tools: readonly AgentTool[],
): void {
  const recording = implementations.recording;
  for (const tool of tools)
    implementations.tools.set(
      tool.name,
      recording ? recordedTool(tool, recording.recording, recording.agentPath) : tool,
    );
  for (const tool of tools) {
    const handoff = tool.handoff;
    if (!handoff || implementations.handoffs.has(handoff.agent)) continue;
    implementations.handoffs.set(handoff.agent, handoff);
    addTools(
      implementations,
      handoff.tools.filter((target) => !implementations.tools.has(target.name)),
    );
  }
}

/** The guardrails as data, for the machine's context. */
export function guardrailNamesOf(implementations: AgentImplementations): GuardrailNames {
  return {
    input: implementations.guardrails.input.map((guardrail) => ({
      name: guardrail.name,
      mode: guardrail.mode ?? "blocking",
    })),
    output: implementations.guardrails.output.map((guardrail) => guardrail.name),
  };
}

/** The active tools named by `toolNames`, in order; names without an implementation are left out. */
export function activeTools(
  implementations: AgentImplementations,
  toolNames: readonly string[],
): AgentTool[] {
  const tools: AgentTool[] = [];
  for (const name of toolNames) {
    const tool = implementations.tools.get(name);
    if (tool) tools.push(tool);
  }
  return tools;
}

/** The agent's context as the callbacks see it (system prompt, transcript, active tools). */
export function callbackContextOf(implementations: AgentImplementations, view: AgentView): AgentContext {
  return {
    systemPrompt: view.systemPrompt,
    messages: view.messages,
    tools: activeTools(implementations, view.toolNames),
  };
}

/** The view of `context` its callbacks get. */
export function agentViewOf(context: AgentMachineContext): AgentView {
  return { systemPrompt: context.systemPrompt, messages: context.messages, toolNames: context.toolNames };
}

/**
 * Whether there are between-turn callbacks (`prepareNextTurn`, `shouldStopAfterTurn`, the external
 * queue sources): without them the machine decides from its context alone.
 */
export function hasTurnCallbacks(implementations: AgentImplementations): boolean {
  const callbacks = implementations.callbacks;
  return (
    callbacks.prepareNextTurn !== undefined ||
    callbacks.shouldStopAfterTurn !== undefined ||
    callbacks.getSteeringMessages !== undefined ||
    callbacks.getFollowUpMessages !== undefined
  );
}
