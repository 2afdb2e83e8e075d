import { z } from "zod";
import type { Agent } from "../../src/agent/agent.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage } from "../../src/types/messages.js";

/** The tool every replay test uses: it counts its executions (side effects a recorded replay must not have). */
export function weatherTool(description = "The weather in a city") {
  const executions: string[] = [];
  const tool = defineTool({
    name: "weather",
    description,
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      executions.push(city);
      return { content: [{ type: "text", text: `${city}: 21°C` }] };
    },
  });
  return { tool, executions };
}

/** An approval tool: its calls wait for `approveToolCall` / `denyToolCall`. */
export const deleteTool = defineTool({
  name: "delete_file",
  description: "Deletes a file",
  parameters: z.object({ path: z.string() }),
  requiresApproval: true,
  execute: async ({ path }) => ({ content: [{ type: "text", text: `deleted ${path}` }] }),
});

/**
 * What two runs must share: each event's type, its agent path, the tool call id, and the text of the
 * message or delta (never timestamps).
 */
export function eventSignature(event: AgentEvent): string {
  const parts: string[] = [event.type];
  if (event.agentPath) parts.push(event.agentPath.join("/"));
  if ("toolCallId" in event) parts.push(event.toolCallId);
  if (event.type === "message_update") {
    const delta = (event.assistantMessageEvent as { delta?: string }).delta;
    if (delta !== undefined) parts.push(delta);
  }
  if (event.type === "message_end") parts.push(JSON.stringify(withoutTimestamps(event.message)));
  return parts.join(" ");
}

/** Every event signature of `agent`'s runs, collected from now on. */
export function signaturesOf(agent: Agent): string[] {
  const signatures: string[] = [];
  agent.subscribe((event) => {
    signatures.push(eventSignature(event));
  });
  return signatures;
}

/** A transcript without timestamps (they are the only thing a replay may change). */
export function withoutTimestamps(message: AgentMessage | readonly AgentMessage[]): unknown {
  return JSON.parse(JSON.stringify(message), (key, value) => (key === "timestamp" ? undefined : value));
}
