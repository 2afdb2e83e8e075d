import type { AfterToolCallContext, AfterToolCallResult, AgentCallbacks } from "../types/loop.js";
import type { StreamFn } from "../types/stream.js";
import type { SubAgentSpec } from "../types/sub-agent.js";
import type { AgentTool } from "../types/tool.js";

/** What the harness gives the sub-agents of its agent tools. */
export interface SubAgentWiring {
  /**
   * The StreamFn of a child whose spec has none (its own children inherit the child's): the harness's
   * stream options, but the child's own system prompt — never the harness's turn machinery.
   */
  streamFn: StreamFn;
  /** The link a sub-agent's agent tool result gets (`details.session`), when the harness records sessions. */
  link: ((ctx: AfterToolCallContext) => AfterToolCallResult | undefined) | undefined;
  /** The harness's `tool_call` / `tool_result` hooks as they are when a child starts (`undefined`: no handlers). */
  toolHooks(): Pick<AgentCallbacks, "beforeToolCall" | "afterToolCall">;
}

type AfterToolCall = NonNullable<AgentCallbacks["afterToolCall"]>;

type BeforeToolCall = NonNullable<AgentCallbacks["beforeToolCall"]>;

/**
 * `tool` as the harness's agent runs it: for an agent tool, its child's spec gets the harness's
 * StreamFn when it has none; the harness's `tool_call` / `tool_result` hooks after the spec's own
 * `beforeToolCall` / `afterToolCall` (their events carry the call's `agentPath`); and — when sessions
 * are recorded — after those, a link from each of the child's agent tool results to the grandchild's
 * session. The child's agent tools are wrapped the same way, at every depth. Other tools are returned
 * as they are.
 *
 * Contract: synchronous, never throws; the wrapped `agent` function throws what the tool's throws.
 */
export function harnessAgentTool(tool: AgentTool, wiring: SubAgentWiring, depth = 1): AgentTool {
  const definition = tool.subAgent;
  if (!definition) return tool;
  const agent = (args: unknown): SubAgentSpec => {
    const spec = definition.agent(args) as SubAgentSpec;
    const tools = spec.tools?.map((child) => harnessAgentTool(child, wiring, depth + 1));
    const links = wiring.link !== undefined && (tools ?? []).some((child) => child.subAgent !== undefined);
    const hooks = wiring.toolHooks();
    const before = chainedBeforeToolCall(spec.beforeToolCall, hooks.beforeToolCall);
    const hooked = chainedAfterToolCall(spec.afterToolCall, hooks.afterToolCall);
    const after = links ? chainedAfterToolCall(hooked, wiring.link!) : hooked;
    return {
      ...spec,
      // Deeper children inherit their parent's StreamFn, which is this one or the spec's own.
      ...(depth === 1 && !spec.streamFn ? { streamFn: wiring.streamFn } : {}),
      ...(tools ? { tools } : {}),
      ...(before ? { beforeToolCall: before } : {}),
      ...(after ? { afterToolCall: after } : {}),
    };
  };
  return { ...tool, subAgent: { ...definition, agent } };
}

/**
 * A `beforeToolCall` running `first`, then — unless it blocked — `second` (either may be missing).
 *
 * Contract: async when either is; throws what they throw.
 */
function chainedBeforeToolCall(
  first: AgentCallbacks["beforeToolCall"],
  second: AgentCallbacks["beforeToolCall"],
): AgentCallbacks["beforeToolCall"] {
  if (!first || !second) return first ?? second;
  const chained: BeforeToolCall = async (ctx, signal) => {
    const verdict = await first(ctx, signal);
    return verdict?.block ? verdict : second(ctx, signal);
  };
  return chained;
}

/**
 * An `afterToolCall` running `first`, then `second` on the result `first` left; the fields both
 * returned are merged, `second`'s winning (either may be missing).
 *
 * Contract: async when either is; throws what they throw.
 */
export function chainedAfterToolCall(
  first: AgentCallbacks["afterToolCall"],
  second: ((ctx: AfterToolCallContext, signal: AbortSignal) => ReturnType<AfterToolCall>) | undefined,
): AgentCallbacks["afterToolCall"] {
  if (!first || !second) return first ?? second;
  const chained: AfterToolCall = async (ctx, signal) => {
    const changed = await first(ctx, signal);
    const result = changed
      ? {
          ...ctx.result,
          ...(changed.content !== undefined ? { content: changed.content } : {}),
          ...("details" in changed ? { details: changed.details } : {}),
        }
      : ctx.result;
    const next = await second({ ...ctx, result, isError: changed?.isError ?? ctx.isError }, signal);
    return next ? { ...changed, ...next } : changed;
  };
  return chained;
}
