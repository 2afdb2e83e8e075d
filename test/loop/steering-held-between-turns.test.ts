import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { NextTurnUpdate } from "../../src/types/loop.js";
import { deferred, testModel } from "../support/loop-harness.js";

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Steering that arrives while tool "a" runs skips tool "b" (policy betweenTools) and waits in the run
 * for the next turn, while `prepareNextTurn` runs. Returns once the loop is in that gap.
 */
async function steeringHeldBetweenTurns(prepareNextTurn: () => Promise<NextTurnUpdate | undefined>) {
  const gates = new Map([
    ["a", deferred<void>()],
    ["b", deferred<void>()],
  ]);
  const tool = defineTool({
    name: "work",
    description: "Waits for the test",
    parameters: z.object({}),
    execute: async (_args, { toolCallId }) => {
      await gates.get(toolCallId)!.promise;
      return { content: [{ type: "text", text: "done" }] };
    },
  });
  const streamFn = scriptedModel([
    { toolCalls: ["a", "b"].map((id) => ({ name: "work", arguments: {}, id })) },
    { text: "after steering" },
  ]);
  const agent = new Agent({
    model: testModel,
    streamFn,
    tools: [tool],
    steering: "betweenTools",
    prepareNextTurn,
  });
  const run = agent.prompt("go");
  await settle();
  agent.steer("change of plan");
  gates.get("a")!.resolve();
  await settle();
  expect(agent.actor.getSnapshot().matches({ running: "preparingTurn" })).toBe(true);
  expect(agent.queued.steering).toEqual([]); // drained by the loop, not yet delivered
  return { agent, run, streamFn };
}

describe("steering held by the run between turns", () => {
  it("goes back to the queue when the run is aborted before the next turn", async () => {
    const nextTurn = deferred<NextTurnUpdate | undefined>();
    const { agent, run, streamFn } = await steeringHeldBetweenTurns(() => nextTurn.promise);
    agent.abort();
    await run; // prepareNextTurn has not returned yet
    expect(agent.queued.steering.map((m) => (m as { content: unknown }).content)).toEqual(["change of plan"]);
    expect(streamFn.calls).toHaveLength(1);
    nextTurn.resolve(undefined);
    await settle();
    expect(agent.queued.steering).toHaveLength(1); // and is not restored a second time
  });

  it("goes back to the queue when a between-turns callback throws", async () => {
    const nextTurn = deferred<NextTurnUpdate | undefined>();
    const { agent, run, streamFn } = await steeringHeldBetweenTurns(() => nextTurn.promise);
    nextTurn.reject(new Error("compaction failed"));
    await run;
    expect(agent.queued.steering.map((m) => (m as { content: unknown }).content)).toEqual(["change of plan"]);
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error" });
    expect(streamFn.calls).toHaveLength(1);
  });
});
