/**
 * Tool approval: a tool with `requiresApproval` waits in the `awaitingApproval` state of its
 * tool-call actor and emits `tool_approval_request`. The app answers with `approveToolCall` or
 * `denyToolCall`; a denied call gets an error tool result with the reason, the model carries on.
 *
 *   npx tsx examples/approval.ts
 */
import { z } from "zod";
import { Agent, defineTool } from "../src/index.js";
import { scriptedModel } from "../src/testing.js";

const deleteFile = defineTool({
  name: "delete_file",
  description: "Deletes a file (pretend)",
  parameters: z.object({ path: z.string() }),
  // Only paths outside tmp/ need a person's approval.
  requiresApproval: ({ path }) => !path.startsWith("tmp/"),
  execute: async ({ path }) => ({ content: [{ type: "text", text: `deleted ${path}` }] }),
});

const agent = new Agent({
  model: { id: "demo", api: "scripted", provider: "local", contextWindow: 8_000, maxTokens: 1_000 },
  tools: [deleteFile],
  streamFn: scriptedModel([
    {
      toolCalls: [
        { id: "call_tmp", name: "delete_file", arguments: { path: "tmp/cache.bin" } },
        { id: "call_notes", name: "delete_file", arguments: { path: "notes.md" } },
        { id: "call_env", name: "delete_file", arguments: { path: ".env" } },
      ],
    },
    (context) => {
      const results = context.messages.filter((message) => message.role === "toolResult");
      return {
        text: results
          .map(
            (r) =>
              `${r.toolCallId}: ${r.isError ? "refused" : "done"} (${r.content[0]?.type === "text" ? r.content[0].text : ""})`,
          )
          .join("\n"),
      };
    },
  ]),
});

// A policy standing in for a person: approve notes, refuse secrets.
agent.subscribe((event) => {
  if (event.type !== "tool_approval_request") return;
  const { path } = event.args as { path: string };
  console.log(`approval requested for ${event.toolName}(${path}) [${event.toolCallId}]`);
  const state = agent.actor?.getSnapshot().children[event.toolCallId]?.getSnapshot() as { value?: unknown };
  console.log(`  tool-call actor ${event.toolCallId} is in state "${String(state?.value)}"`);
  // Answer after the event has been delivered (a UI would answer much later).
  queueMicrotask(() => {
    if (path === ".env") agent.denyToolCall(event.toolCallId, "secrets stay where they are");
    else agent.approveToolCall(event.toolCallId);
  });
});

await agent.prompt("Clean up the project");
const last = agent.state.messages.at(-1) as { content: { type: string; text?: string }[] };
console.log(last.content[0]?.text);
