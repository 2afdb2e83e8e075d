import type { z } from "zod";
import type { AgentTool, ToolResult } from "../types/tool.js";
import { defineTool } from "./define-tool.js";

/** What `defineClientTool` takes: a tool's description without `execute`. */
export interface ClientToolDefinition<TSchema extends z.ZodType> {
  name: string;
  label?: string;
  description: string;
  parameters: TSchema;
  requiresApproval?: boolean | ((args: z.output<TSchema>) => boolean);
  prepareArguments?: (rawArgs: unknown) => unknown;
}

/**
 * Defines a **client tool**: the model may call it, but the agent never runs it — the call waits in
 * `awaitingClient` (persisted like an approval), the agent emits `tool_client_request`, and the client
 * (a web page, a UI) answers with `agent.answerToolCall(toolCallId, { content })`. Arguments are
 * validated like any tool's before the call waits.
 *
 * Contract: throws a TypeError for a name the OpenAI API would reject; synchronous.
 *
 * ```ts
 * import { z } from "zod";
 * const pickColour = defineClientTool({
 *   name: "pick_colour", description: "Asks the user to pick a colour",
 *   parameters: z.object({ choices: z.array(z.string()) }),
 * });
 * agent.subscribe((e) => {
 *   if (e.type === "tool_client_request")
 *     agent.answerToolCall(e.toolCallId, { content: [{ type: "text", text: "teal" }] });
 * });
 * ```
 */
export function defineClientTool<TSchema extends z.ZodType>(
  definition: ClientToolDefinition<TSchema>,
): AgentTool<z.output<TSchema>> {
  const tool = defineTool({
    ...definition,
    execute: (): Promise<ToolResult> =>
      Promise.reject(
        new Error(`Tool ${definition.name} runs on the client; answer its calls with answerToolCall`),
      ),
  });
  return { ...tool, client: true };
}
