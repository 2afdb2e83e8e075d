/**
 * A harness persisted at every state a run passes through (after every event it emits), restored over
 * the session as it was at that moment, and finished: each tool call answered once, the approval tool
 * never run unasked, the session readable, and the events of resumed calls on `events$`.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import type { HarnessEvent } from "../../src/harness/hooks.js";
import type { PersistedHarness } from "../../src/harness/snapshot.js";
import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import type { Session } from "../../src/storage/session.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentMessage } from "../../src/types/messages.js";
import { testModel } from "../support/harness-support.js";

interface Runs {
  echo: number;
  refund: number;
}

function tools(runs: Runs) {
  return [
    defineTool({
      name: "echo",
      description: "Echoes",
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }) => {
        runs.echo += 1;
        return { content: [{ type: "text", text: `echo ${text}` }] };
      },
    }),
    defineTool({
      name: "refund",
      description: "Refunds an order",
      requiresApproval: true,
      parameters: z.object({ order: z.string() }),
      execute: async ({ order }) => {
        runs.refund += 1;
        return { content: [{ type: "text", text: `refunded ${order}` }] };
      },
    }),
  ];
}

/** The model: asked after the prompt it calls both tools; asked after their results it is done. */
const reply: ScriptedTurn = (context) =>
  context.messages.at(-1)?.role === "user"
    ? {
        toolCalls: [
          { id: "e1", name: "echo", arguments: { text: "a" } },
          { id: "r1", name: "refund", arguments: { order: "A-17" } },
        ],
      }
    : { text: "All done." };
const script = () => scriptedModel([reply, reply]);

/** Every tool call of the branch has exactly one result, after it. */
function expectEveryCallAnsweredOnce(messages: readonly AgentMessage[]): void {
  const calls: string[] = [];
  for (const message of messages) {
    if (message.role === "assistant")
      for (const block of message.content) if (block.type === "toolCall") calls.push(block.id);
    if (message.role === "toolResult")
      expect(calls, `result of unknown call ${message.toolCallId}`).toContain(message.toolCallId);
  }
  const results = messages.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : []));
  expect([...results].sort()).toEqual([...calls].sort());
}

/** Runs a harness that approves every request; returns its events. */
function approveEverything(harness: AgentHarness, events: HarnessEvent[]): void {
  harness.events$.subscribe((event) => {
    events.push(event);
    if (event.type === "tool_approval_request") harness.approveToolCall(event.toolCallId);
  });
}

describe("a harness persisted at every state of a run", () => {
  it("restores and finishes from each one with the same invariants", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ cwd: "/shop" });
    const runs: Runs = { echo: 0, refund: 0 };
    const harness = new AgentHarness({ session, model: testModel, tools: tools(runs), streamFn: script() });
    const points: { label: string; saved: PersistedHarness; leafId: string | null; runs: Runs }[] = [];
    harness.events$.subscribe((event) => {
      if (event.type === "message_update") return;
      points.push({
        label: `${points.length} ${event.type}`,
        saved: JSON.parse(JSON.stringify(harness.persist())),
        leafId: session.leafId,
        runs: { ...runs },
      });
      if (event.type === "tool_approval_request") harness.approveToolCall(event.toolCallId);
    });
    await harness.prompt("Echo a and refund A-17");
    expect(runs).toEqual({ echo: 1, refund: 1 });
    expect(points.length).toBeGreaterThan(12);

    // Before the prompt's message_end nothing of the run is in the session: there is nothing to resume.
    const stored = points.filter((point) => point.leafId !== null);
    expect(points.slice(0, points.length - stored.length).map((p) => p.label)).toEqual([
      "0 agent_start",
      "1 turn_start",
      "2 message_start",
    ]);
    for (const point of stored) {
      const forked: Session = await repo.fork(session.id, { entryId: point.leafId!, position: "at" });
      const restoredRuns: Runs = { echo: 0, refund: 0 };
      const events: HarnessEvent[] = [];
      const { harness: restored, resumed } = AgentHarness.restore(
        { ...point.saved, sessionId: forked.id },
        { session: forked, model: testModel, tools: tools(restoredRuns), streamFn: script() },
      );
      approveEverything(restored, events);
      await resumed;
      await restored.waitForIdle();
      const messages = forked.buildContext().messages;
      expectEveryCallAnsweredOnce(messages);
      const asked = events.filter((e) => e.type === "tool_approval_request").length;
      // A refund that had not run by then is asked for again and runs once, approved here.
      if (point.runs.refund === 0 && !wasAnsweredBefore(session, point.leafId, "r1")) {
        expect(asked, point.label).toBe(1);
        expect(restoredRuns.refund, point.label).toBe(1);
      }
      // Never unasked: a restored refund ran only after this harness asked for it.
      expect(restoredRuns.refund, point.label).toBeLessThanOrEqual(asked);
      // Nothing ran twice that was not allowed to (neither tool is safe to replay).
      expect(point.runs.echo + restoredRuns.echo, point.label).toBeLessThanOrEqual(1);
      expect(point.runs.refund + restoredRuns.refund, point.label).toBeLessThanOrEqual(1);
      // Each call this harness answered shows its tool_execution_end on events$.
      const answered = messages.filter((m) => m.role === "toolResult").map((m) => m.toolCallId);
      for (const id of answered)
        if (!wasAnsweredBefore(session, point.leafId, id))
          expect(
            events.some((e) => e.type === "tool_execution_end" && e.toolCallId === id),
            `${point.label}: ${id}`,
          ).toBe(true);
      const last = messages.at(-1);
      expect(last, point.label).toMatchObject({ role: "assistant" });
      expect((last as { stopReason: string }).stopReason, point.label).toBe("stop");
    }
  });
});

/** Whether the call's result was already in the session at `leafId` (the restored run did not answer it). */
function wasAnsweredBefore(session: Session, leafId: string | null, toolCallId: string): boolean {
  return session
    .getBranch(leafId)
    .some(
      (entry) =>
        entry.type === "message" &&
        entry.message.role === "toolResult" &&
        entry.message.toolCallId === toolCallId,
    );
}
