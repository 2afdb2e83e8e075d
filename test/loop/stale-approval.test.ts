import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import { deferred, emptyContext, startLoopActor, testModel, user } from "../support/loop-harness.js";

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("approval decisions for calls that are not waiting", () => {
  it("are ignored instead of crashing the loop", async () => {
    const gates = new Map([
      ["c1", deferred<void>()],
      ["c2", deferred<void>()],
    ]);
    const execute = async (_args: unknown, { toolCallId }: { toolCallId: string }) => {
      await gates.get(toolCallId)!.promise;
      return { content: [{ type: "text" as const, text: `ran ${toolCallId}` }] };
    };
    const guarded = defineTool({
      name: "guarded",
      description: "Needs approval",
      parameters: z.object({}),
      requiresApproval: true,
      execute,
    });
    const plain = defineTool({ name: "plain", description: "Runs", parameters: z.object({}), execute });
    const events: AgentEvent[] = [];
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { name: "guarded", arguments: {}, id: "c1" },
          { name: "plain", arguments: {}, id: "c2" },
        ],
      },
      { text: "ok" },
    ]);
    const { actor, prompt } = startLoopActor(
      [user("hi")],
      emptyContext({ tools: [guarded, plain] }),
      { model: testModel, streamFn },
      (e) => events.push(e),
    );
    prompt();
    await settle();
    const child = () => {
      const snapshot = actor.getSnapshot().children.c1?.getSnapshot();
      return snapshot && "value" in snapshot ? snapshot.value : undefined;
    };
    expect(child()).toBe("awaitingApproval");

    actor.send({ type: "APPROVE_TOOL", toolCallId: "unknown" });
    actor.send({ type: "DENY_TOOL", toolCallId: "unknown" });
    expect(actor.getSnapshot().status).toBe("active");
    expect(child()).toBe("awaitingApproval");

    actor.send({ type: "APPROVE_TOOL", toolCallId: "c1" });
    gates.get("c1")!.resolve();
    await settle();
    // c1 has settled and its child is gone while c2 still runs: a late decision for c1 changes nothing.
    expect(actor.getSnapshot().value).toEqual({ running: { executingTools: "working" } });
    expect(child()).toBeUndefined();
    actor.send({ type: "DENY_TOOL", toolCallId: "c1", reason: "too late" });
    expect(actor.getSnapshot().status).toBe("active");

    gates.get("c2")!.resolve();
    await settle();
    expect(actor.getSnapshot().value).toBe("idle");
    const ends = events.filter((e) => e.type === "tool_execution_end");
    expect(ends.map((e) => [e.toolCallId, e.isError])).toEqual([
      ["c1", false],
      ["c2", false],
    ]);
    expect(events.at(-1)?.type).toBe("agent_end");
  });
});
