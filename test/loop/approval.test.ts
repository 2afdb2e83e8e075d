import { describe, expect, it } from "vitest";
import type { AgentActor } from "../../src/agent/agent-snapshot.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { ToolResultMessage } from "../../src/types/messages.js";
import { echoTool, emptyContext, startLoopActor, testModel, user } from "../support/loop-harness.js";

function approvalRun(decide: (actor: AgentActor, toolCallId: string) => void) {
  const events: AgentEvent[] = [];
  const snapshots: unknown[] = [];
  const tool = { ...echoTool("danger"), requiresApproval: (args: { text: string }) => args.text !== "safe" };
  const streamFn = scriptedModel([
    {
      toolCalls: [
        { name: "danger", arguments: { text: "rm -rf" }, id: "risky" },
        { name: "danger", arguments: { text: "safe" }, id: "fine" },
      ],
    },
    { text: "ok" },
  ]);
  const { actor, ended, prompt } = startLoopActor(
    [user("go")],
    emptyContext({ tools: [tool] }),
    { model: testModel, streamFn },
    (event) => {
      events.push(event);
      if (event.type === "tool_approval_request") {
        snapshots.push(
          (actor.getSnapshot().children[event.toolCallId]?.getSnapshot() as { value?: unknown })?.value,
        );
        queueMicrotask(() => decide(actor, event.toolCallId));
      }
    },
  );
  prompt();
  return ended.then(() => {
    // When the request is announced, the child already sits in awaitingApproval.
    expect(snapshots).toEqual(["awaitingApproval"]);
    return events;
  });
}

const results = (events: AgentEvent[]) =>
  events.flatMap((e) =>
    e.type === "message_end" && (e.message as ToolResultMessage).role === "toolResult"
      ? [e.message as ToolResultMessage]
      : [],
  );

describe("tool approval", () => {
  it("asks only for calls that require approval and runs an approved call", async () => {
    const events = await approvalRun((actor, id) => actor.send({ type: "APPROVE_TOOL", toolCallId: id }));
    expect(
      events
        .filter((e) => e.type === "tool_approval_request")
        .map((e) => e.type === "tool_approval_request" && e.toolCallId),
    ).toEqual(["risky"]);
    expect(results(events).map((r) => [r.toolCallId, r.isError])).toEqual([
      ["risky", false],
      ["fine", false],
    ]);
  });

  it("gives a denied call an error result with the reason", async () => {
    const events = await approvalRun((actor, id) =>
      actor.send({ type: "DENY_TOOL", toolCallId: id, reason: "too risky" }),
    );
    const [denied, fine] = results(events);
    expect(denied?.isError).toBe(true);
    expect(denied?.content).toEqual([{ type: "text", text: "Tool call denied: too risky" }]);
    expect(fine?.isError).toBe(false);
  });

  it("answers a call still awaiting approval when the run is aborted", async () => {
    const events = await approvalRun((actor) => actor.send({ type: "ABORT" }));
    expect(results(events).map((r) => [r.toolCallId, r.isError])).toEqual([
      ["risky", true],
      ["fine", true],
    ]);
    expect(events.at(-1)?.type).toBe("agent_end");
  });
});
