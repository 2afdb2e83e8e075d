import { type AnyActorRef, fromCallback, fromPromise } from "xstate";
import { userMessage } from "../loop/messages.js";
import { outputStateOf } from "../loop/output-schema.js";
import { runResultOf } from "../loop/run-result.js";
import { defaultSubAgentResult, runUsage, textResult } from "../loop/sub-agent-steps.js";
import { errorOutcome } from "../loop/tool-outcome.js";
import type { AgentMachineContext, ToolCallOutcome } from "../machines/agent/agent.context.js";
import { type AgentRuntime, createAgentRuntime, runtimeOf } from "../machines/agent/agent.runtime.js";
import type { SubAgentEnd, SubAgentStart } from "../machines/tool-call/tool-call.context.js";
import type { SubAgentReadyEvent } from "../machines/tool-call/tool-call.events.js";
import { errorText } from "../types/error-text.js";
import type { AgentMessage } from "../types/messages.js";
import { DEFAULT_SUB_AGENT_MAX_TURNS, type SubAgentSpec } from "../types/sub-agent.js";
import type { AgentTool, ToolResult } from "../types/tool.js";
import { parentOf } from "../xstate/internals.js";
import type { ToolStepInput } from "./tool-step.actors.js";

/**
 * The runtime of the child agent of a call of `tool` (an agent tool), from its spec for `args`: the
 * spec's callbacks and tools, the parent's StreamFn and tool context where the spec has none.
 *
 * Contract: calls the tool's `agent` function (user code); its throw propagates.
 */
export function subAgentRuntime(
  parent: AgentRuntime,
  tool: AgentTool,
  toolCallId: string,
  args: unknown,
): { runtime: AgentRuntime; spec: SubAgentSpec } {
  const spec = tool.subAgent!.agent(args) as SubAgentSpec;
  const callbacks = {
    ...spec,
    streamFn: spec.streamFn ?? parent.callbacks.streamFn,
    toolContext: spec.toolContext ?? parent.callbacks.toolContext,
  };
  const runtime = createAgentRuntime(callbacks, spec.tools ?? [], spec.guardrails);
  if (spec.output) runtime.outputSchema = spec.output;
  runtime.place = {
    path: [...(parent.place?.path ?? []), toolCallId],
    args,
    toolName: tool.name,
  };
  return { runtime, spec };
}

// The runtime prepared for a call actor's child, taken by the `delegating` state's invoke input.
const prepared = new WeakMap<AnyActorRef, AgentRuntime>();

/** The runtime `prepareSubAgent` made for the child of `callActor` (once). */
export function takeSubAgentRuntime(callActor: AnyActorRef): AgentRuntime {
  const runtime = prepared.get(callActor);
  if (!runtime) throw new Error("agentchart: a sub-agent started without a prepared runtime");
  prepared.delete(callActor);
  return runtime;
}

/**
 * Invoked in a call's `startingAgent`: checks the tree's limits (depth, sub-agents running at once),
 * runs the tool's `agent` and `input` functions, prepares the child's runtime, and sends back
 * `SUB_AGENT_READY` with the child's start as data — or `REJECTED` with an error outcome.
 */
export const prepareSubAgentActor = fromCallback<{ type: "NONE" }, ToolStepInput>(
  ({ input, self, sendBack }) => {
    const callActor = parentOf(self)!;
    const parent = runtimeOf(self);
    const { toolCall, args } = input;
    const tool = parent.tools.get(toolCall.name)!;
    const definition = tool.subAgent!;
    const reject = (text: string) => sendBack({ type: "REJECTED", outcome: errorOutcome(toolCall, text) });
    const depth = (parent.place?.path.length ?? 0) + 1;
    if (depth > definition.maxDepth)
      return reject(
        `Agent tool "${tool.name}" refused: sub-agents nest at most ${definition.maxDepth} deep (this call would start depth ${depth})`,
      );
    const running = runningSubAgents(rootOf(callActor));
    if (running >= definition.maxConcurrent)
      return reject(
        `Agent tool "${tool.name}" refused: ${running} sub-agents are already running in this agent tree (at most ${definition.maxConcurrent})`,
      );
    try {
      const { runtime, spec } = subAgentRuntime(parent, tool, toolCall.id, args);
      const prompt = promptOf(definition.input(args));
      const context = parentContextOf(callActor);
      const start: SubAgentStart = {
        agentId: `${context.agentId}/${toolCall.id}`,
        parentToolCallId: toolCall.id,
        model: spec.model ?? context.model,
        systemPrompt: spec.systemPrompt ?? "",
        thinkingLevel: spec.thinkingLevel ?? "off",
        toolNames: (spec.tools ?? []).map((t) => t.name),
        settings: {
          toolExecution: spec.toolExecution ?? "parallel",
          maxTurns: spec.maxTurns ?? DEFAULT_SUB_AGENT_MAX_TURNS,
        },
        prompt,
        ...(spec.output ? { output: outputStateOf(spec.output) } : {}),
      };
      prepared.set(callActor, runtime);
      sendBack({ type: "SUB_AGENT_READY", start } satisfies SubAgentReadyEvent);
    } catch (error) {
      reject(`Agent tool "${tool.name}" could not start its sub-agent: ${errorText(error)}`);
    }
  },
);

/** Input of `collectSubAgent`: the call and how its child's run ended. */
export interface SubAgentCollection extends ToolStepInput {
  end: SubAgentEnd;
  errorMessage: string | undefined;
}

/**
 * Invoked in a call's `collecting`: the tool result of the child's run — the tool's `output`
 * function, or the default (typed output as JSON, else the last assistant text) — carrying the
 * child's total usage. A throwing `output` is an error result.
 */
export const collectSubAgentActor = fromPromise<ToolCallOutcome, SubAgentCollection>(
  async ({ input, self }) => {
    const { toolCall, end } = input;
    const usage = runUsage(end.messages);
    const result = runResultOf(end, input.errorMessage);
    const custom = runtimeOf(self).tools.get(toolCall.name)?.subAgent?.output;
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
  },
);

function asToolResult(value: ToolResult | string): ToolResult {
  return typeof value === "string" ? textResult(value) : value;
}

function promptOf(input: string | AgentMessage[]): AgentMessage[] {
  return typeof input === "string" ? [userMessage(input)] : input;
}

function parentContextOf(callActor: AnyActorRef): AgentMachineContext {
  return (parentOf(callActor)!.getSnapshot() as { context: AgentMachineContext }).context;
}

function rootOf(ref: AnyActorRef): AnyActorRef {
  let current = ref;
  for (let parent = parentOf(current); parent; parent = parentOf(current)) current = parent;
  return current;
}

/** Calls of the tree under `agent` whose actor is running a child agent (`delegating`). */
function runningSubAgents(agent: AnyActorRef): number {
  let count = 0;
  for (const call of Object.values(agent.getSnapshot().children as Record<string, AnyActorRef>)) {
    const child = (call.getSnapshot() as { children?: Record<string, AnyActorRef> }).children?.agent;
    if (!child) continue;
    count += 1 + runningSubAgents(child);
  }
  return count;
}
