/**
 * `reduceLiveProgress`, the part of `agent.state` the Agent follows from its events rather than from the
 * machine: the reply streaming now and the tool calls running. Each row is an event, what the progress
 * holds after it, and whether `state$` observers hear of it (a delta is not announced: it would be one
 * state per token).
 */
import { describe, expect, it } from "vitest";
import { type LiveProgress, reduceLiveProgress } from "../../src/agent/agent-state.js";
import type { AgentEvent } from "../../src/types/events.js";
import { assistant } from "../support/loop-context.js";
import { user } from "../support/loop-harness.js";

const fresh = (): LiveProgress => ({ streamingMessage: undefined, pendingToolCalls: new Set() });
const partial = assistant([{ type: "text", text: "Hel" }], "stop");
const whole = assistant([{ type: "text", text: "Hello" }], "stop");
const result = { content: [{ type: "text" as const, text: "done" }] };

describe("the live progress of an agent's state", () => {
  it("follows the streaming reply: set at its start and each delta, cleared at its end and the run's", () => {
    const progress = fresh();
    expect(reduceLiveProgress(progress, { type: "message_start", message: partial })).toBe(true);
    expect(progress.streamingMessage).toBe(partial);
    const delta = { type: "text_delta", contentIndex: 0, delta: "lo", partial: whole } as never;
    expect(
      reduceLiveProgress(progress, { type: "message_update", message: whole, assistantMessageEvent: delta }),
    ).toBe(false);
    expect(progress.streamingMessage).toBe(whole);
    expect(reduceLiveProgress(progress, { type: "message_end", message: whole })).toBe(true);
    expect(progress.streamingMessage).toBeUndefined();

    progress.streamingMessage = partial;
    expect(reduceLiveProgress(progress, { type: "agent_end", messages: [], stopReason: "stop" })).toBe(true);
    expect(progress.streamingMessage).toBeUndefined();
  });

  it("a user message's start is announced but is no streaming reply", () => {
    const progress = fresh();
    expect(reduceLiveProgress(progress, { type: "message_start", message: user("hi") })).toBe(true);
    expect(progress.streamingMessage).toBeUndefined();
  });

  it("follows the running calls, each set a new one (observers compare by identity)", () => {
    const progress = fresh();
    const before = progress.pendingToolCalls;
    const start = (id: string): AgentEvent => ({
      type: "tool_execution_start",
      toolCallId: id,
      toolName: "t",
      args: {},
    });
    expect(reduceLiveProgress(progress, start("a"))).toBe(true);
    expect(reduceLiveProgress(progress, start("b"))).toBe(true);
    expect([...progress.pendingToolCalls]).toEqual(["a", "b"]);
    expect(progress.pendingToolCalls).not.toBe(before);
    expect(before.size).toBe(0);
    const running = progress.pendingToolCalls;
    expect(
      reduceLiveProgress(progress, {
        type: "tool_execution_end",
        toolCallId: "a",
        toolName: "t",
        result,
        isError: false,
      }),
    ).toBe(true);
    expect([...progress.pendingToolCalls]).toEqual(["b"]);
    expect([...running]).toEqual(["a", "b"]);
  });

  it("announces a turn's end and a run's start; nothing else", () => {
    const progress = fresh();
    expect(reduceLiveProgress(progress, { type: "turn_end", message: whole, toolResults: [] })).toBe(true);
    expect(reduceLiveProgress(progress, { type: "agent_start" })).toBe(true);
    expect(reduceLiveProgress(progress, { type: "turn_start" })).toBe(false);
    expect(reduceLiveProgress(progress, { type: "agent_resume", from: "streaming" })).toBe(false);
    expect(progress).toEqual(fresh());
  });
});
