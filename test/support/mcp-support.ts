import { fileURLToPath } from "node:url";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { ToolResultMessage } from "../../src/types/messages.js";
import type { AgentTool } from "../../src/types/tool.js";
import { testModel } from "./loop-harness.js";

/** The SDK-written test server (`test/support/mcp-test-server.mjs`). */
export const TEST_SERVER = fileURLToPath(new URL("./mcp-test-server.mjs", import.meta.url));

/** A stdio entry that starts the test server with `flags`. */
export function testServerEntry(...flags: string[]) {
  return { command: process.execPath, args: [TEST_SERVER, ...flags] };
}

/** An entry that starts a package's `bin` script from this repository's node_modules (no download). */
export function packageServerEntry(packageDir: string, script: string, ...args: string[]) {
  const path = fileURLToPath(new URL(`../../node_modules/${packageDir}/${script}`, import.meta.url));
  return { command: process.execPath, args: [path, ...args] };
}

/** True while a process with this id exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** What one scripted agent run that called tools produced. */
export interface ToolRun {
  events: AgentEvent[];
  results: ToolResultMessage[];
}

/**
 * Runs an Agent on the scripted model: the first reply calls `calls`, the second answers "done".
 * `onEvent` sees every event as it happens (e.g. to abort).
 */
export async function runToolCalls(
  tools: AgentTool[],
  calls: { name: string; arguments: Record<string, unknown> }[],
  onEvent: (event: AgentEvent, agent: Agent) => void = () => {},
): Promise<ToolRun> {
  const agent = new Agent({
    model: testModel,
    streamFn: scriptedModel([{ toolCalls: calls }, { text: "done" }]),
    tools,
  });
  const events: AgentEvent[] = [];
  agent.subscribe((event) => {
    events.push(event);
    onEvent(event, agent);
  });
  await agent.prompt("go");
  const results = events
    .filter((event): event is Extract<AgentEvent, { type: "message_end" }> => event.type === "message_end")
    .map((event) => event.message)
    .filter((message): message is ToolResultMessage => message.role === "toolResult");
  return { events, results };
}

/** The text blocks of a tool result, joined by newlines. */
export function resultText(result: ToolResultMessage | undefined): string {
  return (result?.content ?? [])
    .map((block) => (block.type === "text" ? block.text : `[${block.type}]`))
    .join("\n");
}
