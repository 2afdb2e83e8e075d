import { type ActorSystem, type AnyActorRef, fromCallback, fromPromise } from "xstate";
import { userMessage } from "../loop/messages.js";
import { outputStateOf } from "../loop/output-schema.js";
import { runResultOf } from "../loop/run-result.js";
import { defaultSubAgentResult, runUsage, textResult } from "../loop/sub-agent-steps.js";
import { errorOutcome } from "../loop/tool-outcome.js";
import type { ToolCallOutcome } from "../machines/agent/agent.context.js";
import type {
  AgentImplementations,
  AgentMachineOptions,
  SubAgentPlace,
} from "../machines/agent/agent.implementations.js";
import type { SubAgentEnd, SubAgentStart } from "../machines/tool-call/tool-call.context.js";
import type { SubAgentReadyEvent } from "../machines/tool-call/tool-call.events.js";
import { errorText } from "../types/error-text.js";
import type { Guardrails } from "../types/guardrail.js";
import type { AgentMessage } from "../types/messages.js";
import { DEFAULT_SUB_AGENT_MAX_TURNS, type SubAgentSpec } from "../types/sub-agent.js";
import type { AgentTool, ToolResult } from "../types/tool.js";
import type { ToolStepInput } from "./tool-step.actors.js";

/**
 * The spec of the child agent a call of an agent tool runs, for the call's `place`: the tool's
 * `agent(args)` (user code). A spec just computed for a start (`prepareSubAgent`) is taken from there.
 *
 * Contract: throws what the tool's `agent` function throws, or `Error` when `parent` has no agent tool
 * of that name (a machine restored without the tool).
 */
export function subAgentSpecOf(parent: AgentImplementations, start: SubAgentStart): SubAgentSpec {
  const known = preparedSpecs.get(start);
  if (known) return known;
  const tool = parent.tools.get(start.place.toolName);
  if (!tool?.subAgent)
    throw new Error(
      `agentchart: the sub-agent of call "${start.parentToolCallId}" needs the agent tool "${start.place.toolName}", which this machine was not given`,
    );
  return tool.subAgent.agent(start.place.args) as SubAgentSpec;
}

/** The options of a child agent's machine: its spec, the parent's StreamFn and tool context where it has none. */
export function subAgentOptions(parent: AgentImplementations, spec: SubAgentSpec): AgentMachineOptions {
  const guardrails = withParentOutputGuardrails(parent, spec.guardrails);
  return {
    ...spec,
    streamFn: spec.streamFn ?? parent.callbacks.streamFn,
    toolContext: spec.toolContext ?? parent.callbacks.toolContext,
    ...(guardrails ? { guardrails } : {}),
    // A recording agent's sub-agents record into the same recording (with their agent path).
    ...(parent.recording ? { record: parent.recording.recording } : {}),
  };
}

/**
 * A child's guardrails: its own, and after them its parent's output guardrails (so, down a tree, the
 * root's). A child's replies reach the root's subscribers through its parent, so they are held and
 * checked like the parent's own reply; a tripped one is never shown and ends the child's run.
 */
function withParentOutputGuardrails(parent: AgentImplementations, own: Guardrails | undefined) {
  const inherited = parent.guardrails.output.filter((guardrail) => !own?.output?.includes(guardrail));
  if (inherited.length === 0) return own;
  return { ...own, output: [...(own?.output ?? []), ...inherited] };
}

// Specs computed by `prepareSubAgent`, by the start it sent: the child's machine is built from the
// same spec, so the tool's `agent` function runs once per start.
const preparedSpecs = new WeakMap<SubAgentStart, SubAgentSpec>();

// biome-ignore lint/suspicious/noExplicitAny: any actor system (XState types them by their registered ids)
type AnyActorSystem = ActorSystem<any>;

// The child agents running in each actor system, for the tree-wide `maxConcurrent` limit.
const runningChildren = new WeakMap<AnyActorSystem, Set<AnyActorRef>>();

/** Counts `child` among the sub-agents running in its system (called when it starts, restored or not). */
export function countRunningChild(system: AnyActorSystem, child: AnyActorRef): void {
  let running = runningChildren.get(system);
  if (!running) {
    running = new Set();
    runningChildren.set(system, running);
  }
  running.add(child);
}

/** Sub-agents of `system` whose actor is still active (stopped ones are forgotten). */
function runningChildCount(system: AnyActorSystem): number {
  const running = runningChildren.get(system);
  if (!running) return 0;
  for (const child of running) if (child.getSnapshot().status !== "active") running.delete(child);
  return running.size;
}

/**
 * Invoked in a call's `startingAgent` (provided by `createAgentMachine`): checks the tree's limits
 * (depth, sub-agents running at once), runs the tool's `agent` and `input` functions, and sends back
 * `SUB_AGENT_READY` with the child's start as data — or `REJECTED` with an error outcome.
 */
export function prepareSubAgentActor(implementations: AgentImplementations) {
  return fromCallback<{ type: "NONE" }, ToolStepInput>(({ input, system, sendBack }) => {
    const { toolCall, args, agent } = input;
    const tool = implementations.tools.get(toolCall.name) as AgentTool;
    const definition = tool.subAgent!;
    const reject = (text: string) => sendBack({ type: "REJECTED", outcome: errorOutcome(toolCall, text) });
    const depth = agent.path.length + 1;
    if (depth > definition.maxDepth)
      return reject(
        `Agent tool "${tool.name}" refused: sub-agents nest at most ${definition.maxDepth} deep (this call would start depth ${depth})`,
      );
    const running = runningChildCount(system);
    if (running >= definition.maxConcurrent)
      return reject(
        `Agent tool "${tool.name}" refused: ${running} sub-agents are already running in this agent tree (at most ${definition.maxConcurrent})`,
      );
    try {
      const spec = tool.subAgent!.agent(args) as SubAgentSpec;
      const place: SubAgentPlace = { path: [...agent.path, toolCall.id], args, toolName: tool.name };
      const start: SubAgentStart = {
        agentId: `${agent.agentId}/${toolCall.id}`,
        place,
        parentToolCallId: toolCall.id,
        model: spec.model ?? agent.model,
        systemPrompt: spec.systemPrompt ?? "",
        thinkingLevel: spec.thinkingLevel ?? "off",
        toolNames: (spec.tools ?? []).map((t) => t.name),
        settings: {
          toolExecution: spec.toolExecution ?? "parallel",
          maxTurns: spec.maxTurns ?? DEFAULT_SUB_AGENT_MAX_TURNS,
        },
        prompt: promptOf(definition.input(args)),
        ...(spec.output ? { output: outputStateOf(spec.output) } : {}),
        ...(agent.sharesLedger ? { sharesLedger: true } : {}),
      };
      preparedSpecs.set(start, spec);
      sendBack({ type: "SUB_AGENT_READY", start } satisfies SubAgentReadyEvent);
    } catch (error) {
      reject(`Agent tool "${tool.name}" could not start its sub-agent: ${errorText(error)}`);
    }
  });
}

/** Input of `collectSubAgent`: the call and how its child's run ended. */
export interface SubAgentCollection extends ToolStepInput {
  end: SubAgentEnd;
  errorMessage: string | undefined;
}

/**
 * Invoked in a call's `collecting` (provided by `createAgentMachine`): the tool result of the child's
 * run — the tool's `output` function, or the default (typed output as JSON, else the last assistant
 * text) — carrying the child's total usage. A throwing `output` is an error result.
 */
export function collectSubAgentActor(implementations: AgentImplementations) {
  return fromPromise<ToolCallOutcome, SubAgentCollection>(async ({ input }) => {
    const { toolCall, end } = input;
    const usage = runUsage(end.messages);
    const result = runResultOf(end, input.errorMessage);
    const custom = implementations.tools.get(toolCall.name)?.subAgent?.output;
    try {
      const outcome = custom
        ? { result: asToolResult(await custom(result)), isError: false }
        : defaultSubAgentResult(toolCall.name, result);
      return {
        toolCall,
        result: {
          ...outcome.result,
          usage,
          details: { stopReason: end.stopReason, ...(outcome.result.details as object) },
        },
        isError: outcome.isError,
      };
    } catch (error) {
      const failed = errorOutcome(
        toolCall,
        `Agent tool "${toolCall.name}" output failed: ${errorText(error)}`,
      );
      return { ...failed, result: { ...failed.result, usage } };
    }
  });
}

function asToolResult(value: ToolResult | string): ToolResult {
  return typeof value === "string" ? textResult(value) : value;
}

function promptOf(input: string | AgentMessage[]): AgentMessage[] {
  return typeof input === "string" ? [userMessage(input)] : input;
}
