import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentLoopActor } from "../../src/loop/agent-loop.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import { deferred, emptyContext, testModel, user } from "../support/loop-harness.js";

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("approval decisions for calls that are not waiting", () => {
  it("are ignored instead of crashing the loop", async () => {
    const gate = deferred<void>();
    const tool = defineTool({
      name: "guarded",
      description: "Needs approval",
      parameters: z.object({}),
      requiresApproval: true,
      execute: async () => {
        await gate.promise;
        return { content: [{ type: "text", text: "ran" }] };
      },
    });
    const events: AgentEvent[] = [];
    const streamFn = scriptedModel([
      { toolCalls: [{ name: "guarded", arguments: {}, id: "c1" }] },
      { text: "ok" },
    ]);
    const actor = createAgentLoopActor(
      [user("hi")],
      emptyContext({ tools: [tool] }),
      { model: testModel, streamFn },
      (e) => events.push(e),
    );
    actor.start();
    actor.send({ type: "START" });
    await settle();
    expect(events.some((e) => e.type === "tool_approval_request")).toBe(true);

    actor.send({ type: "APPROVE_TOOL", toolCallId: "unknown" });
    actor.send({ type: "DENY_TOOL", toolCallId: "unknown" });
    expect(actor.getSnapshot().status).toBe("active");
    const child = actor.getSnapshot().children.c1?.getSnapshot();
    expect(child && "value" in child ? child.value : undefined).toBe("awaitingApproval");

    actor.send({ type: "APPROVE_TOOL", toolCallId: "c1" });
    gate.resolve();
    await settle();
    // c1 has settled and its child is gone: a late decision for it changes nothing.
    actor.send({ type: "DENY_TOOL", toolCallId: "c1", reason: "too late" });
    await settle();
    expect(actor.getSnapshot().status).toBe("done");
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end).toMatchObject({ toolCallId: "c1", isError: false });
    expect(events.at(-1)?.type).toBe("agent_end");
  });
});
