import { z } from "zod";
import type { AgentMessage } from "../types/messages.js";
import type { Model } from "../types/model.js";
import type { AgentTool, HandoffRecord } from "../types/tool.js";
import { defineTool } from "./define-tool.js";

/** Options of `defineHandoff`. */
export interface HandoffOptions {
  /** The agent that takes over: its name (also the tool's, `transfer_to_<name>`), prompt, tools, model. */
  agent: { name: string; description?: string; systemPrompt?: string; tools?: AgentTool[]; model?: Model };
  /** The tool's name (default `transfer_to_<agent name>`). */
  toolName?: string;
  /** What the model reads about when to hand off (default from the agent's description). */
  description?: string;
  /** What the target's model sees of the transcript (see `HandoffDefinition.inputFilter`). */
  inputFilter?: (messages: AgentMessage[]) => AgentMessage[] | Promise<AgentMessage[]>;
}

/**
 * Defines a **handoff**: a tool (`transfer_to_<name>` by default) that, when the model calls it, ends
 * the current agent's turn and goes on with the same run as `agent` — its system prompt, tools and
 * model become the agent's, as data in the context (so `persist()`/`restore` keep them), and later
 * prompts go to it too. The target's tools (and its own handoffs) are registered with the agent.
 *
 * Contract: synchronous; throws as `defineTool` does for a name the OpenAI API would reject.
 *
 * ```ts
 * import { Agent } from "agentchart";
 * const toBilling = defineHandoff({ agent: { name: "billing", systemPrompt: "You do billing.", tools } });
 * const triage = new Agent({ model, streamFn, systemPrompt: "Route the user.", tools: [toBilling] });
 * ```
 */
export function defineHandoff(options: HandoffOptions): AgentTool {
  const target = options.agent;
  const record: HandoffRecord = {
    agent: target.name,
    systemPrompt: target.systemPrompt ?? "",
    toolNames: (target.tools ?? []).map((tool) => tool.name),
    ...(target.model ? { model: target.model } : {}),
  };
  const tool = defineTool({
    name: options.toolName ?? `transfer_to_${target.name}`,
    description:
      options.description ??
      `Hand the conversation over to the ${target.name} agent${target.description ? `: ${target.description}` : ""}.`,
    parameters: z.object({}),
    execute: async () => ({
      content: [{ type: "text", text: `Transferred to ${target.name}.` }],
      details: { handoff: record },
    }),
  });
  return {
    ...tool,
    handoff: {
      agent: target.name,
      systemPrompt: record.systemPrompt,
      tools: target.tools ?? [],
      ...(target.model ? { model: target.model } : {}),
      ...(options.inputFilter ? { inputFilter: options.inputFilter } : {}),
    },
  };
}
