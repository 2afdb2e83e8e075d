import { type AnyActorRef, createActor, type InspectionEvent, waitFor } from "xstate";
import { z } from "zod";
import { createAgentMachine } from "../../src/machines/agent/agent.provided.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { testModel, user } from "./loop-harness.js";

// The real agent machine for the inspector's tests: one `read` call (`call_1`, waiting for approval
// when asked to), then the answer "Done.". The tests drive it with its own commands.

/** The model's replies: a `read` call, then the answer. */
export const READ_REPLIES = [
  { toolCalls: [{ id: "call_1", name: "read", arguments: { path: "notes.txt" } }] },
  { text: "Done." },
];

/** A `read` tool answering "ok", waiting for approval when `needsApproval`. */
export function readTool(needsApproval: boolean) {
  return defineTool({
    name: "read",
    description: "Reads a file",
    parameters: z.object({ path: z.string() }),
    requiresApproval: needsApproval,
    execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
  });
}

/** An agent actor (id `agent`, agent id `a1`) on the real machine, started and inspected by `inspect`. */
export function startReadAgent(
  inspect: (event: InspectionEvent) => void,
  options: { needsApproval: boolean },
) {
  const machine = createAgentMachine({
    streamFn: scriptedModel(READ_REPLIES),
    tools: [readTool(options.needsApproval)],
  });
  return createActor(machine, { id: "agent", input: { model: testModel, agentId: "a1" }, inspect }).start();
}

/** Prompts the agent. */
export function promptRead(agent: AnyActorRef): void {
  agent.send({ type: "PROMPT", messages: [user("read my notes")] });
}

/** Resolves when the agent's call `call_1` waits for approval. */
export async function callWaiting(agent: AnyActorRef): Promise<void> {
  await waitFor(agent, (snapshot) => snapshot.hasTag("awaitingHuman"));
}

/** Resolves when the agent is idle again after a run. */
export async function runEnded(agent: AnyActorRef): Promise<void> {
  await waitFor(agent, (snapshot) => snapshot.matches("idle") && snapshot.context.messages.length > 0);
}
