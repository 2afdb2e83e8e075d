import { afterEach, describe, expect, it } from "vitest";
import { type AgentClient, createAgentClient } from "../../src/client/agent-client.js";
import type { AgentClientContext } from "../../src/client/agent-client-state.js";
import { childTurns, serveResearchTree } from "../support/subagent-server.js";

const servers: { close(): Promise<void> }[] = [];
const clients: AgentClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Resolves with the first context that `holds` (now or later). */
function when(client: AgentClient, holds: (context: AgentClientContext) => boolean) {
  return new Promise<AgentClientContext>((resolve) => {
    const check = ({ context }: { context: AgentClientContext }) => {
      if (!holds(context)) return;
      subscription.unsubscribe();
      resolve(context);
    };
    const subscription = client.subscribe(check);
    check(client.getSnapshot());
  });
}

describe("the client store with sub-agents", () => {
  it("keeps the root transcript clean, shows the sub-agent's activity, and answers its approval with the path", async () => {
    const served = await serveResearchTree(childTurns);
    servers.push(served);
    const client = createAgentClient({ url: served.url, threadId: "c1", memory: null });
    clients.push(client);
    client.trigger.submit({ text: "Refund A-1 please" });

    const waiting = await when(
      client,
      (context) => context.awaitingApproval.length > 0 && context.status === "waiting",
    );
    expect(waiting.awaitingApproval).toEqual([
      { toolCallId: "r1", toolName: "refund", args: { order: "A-1" }, agentPath: ["s1"] },
    ]);
    expect(waiting.subAgents).toEqual({
      s1: {
        id: "s1",
        name: "research",
        agentPath: ["s1"],
        parentToolCallId: "s1",
        parentId: undefined,
        status: "running",
        text: "Checking the order.",
        error: undefined,
      },
    });
    // The root's call runs its sub-agent: it is running, not waiting for approval; r1 is no root call.
    expect(waiting.toolCalls.s1?.status).toBe("running");
    expect(waiting.toolCalls.r1).toBeUndefined();

    void client.command({ type: "APPROVE_TOOL", toolCallId: "r1", agentPath: ["s1"] });
    const done = await when(client, (context) => context.status === "idle");
    expect(served.refunds).toEqual(["A-1"]);
    expect(done.messages.map((message) => [message.role, message.content ?? ""])).toEqual([
      ["user", "Refund A-1 please"],
      ["assistant", "Let me delegate."],
      ["tool", "research: refunded"],
      ["assistant", "root: all done"],
    ]);
    expect(Object.keys(done.toolCalls)).toEqual(["s1"]);
    expect(done.subAgents.s1).toMatchObject({ status: "done", text: "research: refunded" });
    expect(done.awaitingApproval).toEqual([]);
  });

  it("marks a sub-agent cut short by an abort as failed", async () => {
    const served = await serveResearchTree([{ text: "Thinking very hard", hang: true }]);
    servers.push(served);
    const client = createAgentClient({ url: served.url, threadId: "c2", memory: null });
    clients.push(client);
    client.trigger.submit({ text: "Go" });
    await when(client, (context) => context.subAgents.s1?.text.startsWith("Thinking") === true);
    void client.command({ type: "ABORT" });
    const ended = await when(client, (context) => context.status === "idle");
    expect(ended.subAgents.s1).toMatchObject({ status: "error", error: expect.stringMatching(/abort/i) });
    expect(ended.messages.some((message) => message.content === "Thinking very hard")).toBe(false);
  });
});
