import { describe, expect, it } from "vitest";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentEvent } from "../../src/types/events.js";
import {
  describeEvents,
  emptyContext,
  runToEnd,
  startLoopActor,
  testModel,
  user,
} from "../support/loop-harness.js";

describe("abort before the run starts", () => {
  it("records the prompt and an aborted assistant message (ABORT sent by an agent_start listener)", () => {
    const events: AgentEvent[] = [];
    const streamFn = scriptedModel([{ text: "never" }]);
    const { actor, prompt } = startLoopActor(
      [user("hi")],
      emptyContext(),
      { model: testModel, streamFn },
      (e) => {
        events.push(e);
        if (e.type === "agent_start") actor.send({ type: "ABORT" });
      },
    );
    prompt();
    expect(actor.getSnapshot().value).toBe("idle");
    expect(describeEvents(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start(user)",
      "message_end(user)",
      "message_start(assistant)",
      "message_end(assistant)",
      "turn_end",
      "agent_end",
    ]);
    const turnEnd = events.find((e) => e.type === "turn_end");
    expect(turnEnd?.type === "turn_end" && turnEnd.message.stopReason).toBe("aborted");
    expect(streamFn.calls).toHaveLength(0);
  });

  it("does the same for an already aborted config.signal", async () => {
    const streamFn = scriptedModel([{ text: "never" }]);
    const events = await runToEnd([user("hi")], emptyContext(), {
      model: testModel,
      streamFn,
      signal: AbortSignal.abort(),
    });
    expect(events.filter((e) => e.type === "turn_start")).toHaveLength(1);
    expect(events.filter((e) => e.type === "turn_end")).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("agent_end");
    expect(streamFn.calls).toHaveLength(0);
  });
});
