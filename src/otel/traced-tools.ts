import type { AgentTool } from "../types/tool.js";
import { context } from "./otel-api.js";
import type { RunTracer } from "./run-tracer.js";

/**
 * Wraps tools so each `execute` runs inside the context of its `execute_tool` span (spans that the
 * tool creates nest under it) and a throw is recorded on that span. The wrappers keep every other
 * field of the tool; `original` gives a wrapper's tool back. Wrapping a wrapper returns it unchanged.
 * An agent tool's wrapper wraps the tools of each sub-agent it starts, at every depth.
 */
export class TracedTools {
  readonly #tracer: RunTracer;
  readonly #wrappers = new WeakMap<AgentTool, AgentTool>();
  readonly #originals = new WeakMap<AgentTool, AgentTool>();

  constructor(tracer: RunTracer) {
    this.#tracer = tracer;
  }

  /** The traced version of each tool (the same wrapper object for the same tool every time). */
  wrap(tools: readonly AgentTool[]): AgentTool[] {
    return tools.map((tool) => this.#wrapOne(tool));
  }

  /** The original tools of wrappers (other tools pass through). */
  unwrap(tools: readonly AgentTool[]): AgentTool[] {
    return tools.map((tool) => this.#originals.get(tool) ?? tool);
  }

  #wrapOne(tool: AgentTool): AgentTool {
    if (this.#originals.has(tool)) return tool;
    const known = this.#wrappers.get(tool);
    if (known) return known;
    const tracer = this.#tracer;
    const subAgent = tool.subAgent;
    const wrapper: AgentTool = {
      ...tool,
      // A sub-agent's own tools are traced too: its spec's tools are wrapped each time it starts.
      ...(subAgent
        ? { subAgent: { ...subAgent, agent: (args: unknown) => this.#tracedSpec(subAgent.agent(args)) } }
        : {}),
      execute: (args, ctx) => {
        const spanContext = tracer.toolExecutionContext(ctx.toolCallId);
        if (!spanContext) return tool.execute(args, ctx);
        return context
          .with(spanContext, async () => tool.execute(args, ctx))
          .catch((error: unknown) => {
            tracer.toolThrew(ctx.toolCallId, error);
            throw error;
          });
      },
    };
    this.#wrappers.set(tool, wrapper);
    this.#originals.set(wrapper, tool);
    return wrapper;
  }

  #tracedSpec(spec: object): object {
    const tools = (spec as { tools?: AgentTool[] }).tools;
    return tools ? { ...spec, tools: this.wrap(tools) } : spec;
  }
}
