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
}

type AfterToolCall = NonNullable<AgentCallbacks["afterToolCall"]>;

/**
 * `tool` as the harness's agent runs it: for an agent tool, its child's spec gets the harness's
 * StreamFn when it has none, and — when sessions are recorded — an `afterToolCall` (after the spec's
 * own) linking each of the child's agent tool results to the grandchild's session; the child's agent
 * tools are wrapped the same way, at every depth. Other tools are returned as they are.
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
    return {
      ...spec,
      // Deeper children inherit their parent's StreamFn, which is this one or the spec's own.
      ...(depth === 1 && !spec.streamFn ? { streamFn: wiring.streamFn } : {}),
      ...(tools ? { tools } : {}),
      ...(links ? { afterToolCall: linkedAfterToolCall(spec.afterToolCall, wiring.link!) } : {}),
    };
  };
  return { ...tool, subAgent: { ...definition, agent } };
}

/**
 * An `afterToolCall` running `own` (if any), then adding `link`'s fields to what it left.
 *
 * Contract: async; throws what `own` throws.
 */
export function linkedAfterToolCall(
  own: AgentCallbacks["afterToolCall"],
  link: (ctx: AfterToolCallContext) => AfterToolCallResult | undefined,
): AfterToolCall {
  return async (ctx, signal) => {
    const changed = own ? await own(ctx, signal) : undefined;
    const result = changed
      ? {
          ...ctx.result,
          ...(changed.content !== undefined ? { content: changed.content } : {}),
          ...("details" in changed ? { details: changed.details } : {}),
        }
      : ctx.result;
    const linked = link({ ...ctx, result, isError: changed?.isError ?? ctx.isError });
    return linked ? { ...changed, ...linked } : changed;
  };
}
