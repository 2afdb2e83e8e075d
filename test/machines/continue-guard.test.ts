/**
 * `CONTINUE` from idle, decided by the machine's `canContinue` guard with XState's pure `transition()`:
 * after an assistant message a run continues only when a queued message waits (either queue, or both).
 */
import { describe, expect, it } from "vitest";
import { initialTransition, transition } from "xstate";
import { createAgentMachine } from "../../src/machines/agent/agent.provided.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentMessage } from "../../src/types/messages.js";
import { testModel, user } from "../support/loop-harness.js";

const machine = createAgentMachine({ streamFn: scriptedModel([]) });
const reply: AgentMessage = {
  role: "assistant",
  content: [{ type: "text", text: "Done." }],
  api: testModel.api,
  provider: testModel.provider,
  model: testModel.id,
  usage: {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: "stop",
  timestamp: 1,
};

/** The state after `CONTINUE` from idle with `messages` and the given queued messages. */
function afterContinue(messages: AgentMessage[], queued: ("STEER" | "FOLLOW_UP")[]): unknown {
  let [snapshot] = initialTransition(machine, { model: testModel, agentId: "a1", messages });
  for (const type of queued) [snapshot] = transition(machine, snapshot, { type, message: user("and?") });
  const [next] = transition(machine, snapshot, { type: "CONTINUE" });
  return next.value;
}

describe("CONTINUE from idle", () => {
  it("runs after a user message, and after an assistant message only with a queued message", () => {
    expect(afterContinue([], [])).toBe("idle");
    expect(afterContinue([user("hi")], [])).toMatchObject({ running: expect.anything() });
    expect(afterContinue([user("hi"), reply], [])).toBe("idle");
    expect(afterContinue([user("hi"), reply], ["STEER"])).toMatchObject({ running: expect.anything() });
    expect(afterContinue([user("hi"), reply], ["FOLLOW_UP"])).toMatchObject({ running: expect.anything() });
    expect(afterContinue([user("hi"), reply], ["STEER", "FOLLOW_UP"])).toMatchObject({
      running: expect.anything(),
    });
  });
});
