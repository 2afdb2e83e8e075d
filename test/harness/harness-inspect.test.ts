import { describe, expect, it } from "vitest";
import type { AnyActorRef, InspectionEvent } from "xstate";
import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";
import { createHarness } from "../support/harness-support.js";

describe("harness inspection", () => {
  it("reports one actor system: the harness, its child agent and the agent's tool calls", async () => {
    const seen: InspectionEvent[] = [];
    const echo = defineTool({
      name: "echo",
      description: "Echoes",
      parameters: z.object({}),
      execute: async () => ({ content: [{ type: "text", text: "echoed" }] }),
    });
    const { harness } = await createHarness(
      [{ toolCalls: [{ id: "call_1", name: "echo", arguments: {} }] }, { text: "done" }],
      { inspect: (event) => seen.push(event), tools: [echo] },
    );
    await harness.prompt("hi");

    const rootIds = new Set(seen.map((event) => event.rootId));
    expect(rootIds).toEqual(new Set([harness.actor.sessionId]));
    expect(harness.actor.getSnapshot().children.agent).toBe(harness.agent.actor);
    const actorIds = seen.flatMap((event) =>
      event.type === "@xstate.actor" ? [(event.actorRef as AnyActorRef).id] : [],
    );
    expect(actorIds).toEqual(expect.arrayContaining(["agent", "turn", "call_1"]));
    const values = seen.flatMap((event) =>
      event.type === "@xstate.snapshot"
        ? [JSON.stringify((event.snapshot as { value?: unknown }).value)]
        : [],
    );
    expect(values).toContain('"turn"'); // the harness machine
    expect(values).toContain('{"running":{"executingTools":"working"}}'); // its agent
  });
});
