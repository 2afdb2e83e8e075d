import { HttpAgent } from "@ag-ui/client";
import { afterEach, describe, expect, it } from "vitest";
import { postCommand, scriptedAgents, serveOnLoopback } from "../support/ag-ui-server.js";

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("the official @ag-ui/client HttpAgent on our endpoint", () => {
  it("runs two turns of a thread, with a tool call approved by command, and sees the server's transcript", async () => {
    // Before the approval, an approval addressed to a sub-agent that does not exist: the CommandError, 409.
    const setup = scriptedAgents(() => [
      { text: "Reversing.", toolCalls: [{ id: "call_h", name: "reverse", arguments: { text: "stressed" } }] },
      { text: "It reads desserts." },
      { text: "You are welcome." },
    ]);
    const served = await serveOnLoopback(setup.handler);
    servers.push(served);
    const client = new HttpAgent({ url: served.url, threadId: "h1" });
    const seen: string[] = [];
    const approvals: Promise<{ status: number; body: unknown }[]>[] = [];
    const answer = async (response: Response) => ({ status: response.status, body: await response.json() });
    client.addMessage({ id: "u1", role: "user", content: "Reverse stressed" });
    await client.runAgent(
      { runId: "run-1" },
      {
        onEvent: ({ event }) => {
          seen.push(event.type);
        },
        onCustomEvent: ({ event }) => {
          if (event.name === "agentchart.tool_approval_request")
            approvals.push(
              (async () => [
                await answer(
                  await postCommand(served.url, "h1", {
                    type: "APPROVE_TOOL",
                    toolCallId: "call_h",
                    agentPath: ["ghost"],
                  }),
                ),
                await answer(
                  await postCommand(served.url, "h1", { type: "APPROVE_TOOL", toolCallId: "call_h" }),
                ),
              ])(),
            );
        },
      },
    );
    expect(await Promise.all(approvals)).toEqual([
      [
        {
          status: 409,
          body: {
            error: {
              code: "no_agent",
              message: "APPROVE_TOOL: no sub-agent runs at ghost",
              command: "APPROVE_TOOL",
              agentPath: ["ghost"],
            },
          },
        },
        { status: 200, body: { ok: true, runId: "run-1" } },
      ],
    ]);
    expect(seen[0]).toBe("RUN_STARTED");
    expect(seen.at(-1)).toBe("RUN_FINISHED");
    const stripped = client.messages.map((message) => {
      const { id: _id, ...rest } = message as { id: string } & Record<string, unknown>;
      return rest;
    });
    expect(stripped).toEqual([
      { role: "user", content: "Reverse stressed" },
      {
        role: "assistant",
        content: "Reversing.",
        toolCalls: [
          { id: "call_h", type: "function", function: { name: "reverse", arguments: '{"text":"stressed"}' } },
        ],
      },
      expect.objectContaining({ role: "tool", toolCallId: "call_h", content: "desserts" }),
      { role: "assistant", content: "It reads desserts." },
    ]);

    // The next run sends the whole conversation again: only the new user message is prompted.
    client.addMessage({ id: "u2", role: "user", content: "Thanks" });
    await client.runAgent({ runId: "run-2" });
    expect(client.messages.at(-1)).toMatchObject({ role: "assistant", content: "You are welcome." });
    const transcript = setup.agents.get("h1")?.state.messages ?? [];
    expect(transcript.filter((message) => message.role === "user").map((message) => message.content)).toEqual(
      ["Reverse stressed", "Thanks"],
    );
    expect(setup.models.get("h1")?.remaining()).toBe(0);
  });
});
