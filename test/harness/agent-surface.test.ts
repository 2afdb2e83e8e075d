import { filter, firstValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { CommandError } from "../../src/commands/command-error.js";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import type { AgentSurface } from "../../src/harness/agent-surface.js";
import { userMessage } from "../../src/loop/messages.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import { supportTree } from "../subagents/support.js";
import { testModel } from "../support/loop-harness.js";

// One scenario, two implementations: whatever drives an `AgentSurface` sees the same behaviour from an
// Agent and from an AgentHarness (the grandchild's refund waits for approval at ["s1", "b1"]).
const surfaces: [string, () => Promise<AgentSurface>][] = [
  [
    "Agent",
    async () => {
      const { tools, rootScript } = supportTree({ count: 0, keys: [] });
      return new Agent({ model: testModel, streamFn: scriptedModel(rootScript), tools });
    },
  ],
  [
    "AgentHarness",
    async () => {
      const { tools, rootScript } = supportTree({ count: 0, keys: [] });
      const session = await new MemorySessionRepo().create({ cwd: "/work" });
      return new AgentHarness({ model: testModel, streamFn: scriptedModel(rootScript), tools, session });
    },
  ],
];

const refusal = (send: () => void): CommandError => {
  try {
    send();
  } catch (error) {
    if (error instanceof CommandError) return error;
    throw error;
  }
  throw new Error("the command was not refused");
};

describe.each(surfaces)("%s as an AgentSurface", (_name, make) => {
  it("answers a grandchild's call by command, refuses stale and misaddressed ones by name", async () => {
    const surface = await make();
    const asked = firstValueFrom(
      surface.events$.pipe(filter((event) => event.type === "tool_approval_request")),
    );
    const done = surface.prompt("help");
    await asked;
    expect(surface.isRunning).toBe(true);
    expect(surface.state.awaitingApproval).toEqual([
      { toolCallId: "r1", toolName: "refund", args: { order: "A-1" }, agentPath: ["s1", "b1"] },
    ]);

    expect(refusal(() => surface.send({ type: "APPROVE_TOOL", toolCallId: "r1" }))).toMatchObject({
      code: "not_waiting",
      command: "APPROVE_TOOL",
      agentPath: [],
      toolCallId: "r1",
    });
    expect(
      refusal(() => surface.send({ type: "DENY_TOOL", toolCallId: "r1", agentPath: ["s1", "zz"] })),
    ).toMatchObject({
      code: "no_agent",
      agentPath: ["s1", "zz"],
    });
    expect(refusal(() => surface.send({ type: "PROMPT", messages: [userMessage("again")] })).code).toBe(
      "busy",
    );
    expect(refusal(() => surface.send({ type: "RAISE_BUDGET", limits: { maxTurns: 9 } })).code).toBe(
      "not_waiting",
    );

    surface.send({ type: "APPROVE_TOOL", toolCallId: "r1", agentPath: ["s1", "b1"] });
    expect(
      refusal(() => surface.send({ type: "APPROVE_TOOL", toolCallId: "r1", agentPath: ["s1", "b1"] }))
        .message,
    ).toBe('APPROVE_TOOL: no tool call "r1" of the sub-agent at s1/b1 is awaiting approval');

    const result = await done;
    expect(result.stopReason).toBe("stop");
    expect(result.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "root: all done" }],
    });
    await surface.waitForIdle();
    expect(surface.isRunning).toBe(false);
    surface.abort();
    surface.abort();
    expect(surface.state.messages.at(-1)).toMatchObject({ role: "assistant" });
  });

  it("refuses a second answer sent before the machine took the first (from inside a listener)", async () => {
    const surface = await make();
    const refusals: CommandError[] = [];
    const ended: unknown[] = [];
    surface.events$.subscribe((event) => {
      if (event.type === "tool_execution_end" && event.toolCallId === "r1") ended.push(event);
      if (event.type !== "tool_approval_request") return;
      const approve = {
        type: "APPROVE_TOOL",
        toolCallId: event.toolCallId,
        agentPath: event.agentPath!,
      } as const;
      surface.send(approve);
      refusals.push(refusal(() => surface.send(approve)));
      refusals.push(refusal(() => surface.send({ ...approve, type: "DENY_TOOL" })));
    });
    const result = await surface.prompt("help");
    expect(refusals.map((error) => [error.code, error.toolCallId])).toEqual([
      ["not_waiting", "r1"],
      ["not_waiting", "r1"],
    ]);
    expect(result.stopReason).toBe("stop");
    expect(ended).toMatchObject([
      { toolCallId: "r1", isError: false, result: { content: [{ text: "refunded A-1" }] } },
    ]);
  });

  it("queues steering sent while idle for the next run, and persists it", async () => {
    const surface = await make();
    surface.send({ type: "STEER", message: userMessage("be brief") });
    const persisted = JSON.stringify(surface.persist());
    expect(persisted).toContain("be brief");
  });
});
