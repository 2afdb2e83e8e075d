import { describe, expect, it } from "vitest";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import type { StreamFn } from "../../src/types/stream.js";
import {
  phaseReached,
  roles,
  sessionMessages,
  standInCompaction,
  summariserTurn,
  testModel,
  texts,
} from "../support/harness-support.js";
import { deferred, echoTool } from "../support/loop-harness.js";

/** A StreamFn that waits for `gate` before answering its call number `held` (1-based). */
function heldAt(model: StreamFn & { calls: unknown[] }, held: number, gate: Promise<void>): StreamFn {
  return async (m, context, options) => {
    if (model.calls.length + 1 === held) await gate;
    return model(m, context, options);
  };
}

describe("harness persist and restore", () => {
  it("keeps the transcript and the queues of an idle harness; a snapshot of another session is refused", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ cwd: "/work" });
    const harness = new AgentHarness({
      session,
      model: testModel,
      streamFn: scriptedModel([{ text: "a1" }]),
    });
    await harness.prompt("q1");
    harness.nextTurn("remember this");
    const saved = JSON.stringify(harness.persist());
    await session.close();

    const reopened = await repo.open(session.id);
    const model = scriptedModel([{ text: "a2" }]);
    const { harness: restored, resumed } = AgentHarness.restore(saved, {
      session: reopened,
      model: testModel,
      streamFn: model,
    });
    expect(resumed).toBeUndefined();
    expect(texts(restored.messages)).toEqual(["q1", "a1"]);
    await restored.prompt("q2");
    expect(texts(model.calls[0]!.context.messages)).toEqual(["q1", "a1", "remember this", "q2"]);

    const other = await repo.create({ cwd: "/work" });
    expect(() => AgentHarness.restore(saved, { session: other, model: testModel, streamFn: model })).toThrow(
      /belongs to session/,
    );
  });

  it("restarts a compaction it was persisted in the middle of", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ cwd: "/work" });
    const gate = deferred();
    const first = scriptedModel([{ text: "a1" }, { text: "a2" }, summariserTurn("LOST")]);
    const harness = new AgentHarness({
      session,
      model: testModel,
      streamFn: heldAt(first, 3, gate.promise),
      compactionPort: standInCompaction(),
    });
    await harness.prompt("q1");
    await harness.prompt("q2");
    const compacting = harness.compact("keep names").catch((error: unknown) => error);
    await phaseReached(harness, "compaction");
    const saved = JSON.stringify(harness.persist());
    expect(JSON.parse(saved)).toMatchObject({
      phase: "compaction",
      compaction: { instructions: "keep names" },
    });
    await harness.abort();
    expect(await compacting).toMatchObject({ code: "compaction" });
    await session.close();

    const reopened = await repo.open(session.id);
    const second = scriptedModel([summariserTurn("SUMMARY")]);
    const { harness: restored, resumed } = AgentHarness.restore(saved, {
      session: reopened,
      model: testModel,
      streamFn: second,
      compactionPort: standInCompaction(),
    });
    expect(await resumed).toMatchObject({ summary: "SUMMARY" });
    expect(texts(second.calls[0]!.context.messages)[0]).toContain("(keep names)");
    expect(texts(restored.messages)).toEqual(["SUMMARY", "q2", "a2"]);
    expect(restored.messages).toEqual(sessionMessages(reopened));
  });

  it("finishes a turn it was persisted in the middle of from the session", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ cwd: "/work" });
    const toolRunning = deferred();
    const never = new Promise<void>(() => {});
    const tool = echoTool("echo", () => {
      toolRunning.resolve();
      return never;
    });
    const harness = new AgentHarness({
      session,
      model: testModel,
      tools: [tool],
      streamFn: scriptedModel([{ toolCalls: [{ name: "echo", arguments: { text: "x" }, id: "c1" }] }]),
    });
    const running = harness.prompt("go").catch((error: unknown) => error);
    await toolRunning.promise;
    const saved = JSON.stringify(harness.persist());
    expect(JSON.parse(saved).phase).toBe("turn");
    await harness.abort();
    await running;
    await session.close();

    // What a crash would leave: the session up to the tool call's journal entry.
    const crashed = await repo.fork(session.id, {
      entryId: await repo.open(session.id).then(async (s) => {
        const entry = s.getEntries().findLast((e) => e.type === "custom");
        await s.close();
        return entry!.id;
      }),
      position: "at",
    });
    const model = scriptedModel([{ text: "done" }]);
    const snapshot = { ...JSON.parse(saved), sessionId: crashed.id };
    const { harness: restored, resumed } = AgentHarness.restore(snapshot, {
      session: crashed,
      model: testModel,
      tools: [echoTool()],
      streamFn: model,
    });
    await resumed;
    expect(roles(restored.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(texts(restored.messages)[2]).toMatch(/interrupted, not re-run/);
    expect(model.calls).toHaveLength(1);
  });
});

describe("harness persist and restore mid-run", () => {
  it("keeps a follow-up and a steer queued during the run: the restored run delivers both", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ cwd: "/work" });
    const gate = deferred();
    const first = scriptedModel([{ text: "a1" }]);
    const harness = new AgentHarness({ session, model: testModel, streamFn: heldAt(first, 1, gate.promise) });
    const running = harness.prompt("q1");
    await phaseReached(harness, "turn");
    harness.steer("steered");
    harness.followUp("later");
    const saved = harness.persist();
    expect(saved.queues).toMatchObject({
      steering: [{ role: "user", content: "steered" }],
      followUp: [{ role: "user", content: "later" }],
    });
    // The process "dies" here: the session as it is now is what another process reopens.
    await session.flush();
    const copy = await repo.fork(session.id, { entryId: session.leafId!, position: "at" });
    const model = scriptedModel([{ text: "a1" }, { text: "a2" }, { text: "a3" }]);
    const { harness: restored, resumed } = AgentHarness.restore(
      JSON.stringify({ ...saved, sessionId: copy.id }),
      { session: copy, model: testModel, streamFn: model },
    );
    await resumed;
    await restored.waitForIdle();
    const users = texts(copy.buildContext().messages.filter((message) => message.role === "user"));
    expect(users).toEqual(["q1", "steered", "later"]);
    expect(restored.agent.queued).toEqual({ steering: [], followUp: [] });
    gate.resolve();
    await running;
  });
});
